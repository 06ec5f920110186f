import Foundation
import RequestEngine
import TestSupport
import Testing

/// 10,000 random schedules of sends, cancels, completions, failures, credentials and clock
/// steps through `AgentCore`, each reproducible by its seed, checking after every step that:
///
/// - each exchange ends at most once, and (after the schedule is drained) exactly once;
/// - the core's counts are what its exchanges' phases say, and nothing starts past a limit;
/// - no queued exchange waits while a slot for it is free, and the queue is in priority order;
/// - a waiter (dedup) ends with its primary or by its own cancel, never otherwise.
///
/// A failing seed is shrunk to the shortest schedule that still fails, which the failure prints.
/// `AGENT_CORE_SEED=N swift test --filter AgentCorePropertyTests` runs seed N alone.
@Suite("AgentCore: random schedules")
struct AgentCorePropertyTests {
  @Test func tenThousandRandomSchedulesKeepTheRules() {
    let seeds: [UInt64] =
      ProcessInfo.processInfo.environment["AGENT_CORE_SEED"].flatMap(UInt64.init).map { [$0] } ?? Array(1...10_000)
    for seed in seeds {
      let steps = Schedule.random(seed: seed)
      guard let failure = Schedule.run(steps) else { continue }
      let shortest = Schedule.shrink(steps)
      Issue.record(
        """
        seed \(seed): \(failure)
        shortest failing schedule (\(shortest.count) of \(steps.count) steps):
        \(shortest.map { "  \($0)" }.joined(separator: "\n"))
        then: \(Schedule.run(shortest) ?? "?")
        """)
      return
    }
  }

  /// The checker finds a broken rule: a driver that starts past a limit fails, and the schedule it
  /// prints is short. (A property test that cannot fail proves nothing.)
  @Test func theCheckerCatchesABrokenCore() {
    var found: [Schedule.Step]?
    for seed in UInt64(1)...2_000 {
      let steps = Schedule.random(seed: seed)
      if Schedule.run(steps, startPastLimits: true) != nil {
        found = Schedule.shrink(steps, startPastLimits: true)
        break
      }
    }
    #expect(found != nil)
    #expect((found?.count ?? 99) <= 6)
  }
}

/// A random schedule and the checks run on it.
enum Schedule {
  enum Step: CustomStringConvertible {
    case send(host: Int, priority: Priority, limit: Int, key: Int, token: Bool, group: Int)
    case cancel(pick: Int)
    case cancelGroup(Int)
    case cancelAll
    /// A running or settling exchange ends (its transfer finished).
    case complete(pick: Int)
    /// A running exchange's attempt failed; it retries after `delay`.
    case fail(pick: Int, delay: Double)
    case renewToken(pick: Int)
    case tokenArrives(pick: Int)
    case restart(pick: Int)
    case settle(pick: Int)
    case advance(Double)
    case reprioritise(pick: Int, Priority)
    case setLimits(maxConcurrent: Int, maxPerHost: Int)
    case pause(pick: Int)
    case resume(pick: Int)

    var description: String {
      switch self {
      case .send(let host, let priority, let limit, let key, let token, let group):
        "send host h\(host) \(priority.name) limit \(limit) key \(key) token \(token) group \(group)"
      case .cancel(let pick): "cancel #\(pick) of the live"
      case .cancelGroup(let group): "cancel group \(group)"
      case .cancelAll: "cancel all"
      case .complete(let pick): "complete #\(pick) of the running or settling"
      case .fail(let pick, let delay): "fail #\(pick) of the running, retry in \(delay) s"
      case .renewToken(let pick): "renew the token of #\(pick) of the running"
      case .tokenArrives(let pick): "token for #\(pick) of the waiting"
      case .restart(let pick): "restart #\(pick) of the running"
      case .settle(let pick): "settle #\(pick) of the running"
      case .advance(let seconds): "advance the clock \(seconds) s"
      case .reprioritise(let pick, let priority): "reprioritise #\(pick) of the live to \(priority.name)"
      case .setLimits(let maxConcurrent, let maxPerHost): "limits \(maxConcurrent) / \(maxPerHost) per host"
      case .pause(let pick): "pause #\(pick) of the live"
      case .resume(let pick): "resume #\(pick) of the paused"
      }
    }
  }

