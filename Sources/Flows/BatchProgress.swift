import Workspace

/// A batch run's rules as a value (no agent, threads or clock): which member may start, what a
/// member's end means for the others (the first failure of a fail-fast batch cancels them), and
/// the batch's outcome once every member has one. `FlowRunner` keeps one under a lock and does
/// what it answers; `BatchProgressTests` prove the rules alone.
struct BatchProgress: Sendable {
  let batch: Batch
  /// Each member's kind (a request or a chain), for the outcome of one that never started.
  private let kinds: [FlowOutcome.Kind]
  /// The members started so far are those before `next`.
  private(set) var next = 0
  /// Members with an outcome (ended, or cancelled before they started).
  private(set) var ended = 0
  private var outcomes: [FlowOutcome?]
  /// The first member that failed, by name.
  private(set) var firstFailure: String?
  private var finished = false

  init(batch: Batch, kinds: [FlowOutcome.Kind]) {
    self.batch = batch
    self.kinds = kinds
    outcomes = Array(repeating: nil, count: batch.members.count)
  }

  /// Whether member `index` may start: not once a fail-fast batch has a failure.
  mutating func start(_ index: Int) -> Bool {
    guard firstFailure == nil || batch.policy == .allSettled else { return false }
    next = index + 1
    return true
  }

  /// Member `index` ended with `outcome`: returns whether the members running must be cancelled
  /// now (the first failure of a fail-fast batch) and how many members have ended.
  mutating func memberEnded(_ index: Int, _ outcome: FlowOutcome) -> (cancelOthers: Bool, done: Int) {
    outcomes[index] = outcome
    ended += 1
    var cancel = false
    if outcome.state == .failed && firstFailure == nil {
      firstFailure = batch.members[index]
      cancel = batch.policy == .failFast
    }
    return (cancel, ended)
  }

  /// After a member's end: once the batch stops (a fail-fast failure, or its run cancelled), the
  /// members never started end `cancelled` ("not started"). Returns the batch's outcome when
  /// every member has one, once.
  mutating func settle(runCancelled: Bool) -> FlowOutcome? {
    if firstFailure != nil && batch.policy == .failFast || runCancelled {
      while next < batch.members.count {
        var skipped = FlowOutcome(kind: kinds[next], name: batch.members[next], state: .cancelled)
        skipped.message = "not started"
        skipped.errorKind = "cancelled"
        outcomes[next] = skipped
        ended += 1
        next += 1
      }
    }
    guard !finished, ended == batch.members.count else { return nil }
    finished = true
    return outcome()
  }

  /// The batch's outcome: failed when a member failed (fail fast: naming it; all settled: how
  /// many, and the first), cancelled when one was, else succeeded.
  private func outcome() -> FlowOutcome {
    let outcomes = self.outcomes.compactMap { $0 }
    var result = FlowOutcome(kind: .batch, name: batch.name, state: .succeeded)
    result.members = outcomes
    if let failed = firstFailure {
      result.state = .failed
      result.errorKind = "member"
      let message = FlowRunner.detail(outcomes.first { $0.name == failed && $0.state == .failed }?.message ?? "failed", of: failed)
      result.message = batch.policy == .failFast
        ? "\(failed) failed: \(message)"
        : "\(outcomes.count(where: { $0.state == .failed })) of \(outcomes.count) failed, first \(failed): \(message)"
    } else if outcomes.contains(where: { $0.state == .cancelled }) {
      result.state = .cancelled
      result.errorKind = "cancelled"
      result.message = "cancelled"
    }
    return result
  }
}
