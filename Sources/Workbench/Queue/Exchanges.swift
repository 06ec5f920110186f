import Base
import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// One exchange as the queue shows it, built from the agent's events.
public struct ExchangeRow: Sendable {
  public var id: ExchangeID
  public var name: String
  public var method: HTTPMethod
  /// Secrets masked.
  public var url: String
  public var state: ExchangeState
  public var attempt = 0
  /// Between two attempts: set by `retrying`, over when the next attempt starts or the exchange
  /// ends (a cancel during the wait ends it `cancelled`, never `retrying`).
  public var retryWait: RetryWait?
  /// The exchange whose transfer it joined, an identical request in flight (its `dedup` badge
  /// shows from the start); nil for an exchange with a transfer of its own.
  public var joinedTo: ExchangeID?
  public var joined: Bool { joinedTo != nil }
  public var status: Int?
  public var progress = TransferProgress()
  public var startedAt: Date?
  public var result: ExchangeResult?
  /// `cacheThenNetwork`: what the cache's early delivery was (its age), kept once the network's
  /// response replaced it, so the row and the viewer can say the cache answered first.
  public var cachedDelivery: CacheOutcome?
  /// Where a download's body goes.
  public var downloadTarget: String?
  /// A later exchange took over this download's file (resuming it): no longer resumable here.
  public var superseded = false
  /// The request's secrets (as sent, with their wire forms): the viewer masks them in what it
  /// draws of the response, which a server may echo them in.
  public var secrets: [String] = []
  /// The batch or chain run it belongs to (its `flow` tag) and its batch member's index.
  public var flowRun: String?
  public var member: Int?
  /// A chain step that failed although its exchange succeeded (a capture found nothing): what
  /// the queue shows instead of `succeeded` (`failed`), and why (`capture failed: token ← .token:
  /// found nothing`).
  public var flowFailure: (state: String, message: String)?
  /// A streamed response's events as they came (the last ones kept, counted all), and when the
  /// first came (for the rate); nil for other responses.
  public var stream: StreamLog?
  /// A stream with `reconnect` waiting to connect again: the how-manieth time.
  public var reconnectWait: Int?
  /// Paused (`p` in the queue): out of the queue, or its transfer held still on the wire.
  public var paused = false

  public var bytes: Int {
    if let download = result?.download { return Int(download.bytes) }
    if result == nil, progress.isUploading { return Int(progress.uploaded) }
    return result?.response?.body.count ?? Int(progress.downloaded)
  }

  /// The exchange's time, the same in the queue, the response's summary line and the timing tab:
  /// curl's total of its only attempt, or, after retries, from the first start to the end (the
  /// waits between attempts included); nil before it ended. `lastAttempt` is curl's total of the
  /// last attempt when there were several.
  public var time: (total: Double, lastAttempt: Double?)? {
    // A result while it runs is cacheThenNetwork's early one: the exchange's time is not known.
    guard state.isTerminal, let result, result.startedAt != nil || result.response != nil else { return nil }
    let curl = result.response?.timing.total ?? 0
    if result.attempts <= 1, curl > 0 { return (curl, nil) }
    return (result.startedAt == nil ? curl : result.duration, result.attempts > 1 && curl > 0 ? curl : nil)
  }

  /// The state as the queue and the viewer show it: a chain step whose capture failed is
  /// `failed` whatever its exchange did.
  public var shownState: ExchangeState { flowFailure == nil ? state : .failed }

  /// The state's word: `retrying 2` while waiting for attempt 2, `failed` for a step whose capture
  /// failed, else the state's name.
  public var stateWord: String {
    flowFailure?.state ?? retryWait.map { "retrying \($0.attempt)" } ?? reconnectWait.map { "reconnect \($0)" }
      ?? (paused ? "paused" : state.rawValue)
  }

  /// The batch and chain step it belongs to: `smoke › login-flow 2/3`.
  public var context: String?

  /// `smoke › login-flow 2/3 › users/me`, or just the name.
  public var label: String { context.map { $0 + " › " + name } ?? name }

  /// `cache` for a response served from the cache (a `cacheThenNetwork` one until the network's
  /// replaces it, then `refreshed`), `dedup` for one shared with an identical request in flight.
  public var badges: [String] {
    var badges: [String] = []
    if result?.fromCache == true {
      badges.append(result?.cache?.stale == true ? "stale" : "cache")
    } else if cachedDelivery != nil, state == .succeeded {
      badges.append("refreshed")
    }
    if result?.deduplicated ?? joined { badges.append("dedup") }
    if let download = result?.download, download.resumable, state != .succeeded, !superseded {
      badges.append("resumable" + (download.percent.map { " \(Int($0))%" } ?? ""))
    }
    if !cookiesSent.isEmpty { badges.append(Self.cookieBadge(cookiesSent)) }
    return badges
  }

