import Foundation

/// A queue between threads, drained in batches: the agent's events on their way from the engine
/// thread to a command's thread (`run`, `flow`).
///
/// With a `limit`, it is bounded: a push waits while the items not yet taken weigh `limit` or
/// more (a batch of stream events weighs its events' bytes), so a consumer slower than the
/// network (stdout into a slow pipe) holds the producer back, as `curl -N` is held back by its
/// stdout, instead of the queue growing with the stream. What is pending stays under `limit`
/// plus one batch. `release()` lifts the bound for good (an interrupted command must not leave
/// the engine waiting on a consumer that stopped taking).
public final class BlockingQueue<Element>: @unchecked Sendable {
  private let condition = NSCondition()
  private var items: [Element] = []
  private var waiting = false
  /// The weight of `items`.
  private var pending = 0
  /// Producers waiting for room.
  private var producersWaiting = 0
  private var limit: Int?

  /// `limit`: the most weight pending before a push waits; nil: unbounded.
  public init(limit: Int? = nil) {
    self.limit = limit.map { max(1, $0) }
  }

  public func push(_ item: Element) {
    push(contentsOf: [item], weight: 0)
  }

  /// Several items with one hand-over (at most one wake-up of the waiting thread). With a
  /// `limit`, first waits while what is pending weighs `limit` or more.
  public func push(contentsOf batch: [Element], weight: Int = 0) {
    guard !batch.isEmpty else { return }
    condition.lock()
    while let limit, pending >= limit {
      producersWaiting += 1
      condition.wait()
      producersWaiting -= 1
    }
    items.append(contentsOf: batch)
    pending += max(0, weight)
    let wake = waiting
    condition.unlock()
    // Signalled after unlocking: the woken thread does not then block at once on the lock this
    // thread still holds (one futex wake per hand-over instead of two). `waiting` was set under
    // the lock by a thread that is now inside `wait`, so the signal cannot be lost.
    if wake { condition.broadcast() }
  }

  /// Everything pushed so far, oldest first; waits until there is something.
  public func popAll() -> [Element] {
    condition.lock()
    while items.isEmpty {
      waiting = true
      condition.wait()
      waiting = false
    }
    let taken = items
    items.removeAll(keepingCapacity: true)
    pending = 0
    let wakeProducers = producersWaiting > 0
    condition.unlock()
    if wakeProducers { condition.broadcast() }
    return taken
  }

  /// No bound from now on: waiting pushes go on, later ones do not wait.
  public func release() {
    condition.lock()
    limit = nil
    condition.unlock()
    condition.broadcast()
  }

  /// The weight pushed and not yet taken.
  public var pendingWeight: Int {
    condition.lock()
    defer { condition.unlock() }
    return pending
  }
}
