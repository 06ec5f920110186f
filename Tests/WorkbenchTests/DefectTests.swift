import Foundation
import RequestEngine
import TerminalUI
import Testing
import Workbench
import Workspace

/// Screen-side defects a new user met, each as the state and screen they met it in.
@Suite("update and view: TUI defects a new user met")
struct DefectTests {
  func screen(_ state: AppState) -> [String] {
    var buffer = ScreenBuffer(width: state.width, height: state.height)
    view(state, into: &buffer)
    return buffer.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
  }

  /// The first line of the queue pane that contains `text`.
  func queueLine(_ state: AppState, containing text: String) -> String? {
    let lines = screen(state)
    guard let title = lines.firstIndex(where: { $0.contains("4 Queue") }) else { return nil }
    return lines[(title + 1)...].first { $0.contains(text) }
  }

  func response(_ request: Request, status: Int, body: String, contentType: String = "application/json") -> Response {
    var headers = HTTPHeaders()
    headers["Content-Type"] = contentType
    return Response(
      status: status, httpVersion: "HTTP/1.1", headers: headers, body: .memory(Array(body.utf8)),
      effectiveURL: request.url, redirectCount: 0, timing: Timing(total: 0.002), bytesSent: 0)
  }

  // MARK: - 2: a cancel during a retry wait