  /// The names of the cookies the request went out with (its `Cookie` headers as curl wrote
  /// them: the jar's, and any the request sets itself), in order; made visible (no raw escapes).
  public var cookiesSent: [String] { (result?.sent?.cookieNames ?? []).map(ControlEscaping.visible) }

  /// `cookie session`, `cookies session theme`, cut at 24 columns (`…`).
  static func cookieBadge(_ names: [String]) -> String {
    let text = (names.count == 1 ? "cookie " : "cookies ") + names.joined(separator: " ")
    return TextWidth.of(text) > 24 ? TextWidth.truncate(text, to: 24) : text
  }
}

/// An exchange waiting between two attempts: the attempt that comes next, after how long, and
/// why the last one is retried.
public struct RetryWait: Sendable {
  public var attempt: Int
  public var delay: Double
  public var reason: ExchangeError
}

/// A batch or chain run, as the queue shows it.
public struct FlowRow: Sendable {
  public var run: String
  public var name: String
  public var kind: FlowOutcome.Kind
  /// `.running` until the flow ends.
  public var state: ExchangeState = .running
  /// Batches: members ended and in all.
  public var done = 0
  public var total = 0
  /// Batches: each member's outcome once it ended, by its index in the batch's `members`.
  public var members: [Int: FlowOutcome] = [:]
  /// Batches: the members that ended so, counted from their outcomes.
  public var succeeded: Int { members.values.count { $0.state == .succeeded } }
  public var failed: Int { members.values.count { $0.state == .failed } }
  public var cancelled: Int { members.values.count { $0.state == .cancelled } }
  /// Batches: the members whose exchange started (the others still wait for the batch's
  /// concurrency), and each member's latest exchange.
  public var startedMembers: Set<Int> = []
  public var memberExchanges: [Int: ExchangeID] = [:]
  /// Chains: the step running (1-based), the number of steps.
  public var step = 0
  public var steps = 0
  /// Chains: each ended step's state, by its absolute (1-based) step number; a run resumed at
  /// step k starts with the earlier steps' states of the run it resumes.
  public var stepStates: [Int: ExchangeState] = [:]
  /// Chains: the step this run started at (greater than 1 when it resumed an earlier run).
  public var firstStep = 1
  /// Chains: the values captured, per step (a resumed run keeps the earlier steps' values).
  public var captured: [(step: Int, name: String, value: String)] = []
  public var outcome: FlowOutcome?

  public init(run: String, name: String, kind: FlowOutcome.Kind) {
    self.run = run
    self.name = name
    self.kind = kind
  }
}

/// A line of the queue's batch and chain section: a run's row, or (expanded) one of its batch
/// members (0-based) or chain steps (1-based).
public enum QueueFlowItem: Sendable, Hashable {
  case flow(run: String)
  case member(run: String, index: Int)
  case step(run: String, index: Int)

  public var run: String {
    switch self {
    case .flow(let run), .member(let run, _), .step(let run, _): run
    }
  }
}

