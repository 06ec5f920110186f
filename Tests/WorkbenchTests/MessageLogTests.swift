import Foundation
import RequestEngine
import TerminalUI
import Testing
@testable import Workbench

/// Status messages are read whole: a long one takes the line above the status line (its end,
/// what to do, kept when even two lines are short), and `M` lists the last ones.
@Suite("update and view: long messages and the message log")
struct MessageLogTests {
  func lines(_ state: AppState) -> [String] {
    var buffer = ScreenBuffer(width: state.width, height: state.height)
    view(state, into: &buffer)
    return buffer.lines()
  }

  @Test func aLongMessageTakesTheLineAboveAndEndsWithWhatToDo() throws {
    var state = try demoState(width: 120, height: 30)
    let text = "the body is not valid JSON (line 4, column 11: expected a value after the colon of \"name\"); "
      + "press E to edit it again or Esc to keep the text as it is"
    state.message = StatusMessage(text, isError: true)
    let shown = lines(state)
    let bottom = shown[shown.count - 1]
    let above = shown[shown.count - 2]
    #expect(bottom.hasSuffix("Esc to keep the text as it is") || bottom.contains("Esc to keep the text as it is"), "\(bottom)")
    #expect(above.contains("the body is not valid JSON (line 4, column 11:"), "\(above)")
    // Every word of the message is on the two lines.
    let both = above + " " + bottom
    for word in text.split(separator: " ") { #expect(both.contains(word), "\(word) is missing") }
  }

  @Test func twoRowsKeepTheEndWhenTheMiddleMustGo() {
    let text = "one two three four five six seven eight nine ten eleven twelve: press q to quit"
    let (top, bottom) = Painter.twoRows(text, top: 20, bottom: 20)
    #expect(bottom == "press q to quit" || bottom.hasSuffix("press q to quit"))
    #expect(top.hasSuffix("…") && TextWidth.of(top) <= 20)
    #expect(Painter.twoRows("short", top: 20, bottom: 20) == ("short", ""))
    #expect(Painter.twoRows("aaaa bbbb cccc", top: 9, bottom: 9) == ("aaaa bbbb", "cccc"))
  }

  @Test func mListsTheLastMessagesNewestFirstAndAnyOtherKeyCloses() throws {
    var state = try demoState(width: 120, height: 30)
    #expect(keys(&state, "M") == [])
    #expect(state.overlay == .messages)
    #expect(lines(state).contains { $0.contains("no messages yet") })
    _ = keys(&state, "q")
    #expect(state.overlay == nil)
    state.message = StatusMessage("no messages yet")
    for n in 1...3 { state.message = StatusMessage("message \(n)") }
    state.message = StatusMessage("it failed", isError: true)
    _ = keys(&state, "M")
    #expect(state.overlay == .messages)
    let shown = lines(state)
    let order = ["it failed", "message 3", "message 2", "message 1", "no messages yet"].map { text in
      shown.firstIndex { $0.contains(text) } ?? -1
    }
    #expect(order == order.sorted() && !order.contains(-1), "\(order)")
    #expect(shown.contains { $0.contains("✗ it failed") })
    #expect(shown.contains { $0.contains("Messages 5, newest first · j k scroll · other keys close") })
    _ = keys(&state, "x")
    #expect(state.overlay == nil)
  }

  @Test func aFailedExchangeSaysItsReasonWholeInTheResponsePane() throws {
    var state = try demoState(width: 80, height: 24)
    send(&state, .key(.enter))
    let request = Request(name: "users/list", url: "http://127.0.0.1:1/users")
    let id = ExchangeID(rawValue: 1)
    let error = ExchangeError.transport(.cannotConnect, detail: "Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server")
    let result = ExchangeResult(
      id: id, request: request, state: .failed, response: nil, error: error, attempts: 1,
      queuedAt: Date(timeIntervalSince1970: 0), startedAt: Date(timeIntervalSince1970: 0), finishedAt: Date(timeIntervalSince1970: 0.01))
    send(&state, .agent(.queued(id, request)), .agent(.started(id, attempt: 1)), .agent(.finished(result)))
    let text = lines(state).joined(separator: " ").replacingOccurrences(of: "│", with: " ")
    let squeezed = text.split(separator: " ").joined(separator: " ")
    #expect(squeezed.contains("Couldn't connect to server"), "\(squeezed)")
  }
}
