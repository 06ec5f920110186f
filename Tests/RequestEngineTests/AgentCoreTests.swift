import RequestEngine
import Testing

/// The scheduling rules, against `AgentCore` alone: no curl, no servers, no sleeps; time is a
/// number the test passes in. (The server-backed suites — AgentSchedulingTests, DedupTests,
/// RetryAndRedirectTests — prove curl really does what the core decides, one test a behaviour.)
@Suite("AgentCore: the scheduling rules")
struct AgentCoreTests {
  /// A core and the ids it was given, in order.
  struct Harness {
    var core: AgentCore
    var next: UInt64 = 0

    init(maxConcurrent: Int = 8, maxPerHost: Int = 6) {
      core = AgentCore(limits: .init(maxConcurrent: maxConcurrent, maxPerHost: maxPerHost))
    }

    @discardableResult
    mutating func send(
      _ priority: Priority = .normal, host: String = "a", limit: GroupLimit? = nil, group: String? = nil,
      key: String? = nil, token: Bool = false, idle: Double = 0
    ) -> ExchangeID {
      next += 1
      let id = ExchangeID(rawValue: next)
      _ = core.send(
        AgentCore.Job(
          id: id, priority: priority, host: host, limit: limit, group: group, dedupKey: key.map { .of("/" + $0) }, needsToken: token,
          idleTimeout: idle))
      return id
    }

    mutating func schedule() -> [ExchangeID] { core.schedule().map(\.id) }
  }

  private func id(_ raw: UInt64) -> ExchangeID { ExchangeID(rawValue: raw) }

  @Test func higherPriorityFirstThenFirstComeFirstServed() {
    var h = Harness(maxConcurrent: 1)
    let a = h.send(.normal)
    #expect(h.schedule() == [a])
    let b = h.send(.low)
    let c = h.send(.high)
    let d = h.send(.normal)
    #expect(h.core.queued == [c, d, b])
    var previous = a
    for expected in [c, d, b] {
      #expect(h.core.finish(previous) == [previous])
      #expect(h.schedule() == [expected])
      previous = expected
    }
    _ = h.core.finish(previous)
    #expect(h.core.live == 0)
  }

  @Test func theGlobalLimitCapsRunningTransfers() {
    var h = Harness(maxConcurrent: 2)
    let ids = (0..<5).map { _ in h.send() }
    #expect(h.schedule() == Array(ids[0..<2]))
    #expect(h.core.counts == (queued: 3, running: 2))
    #expect(h.schedule().isEmpty)
    #expect(h.core.finish(ids[0]) == [ids[0]])
    #expect(h.schedule() == [ids[2]])
  }

  @Test func aFullHostDoesNotHoldUpAnother() {
    var h = Harness(maxConcurrent: 4, maxPerHost: 1)
    let x1 = h.send(host: "x")
    let x2 = h.send(host: "x")
    let y = h.send(host: "y")
    #expect(h.schedule() == [x1, y])
    #expect(h.core.runningPerHost == ["x": 1, "y": 1])
    #expect(!h.core.canStart(x2))
    _ = h.core.finish(x1)
    #expect(h.schedule() == [x2])
  }

  @Test func aGroupLimitCapsItsRequestsOnly() {
    var h = Harness(maxConcurrent: 8)
    let g = GroupLimit(name: "uploads", max: 1)
    let u1 = h.send(host: "a", limit: g)
    let u2 = h.send(host: "b", limit: g)
    let other = h.send(host: "c")
    #expect(h.schedule() == [u1, other])
    #expect(h.core.runningPerGroup == ["uploads": 1])
    _ = h.core.finish(u1)
    #expect(h.schedule() == [u2])
  }

  @Test func identicalRequestsJoinTheOneInFlightAndEndWithIt() {
    var h = Harness()
    let primary = h.send(key: "GET /x")
    let waiter = h.send(key: "GET /x")
    let unrelated = h.send(key: "GET /y")
    #expect(h.core.phase(of: waiter) == .joined(primary: primary))
    #expect(h.schedule() == [primary, unrelated])
    #expect(h.core.members(of: primary) == [primary, waiter])
    #expect(h.core.attempts(of: waiter) == 1)
    #expect(h.core.finish(primary) == [primary, waiter])
    #expect(h.core.phase(of: waiter) == nil)
    // Once the primary ended, the same request goes to the network again.
    let again = h.send(key: "GET /x")
    #expect(h.core.phase(of: again) == .queued)
  }

