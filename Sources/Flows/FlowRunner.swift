import Foundation
import RequestEngine
import Synchronization
import Workspace

/// Runs batches (YTKBatchRequest, XPNetworking's all-settled batches) and chains
/// (YTKChainRequest) through an agent. Thread-safe: the agent's completions arrive on its engine
/// thread; `start` and `cancel` may be called from any thread.
///
/// Exchanges a flow sends carry tags: `batch`, `member` (the index in the batch's `members`),
/// `chain`, `step` (1-based), `steps`, and `flow` (the run's id, also the request's `group`, so
/// the agent can cancel the whole flow at once).
public final class FlowRunner: @unchecked Sendable {
  public typealias EventHandler = @Sendable (FlowEvent) -> Void

  private let agent: Agent
  private let workspace: Workspace
  private let sources: VariableSources
  /// Run ids are unique in the process: runners sharing an agent never share a group.
  private static let lastID = Atomic(0)
  /// Where each request is in the workspace's list, by name (a batch may name a thousand of
  /// them; positions rather than copies of the templates, which were a tenth of a batch's memory).
  private let templateIndex: [String: Int]

  public init(agent: Agent, workspace: Workspace, sources: VariableSources) {
    self.agent = agent
    self.workspace = workspace
    self.sources = sources
    self.templateIndex = Dictionary(
      workspace.requests.indices.map { (workspace.requests[$0].name, $0) }, uniquingKeysWith: { first, _ in first })
  }

  /// A flow being run; `cancel` stops it: everything still running is cancelled, nothing more
  /// starts.
  public final class Run: Sendable {
    private struct State {
      var cancelled = false
      var exchanges: Set<ExchangeID> = []
      var children: [Run] = []
    }
    private let state = Mutex(State())
    fileprivate let agent: Agent
    public let id: String

    fileprivate init(id: String, agent: Agent) {
      self.id = id
      self.agent = agent
    }

    public func cancel() {
      let (ids, children): (Set<ExchangeID>, [Run]) = state.withLock {
        $0.cancelled = true
        return ($0.exchanges, $0.children)
      }
      for id in ids { agent.cancel(id) }
      for child in children { child.cancel() }
    }

    /// A run for a batch member, cancelled with this one.
    fileprivate func child() -> Run {
      let child = Run(id: id, agent: agent)
      let cancelled = state.withLock {
        $0.children.append(child)
        return $0.cancelled
      }
      if cancelled { child.cancel() }
      return child
    }

    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    fileprivate func track(_ id: ExchangeID) -> Bool {
      state.withLock {
        $0.exchanges.insert(id)
        return !$0.cancelled
      }
    }

    fileprivate func untrack(_ id: ExchangeID) { state.withLock { _ = $0.exchanges.remove(id) } }
  }

  /// Starts a request, batch or chain by name; `completion` gets its outcome once.
  /// A chain can start at `fromStep` (1-based) with values captured before (resume).
  /// `id` names the run (its exchanges' `flow` tag) when the caller has a unique name for it.
  @discardableResult
  public func start(
    _ name: String, id: String? = nil, fromStep: Int = 1, captured: [(String, String)] = [],
    events: @escaping EventHandler = { _ in }, completion: @escaping @Sendable (FlowOutcome) -> Void
  ) -> Run {
    let id = id ?? "flow-\(FlowRunner.lastID.wrappingAdd(1, ordering: .relaxed).newValue)"
    let run = Run(id: id, agent: agent)
    let finish: @Sendable (FlowOutcome) -> Void = { outcome in
      events(.finished(outcome))
      completion(outcome)
    }
    if let batch = workspace.batch(named: name) {
      runBatch(batch, run, events, finish)
    } else if let chain = workspace.chain(named: name) {
      runChain(chain, from: fromStep, captured: captured, tags: [:], run, events, finish)
    } else {
      runRequest(name, captured: captured, tags: [:], run) { result in
        finish(result)
      }
    }
    return run
  }

  // MARK: - Requests

  /// A chain step's own `vars` and where they come from (for errors).
  private struct StepVariables {
    var values: [(name: String, value: String)]
    var description: String
  }

