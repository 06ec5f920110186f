import Foundation

/// A value shared between threads under a lock.
final class Locked<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value
  init(_ value: Value) { self.value = value }
  func get() -> Value { lock.withLock { value } }
  func set(_ newValue: Value) { lock.withLock { value = newValue } }
  func mutate<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&value) } }
}
