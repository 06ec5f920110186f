// Over 500 lines because the rules are one value whose state is private to this file (the
// queue order, the slots, the waiters, the retry waits and pauses are changed together): split
// across files, its fields would be open to the whole module. The queue itself is StartQueue.swift.

/// The agent's scheduling rules as a value: no curl, no threads, no clock of its own.
///
/// The engine thread (Engine.swift) is its driver: it tells the core what happened (a send, a
/// cancel, a transfer that ended, a token that came, the time) and performs what the core
/// answers (start a transfer, abort one, hand one over to a waiter, end an exchange). Everything
/// the engine promises about order and limits is decided here, and so is proven by tests that
/// drive the core alone with a virtual clock (AgentCoreTests, AgentCorePropertyTests):
///
/// - every exchange the core accepted ends exactly once (`finish`, `cancel`), with its waiters;
/// - at most `maxConcurrent` transfers run, at most `maxPerHost` to a host, at most a group
///   limit's `max` of that group;
/// - the queue starts by priority, then first come first served, and `schedule` starts every
///   queued exchange the limits allow (nothing starves while a slot is free);
/// - identical requests join the one in flight (`dedupKey`); a waiter that leaves leaves alone,
///   and when the exchange they wait on is cancelled the first waiter takes its transfer over;
/// - a retry or a reconnect waits off the slots until its time (`tick`), then queues again;
/// - the throttle window refuses a repeat of the same request (`admit`).
///
/// What is not scheduling stays with the driver and the pure functions it calls: the cache
/// (`ResponseCache`), redirects (`Redirect`), validation (`ResponseValidator`), retry decisions
/// and waits (`RetryPolicy`), downloads (`DownloadDecision`), streams (`StreamParser`).
///
/// An exchange's life (docs/architecture.md has the table):
///
///     send ─┬─▶ waitingForToken ──token──▶ queued ──schedule──▶ running ──finish──▶ (ended)
///           ├─▶ queued                                  ▲         │
///           └─▶ joined(primary) ──primary ends──▶ (ended)         ├──retry──▶ retryWait(until:) ──tick──▶ queued
///                                                                 ├──renew──▶ waitingForToken
///                                                                 ├──restart─▶ running (the next attempt)
///                                                                 └──settle──▶ settling ──finish──▶ (ended)
///
///     queued ──pause──▶ paused(.held) ──resume──▶ queued
///     running ──pause──▶ paused(.transfer) ──resume──▶ running
///
/// `cancel` ends an exchange from any of them (see `cancel(_:)`).
public struct AgentCore: Sendable {
  /// How many transfers may run at once.
  public struct Limits: Sendable, Equatable {
    public var maxConcurrent: Int
    public var maxPerHost: Int
    public init(maxConcurrent: Int, maxPerHost: Int) {
      self.maxConcurrent = max(1, maxConcurrent)
      self.maxPerHost = max(1, maxPerHost)
    }
  }

  /// What the core needs to know of an exchange's request.
  public struct Job: Sendable, Equatable {
    public var id: ExchangeID
    public var priority: Priority
    /// The host key its transfers count against (`URLResolver.hostKey`).
    public var host: String
    public var limit: GroupLimit?
    /// The request's `group` (what `cancel(group:)` names).
    public var group: String?
    /// Identical requests share it and share one transfer; nil: never merged.
    public var dedupKey: ExchangeIdentity?
    /// It waits for a credential (an `Authorizer`) before it is queued.
    public var needsToken: Bool
    /// Seconds without a byte either way after which its transfer fails `timed out`; 0: none.
    public var idleTimeout: Double

    public init(
      id: ExchangeID, priority: Priority = .normal, host: String, limit: GroupLimit? = nil, group: String? = nil,
      dedupKey: ExchangeIdentity? = nil, needsToken: Bool = false, idleTimeout: Double = 0
    ) {
      self.id = id
      self.priority = priority
      self.host = host
      self.limit = limit
      self.group = group
      self.dedupKey = dedupKey
      self.needsToken = needsToken
      self.idleTimeout = idleTimeout
    }
  }