  static func random(seed: UInt64) -> [Step] {
    var g = SplitMix(seed: seed)
    let count = 1 + g.below(60)
    return (0..<count).map { _ in
      let pick = g.below(16)
      switch g.below(100) {
      case 0..<30:
        return .send(
          host: g.below(3), priority: Priority(rawValue: g.below(3)) ?? .normal, limit: g.below(3), key: g.below(4),
          token: g.below(8) == 0, group: g.below(2))
      case 30..<40: return .cancel(pick: pick)
      case 40..<42: return .cancelGroup(g.below(2))
      case 42..<43: return .cancelAll
      case 43..<63: return .complete(pick: pick)
      case 63..<71: return .fail(pick: pick, delay: Double(g.below(4)) / 2)
      case 71..<74: return .renewToken(pick: pick)
      case 74..<80: return .tokenArrives(pick: pick)
      case 80..<82: return .restart(pick: pick)
      case 82..<86: return .settle(pick: pick)
      case 86..<92: return .advance(Double(g.below(5)) / 2)
      case 92..<94: return .pause(pick: pick)
      case 94..<96: return .resume(pick: pick)
      case 96..<98: return .reprioritise(pick: pick, Priority(rawValue: g.below(3)) ?? .normal)
      default: return .setLimits(maxConcurrent: 1 + g.below(4), maxPerHost: 1 + g.below(3))
      }
    }
  }

  /// The shortest schedule found by dropping steps one at a time while it still fails.
  static func shrink(_ steps: [Step], startPastLimits: Bool = false) -> [Step] {
    var current = steps
    var changed = true
    while changed {
      changed = false
      var index = 0
      while index < current.count {
        var shorter = current
        shorter.remove(at: index)
        if run(shorter, startPastLimits: startPastLimits) != nil {
          current = shorter
          changed = true
        } else {
          index += 1
        }
      }
    }
    return current
  }

  /// Runs the schedule, then drains it; returns the first broken rule, or nil.
  /// `startPastLimits`: the checker's own test, a driver that starts one more past a limit.
  static func run(_ steps: [Step], startPastLimits: Bool = false) -> String? {
    var checker = Checker(startPastLimits: startPastLimits)
    for (index, step) in steps.enumerated() {
      if let failure = checker.apply(step) ?? checker.scheduleAndCheck() {
        return "step \(index + 1) (\(step)): \(failure)"
      }
    }
    return checker.drain()
  }

  struct Checker {
    static let groupLimits = [nil, GroupLimit(name: "g1", max: 1), GroupLimit(name: "g2", max: 2)]
    var core = AgentCore(limits: .init(maxConcurrent: 3, maxPerHost: 2))
    var now = 0.0
    var jobs: [ExchangeID: AgentCore.Job] = [:]
    var sent: [ExchangeID] = []
    var ended: Set<ExchangeID> = []
    let startPastLimits: Bool

    init(startPastLimits: Bool) { self.startPastLimits = startPastLimits }

    /// Sent and not ended, in the order sent.
    var live: [ExchangeID] = []

    func inPhase(_ matches: (AgentCore.Phase) -> Bool) -> [ExchangeID] {
      live.filter { core.phase(of: $0).map(matches) ?? false }
    }

    var runningIDs: [ExchangeID] { inPhase { if case .running = $0 { true } else { false } } }

    /// Exchanges holding slots: running, and paused on the wire.
    var slotHolders: [(id: ExchangeID, slot: AgentCore.Slot)] {
      live.compactMap { id in
        switch core.phase(of: id) {
        case .running(_, let slot)?, .paused(.transfer(_, let slot))?: (id, slot)
        default: nil
        }
      }
    }

