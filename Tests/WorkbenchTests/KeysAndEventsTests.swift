import Base
import Foundation
import RequestEngine
import TerminalUI
import TestSupport
import Testing
import Workbench
import Workspace

/// The keys and events not covered elsewhere, each with the effect it must have.
@Suite("update: every key and event")
struct KeysAndEventsTests {
  let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")

  /// A session with users/list answered by `body` (text) and shown in the viewer.
  func answered(_ body: String, width: Int = 80, height: Int = 24, contentType: String = "text/plain") throws -> AppState {
    var state = try demoState(width: width, height: height)
    send(&state, .key(.enter))
    for msg in exchangeEvents(id: 1, request: request, body: body, contentType: contentType) { send(&state, msg) }
    return state
  }

  @Test func pagesAndEndsInTheRequestList() throws {
    var state = try demoState(width: 80, height: 24)
    let page = state.layoutForTest.contentHeight(of: .requests)
    let last = state.selectableCount - 1
    send(&state, .key(.home))
    send(&state, .key(.pageDown))
    #expect(state.requestSelection == page)
    send(&state, .key(.pageUp))
    #expect(state.requestSelection == 0)
    send(&state, .key(.ctrl("d")))
    #expect(state.requestSelection == page)
    send(&state, .key(.ctrl("u")))
    #expect(state.requestSelection == 0)
    send(&state, .key(.end))
    #expect(state.requestSelection == last)
    #expect(state.requestScroll > 0)  // the last row is in view
    send(&state, .key(.home))
    #expect(state.requestSelection == 0 && state.requestScroll <= 1)
  }

  @Test func pagesInTheResponse() throws {
    var state = try answered((1...100).map { "line \($0)" }.joined(separator: "\n"))
    _ = keys(&state, "3")
    let page = state.layoutForTest.contentHeight(of: .response)
    send(&state, .key(.pageDown))
    #expect(state.viewer.scroll == page - 1)
    send(&state, .key(.ctrl("d")))
    #expect(state.viewer.scroll == 2 * (page - 1))
    send(&state, .key(.ctrl("u")))
    #expect(state.viewer.scroll == page - 1)
    send(&state, .key(.pageUp))
    #expect(state.viewer.scroll == 0)
    send(&state, .key(.end))
    #expect(state.viewer.scroll == 100 - page)
    send(&state, .key(.home))
    #expect(state.viewer.scroll == 0)
  }

  @Test func searchBackwardsWithCapitalN() throws {
    var state = try answered("alpha\nbeta\nalpha again\ngamma\nalpha last")
    _ = keys(&state, "3/")
    _ = keys(&state, "alpha")
    send(&state, .key(.enter))
    #expect(state.viewer.matchLine == 0)
    _ = keys(&state, "N")
    #expect(state.viewer.matchLine == 4)  // wraps back to the last match
    _ = keys(&state, "N")
    #expect(state.viewer.matchLine == 2)
    #expect(state.message?.text == "/alpha: match 2 of 3, line 3")
    _ = keys(&state, "n")
    #expect(state.viewer.matchLine == 4)
  }

  @Test func capitalWTogglesWrapping() throws {
    let long = String(repeating: "abcdefghij", count: 20)
    var state = try answered(long + "\nend")
    _ = keys(&state, "3W")
    #expect(state.viewer.wrap)
    #expect(state.message?.text == "wrapping long lines")
    var buffer = ScreenBuffer(width: 80, height: 24)
    view(state, into: &buffer)
    #expect(buffer.lines().filter { $0.contains("abcde") }.count >= 3)  // all of it, on several rows
    #expect(buffer.text.contains("end"))
    _ = keys(&state, "W")
    #expect(!state.viewer.wrap && state.message?.text == "not wrapping")
  }

  @Test func arrowsAndHLSwitchTabs() throws {
    var state = try answered("x")
    _ = keys(&state, "3")
    send(&state, .key(.right))
    #expect(state.viewer.tab == .headers)
    _ = keys(&state, "l")
    #expect(state.viewer.tab == .timing)
    _ = keys(&state, "l")
    #expect(state.viewer.tab == .request)
    _ = keys(&state, "l")
    #expect(state.viewer.tab == .body)  // wraps around
    send(&state, .key(.left))
    #expect(state.viewer.tab == .request)
    _ = keys(&state, "h")
    #expect(state.viewer.tab == .timing)
  }