  /// What a running transfer holds: one of the global slots, one of its host's and one of its
  /// group's.
  public struct Slot: Sendable, Equatable {
    public var host: String
    public var group: String?
    public init(host: String, group: String?) {
      self.host = host
      self.group = group
    }
  }

  /// Where an exchange is, each case with exactly its data.
  public enum Phase: Sendable, Equatable {
    /// Its authorizer is asked for a credential; it is queued when the answer comes.
    case waitingForToken
    /// In the queue, ordered by `priority` then `sequence`.
    case queued
    /// A transfer of attempt `attempt` is on the wire, holding `slot`.
    case running(attempt: Int, slot: Slot)
    /// Attempt `attempt` failed; the next is queued at `until` (monotonic seconds).
    case retryWait(until: Double, attempt: Int)
    /// Its transfer is off the wire and the driver is completing it (a download's file checked
    /// and moved into place): it holds no slot.
    case settling(attempt: Int)
    /// It waits for `primary`'s transfer (dedup) and ends with it.
    case joined(primary: ExchangeID)
    /// The user paused it (`pause`); `resume` puts it back where it was.
    case paused(Pause)
  }

  /// What a paused exchange holds.
  public enum Pause: Sendable, Equatable {
    /// It was queued: it is out of the queue and holds nothing.
    case held
    /// Its transfer is on the wire, held still: it keeps its slots (and its connection).
    case transfer(attempt: Int, slot: Slot)
  }

  /// What the driver must do, in order.
  public enum Action: Sendable, Equatable {
    /// Take the exchange's transfer off the wire (it was running): it is being cancelled.
    case abort(ExchangeID)
    /// A settling exchange is cancelled: the driver stops its completion if it still can and
    /// ends it (`finish`), or lets the completion end it.
    case stopSettling(ExchangeID)
    /// The exchange's transfer, attempt count and waiters pass to `to`, one of its waiters,
    /// which takes its place (in the queue, on the wire, in its retry wait).
    case handOver(from: ExchangeID, to: ExchangeID)
    /// A waiter left the exchange it waited on (it is being cancelled; the transfer goes on).
    case left(ExchangeID, primary: ExchangeID)
    /// The exchange ended cancelled, alone (its waiters, if any, were handed over first).
    case cancelled(ExchangeID)
    /// Hold the exchange's transfer still (`curl_easy_pause`), or let it go on.
    case pauseTransfer(ExchangeID)
    case resumeTransfer(ExchangeID)
  }

  /// What `send` did with a new exchange.
  public enum Admission: Sendable, Equatable {
    case queued
    case waitingForToken
    /// An identical request is in flight: it waits for that one.
    case joined(primary: ExchangeID)
  }

  private struct Entry: Sendable {
    var job: Job
    var phase: Phase
    /// The place in the queue: higher priority first, then lower sequence.
    var sequence: UInt64
    /// Attempts made so far (the next is `attempts + 1`).
    var attempts = 0
    /// The exchanges waiting on this one's transfer, in the order they joined.
    var followers: [ExchangeID] = []
  }

  public private(set) var limits: Limits
  private var entries: [ExchangeID: Entry] = [:]
  /// Queued exchanges in start order.
  private var queue = StartQueue()
  private var running = 0
  private var perHost: [String: Int] = [:]
  private var perGroup: [String: Int] = [:]
  /// The exchange in flight for each dedup key.
  private var inFlight: [ExchangeIdentity: ExchangeID] = [:]
  /// When each throttled request was last accepted, by its key.
  private var lastAccepted: [ExchangeIdentity: (at: Double, window: Double)] = [:]
  private var waitingRetry = 0
  /// Paused exchanges that were queued.
  private var held = 0
  /// Exchanges with a transfer on the wire and an idle timeout (running or paused).
  private var idleWatched: Set<ExchangeID> = []
  private var nextSequence: UInt64 = 0

