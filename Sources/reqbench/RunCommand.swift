import CommandLineSupport
import Foundation
import History
import RequestEngine
import Sessions
import Workspace

/// `reqbench run`: sends the named requests of a workspace through the agent and reports them.
struct RunCommand {
  var options: RunOptions

  func execute() -> Int32 {
    // From the first moment: a Ctrl-C while the workspace is read ends the command at once.
    let interruption = Signals.Interruption()
    defer { interruption.cancel() }
    let workspaceURL = URL(fileURLWithPath: options.workspace)
    guard let workspace = CommandWorkspace.load(options.workspace) else { return ExitStatus.usage }
    guard let secrets = CLI.loadSecrets(forWorkspace: workspaceURL) else { return ExitStatus.usage }

    if options.fromStep != nil && !options.all
      && !options.targets.contains(where: { workspace.chain(named: $0) != nil })
    {
      Terminal.error("reqbench: --from-step applies to chains; name a chain")
      return ExitStatus.usage
    }
    // An unknown environment is one usage error, not one per request.
    guard CLI.knowsEnvironment(options.environment, in: workspace, file: options.workspace) else {
      return ExitStatus.usage
    }
    if let path = options.junit, let problem = RunReport.problem(with: path, workspace: options.workspace) {
      Terminal.error("reqbench: \(problem)")
      return ExitStatus.usage
    }
    let templates: [RequestTemplate]
    if options.all {
      templates = workspace.requests
    } else {
      var found: [RequestTemplate] = []
      for name in options.targets {
        if workspace.batch(named: name) != nil || workspace.chain(named: name) != nil {
          // Batches and chains run through the flow runner (with any requests named beside them).
          return FlowCommand(
            options: options, workspace: workspace, workspaceURL: workspaceURL, secrets: secrets,
            interruption: interruption
          ).execute()
        }
        if let template = workspace.request(named: name) {
          found.append(template)
        } else if name.hasSuffix("/"), case let folder = workspace.requests.filter({ $0.name.hasPrefix(name) }),
          !folder.isEmpty
        {
          found.append(contentsOf: folder)  // a folder: every request in it, in file order
        } else {
          Terminal.error(unknownTargetMessage(name, names: workspace.targetNames, file: options.workspace))
          return ExitStatus.usage
        }
      }
      templates = found
    }

    guard let stateFolder = CLI.stateFolder(forWorkspace: workspaceURL, override: options.stateDirectory) else {
      return ExitStatus.usage
    }
    // Every finished exchange goes to the workspace's history, written by its writer thread,
    // which opens the database now, while the requests are built and sent.
    let history: HistoryStore? = options.history ? HistoryStore(stateFolder: stateFolder, limits: workspace.history.limits) : nil
    history?.prepareForRecording()
    let agent = CLI.makeAgent(for: workspace, stateFolder: stateFolder, concurrency: options.concurrency)
    defer { agent.shutdown() }

    // The environment's cookie jar, written after the exchanges that changed it. Read before a
    // signal has a handler: a signal while a large jar loads ends the command at once.
    let cookies = options.cookies ? CLI.cookieJars(stateFolder: stateFolder) : nil
    _ = cookies?.jar(environment: options.environment)

    // Bounded by the stream events' bytes waiting to be printed: when stdout is slower than the
    // stream, the engine waits for room (as `curl -N` waits on its stdout) instead of the queue
    // holding the stream. A Ctrl-C lifts the bound so the engine sees the cancel at once.
    let events = BlockingQueue<AgentEvent>(limit: Self.pendingStreamBytes)
    interruption.handle {
      events.release()
      agent.cancelAll()
    }

    let report = RunReport(options: options, workspace: workspace)
    let reporter: any Reporter
    if options.report != nil {
      reporter = SummaryReporter()
    } else if options.json {
      reporter = JSONReporter()
    } else if templates.count == 1 {
      reporter = SingleReporter(live: Terminal.stderrIsTTY)
    } else {
      reporter = LinesReporter(total: templates.count, live: Terminal.stderrIsTTY)
    }

    let historyWarning = Locked(false)
    let historyFailed: @Sendable (FileError) -> Void = { error in
      if !historyWarning.get() {
        historyWarning.set(true)
        Terminal.error("reqbench: warning: history not recorded: \(error.description)")
      }
    }

    // One hand-over per pass of the engine loop, however many exchanges ended in it, of the
    // events the reporter prints: the ends, a retry's wait (told on stderr even when nothing
    // else live is, like curl's "Will retry in 1 seconds"), a stream's events as they come, and
    // the rest only when it shows progress. The engine does not make the others.
    let kinds: AgentEventKinds =
      reporter.wantsProgress ? AgentEventKinds.all.subtracting(.headers) : [.finished, .retrying, .reconnecting, .streamEvents]
    agent.subscribeBatches(kinds: kinds) { batch in
      var weight = 0
      for case .streamEvents(_, let streamed) in batch { weight += Self.weight(of: streamed) }
      events.push(contentsOf: batch, weight: weight)
    }

    // Each request is sent as soon as it is built, so the engine works while the rest are built.
    var sources = VariableSources(
      overrides: Dictionary(options.variables, uniquingKeysWith: { _, last in last }),
      environment: options.environment, secrets: secrets)
    sources.cookies = cookies
    defer { cookies?.flush() }
    let tokens = CLI.runTokens(stateFolder: stateFolder, workspace: options.workspace)
    sources.oauth2 = tokens
    defer { tokens.flush() }
    var results = [RunResult?](repeating: nil, count: templates.count)
    var finishedCount = 0
    var indexByID: [ExchangeID: Int] = [:]
    for (index, template) in templates.enumerated() {
      do {
        let request = try workspace.prepare(template, sources: sources)
        indexByID[agent.send(request)] = index
      } catch {
        let result = RunResult(
          name: template.name, state: .failed, status: nil, bytes: 0, durationMs: 0, url: nil,
          error: RunError(kind: "usage", message: error.locatedMessage), exchange: nil)
        results[index] = result
        finishedCount += 1
        reporter.finished(result)
      }
    }
    interruption.handleAgainIfInterrupted()  // a Ctrl-C during the sends cancels them all

    while finishedCount < templates.count {
      // The exchanges that ended in this hand-over (an engine pass's) are recorded together.
      var recorded: [(result: ExchangeResult, name: String)] = []
      for event in events.popAll() {
        guard let index = indexByID[event.exchangeID] else { continue }
        let name = templates[index].name
        if case .finished(let exchange) = event {
          var result = RunResult(name: name, exchange: exchange, revealing: options.revealSecrets)
          recorded.append((exchange, name))
          finishedCount += 1
          reporter.finished(result)
          if !reporter.summaryReadsExchanges { result.exchange = nil }
          results[index] = result
        } else {
          // Reporters print what events carry: the request's secrets masked.
          reporter.event(event.redacted(), name: name)
        }
      }
      history?.recordInBackground(recorded, failed: historyFailed)
      // What this batch printed goes out now: one write per batch of events, not per line.
      Output.standard.flush()
    }

    events.release()  // nothing is taken from now on
    // Only the last commit is waited for.
    history?.waitForBackgroundRecords()
    for notice in history?.takeNotices() ?? [] { Terminal.error("reqbench: \(notice)") }
    let ordered = results.compactMap { $0 }
    reporter.summary(ordered)
    Output.standard.flush()
    let reported = !report.wanted || report.emit(report.report(ordered))
    KeptUntilExit.keep((results, ordered, workspace, templates))
    if interruption.interrupted { return interruption.exitStatus }
    if ordered.contains(where: { $0.error?.kind == "usage" }) { return ExitStatus.usage }
    return ordered.allSatisfy { $0.state == .succeeded } && reported ? ExitStatus.success : ExitStatus.failure
  }

