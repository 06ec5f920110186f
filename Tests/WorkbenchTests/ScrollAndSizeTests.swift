import Foundation
import RequestEngine
import TerminalUI
import Testing
import Workbench
import Workspace

@Suite("update: scrolling stays on the content, the smallest screen is usable")
struct ScrollAndSizeTests {
  /// `count` finished exchanges of users/list in the queue.
  func withExchanges(_ count: Int, width: Int = 80, height: Int = 24) throws -> AppState {
    var state = try demoState(width: width, height: height)
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    for i in 1...count { for msg in exchangeEvents(id: UInt64(i), request: request) { send(&state, msg) } }
    return state
  }

  @Test func theWheelOverTheQueueScrollsWithTheSelection() throws {
    var state = try withExchanges(40)
    _ = keys(&state, "4g1")  // the newest row selected, the list focused
    let layout = state.layoutForTest
    let rows = layout.contentHeight(of: .queue)
    for _ in 0..<5 { send(&state, .mouse(MouseEvent(x: layout.queue.x + 5, y: layout.queue.y + 2, kind: .wheelDown))) }
    #expect(state.queueSelection == 15)
    #expect(state.queueScroll <= state.queueSelection && state.queueSelection < state.queueScroll + rows)
    // The selected row is drawn (reversed when focused, underlined otherwise).
    var buffer = ScreenBuffer(width: 80, height: 24)
    view(state, into: &buffer)
    let underlined = (layout.queue.y..<layout.queue.maxY).filter { buffer[layout.queue.x + 3, $0].style.underline }
    #expect(underlined.count == 1)
    for _ in 0..<5 { send(&state, .mouse(MouseEvent(x: layout.queue.x + 5, y: layout.queue.y + 2, kind: .wheelUp))) }
    #expect(state.queueSelection == 0 && state.queueScroll == 0)
  }

  @Test func theResponseStopsAtTheEndOfTheBody() throws {
    var state = try demoState(width: 80, height: 24)
    send(&state, .key(.enter))
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    let body = (1...30).map { "line \($0)" }.joined(separator: "\n")
    for msg in exchangeEvents(id: 1, request: request, body: body, contentType: "text/plain") { send(&state, msg) }
    _ = keys(&state, "3")
    let page = state.layoutForTest.contentHeight(of: .response)
    for _ in 0..<100 { _ = keys(&state, "j") }
    #expect(state.viewer.scroll == 30 - page)
    for _ in 0..<10 { send(&state, .key(.pageDown)) }
    #expect(state.viewer.scroll == 30 - page)
    let layout = state.layoutForTest
    send(&state, .mouse(MouseEvent(x: layout.response.x + 5, y: layout.response.y + 4, kind: .wheelDown)))
    #expect(state.viewer.scroll == 30 - page)
    var buffer = ScreenBuffer(width: 80, height: 24)
    view(state, into: &buffer)
    #expect(buffer.text.contains("line 30"))
    // The headers tab stops at its last header.
    _ = keys(&state, "l")
    for _ in 0..<20 { _ = keys(&state, "j") }
    #expect(state.viewer.scroll == 0)  // two headers fit on one page
  }

  @Test func aHugeBodyScrollsWithoutBeingIndexedToTheEnd() throws {
    var state = try demoState(width: 80, height: 24)
    send(&state, .key(.enter))
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    let body = String(repeating: String(repeating: "x", count: 99) + "\n", count: 100_000)
    for msg in exchangeEvents(id: 1, request: request, body: body, contentType: "text/plain") { send(&state, msg) }
    _ = keys(&state, "3")
    for _ in 0..<50 { send(&state, .key(.pageDown)) }
    let page = state.layoutForTest.contentHeight(of: .response)
    #expect(state.viewer.scroll == 50 * (page - 1))
    let document = try #require(state.viewer.document)
    #expect(!document.lineCount(atLeast: 0).exact)  // the end is still unknown: nothing more was indexed
    _ = keys(&state, "G")
    #expect(state.viewer.scroll == 100_000 - page)
    _ = keys(&state, "j")
    #expect(state.viewer.scroll == 100_000 - page)
  }