  public init(limits: Limits) { self.limits = limits }

  // MARK: - Reading

  /// The exchange's phase; nil once it ended (or was never sent).
  public func phase(of id: ExchangeID) -> Phase? { entries[id]?.phase }

  /// Attempts the exchange (or, for a waiter, its primary) made so far.
  public func attempts(of id: ExchangeID) -> Int {
    guard let entry = entries[id] else { return 0 }
    if case .joined(let primary) = entry.phase { return entries[primary]?.attempts ?? 0 }
    return entry.attempts
  }

  /// The exchange and those waiting on its transfer, in the order they joined.
  public func members(of id: ExchangeID) -> [ExchangeID] {
    guard let entry = entries[id] else { return [] }
    return [id] + entry.followers
  }

  /// The exchange whose transfer `id` waits for, if it is a waiter.
  public func primary(of id: ExchangeID) -> ExchangeID? {
    if case .joined(let primary)? = entries[id]?.phase { return primary }
    return nil
  }

  /// Exchanges not yet ended.
  public var live: Int { entries.count }
  /// What the status line counts as queued (in the queue, waiting to retry, held) and running
  /// (transfers on the wire, paused ones too: they keep their slots).
  public var counts: (queued: Int, running: Int) { (queue.count + waitingRetry + held, running) }
  /// Running transfers per host and per group name (for tests and the property checks).
  public var runningPerHost: [String: Int] { perHost }
  public var runningPerGroup: [String: Int] { perGroup }
  /// The queue in start order.
  public var queued: [ExchangeID] { queue.ids }

  /// When the next retry wait ends (monotonic seconds), if any exchange waits.
  public var nextTimer: Double? {
    guard waitingRetry > 0 else { return nil }
    var next: Double?
    for entry in entries.values {
      if case .retryWait(let until, _) = entry.phase { next = min(next ?? until, until) }
    }
    return next
  }

  /// Whether a queued exchange could start now: a global slot and its host's and group's are free.
  public func canStart(_ id: ExchangeID) -> Bool {
    guard let entry = entries[id], entry.phase == .queued, running < limits.maxConcurrent else { return false }
    return hasRoom(entry.job)
  }

  private func hasRoom(_ job: Job) -> Bool {
    if perHost[job.host, default: 0] >= limits.maxPerHost { return false }
    if let limit = job.limit, perGroup[limit.name, default: 0] >= limit.max { return false }
    return true
  }

  // MARK: - Sending

  /// The throttle window: refuses a send of the request whose identity is `key` within
  /// `window` seconds of the last one accepted, and returns how long ago that was; otherwise
  /// records this one as accepted and returns nil.
  public mutating func admit(key: ExchangeIdentity, window: Double, now: Double) -> Double? {
    guard window > 0 else { return nil }
    if lastAccepted.count > 256 { lastAccepted = lastAccepted.filter { now - $0.value.at < $0.value.window } }
    if let last = lastAccepted[key], now - last.at < window { return now - last.at }
    lastAccepted[key] = (now, window)
    return nil
  }

  /// A new exchange: it joins an identical one in flight, waits for its credential, or queues.
  public mutating func send(_ job: Job) -> Admission {
    precondition(entries[job.id] == nil, "exchange \(job.id) sent twice")
    nextSequence += 1
    var entry = Entry(job: job, phase: .queued, sequence: nextSequence)
    if let key = job.dedupKey {
      if let primary = inFlight[key], entries[primary] != nil {
        entry.phase = .joined(primary: primary)
        entries[job.id] = entry
        entries[primary]?.followers.append(job.id)
        return .joined(primary: primary)
      }
      inFlight[key] = job.id
    }
    if job.needsToken {
      entry.phase = .waitingForToken
      entries[job.id] = entry
      return .waitingForToken
    }
    entries[job.id] = entry
    enqueue(job.id)
    return .queued
  }

