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

/// What a command hands over when it ends, kept until the process exits: the kernel frees a
/// process's memory in one go, while dropping a run's results (1,000 exchanges: their requests,
/// responses, headers) and its workspace released them object by object on the main thread,
/// after the last exchange and before the exit (about 6 M instructions of a run of 1,000).
/// Only for what a command returns with; nothing kept here is read again.
enum KeptUntilExit {
  private static let values = Locked<[any Sendable]>([])

  static func keep(_ value: any Sendable) {
    values.mutate { $0.append(value) }
  }
}