    static func pick<T>(_ index: Int, _ list: [T]) -> T? { list.isEmpty ? nil : list[index % list.count] }

    /// Records exchanges the core ended; a second end of one is a broken rule.
    mutating func end(_ ids: [ExchangeID]) -> String? {
      for id in ids {
        if ended.contains(id) { return "\(id) ended twice" }
        ended.insert(id)
        live.removeAll { $0 == id }
      }
      return nil
    }

    mutating func finish(_ id: ExchangeID) -> String? {
      let members = core.members(of: id)
      let ids = core.finish(id)
      if ids != members { return "finish(\(id)) ended \(ids), its members were \(members)" }
      return end(ids)
    }

    mutating func cancel(_ actions: [AgentCore.Action]) -> String? {
      for action in actions {
        switch action {
        case .cancelled(let id):
          if let failure = end([id]) { return failure }
        case .left(let id, let primary):
          if core.primary(of: id) != nil { return "\(id) left \(primary) but still waits" }
        case .stopSettling(let id):
          // The driver won the race: the file had not moved into place yet.
          if let failure = finish(id) { return failure }
        case .handOver(let from, let to):
          // The heir takes the place, priority too.
          let priority = jobs[from]?.priority ?? .normal
          jobs[to]?.priority = priority
        case .abort:
          break
        case .pauseTransfer, .resumeTransfer:
          return "a cancel paused or resumed: \(action)"
        }
      }
      return nil
    }

    mutating func apply(_ step: Step) -> String? {
      switch step {
      case .send(let host, let priority, let limit, let key, let token, let group):
        let id = ExchangeID(rawValue: UInt64(sent.count + 1))
        let job = AgentCore.Job(
          id: id, priority: priority, host: "h\(host)", limit: Self.groupLimits[limit], group: "group\(group)",
          dedupKey: key == 0 ? nil : .of("/key\(key)"), needsToken: token)
        // The exchange in flight with the same key, if any: the send must join it.
        let inFlight = job.dedupKey.flatMap { key in
          live.first { jobs[$0]?.dedupKey == key && core.primary(of: $0) == nil }
        }
        jobs[id] = job
        sent.append(id)
        live.append(id)
        let admission = core.send(job)
        if let inFlight, admission != .joined(primary: inFlight) { return "\(id) did not join \(inFlight): \(admission)" }
        if case .joined(let primary) = admission {
          if ended.contains(primary) { return "\(id) joined \(primary), which had ended" }
          if job.dedupKey == nil { return "\(id) joined \(primary) without a dedup key" }
        }
      case .cancel(let pick):
        guard let id = Self.pick(pick, live) else { return nil }
        return cancel(core.cancel(id))
      case .cancelGroup(let group):
        return cancel(core.cancel(group: "group\(group)"))
      case .cancelAll:
        return cancel(core.cancelAll())
      case .complete(let pick):
        let candidates = inPhase {
          switch $0 {
          case .running, .settling, .paused(.transfer): true
          default: false
          }
        }
        guard let id = Self.pick(pick, candidates) else { return nil }
        return finish(id)
      case .fail(let pick, let delay):
        guard let id = Self.pick(pick, runningIDs) else { return nil }
        core.retry(id, after: delay, now: now)
      case .renewToken(let pick):
        guard let id = Self.pick(pick, runningIDs) else { return nil }
        core.renewToken(id)
      case .tokenArrives(let pick):
        guard let id = Self.pick(pick, inPhase { $0 == .waitingForToken }) else { return nil }
        core.tokenArrived(id)
      case .restart(let pick):
        guard let id = Self.pick(pick, runningIDs) else { return nil }
        if core.restart(id) == nil { return "restart of running \(id) refused" }
      case .settle(let pick):
        guard let id = Self.pick(pick, runningIDs) else { return nil }
        core.settle(id)
      case .advance(let seconds):
        now += seconds
      case .reprioritise(let pick, let priority):
        guard let id = Self.pick(pick, live) else { return nil }
        core.reprioritise(id, to: priority)
        jobs[id]?.priority = priority
      case .setLimits(let maxConcurrent, let maxPerHost):
        core.setLimits(.init(maxConcurrent: maxConcurrent, maxPerHost: maxPerHost))
      case .pause(let pick):
        guard let id = Self.pick(pick, live) else { return nil }
        let before = core.phase(of: id)
        let action = core.pause(id)
        let after = core.phase(of: id)
        let expected: (AgentCore.Phase?, AgentCore.Action?)
        switch before {
        case .queued?: expected = (.paused(.held), nil)
        case .running(let attempt, let slot)?: expected = (.paused(.transfer(attempt: attempt, slot: slot)), .pauseTransfer(id))
        default: expected = (before, nil)
        }
        if after != expected.0 || action != expected.1 {
          return "pause of \(id): \(String(describing: before)) became \(String(describing: after)) with \(String(describing: action))"
        }
      case .resume(let pick):
        guard let id = Self.pick(pick, inPhase({ if case .paused = $0 { true } else { false } })) else { return nil }
        let before = core.phase(of: id)
        let action = core.resume(id)
        let after = core.phase(of: id)
        let expected: (AgentCore.Phase?, AgentCore.Action?)
        switch before {
        case .paused(.held)?: expected = (.queued, nil)
        case .paused(.transfer(let attempt, let slot))?: expected = (.running(attempt: attempt, slot: slot), .resumeTransfer(id))
        default: expected = (before, nil)
        }
        if after != expected.0 || action != expected.1 {
          return "resume of \(id): \(String(describing: before)) became \(String(describing: after)) with \(String(describing: action))"
        }
      }
      return nil
    }