/// The live exchanges and batch and chain runs, kept up to date from the agent's and the flow
/// runner's events (the queue lists them, the viewer shows one).
extension AppState {
  mutating func apply(_ event: AgentEvent) {
    switch event {
    case .queued(let id, let request):
      var row = ExchangeRow(
        id: id, name: request.name, method: request.method, url: request.redacted().url, state: .queued)
      var context: [String] = []
      if let batch = request.tags["batch"] { context.append(batch) }
      if let chain = request.tags["chain"] {
        context.append(chain + (request.tags["step"].map { " \($0)/\(request.tags["steps"] ?? "?")" } ?? ""))
      }
      row.context = context.isEmpty ? nil : context.joined(separator: " › ")
      row.flowRun = request.tags["flow"]
      row.member = request.tags["member"].flatMap { Int($0) }
      if let run = row.flowRun, let member = row.member, let index = flows.firstIndex(where: { $0.run == run }) {
        flows[index].memberExchanges[member] = id
      }
      row.downloadTarget = request.download?.path
      row.secrets = request.secrets
      if let target = row.downloadTarget {
        // This exchange carries on with the file: older rows of it are no longer resumable.
        for i in exchanges.indices where exchanges[i].downloadTarget == target { exchanges[i].superseded = true }
      }
      exchanges.insert(row, at: 0)
      if following == request.name {
        following = nil
        queue.selected = .exchange(id)
        show(id)
        keepQueueSelectionInView()
      } else if queue.selected == nil {
        queue.selected = .exchange(id)  // the first line of an empty queue; later ones keep the selection
      }
    case .started(let id, let attempt):
      let now = self.now
      mutateRow(id) {
        $0.state = .running
        $0.attempt = attempt
        $0.retryWait = nil
        $0.reconnectWait = nil
        if $0.startedAt == nil { $0.startedAt = now }
      }
      // A batch member leaves the queue of its batch's concurrency.
      if let row = exchanges.first(where: { $0.id == id }), let run = row.flowRun, let member = row.member,
        let index = flows.firstIndex(where: { $0.run == run })
      {
        flows[index].startedMembers.insert(member)
      }
    case .headers(let id, let status, _):
      mutateRow(id) { $0.status = status }
    case .progress(let id, let progress):
      mutateRow(id) { $0.progress = progress }
    case .joined(let id, let primary):
      mutateRow(id) { $0.joinedTo = primary }
    case .paused(let id):
      mutateRow(id) { $0.paused = true }
    case .resumed(let id):
      mutateRow(id) { $0.paused = false }
    case .streamEvents(let id, let events):
      var first = false
      mutateRow(id) {
        if $0.stream == nil, let head = events.first {
          $0.stream = StreamLog(format: head.format)
          first = true
        }
        $0.stream?.append(contentsOf: events)  // the hand-over itself: no event copied
      }
      streamEventShown(id, first: first)
    case .reconnecting(let id, let count, _, _):
      mutateRow(id) {
        $0.reconnectWait = count
        $0.stream?.reconnects = count
        $0.state = .queued
        $0.paused = false  // a paused transfer that dropped waits like any other
      }
    case .retrying(let id, let attempt, let delay, let reason):
      mutateRow(id) {
        $0.retryWait = RetryWait(attempt: attempt, delay: delay, reason: reason)
        $0.state = .queued
        $0.paused = false  // a paused transfer that failed waits like any other
      }
    case .delivered(let result):
      // An early response (the cached one of cacheThenNetwork): shown while the fresh one comes.
      mutateRow(result.id) {
        $0.status = result.response?.status
        $0.result = result
        if result.fromCache { $0.cachedDelivery = result.cache }
      }
      if viewer.exchange == result.id {
        viewer.document = nil
        show(result.id)
      }
    case .finished(let result):
      mutateRow(result.id) {
        $0.state = result.state
        $0.paused = false
        $0.retryWait = nil
        $0.reconnectWait = nil
        if let stream = result.stream { $0.stream = stream }
        // A cancelled exchange keeps the status its headers brought.
        $0.status = result.response?.status ?? $0.status
        $0.result = result
      }
      if viewer.exchange == result.id {
        viewer.document = nil
        show(result.id)
      }
      replaceAwaitedMessage(result)
    }
  }

  /// A transient message whose transfers ended gives way to their outcome (unless another
  /// message took its place meanwhile).
  private mutating func replaceAwaitedMessage(_ result: ExchangeResult) {
    guard let awaiting else { return }
    let outcome: StatusMessage
    switch awaiting {
    case .exchange(let name, let shown):
      guard result.request.name == name else { return }
      self.awaiting = nil
      guard message == nil || message == shown else { return }
      switch result.state {
      case .succeeded:
        if let download = result.download, download.complete {
          let file = Redaction(secrets: result.request.secrets).apply(download.file)
          outcome = StatusMessage("\(name): saved to \(file) (\(Formatting.bytes(Int(download.bytes))))")
        } else {
          outcome = StatusMessage("\(name): " + (result.response.map { Formatting.status($0.status) } ?? "succeeded"))
        }
      case .cancelled:
        let kept = result.download.flatMap { $0.resumable ? Formatting.bytes(Int($0.bytes)) : nil }
        outcome = StatusMessage("\(name): cancelled" + (kept.map { "; \($0) kept, r resumes" } ?? ""))
      default:
        outcome = StatusMessage("\(name) failed: \(result.error?.message ?? result.state.rawValue)", isError: true)
      }
    case .cancelAll(let cancelled, let shown):
      let count = cancelled + (result.state == .cancelled ? 1 : 0)
      guard !isBusy else {
        self.awaiting = .cancelAll(cancelled: count, message: shown)
        return
      }
      self.awaiting = nil
      guard message == nil || message == shown else { return }
      outcome = StatusMessage("cancelled everything: \(count) exchange\(count == 1 ? "" : "s") cancelled")
    }
    message = outcome
  }

