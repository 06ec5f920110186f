import Foundation
import RequestEngine
import TerminalUI
import TestSupport
import Testing
import Workbench
import Workspace

@Suite("update: panes and keys")
struct UpdateTests {
  @Test func tabAndNumbersMoveBetweenPanes() throws {
    var state = try demoState()
    #expect(state.focus == .requests)
    send(&state, .key(.tab))
    #expect(state.focus == .editor)
    send(&state, .key(.backTab), .key(.backTab))
    #expect(state.focus == .queue)
    _ = keys(&state, "3")
    #expect(state.focus == .response)
  }

  @Test func movingInTheRequestList() throws {
    var state = try demoState()
    // The first request is selected at the start, under its folder's row.
    let first = state.selectedRequest?.name
    #expect(first == "users/list" && state.requestSelection == 1)
    _ = keys(&state, "jj")
    #expect(state.requestSelection == 3)
    _ = keys(&state, "G")
    #expect(state.requestSelection == state.selectableCount - 1)  // the last chain
    #expect(state.selectedFlow?.name == "login-flow")
    _ = keys(&state, "g")
    #expect(state.selectedFolder == "users" && state.selectedRequest == nil)
    send(&state, .key(.up))
    #expect(state.requestSelection == 0)
    _ = keys(&state, "j")
    #expect(state.selectedRequest?.name == first)
  }

  @Test func enterSendsThePreparedRequestAndTheViewerFollowsIt() throws {
    var state = try demoState()
    let commands = send(&state, .key(.enter))
    let request = try #require(state.preparedSelection().flatMap { try? $0.get() })
    #expect(commands == [.send(request)])
    #expect(state.message?.text == "sent \(request.name)")
    for msg in exchangeEvents(id: 7, request: request) { send(&state, msg) }
    #expect(state.exchanges.count == 1)
    #expect(state.exchanges[0].state == .succeeded)
    #expect(state.viewer.exchange == ExchangeID(rawValue: 7))
    #expect(state.viewer.document?.kind == .json)
  }

  @Test func queueRowsFollowTheLifecycle() throws {
    var state = try demoState()
    let request = Request(name: "slow", url: "http://127.0.0.1:8080/slow")
    let id = ExchangeID(rawValue: 1)
    send(&state, .agent(.queued(id, request)))
    #expect(state.exchanges[0].state == .queued)
    #expect(state.isBusy)
    send(&state, .agent(.started(id, attempt: 1)))
    #expect(state.exchanges[0].state == .running)
    send(&state, .agent(.progress(id, TransferProgress(downloaded: 10, downloadTotal: 100))))
    #expect(state.exchanges[0].progress.downloaded == 10)
    send(&state, .agent(.retrying(id, attempt: 2, delay: 0.5, reason: .status(503, accepted: Validation()))))
    #expect(state.exchanges[0].retryWait?.attempt == 2)
    #expect(state.runningCount == 0 && state.queuedCount == 1)
  }

  @Test func cancelKeys() throws {
    var state = try demoState()
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    send(&state, .agent(.queued(ExchangeID(rawValue: 1), request)), .agent(.started(ExchangeID(rawValue: 1), attempt: 1)))
    // In the list: the selected request's running exchanges.
    #expect(state.selectedRequest?.name == "users/list")
    #expect(keys(&state, "c") == [.cancel(ExchangeID(rawValue: 1))])
    // In the queue: the selected exchange.
    _ = keys(&state, "4")
    #expect(keys(&state, "c") == [.cancel(ExchangeID(rawValue: 1))])
    #expect(keys(&state, "C") == [.cancelAll])
    // A finished exchange cannot be cancelled.
    for msg in exchangeEvents(id: 2, request: request) { send(&state, msg) }
    _ = keys(&state, "g")
    #expect(state.selectedExchangeForTest?.id == ExchangeID(rawValue: 2))
    #expect(keys(&state, "c") == [])
    #expect(state.message?.text == "users/list already succeeded")
  }

  @Test func quitAsksWhileTransfersRun() throws {
    var state = try demoState()
    #expect(keys(&state, "q") == [.quit])
    send(&state, .agent(.queued(ExchangeID(rawValue: 1), Request(name: "x", url: "http://h.test/"))))
    #expect(keys(&state, "q") == [])
    #expect(state.overlay == .confirmQuit)
    #expect(keys(&state, "n") == [])
    #expect(state.overlay == nil)
    _ = keys(&state, "q")
    #expect(keys(&state, "y") == [.cancelAll, .quit])
    #expect(send(&state, .key(.ctrl("c"))) == [])  // asks again: still busy
    #expect(state.overlay == .confirmQuit)
  }

  @Test func helpOverlayOpensScrollsAndOtherKeysClose() throws {
    var state = try demoState()
    _ = keys(&state, "?")
    #expect(state.overlay == .help)
    #expect(keys(&state, "j") == [])
    #expect(state.overlay == .help && state.helpScroll == 1)
    #expect(keys(&state, "x") == [])
    #expect(state.overlay == nil)
    #expect(state.selectedRequest?.name == "users/list")  // the keys only scrolled and closed the overlay
    send(&state, .key(.function(1)))
    #expect(state.overlay == .help)
  }

  @Test func helpScrollsToEveryEntryOnASmallScreen() throws {
    var state = try demoState(width: 70, height: 20)
    _ = keys(&state, "?")
    _ = keys(&state, "G")
    let rows = 20 - 2 - 4
    #expect(state.helpScroll == Keymap.helpLines.count - rows)
    var buffer = ScreenBuffer(width: 70, height: 20)
    view(state, into: &buffer)
    #expect(buffer.text.contains("Mouse"))  // the last section
    #expect(buffer.text.contains("overwrite it with mine"))  // the section before it
    #expect(buffer.text.contains("…"))  // long descriptions are ellipsized
    try assertSnapshot(state, "help-end-70x20")
    _ = keys(&state, "kkg")
    #expect(state.helpScroll == 0)
    send(&state, .key(.escape))
    #expect(state.overlay == nil && state.helpScroll == 0)
  }