    /// What the driver does every pass (retry waits that are over, then what the limits allow),
    /// and every rule checked against the phases.
    mutating func scheduleAndCheck() -> String? {
      core.tick(now: now)
      var perHost: [String: Int] = [:]
      var perGroup: [String: Int] = [:]
      let holders = slotHolders
      for (_, slot) in holders {
        perHost[slot.host, default: 0] += 1
        if let group = slot.group { perGroup[group, default: 0] += 1 }
      }
      var running = holders.count
      var started = core.schedule()
      if startPastLimits {
        // The broken driver: one more start whatever the host has.
        if let extra = live.first(where: { core.phase(of: $0) == .queued && running + started.count < core.limits.maxConcurrent }) {
          started.append((extra, 0))
        }
      }
      for (id, attempt) in started {
        guard let job = jobs[id] else { return "started \(id), never sent" }
        if ended.contains(id) { return "started \(id), which had ended" }
        if running >= core.limits.maxConcurrent { return "started \(id) with \(running) running (limit \(core.limits.maxConcurrent))" }
        if perHost[job.host, default: 0] >= core.limits.maxPerHost {
          return "started \(id) with \(perHost[job.host, default: 0]) running to \(job.host) (limit \(core.limits.maxPerHost))"
        }
        if let limit = job.limit, perGroup[limit.name, default: 0] >= limit.max {
          return "started \(id) past group \(limit.name)'s limit \(limit.max)"
        }
        if !startPastLimits, attempt != core.attempts(of: id) { return "\(id) started as attempt \(attempt), has \(core.attempts(of: id))" }
        running += 1
        perHost[job.host, default: 0] += 1
        if let limit = job.limit { perGroup[limit.name, default: 0] += 1 }
      }
      if startPastLimits { return nil }
      return checkPhases()
    }