  @Test func numberKeysFocusEachPane() throws {
    var state = try demoState()
    for (key, pane) in [("4", Pane.queue), ("3", .response), ("2", .editor), ("1", .requests)] {
      _ = keys(&state, key)
      #expect(state.focus == pane)
    }
  }

  @Test func theWheelOverEachPane() throws {
    var state = try answered((1...60).map { "line \($0)" }.joined(separator: "\n"))
    for i in 2...6 { for msg in exchangeEvents(id: UInt64(i), request: request) { send(&state, msg) } }
    let layout = state.layoutForTest
    func wheel(_ rect: Rect, _ kind: MouseEvent.Kind) { send(&state, .mouse(MouseEvent(x: rect.x + 3, y: rect.y + 2, kind: kind))) }
    // Requests: the selection moves by 3.
    let start = state.requestSelection
    wheel(layout.requests, .wheelDown)
    #expect(state.requestSelection == start + 3)
    wheel(layout.requests, .wheelUp)
    #expect(state.requestSelection == start)
    // Editor: the fields scroll.
    wheel(layout.editor, .wheelDown)
    #expect(state.editorScroll == 3)
    wheel(layout.editor, .wheelUp)
    #expect(state.editorScroll == 0)
    // Queue: the selection moves and the viewer follows it.
    _ = keys(&state, "4g")
    wheel(layout.queue, .wheelDown)
    #expect(state.queueSelection == 3)
    #expect(state.viewer.exchange == state.exchanges[3].id)
    wheel(layout.queue, .wheelUp)
    #expect(state.queueSelection == 0)
    // Response: the body scrolls (exchange 1, 60 lines, is at the bottom of the queue).
    _ = keys(&state, "G")
    wheel(layout.response, .wheelDown)
    #expect(state.viewer.scroll == 3)
    wheel(layout.response, .wheelUp)
    #expect(state.viewer.scroll == 0)
    #expect(state.focus == .queue)  // the wheel does not move the focus
  }

  @Test func aClickInTheEditorSelectsAField() throws {
    var state = try demoState()
    let layout = state.layoutForTest
    // Row 0 inside the border is the resolved URL; fields start on the row below it.
    send(&state, .mouse(MouseEvent(x: layout.editor.x + 4, y: layout.editor.y + 4, kind: .press)))
    #expect(state.focus == .editor)
    #expect(state.editorField == 2)
    send(&state, .mouse(MouseEvent(x: layout.editor.x + 4, y: layout.editor.y + 1, kind: .press)))
    #expect(state.editorField == 2)  // the URL line is not a field
  }

  @Test func enterInTheQueueShowsTheExchange() throws {
    var state = try answered("first")
    for msg in exchangeEvents(id: 2, request: request, body: "second", contentType: "text/plain") { send(&state, msg) }
    _ = keys(&state, "4G")  // the oldest: exchange 1
    send(&state, .key(.enter))
    #expect(state.focus == .response)
    #expect(state.viewer.exchange == ExchangeID(rawValue: 1))
    #expect(state.viewer.document?.line(0) == "first")
  }

  @Test func sAndRInTheResponseSendTheShownRequestAgain() throws {
    var state = try answered("x")
    _ = keys(&state, "3")
    for key in ["s", "r"] {
      guard case .send(let again)? = keys(&state, key).first else {
        Issue.record("\(key) did not send")
        continue
      }
      #expect(again.name == "users/list")
      #expect(state.message?.text == "sent users/list again")
    }
  }

  @Test func rResendsAFailedRequest() throws {
    var state = try demoState()
    let missing = Request(name: "users/missing", url: "http://127.0.0.1:8080/users/99")
    for msg in exchangeEvents(
      id: 1, request: missing, status: 404, body: "{}", state: .failed, error: .status(404, accepted: Validation()))
    {
      send(&state, msg)
    }
    _ = keys(&state, "4")
    let commands = keys(&state, "r")
    guard case .send(let again)? = commands.first, commands.count == 1 else {
      Issue.record("r did not send: \(commands)")
      return
    }
    #expect(again.name == "users/missing" && again.download == nil)
    #expect(again.url == "http://127.0.0.1:8080/users/99")
    #expect(state.message?.text == "sent users/missing again")
    // The viewer follows the new exchange once it is queued.
    send(&state, .agent(.queued(ExchangeID(rawValue: 2), again)))
    #expect(state.viewer.exchange == ExchangeID(rawValue: 2))
  }