  @Test func aWaiterThatLeavesLeavesAlone() {
    var h = Harness()
    let primary = h.send(key: "k")
    let w1 = h.send(key: "k")
    let w2 = h.send(key: "k")
    _ = h.schedule()
    #expect(h.core.cancel(w1) == [.left(w1, primary: primary), .cancelled(w1)])
    #expect(h.core.members(of: primary) == [primary, w2])
    #expect(h.core.counts.running == 1)
    #expect(h.core.finish(primary) == [primary, w2])
  }

  @Test func cancellingTheOneOthersWaitOnHandsItsTransferOver() {
    var h = Harness(maxConcurrent: 1)
    let primary = h.send(key: "k")
    let w1 = h.send(key: "k")
    let w2 = h.send(key: "k")
    _ = h.schedule()
    #expect(h.core.cancel(primary) == [.handOver(from: primary, to: w1), .cancelled(primary)])
    #expect(h.core.phase(of: w1) == .running(attempt: 1, slot: .init(host: "a", group: nil)))
    #expect(h.core.phase(of: w2) == .joined(primary: w1))
    #expect(h.core.counts == (queued: 0, running: 1))
    // A new identical send joins the heir.
    let w3 = h.send(key: "k")
    #expect(h.core.phase(of: w3) == .joined(primary: w1))
    #expect(h.core.finish(w1) == [w1, w2, w3])
    #expect(h.core.counts == (queued: 0, running: 0))
  }

  @Test func aHandOverInTheQueueKeepsThePlace() {
    var h = Harness(maxConcurrent: 1)
    let first = h.send()
    let primary = h.send(key: "k")
    let waiter = h.send(key: "k")
    let later = h.send()
    #expect(h.schedule() == [first])
    #expect(h.core.cancel(primary) == [.handOver(from: primary, to: waiter), .cancelled(primary)])
    #expect(h.core.queued == [waiter, later])
  }

  @Test func aRetryWaitsOffTheSlotsUntilItsTime() {
    var h = Harness(maxConcurrent: 1)
    let a = h.send()
    let b = h.send()
    _ = h.schedule()
    h.core.retry(a, after: 2, now: 10)
    #expect(h.core.phase(of: a) == .retryWait(until: 12, attempt: 1))
    #expect(h.core.counts == (queued: 2, running: 0))
    #expect(h.core.nextTimer == 12)
    // The slot it gave back goes to the next in the queue.
    #expect(h.schedule() == [b])
    h.core.tick(now: 11.999)
    #expect(h.core.phase(of: a) == .retryWait(until: 12, attempt: 1))
    h.core.tick(now: 12)
    #expect(h.core.phase(of: a) == .queued)
    #expect(h.core.nextTimer == nil)
    #expect(h.schedule().isEmpty)
    _ = h.core.finish(b)
    #expect(h.core.schedule().map(\.attempt) == [2])
  }

  @Test func retryWaitsEndInTheOrderTheyAreDue() {
    var h = Harness(maxConcurrent: 1)
    let a = h.send()
    let b = h.send(.high)
    _ = h.schedule()  // b
    _ = h.core.finish(b)
    _ = h.schedule()  // a
    h.core.retry(a, after: 5, now: 0)
    let c = h.send(.low)
    _ = h.schedule()  // c
    h.core.retry(c, after: 1, now: 0)
    h.core.tick(now: 6)
    // Both due: the queue orders them by priority, not by when they were due.
    #expect(h.core.queued == [a, c])
  }

  @Test func theThrottleWindowRefusesRepeats() {
    var core = AgentCore(limits: .init(maxConcurrent: 1, maxPerHost: 1))
    #expect(core.admit(key: .of("/x"), window: 1, now: 0) == nil)
    #expect(core.admit(key: .of("/x"), window: 1, now: 0.5) == 0.5)
    #expect(core.admit(key: .of("/y"), window: 1, now: 0.5) == nil)
    #expect(core.admit(key: .of("/x"), window: 1, now: 1) == nil)
    #expect(core.admit(key: .of("/x"), window: 1, now: 1.25) == 0.25)
    #expect(core.admit(key: .of("/x"), window: 0, now: 1.25) == nil)
  }

  @Test func aCredentialComesBeforeTheQueueAndAgainAfterARefusal() {
    var h = Harness()
    let a = h.send(token: true)
    #expect(h.core.phase(of: a) == .waitingForToken)
    #expect(h.schedule().isEmpty)
    h.core.tokenArrived(a)
    #expect(h.schedule() == [a])
    h.core.renewToken(a)
    #expect(h.core.phase(of: a) == .waitingForToken)
    #expect(h.core.counts == (queued: 0, running: 0))
    h.core.tokenArrived(a)
    #expect(h.core.schedule().map(\.attempt) == [2])
  }

