import Foundation
import RequestEngine
import TestSupport
import Testing

/// When `shutdown` returns, the engine thread has ended, its thread-local clean-ups included, not
/// only its loop: a program may `exit` right after, and `exit` runs OpenSSL's clean-ups, which
/// free the locks that an ending thread's own clean-up (OpenSSL's thread-stop handler) takes: the
/// shape of a rare crash at exit. The tests put a thread-local value with a slow destructor on
/// the engine thread, as OpenSSL does, and check it ran before the call returned.
@Suite("Engine thread", .serialized)
struct EngineThreadTests {
  /// Counts the destructor runs of values set on engine threads.
  static let finished = LockedBox(0)
  static let key: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { _ in
      usleep(50_000)  // a slow clean-up: a join that does not wait for it returns first
      EngineThreadTests.finished.mutate { $0 += 1 }
    }
    return key
  }()

  /// Sends one request through `agent` and gives its engine thread a thread-local value.
  static func markEngineThread(of agent: Agent, then: (@Sendable () -> Void)? = nil) throws {
    let key = Self.key
    let done = DispatchSemaphore(value: 0)
    agent.send(Request(url: try nginx("/1k.bin"))) { _ in
      pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
      then?()
      done.signal()
    }
    #expect(done.wait(timeout: .now() + 10) == .success)
  }

  @Test func theThreadHasEndedWhenShutdownReturns() throws {
    for _ in 0..<3 {
      let before = Self.finished.get()
      let agent = Agent()
      try Self.markEngineThread(of: agent)
      agent.shutdown()
      #expect(Self.finished.get() == before + 1, "the engine thread's clean-ups ran before shutdown returned")
    }
  }

  /// Set in the child process that the process-wide tests run in (`Agent.stopEveryEngine` stops
  /// every agent of the process, the other tests' too).
  static let inChild = ProcessInfo.processInfo.environment["REQBENCH_ENGINE_THREAD_CHILD"] == "1"

  /// Runs `test` of this suite in a child process of its own, where it does its work; true in
  /// the child.
  static func isolated(_ test: String) throws -> Bool {
    if inChild { return true }
    let status = try runChildTest(
      filter: "EngineThreadTests/\(test)", environment: ["REQBENCH_ENGINE_THREAD_CHILD": "1"])
    #expect(status == 0, "the child running \(test) ended with \(status.map(String.init) ?? "a signal")")
    return false
  }

  // An agent shut down from its own engine thread (its last reference dropped in a completion)
  // cannot wait for itself; stopEveryEngine, what a program calls before exit, does.
  @Test func stopEveryEngineWaitsForAThreadThatShutItselfDown() throws {
    guard try Self.isolated("stopEveryEngineWaitsForAThreadThatShutItselfDown") else { return }
    let before = Self.finished.get()
    let agent = LockedBox<Agent?>(Agent())
    try Self.markEngineThread(of: try #require(agent.get())) {
      agent.get()?.shutdown()  // on the engine thread itself
      agent.set(nil)
    }
    Agent.stopEveryEngine()
    #expect(Self.finished.get() == before + 1)
  }

  // An agent nobody shut down is stopped, its thread ended; a send after that does not hang.
  @Test func stopEveryEngineStopsAnAgentStillRunning() throws {
    guard try Self.isolated("stopEveryEngineStopsAnAgentStillRunning") else { return }
    let before = Self.finished.get()
    let agent = Agent()
    try Self.markEngineThread(of: agent)
    Agent.stopEveryEngine()
    #expect(Self.finished.get() == before + 1)
    agent.shutdown()
  }
}
