import Base
import CommandLineSupport
import Flows
import Foundation
import History
import RequestEngine
import Sessions
import TerminalUI
import Workbench
import Workspace

/// `reqbench run` with batches and chains among the targets: each target runs through the
/// `FlowRunner`; the output nests members and steps.
struct FlowCommand {
  var options: RunOptions
  var workspace: Workspace
  var workspaceURL: URL
  var secrets: SecretsFile
  /// The command's watch of termination signals (`RunCommand` starts it).
  var interruption: Signals.Interruption

  /// What the main thread waits for: the agent's events, the flows' events, the outcomes.
  enum Message {
    case agent(AgentEvent)
    case flow(FlowEvent)
    case done(Int, FlowOutcome)
  }

  func execute() -> Int32 {
    for name in options.targets where !workspace.targetNames.contains(name) {
      Terminal.error(unknownTargetMessage(name, names: workspace.targetNames, file: options.workspace))
      return ExitStatus.usage
    }
    if let step = options.fromStep {
      for name in options.targets {
        guard let chain = workspace.chain(named: name) else {
          Terminal.error("reqbench: --from-step applies to chains; \(name) is not one")
          return ExitStatus.usage
        }
        guard step <= chain.steps.count else {
          Terminal.error("reqbench: \(name) has \(chain.steps.count) steps; --from-step \(step) is past the end")
          return ExitStatus.usage
        }
      }
    }
    guard let stateFolder = CLI.stateFolder(forWorkspace: workspaceURL, override: options.stateDirectory) else {
      return ExitStatus.usage
    }
    // The history's writer opens the database (and checkpoints) while the flow starts.
    let history = options.history ? HistoryStore(stateFolder: stateFolder, limits: workspace.history.limits) : nil
    history?.prepareForRecording()
    let agent = CLI.makeAgent(for: workspace, stateFolder: stateFolder, concurrency: options.concurrency)
    defer { agent.shutdown() }
    var sources = VariableSources(
      overrides: Dictionary(options.variables, uniquingKeysWith: { _, last in last }),
      environment: options.environment, secrets: secrets)
    let cookies = options.cookies ? CLI.cookieJars(stateFolder: stateFolder) : nil
    // Read before a signal has a handler: a signal while a large jar loads ends the command at once.
    _ = cookies?.jar(environment: options.environment)
    sources.cookies = cookies
    defer { cookies?.flush() }
    let tokens = CLI.runTokens(stateFolder: stateFolder, workspace: options.workspace)
    sources.oauth2 = tokens
    defer { tokens.flush() }
    let runner = FlowRunner(agent: agent, workspace: workspace, sources: sources)
    // What the last run of each chain captured: `--from-step N` continues with the values the
    // steps before N captured (a `--var` of the same name still wins).
    let captures = ChainCaptures(folder: StateFolder.chains(in: stateFolder))

    let queue = BlockingQueue<Message>()
    let json = options.json
    let testReport = RunReport(options: options, workspace: workspace)
    // `--report`: stdout holds the report alone; the lines and captures are not written.
    let lines = options.report == nil
    // One hand-over per pass of the engine loop, however many exchanges ended in it.
    // Lines need only the ends; --json every event but the headers (the engine makes no others).
    agent.subscribeBatches(kinds: json ? AgentEventKinds.all.subtracting(.headers) : .finished) { batch in
      queue.push(contentsOf: batch.map { .agent($0) })
    }
    let runs = Locked<[FlowRunner.Run]>([])
    interruption.handle {
      for run in runs.get() { run.cancel() }
      agent.cancelAll()
    }

    for (index, name) in options.targets.enumerated() {
      var captured: [(String, String)] = []
      if let step = options.fromStep, step > 1 {
        captured = captures.values(for: name, before: step)
        // Names only: the values may be tokens.
        Terminal.error(
          captured.isEmpty
            ? "reqbench: no values kept from an earlier run of \(name); give what steps 1-\(step - 1) capture with --var"
            : "reqbench: \(name) from step \(step) with \(captured.map(\.0).joined(separator: ", ")) captured by its last run")
      }
      let run = runner.start(
        name, fromStep: options.fromStep ?? 1, captured: captured,
        events: { event in
          // Lines show only captures; JSON shows every flow event.
          if json { queue.push(.flow(event)) } else if lines, case .captured = event { queue.push(.flow(event)) }
        }
      ) { queue.push(.done(index, $0)) }
      runs.mutate { $0.append(run) }
    }
    interruption.handleAgainIfInterrupted()  // a Ctrl-C while they started cancels them all

    // What each exchange is (its name and batch / chain / step tags), from its `queued` event:
    // the later events carry only its id.
    var exchanges: [ExchangeID: Request] = [:]
    var outcomes = [(outcome: FlowOutcome, ended: Date)?](repeating: nil, count: options.targets.count)
    var remaining = options.targets.count
    while remaining > 0 {
      // The exchanges that ended in this hand-over go to the history writer together.
      var finished: [(result: ExchangeResult, name: String)] = []
      defer { history?.recordInBackground(finished) }
      for message in queue.popAll() {
        switch message {
        case .agent(let event):
          if case .finished(let result) = event { finished.append((result, result.request.name)) }
          report(event.redacted(), exchanges: &exchanges)
        case .flow(let event):
          report(event)
        case .done(let index, let outcome):
          outcomes[index] = (outcome, Date())
          if outcome.kind == .chain {
            do throws(FileError) {
              try captures.save(outcome)
            } catch {
              Terminal.error("reqbench: cannot keep what \(outcome.name) captured: \(error)")
            }
          }
          remaining -= 1
        }
      }
      // What this batch printed goes out now: one write per batch of events, not per line.
      Output.standard.flush()
    }
    // Only the last commit is waited for.
    history?.waitForBackgroundRecords()
    let ended = outcomes.compactMap { $0 }
    let results = ended.map(\.outcome)
    if options.json {
      let summary = JSONObject([
        ("event", "summary"),
        ("succeeded", .number(results.count(where: { $0.state == .succeeded }))),
        ("failed", .number(results.count(where: { $0.state == .failed }))),
        ("cancelled", .number(results.count(where: { $0.state == .cancelled }))),
        ("results", .array(results.map { .object(FlowFormat.json($0, redaction: redaction)) })),
      ])
      Output.standard.json(.object(summary))
    } else {
      for outcome in results where lines && outcome.kind != .request {
        Output.standard.line(FlowFormat.line(outcome))
      }
      Terminal.error(Format.counts(results.map(\.state)))
    }
    Output.standard.flush()
    let reported = !testReport.wanted || testReport.emit(testReport.report(ended, workspace: workspace, redaction: redaction))
    KeptUntilExit.keep((outcomes, ended, results, workspace))
    if interruption.interrupted { return interruption.exitStatus }
    if results.contains(where: { $0.errorKind == "usage" || $0.steps.contains { $0.errorKind == "usage" } }) {
      return ExitStatus.usage
    }
    return results.allSatisfy { $0.state == .succeeded } && reported ? ExitStatus.success : ExitStatus.failure
  }