  @Test func ticksDriveElapsedTimes() throws {
    var state = try demoState()
    let id = ExchangeID(rawValue: 1)
    send(&state, .tick(epoch), .agent(.queued(id, request)), .agent(.started(id, attempt: 1)))
    #expect(state.exchanges[0].startedAt == epoch)
    send(&state, .tick(epoch.addingTimeInterval(1.5)))
    #expect(state.now == epoch.addingTimeInterval(1.5))
    var buffer = ScreenBuffer(width: 160, height: 45)
    view(state, into: &buffer)
    #expect(buffer.text.contains("1.50 s"))
  }

  @Test func anEarlyDeliveredResponseIsShownUntilTheFreshOne() throws {
    var state = try demoState()
    send(&state, .key(.enter))
    let id = ExchangeID(rawValue: 1)
    send(&state, .agent(.queued(id, request)), .agent(.started(id, attempt: 1)))
    var events = exchangeEvents(id: 1, request: request, body: #"{"cached": true}"#)
    guard case .agent(.finished(var early)) = events[3] else {
      Issue.record("the exchange's fourth event is not its result: \(events[3])")
      return
    }
    early.fromCache = true
    send(&state, .agent(.delivered(early)))
    #expect(state.exchanges[0].state == .running)  // still waiting for the network
    #expect(state.exchanges[0].status == 200)
    #expect(state.viewer.document?.line(1).contains("cached") == true)
    events = exchangeEvents(id: 1, request: request, body: #"{"fresh": true}"#)
    send(&state, events[3])
    #expect(state.exchanges[0].state == .succeeded)
    #expect(state.viewer.document?.line(1).contains("fresh") == true)
  }

  @Test func bodyWrittenReportsWhereOrWhy() throws {
    var state = try demoState()
    send(&state, .bodyWritten(path: "/tmp/out.json", error: nil))
    #expect(state.message == StatusMessage("body written to /tmp/out.json"))
    send(&state, .bodyWritten(path: "/tmp/out/orders.json", error: nil, madeFolder: "/tmp/out"))
    #expect(state.message == StatusMessage("body written to /tmp/out/orders.json (made the folder /tmp/out)"))
    send(&state, .bodyWritten(path: "/nope/out.json", error: "No such file or directory"))
    #expect(
      state.message
        == StatusMessage("cannot write /nope/out.json: No such file or directory; choose another path", isError: true))
  }

  /// "cancelling everything" and "resuming X from …" stand for transfers still going: when they
  /// end, their outcome takes the message's place.
  @Test func transientMessagesGiveWayToTheOutcome() throws {
    var state = try demoState()
    let slow = Request(name: "slow", url: "http://127.0.0.1:8080/slow")
    for n in 1...2 {
      let id = ExchangeID(rawValue: UInt64(n))
      send(&state, .agent(.queued(id, slow)), .agent(.started(id, attempt: 1)))
    }
    _ = keys(&state, "C")
    #expect(state.message == StatusMessage("cancelling everything"))
    for n in 1...2 {
      let result = ExchangeResult(
        id: ExchangeID(rawValue: UInt64(n)), request: slow, state: .cancelled, response: nil, error: .cancelled,
        queuedAt: epoch, startedAt: epoch, finishedAt: epoch)
      send(&state, .agent(.finished(result)))
      #expect(state.message?.text == (n == 1 ? "cancelling everything" : "cancelled everything: 2 exchanges cancelled"))
    }

    // A resumed download: its outcome replaces "resuming …".
    let big = Request(name: "files/big", url: "http://127.0.0.1:8080/bytes/100", download: DownloadTarget(path: "/w/big.bin"))
    let first = ExchangeID(rawValue: 3)
    send(&state, .agent(.queued(first, big)), .agent(.started(first, attempt: 1)))
    send(&state, .agent(.finished(ExchangeResult(
      id: first, request: big, state: .cancelled, response: nil, error: .cancelled, queuedAt: epoch, startedAt: epoch,
      finishedAt: epoch, download: DownloadOutcome(
        file: "/w/big.bin", bytes: 53, totalBytes: 100, resumedFrom: 0, restartReason: nil, resumable: true, complete: false)))))
    _ = keys(&state, "4g")
    #expect(keys(&state, "r").count == 1)
    #expect(state.message?.text.hasPrefix("resuming files/big from 53 B") == true)
    let again = ExchangeID(rawValue: 4)
    send(&state, .agent(.queued(again, big)), .agent(.started(again, attempt: 1)))
    send(&state, .agent(.finished(ExchangeResult(
      id: again, request: big, state: .succeeded, response: nil, error: nil, queuedAt: epoch, startedAt: epoch,
      finishedAt: epoch, download: DownloadOutcome(
        file: "/w/big.bin", bytes: 100, totalBytes: 100, resumedFrom: 53, restartReason: nil, resumable: false, complete: true)))))
    #expect(state.message == StatusMessage("files/big: saved to /w/big.bin (100 B)"))
  }

  /// A cancelled exchange's timing tab says why there is none; a connection refused says what to
  /// try.
  @Test func failuresBeforeAResponseSayWhatHappened() throws {
    var state = try demoState()
    send(&state, .key(.enter))
    let request = Request(name: "users/list", url: "http://127.0.0.1:9/users")
    let id = ExchangeID(rawValue: 1)
    send(&state, .agent(.queued(id, request)), .agent(.started(id, attempt: 1)))
    send(&state, .agent(.finished(ExchangeResult(
      id: id, request: request, state: .failed, response: nil,
      error: .transport(.cannotConnect, detail: "Failed to connect to 127.0.0.1 port 9"), queuedAt: epoch,
      startedAt: epoch, finishedAt: epoch))))
    _ = keys(&state, "3")
    var buffer = ScreenBuffer(width: 160, height: 45)
    view(state, into: &buffer)
    #expect(buffer.text.contains("no response: cannot connect: Failed to connect to 127.0.0.1 port 9"))
    #expect(buffer.text.contains("is the server at 127.0.0.1:9 running?"))
    #expect(buffer.text.contains("r re-sends"))
    // Cancelled: the timing tab says so.
    let again = ExchangeID(rawValue: 2)
    send(&state, .agent(.queued(again, request)), .agent(.started(again, attempt: 1)))
    send(&state, .agent(.finished(ExchangeResult(
      id: again, request: request, state: .cancelled, response: nil, error: .cancelled, queuedAt: epoch,
      startedAt: epoch, finishedAt: epoch))))
    _ = keys(&state, "4g3")
    state.viewer.tab = .timing
    view(state, into: &buffer)
    #expect(buffer.text.contains("cancelled before a response"))
    #expect(!buffer.text.contains("no timing yet"))
  }

  @Test func errorFormsOfSavedEditorAndHistory() throws {
    var state = try demoState()
    _ = keys(&state, "2jje")
    _ = keys(&state, "x")
    send(&state, .key(.enter))
    #expect(!state.unsaved.isEmpty)
    send(&state, .saved(error: "Permission denied"))
    #expect(state.message == StatusMessage("not saved: Permission denied", isError: true))
    #expect(!state.unsaved.isEmpty)  // still unsaved
    let body = state.selectedRequest?.body
    send(&state, .editorFinished(nil, error: "vi exited with status 1"))
    #expect(state.message?.isError == true)
    #expect(state.message?.text.hasPrefix("$EDITOR failed: vi exited with status 1") == true)
    #expect(state.selectedRequest?.body == body)
    send(&state, .editorFinished(nil, error: nil))
    #expect(state.message == StatusMessage("body unchanged"))
    send(&state, .historyShown(nil, error: "cannot read entry: corrupt"))
    #expect(state.message == StatusMessage("history: cannot read entry: corrupt", isError: true))
    #expect(state.viewer.history == nil)
    _ = keys(&state, "3[")
    send(&state, .historyShown(nil, error: nil))
    #expect(state.message?.text == "no history for this request yet")
  }

  @Test func jqErrorsAreOneCleanLine() throws {
    var raw = ""
    do {
      _ = try JQ.run(".[", input: Array("[1]".utf8))
    } catch {
      raw = error.message
    }
    #expect(!raw.isEmpty)
    let line = Formatting.jqError(raw)
    #expect(line.hasPrefix("jq: error: "), "\(line)")
    #expect(!line.hasPrefix("jq: jq:"))
    #expect(!line.contains("Unix shell quoting"))
    #expect(!line.contains("\n") && !line.contains("\\n"))
    #expect(!line.contains("<top-level>"))
    // libjq 1.6 says `unexpected $end`, 1.7 `unexpected end of file`, and may add a column.
    #expect(line.hasPrefix("jq: error: syntax error, unexpected end of "), "\(raw.debugDescription)")
    #expect(line.contains(" at line 1"))
    var state = try answered("[1]", contentType: "application/json")
    state.viewer.filterRunning = ".["
    send(&state, .filtered(expression: ".[", result: .failure(FilterError(raw))))
    #expect(state.prompt?.error == line)
  }

  @Test func slashInTheQueueSaysWhereItWorks() throws {
    var state = try demoState()
    _ = keys(&state, "4/")
    #expect(state.prompt == nil)
    #expect(state.message?.text.contains("/ filters the request list (1)") == true)
  }
}

@Suite("update: quitting")
struct QuitTests {
  @Test func unsavedEditsAskBeforeQuitting() throws {
    var state = try demoState()
    _ = keys(&state, "2jje")
    _ = keys(&state, "x")
    send(&state, .key(.enter))
    #expect(keys(&state, "q") == [])
    #expect(state.overlay == .unsavedChanges)
    var buffer = ScreenBuffer(width: 160, height: 45)
    view(state, into: &buffer)
    #expect(buffer.text.contains("1 request has unsaved changes: users/list"))
    // Esc stays.
    send(&state, .key(.escape))
    #expect(state.overlay == nil)
    #expect(state.message?.text == "not quitting; Ctrl-S saves the workspace")
    // s saves, and quits once the save succeeded.
    _ = keys(&state, "q")
    #expect(keys(&state, "s") == [.save])
    #expect(send(&state, .saved(error: nil)) == [.quit])
    // A failed save does not quit (another request's URL edited: it starts at its first field).
    _ = keys(&state, "1j2jje")
    _ = keys(&state, "y")
    send(&state, .key(.enter))
    _ = keys(&state, "q")
    _ = keys(&state, "s")
    #expect(send(&state, .saved(error: "disk full")) == [])
    #expect(state.message?.isError == true)
    // d discards and quits; so does Ctrl-C.
    _ = keys(&state, "q")
    #expect(keys(&state, "d") == [.quit])
    _ = keys(&state, "q")
    #expect(send(&state, .key(.ctrl("c"))) == [.quit])
    // Without edits, q quits at once.
    send(&state, .saved(error: nil))
    #expect(keys(&state, "q") == [.quit])
  }