  @Test func aRestartKeepsTheSlotsAndCountsAnAttempt() {
    var h = Harness(maxConcurrent: 1)
    let a = h.send()
    let b = h.send()
    _ = h.schedule()
    #expect(h.core.restart(a) == 2)
    #expect(h.schedule().isEmpty)
    #expect(h.core.restart(b) == nil)  // not running
  }

  @Test func settlingHoldsNoSlotAndACancelIsTheDriversToStop() {
    var h = Harness(maxConcurrent: 1)
    let a = h.send()
    let b = h.send()
    _ = h.schedule()
    h.core.settle(a)
    #expect(h.core.phase(of: a) == .settling(attempt: 1))
    #expect(h.schedule() == [b])
    #expect(h.core.cancel(a) == [.stopSettling(a)])
    #expect(h.core.phase(of: a) == .settling(attempt: 1))  // until the driver ends it
    #expect(h.core.finish(a) == [a])
  }

  /// A cancel ends an exchange from every phase, once; after it, nothing ends it again.
  @Test(arguments: ["queued", "waitingForToken", "running", "retryWait", "joined"])
  func aCancelEndsEveryPhaseOnce(_ phase: String) {
    var h = Harness()
    let primary = h.send(key: "k")
    var target = primary
    var expected: [AgentCore.Action] = [.cancelled(primary)]
    switch phase {
    case "queued": break
    case "waitingForToken":
      target = h.send(token: true)
      expected = [.cancelled(target)]
    case "running":
      _ = h.schedule()
      expected = [.abort(primary), .cancelled(primary)]
    case "retryWait":
      _ = h.schedule()
      h.core.retry(primary, after: 1, now: 0)
    default:
      target = h.send(key: "k")
      expected = [.left(target, primary: primary), .cancelled(target)]
    }
    #expect(h.core.cancel(target) == expected)
    #expect(h.core.phase(of: target) == nil)
    #expect(h.core.cancel(target).isEmpty)
    #expect(h.core.finish(target).isEmpty)
    if target == primary { #expect(h.core.counts == (queued: 0, running: 0)) }
    #expect(h.core.nextTimer == nil)
  }

  @Test func cancelAGroupOrEverythingInTheOrderSent() {
    var h = Harness(maxConcurrent: 1)
    let a = h.send(group: "batch")
    let b = h.send(group: "other")
    let c = h.send(group: "batch")
    _ = h.schedule()
    #expect(h.core.cancel(group: "batch") == [.abort(a), .cancelled(a), .cancelled(c)])
    #expect(h.core.phase(of: b) == .queued)
    _ = h.schedule()
    let d = h.send(key: "k")
    let e = h.send(key: "k")
    #expect(h.core.cancelAll() == [.abort(b), .cancelled(b), .handOver(from: d, to: e), .cancelled(d), .cancelled(e)])
    #expect(h.core.live == 0)
  }

  @Test func reprioritisingMovesAQueuedExchange() {
    var h = Harness(maxConcurrent: 1)
    _ = h.send()
    let b = h.send()
    let c = h.send()
    _ = h.schedule()
    h.core.reprioritise(c, to: .high)
    #expect(h.core.queued == [c, b])
  }

  @Test func aPausedQueuedExchangeLeavesTheQueueAndComesBackToItsPlace() {
    var h = Harness(maxConcurrent: 1)
    let a = h.send()
    let b = h.send()
    let c = h.send()
    #expect(h.schedule() == [a])
    #expect(h.core.pause(b) == nil)
    #expect(h.core.phase(of: b) == .paused(.held))
    #expect(h.core.queued == [c])
    #expect(h.core.counts == (queued: 2, running: 1))
    _ = h.core.finish(a)
    #expect(h.schedule() == [c])
    #expect(h.core.resume(b) == nil)
    #expect(h.core.queued == [b])
    _ = h.core.finish(c)
    #expect(h.schedule() == [b])
  }

  @Test func aPausedTransferKeepsItsSlot() {
    var h = Harness(maxConcurrent: 1)
    let a = h.send()
    let b = h.send()
    #expect(h.schedule() == [a])
    #expect(h.core.pause(a) == .pauseTransfer(a))
    #expect(h.core.phase(of: a) == .paused(.transfer(attempt: 1, slot: .init(host: "a", group: nil))))
    #expect(h.core.isPaused(a))
    #expect(h.schedule().isEmpty)  // the slot is still a's
    #expect(h.core.pause(a) == nil)  // once
    #expect(h.core.resume(a) == .resumeTransfer(a))
    #expect(h.core.phase(of: a) == .running(attempt: 1, slot: .init(host: "a", group: nil)))
    #expect(h.core.resume(a) == nil)
    _ = h.core.pause(a)
    #expect(h.core.cancel(a) == [.abort(a), .cancelled(a)])
    #expect(h.schedule() == [b])
  }

  @Test func aPausedTransferThatEndsOrRestartsKeepsTheRules() {
    var h = Harness(maxConcurrent: 1)
    let a = h.send()
    let b = h.send()
    #expect(h.schedule() == [a])
    _ = h.core.pause(a)
    // A restarted attempt (a download's bad Range answer) stays paused on the same slot.
    #expect(h.core.restart(a) == 2)
    #expect(h.core.phase(of: a) == .paused(.transfer(attempt: 2, slot: .init(host: "a", group: nil))))
    // A paused transfer that fails waits to retry like any other and gives its slot back.
    h.core.retry(a, after: 1, now: 0)
    #expect(h.core.phase(of: a) == .retryWait(until: 1, attempt: 2))
    #expect(!h.core.isPaused(a))
    #expect(h.schedule() == [b])
  }

  // The idle timeout counts from a transfer's last byte, only while it is on the wire
  // and not paused; the driver keeps the times, the core says who is silent and when to look next.
  @Test func theIdleTimeoutCountsFromTheLastByteOfARunningTransfer() {
    var h = Harness(maxConcurrent: 1)
    let a = h.send(idle: 5)
    let b = h.send(idle: 2)  // queued: never idle, however long it waits
    let c = h.send()  // no idle timeout
    var last: [ExchangeID: Double] = [:]
    func silent(_ now: Double) -> [ExchangeID] { h.core.silent(now: now, lastActivity: { last[$0] }) }
    #expect(h.schedule() == [a])
    last[a] = 0
    #expect(h.core.nextIdleDeadline(lastActivity: { last[$0] }) == 5)
    #expect(silent(4.9).isEmpty)
    last[a] = 3  // a byte at 3 s: a trickle survives
    #expect(silent(7.9).isEmpty)
    #expect(h.core.nextIdleDeadline(lastActivity: { last[$0] }) == 8)
    _ = h.core.pause(a)  // paused: silent because it was asked to be
    #expect(silent(100).isEmpty)
    #expect(h.core.nextIdleDeadline(lastActivity: { last[$0] }) == nil)
    _ = h.core.resume(a)
    last[a] = 100
    #expect(silent(105) == [a])
    // It fails and waits to retry: off the wire, not watched.
    h.core.retry(a, after: 1, now: 105)
    #expect(silent(200).isEmpty)
    #expect(h.schedule() == [b])
    last[b] = 200
    #expect(silent(202) == [b])
    _ = h.core.finish(b)
    #expect(h.schedule() == [c])
    last[c] = 0
    #expect(silent(1_000_000).isEmpty)
    #expect(h.core.nextIdleDeadline(lastActivity: { last[$0] }) == nil)
  }

  @Test func anHeirWatchesTheTransferItTookOver() {
    var h = Harness()
    let primary = h.send(key: "k", idle: 5)
    let waiter = h.send(key: "k", idle: 5)
    #expect(h.schedule() == [primary])
    _ = h.core.cancel(primary)
    #expect(h.core.silent(now: 10, lastActivity: { $0 == waiter ? 0 : nil }) == [waiter])
  }

  @Test func waitersAndRetryWaitsAreNotPaused() {
    var h = Harness()
    let primary = h.send(key: "k")
    let waiter = h.send(key: "k")
    let other = h.send()
    _ = h.schedule()
    #expect(h.core.pause(waiter) == nil)
    #expect(h.core.phase(of: waiter) == .joined(primary: primary))
    h.core.retry(other, after: 1, now: 0)
    #expect(h.core.pause(other) == nil)
    #expect(h.core.phase(of: other) == .retryWait(until: 1, attempt: 1))
    // A waiter shows its primary's pause.
    _ = h.core.pause(primary)
    #expect(h.core.isPaused(waiter))
  }

  @Test func newLimitsApplyFromTheNextSchedule() {
    var h = Harness(maxConcurrent: 1)
    let ids = (0..<3).map { _ in h.send() }
    #expect(h.schedule() == [ids[0]])
    h.core.setLimits(.init(maxConcurrent: 3, maxPerHost: 3))
    #expect(h.schedule() == [ids[1], ids[2]])
    h.core.setLimits(.init(maxConcurrent: 1, maxPerHost: 1))
    #expect(h.core.counts.running == 3)  // running transfers are not stopped
    _ = h.core.finish(ids[0])
    let more = h.send()
    #expect(h.schedule().isEmpty)
    _ = (h.core.finish(ids[1]), h.core.finish(ids[2]))
    #expect(h.schedule() == [more])
  }
}
