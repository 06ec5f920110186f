import Synchronization

/// A value shared between threads under a lock (`Mutex`): a class so it can be captured and
/// shared by reference.
final class Locked<Value: Sendable>: Sendable {
  private let value: Mutex<Value>
  init(_ value: Value) { self.value = Mutex(value) }
  func get() -> Value { value.withLock { $0 } }
  func set(_ newValue: Value) { value.withLock { $0 = newValue } }
  func mutate<R: Sendable>(_ body: (inout Value) -> R) -> R { value.withLock { body(&$0) } }
}