  @Test func aSecondCtrlCOnTheQuitDialogQuits() throws {
    var state = try demoState(width: 80, height: 24)
    send(&state, .agent(.queued(ExchangeID(rawValue: 1), Request(name: "x", url: "http://h.test/"))))
    #expect(send(&state, .key(.ctrl("c"))) == [])
    #expect(state.overlay == .confirmQuit)
    var buffer = ScreenBuffer(width: 80, height: 24)
    view(state, into: &buffer)
    #expect(buffer.text.contains("1 transfer is still running. Cancel it and quit? (y/n)"))
    #expect(send(&state, .key(.ctrl("c"))) == [.cancelAll, .quit])
    send(&state, .agent(.queued(ExchangeID(rawValue: 2), Request(name: "y", url: "http://h.test/"))))
    _ = keys(&state, "q")
    view(state, into: &buffer)
    #expect(buffer.text.contains("2 transfers are still running. Cancel them and quit? (y/n)"))
  }

  @Test func transfersThenUnsavedEdits() throws {
    var state = try demoState()
    _ = keys(&state, "2jje")
    _ = keys(&state, "x")
    send(&state, .key(.enter))
    send(&state, .agent(.queued(ExchangeID(rawValue: 1), Request(name: "x", url: "http://h.test/"))))
    _ = keys(&state, "q")
    #expect(state.overlay == .confirmQuit)
    #expect(keys(&state, "y") == [.cancelAll])
    #expect(state.overlay == .unsavedChanges)
    #expect(keys(&state, "d") == [.quit])
  }
}
