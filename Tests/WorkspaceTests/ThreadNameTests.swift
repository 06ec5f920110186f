import Foundation
import History
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// reqbench's own threads carry names the system shows (`top -H`, `perf`,
/// `/proc/PID/task/*/comm`), so a profile of a run tells the engine from the history writer.
@Suite("Thread names")
struct ThreadNameTests {
  /// The names of this process's threads, as the system has them.
  private func threadNames() -> [String] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.compactMap { task in
      (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
        .trimmingCharacters(in: .newlines)
    }
  }

  @Test func theEngineAndTheHistoryWriterAreNamed() throws {
    let root = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    let agent = Agent(configuration: .init(maxConcurrent: 1, maxPerHost: 1))
    defer { agent.shutdown() }
    let store = HistoryStore(stateFolder: root.appendingPathComponent("state"))
    store.prepareForRecording()
    let deadline = Date().addingTimeInterval(5)
    var names = threadNames()
    while !(names.contains("rb-engine") && names.contains("rb-history")) && Date() < deadline {
      usleep(10_000)
      names = threadNames()
    }
    #expect(names.contains("rb-engine"), "threads: \(names)")
    #expect(names.contains("rb-history"), "threads: \(names)")
  }

  @Test func aLongNameIsCutToWhatTheSystemKeeps() throws {
    let seen = LockedBox<String?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
      ThreadName.setCurrent("reqbench.a-long-thread-name")
      seen.set(try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))
      done.signal()
    }
    thread.start()
    #expect(done.wait(timeout: .now() + 5) == .success)
    #expect(seen.get() == "reqbench.a-long\n")
  }
}
