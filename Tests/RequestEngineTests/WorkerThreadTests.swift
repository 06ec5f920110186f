import Foundation
import RequestEngine
import Testing

/// `WorkerThread`: work in the order given, delayed work when due and after what was due before
/// it, `sync` returning the work's value after what came before, `concurrentPerform` running
/// every index once.
@Suite("WorkerThread")
struct WorkerThreadTests {
  final class Log: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ item: String) { lock.withLock { items.append(item) } }
    var all: [String] { lock.withLock { items } }
  }

  @Test func workRunsInOrderAndDelayedWorkWhenDue() {
    let worker = WorkerThread(name: "test-order")
    let log = Log()
    worker.after(seconds: 0.2) { log.add("late") }
    worker.after(seconds: 0.05) { log.add("soon") }
    for index in 0..<50 { worker.async { log.add("now \(index)") } }
    // `sync` runs after everything given before it that is due.
    let count = worker.sync { log.all.count }
    #expect(count == 50)
    #expect(log.all == (0..<50).map { "now \($0)" })
    let deadline = Date().addingTimeInterval(10)
    while log.all.count < 52, Date() < deadline { usleep(10_000) }
    #expect(log.all.suffix(2) == ["soon", "late"])
  }

  @Test func syncGivesTheWorksValueAndRunsOnTheWorker() {
    let worker = WorkerThread(name: "test-sync")
    var caller = ""
    let name = worker.sync { () -> String in
      caller = Thread.current.name ?? ""
      return "done"
    }
    #expect(name == "done")
    #expect(caller == "test-sync")
    // Many in a row: each returns, none is left holding the caller's closure.
    var sum = 0
    for index in 0..<1_000 { sum += worker.sync { index } }
    #expect(sum == 499_500)
  }

  @Test(arguments: [0, 1, 2, 7])
  func concurrentPerformRunsEveryIndexOnce(iterations: Int) {
    let log = Log()
    WorkerThread.concurrentPerform(iterations: iterations) { log.add("\($0)") }
    #expect(log.all.sorted() == (0..<iterations).map { "\($0)" }.sorted())
  }

  @Test func aWorkerGoneWithNothingDueEndsItsThread() {
    let log = Log()
    do {
      let worker = WorkerThread(name: "test-gone")
      worker.async { log.add("ran") }
      _ = worker.sync { 0 }
      worker.after(seconds: 60) { log.add("never") }
    }
    // The owner is gone: the delayed work is dropped, not waited for.
    usleep(100_000)
    #expect(log.all == ["ran"])
  }
}
