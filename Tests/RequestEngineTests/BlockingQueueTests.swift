import Foundation
import RequestEngine
import Testing

/// The queue between the engine thread and a command's (`run`): its bound holds whatever the
/// threads' timing, and `release` lifts it. No timed assertions: the bound is checked on what
/// each take held.
@Suite("Blocking queue")
struct BlockingQueueTests {
  @Test func aBoundedQueueNeverHoldsMoreThanItsLimitAndOneBatch() {
    let queue = BlockingQueue<Int>(limit: 20)
    let batches = 300
    let producer = Thread {
      // Each item is the weight of its batch of one.
      for _ in 0..<batches { queue.push(contentsOf: [5], weight: 5) }
    }
    producer.start()
    var taken = 0
    var largest = 0
    for _ in 0..<batches {  // each take gets at least one batch
      let items = queue.popAll()
      largest = max(largest, items.reduce(0, +))
      taken += items.count
      if taken == batches { break }
      usleep(200)  // a consumer slower than the producer
    }
    #expect(taken == batches)
    // A push waits while 20 or more is pending: at most 15 + 5 is ever there.
    #expect(largest <= 20)
    #expect(queue.pendingWeight == 0)
  }

  @Test func releaseLetsAWaitingProducerGoOnWithoutAConsumer() {
    let queue = BlockingQueue<Int>(limit: 1)
    let done = DispatchSemaphore(value: 0)
    let producer = Thread {
      for value in 0..<100 { queue.push(contentsOf: [value], weight: 1) }
      done.signal()
    }
    producer.start()
    // Nothing is taken: the producer waits after its first push until the bound is lifted.
    queue.release()
    #expect(done.wait(timeout: .now() + 20) == .success)
    #expect(queue.popAll() == Array(0..<100))
  }

  @Test func anUnboundedQueueTakesEverythingPushed() {
    let queue = BlockingQueue<String>()
    queue.push("a")
    queue.push(contentsOf: ["b", "c"], weight: 1_000_000)
    queue.push(contentsOf: [], weight: 5)
    #expect(queue.popAll() == ["a", "b", "c"])
    #expect(queue.pendingWeight == 0)
  }
}