  /// A resize that leaves the selected request below the list's new bottom scrolls it back into
  /// view.
  @Test func theSelectedRequestStaysInViewAfterAResize() throws {
    var state = try demoState(width: 160, height: 45)
    _ = keys(&state, "G")
    let name = try #require(state.selectedRequest?.name ?? state.selectedFlow?.name)
    send(&state, .resize(width: 80, height: 16))
    var buffer = ScreenBuffer(width: 80, height: 16)
    view(state, into: &buffer)
    let short = name.split(separator: "/").last.map(String.init) ?? name
    #expect(buffer.text.contains(short), "\(name) is off screen:\n\(buffer.text)")
    #expect(state.requestScroll > 0)
  }

  /// Esc on a filter clears it and keeps the request that was selected (not the first one).
  @Test func escOnAFilterKeepsTheSelectedRequest() throws {
    var state = try demoState(width: 80, height: 24)
    _ = keys(&state, "/slow")
    send(&state, .key(.enter))
    #expect(state.selectedRequest?.name == "slow")
    send(&state, .key(.escape))
    #expect(state.requestFilter.isEmpty)
    #expect(state.selectedRequest?.name == "slow")
    // The same from the prompt itself.
    _ = keys(&state, "/trick")
    send(&state, .key(.escape))
    #expect(state.requestFilter.isEmpty)
    #expect(state.selectedRequest?.name == "trickle")
    var buffer = ScreenBuffer(width: 80, height: 24)
    view(state, into: &buffer)
    #expect(buffer.text.contains("trickle"))
  }

  /// The status bar drops whole hints from the end (never cuts one), `? help` and `q quit` last.
  @Test(arguments: [80, 60]) func hintsAreDroppedWholeNotCut(width: Int) throws {
    for focus in ["1", "2", "3", "4"] {
      var state = try demoState(width: width, height: 24)
      _ = keys(&state, focus)
      var buffer = ScreenBuffer(width: width, height: 24)
      view(state, into: &buffer)
      let line = buffer.line(23).trimmingCharacters(in: .whitespaces)
      #expect(line.hasSuffix("? help · q quit"), "pane \(focus): \(line)")
      #expect(!line.contains("…"), "pane \(focus): \(line)")
    }
  }

  /// Names and lines too long for their place end in a marker, never just stop.
  @Test func cutTextIsMarked() throws {
    let long = "reports/a-very-long-request-name-that-cannot-fit"
    let json = #"{"version": 1, "requests": [{"name": "\#(long)", "url": "http://127.0.0.1:9/x"}]}"#
    let workspace = try Workspace.parse(Array(json.utf8), file: "ws.json")
    var state = AppState(workspace: workspace, workspaceFile: "ws.json", sources: VariableSources(overrides: [:], processEnvironment: [:]), width: 80, height: 24)
    var buffer = ScreenBuffer(width: 80, height: 24)
    view(state, into: &buffer)
    #expect(buffer.text.contains("GET    a-very-lo…│"), "\(buffer.text)")
    // A download left resumable: its badge stays at 80 columns, its line in the viewer is cut
    // with "…".
    let request = Request(name: long, url: "http://127.0.0.1:9/x", download: DownloadTarget(path: "/tmp/some/rather/deep/folder/for/downloads/of/reports/big-report.bin"))
    let id = ExchangeID(rawValue: 1)
    send(&state, .agent(.queued(id, request)), .agent(.started(id, attempt: 1)))
    send(&state, .agent(.headers(id, status: 200, headers: HTTPHeaders())))
    let partial = DownloadOutcome(
      file: "/tmp/some/rather/deep/folder/for/downloads/of/reports/big-report.bin", bytes: 17, totalBytes: 100,
      resumedFrom: 0, restartReason: nil, resumable: true, complete: false)
    send(
      &state,
      .agent(.finished(ExchangeResult(
        id: id, request: request, state: .cancelled, response: nil, error: .cancelled, queuedAt: epoch, startedAt: epoch,
        finishedAt: epoch, download: partial))))
    _ = keys(&state, "4")
    send(&state, .key(.enter))
    view(state, into: &buffer)
    let row = try #require((0..<24).map { buffer.line($0) }.first { $0.hasPrefix("│⊘ cancelled") })
    #expect(row.contains("⟳ 17%"), "\(row)")
    #expect(row.contains("…"), "\(row)")
    let kept = try #require((0..<24).map { buffer.line($0) }.first { $0.contains("kept for") })
    #expect(kept.contains("…"), "\(kept)")
    // A body line longer than the pane (not wrapping) ends in a marker.
    var text = try demoState(width: 80, height: 24)
    send(&text, .key(.enter))
    for msg in exchangeEvents(id: 1, request: Request(name: "users/list", url: "http://127.0.0.1:8080/users"), body: String(repeating: "word ", count: 40), contentType: "text/plain") {
      send(&text, msg)
    }
    view(text, into: &buffer)
    let body = try #require((0..<24).map { buffer.line($0) }.first { $0.contains("word word") })
    #expect(body.contains("›│"), "\(body)")
  }

