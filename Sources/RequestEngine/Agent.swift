import CCurl
import Foundation
import Synchronization

/// The agent records and runs every exchange of the app: one queue, global and per-host
/// concurrency limits, priorities, cancel one / a group / all, and one event stream.
///
/// One engine thread owns every curl handle (a curl multi handle). The public methods may be
/// called from any thread: they post a command and wake the engine.
///
/// ```swift
/// let agent = Agent()
/// agent.subscribe { event in print(event) }
/// let id = agent.send(Request(name: "users", url: "http://127.0.0.1:8080/users"))
/// agent.cancel(id)
/// ```
public final class Agent: Sendable {
  public struct Configuration: Sendable {
    /// Transfers running at once, over all hosts.
    public var maxConcurrent: Int
    /// Transfers running at once to one `scheme://host:port`.
    public var maxPerHost: Int
    public var proxy: ProxySettings
    /// Bodies larger than this go to a temporary file.
    public var memoryBodyLimit: Int
    /// The most bytes a response body may have when its request sets no `maxBodyBytes`
    /// (1024 MB; see `Request.maxBodyBytes`).
    public var maxBodyBytes: Int64 = Configuration.defaultMaxBodyBytes
    public static let defaultMaxBodyBytes: Int64 = 1024 << 20
    /// Host names mapped to addresses for every request (curl's `--resolve`): tests and
    /// development servers reach a name without the system's resolver.
    public var resolve: [HostMapping] = []
    public var spillDirectory: String
    /// Minimum seconds between two progress events of one exchange.
    public var progressInterval: Double
    /// Sent when a request sets no `User-Agent` header.
    public var userAgent: String
    /// `reqbench/VERSION`: the default `userAgent`.
    public static let defaultUserAgent = "reqbench/\(reqbenchVersion)"
    /// The response cache requests with a `cache` policy use; nil turns caching off.
    public var cache: ResponseCache?
    /// Where downloads keep their partial data and resume state (default: a folder in
    /// `spillDirectory`, which a reboot may clear).
    public var downloads: DownloadStore
    /// The events of a stream kept in memory per exchange (`StreamLog`): the last this many…
    public var streamMaxEvents = 10_000
    /// …within this many bytes of data; the whole stream is in the body either way.
    public var streamMaxBytes = 32 << 20
    /// The most bytes kept of one event's data (`StreamParser.maxEventBytes`).
    public var streamMaxEventBytes = 16 << 20
    /// Seconds an SSE stream with `reconnect` waits before it connects again when the server
    /// set no `retry`.
    public var reconnectDelay = 3.0

    public init(
      maxConcurrent: Int = 8, maxPerHost: Int = 6,
      proxy: ProxySettings = .fromEnvironment(ProcessInfo.processInfo.environment),
      memoryBodyLimit: Int = 16 << 20, spillDirectory: String = NSTemporaryDirectory(),
      progressInterval: Double = 0.05, userAgent: String = Configuration.defaultUserAgent,
      cache: ResponseCache? = nil, downloads: DownloadStore? = nil
    ) {
      self.maxConcurrent = max(1, maxConcurrent)
      self.maxPerHost = max(1, maxPerHost)
      self.proxy = proxy
      self.memoryBodyLimit = memoryBodyLimit
      self.spillDirectory = spillDirectory.hasSuffix("/") ? String(spillDirectory.dropLast()) : spillDirectory
      self.progressInterval = progressInterval
      self.userAgent = userAgent
      self.cache = cache
      self.downloads = downloads ?? DownloadStore(directory: self.spillDirectory + "/reqbench-downloads")
    }
  }

  public typealias Completion = @Sendable (ExchangeResult) -> Void

