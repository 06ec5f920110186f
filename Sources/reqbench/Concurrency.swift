import Foundation

/// A blocking queue between threads, drained in batches.
final class BlockingQueue<Element>: @unchecked Sendable {
  private let condition = NSCondition()
  private var items: [Element] = []
  private var waiting = false

  func push(_ item: Element) {
    condition.lock()
    items.append(item)
    let wake = waiting
    condition.unlock()
    // Signalled after unlocking: the woken thread does not then block at once on the lock this
    // thread still holds (one futex wake per hand-over instead of two). `waiting` was set under
    // the lock by a thread that is now inside `wait`, so the signal cannot be lost.
    if wake { condition.signal() }
  }

  /// Several items with one hand-over (at most one wake-up of the waiting thread).
  func push(contentsOf batch: [Element]) {
    guard !batch.isEmpty else { return }
    condition.lock()
    items.append(contentsOf: batch)
    let wake = waiting
    condition.unlock()
    if wake { condition.signal() }
  }

  func popAll() -> [Element] {
    condition.lock()
    defer { condition.unlock() }
    while items.isEmpty {
      waiting = true
      condition.wait()
      waiting = false
    }
    let taken = items
    items.removeAll(keepingCapacity: true)
    return taken
  }
}

/// A value shared between threads under a lock.
final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value
  init(_ value: Value) { self.value = value }
  func get() -> Value { lock.withLock { value } }
  func set(_ newValue: Value) { lock.withLock { value = newValue } }
  func mutate<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&value) } }
}