  private func runRequest(
    _ name: String, captured: [(String, String)], stepVariables: StepVariables? = nil,
    tags: [String: String], limit: GroupLimit? = nil,
    _ run: Run, _ done: @escaping @Sendable (FlowOutcome) -> Void
  ) {
    var outcome = FlowOutcome(kind: .request, name: name, state: .failed)
    guard !run.isCancelled else {
      outcome.state = .cancelled
      outcome.message = "cancelled"
      outcome.errorKind = "cancelled"
      return done(outcome)
    }
    guard let index = templateIndex[name] else {
      outcome.message = "no request named \(JSONSerializer.quote(name))"
      outcome.errorKind = "usage"
      return done(outcome)
    }
    var sources = self.sources
    for (key, value) in captured { sources.captured[key] = value }
    if let stepVariables {
      sources.stepVariables = stepVariables.values
      sources.stepDescription = stepVariables.description
    }
    var request: Request
    do {
      request = try workspace.prepare(workspace.requests[index], sources: sources)
    } catch {
      outcome.message = error.locatedMessage
      outcome.errorKind = "usage"
      return done(outcome)
    }
    request.tags = tags.merging(["flow": run.id]) { $1 }
    request.group = run.id
    request.limit = limit
    let id = agent.send(request) { result in
      run.untrack(result.id)
      var outcome = FlowOutcome(kind: .request, name: name, state: result.state)
      outcome.exchange = result
      outcome.errorKind = result.error?.kind.rawValue
      outcome.message = result.error?.message
      done(outcome)
    }
    if !run.track(id) { agent.cancel(id) }  // cancelled while it was being sent
  }

  // MARK: - Chains

  private func runChain(
    _ chain: Chain, from first: Int, captured initial: [(String, String)], tags: [String: String],
    limit: GroupLimit? = nil,
    _ run: Run, _ events: @escaping EventHandler, _ done: @escaping @Sendable (FlowOutcome) -> Void
  ) {
    let state = ChainState(chain: chain, captured: initial)
    if chain.steps.isEmpty {
      // An empty chain has nothing to do: it succeeds at once (pinned).
      var outcome = FlowOutcome(kind: .chain, name: chain.name, state: .succeeded)
      outcome.captured = initial.map { (name: $0.0, value: $0.1) }
      outcome.stepCount = 0
      return done(outcome)
    }
    runStep(max(1, first), state, tags, limit, run, events, done)
  }

  private final class ChainState: @unchecked Sendable {
    let chain: Chain
    var captured: [(String, String)]
    var steps: [FlowOutcome] = []
    init(chain: Chain, captured: [(String, String)]) {
      self.chain = chain
      self.captured = captured
    }
  }

  private func runStep(
    _ index: Int, _ state: ChainState, _ tags: [String: String], _ limit: GroupLimit?, _ run: Run,
    _ events: @escaping EventHandler, _ done: @escaping @Sendable (FlowOutcome) -> Void
  ) {
    let chain = state.chain
    guard index <= chain.steps.count else {
      var outcome = FlowOutcome(kind: .chain, name: chain.name, state: .succeeded)
      outcome.steps = state.steps
      outcome.stepCount = chain.steps.count
      outcome.captured = state.captured.map { (name: $0.0, value: $0.1) }
      // Continue-on-failure: the chain ran to its end and fails when a step did.
      let failures = state.steps.filter { $0.state != .succeeded }
      if let first = failures.first {
        outcome.state = .failed
        outcome.step = first.step
        outcome.errorKind = "step"
        outcome.message =
          "\(failures.count) of \(chain.steps.count) steps failed (the chain went on): "
          + failures.map { "step \($0.step ?? 0) (\($0.name)): \($0.message ?? "")" }.joined(separator: "; ")
      }
      return done(outcome)
    }
    let step = chain.steps[index - 1]
    events(.step(chain: chain.name, batch: tags["batch"], index: index, count: chain.steps.count, request: step.request))
    var stepTags = tags
    stepTags["chain"] = chain.name
    stepTags["step"] = String(index)
    stepTags["steps"] = String(chain.steps.count)
    // The step's own variables are filled in when its request is prepared, from every source
    // (captures, `--var`, the environment, `variables`, `env.`, `secret.`); an undefined one
    // fails the step before anything is sent.
    let variables = StepVariables(
      values: step.vars,
      description: "step \(index) (\(step.request)) of chain \(JSONSerializer.quote(chain.name))")
    runRequest(
      step.request, captured: state.captured, stepVariables: variables, tags: stepTags, limit: limit, run
    ) { [self] result in
      var outcome = result
      outcome.step = index
      var failed = result.state != .succeeded
      if !failed, let exchange = result.exchange {
        switch FlowRunner.capture(step.capture, from: exchange) {
        case .success(let captured):
          outcome.captured = captured.map { (name: $0.0, value: $0.1) }
          if !captured.isEmpty {
            events(.captured(chain: chain.name, batch: tags["batch"], index: index, values: outcome.captured))
          }
          state.captured += captured
        case .failure(let failure):
          outcome.state = .failed
          outcome.message = failure.message
          outcome.captureFailure = failure
          outcome.errorKind = "capture"
          failed = true
        }
      }
      state.steps.append(outcome)
      events(.stepFinished(chain: chain.name, batch: tags["batch"], outcome: outcome))
      if failed, outcome.state == .cancelled || chain.onFailure == .stop {
        // A failed step stops the chain; later steps are never sent.
        var chainOutcome = FlowOutcome(kind: .chain, name: chain.name, state: outcome.state == .cancelled ? .cancelled : .failed)
        chainOutcome.steps = state.steps
        chainOutcome.captured = state.captured.map { (name: $0.0, value: $0.1) }
        chainOutcome.step = index
        chainOutcome.stepCount = chain.steps.count
        chainOutcome.message =
          outcome.state == .cancelled
          ? "step \(index) (\(step.request)) was cancelled"
          : "step \(index) (\(step.request)) failed: \(FlowRunner.detail(outcome.message ?? "", of: step.request))"
        chainOutcome.errorKind = outcome.state == .cancelled ? "cancelled" : "step"
        return done(chainOutcome)
      }
      runStep(index + 1, state, tags, limit, run, events, done)
    }
  }