  enum Command {
    case send(ExchangeID, Request, Completion?)
    case cancel(ExchangeID)
    case cancelGroup(String)
    case cancelAll
    case pause(ExchangeID)
    case resume(ExchangeID)
    case reprioritise(ExchangeID, Priority)
    case setLimits(maxConcurrent: Int, maxPerHost: Int)
    case subscribe(UInt64, @Sendable (AgentEvent) -> Void)
    case subscribeBatches(UInt64, AgentEventKinds, @Sendable ([AgentEvent]) -> Void)
    case unsubscribe(UInt64)
    case shutdown
    /// A download's file was checked and moved into place (or not), off the engine thread.
    case downloadFinalized(FinalizeJob, Result<Int64, DownloadFinalizer.Failure>)
    /// The `Authorizer` of a waiting exchange answered (the ticket `Engine.authorize` gave it).
    case authorized(UInt64, Authorizer.Outcome)
  }

  public let configuration: Configuration
  private let inbox: Inbox
  private let engineThread: EngineThread

  public init(configuration: Configuration = Configuration()) {
    Curl.initializeOnce()
    self.configuration = configuration
    let inbox = Inbox()
    self.inbox = inbox
    self.engineThread = EngineThread(configuration: configuration, inbox: inbox)
    engineThread.start()
  }

  deinit {
    shutdown()
  }

  /// Queues `request` and returns the new exchange's id. `completion` runs once, on the engine
  /// thread, after the exchange's `finished` event went to the subscribers.
  @discardableResult
  public func send(_ request: Request, completion: Completion? = nil) -> ExchangeID {
    let id = inbox.nextID()
    post(.send(id, request, completion))
    return id
  }

  /// Sends and blocks the calling thread until the exchange ends (never call it on the engine
  /// thread, i.e. from an event handler).
  public func sendAndWait(_ request: Request) -> ExchangeResult {
    let box = ResultBox()
    send(request) { box.put($0) }
    return box.wait()
  }

  /// Cancels one exchange: queued, running or waiting to retry. It ends `cancelled` (exactly one
  /// `finished` event) unless it already ended.
  public func cancel(_ id: ExchangeID) { post(.cancel(id)) }

  /// Cancels every exchange whose request has this `group`.
  public func cancel(group: String) { post(.cancelGroup(group)) }

  /// Cancels every exchange that has not ended.
  public func cancelAll() { post(.cancelAll) }

  /// Pauses an exchange: a queued one leaves the queue, a running one's transfer is held still
  /// (it keeps its connection and its slot; its idle timeout waits). `paused` follows; nothing
  /// happens to an exchange that waits to retry, is a waiter (dedup), or ended.
  public func pause(_ id: ExchangeID) { post(.pause(id)) }

  /// Lets a paused exchange go on where it was (`resumed` follows).
  public func resume(_ id: ExchangeID) { post(.resume(id)) }

  /// A new priority for an exchange that has not started: its place in the queue moves.
  public func reprioritise(_ id: ExchangeID, to priority: Priority) { post(.reprioritise(id, priority)) }

  /// New concurrency limits, from the next start on (running transfers are not stopped).
  public func setLimits(maxConcurrent: Int, maxPerHost: Int) {
    post(.setLimits(maxConcurrent: maxConcurrent, maxPerHost: maxPerHost))
  }

  /// Registers an event handler. Handlers run on the engine thread, in event order: keep them
  /// short (hand the event to your own queue); they may call the agent's methods.
  @discardableResult
  public func subscribe(_ handler: @escaping @Sendable (AgentEvent) -> Void) -> Subscription {
    let token = inbox.nextToken()
    post(.subscribe(token, handler))
    return Subscription(token: token)
  }

  /// Registers a handler for the events of one pass of the engine loop at a time, in order:
  /// the same events as `subscribe`, handed over once per pass instead of once per event. For
  /// a consumer on another thread this means one wake-up per pass, however many exchanges
  /// started, progressed or ended in it. `send` completions run at the end of the pass, after
  /// the batch holding their `finished` events was handed over. Handlers run on the engine
  /// thread.
  /// `kinds`: the events this handler is given (all by default); the engine does not build
  /// an event no subscriber wants, and a pass with none of these kinds is not handed over.
  @discardableResult
  public func subscribeBatches(
    kinds: AgentEventKinds = .all, _ handler: @escaping @Sendable ([AgentEvent]) -> Void
  ) -> Subscription {
    let token = inbox.nextToken()
    post(.subscribeBatches(token, kinds, handler))
    return Subscription(token: token)
  }