  /// The credential came: the exchange queues. (Its authorizer failing ends it: `finish`.)
  public mutating func tokenArrived(_ id: ExchangeID) {
    guard entries[id]?.phase == .waitingForToken else { return }
    entries[id]?.phase = .queued
    enqueue(id)
  }

  /// A new order for a queued or waiting exchange (its place among equals is kept).
  public mutating func reprioritise(_ id: ExchangeID, to priority: Priority) {
    guard let entry = entries[id], entry.job.priority != priority else { return }
    entries[id]?.job.priority = priority
    if entry.phase == .queued {
      queue.remove(id)
      enqueue(id)
    }
  }

  /// New limits: from the next `schedule` on (running transfers are not stopped).
  public mutating func setLimits(_ limits: Limits) { self.limits = limits }

  /// Pauses a queued exchange (it leaves the queue) or a running one (its transfer is held
  /// still, keeping its slots); returns the action for the driver, if any. A waiter, or an
  /// exchange in another phase, is not paused: returns nil and changes nothing.
  public mutating func pause(_ id: ExchangeID) -> Action? {
    switch entries[id]?.phase {
    case .queued?:
      queue.remove(id)
      held += 1
      entries[id]?.phase = .paused(.held)
      return nil
    case .running(let attempt, let slot)?:
      entries[id]?.phase = .paused(.transfer(attempt: attempt, slot: slot))
      return .pauseTransfer(id)
    default:
      return nil
    }
  }

  /// Resumes a paused exchange where it was: back in the queue (its place among equals kept), or
  /// its transfer going on.
  public mutating func resume(_ id: ExchangeID) -> Action? {
    switch entries[id]?.phase {
    case .paused(.held)?:
      held -= 1
      entries[id]?.phase = .queued
      enqueue(id)
      return nil
    case .paused(.transfer(let attempt, let slot))?:
      entries[id]?.phase = .running(attempt: attempt, slot: slot)
      return .resumeTransfer(id)
    default:
      return nil
    }
  }

  /// Whether the exchange (or, for a waiter, its primary) is paused.
  public func isPaused(_ id: ExchangeID) -> Bool {
    let owner = primary(of: id) ?? id
    if case .paused? = entries[owner]?.phase { return true }
    return false
  }

  // MARK: - Starting

  /// Starts every queued exchange the limits allow, in queue order, skipping those whose host
  /// or group is full; returns them with their attempt numbers. The driver puts a transfer on
  /// the wire for each.
  public mutating func schedule() -> [(id: ExchangeID, attempt: Int)] {
    guard running < limits.maxConcurrent, !queue.isEmpty else { return [] }
    var started: [(id: ExchangeID, attempt: Int)] = []
    var index = 0
    while index < queue.count && running < limits.maxConcurrent {
      let id = queue[index].id
      guard let job = entries[id]?.job, hasRoom(job) else {
        index += 1
        continue
      }
      queue.remove(at: index)
      started.append((id, occupy(id)))
    }
    return started
  }

  /// Takes the slots for `id` and counts an attempt; returns its number.
  private mutating func occupy(_ id: ExchangeID) -> Int {
    guard var entry = entries[id] else { return 0 }
    let slot = Slot(host: entry.job.host, group: entry.job.limit?.name)
    running += 1
    perHost[slot.host, default: 0] += 1
    if let group = slot.group { perGroup[group, default: 0] += 1 }
    entry.attempts += 1
    entry.phase = .running(attempt: entry.attempts, slot: slot)
    if entry.job.idleTimeout > 0 { idleWatched.insert(id) }
    entries[id] = entry
    return entry.attempts
  }

  /// Gives back a running exchange's slots; returns its attempt number (nil when not running).
  @discardableResult
  private mutating func release(_ id: ExchangeID) -> Int? {
    switch entries[id]?.phase {
    case .running(let attempt, let slot)?, .paused(.transfer(let attempt, let slot))?:
      free(slot)
      idleWatched.remove(id)
      return attempt
    default:
      return nil
    }
  }