  /// The largest body a jq capture reads (64 MB): a capture loads and parses the whole body.
  public static let captureBodyLimit = 64 << 20

  /// `2.0 GB`, `65.0 MB`: a body's size in a capture failure.
  private static func sizeText(_ count: Int) -> String {
    count >= 1 << 30
      ? String(format: "%.1f GB", Double(count) / Double(1 << 30)) : String(format: "%.1f MB", Double(count) / Double(1 << 20))
  }

  /// The values a step captures from its response, or why one found nothing.
  public static func capture(_ captures: [(name: String, source: Capture)], from exchange: ExchangeResult)
    -> Result<[(String, String)], CaptureFailure>
  {
    var values: [(String, String)] = []
    for capture in captures {
      switch capture.source {
      case .status:
        guard let status = exchange.response?.status else {
          return .failure(CaptureFailure(capture: capture.name, source: "status", reason: "there is no status"))
        }
        values.append((capture.name, String(status)))
      case .header(let name):
        guard let value = exchange.response?.headers[name] else {
          return .failure(CaptureFailure(capture: capture.name, source: "header:\(name)", reason: "the response has no header \(name)"))
        }
        values.append((capture.name, value))
      case .event(let expression):
        let source = capture.source.text
        guard let stream = exchange.stream, let last = stream.last else {
          return .failure(CaptureFailure(capture: capture.name, source: source, reason: "the response was not a stream of events"))
        }
        guard let expression else {
          values.append((capture.name, last.data))
          continue
        }
        // The last event first: the value of the latest event where the expression finds one.
        var found: String?
        for event in stream.kept.reversed() {
          guard let value = try? JQ.run(expression, input: Array(event.data.utf8), pretty: false)
            .split(separator: "\n").first.map(String.init), !value.isEmpty, value != "null"
          else { continue }
          found = value
          break
        }
        guard let found else {
          return .failure(
            CaptureFailure(capture: capture.name, source: source, reason: "found nothing in the \(stream.kept.count) events kept",
              message: "capture \(capture.name): \(source) found nothing in the \(stream.kept.count) events kept"))
        }
        values.append((capture.name, Self.unquoted(found)))
      case .jq(let expression):
        let response = exchange.response?.body ?? .empty
        // One line: the start of the body with its line breaks and indentation as single spaces.
        let shown =
          String(decoding: response.prefix(300), as: UTF8.self).split(whereSeparator: \.isWhitespace).joined(separator: " ")
          + (response.count > 300 ? "…" : "")
        // A capture loads the body and parses it whole: bounded well below the body cap.
        guard response.count <= captureBodyLimit else {
          let reason =
            "the body is \(sizeText(response.count)), over the \(captureBodyLimit >> 20) MB a capture reads"
          return .failure(
            CaptureFailure(capture: capture.name, source: expression, reason: reason, body: shown,
              message: "capture \(capture.name): \(expression): \(reason); capture from a smaller response"))
        }
        let body = (try? response.bytes()) ?? []
        do {
          let output = try JQ.run(expression, input: body, pretty: false)
          let first = output.split(separator: "\n").first.map(String.init) ?? ""
          guard !first.isEmpty, first != "null" else {
            return .failure(
              CaptureFailure(capture: capture.name, source: expression, reason: "found nothing", body: shown,
                message: "capture \(capture.name): \(expression) found nothing in the body: \(shown)"))
          }
          values.append((capture.name, Self.unquoted(first)))
        } catch {
          return .failure(
            CaptureFailure(capture: capture.name, source: expression, reason: JQ.summary(error.message), body: shown,
              message: "capture \(capture.name): \(expression): \(JQ.summary(error.message)); the body: \(shown)"))
        }
      }
    }
    return .success(values)
  }

