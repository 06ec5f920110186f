import Synchronization

/// A value shared between threads under a lock (`Mutex`): a class so it can be captured and
/// shared by reference.
package final class Locked<Value: Sendable>: Sendable {
  private let value: Mutex<Value>
  package init(_ value: Value) { self.value = Mutex(value) }
  package func get() -> Value { value.withLock { $0 } }
  package func set(_ newValue: Value) { value.withLock { $0 = newValue } }
  package func mutate<R: Sendable>(_ body: (inout Value) -> R) -> R { value.withLock { body(&$0) } }
}