  private mutating func free(_ slot: Slot) {
    running -= 1
    perHost[slot.host, default: 1] -= 1
    if perHost[slot.host] == 0 { perHost[slot.host] = nil }
    if let group = slot.group {
      perGroup[group, default: 1] -= 1
      if perGroup[group] == 0 { perGroup[group] = nil }
    }
  }

  private mutating func enqueue(_ id: ExchangeID) {
    guard let entry = entries[id] else { return }
    queue.insert((priority: entry.job.priority, sequence: entry.sequence, id: id))
  }

  // MARK: - A running exchange's attempt ended without ending it

  /// The attempt failed and another comes after `delay` seconds (a retry, a stream's
  /// reconnect): the slots are given back until then.
  public mutating func retry(_ id: ExchangeID, after delay: Double, now: Double) {
    guard let attempt = release(id) else { return }
    entries[id]?.phase = .retryWait(until: now + max(0, delay), attempt: attempt)
    waitingRetry += 1
  }

  /// The server refused the credential: the slots are given back and the exchange waits for a
  /// new one (then queues again).
  public mutating func renewToken(_ id: ExchangeID) {
    guard release(id) != nil else { return }
    entries[id]?.phase = .waitingForToken
  }

  /// Another attempt at once, on the same slots (a download whose server answered its Range
  /// request wrongly starts over); returns its number.
  public mutating func restart(_ id: ExchangeID) -> Int? {
    guard var entry = entries[id] else { return nil }
    switch entry.phase {
    case .running(_, let slot):
      entry.attempts += 1
      entry.phase = .running(attempt: entry.attempts, slot: slot)
    case .paused(.transfer(_, let slot)):  // it stays paused
      entry.attempts += 1
      entry.phase = .paused(.transfer(attempt: entry.attempts, slot: slot))
    default:
      return nil
    }
    entries[id] = entry
    return entry.attempts
  }

  /// The transfer is off the wire and the driver completes the exchange off the engine's slots.
  public mutating func settle(_ id: ExchangeID) {
    guard let attempt = release(id) else { return }
    entries[id]?.phase = .settling(attempt: attempt)
  }

  /// The time is `now`: retry waits that are over queue again, in the order they were due.
  public mutating func tick(now: Double) {
    guard waitingRetry > 0 else { return }
    var due: [(until: Double, id: ExchangeID)] = []
    for (id, entry) in entries {
      if case .retryWait(let until, _) = entry.phase, until <= now { due.append((until, id)) }
    }
    for (_, id) in due.sorted(by: { ($0.until, $0.id) < ($1.until, $1.id) }) {
      entries[id]?.phase = .queued
      waitingRetry -= 1
      enqueue(id)
    }
  }

  // MARK: - Idle timeouts

  /// The transfers silent for their idle timeout or longer at `now`, in id order: the driver
  /// fails each `timed out` (and its retry policy may try again). `lastActivity` says when a
  /// transfer last moved a byte either way (the driver keeps that per transfer: a store per chunk,
  /// not a call here). A paused transfer is silent because it was asked to be: never idle.
  public func silent(now: Double, lastActivity: (ExchangeID) -> Double?) -> [ExchangeID] {
    // Called on every pass of the engine's loop: nothing is allocated while none is silent.
    var silent: [ExchangeID] = []
    for id in idleWatched {
      guard let entry = entries[id], case .running = entry.phase, let last = lastActivity(id) else { continue }
      if now - last >= entry.job.idleTimeout { silent.append(id) }
    }
    return silent.isEmpty ? silent : silent.sorted()
  }

  /// When the first watched transfer goes idle, if nothing moves before (for the driver's wait).
  public func nextIdleDeadline(lastActivity: (ExchangeID) -> Double?) -> Double? {
    var first: Double?
    for id in idleWatched {
      guard let entry = entries[id], case .running = entry.phase, let last = lastActivity(id) else { continue }
      let due = last + entry.job.idleTimeout
      first = min(first ?? due, due)
    }
    return first
  }