  @Test func lineNumbersPastFiveDigitsAreNotCut() throws {
    var state = try demoState(width: 80, height: 24)
    send(&state, .key(.enter))
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    let body = (1...160_000).map { "line \($0)" }.joined(separator: "\n")
    for msg in exchangeEvents(id: 1, request: request, body: body, contentType: "text/plain") { send(&state, msg) }
    _ = keys(&state, "3")
    _ = keys(&state, "G")
    var buffer = ScreenBuffer(width: 80, height: 24)
    view(state, into: &buffer)
    let rows = (0..<24).map { buffer.line($0) }
    let last = try #require(rows.first { $0.contains("line 160000") }, "\(rows.joined(separator: "\n"))")
    #expect(last.contains(" 160000 line 160000"), "\(last)")
    #expect(!rows.contains { $0.contains("…") && $0.contains("1599") })
  }

  @Test func theWheelOverTheEditorStopsAtTheLastField() throws {
    var state = try demoState(width: 80, height: 24)
    let layout = state.layoutForTest
    let fields = try #require(state.selectedRequest?.editorFields.count)
    for _ in 0..<30 { send(&state, .mouse(MouseEvent(x: layout.editor.x + 5, y: layout.editor.y + 2, kind: .wheelDown))) }
    let rows = layout.contentHeight(of: .editor) - 1
    #expect(state.editorScroll == max(0, fields - rows))
    var buffer = ScreenBuffer(width: 80, height: 24)
    view(state, into: &buffer)
    // The last field is on the last row, above the border.
    #expect(buffer.line(layout.editor.y + 2 + rows).contains("─"))
    let last = try #require(state.selectedRequest?.editorFields.last)
    #expect(buffer.line(layout.editor.y + 1 + rows).contains(last.label))
  }

  @Test func sixtyBySixteenShowsABodyAndRequestNames() throws {
    let base = try demoState(width: 60, height: 16)
    let state = Scenario.session.state(workspace: base.workspace, file: base.workspaceFile, width: 60, height: 16)
    let layout = state.layoutForTest
    #expect(!layout.tooSmall)
    #expect(layout.contentHeight(of: .response) >= 2)
    var buffer = ScreenBuffer(width: 60, height: 16)
    view(state, into: &buffer)
    let queue = (layout.queue.y..<layout.queue.maxY).map { buffer.line($0) }.joined(separator: "\n")
    #expect(queue.contains("REQUEST"))
    #expect(queue.contains("users/list"))
    let response = (layout.response.y..<layout.response.maxY).map { buffer.line($0) }.joined(separator: "\n")
    #expect(response.contains("     1 ["))
    try assertSnapshot(state, "session-60x16")
  }

  @Test func keysDoNothingWhileTheScreenIsTooSmall() throws {
    var state = try demoState()
    send(&state, .resize(width: 50, height: 12))
    #expect(keys(&state, "j2") == [])
    #expect(send(&state, .key(.enter), .key(.tab), .key(.ctrl("s"))) == [])
    #expect(state.focus == .requests && state.selectedRequest?.name == "users/list")
    send(&state, .mouse(MouseEvent(x: 40, y: 5, kind: .press)))
    #expect(state.focus == .requests)
    #expect(keys(&state, "q") == [.quit])
    #expect(send(&state, .key(.ctrl("c"))) == [.quit])
  }
}