  @Test func aCancelDuringARetryWaitShowsCancelledWithTheLastResponse() throws {
    var state = try demoState()
    let request = Request(name: "flaky", url: "http://127.0.0.1:8080/flaky-demo")
    let id = ExchangeID(rawValue: 1)
    send(&state, .key(.char("/")))
    _ = keys(&state, "flaky")
    send(&state, .key(.enter), .key(.enter))
    send(&state, .agent(.queued(id, request)), .agent(.started(id, attempt: 1)))
    send(&state, .agent(.headers(id, status: 503, headers: HTTPHeaders())))
    let reason = ExchangeError.status(503, accepted: Validation())
    send(&state, .agent(.retrying(id, attempt: 2, delay: 0.5, reason: reason)))
    // While it waits: the row and the viewer say so, with the wait and why.
    #expect(queueLine(state, containing: "flaky")?.contains("… retrying 2  503") == true)
    #expect(screen(state).contains { $0.contains("… retrying 2 in 500.0 ms: " + reason.message) })

    // Cancelled in the wait, with the 503 it had (the agent keeps the last response).
    var last = ExchangeResult(
      id: id, request: request, state: .cancelled, response: response(request, status: 503, body: #"{"error": "try again"}"#),
      error: .cancelled, attempts: 1, queuedAt: epoch, startedAt: epoch, finishedAt: epoch.addingTimeInterval(0.1))
    send(&state, .agent(.finished(last)))
    #expect(state.exchanges[0].retryWait == nil)
    let row = try #require(queueLine(state, containing: "flaky"))
    #expect(row.contains("⊘ cancelled   503"))
    #expect(!row.contains("retrying"))
    var lines = screen(state)
    #expect(lines.contains { $0.contains("503 Service Unavailable") && $0.contains("⊘ cancelled") })
    #expect(lines.contains { $0.contains(#""error": "try again""#) })
    _ = keys(&state, "3l")
    _ = keys(&state, "l")
    lines = screen(state)
    #expect(!lines.contains { $0.contains("cancelled before a response") })

    // Without the body (a cancel after the headers): the viewer says what came, not "before a response".
    last.response = nil
    send(&state, .agent(.finished(last)))
    lines = screen(state)
    #expect(lines.contains { $0.contains("cancelled after the server answered 503 Service Unavailable") })
    #expect(!lines.contains { $0.contains("cancelled before a response") })
  }

  // MARK: - 6: text cut says so

  @Test func cutTextEndsInAnEllipsis() throws {
    // The queue's error column at 160 columns.
    var state = try demoState()
    let request = Request(name: "users/list", url: "http://127.0.0.1:18/users")
    let error = ExchangeError(
      kind: .transport,
      message: "cannot connect: Failed to connect to 127.0.0.1 port 18 after 0 ms: Could not connect to server (and a longer explanation)",
      transport: .cannotConnect)
    for msg in exchangeEvents(id: 1, request: request, status: nil, state: .failed, error: error) { send(&state, msg) }
    let row = try #require(queueLine(state, containing: "users/list"))
    #expect(row.contains("cannot connect: Failed to connect to 127.0.0.1 po…"))

    // A long URL: the resolved line and the URL field at 160 columns.
    let long = "/search?" + (1...40).map { "field\($0)=value\($0)" }.joined(separator: "&")
    state = try demoState()
    state.workspace.requests[0].url = long
    var lines = screen(state)
    let resolved = try #require(lines.first { $0.contains("→ GET http://127.0.0.1:8080/search?field1=value1") })
    #expect(resolved.contains("…│"))
    let field = try #require(lines.first { $0.contains("URL        /search?field1") })
    #expect(field.contains("…│"))
    // Editing it: the cut side (the start, with the cursor at the end) is marked too.
    _ = keys(&state, "2jj")
    send(&state, .key(.char("e")))
    lines = screen(state)
    #expect(lines.first { $0.contains("URL        …") }?.contains("value40") == true)

    // files/big's resolved URL at 80×24 and 60×16.
    for (width, height) in [(80, 24), (60, 16)] {
      state = try demoState(width: width, height: height)
      state.selectRequest(named: "files/big")
      #expect(state.selectedRequest?.name == "files/big")
      lines = screen(state)
      let line = try #require(lines.first { $0.contains("→ GET http://127.0.0.1:8080/") }, "\(width)×\(height)")
      #expect(line.contains("…│"), "\(width)×\(height): \(line)")
    }
  }

  // MARK: - 8: cacheThenNetwork's cached delivery

  @Test func theCachedDeliveryShowsThenTheFreshOneReplacesIt() throws {
    var state = try demoState()
    _ = keys(&state, "j")
    #expect(state.selectedRequest?.name == "users/list-cached")
    let request = Request(
      name: "users/list-cached", url: "http://127.0.0.1:8080/users", cache: CachePolicy(seconds: 60, mode: .cacheThenNetwork))
    let id = ExchangeID(rawValue: 3)
    send(&state, .key(.enter))
    send(&state, .agent(.queued(id, request)))
    // The cache's response at once, the exchange still going.
    let cached = ExchangeResult(
      id: id, request: request, state: .running, response: response(request, status: 200, body: #"[{"id": 1}]"#),
      error: nil, attempts: 0, queuedAt: epoch, startedAt: epoch, finishedAt: epoch, fromCache: true,
      cache: CacheOutcome(hit: true, reason: .fresh, ageSeconds: 12))
    send(&state, .agent(.delivered(cached)), .agent(.started(id, attempt: 1)))
    #expect(state.exchanges[0].badges == ["cache"])
    var lines = screen(state)
    #expect(lines.contains { $0.contains("showing 200 OK from cache, 12 s old") })
    #expect(lines.contains { $0.contains(#""id": 1"#) })
    // The network's replaces it; the row and the viewer still say the cache answered first.
    var fresh = cached
    fresh.state = .succeeded
    fresh.response = response(request, status: 200, body: #"[{"id": 1}, {"id": 2}]"#)
    fresh.fromCache = false
    fresh.attempts = 1
    fresh.cache = CacheOutcome(hit: false, reason: .bypassed, ageSeconds: 12)
    send(&state, .agent(.finished(fresh)))
    #expect(state.exchanges[0].badges == ["refreshed"])
    lines = screen(state)
    #expect(queueLine(state, containing: "users/list-cached")?.contains("refreshed") == true)
    #expect(lines.contains { $0.contains("from cache first (12 s old), then refreshed from the network") })
    #expect(lines.contains { $0.contains(#""id": 2"#) })
  }

  // MARK: - 10: a cancelled batch's bar, a body that is not JSON

  @Test func aCancelledBatchsBarIsWhatFinished() throws {
    var state = try demoState()
    send(&state, .flowStarted(run: "b1", name: "smoke", kind: .batch))
    let ok = FlowOutcome(kind: .request, name: "users/list", state: .succeeded)
    send(&state, .flow(run: "b1", .member(batch: "smoke", index: 0, done: 1, total: 4, outcome: ok)))
    var outcome = FlowOutcome(kind: .batch, name: "smoke", state: .cancelled)
    outcome.members = [
      ok, FlowOutcome(kind: .request, name: "users/get", state: .cancelled),
      FlowOutcome(kind: .chain, name: "login-flow", state: .cancelled),
      FlowOutcome(kind: .request, name: "files/small-json", state: .cancelled),
    ]
    send(&state, .flow(run: "b1", .finished(outcome)))
    let row = try #require(queueLine(state, containing: "⧉ smoke"))
    #expect(row.contains("[████░░░░░░░░░░░░] 1/4  ✓1 ✗0 ⊘3"), "\(row)")
  }

  @Test func aBodyCalledJSONThatIsNotSaysWhere() throws {
    var state = try demoState()
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    send(&state, .key(.enter))
    for msg in exchangeEvents(id: 1, request: request, body: "{\"id\": 1,\n \"name\": }") { send(&state, msg) }
    let lines = screen(state)
    let note = try #require(lines.firstIndex { $0.contains("not valid JSON: line 2, column 10") })
    #expect(lines[note + 1].contains("1 {\"id\": 1,"))
    // A text body not said to be JSON has no note.
    for msg in exchangeEvents(id: 2, request: request, body: "{not json", contentType: "text/plain") { send(&state, msg) }
    send(&state, .key(.char("4")), .key(.char("g")))
    #expect(!screen(state).contains { $0.contains("not valid JSON") })
  }

  // MARK: - 4: the name `w` suggests is selected

  @Test func theWritePromptsNameIsSelected() throws {
    var state = try demoState()
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    send(&state, .key(.enter))
    for msg in exchangeEvents(id: 1, request: request, body: #"[{"name": "Ada"}]"#) { send(&state, msg) }
    _ = keys(&state, "3w")
    #expect(state.prompt?.input.text == "users-list.json")
    #expect(state.prompt?.input.selected == true)
    _ = keys(&state, "names.txt")
    #expect(send(&state, .key(.enter)) == [.writeBody(ExchangeID(rawValue: 1), path: "names.txt")])
    // With a jq filter shown.
    _ = keys(&state, "|")
    send(&state, .key(.enter))
    send(&state, .filtered(expression: ".", result: .success("\"Ada\"\n")))
    _ = keys(&state, "w")
    #expect(state.prompt?.input.text == "users-list.jq.txt" && state.prompt?.input.selected == true)
    _ = keys(&state, "names.txt")
    #expect(
      send(&state, .key(.enter)) == [.writeBody(ExchangeID(rawValue: 1), path: "names.txt", jqOutput: "\"Ada\"\n")])
  }

  // MARK: - 5: a refused body is not lost

  @Test func aRefusedBodyReopensOnTheNextE() throws {
    var state = try demoState()
    moveDown(&state, to: "users/create")
    guard case .edit(let original, _)? = keys(&state, "E").first else {
      Issue.record("E did not open the editor")
      return
    }
    let typed = "{\n  \"name\": \"Grace Hopper\",\n}\n"
    send(&state, .editorFinished(typed, error: nil))
    #expect(state.message?.isError == true)
    #expect(state.message?.text.contains("E reopens your text") == true)
    #expect(state.selectedRequest?.body == .json(["name": "Grace Hopper"]))
    // The next E opens what was typed, not the body as it was.
    #expect(keys(&state, "E") == [.edit(text: typed, fileExtension: "json")])
    send(&state, .editorFinished(#"{"name": "Grace"}"#, error: nil))
    #expect(state.selectedRequest?.body == .json(["name": "Grace"]))
    guard case .edit(let now, _)? = keys(&state, "E").first else {
      Issue.record("E opened no editor")
      return
    }
    #expect(now != typed && now != original && now.contains("Grace"))
    // Refused again, reopened and left as it was: given up, the body stays.
    send(&state, .editorFinished("{", error: nil))
    #expect(keys(&state, "E") == [.edit(text: "{", fileExtension: "json")])
    send(&state, .editorFinished(nil, error: nil))
    #expect(state.message?.text.contains("dropped") == true)
    #expect(keys(&state, "E") == [.edit(text: now, fileExtension: "json")])
  }

  // MARK: - 9: another request shows its first fields

  @Test func anotherRequestShowsItsFirstFields() throws {
    var state = try demoState()
    _ = keys(&state, "2")
    _ = keys(&state, "G")
    #expect(state.editorField > 10 && state.editorScroll > 0)
    _ = keys(&state, "1")
    moveDown(&state, to: "slow")
    #expect(state.editorField == 0 && state.editorScroll == 0)
    let lines = screen(state)
    #expect(lines.contains { $0.contains("Method     GET") })
    #expect(lines.contains { $0.contains("URL        /slow") })
    // The same request after a resize keeps its place.
    _ = keys(&state, "2")
    send(&state, .key(.char("j")), .key(.char("j")))
    send(&state, .resize(width: 150, height: 40))
    #expect(state.editorField == 2)
  }

  // MARK: - 7: the queue is one scrollable sequence

  /// The queue pane's lines below its column header.
  func queueRows(_ state: AppState) -> [String] {
    let lines = screen(state)
    guard let header = lines.firstIndex(where: { $0.contains("STATE       STATUS REQUEST") }) else { return [] }
    return Array(lines[(header + 1)...].prefix { !$0.hasPrefix("└") })
  }

  func isEmptyRow(_ line: String) -> Bool { line.dropFirst().dropLast().allSatisfy { $0 == " " } }

  /// `count` finished exchanges of users/get, ids from `from`.
  func exchanges(_ state: inout AppState, _ count: Int, from: UInt64 = 1) {
    let request = Request(name: "users/get", url: "http://127.0.0.1:8080/users/1")
    for id in from..<(from + UInt64(count)) { for msg in exchangeEvents(id: id, request: request) { send(&state, msg) } }
  }

  @Test func tenExchangesInTenLinesAllShowAfterG() throws {
    var state = try demoState()
    exchanges(&state, 10)
    _ = keys(&state, "4G")
    let rows = queueRows(state)
    #expect(rows.count == 10)
    #expect(rows.allSatisfy { $0.contains("users/get") }, "\(rows.joined(separator: "\n"))")
    #expect(state.queueSelection == 9 && state.queueScroll == 0)
    // Twelve: the last ten, the last one selected, no empty line.
    exchanges(&state, 2, from: 11)
    _ = keys(&state, "G")
    #expect(queueRows(state).allSatisfy { $0.contains("users/get") })
    #expect(state.queueScroll == 2)
    // New exchanges arriving above keep the selection in view.
    exchanges(&state, 5, from: 13)
    #expect(state.queueSelection == 16)
    let first = state.queueFirstLine(state.queueLines)
    #expect(first <= 16 && 16 < first + 10)
  }

  @Test func runsAndExchangesScrollAsOneList() throws {
    var state = try demoState()
    for run in 1...6 {
      send(&state, .flowStarted(run: "r\(run)", name: run % 2 == 0 ? "smoke" : "login-flow", kind: run % 2 == 0 ? .batch : .chain))
    }
    exchanges(&state, 8)
    _ = keys(&state, "4G")
    var rows = queueRows(state)
    #expect(!rows.contains(where: isEmptyRow), "\(rows.joined(separator: "\n"))")
    #expect(rows.filter { $0.contains("users/get") }.count == 8)
    #expect(rows.last?.contains("users/get") == true)
    // Up through the exchanges into the runs: the selection is always on screen.
    for step in 0..<14 {
      let selected = try #require(state.queue.selected)
      let index = try #require(state.queueLines.firstIndex(of: selected))
      let first = state.queueFirstLine(state.queueLines)
      #expect(first <= index && index < first + 10, "step \(step)")
      #expect(!queueRows(state).contains(where: isEmptyRow))
      _ = keys(&state, "k")
    }
    #expect(state.queueFlowSelection == .flow(run: "r6"))
    // Expanding a batch: its members in place under its row, the exchanges below them.
    _ = keys(&state, "j")
    #expect(state.queueFlowSelection == .flow(run: "r5"))
    _ = keys(&state, "j")
    #expect(state.queueFlowSelection == .flow(run: "r4"))
    send(&state, .key(.enter))
    rows = queueRows(state)
    let batch = try #require(rows.firstIndex { $0.contains("⧉ smoke") && $0.contains("▾") })
    #expect(rows[batch + 1].contains("users/list") && rows[batch + 4].contains("files/small-json"), "\(rows.joined(separator: "\n"))")
    #expect(!rows.contains(where: isEmptyRow))
    // Down through the members and on to the exchanges, in view all the way.
    for _ in 0..<10 {
      _ = keys(&state, "j")
      let index = try #require(state.queue.selected.flatMap { state.queueLines.firstIndex(of: $0) })
      let first = state.queueFirstLine(state.queueLines)
      #expect(first <= index && index < first + 10)
    }
  }
}
