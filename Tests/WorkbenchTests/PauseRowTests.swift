import Foundation
import RequestEngine
import TerminalUI
import Testing

@testable import Workbench

/// `p` in the queue: pause a queued or running exchange, let it go on; the row says
/// `paused` once the agent did it, and rows that cannot be paused say why.
@Suite struct PauseRowTests {
  func queueLine(_ state: AppState, _ name: String) -> String {
    var buffer = ScreenBuffer(width: state.width, height: state.height)
    view(state, into: &buffer)
    return buffer.text.split(separator: "\n").map(String.init).last { $0.contains(name) && $0.contains("GET") } ?? ""
  }

  @Test func pKeyPausesAndResumesTheSelectedExchange() throws {
    var state = try demoState()
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    let id = ExchangeID(rawValue: 1)
    send(&state, .agent(.queued(id, request)), .agent(.started(id, attempt: 1)))
    _ = keys(&state, "4")
    #expect(keys(&state, "p") == [.pause(id)])
    // The row changes when the agent says so, not when the key is pressed.
    #expect(!state.exchanges[0].paused)
    #expect(queueLine(state, "users/list").contains("running"))
    send(&state, .agent(.paused(id)))
    #expect(queueLine(state, "users/list").contains("paused"), "\(queueLine(state, "users/list"))")
    try assertSnapshot(state, "queue-paused")
    #expect(keys(&state, "p") == [.resume(id)])
    send(&state, .agent(.resumed(id)))
    #expect(queueLine(state, "users/list").contains("running"))
    // A paused transfer that fails waits to retry like any other.
    send(&state, .agent(.paused(id)))
    send(&state, .agent(.retrying(id, attempt: 2, delay: 1, reason: .status(503, accepted: Validation()))))
    #expect(!state.exchanges[0].paused)
    #expect(queueLine(state, "users/list").contains("retrying 2"))
    #expect(keys(&state, "p") == [])
    #expect(state.message?.text.contains("waits to connect again") == true)
  }

  @Test func endedAndWaitingRowsAreNotPausedAndSayWhy() throws {
    var state = try demoState()
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    let primary = ExchangeID(rawValue: 1)
    let waiter = ExchangeID(rawValue: 2)
    send(&state, .agent(.queued(primary, request)), .agent(.started(primary, attempt: 1)))
    send(&state, .agent(.queued(waiter, request)), .agent(.joined(waiter, primary: primary)))
    _ = keys(&state, "4")
    state.selectQueueLine(.exchange(waiter))
    #expect(keys(&state, "p") == [])
    #expect(state.message?.text.contains("identical request") == true)
    // A paused primary's waiters show paused too (the agent sends `paused` for each) and end with it.
    send(&state, .agent(.paused(primary)), .agent(.paused(waiter)))
    #expect(state.exchanges.allSatisfy { $0.paused })
    let result = ExchangeResult(
      id: primary, request: request, state: .succeeded, response: nil, error: nil, attempts: 1,
      queuedAt: epoch, startedAt: epoch, finishedAt: epoch)
    send(&state, .agent(.finished(result)))
    #expect(state.exchanges.first { $0.id == primary }?.paused == false)
    state.selectQueueLine(.exchange(primary))
    #expect(keys(&state, "p") == [])
    #expect(state.message?.text.contains("already succeeded") == true)
  }
}
