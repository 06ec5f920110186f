import CCurl
import Foundation
import Synchronization

/// The engine thread: owns the curl multi handle and every easy handle, runs the queue.
///
/// Loop: take commands → start what the core schedules → `curl_multi_perform` → collect finished
/// transfers → enforce idle timeouts → `curl_multi_poll` until the next timer or a wake-up.
/// The engine is the `AgentCore`'s driver: it tells the core what happened and performs what
/// the core decides on curl's handles.
/// When nothing is queued, running or waiting to retry it sleeps in `curl_multi_poll` until a
/// command arrives: no periodic wake-ups.
///
/// A joinable POSIX thread, not a Foundation `Thread`: `join` returns only once the thread has
/// ended, its thread-local clean-ups included. OpenSSL's run when a thread that used it ends,
/// and take its global locks; had `join` returned when the loop ended (a semaphore), the
/// process's `exit` could free those locks (OpenSSL's `atexit` clean-up) while the ending engine
/// thread still took them: a crash at exit, once in a few thousand short runs.
final class EngineThread: @unchecked Sendable {
  private let multi: UnsafeMutableRawPointer
  private let engine: Engine
  private let inbox: Inbox
  /// Guards `multi` against a wake-up after it was cleaned up (a download finalizer may report
  /// after the agent shut down).
  private let life: EngineLife
  private var thread: pthread_t?

  init(configuration: Agent.Configuration, inbox: Inbox) {
    // curl_multi_init only fails when out of memory.
    guard let multi = curl_multi_init() else { preconditionFailure("curl_multi_init failed: out of memory") }
    self.multi = multi
    self.inbox = inbox
    self.life = EngineLife(multi: multi)
    rb_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(configuration.maxConcurrent * 2, 16))
    self.engine = Engine(multi: multi, configuration: configuration, inbox: inbox)
    engine.wake = { [weak self] in self?.wake() }
  }

  func start() {
    let body = Body(engine: engine, life: life)
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, 4 << 20)
    var thread = pthread_t()
    let context = Unmanaged.passRetained(body).toOpaque()
    let status = pthread_create(&thread, &attributes, { context in
      Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
      return nil
    }, context)
    guard status == 0 else { preconditionFailure("pthread_create failed: \(String(cString: strerror(status)))") }
    self.thread = thread
    let inbox = self.inbox
    let life = self.life
    EngineThreads.register(thread) {
      // Stopping an agent nobody shut down: what `Agent.shutdown` does, without waiting.
      if inbox.beginShutdown(), inbox.post(.shutdown) { life.wake() }
      life.detach()
    }
  }

  func wake() { life.wake() }

  /// Waits until the thread has ended and cleans up the multi handle.
  func join() {
    // Shutdown from the engine thread itself (an event handler, or a completion that held the
    // last reference to the agent): it cannot wait for itself; it cleans up when its loop ends,
    // and `EngineThreads` joins it (at the next start or join of any engine, or at the end of
    // the process, `Agent.stopEveryEngine`).
    if life.isEngineThread {
      life.detach()
      return
    }
    if let thread { EngineThreads.join(thread) }
    life.cleanUp()
  }

  /// What the thread runs; holds what it needs, not the `EngineThread` (whose owner may go first).
  private final class Body {
    let engine: Engine
    let life: EngineLife
    init(engine: Engine, life: EngineLife) {
      self.engine = engine
      self.life = life
    }

    func run() {
      ThreadName.setCurrent("rb-engine")
      life.started()
      engine.run()
      if life.isDetached { life.cleanUp() }
      EngineThreads.ended(pthread_self())
    }
  }
}

/// Every engine thread of the process that has not been joined, so that none is still running
/// (or still ending) when the process exits: `Agent.stopEveryEngine` stops and joins them all. A
/// thread that ended on its own (its agent shut down from the engine thread) is joined by the
/// next start or join of any engine thread, so such threads do not pile up in a long process.
enum EngineThreads {
  /// One thread's join, made once however many callers wait for it (its owner's `join` and
  /// `stopAll` may both): the first joins, the others wait until it has.
  private final class Joiner: @unchecked Sendable {
    let thread: pthread_t
    let stop: @Sendable () -> Void
    private let condition = NSCondition()
    private var state = State.running
    private(set) var ended = false
    private enum State { case running, joining, joined }

    init(thread: pthread_t, stop: @escaping @Sendable () -> Void) {
      self.thread = thread
      self.stop = stop
    }

    func markEnded() { condition.withLock { ended = true } }
    var hasEnded: Bool { condition.withLock { ended } }

    func join() {
      condition.lock()
      switch state {
      case .running:
        state = .joining
        condition.unlock()
        pthread_join(thread, nil)
        condition.lock()
        state = .joined
        condition.broadcast()
      case .joining:
        while state != .joined { condition.wait() }
      case .joined:
        break
      }
      condition.unlock()
    }
  }

  private static let threads = Mutex<[pthread_t: Joiner]>([:])

  static func register(_ thread: pthread_t, stop: @escaping @Sendable () -> Void) {
    threads.withLock { $0[thread] = Joiner(thread: thread, stop: stop) }
    joinEnded()
  }

  /// The thread's loop is over; it is about to return (and run its thread-local clean-ups).
  static func ended(_ thread: pthread_t) {
    threads.withLock { $0[thread] }?.markEnded()
  }

  /// Waits until `thread` has ended.
  static func join(_ thread: pthread_t) {
    let joiner = threads.withLock { $0[thread] }
    joiner?.join()
    threads.withLock { threads in
      if let joiner, threads[thread] === joiner { threads[thread] = nil }
    }
    joinEnded()
  }

  /// Asks every engine thread still running to stop, and waits until each has ended.
  static func stopAll() {
    let all = threads.withLock { Array($0.values) }
    for joiner in all where !joiner.hasEnded { joiner.stop() }
    for joiner in all { joiner.join() }
    threads.withLock { threads in
      for joiner in all where threads[joiner.thread] === joiner { threads[joiner.thread] = nil }
    }
  }

  /// Joins the threads whose loops are over (a moment's wait at most: they are returning).
  private static func joinEnded() {
    // Removed only once joined: an owner's `join` that comes meanwhile waits for the same join.
    let ended = threads.withLock { $0.values.filter(\.hasEnded) }
    for joiner in ended { joiner.join() }
    threads.withLock { threads in
      for joiner in ended where threads[joiner.thread] === joiner { threads[joiner.thread] = nil }
    }
  }
}

/// The engine thread's identity and the multi handle's life, shared by the thread and its owner.
/// A wake-up after the clean-up (a download finalizer reporting late) is a no-op.
final class EngineLife: @unchecked Sendable {
  private let multi: UnsafeMutableRawPointer
  private let lock = NSLock()
  /// The engine's pthread. (Not `Thread.name`: on Linux a thread started by `Thread` does not
  /// carry the name set before `start()`; inside it reads the dispatch queue's name.)
  private var thread: pthread_t?
  private var alive = true
  private var detached = false

  init(multi: UnsafeMutableRawPointer) { self.multi = multi }

  func started() { lock.withLock { thread = pthread_self() } }

  var isEngineThread: Bool {
    lock.withLock { thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
  }

  func detach() { lock.withLock { detached = true } }
  var isDetached: Bool { lock.withLock { detached } }

  func wake() {
    lock.withLock {
      if alive { curl_multi_wakeup(multi) }
    }
  }

  func cleanUp() {
    lock.withLock {
      guard alive else { return }
      alive = false
      curl_multi_cleanup(multi)
    }
  }
}