  @Test func slashFiltersRequestsAsYouType() throws {
    var state = try demoState()
    _ = keys(&state, "/")
    #expect(state.prompt?.purpose == .filterRequests)
    _ = keys(&state, "auth")
    #expect(state.visibleRequests.map(\.name).allSatisfy { $0.contains("auth") })
    #expect(!state.visibleRequests.isEmpty)
    send(&state, .key(.enter))
    #expect(state.prompt == nil && state.requestFilter == "auth")
    send(&state, .key(.escape))
    #expect(state.requestFilter.isEmpty)
  }

  @Test func editingAFieldInPlace() throws {
    var state = try demoState()
    let name = try #require(state.selectedRequest?.name)
    _ = keys(&state, "2jj")  // editor, third field (after the name and the method): the URL
    #expect(state.focus == .editor && state.editorField == 2)
    _ = keys(&state, "e")
    #expect(state.editing?.text == state.selectedRequest?.url)
    send(&state, .key(.ctrl("u")))
    _ = keys(&state, "/users?page=2")
    send(&state, .key(.enter))
    #expect(state.editing == nil)
    #expect(state.workspace.request(named: name)?.url == "/users?page=2")
    #expect(state.unsaved == [name])
    #expect(keys(&state, "k") == [])
    // A bad method is refused with what to do, and the edit stays open.
    _ = keys(&state, "e")
    send(&state, .key(.ctrl("u")))
    _ = keys(&state, "FECTH")
    send(&state, .key(.enter))
    #expect(state.editing != nil)
    #expect(state.message?.isError == true)
    #expect(state.message?.text.contains("unknown method \"FECTH\"") == true)
    send(&state, .key(.escape))
    #expect(state.workspace.request(named: name)?.method == .GET)
    // Ctrl-S saves; the runtime reports back.
    #expect(send(&state, .key(.ctrl("s"))) == [.save])
    send(&state, .saved(error: nil))
    #expect(state.unsaved.isEmpty)
  }

  @Test func addingAndRemovingAHeader() throws {
    var state = try demoState()
    _ = keys(&state, "2")
    let fields = try #require(state.selectedRequest?.editorFields)
    let add = try #require(fields.firstIndex { $0.kind == .addHeader })
    for _ in 0..<add { send(&state, .key(.down)) }
    _ = keys(&state, "e")
    _ = keys(&state, "X-Trace: 1")
    send(&state, .key(.enter))
    #expect(state.selectedRequest?.headers["X-Trace"] == "1")
    // The new header is at the add position now; emptying it removes it.
    _ = keys(&state, "e")
    send(&state, .key(.ctrl("u")), .key(.enter))
    #expect(state.selectedRequest?.headers["X-Trace"] == nil)
  }

