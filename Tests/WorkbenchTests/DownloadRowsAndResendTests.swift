import Foundation
import History
import RequestEngine
import TerminalUI
import TestSupport
import Testing
import Workbench
import Workspace

@Suite("update: download rows and timing")
struct DownloadRowTests {
  @Test func aResumedDownloadsOldRowIsNoLongerResumableAndKeepsItsStatus() throws {
    var state = try demoState()
    let big = Request(
      name: "files/big", url: "http://127.0.0.1:8080/bytes/100", download: DownloadTarget(path: "/w/big.bin"))
    let first = ExchangeID(rawValue: 1)
    send(&state, .agent(.queued(first, big)), .agent(.started(first, attempt: 1)))
    send(&state, .agent(.headers(first, status: 200, headers: HTTPHeaders())))
    let partial = DownloadOutcome(
      file: "/w/big.bin", bytes: 53, totalBytes: 100, resumedFrom: 0, restartReason: nil, resumable: true, complete: false)
    send(
      &state,
      .agent(
        .finished(
          ExchangeResult(
            id: first, request: big, state: .cancelled, response: nil, error: .cancelled, queuedAt: epoch,
            startedAt: epoch, finishedAt: epoch, download: partial))))
    #expect(state.exchanges[0].status == 200)  // not "-" once cancelled
    #expect(state.exchanges[0].badges == ["resumable 53%"])
    _ = keys(&state, "4")
    guard case .send(let again)? = keys(&state, "r").first else {
      Issue.record("r did not resume")
      return
    }
    #expect(again.name == "files/big")
    // The resumed exchange (as the agent reports it) carries the download on.
    send(&state, .agent(.queued(ExchangeID(rawValue: 2), big)))
    #expect(state.exchanges[1].badges == [])  // the new exchange carries the download on
    state.queueSelection = 1
    _ = keys(&state, "3")
    state.viewer.exchange = state.exchanges[1].id
    var buffer = ScreenBuffer(width: 160, height: 45)
    view(state, into: &buffer)
    #expect(buffer.text.contains("resumed by a newer exchange"))
    #expect(!buffer.text.contains("press r to resume"))
  }

  /// The demo's first request sent and finished in `duration` (curl's total), its result changed
  /// by `change` before the agent reports it.
  func sentAndFinished(duration: Double, _ change: (inout ExchangeResult) -> Void) throws -> AppState {
    var state = try demoState()
    send(&state, .key(.enter))
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    var events = exchangeEvents(id: 1, request: request, duration: duration)
    if case .agent(.finished(var result)) = events[3] {
      change(&result)
      events[3] = .agent(.finished(result))
    } else {
      Issue.record("the exchange's fourth event is not its result: \(events[3])")
    }
    for msg in events { send(&state, msg) }
    return state
  }

  @Test func timingWithoutTLSOrBodyMatchesTheSummary() throws {
    var state = try sentAndFinished(duration: 0.0123) { result in
      result.response?.bytesSent = 0
      result.finishedAt = epoch.addingTimeInterval(0.5)  // queued and waiting longer than curl's total
    }
    _ = keys(&state, "3ll")
    var buffer = ScreenBuffer(width: 160, height: 45)
    view(state, into: &buffer)
    let text = buffer.text
    #expect(!text.contains("TLS "))
    #expect(!text.contains("sent 0 B"))
    #expect(text.contains("200 OK  33 B  12.3 ms"))
    #expect(text.contains("total          12.3 ms"))
    // The queue shows the same time (curl's, of the only attempt).
    let row = try #require(text.split(separator: "\n").first { $0.contains("✓ succeeded") })
    #expect(row.contains("12.3 ms") && !row.contains("500.0 ms"), "\(row)")
  }

  /// After retries every pane shows the exchange's total (first start to end); the response
  /// and the timing tab name the last attempt's time beside it.
  @Test func retriesShowTheTotalEverywhereAndTheLastAttemptBesideIt() throws {
    var state = try sentAndFinished(duration: 0.0103) { result in
      result.attempts = 3
      result.finishedAt = epoch.addingTimeInterval(0.5128)
    }
    _ = keys(&state, "3")
    var buffer = ScreenBuffer(width: 160, height: 45)
    view(state, into: &buffer)
    var text = buffer.text
    #expect(text.contains("200 OK  33 B  512.8 ms (3 attempts; last 10.3 ms)"), "\(text)")
    let row = try #require(text.split(separator: "\n").first { $0.contains("✓ succeeded") })
    #expect(row.contains("512.8 ms") && !row.contains("10.3 ms"), "\(row)")
    _ = keys(&state, "ll")
    view(state, into: &buffer)
    text = buffer.text
    #expect(text.contains("last attempt   10.3 ms"), "\(text)")
    #expect(text.contains("all 3         512.8 ms"), "\(text)")
  }
}

@Suite("update: sending again from history")
struct HistoryResendTests {
  func view(of request: Request, body: String = "{}", position: Int = 1, count: Int = 2, id: UInt64 = 9) throws -> HistoryView {
    let events = Scenario.exchange(id: id, request: request, body: body, duration: 0.01)
    guard case .agent(.finished(let result)) = events[3] else { throw CancellationError() }
    let folder = scratchURL("rb-hr")
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = HistoryStore(stateFolder: folder)
    try store.record(result, name: request.name)
    let entry = try #require(try store.entries(for: request.name).first)
    return HistoryView(
      entry: entry, body: try store.body(of: entry), requestBody: try store.requestBody(of: entry), position: position,
      count: count)
  }