  /// A jq output line as a captured value: a string without its quotes, anything else as its
  /// JSON text.
  static func unquoted(_ line: String) -> String {
    if line.hasPrefix("\""), case .string(let text)? = try? JSONParser.parse(line) { return text }
    return line
  }

  /// A member's or step's message without its own name in front (a request that could not be
  /// built says `users/get: undefined variable …`), for messages that name it already.
  static func detail(_ message: String, of name: String) -> String {
    message.hasPrefix(name + ": ") ? String(message.dropFirst(name.count + 2)) : message
  }

  /// Why a capture found nothing (the type lives beside `FlowOutcome`, which carries it).
  public typealias CaptureFailure = FlowOutcome.CaptureFailure

  // MARK: - Batches

  /// A batch run's progress (`BatchProgress`, the rules) and its members' runs, shared by the
  /// members' completions (on the engine thread and others).
  private final class BatchState: Sendable {
    struct Shared {
      var progress: BatchProgress
      var members: [Run] = []
    }
    let shared: Mutex<Shared>
    init(_ progress: BatchProgress) { shared = Mutex(Shared(progress: progress)) }
  }

  private func runBatch(
    _ batch: Batch, _ run: Run, _ events: @escaping EventHandler, _ done: @escaping @Sendable (FlowOutcome) -> Void
  ) {
    let kinds = batch.members.map { workspace.chain(named: $0) != nil ? FlowOutcome.Kind.chain : .request }
    let state = BatchState(BatchProgress(batch: batch, kinds: kinds))
    if batch.members.isEmpty {
      return done(FlowOutcome(kind: .batch, name: batch.name, state: .succeeded))
    }
    startMembers(batch, state, run, events, done)
  }

  /// Starts every member at once; the agent keeps at most `concurrency` of their transfers
  /// running (a `GroupLimit` named after the run), so a member starts the moment another ends
  /// without a round trip through the runner.
  private func startMembers(
    _ batch: Batch, _ state: BatchState, _ run: Run, _ events: @escaping EventHandler,
    _ done: @escaping @Sendable (FlowOutcome) -> Void
  ) {
    let limit = GroupLimit(name: run.id + "/" + batch.name, max: batch.concurrency)
    for (index, member) in batch.members.enumerated() {
      let tags = ["batch": batch.name, "member": String(index)]
      let started = state.shared.withLock { $0.progress.start(index) }
      guard started else { break }
      let memberRun = run.child()
      state.shared.withLock { $0.members.append(memberRun) }
      let memberDone: @Sendable (FlowOutcome) -> Void = { [self] outcome in
        memberFinished(batch, index, outcome, state, run, events, done)
      }
      if let chain = workspace.chain(named: member) {
        runChain(chain, from: 1, captured: [], tags: tags, limit: limit, memberRun, events, memberDone)
      } else {
        runRequest(member, captured: [], tags: tags, limit: limit, memberRun, memberDone)
      }
    }
  }

  private func memberFinished(
    _ batch: Batch, _ index: Int, _ outcome: FlowOutcome, _ state: BatchState, _ run: Run,
    _ events: @escaping EventHandler, _ done: @escaping @Sendable (FlowOutcome) -> Void
  ) {
    let (cancelOthers, doneCount) = state.shared.withLock { $0.progress.memberEnded(index, outcome) }
    events(.member(batch: batch.name, index: index, done: doneCount, total: batch.members.count, outcome: outcome))
    if cancelOthers || run.isCancelled {
      // Fail fast: the others are cancelled on the wire at once; nothing more starts.
      for member in state.shared.withLock({ $0.members }) { member.cancel() }
    }
    let cancelled = run.isCancelled
    if let result = state.shared.withLock({ $0.progress.settle(runCancelled: cancelled) }) { done(result) }
  }
}