  /// The most stream data handed over and not yet printed before the engine waits (4 MB: tens
  /// of thousands of small events, enough for the engine to read ahead while `run` writes).
  static let pendingStreamBytes = 4 << 20

  /// What a batch of stream events weighs in the queue: its data, and a little for each event.
  static func weight(of events: [StreamEvent]) -> Int {
    events.reduce(0) { $0 + $1.data.utf8.count + 64 }
  }
}

/// The outcome of one target, as every output format reports it.
struct RunResult {
  var name: String
  var state: ExchangeState
  var status: Int?
  var bytes: Int
  var durationMs: Double
  var url: String?
  var error: RunError?
  var exchange: ExchangeResult?

  init(
    name: String, state: ExchangeState, status: Int?, bytes: Int, durationMs: Double, url: String?,
    error: RunError?, exchange: ExchangeResult?
  ) {
    self.name = name
    self.state = state
    self.status = status
    self.bytes = bytes
    self.durationMs = durationMs
    self.url = url
    self.error = error
    self.exchange = exchange
  }

  /// Every output names no secret's value: the URL, the error and a download's file (a path made
  /// from a secret) are masked, and cookie values (`Cookie`, `Set-Cookie`) unless `revealing`
  /// (`--reveal-secrets`).
  init(name: String, exchange: ExchangeResult, revealing: Bool = false) {
    let redaction = Redaction(secrets: exchange.request.secrets)
    var exchange = revealing ? exchange : exchange.cookiesMasked
    if let file = exchange.download?.file { exchange.download?.file = redaction.apply(file) }
    self.init(
      name: name, state: exchange.state, status: exchange.response?.status,
      bytes: exchange.download.map { Int($0.bytes) } ?? exchange.response?.body.count ?? 0, durationMs: (exchange.duration * 10_000).rounded() / 10,
      url: exchange.request.redacted().url,
      error: exchange.error.map {
        RunError(kind: $0.kind.rawValue, message: redaction.apply($0.message), path: $0.path.map(redaction.apply))
      },
      exchange: exchange)
  }
}

struct RunError {
  var kind: String
  var message: String
  var path: String?
}

/// `no request named "get-usr" in demo.json; did you mean "get-user"?`: the error for a target
/// that is not in the workspace, with the closest name or the list of names.
func unknownTargetMessage(_ name: String, names: [String], file: String) -> String {
  var message = "reqbench: no request named \"\(name)\" in \(file)"
  if let close = names.min(by: { editDistance($0, name) < editDistance($1, name) }),
    editDistance(close, name) <= max(2, name.count / 3)
  {
    message += "; did you mean \"\(close)\"?"
  } else if !names.isEmpty {
    message += "; it has: " + names.prefix(20).joined(separator: ", ") + (names.count > 20 ? ", …" : "")
  } else {
    message += "; it has no requests"
  }
  return message
}

/// Levenshtein distance, for "did you mean" suggestions.
func editDistance(_ a: String, _ b: String) -> Int {
  let a = Array(a), b = Array(b)
  if a.isEmpty { return b.count }
  if b.isEmpty { return a.count }
  var previous = Array(0...b.count)
  for i in 1...a.count {
    var current = [i] + Array(repeating: 0, count: b.count)
    for j in 1...b.count {
      current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.count]
}