  @Test func sSendsTheRecordedRequest() throws {
    var state = try demoState()
    _ = keys(&state, "3")
    var recorded = Request(
      name: "users/create", method: .PUT, url: "http://127.0.0.1:8080/users?old=1",
      body: RequestBody(bytes: Array(#"{"name": "Old"}"#.utf8), contentType: "application/json"))
    recorded.headers["X-Old"] = "yes"
    _ = keys(&state, "[")
    send(&state, .historyShown(try view(of: recorded), error: nil))
    guard case .send(let sent)? = keys(&state, "s").first else {
      Issue.record("s did not send")
      return
    }
    #expect(sent.name == "users/create")
    #expect(sent.method == .PUT)
    #expect(sent.url == "http://127.0.0.1:8080/users?old=1")
    #expect(sent.headers["X-Old"] == "yes")
    #expect(sent.body.bytes == Array(#"{"name": "Old"}"#.utf8))
    #expect(sent.body.contentType == "application/json")
    #expect(state.message?.text.hasPrefix("sent users/create as recorded") == true)
  }

  @Test func aRecordingWithMaskedSecretsSendsTheWorkspaceRequest() throws {
    var state = try demoState()
    _ = keys(&state, "3")
    var recorded = Request(name: "auth/me", url: "http://127.0.0.1:8080/me", secrets: ["s3cr3t"])
    recorded.headers["Authorization"] = "Bearer s3cr3t"
    _ = keys(&state, "[")
    send(&state, .historyShown(try view(of: recorded), error: nil))
    #expect(state.viewer.history?.entry.requestHeaders["Authorization"] == "Bearer ••••")
    guard case .send(let sent)? = keys(&state, "s").first else {
      Issue.record("s did not send")
      return
    }
    let template = try #require(state.workspace.request(named: "auth/me"))
    #expect(sent == (try state.workspace.prepare(template, sources: state.sources)))
    #expect(!(sent.headers["Authorization"] ?? "").contains("••••"))
    #expect(state.message?.text == "the recorded request has masked secrets: sent auth/me as the workspace has it")
  }

  /// The demo's `users/list` sent and answered as exchange `id`, then `[` in the viewer, which
  /// asks for the newest history entry.
  func answeredThenStepBack(exchange id: UInt64) throws -> (AppState, Request) {
    var state = try demoState()
    send(&state, .key(.enter))
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    for msg in Scenario.exchange(id: id, request: request, body: "{}", duration: 0.01) { send(&state, msg) }
    _ = keys(&state, "3")
    #expect(keys(&state, "[") == [.showHistory(name: "users/list", position: 0)])
    return (state, request)
  }

  /// `[` then `s` at once: the history entry arriving after the send must not take the viewer
  /// from the new exchange.
  @Test func aLateHistoryEntryDoesNotTakeOverTheViewer() throws {
    var (state, request) = try answeredThenStepBack(exchange: 1)
    guard case .send? = keys(&state, "s").first else {
      Issue.record("s did not send")
      return
    }
    let old = try view(of: request, body: #"{"old": true}"#, position: 0, count: 2, id: 7)
    send(&state, .historyShown(old, error: nil))
    #expect(state.viewer.history == nil)
    for msg in Scenario.exchange(id: 2, request: request, body: #"{"new": true}"#, duration: 0.01) { send(&state, msg) }
    #expect(state.viewer.exchange == ExchangeID(rawValue: 2))
    #expect(state.viewer.document?.line(1).contains("new") == true)
    // The same after the new exchange is shown.
    send(&state, .historyShown(old, error: nil))
    #expect(state.viewer.history == nil && state.viewer.exchange == ExchangeID(rawValue: 2))
  }

  @Test func theFirstStepBackSkipsTheResponseAlreadyShown() throws {
    var (state, request) = try answeredThenStepBack(exchange: 9)
    // The newest entry is the live exchange: ask for the one before it.
    let live = try view(of: request, position: 0, count: 3)
    #expect(send(&state, .historyShown(live, error: nil)) == [.showHistory(name: "users/list", position: 1)])
    #expect(state.viewer.history == nil)
    send(&state, .historyShown(try view(of: request, position: 1, count: 3, id: 5), error: nil))
    #expect(state.viewer.history?.position == 1)
    // Only the live one recorded: nothing older.
    send(&state, .key(.escape))
    _ = keys(&state, "[")
    #expect(send(&state, .historyShown(try view(of: request, position: 0, count: 1), error: nil)) == [])
    #expect(state.message?.text == "no older response in history")
  }
}

/// The status bar keeps a message whole: one too long to fit after the counts takes their place.
struct StatusBarMessageTests {
  @Test func aLongMessageTakesThePlaceOfTheCountsRatherThanBeingCut() throws {
    var state = try demoState(width: 120, height: 36)
    let long = "this workspace has no environments: add \"environments\": {\"NAME\": {\"var\": \"value\"}} to its file"
    state.message = StatusMessage(long)
    var last = screenText(state).split(separator: "\n", omittingEmptySubsequences: false).last.map(String.init) ?? ""
    #expect(last.contains(long), "\(last)")
    #expect(!last.contains("running"))
    // A short one sits after the counts.
    state.message = StatusMessage("sent get-get")
    last = screenText(state).split(separator: "\n", omittingEmptySubsequences: false).last.map(String.init) ?? ""
    #expect(last.contains("0 running · 0 queued · 0 failed  sent get-get"), "\(last)")
  }
}