  @Test func bodyInTheEditor() throws {
    var state = try demoState()
    moveDown(&state, to: "users/create")
    let commands = keys(&state, "E")
    guard case .edit(let text, let ext)? = commands.first else {
      Issue.record("expected an edit command")
      return
    }
    #expect(ext == "json")
    #expect(text.contains("\"name\""))
    send(&state, .editorFinished(#"{"name": "Grace"}"#, error: nil))
    #expect(state.selectedRequest?.body == .json(["name": "Grace"]))
    send(&state, .editorFinished("{broken", error: nil))
    #expect(state.message?.isError == true)
    #expect(state.selectedRequest?.body == .json(["name": "Grace"]))
  }

  @Test func anUndefinedVariableIsReportedNotSent() throws {
    var state = try demoState()
    state.sources.overrides = [:]  // {{host}} now comes from the workspace's variables
    state.workspace.variables = []
    #expect(send(&state, .key(.enter)) == [])
    #expect(state.message?.isError == true)
    #expect(state.message?.text.contains("undefined variable {{host}}") == true)
    // Said as the TUI sets it: V, not --var or the file.
    #expect(state.message?.text.hasSuffix("undefined variable {{host}} in baseURL; V sets it") == true, "\(String(describing: state.message))")
    #expect(screenText(state).contains("✗ undefined variable {{host}} in baseURL; V sets it"))
  }

  /// `/` and `|` come back with their last value selected: the first key typed replaces it
  /// (not `..[]` or `gracezzz`); a cursor key keeps it to edit; Backspace clears it.
  @Test func promptsStartWithTheLastValueSelected() throws {
    var state = try demoState()
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    send(&state, .key(.enter))
    for msg in exchangeEvents(id: 1, request: request) { send(&state, msg) }
    _ = keys(&state, "3|")
    #expect(state.prompt?.input == LineEdit(".", selected: true))
    _ = keys(&state, ".[]")
    #expect(state.prompt?.input.text == ".[]")
    send(&state, .key(.enter))
    _ = keys(&state, "/name")
    send(&state, .key(.enter))
    _ = keys(&state, "/")
    #expect(state.prompt?.input.text == "name" && state.prompt?.input.selected == true)
    _ = keys(&state, "id")
    #expect(state.prompt?.input.text == "id")
    send(&state, .key(.escape))
    _ = keys(&state, "/")
    send(&state, .key(.end))
    _ = keys(&state, "s")
    #expect(state.prompt?.input.text == "names")
    send(&state, .key(.escape))
    _ = keys(&state, "/")
    send(&state, .key(.backspace))
    #expect(state.prompt?.input.text == "")
    // The prompt says so; the keys overlay lists Ctrl-U.
    send(&state, .key(.escape))
    _ = keys(&state, "/")
    var buffer = ScreenBuffer(width: 160, height: 45)
    view(state, into: &buffer)
    #expect(buffer.line(44).contains("typing replaces"))
    send(&state, .key(.escape), .key(.char("?")))
    // Paged down until the line-editing keys show (a bounded number of pages).
    for _ in 0..<10 {
      view(state, into: &buffer)
      if buffer.text.contains("clear before the cursor") { break }
      send(&state, .key(.pageDown))
    }
    #expect(buffer.text.contains("Ctrl-U") && buffer.text.contains("clear before the cursor"))
  }

  /// The status bar says which match of how many; the matched text is reversed, not the whole
  /// line, and the other matches on screen are underlined.
  @Test func searchShowsTheMatchCountAndHighlightsTheText() throws {
    var state = try demoState()
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    let body = #"[{"id": 1, "name": "Ada"}, {"id": 2, "name": "Grace"}, {"id": 3, "name": "Alan"}]"#
    send(&state, .key(.enter))
    for msg in exchangeEvents(id: 1, request: request, body: body) { send(&state, msg) }
    _ = keys(&state, "3/")
    _ = keys(&state, "NAME")
    send(&state, .key(.enter))
    #expect(state.message?.text == "/NAME: match 1 of 3, line 4")
    _ = keys(&state, "n")
    #expect(state.message?.text == "/NAME: match 2 of 3, line 8")
    var buffer = ScreenBuffer(width: 160, height: 45)
    view(state, into: &buffer)
    let rows = (0..<45).filter { buffer.line($0).contains("\"name\": \"") }
    #expect(rows.count == 3)
    for y in rows {
      let line = buffer.line(y)
      let current = line.contains("Grace")
      // The columns of `name` (inside the quotes) on this row, counted as the buffer does.
      let start = TextWidth.of(String(line[..<line.range(of: "\"name\"")!.lowerBound])) + 1
      for x in start..<(start + 4) {
        #expect(buffer[x, y].style.reverse == current, "row \(y) column \(x)")
        #expect(buffer[x, y].style.underline == !current, "row \(y) column \(x)")
      }
      // The rest of the line is not reversed.
      #expect(!buffer[start + 8, y].style.reverse)
    }
  }

  /// A jq filter over a big body runs in the background: the status bar says so, Esc stops
  /// waiting for it and its late result is ignored.
  @Test func aRunningJQFilterCanBeCancelled() throws {
    var state = try demoState()
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    send(&state, .key(.enter))
    for msg in exchangeEvents(id: 1, request: request) { send(&state, msg) }
    _ = keys(&state, "3|")
    _ = keys(&state, ".name")
    #expect(send(&state, .key(.enter)) == [.filter(expression: ".name", ExchangeID(rawValue: 1))])
    var buffer = ScreenBuffer(width: 160, height: 45)
    view(state, into: &buffer)
    #expect(buffer.line(44).contains("jq: running… (Esc cancels)"))
    send(&state, .key(.escape))
    #expect(state.message == StatusMessage("jq .name: cancelled"))
    send(&state, .filtered(expression: ".name", result: .success("\"Ada Lovelace\"\n")))
    #expect(state.viewer.filtered == nil && state.viewer.filter == nil)
    #expect(state.message == StatusMessage("jq .name: cancelled"))
    // Run again: this time the result is shown.
    _ = keys(&state, "|.name")
    send(&state, .key(.enter))
    send(&state, .filtered(expression: ".name", result: .success("\"Ada Lovelace\"\n")))
    #expect(state.viewer.filtered?.line(0) == "\"Ada Lovelace\"")
  }

  /// `w` with a jq filter shown writes its output (and says so); an existing file is
  /// overwritten only after `y`.
  @Test func writeTheJQOutputAndAskBeforeOverwriting() throws {
    var state = try demoState()
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    send(&state, .key(.enter))
    for msg in exchangeEvents(id: 1, request: request) { send(&state, msg) }
    _ = keys(&state, "3|.name")
    send(&state, .key(.enter))
    send(&state, .filtered(expression: ".name", result: .success("\"Ada Lovelace\"\n")))
    _ = keys(&state, "w")
    #expect(state.prompt?.label == "write jq output to")
    let write = Command.writeBody(ExchangeID(rawValue: 1), path: "users-list.jq.txt", jqOutput: "\"Ada Lovelace\"\n")
    #expect(send(&state, .key(.enter)) == [write])
    send(&state, .bodyFileExists(path: "/w/users-list.jq.txt"))
    #expect(state.message == StatusMessage("/w/users-list.jq.txt exists: overwrite? y/n"))
    #expect(keys(&state, "n") == [])
    #expect(state.message == StatusMessage("not written"))
    _ = keys(&state, "w")
    send(&state, .key(.enter))
    send(&state, .bodyFileExists(path: "/w/users-list.jq.txt"))
    #expect(keys(&state, "y") == [.writeBody(ExchangeID(rawValue: 1), path: "users-list.jq.txt", jqOutput: "\"Ada Lovelace\"\n", overwrite: true)])
    // Without the filter: the body.
    send(&state, .key(.escape))
    _ = keys(&state, "w")
    #expect(state.prompt?.label == "write body to")
    #expect(send(&state, .key(.enter)) == [.writeBody(ExchangeID(rawValue: 1), path: "users-list.json")])
  }

  @Test func searchAndJQInTheViewer() throws {
    var state = try demoState()
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    let body = #"[{"id": 1, "name": "Ada"}, {"id": 2, "name": "Grace"}]"#
    send(&state, .key(.enter))
    for msg in exchangeEvents(id: 1, request: request, body: body) { send(&state, msg) }
    _ = keys(&state, "3/")
    _ = keys(&state, "grace")
    send(&state, .key(.enter))
    #expect(state.viewer.matchLine == 7)
    #expect(state.viewer.document?.line(7).contains("Grace") == true)
    _ = keys(&state, "n")
    #expect(state.viewer.matchLine == 7)  // the only match: wraps to itself
    _ = keys(&state, "|")
    send(&state, .key(.ctrl("u")))
    _ = keys(&state, ".[1].name")
    #expect(send(&state, .key(.enter)) == [.filter(expression: ".[1].name", ExchangeID(rawValue: 1))])
    send(&state, .filtered(expression: ".[1].name", result: .success("\"Grace\"\n")))
    #expect(state.viewer.filtered?.line(0) == "\"Grace\"")
    send(&state, .key(.escape))
    #expect(state.viewer.filtered == nil)
    _ = keys(&state, "|")
    _ = keys(&state, ".[")
    send(&state, .key(.enter))
    #expect(state.message == StatusMessage("jq: running… (Esc cancels)"))
    send(&state, .filtered(expression: ".[", result: .failure(FilterError("syntax error"))))
    #expect(state.message == StatusMessage("jq: syntax error", isError: true))
    _ = keys(&state, "w")
    #expect(state.prompt?.input.text == "users-list.json")
    #expect(send(&state, .key(.enter)) == [.writeBody(ExchangeID(rawValue: 1), path: "users-list.json")])
  }

  @Test func mouseFocusesSelectsAndScrolls() throws {
    var state = try demoState()
    let layout = state.layoutForTest
    // Click the third row of the request list.
    send(&state, .mouse(MouseEvent(x: layout.requests.x + 3, y: layout.requests.y + 3, kind: .press)))
    #expect(state.focus == .requests)
    #expect(state.selectedRequest != nil)
    let request = Request(name: "a", url: "http://h.test/")
    for i in 1...3 { for msg in exchangeEvents(id: UInt64(i), request: request) { send(&state, msg) } }
    send(&state, .mouse(MouseEvent(x: layout.queue.x + 5, y: layout.queue.y + 3, kind: .press)))
    #expect(state.focus == .queue)
    #expect(state.viewer.exchange == ExchangeID(rawValue: 2))
    send(&state, .mouse(MouseEvent(x: layout.response.x + 5, y: layout.response.y + 5, kind: .wheelDown)))
    #expect(state.viewer.scroll == 0)  // the body fits the pane: nothing to scroll
  }

  @Test func resizeRelayouts() throws {
    var state = try demoState()
    send(&state, .resize(width: 50, height: 10))
    #expect(state.layoutForTest.tooSmall)
    send(&state, .resize(width: 80, height: 24))
    #expect(!state.layoutForTest.tooSmall)
  }
}

extension AppState {
  var selectedExchangeForTest: ExchangeRow? {
    exchanges.indices.contains(queueSelection) ? exchanges[queueSelection] : nil
  }
  var layoutForTest: Layout { Layout(width: width, height: height) }
}

@Suite("update: history in the viewer")
struct HistoryViewerTests {
  /// A history entry as the runtime gives it: recorded by a real store in a temporary folder.
  func entryView(position: Int, count: Int, body: String) throws -> HistoryView {
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    let events = Scenario.exchange(id: 9, request: request, body: body, duration: 0.01)
    guard case .agent(.finished(let result)) = events[3] else { throw CancellationError() }
    let folder = scratchURL("rb-hv")
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = HistoryStore(stateFolder: folder)
    try store.record(result, name: "users/list")
    let entry = try #require(try store.entries(for: "users/list").first)
    return HistoryView(entry: entry, body: try store.body(of: entry), position: position, count: count)
  }

  @Test func bracketsStepThroughHistoryAndEscapeReturns() throws {
    var state = try demoState()
    send(&state, .key(.enter))
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    for msg in exchangeEvents(id: 1, request: request, body: #"{"live": true}"#) { send(&state, msg) }
    _ = keys(&state, "3")
    #expect(keys(&state, "[") == [.showHistory(name: "users/list", position: 0)])
    send(&state, .historyShown(try entryView(position: 0, count: 2, body: #"{"old": 1}"#), error: nil))
    #expect(state.viewer.history?.position == 0)
    #expect(state.viewer.document?.line(1).contains("\"old\"") == true)
    #expect(keys(&state, "[") == [.showHistory(name: "users/list", position: 1)])
    send(&state, .historyShown(nil, error: nil))
    #expect(state.message?.text == "no older response in history")
    #expect(keys(&state, "]") == [])  // position 0: back to live
    #expect(state.viewer.history == nil)
    #expect(state.viewer.document?.line(1).contains("\"live\"") == true)
    _ = keys(&state, "[")
    send(&state, .historyShown(try entryView(position: 0, count: 2, body: "{}"), error: nil))
    send(&state, .key(.escape))
    #expect(state.viewer.history == nil)
  }
}

@Suite("body documents")
struct BodyDocumentTests {
  @Test func largeBodiesAreIndexedOnlyAsFarAsNeeded() {
    let line = String(repeating: "x", count: 99) + "\n"
    let bytes = Array(String(repeating: line, count: 100_000).utf8)  // 10 MB, 100,000 lines
    let document = BodyDocument(bytes: bytes, mediaType: "text/plain")
    #expect(document.kind == .text)
    let (count, exact) = document.lineCount(atLeast: 50)
    #expect(!exact && count < 1000)
    #expect(document.line(10) == String(repeating: "x", count: 99))
    #expect(document.totalLineCount() == 100_000)
  }

  @Test func aHugeLineIsCut() {
    let bytes = Array(("[" + String(repeating: "1,", count: 1_000_000) + "1]").utf8)  // 2 MB of JSON, one line
    let document = BodyDocument(bytes: bytes, mediaType: "text/plain")
    let line = document.line(0)
    #expect(line.utf8.count < BodyDocument.maxLineBytes + 100)
    #expect(line.hasSuffix("more bytes on this line; | with jq . pretty-prints JSON)"))
  }

  @Test func jsonIsPrettyPrintedAndBinaryIsHex() {
    let json = BodyDocument(bytes: Array(#"{"a":[1,2]}"#.utf8), mediaType: "application/json")
    #expect(json.kind == .json)
    #expect(json.totalLineCount() == 3)  // {, "a": [1, 2], }
    let binary = BodyDocument(bytes: [0, 1, 2, 0x41, 0xFF], mediaType: nil)
    #expect(binary.kind == .binary)
    #expect(binary.line(0).hasPrefix("00000000  00 01 02 41 ff"))
    #expect(binary.line(0).hasSuffix("|...A.|"))
  }
}

@Suite("update: cache and dedup")
struct CacheViewTests {
  @Test func capitalSSendsIgnoringTheCache() throws {
    var state = try demoState()
    moveDown(&state, to: "users/list-cached")
    guard case .send(let request)? = keys(&state, "S").first else {
      Issue.record("expected a send")
      return
    }
    #expect(request.cache?.mode == .networkOnly)
    #expect(state.message?.text == "sent users/list-cached, ignoring the cache")
    guard case .send(let normal)? = keys(&state, "s").first else { return }
    #expect(normal.cache?.mode == .cacheThenNetwork)
  }

  @Test(arguments: [(160, 45), (80, 24)]) func badgesAndTheCacheLine(width: Int, height: Int) throws {
    var state = try demoState(width: width, height: height)
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users", cache: CachePolicy(seconds: 60))
    send(&state, .key(.enter))
    var events = Scenario.exchange(id: 1, request: request, body: "[]", duration: 0.001)
    if case .agent(.finished(var result)) = events[3] {
      result.fromCache = true
      result.cache = CacheOutcome(hit: true, reason: .fresh, ageSeconds: 42)
      events[3] = .agent(.finished(result))
    }
    for msg in events { send(&state, msg) }
    #expect(state.exchanges[0].badges == ["cache"])
    try assertSnapshot(state, "cache-\(width)x\(height)")
    var buffer = ScreenBuffer(width: width, height: height)
    view(state, into: &buffer)
    #expect(buffer.text.contains("from cache, 42 s old"))
  }

  @Test func cacheFieldEditsInPlace() throws {
    var template = RequestTemplate(name: "r", url: "/x")
    template = try template.applying("300 cacheThenNetwork revalidate v2", to: .cache)
    #expect(template.cache == CachePolicy(seconds: 300, version: 2, mode: .cacheThenNetwork, revalidate: true))
    #expect(template.editorFields.first { $0.kind == .cache }?.value == "300 s cacheThenNetwork revalidate v2")
    #expect(try template.applying("", to: .cache).cache == nil)
    #expect(throws: EditError.self) { try template.applying("300 sometimes", to: .cache) }
    #expect(try template.applying("off", to: .dedup).dedup == false)
  }
}

@Suite("update: batches and chains")
struct FlowViewTests {
  @Test func flowsAreListedAndEnterRunsThem() throws {
    var state = try demoState()
    #expect(state.listRows.contains(.flow(name: "smoke", kind: .batch)))
    #expect(state.listRows.contains(.flow(name: "login-flow", kind: .chain)))
    _ = keys(&state, "G")
    #expect(state.selectedFlow?.name == "login-flow")
    #expect(send(&state, .key(.enter)) == [.runFlow(name: "login-flow", fromStep: 1, captured: [:])])
  }

  @Test func aChainRowFollowsItsStepsAndResumes() throws {
    var state = try demoState()
    _ = keys(&state, "G")
    send(&state, .flowStarted(run: "r1", name: "login-flow", kind: .chain))
    send(&state, .flow(run: "r1", .step(chain: "login-flow", batch: nil, index: 1, count: 3, request: "auth/login")))
    send(&state, .flow(run: "r1", .captured(chain: "login-flow", batch: nil, index: 1, values: [(name: "uid", value: "1")])))
    send(&state, .flow(run: "r1", .step(chain: "login-flow", batch: nil, index: 2, count: 3, request: "auth/me")))
    #expect(state.flows[0].step == 2)
    #expect(state.flows[0].captured.map(\.name) == ["uid"])
    #expect(state.isBusy)
    #expect(keys(&state, "c") == [.cancelFlow(run: "r1")])
    var failed = FlowOutcome(kind: .chain, name: "login-flow", state: .failed)
    failed.step = 2
    failed.message = "step 2 (auth/me) failed: status 401 is outside 200-299"
    failed.captured = [(name: "uid", value: "1"), (name: "token", value: "t")]
    send(&state, .flow(run: "r1", .finished(failed)))
    #expect(state.flows[0].state == .failed)
    #expect(state.message?.isError == true)
    #expect(keys(&state, "r") == [.runFlow(name: "login-flow", fromStep: 2, captured: ["uid": "1", "token": "t"])])
    try assertSnapshot(state, "chain-160x45")
  }

  @Test func aBatchRowCountsItsMembers() throws {
    var state = try demoState()
    send(&state, .flowStarted(run: "b1", name: "smoke", kind: .batch))
    let ok = FlowOutcome(kind: .request, name: "users/list", state: .succeeded)
    let bad = FlowOutcome(kind: .request, name: "users/get", state: .failed)
    send(&state, .flow(run: "b1", .member(batch: "smoke", index: 1, done: 1, total: 4, outcome: ok)))
    send(&state, .flow(run: "b1", .member(batch: "smoke", index: 0, done: 2, total: 4, outcome: bad)))
    #expect(state.flows[0].done == 2 && state.flows[0].succeeded == 1 && state.flows[0].failed == 1)
    var buffer = ScreenBuffer(width: 160, height: 45)
    view(state, into: &buffer)
    #expect(buffer.text.contains("⧉ smoke  [████████········] 2/4  ✓1 ✗1 ⊘0"))
  }
}

@Suite("update: batch and chain rows in the queue")
struct QueueFlowTests {
  /// A running batch `b1` (smoke) with one member ended, and one exchange in the queue; focus on
  /// the queue with the exchange selected.
  func batchState() throws -> AppState {
    var state = try demoState()
    send(&state, .flowStarted(run: "b1", name: "smoke", kind: .batch))
    var ok = FlowOutcome(kind: .request, name: "users/get", state: .succeeded)
    ok.message = nil
    send(&state, .flow(run: "b1", .member(batch: "smoke", index: 1, done: 1, total: 4, outcome: ok)))
    for msg in exchangeEvents(id: 3, request: Request(name: "users/list", url: "http://127.0.0.1:8080/users")) {
      send(&state, msg)
    }
    _ = keys(&state, "4")
    return state
  }

  @Test func aBatchRowIsSelectableAndShownInTheViewer() throws {
    var state = try batchState()
    #expect(state.queueFlowSelection == nil)
    send(&state, .key(.up))
    #expect(state.queueFlowSelection == .flow(run: "b1"))
    #expect(state.viewer.flow == "b1")
    var buffer = ScreenBuffer(width: 160, height: 45)
    view(state, into: &buffer)
    #expect(buffer.text.contains("▶ batch smoke running"))
    #expect(buffer.text.contains("✓ users/get"))
    // Down again: back to the exchange, shown in the viewer.
    send(&state, .key(.down))
    #expect(state.queueFlowSelection == nil)
    #expect(state.queueSelection == 0)
    #expect(state.viewer.flow == nil)
    #expect(state.viewer.exchange == ExchangeID(rawValue: 3))
  }

  // The column header is the pane's first line; a click on a member selects it; a click below
  // the section selects the exchange drawn there.
  @Test func theMouseSelectsFlowRowsAndTheExchangesBelowThem() throws {
    var state = try batchState()
    let layout = Layout(width: state.width, height: state.height)
    send(&state, .key(.up), .key(.enter))  // expanded: the batch row and its four members
    send(&state, .mouse(MouseEvent(x: layout.queue.x + 5, y: layout.queue.y + 4, kind: .press)))
    #expect(state.queueFlowSelection == .member(run: "b1", index: 1))
    // The header line, the section's 5 lines, then the exchange.
    send(&state, .mouse(MouseEvent(x: layout.queue.x + 5, y: layout.queue.y + 7, kind: .press)))
    #expect(state.queueFlowSelection == nil)
    #expect(state.viewer.exchange == ExchangeID(rawValue: 3))
  }

  @Test func cOnABatchRowCancelsTheWholeBatch() throws {
    var state = try batchState()
    send(&state, .key(.up))
    #expect(keys(&state, "c") == [.cancelFlow(run: "b1")])
    #expect(state.message?.text == "cancelling batch smoke")
    var cancelled = FlowOutcome(kind: .batch, name: "smoke", state: .cancelled)
    cancelled.members = [FlowOutcome(kind: .request, name: "users/list", state: .cancelled)]
    send(&state, .flow(run: "b1", .finished(cancelled)))
    #expect(keys(&state, "c") == [])
    #expect(state.message?.text == "batch smoke already cancelled")
    // r on a batch does nothing but say what it does.
    #expect(keys(&state, "r") == [])
  }

  @Test func enterAndArrowsExpandABatchToItsMembers() throws {
    var state = try batchState()
    send(&state, .key(.up))
    send(&state, .key(.enter))
    #expect(state.expandedFlows == ["b1"])
    #expect(state.queueFlowItems == [.flow(run: "b1")] + (0..<4).map { .member(run: "b1", index: $0) })
    _ = keys(&state, "jj")
    #expect(state.queueFlowSelection == .member(run: "b1", index: 1))
    // ← on a member hides the members and selects the batch row; → shows them; space toggles.
    send(&state, .key(.left))
    #expect(state.expandedFlows.isEmpty)
    #expect(state.queueFlowSelection == .flow(run: "b1"))
    send(&state, .key(.right))
    #expect(state.expandedFlows == ["b1"])
    _ = keys(&state, " ")
    #expect(state.expandedFlows.isEmpty)
    _ = keys(&state, " ")
    try assertSnapshot(state, "batch-expanded-160x45")
  }

  // While a batch runs its members wait (…) until their exchange starts (▶); a member's line
  // opens its exchange in the viewer, and Enter on it keeps the batch expanded.
  @Test func batchMembersAreQueuedUntilTheyStartAndOpenTheirExchange() throws {
    var state = try batchState()
    send(&state, .key(.up), .key(.enter))
    var request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    request.tags = ["flow": "b1", "batch": "smoke", "member": "0"]
    send(&state, .agent(.queued(ExchangeID(rawValue: 9), request)))
    #expect(FlowRow.memberState(try #require(state.flowRow("b1")), 0) == .queued)
    send(&state, .agent(.started(ExchangeID(rawValue: 9), attempt: 1)))
    let flow = try #require(state.flowRow("b1"))
    #expect(FlowRow.memberState(flow, 0) == .running)
    #expect(FlowRow.memberState(flow, 2) == .queued)
    var buffer = ScreenBuffer(width: 160, height: 45)
    view(state, into: &buffer)
    #expect(buffer.text.contains("▶ running    users/list"))
    #expect(buffer.text.contains("… queued     login-flow"))
    _ = keys(&state, "j")
    #expect(state.queueFlowSelection == .member(run: "b1", index: 0))
    #expect(state.viewer.exchange == ExchangeID(rawValue: 9))
    #expect(state.viewer.flow == nil)
    send(&state, .key(.enter))
    #expect(state.expandedFlows == ["b1"])
    #expect(state.focus == .response)
    #expect(state.viewer.exchange == ExchangeID(rawValue: 9))
  }

  // A batch's and a chain's end say what happened once.
  @Test func endMessagesSayItOnce() throws {
    var state = try batchState()
    var cancelled = FlowOutcome(kind: .batch, name: "smoke", state: .cancelled)
    cancelled.message = "cancelled"
    send(&state, .flow(run: "b1", .finished(cancelled)))
    #expect(state.message?.text == "batch smoke cancelled")
  }

  @Test func rOnAFailedChainRowResumesItAndTheRowKeepsEarlierSteps() throws {
    var state = try demoState()
    send(&state, .flowStarted(run: "r1", name: "login-flow", kind: .chain))
    send(&state, .flow(run: "r1", .step(chain: "login-flow", batch: nil, index: 1, count: 3, request: "auth/login")))
    send(&state, .flow(run: "r1", .captured(chain: "login-flow", batch: nil, index: 1, values: [(name: "uid", value: "1")])))
    var first = FlowOutcome(kind: .request, name: "auth/login", state: .succeeded)
    first.step = 1
    first.captured = [(name: "uid", value: "1")]
    send(&state, .flow(run: "r1", .stepFinished(chain: "login-flow", batch: nil, outcome: first)))
    send(&state, .flow(run: "r1", .step(chain: "login-flow", batch: nil, index: 2, count: 3, request: "auth/me")))
    var second = FlowOutcome(kind: .request, name: "auth/me", state: .failed)
    second.step = 2
    second.message = "status 401 is outside 200-299"
    var failed = FlowOutcome(kind: .chain, name: "login-flow", state: .failed)
    failed.step = 2
    failed.steps = [first, second]
    failed.captured = [(name: "uid", value: "1")]
    failed.message = "step 2 (auth/me) failed: status 401 is outside 200-299"
    send(&state, .flow(run: "r1", .finished(failed)))
    _ = keys(&state, "4")
    send(&state, .key(.up))
    #expect(state.queueFlowSelection == .flow(run: "r1"))
    #expect(keys(&state, "r") == [.runFlow(name: "login-flow", fromStep: 2, captured: ["uid": "1"])])
    // The resumed run: steps are absolute, step 1 keeps its state and its captured value.
    send(&state, .flowStarted(run: "r2", name: "login-flow", kind: .chain, fromStep: 2))
    // The queue and the viewer follow the resumed run.
    #expect(state.queueFlowSelection == .flow(run: "r2"))
    #expect(state.viewer.flow == "r2")
    send(&state, .flow(run: "r2", .step(chain: "login-flow", batch: nil, index: 2, count: 3, request: "auth/me")))
    #expect(state.flows[0].stepStates == [1: .succeeded])
    #expect(state.flows[0].captured.map(\.name) == ["uid"])
    send(&state, .key(.up))
    #expect(state.queueFlowSelection == .flow(run: "r2"))
    var buffer = ScreenBuffer(width: 160, height: 45)
    view(state, into: &buffer)
    #expect(buffer.text.contains("step 2/3  ✓ ▶ … "))
    var me = FlowOutcome(kind: .request, name: "auth/me", state: .succeeded)
    me.step = 2
    var third = FlowOutcome(kind: .request, name: "users/get", state: .succeeded)
    third.step = 3
    var done = FlowOutcome(kind: .chain, name: "login-flow", state: .succeeded)
    done.steps = [me, third]
    done.captured = [(name: "uid", value: "1")]
    send(&state, .flow(run: "r2", .finished(done)))
    #expect(state.flows[0].stepStates == [1: .succeeded, 2: .succeeded, 3: .succeeded])
    #expect(state.flows[0].captured.map(\.step) == [1])  // kept after the end too
    send(&state, .key(.enter))
    try assertSnapshot(state, "chain-resumed-160x45")
  }

  // A step whose capture failed: its exchange row says the step failed (not `succeeded 200`),
  // and the viewer shows the capture, why, and the body it ran on, pretty-printed, over several
  // lines it scrolls through.
  @Test func aFailedCaptureIsReadable() throws {
    var state = try demoState()
    send(&state, .flowStarted(run: "r1", name: "login-flow", kind: .chain))
    send(&state, .flow(run: "r1", .step(chain: "login-flow", batch: nil, index: 1, count: 3, request: "auth/login")))
    let fields = (1...40).map { "\"field\($0)\": \($0)" }.joined(separator: ", ")
    var request = Request(name: "auth/login", url: "http://127.0.0.1:8080/auth/login")
    request.tags = ["flow": "r1", "chain": "login-flow", "step": "1", "steps": "3"]
    let events = exchangeEvents(id: 7, request: request, body: "{\"user\": {\"id\": 1}, \(fields)}")
    for event in events { send(&state, event) }
    guard case .agent(.finished(let result)) = events.last else { throw CancellationError() }
    var step = FlowOutcome(kind: .request, name: "auth/login", state: .failed)
    step.step = 1
    step.exchange = result
    step.errorKind = "capture"
    let failure = FlowRunner.CaptureFailure(capture: "token", source: ".nope", reason: "found nothing", body: "{…", message: "capture token: .nope found nothing in the body: {…")
    step.captureFailure = failure
    step.message = failure.message
    send(&state, .flow(run: "r1", .stepFinished(chain: "login-flow", batch: nil, outcome: step)))
    var chain = FlowOutcome(kind: .chain, name: "login-flow", state: .failed)
    chain.step = 1
    chain.steps = [step]
    chain.message = "step 1 (auth/login) failed: " + failure.message
    send(&state, .flow(run: "r1", .finished(chain)))
    var buffer = ScreenBuffer(width: 160, height: 45)
    _ = keys(&state, "4")
    view(state, into: &buffer)
    let queueLine = try #require(buffer.text.split(separator: "\n").first { $0.contains("auth/login") && $0.contains("GET") })
    #expect(queueLine.contains("│✗ failed "), "\(queueLine)")
    #expect(queueLine.contains("capture failed: token ← .nope"), "\(queueLine)")
    #expect(!queueLine.contains("succeeded"))
    // The chain's run in the viewer.
    send(&state, .key(.up))
    #expect(state.viewer.flow == "r1")
    let lines = state.flowRunLines("login-flow", try #require(state.flowRow("r1"))).map(\.text)
    #expect(lines.contains("  ✗ 1. auth/login  200  capture failed"), "\(lines)")
    #expect(lines.contains("      capture token ← .nope"))
    #expect(lines.contains("      found nothing"))
    #expect(lines.contains { $0.hasPrefix("      the body it ran on (200, ") })
    #expect(lines.contains("        {"))
    #expect(lines.contains("          \"field40\": 40"))
    #expect(!lines.contains { $0.contains("\\n") })
    try assertSnapshot(state, "chain-capture-failed-160x45")
    // The viewer scrolls down to the end of the body.
    _ = keys(&state, "3")
    _ = keys(&state, "GGjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjjj")
    #expect(state.viewer.scroll > 0)
    buffer = ScreenBuffer(width: 160, height: 45)
    view(state, into: &buffer)
    #expect(buffer.text.contains("\"field40\": 40"))
  }

  // A failed step of a chain that goes on shows ✗ while the chain still runs.
  @Test func aFailedStepShowsWhileTheChainGoesOn() throws {
    var state = try demoState()
    send(&state, .flowStarted(run: "r1", name: "login-flow", kind: .chain))
    send(&state, .flow(run: "r1", .step(chain: "login-flow", batch: nil, index: 1, count: 3, request: "auth/login")))
    var first = FlowOutcome(kind: .request, name: "auth/login", state: .failed)
    first.step = 1
    send(&state, .flow(run: "r1", .stepFinished(chain: "login-flow", batch: nil, outcome: first)))
    send(&state, .flow(run: "r1", .step(chain: "login-flow", batch: nil, index: 2, count: 3, request: "auth/me")))
    // The same chain's step inside a batch does not touch this row.
    send(&state, .flow(run: "r1", .stepFinished(chain: "login-flow", batch: "smoke", outcome: FlowOutcome(kind: .request, name: "x", state: .cancelled))))
    #expect(state.flows[0].stepStates == [1: .failed])
    var buffer = ScreenBuffer(width: 160, height: 45)
    view(state, into: &buffer)
    #expect(buffer.text.contains("step 2/3  ✗ ▶ … "))
  }
}

@Suite("update: downloads and uploads")
struct DownloadViewTests {
  let pending = PendingDownload(
    label: "files/big", method: "GET", url: "http://127.0.0.1:8080/bytes/52428800?seed=demo&rate=8000000",
    target: "/w/downloads/big.bin", bytesOnDisk: 22_544_384, totalBytes: 52_428_800, updated: epoch)

  @Test func downloadsLeftByAnEarlierSessionAreResumable() throws {
    var state = try demoState()
    var gone = pending
    gone.label = "no-longer-in-the-workspace"
    state.restorePendingDownloads([pending, gone])
    #expect(state.exchanges.count == 1)
    let row = try #require(state.exchanges.first)
    #expect(row.state == .cancelled)
    #expect(row.badges == ["resumable 43%"])
    #expect(row.bytes == 22_544_384)
    _ = keys(&state, "4")
    let commands = keys(&state, "r")
    guard case .send(let request)? = commands.first else {
      Issue.record("r did not send: \(commands)")
      return
    }
    #expect(request.name == "files/big")
    #expect(request.download?.path.hasSuffix("workspaces/downloads/big.bin") == true)
    #expect(state.message?.text == "resuming files/big from 21.5 MB (43%)")
  }

  @Test func progressCarriesSpeedAndETA() {
    var progress = TransferProgress(downloaded: 30_000_000, downloadTotal: 50_000_000)
    #expect(progress.secondsLeft == nil)
    progress.bytesPerSecond = 10_000_000
    #expect(progress.secondsLeft == 2)
    #expect(progress.fraction == 0.6)
    var upload = TransferProgress(uploaded: 1_000, uploadTotal: 4_000)
    upload.bytesPerSecond = 1_000
    #expect(upload.isUploading && upload.fraction == 0.25 && upload.secondsLeft == 3)
  }

  @Test func downloadAndBodyFieldsEditInPlace() throws {
    var template = RequestTemplate(name: "r", url: "/x")
    let sum = String(repeating: "ab", count: 32)
    template = try template.applying("downloads/x.bin sha256=\(sum) trust", to: .download)
    #expect(template.download == DownloadTemplate(to: "downloads/x.bin", sha256: sum, trustLength: true))
    #expect(template.editorFields.first { $0.kind == .download }?.value == "downloads/x.bin sha256=\(sum) trust")
    #expect(throws: EditError.self) { try template.applying("../x.bin", to: .download) }
    #expect(throws: EditError.self) { try template.applying("/etc/x", to: .download) }
    #expect(try template.applying("", to: .download).download == nil)

    template.body = .multipart([MultipartField(name: "note", value: "hi"), MultipartField(name: "f", file: "data/a.png", type: "image/png")])
    #expect(template.bodyEditorText.text == "note=hi\nf=@data/a.png;type=image/png\n")
    let edited = try template.applyingBody("note=bye\nf=@data/b.png;filename=b.png\n")
    #expect(edited.body == .multipart([MultipartField(name: "note", value: "bye"), MultipartField(name: "f", file: "data/b.png", filename: "b.png")]))
    #expect(throws: EditError.self) { try template.applyingBody("f=@../secret") }
  }
}

@Suite("editor: digest auth and TLS")
struct DigestAndTLSEditorTests {
  @Test func theEditorReadsAndWritesThem() throws {
    var template = RequestTemplate(name: "r", url: "/x")
    template.setAuthKind(.digest)
    template = try template.applying("ada", to: .authUser).applying("{{secret.pw}}", to: .authPassword)
    #expect(template.auth == .digest(user: "ada", password: "{{secret.pw}}"))
    #expect(template.editorFields.first { $0.kind == .auth }?.value == "digest")
    // A {{variable}} is shown; a password typed in is shown masked.
    let password = template.editorFields.first { $0.kind == .authPassword }
    #expect(password?.value == "{{secret.pw}}" && password?.isMasked == false)
    #expect(try template.applying("pw", to: .authPassword).editorFields.first { $0.kind == .authPassword }?.isMasked == true)
    #expect(throws: EditError.self) { try RequestTemplate(name: "r", url: "/x").applying("ada", to: .authUser) }
    template = try template.applying("ca=certs/ca.pem pin=sha256//abc=", to: .tls)
    #expect(template.tls == TLSSettings(caFile: "certs/ca.pem", pinnedPublicKey: "sha256//abc="))
    #expect(template.editorFields.first { $0.kind == .tls }?.value == "ca=certs/ca.pem pin=sha256//abc=")
    #expect(try template.applying("", to: .tls).tls == nil)
    let mutual = try template.applying("cert=certs/me.pem key=certs/me.key", to: .tls)
    #expect(mutual.tls == TLSSettings(clientCertificate: "certs/me.pem", clientKey: "certs/me.key"))
    #expect(throws: EditError.self) { try template.applying("pin=md5//x", to: .tls) }
  }
}