  // MARK: - Ending

  /// Ends the exchange and everyone waiting on its transfer: returns them, the exchange first,
  /// then its waiters in the order they joined; empty when it already ended. Each ends exactly
  /// once. A waiter ended on its own (`finish` of a waiter) ends alone.
  public mutating func finish(_ id: ExchangeID) -> [ExchangeID] {
    guard let entry = entries[id] else { return [] }
    remove(id)
    var ended = [id]
    for follower in entry.followers where entries[follower] != nil {
      entries[follower] = nil
      ended.append(follower)
    }
    return ended
  }

  /// Takes `id` out of every structure that holds it (not its waiters).
  private mutating func remove(_ id: ExchangeID) {
    guard let entry = entries.removeValue(forKey: id) else { return }
    switch entry.phase {
    case .running(_, let slot), .paused(.transfer(_, let slot)):
      free(slot)
      idleWatched.remove(id)
    case .paused(.held):
      held -= 1
    case .queued:
      queue.remove(id)
    case .retryWait:
      waitingRetry -= 1
    case .joined(let primary):
      entries[primary]?.followers.removeAll { $0 == id }
    case .waitingForToken, .settling:
      break
    }
    if let key = entry.job.dedupKey, inFlight[key] == id { inFlight[key] = nil }
  }

  /// Cancels an exchange, whatever its phase:
  ///
  /// - a waiter leaves the exchange it waits on (`left`) and ends cancelled, the transfer going on;
  /// - an exchange others wait on hands its place over to the first of them (`handOver`), which
  ///   takes its transfer, queue place or wait, and ends cancelled alone; nothing is aborted;
  /// - a settling exchange with no waiters is the driver's to stop (`stopSettling`);
  /// - otherwise its transfer, if running, is aborted (`abort`) and it ends cancelled.
  ///
  /// Returns the actions in order; empty when it already ended.
  public mutating func cancel(_ id: ExchangeID) -> [Action] {
    guard let entry = entries[id] else { return [] }
    if case .joined(let primary) = entry.phase {
      remove(id)
      return [.left(id, primary: primary), .cancelled(id)]
    }
    if let heir = entry.followers.first {
      handOver(from: id, to: heir)
      return [.handOver(from: id, to: heir), .cancelled(id)]
    }
    if case .settling = entry.phase { return [.stopSettling(id)] }
    var actions: [Action] = []
    switch entry.phase {
    case .running, .paused(.transfer): actions.append(.abort(id))
    default: break
    }
    remove(id)
    actions.append(.cancelled(id))
    return actions
  }

  /// Cancels every exchange of the request group `group`, in the order they were sent.
  public mutating func cancel(group: String) -> [Action] {
    let ids = entries.filter { $0.value.job.group == group }.keys.sorted()
    return ids.flatMap { cancel($0) }
  }

  /// Cancels every exchange, in the order they were sent.
  public mutating func cancelAll() -> [Action] {
    entries.keys.sorted().flatMap { cancel($0) }
  }

  /// `heir`, the first waiter on `id`, takes `id`'s place: its phase (and slots), its priority
  /// and queue place, its attempts, the other waiters and the dedup key; `id` is left alone and
  /// ended.
  private mutating func handOver(from id: ExchangeID, to heir: ExchangeID) {
    guard let old = entries.removeValue(forKey: id), var next = entries[heir] else { return }
    next.phase = old.phase
    next.job.priority = old.job.priority  // its place in the queue, and where it goes back to
    next.attempts = old.attempts
    next.followers = Array(old.followers.dropFirst())
    next.sequence = old.sequence
    for follower in next.followers { entries[follower]?.phase = .joined(primary: heir) }
    queue.rename(id, to: heir)
    if let key = old.job.dedupKey, inFlight[key] == id { inFlight[key] = heir }
    if idleWatched.remove(id) != nil, next.job.idleTimeout > 0 { idleWatched.insert(heir) }
    entries[heir] = next
  }
}
