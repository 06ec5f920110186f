import RequestEngine
import Testing

@testable import Flows
@testable import Workspace
import WorkspaceTestSupport

/// A batch's rules against `BatchProgress` alone: no agent, no servers, no sleeps. (The
/// fixture-backed FlowRunnerTests prove the runner does what it answers on the wire.)
@Suite("BatchProgress: the batch rules")
struct BatchProgressTests {
  func progress(_ count: Int, _ policy: Batch.Policy = .failFast) -> BatchProgress {
    let batch = Batch(name: "b", members: (0..<count).map { "m\($0)" }, policy: policy)
    return BatchProgress(batch: batch, kinds: Array(repeating: .request, count: count))
  }

  func outcome(_ index: Int, _ state: ExchangeState, _ message: String? = nil) -> FlowOutcome {
    var outcome = FlowOutcome(kind: .request, name: "m\(index)", state: state)
    outcome.message = message
    return outcome
  }

  @Test func successesGiveOneSuccessAfterTheLast() {
    var p = progress(3)
    for i in 0..<3 {
      let started = p.start(i)
      #expect(started)
    }
    for i in 0..<2 {
      let ended = p.memberEnded(i, outcome(i, .succeeded))
      #expect(ended == (false, i + 1))
      let settled1 = p.settle(runCancelled: false)
      #expect(settled1 == nil)
    }
    _ = p.memberEnded(2, outcome(2, .succeeded))
    let result = p.settle(runCancelled: false)
    #expect(result?.state == .succeeded)
    #expect(result?.members.map(\.name) == ["m0", "m1", "m2"])
    let settled2 = p.settle(runCancelled: false)
    #expect(settled2 == nil)  // once
  }

  // Fail fast: the first failure cancels the others, one batch failure naming it,
  // even when a second fails at the same moment; members never started end "not started".
  @Test func failFastCancelsTheOthersAndNamesTheFirstFailure() {
    var p = progress(5)
    for i in 0..<3 {
      let started1 = p.start(i)
      #expect(started1)  // two more wait for a slot
    }
    let ended1 = p.memberEnded(1, outcome(1, .failed, "m1: status 500"))
    #expect(ended1 == (true, 1))
    let started2 = p.start(3)
    #expect(!started2)  // nothing more starts
    let settled = p.settle(runCancelled: false)
    #expect(settled == nil)  // m0 and m2 still end (cancelled)
    let ended2 = p.memberEnded(2, outcome(2, .failed, "status 502"))
    #expect(ended2.cancelOthers == false)  // only the first cancels
    _ = p.memberEnded(0, outcome(0, .cancelled))
    let result = p.settle(runCancelled: false)
    #expect(result?.state == .failed)
    #expect(result?.message == "m1 failed: status 500")
    #expect(result?.members.map(\.state) == [.cancelled, .failed, .failed, .cancelled, .cancelled])
    #expect(result?.members[3].message == "not started")
  }

  // All settled: every member runs; the message counts the failures and names the first.
  @Test func allSettledRunsEveryMember() {
    var p = progress(4, .allSettled)
    for i in 0..<4 {
      let started1 = p.start(i)
      #expect(started1)
    }
    let ended = p.memberEnded(2, outcome(2, .failed, "boom"))
    #expect(ended.cancelOthers == false)
    let started2 = p.start(3)
    #expect(started2)
    _ = p.memberEnded(0, outcome(0, .succeeded))
    _ = p.memberEnded(1, outcome(1, .failed, "bang"))
    let settled = p.settle(runCancelled: false)
    #expect(settled == nil)
    _ = p.memberEnded(3, outcome(3, .cancelled))
    let result = p.settle(runCancelled: false)
    #expect(result?.state == .failed)
    #expect(result?.message == "2 of 4 failed, first m2: boom")
  }

  // A cancelled run: members not started end cancelled, the batch is cancelled.
  @Test func aCancelledRunEndsTheRestNotStarted() {
    var p = progress(3)
    let started = p.start(0)
    #expect(started)
    _ = p.memberEnded(0, outcome(0, .cancelled))
    let result = p.settle(runCancelled: true)
    #expect(result?.state == .cancelled)
    #expect(result?.members.map(\.message) == [nil, "not started", "not started"])
  }
}
