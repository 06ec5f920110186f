import Foundation
import RequestEngine
import Testing
import Workbench
import Workspace

/// `x` tidies the queue: the finished rows go, runs included; what is running stays.
@Suite("update: x tidies the queue")
struct QueueTidyTests {
  let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")

  @Test func finishedRowsAndRunsGoWhatRunsStays() throws {
    var state = try demoState()
    // 1 and 2 succeed, 3 fails, 4 is still running; a finished chain run and a running batch.
    for id in 1...2 { for msg in exchangeEvents(id: UInt64(id), request: request) { send(&state, msg) } }
    for msg in exchangeEvents(id: 3, request: request, status: 500, state: .failed) { send(&state, msg) }
    send(&state, .agent(.queued(ExchangeID(rawValue: 4), request)), .agent(.started(ExchangeID(rawValue: 4), attempt: 1)))
    send(&state, .flowStarted(run: "c1", name: "login-flow", kind: .chain))
    send(&state, .flow(run: "c1", .finished(FlowOutcome(kind: .chain, name: "login-flow", state: .succeeded))))
    send(&state, .flowStarted(run: "b1", name: "smoke", kind: .batch))
    // The queue shows exchange 1 in the response pane, selected on the finished chain run.
    _ = keys(&state, "4")
    state.queueSelection = 3
    send(&state, .key(.enter))
    #expect(state.viewer.exchange == ExchangeID(rawValue: 1))
    _ = keys(&state, "4")  // Enter showed it in the response pane, focused
    state.queueFlowSelection = .flow(run: "c1")
    #expect(state.keyContext == .queueRun)
    _ = keys(&state, "x")
    #expect(state.flows.map(\.run) == ["b1"])
    #expect(state.exchanges.map(\.id.rawValue) == [4, 1])  // running, and the one shown
    #expect(state.message?.text == "removed 3 finished rows; kept the one the response pane shows")
    #expect(state.queueFlowSelection == .flow(run: "b1"))  // the first line left
    try assertSnapshot(state, "tidied-160x45")
    // Once the running one ends and another is shown, x takes the rest.
    let cancelled = ExchangeResult(
      id: ExchangeID(rawValue: 4), request: request, state: .cancelled, response: nil, error: nil, queuedAt: epoch,
      startedAt: epoch, finishedAt: epoch)
    send(&state, .agent(.finished(cancelled)))
    send(&state, .flow(run: "b1", .finished(FlowOutcome(kind: .batch, name: "smoke", state: .succeeded))))
    state.queueSelection = 0
    send(&state, .key(.enter))
    _ = keys(&state, "4x")
    #expect(state.flows.isEmpty && state.exchanges.map(\.id.rawValue) == [4])
    _ = keys(&state, "x")
    #expect(state.message?.text == "nothing to tidy: every row is running or queued")
  }
}
