import Foundation
import RequestEngine
import TerminalUI
import TestSupport
import Testing
import Workbench
import Workspace

/// The response viewer's `Request` tab: the request as curl sent it (request line, every header
/// curl wrote, the body), secrets masked, like `http -v`.
@Suite("the Request tab")
struct SentRequestTabTests {
  /// Against httpbin: what curl really wrote (Host, User-Agent, Content-Length it added itself)
  /// and the body, the secret masked in a header and in the body.
  @Test func showsWhatCurlSentWithSecretsMasked() throws {
    let secret = "S3cr3t-" + uniqueKey()
    let httpbin = try TestServer.httpbin.baseURL
    let workspace = try Workspace.parse(
      Array(
        """
        {"version": 1, "baseURL": "\(httpbin)/",
         "requests": [{"name": "post", "method": "POST", "url": "anything",
                       "headers": {"Authorization": "Bearer {{secret.token}}", "Cookie": "session=abc"},
                       "body": {"json": {"name": "Ada", "key": "{{secret.token}}"}}}]}
        """.utf8), file: "sent.json")
    let sources = VariableSources(processEnvironment: [:], secrets: SecretsFile(values: [("token", secret)]))
    let request = try workspace.prepare(try #require(workspace.request(named: "post")), sources: sources)
    let agent = Agent()
    defer { agent.shutdown() }
    let result = agent.sendAndWait(request)
    #expect(result.response?.status == 200)

    var state = AppState(workspace: workspace, workspaceFile: "sent.json", sources: sources, width: 120, height: 40)
    send(&state, .agent(.queued(result.id, request)), .agent(.started(result.id, attempt: 1)))
    state.focus = .queue
    send(&state, .key(.enter))
    send(&state, .agent(.finished(result)))
    state.focus = .response
    send(&state, .key(.left))  // Body → (round the end) Request
    #expect(state.viewer.tab == .request)
    let text = screenText(state)
    #expect(text.contains("[Request]"), "\(text)")
    #expect(text.contains("POST /anything HTTP/1.1"), "\(text)")
    let host = try #require(URLComponents(string: httpbin)).port.map { "127.0.0.1:\($0)" } ?? "127.0.0.1"
    #expect(text.contains("Host:") && text.contains(host), "\(text)")
    #expect(text.contains("User-Agent:") && text.contains("reqbench/"), "\(text)")
    #expect(text.contains("Content-Length:"), "\(text)")
    #expect(text.contains("Cookie:") && text.contains("session=abc"), "\(text)")
    #expect(text.contains("Bearer ••••"), "\(text)")
    #expect(text.contains("\"name\"") && text.contains("Ada"), "the body: \(text)")
    #expect(!text.contains(secret), "\(text)")

    // y then r: the request line and every header curl wrote, as the tab shows them, masked.
    _ = keys(&state, "y")
    #expect(state.copyMenu.choices.contains(.sentHead))
    let menu = screenText(state)
    #expect(menu.contains("r  the request as sent: its request line and"), "\(menu)")
    let commands = keys(&state, "r")
    guard case .copy(let head)? = commands.first else {
      Issue.record("r copied nothing: \(commands)")
      return
    }
    let lines = head.split(separator: "\n").map(String.init)
    #expect(lines.first == "POST /anything HTTP/1.1", "\(head)")
    #expect(lines.contains("Host: \(host)"), "\(head)")
    #expect(lines.contains { $0.hasPrefix("User-Agent: reqbench/") }, "\(head)")
    #expect(lines.contains { $0.hasPrefix("Content-Length: ") }, "\(head)")
    // The clipboard is an export: cookie values are masked as in history and `--json`.
    #expect(lines.contains("Cookie: session=••••") && lines.contains("Authorization: Bearer ••••"), "\(head)")
    #expect(!head.contains(secret) && !head.contains("Ada"), "headers only, the secret masked: \(head)")
    #expect(state.message?.text == "copied post as sent (request line and headers): \(head.utf8.count) bytes on the clipboard")
  }

  /// The lines built from a recorded head: request line, each header, a blank line, the body; a
  /// cut body and redirects are said.
  @Test func linesOfASentRequest() {
    let sent = SentRequest(
      head: "PUT /x HTTP/1.1\r\nHost: h\r\nContent-Length: 70000", body: .bytes(Array("a\nb\n".utf8), total: 70000),
      count: 2)
    var state = AppState(workspace: Workspace(name: "w"), workspaceFile: "w.json", width: 100, height: 30)
    let request = Request(name: "x", method: .PUT, url: "http://h/x")
    let result = ExchangeResult(
      id: ExchangeID(rawValue: 1), request: request, state: .succeeded,
      response: Response(status: 204, httpVersion: "HTTP/1.1", headers: [:], body: .memory([]), effectiveURL: "http://h/x",
        redirectCount: 1, timing: Timing(), bytesSent: 0),
      error: nil, queuedAt: epoch, startedAt: epoch, finishedAt: epoch, sent: sent)
    send(&state, .agent(.queued(result.id, request)), .agent(.finished(result)))
    state.focus = .queue
    send(&state, .key(.enter))
    state.focus = .response
    send(&state, .key(.char("h")))
    let lines = screenText(state).split(separator: "\n").map(String.init)
    let first = lines.firstIndex { $0.contains("the last of 2 requests") }
    #expect(first != nil, "\(lines.joined(separator: "\n"))")
    if let first {
      #expect(lines[first + 1].contains("PUT /x HTTP/1.1"))
      #expect(lines[first + 2].contains("Host:") && lines[first + 2].contains(" h"))
      #expect(lines[first + 3].contains("Content-Length:") && lines[first + 3].contains("70000"))
      #expect(lines[first + 5].contains("│ a") || lines[first + 5].contains(" a"))
      #expect(lines[first + 6].contains(" b"))
      #expect(lines[first + 7].contains("the first 4 B of 68.4 KB shown"))
    }
  }

  /// Nothing sent yet, nothing sent at all (a failure to connect, a cache hit): said so.
  @Test func whenNothingWasSent() {
    var state = AppState(workspace: Workspace(name: "w"), workspaceFile: "w.json", width: 100, height: 30)
    let request = Request(name: "x", url: "http://127.0.0.1:9/x")
    let id = ExchangeID(rawValue: 1)
    send(&state, .agent(.queued(id, request)))
    state.focus = .queue
    send(&state, .key(.enter))
    state.focus = .response
    send(&state, .key(.char("h")))
    #expect(screenText(state).contains("not sent yet"))
    let error = ExchangeError.transport(.cannotConnect, detail: "127.0.0.1:9")
    let failed = ExchangeResult(
      id: id, request: request, state: .failed, response: nil, error: error, queuedAt: epoch, startedAt: epoch,
      finishedAt: epoch)
    send(&state, .agent(.finished(failed)))
    #expect(screenText(state).contains("nothing was sent: " + error.message), "\(screenText(state))")
  }

  /// A long head scrolls with j and stops where its last line is on the last row; G goes there.
  @Test func scrollsAndStopsAtTheEnd() {
    let head = (["GET /many HTTP/1.1"] + (1...60).map { "X-Header-\($0): v\($0)" }).joined(separator: "\r\n")
    var state = AppState(workspace: Workspace(name: "w"), workspaceFile: "w.json", width: 100, height: 30)
    let request = Request(name: "many", url: "http://h/many")
    let result = ExchangeResult(
      id: ExchangeID(rawValue: 1), request: request, state: .succeeded,
      response: Response(status: 200, httpVersion: "HTTP/1.1", headers: [:], body: .memory([]), effectiveURL: "http://h/many",
        redirectCount: 0, timing: Timing(), bytesSent: 0),
      error: nil, queuedAt: epoch, startedAt: epoch, finishedAt: epoch, sent: SentRequest(head: head, body: .none))
    send(&state, .agent(.queued(result.id, request)), .agent(.finished(result)))
    state.focus = .queue
    send(&state, .key(.enter))
    state.focus = .response
    send(&state, .key(.char("h")))
    _ = keys(&state, "G")
    let last = state.viewer.scroll
    #expect(last > 0)
    #expect(screenText(state).contains("X-Header-60:"))
    _ = keys(&state, "jjj")
    #expect(state.viewer.scroll == last, "no scrolling past the end")
    _ = keys(&state, "g")
    #expect(state.viewer.scroll == 0)
  }

  @Test func tabsGoRoundAllFour() throws {
    var state = try demoState()
    state.focus = .response
    var seen: [ViewerState.Tab] = []
    for _ in 0..<4 {
      send(&state, .key(.right))
      seen.append(state.viewer.tab)
    }
    #expect(seen == [.headers, .timing, .request, .body])
  }
}

@Suite("view snapshots: the Request tab")
struct SentRequestSnapshotTests {
  @Test(arguments: [(160, 45), (80, 24)]) func theRequestTab(width: Int, height: Int) throws {
    let base = try demoState(width: width, height: height)
    let state = Scenario.sent.state(workspace: base.workspace, file: base.workspaceFile, width: width, height: height)
    #expect(state.viewer.tab == .request)
    try assertSnapshot(state, "sent-\(width)x\(height)")
  }
}