  mutating func apply(_ event: FlowEvent, run: String) {
    // A step whose capture failed: its exchange row shows the step failed, not `succeeded 200`
    // (chains in batches too).
    if case .stepFinished(_, _, let outcome) = event, let failure = outcome.captureFailure, let id = outcome.exchange?.id {
      mutateRow(id) {
        $0.flowFailure = (state: "failed", message: "capture failed: " + FlowRow.short(failure))
      }
    }
    guard let index = flows.firstIndex(where: { $0.run == run }) else { return }
    let isChain = flows[index].kind == .chain
    switch event {
    case .step(let chain, let batch, let step, let count, _):
      // A chain inside a batch reports its steps too; the row follows only its own chain.
      guard isChain, batch == nil, chain == flows[index].name else { return }
      flows[index].step = step
      flows[index].steps = count
    case .captured(let chain, let batch, let step, let values):
      guard isChain, batch == nil, chain == flows[index].name else { return }
      flows[index].captured += values.map { (step: step, name: $0.name, value: $0.value) }
    case .stepFinished(let chain, let batch, let outcome):
      // A failed step of a chain that goes on shows ✗ while the chain still runs.
      guard isChain, batch == nil, chain == flows[index].name, let step = outcome.step else { return }
      flows[index].stepStates[step] = outcome.state
    case .member(let batch, let member, let done, let total, let outcome):
      guard flows[index].kind == .batch, batch == flows[index].name else { return }
      flows[index].done = done
      flows[index].total = total
      flows[index].members[member] = outcome
    case .finished(let outcome):
      guard outcome.name == flows[index].name, outcome.kind == flows[index].kind else { return }
      flows[index].state = outcome.state
      flows[index].outcome = outcome
      if outcome.kind == .batch {
        flows[index].total = outcome.members.count
        flows[index].done = outcome.members.count
        for (member, result) in outcome.members.enumerated() { flows[index].members[member] = result }
      }
      if outcome.kind == .chain {
        // Step numbers are absolute: a resumed run keeps what the steps before it captured.
        let first = flows[index].firstStep
        for step in outcome.steps { if let number = step.step { flows[index].stepStates[number] = step.state } }
        flows[index].captured = flows[index].captured.filter { $0.step < first }
          + outcome.steps.flatMap { step in
            step.captured.map { (step: step.step ?? 0, name: $0.name, value: $0.value) }
          }
      }
      message = StatusMessage(
        "\(outcome.kind.rawValue) \(outcome.name) \(outcome.state.rawValue)"
          + (FlowRow.detail(outcome).map { ": " + $0 } ?? ""),
        isError: outcome.state == .failed)
    }
  }

  /// A new run's row, newest first; a chain resumed at `fromStep` starts with the earlier steps'
  /// states and values from the latest run of that chain.
  mutating func startFlow(run: String, name: String, kind: FlowOutcome.Kind, fromStep: Int) {
    var row = FlowRow(run: run, name: name, kind: kind)
    if kind == .chain, fromStep > 1 {
      row.firstStep = fromStep
      row.step = fromStep
      let earlier = flows.first { $0.name == name && $0.kind == .chain }
      for step in 1..<fromStep { row.stepStates[step] = earlier?.stepStates[step] ?? .succeeded }
      row.captured = earlier?.captured.filter { $0.step < fromStep } ?? []
    }
    for exchange in exchanges where exchange.flowRun == run {
      if let member = exchange.member {
        row.memberExchanges[member] = row.memberExchanges[member] ?? exchange.id
        if exchange.state != .queued { row.startedMembers.insert(member) }
      }
    }
    // Resuming the run the queue or the viewer shows: they follow the new run.
    let shown = queue.flowSelection?.run ?? viewer.flow
    let resumesShown = fromStep > 1 && shown.flatMap { run in flows.first { $0.run == run } }?.name == name
    flows.insert(row, at: 0)
    if resumesShown { selectQueueFlow(.flow(run: run)) }
  }

  private mutating func mutateRow(_ id: ExchangeID, _ change: (inout ExchangeRow) -> Void) {
    guard let index = exchanges.firstIndex(where: { $0.id == id }) else { return }
    change(&exchanges[index])
  }
}
