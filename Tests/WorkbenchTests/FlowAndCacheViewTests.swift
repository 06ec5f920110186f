import Flows
import Foundation
import RequestEngine
import TerminalUI
import TestSupport
import Testing
import Workbench
import Workspace

// The TUI's update for cached and de-duplicated exchanges, batches and chains in the list and
// the queue (their rows, progress, cancel and resume).
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
    guard case .send(let normal)? = keys(&state, "s").first else {
      Issue.record("expected s to send")
      return
    }
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
    } else {
      Issue.record("the exchange's fourth event is not its result: \(events[3])")
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