  /// One line per ended exchange (prefixed with its batch and chain), or JSON events.
  /// `exchanges` holds the request of every exchange queued and not yet finished, so that events
  /// carrying only an id are written with its name, batch, chain and step too.
  private func report(_ event: AgentEvent, exchanges: inout [ExchangeID: Request]) {
    if options.json {
      var object: JSONObject
      /// `{"event": …, "name": …, "id": …}` plus the exchange's batch, chain and step.
      func named(_ event: String, _ id: ExchangeID) -> JSONObject {
        var object = JSONObject([
          ("event", .string(event)), ("name", exchanges[id].map { .string($0.name) } ?? .null),
          ("id", .number(Int(id.rawValue))),
        ])
        FlowFormat.addTags(exchanges[id]?.tags ?? [:], to: &object)
        return object
      }
      switch event {
      case .queued(let id, let request):
        exchanges[id] = request
        object = named("queued", id)
      case .started(let id, let attempt):
        object = named("started", id)
        object["attempt"] = .number(attempt)
      case .progress(let id, let p):
        object = named("progress", id)
        object["downloaded"] = .number(Int(p.downloaded))
      case .joined(let id, let primary):
        object = named("joined", id)
        object["primary"] = .number(Int(primary.rawValue))
      case .retrying(let id, let attempt, let delay, let reason):
        object = named("retrying", id)
        object["attempt"] = .number(attempt)
        object["delayMs"] = .number(delay * 1000)
        object["reason"] = .string(reason.message)
      case .delivered(let result), .finished(let result):
        if case .finished = event { exchanges[result.id] = nil }
        object = JSONObject([("event", "finished")] + Format.json(RunResult(name: result.request.name, exchange: result, revealing: options.revealSecrets)).members.map { ($0.key, $0.value) })
        object["id"] = .number(Int(result.id.rawValue))
        FlowFormat.addTags(result.request.tags, to: &object)
      case .streamEvents(let id, let streamed):
        let name = exchanges[id]?.name ?? ""
        let tags = exchanges[id]?.tags ?? [:]
        let prefix = StreamEvent.jsonPrefix(name: name, exchange: id)
        Output.standard.jsonObjects(count: streamed.count) { index, line in
          streamed[index].writeJSON(after: prefix, into: &line)
          FlowFormat.addTags(tags, to: &line)
        }
        return
      case .reconnecting(let id, let count, let delay, let reason):
        object = Format.reconnectEvent(name: exchanges[id]?.name ?? "", id: id, count: count, delay: delay, reason: reason)
        FlowFormat.addTags(exchanges[id]?.tags ?? [:], to: &object)
      case .headers, .paused, .resumed:  // (only the TUI pauses)
        return
      }
      Output.standard.json(.object(object))
    } else if options.report == nil, case .finished(let result) = event {
      let prefix = FlowFormat.prefix(result.request.tags)
      Output.standard.line(Format.line(RunResult(name: prefix + result.request.name, exchange: result, revealing: options.revealSecrets)))
    }
  }

