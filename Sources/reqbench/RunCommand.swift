import Foundation
import RequestEngine
import Workspace

/// `reqbench run`: sends the named requests of a workspace through the agent and reports them.
struct RunCommand {
  var options: RunOptions

  /// One target being run: its name and either a prepared request or why it could not be built.
  private struct Target {
    var name: String
    var request: Request?
    var prepareError: String?
  }

  func execute() -> Int32 {
    let workspace: Workspace
    do {
      workspace = try Workspace.load(from: URL(fileURLWithPath: options.workspace))
    } catch {
      Terminal.error(error.description)
      return ExitStatus.usage
    }

    let templates: [RequestTemplate]
    if options.all {
      templates = workspace.requests
    } else {
      var found: [RequestTemplate] = []
      for name in options.targets {
        guard let template = workspace.request(named: name) else {
          Terminal.error(unknownTarget(name, in: workspace))
          return ExitStatus.usage
        }
        found.append(template)
      }
      templates = found
    }

    let variables = Dictionary(options.variables, uniquingKeysWith: { _, last in last })
    var targets: [Target] = []
    for template in templates {
      do {
        let request = try workspace.prepare(template, variables: variables, environment: options.environment)
        targets.append(Target(name: template.name, request: request))
      } catch {
        targets.append(Target(name: template.name, prepareError: error.description))
      }
    }

    var configuration = Agent.Configuration(
      maxConcurrent: workspace.agent.maxConcurrent, maxPerHost: workspace.agent.maxPerHost)
    if let n = options.concurrency {
      configuration.maxConcurrent = n
      configuration.maxPerHost = n
    }
    let agent = Agent(configuration: configuration)
    defer { agent.shutdown() }
    let events = EventQueue()
    agent.subscribe { events.push($0) }

    let interrupted = LockedFlag()
    let interruptSource = Signals.onInterrupt {
      interrupted.set()
      agent.cancelAll()
    }
    defer { interruptSource.cancel() }

    let reporter: any Reporter
    if options.json {
      reporter = JSONReporter()
    } else if targets.count == 1 {
      reporter = SingleReporter()
    } else {
      reporter = LinesReporter(total: targets.count, live: Terminal.stderrIsTTY)
    }

    var results: [Int: RunResult] = [:]
    var indexByID: [ExchangeID: Int] = [:]
    for (index, target) in targets.enumerated() {
      if let request = target.request {
        indexByID[agent.send(request)] = index
      } else {
        let result = RunResult(
          name: target.name, state: .failed, status: nil, bytes: 0, durationMs: 0, url: nil,
          error: RunError(kind: "usage", message: target.prepareError ?? "cannot build the request"),
          exchange: nil)
        results[index] = result
        reporter.finished(result)
      }
    }

    while results.count < targets.count {
      let event = events.pop()
      guard let index = indexByID[event.exchangeID] else { continue }
      let name = targets[index].name
      if case .finished(let exchange) = event {
        let result = RunResult(name: name, exchange: exchange)
        results[index] = result
        reporter.finished(result)
      } else {
        reporter.event(event, name: name)
      }
    }

    let ordered = (0..<targets.count).compactMap { results[$0] }
    reporter.summary(ordered)
    Output.standard.flush()
    if interrupted.isSet { return ExitStatus.interrupted }
    if ordered.contains(where: { $0.error?.kind == "usage" }) { return ExitStatus.usage }
    return ordered.allSatisfy { $0.state == .succeeded } ? ExitStatus.success : ExitStatus.failure
  }

  private func unknownTarget(_ name: String, in workspace: Workspace) -> String {
    let names = workspace.requests.map(\.name)
    var message = "reqbench: no request named \"\(name)\" in \(options.workspace)"
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

  init(name: String, exchange: ExchangeResult) {
    self.init(
      name: name, state: exchange.state, status: exchange.response?.status,
      bytes: exchange.response?.body.count ?? 0, durationMs: (exchange.duration * 10_000).rounded() / 10,
      url: exchange.request.url,
      error: exchange.error.map { RunError(kind: $0.kind.rawValue, message: $0.message, path: $0.path) },
      exchange: exchange)
  }
}

struct RunError {
  var kind: String
  var message: String
  var path: String?
}

/// A blocking queue of agent events, filled on the engine thread, drained by the main thread.
final class EventQueue: @unchecked Sendable {
  private let condition = NSCondition()
  private var events: [AgentEvent] = []
  private var head = 0

  func push(_ event: AgentEvent) {
    condition.lock()
    events.append(event)
    condition.signal()
    condition.unlock()
  }

  func pop() -> AgentEvent {
    condition.lock()
    defer { condition.unlock() }
    while head >= events.count { condition.wait() }
    let event = events[head]
    head += 1
    if head > 1024 && head * 2 > events.count {
      events.removeFirst(head)
      head = 0
    }
    return event
  }
}

final class LockedFlag: @unchecked Sendable {
  private let lock = NSLock()
  private var value = false
  func set() { lock.withLock { value = true } }
  var isSet: Bool { lock.withLock { value } }
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