  public func unsubscribe(_ subscription: Subscription) { post(.unsubscribe(subscription.token)) }

  /// Exchanges that have not ended: (queued or waiting to retry, running).
  public var activeCounts: (queued: Int, running: Int) { inbox.counts }

  /// Cancels everything, waits for the `cancelled` events and stops the engine thread; then lets
  /// the cache's sweep finish (at most 10 s), so a short-lived process does not cut it off.
  public func shutdown() {
    guard inbox.beginShutdown() else { return }
    post(.shutdown)
    engineThread.join()
    configuration.cache?.waitForSweep()
  }

  private func post(_ command: Command) {
    if inbox.post(command) { engineThread.wake() }
  }

  /// Stops the engine thread of every agent of the process still running and waits until each
  /// has ended, its thread-local clean-ups included. A program calls it before `exit`: `exit`
  /// runs the libraries' own clean-ups (OpenSSL's frees the locks an ending thread takes), which
  /// must not meet an engine thread still at work. `shutdown` does the same for one agent; this
  /// also covers agents still alive and one shut down from its own engine thread.
  public static func stopEveryEngine() {
    EngineThreads.stopAll()
  }

  public struct Subscription: Sendable, Hashable {
    let token: UInt64
  }
}

/// The reqbench version, part of the User-Agent and (later) of cache keys.
public let reqbenchVersion = "0.1.0"

enum Curl {
  private static let initialized: Bool = {
    curl_global_init(Int(CURL_GLOBAL_ALL))
    return true
  }()

  static func initializeOnce() { _ = initialized }
}

/// Commands from any thread to the engine thread, plus the counters the agent publishes.
final class Inbox: Sendable {
  private struct State {
    var commands: [Agent.Command] = []
    var lastID: UInt64 = 0
    var lastToken: UInt64 = 0
    var shuttingDown = false
    var queuedCount = 0
    var runningCount = 0
  }
  private let state = Mutex(State())

  /// Queues a command; returns whether the inbox was empty, i.e. whether the engine needs a
  /// wake-up (otherwise one is already on its way and the engine drains everything at once).
  func post(_ command: Agent.Command) -> Bool {
    state.withLock {
      $0.commands.append(command)
      return $0.commands.count == 1
    }
  }

  func drain() -> [Agent.Command] {
    state.withLock {
      let taken = $0.commands
      $0.commands.removeAll(keepingCapacity: true)
      return taken
    }
  }

  func nextID() -> ExchangeID {
    state.withLock {
      $0.lastID += 1
      return ExchangeID(rawValue: $0.lastID)
    }
  }

  func nextToken() -> UInt64 {
    state.withLock {
      $0.lastToken += 1
      return $0.lastToken
    }
  }

  func beginShutdown() -> Bool {
    state.withLock {
      if $0.shuttingDown { return false }
      $0.shuttingDown = true
      return true
    }
  }

  var counts: (queued: Int, running: Int) { state.withLock { ($0.queuedCount, $0.runningCount) } }

  var isEmpty: Bool { state.withLock { $0.commands.isEmpty } }

  func publish(queued: Int, running: Int) {
    state.withLock {
      $0.queuedCount = queued
      $0.runningCount = running
    }
  }
}

/// A one-shot slot a thread can wait on.
final class ResultBox: @unchecked Sendable {
  private let condition = NSCondition()
  private var result: ExchangeResult?

  func put(_ value: ExchangeResult) {
    condition.lock()
    result = value
    condition.signal()
    condition.unlock()
  }

  func wait() -> ExchangeResult {
    condition.lock()
    defer { condition.unlock() }
    while true {
      if let result { return result }
      condition.wait()
    }
  }
}
