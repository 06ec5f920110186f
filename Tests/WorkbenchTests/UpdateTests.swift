import Foundation
import History
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
    _ = keys(&state, "FE TCH")
    send(&state, .key(.enter))
    #expect(state.editing != nil)
    #expect(state.message?.isError == true)
    #expect(state.message?.text.contains("\"FE TCH\" is not a method: a method is one word") == true)
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
    // The expression is back in the prompt with the error, to be corrected, not typed again.
    #expect(state.prompt?.error == "jq: syntax error")
    #expect(state.prompt?.input.text == ".[" && state.prompt?.label == "jq")
    _ = keys(&state, "0]")
    #expect(send(&state, .key(.enter)) == [.filter(expression: ".[0]", ExchangeID(rawValue: 1))])
    send(&state, .filtered(expression: ".[0]", result: .failure(FilterError("syntax error"))))
    // An error while another prompt is open is said on the status line.
    _ = send(&state, .key(.escape))
    _ = keys(&state, "/")
    state.viewer.filterRunning = ".["
    send(&state, .filtered(expression: ".[", result: .failure(FilterError("syntax error"))))
    #expect(state.prompt?.purpose == .search && state.message == StatusMessage("jq: syntax error", isError: true))
    _ = send(&state, .key(.escape))
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