    func checkPhases() -> String? {
      for id in sent {
        let phase = core.phase(of: id)
        if ended.contains(id), let phase { return "\(id) ended but is \(phase)" }
        if !ended.contains(id), phase == nil { return "\(id) is gone without an end" }
      }
      let running = slotHolders
      if core.counts.running != running.count { return "counts say \(core.counts.running) running, phases \(running.count)" }
      var perHost: [String: Int] = [:]
      var perGroup: [String: Int] = [:]
      for (_, slot) in running {
        perHost[slot.host, default: 0] += 1
        if let group = slot.group { perGroup[group, default: 0] += 1 }
      }
      if core.runningPerHost != perHost { return "per host \(core.runningPerHost), phases say \(perHost)" }
      if core.runningPerGroup != perGroup { return "per group \(core.runningPerGroup), phases say \(perGroup)" }
      let queued = inPhase { $0 == .queued }
      let waiting = inPhase { if case .retryWait = $0 { true } else { false } }
      let held = inPhase { $0 == .paused(.held) }
      if core.counts.queued != queued.count + waiting.count + held.count { return "counts say \(core.counts.queued) queued" }
      if core.queued.contains(where: { held.contains($0) }) { return "a paused exchange is in the queue" }
      if Set(core.queued) != Set(queued) { return "the queue holds \(core.queued), phases say \(queued)" }
      // Priority order.
      let priorities = core.queued.map { jobs[$0]!.priority }
      if priorities != priorities.sorted(by: >) { return "the queue is out of priority order: \(priorities)" }
      // Nothing starves: a queued exchange has no free slot.
      for id in queued {
        let job = jobs[id]!
        let hostFull = perHost[job.host, default: 0] >= core.limits.maxPerHost
        let groupFull = job.limit.map { perGroup[$0.name, default: 0] >= $0.max } ?? false
        if running.count < core.limits.maxConcurrent && !hostFull && !groupFull {
          return "\(id) is queued with a slot free for it"
        }
      }
      // Retry waits: none overdue after the tick; the timer is the earliest.
      var earliest: Double?
      for id in waiting {
        guard case .retryWait(let until, _)? = core.phase(of: id) else { continue }
        if until <= now { return "\(id)'s retry was due at \(until), it is \(now)" }
        earliest = min(earliest ?? until, until)
      }
      if core.nextTimer != earliest { return "the timer is \(String(describing: core.nextTimer)), the earliest wait \(String(describing: earliest))" }
      // One exchange in flight per dedup key; waiters wait on it, and are among its members.
      var inFlight: Set<ExchangeIdentity> = []
      for id in live where core.primary(of: id) == nil {
        guard let key = jobs[id]?.dedupKey else { continue }
        if !inFlight.insert(key).inserted { return "two exchanges in flight for the key of \(id)" }
      }
      for id in live {
        guard let primary = core.primary(of: id) else { continue }
        if ended.contains(primary) { return "\(id) waits on \(primary), which ended" }
        if core.primary(of: primary) != nil { return "\(id) waits on \(primary), itself a waiter" }
        if !core.members(of: primary).contains(id) { return "\(id) waits on \(primary) but is not its member" }
        if jobs[id]?.dedupKey != jobs[primary]?.dedupKey { return "\(id) waits on \(primary) with another key" }
      }
      return nil
    }

    /// Ends everything still live as a driver would (credentials come, waits run out,
    /// transfers finish); then every exchange sent must have ended exactly once.
    mutating func drain() -> String? {
      for _ in 0..<1_000 {
        if live.isEmpty { break }
        now += 10
        for id in inPhase({ $0 == .waitingForToken }) { core.tokenArrived(id) }
        for id in inPhase({ if case .paused = $0 { true } else { false } }) { _ = core.resume(id) }
        if let failure = scheduleAndCheck() { return "draining: \(failure)" }
        let ending = inPhase {
          switch $0 {
          case .running, .settling: true
          default: false
          }
        }
        for id in ending {
          if let failure = finish(id) { return "draining: \(failure)" }
        }
      }
      if !live.isEmpty { return "still live after draining: \(live)" }
      if core.live != 0 { return "the core holds \(core.live) exchanges after all ended" }
      if core.counts != (queued: 0, running: 0) { return "counts \(core.counts) after all ended" }
      return nil
    }
  }
}
