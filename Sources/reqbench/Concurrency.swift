import CommandLineSupport

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