  /// Secrets' values masked (`••••`) wherever a captured value is shown.
  private var redaction: Redaction {
    Redaction(secrets: secrets.names.compactMap { secrets.value(of: $0) })
  }

  private func report(_ event: FlowEvent) {
    guard options.json else {
      if case .captured(let chain, let batch, let index, let values) = event {
        // A value is a server's: every control character escaped, line breaks too (one line each).
        let shown = values.map { "\($0.name)=\(FlowFormat.short(ControlEscaping.visible(redaction.apply($0.value))))" }
          .joined(separator: " ")
        Output.standard.line("  \(batch.map { $0 + " › " } ?? "")\(chain) step \(index) captured \(shown)")
      }
      return
    }
    var object: JSONObject
    /// `{"event": …}` with the batch a chain runs in, when it runs in one.
    func flowObject(_ event: String, batch: String?, _ members: [(String, JSONValue)]) -> JSONObject {
      var object = JSONObject([("event", .string(event))])
      if let batch { object["batch"] = .string(batch) }
      for (key, value) in members { object[key] = value }
      return object
    }
    switch event {
    case .step(let chain, let batch, let index, let count, let request):
      object = flowObject("step", batch: batch, [("chain", .string(chain)), ("step", .number(index)), ("of", .number(count)), ("request", .string(request))])
    case .captured(let chain, let batch, let index, let values):
      object = flowObject("captured", batch: batch, [("chain", .string(chain)), ("step", .number(index)),
        ("values", .object(JSONObject(values.map { (key: $0.name, value: .string(redaction.apply($0.value))) })))])
    case .stepFinished(let chain, let batch, let outcome):
      object = flowObject("stepFinished", batch: batch, [("chain", .string(chain)), ("step", outcome.step.map { .number($0) } ?? .null),
        ("name", .string(outcome.name)), ("state", .string(outcome.state.rawValue))])
      if outcome.state != .succeeded, let message = outcome.message { object["message"] = .string(message) }
    case .member(let batch, let index, let done, let total, let outcome):
      object = JSONObject([("event", "member"), ("batch", .string(batch)), ("index", .number(index)), ("done", .number(done)), ("of", .number(total)),
        ("name", .string(outcome.name)), ("kind", .string(outcome.kind.rawValue)), ("state", .string(outcome.state.rawValue))])
      if outcome.state != .succeeded, let message = outcome.message { object["message"] = .string(message) }
    case .finished(let outcome):
      guard outcome.kind != .request else { return }
      object = JSONObject([("event", "flow")] + FlowFormat.json(outcome, redaction: redaction).members.map { ($0.key, $0.value) })
    }
    Output.standard.json(.object(object))
  }
}

/// How flow outcomes are written: nested JSON, and a line per batch or chain.
enum FlowFormat {
  /// `redaction` masks secrets' values in what was captured.
  static func json(_ outcome: FlowOutcome, redaction: Redaction = Redaction(secrets: [])) -> JSONObject {
    var object: JSONObject
    if outcome.kind == .request, let exchange = outcome.exchange {
      object = Format.json(RunResult(name: outcome.name, exchange: exchange))
      // A step whose capture failed: its exchange succeeded, the step did not.
      object["state"] = .string(outcome.state.rawValue)
    } else {
      object = JSONObject([("name", .string(outcome.name)), ("state", .string(outcome.state.rawValue))])
    }
    object["kind"] = .string(outcome.kind.rawValue)
    if let step = outcome.step, outcome.kind == .request { object["step"] = .number(step) }
    if outcome.exchange == nil || outcome.errorKind == "capture" {
      object["error"] =
        outcome.message.map {
          .object(JSONObject([("kind", .string(outcome.errorKind ?? "usage")), ("message", .string($0))]))
        } ?? .null
    } else if outcome.kind != .request, let message = outcome.message {
      object["error"] = .object(JSONObject([("kind", .string(outcome.errorKind ?? "member")), ("message", .string(message))]))
    }
    if !outcome.captured.isEmpty {
      object["captured"] = .object(JSONObject(outcome.captured.map { (key: $0.name, value: .string(redaction.apply($0.value))) }))
    }
    if outcome.kind == .batch {
      // A batch is from the cache when every member was.
      object["fromCache"] = .bool(outcome.fromCache)
      object["members"] = .array(outcome.members.map { .object(json($0, redaction: redaction)) })
      object["succeeded"] = .number(outcome.members.count(where: { $0.state == .succeeded }))
      object["failed"] = .number(outcome.members.count(where: { $0.state == .failed }))
      object["cancelled"] = .number(outcome.members.count(where: { $0.state == .cancelled }))
    }
    if outcome.kind == .chain {
      object["steps"] = .array(outcome.steps.map { .object(json($0, redaction: redaction)) })
      if let step = outcome.step { object["failedStep"] = .number(step) }
    }
    return object
  }

  /// `✓ batch smoke  3/3 succeeded` or `✗ chain login-flow  1/3 steps, failed at step 2 of 3 (users/me): …`.
  static func line(_ outcome: FlowOutcome) -> String {
    let mark = outcome.state == .succeeded ? "✓" : (outcome.state == .cancelled ? "⊘" : "✗")
    var line = "\(mark) \(outcome.kind.rawValue) \(outcome.name)"
    switch outcome.kind {
    case .batch:
      // Counted, not filtered: a filtered copy of a thousand members was the batch's peak memory.
      let ok = outcome.members.count(where: { $0.state == .succeeded })
      line += "  \(ok)/\(outcome.members.count) succeeded"
    case .chain:
      // Against the chain's every step: a resumed run counts the steps before it as done.
      let total = outcome.stepCount ?? outcome.steps.count
      let before = (outcome.steps.first?.step ?? 1) - 1
      let ok = before + outcome.steps.count(where: { $0.state == .succeeded })
      line += "  \(ok)/\(total) steps"
      // A chain stopped at a step: `failed at step 2 of 3 (users/me): status 401 …`.
      if outcome.state != .succeeded, let step = outcome.step,
        let stopped = outcome.steps.last, stopped.step == step, stopped.state != .succeeded
      {
        let verb = outcome.state == .cancelled ? "cancelled" : "failed"
        line += ", \(verb) at step \(step) of \(total) (\(stopped.name))"
        if outcome.state == .failed, let message = stopped.message { line += ": " + message }
        return line
      }
    case .request:
      break
    }
    if outcome.state != .succeeded, let message = outcome.message { line += "  " + message }
    return line
  }

  static func prefix(_ tags: [String: String]) -> String {
    var parts: [String] = []
    if let batch = tags["batch"] { parts.append(batch) }
    if let chain = tags["chain"] {
      parts.append(chain + (tags["step"].map { " \($0)/\(tags["steps"] ?? "?")" } ?? ""))
    }
    return parts.isEmpty ? "" : parts.joined(separator: " › ") + " › "
  }

  static func addTags(_ tags: [String: String], to object: inout JSONObject) {
    if let batch = tags["batch"] { object["batch"] = .string(batch) }
    if let chain = tags["chain"] { object["chain"] = .string(chain) }
    if let step = tags["step"].flatMap(Int.init) { object["step"] = .number(step) }
  }

  /// The same members written after a line's own (a stream event's).
  static func addTags(_ tags: [String: String], to line: inout JSONObjectWriter) {
    if let batch = tags["batch"] { line.member("batch", batch) }
    if let chain = tags["chain"] { line.member("chain", chain) }
    if let step = tags["step"].flatMap(Int.init) { line.member("step", step) }
  }

  static func short(_ value: String) -> String {
    value.count > 24 ? String(value.prefix(21)) + "…" : value
  }
}
