import Foundation

/// The real `reqbench` binary running with its stdout and stderr piped, for tests that act on it
/// while it runs (a signal once it reached some point) rather than waiting for it to end.
public final class RunningReqbench {
  public let process = Process()
  private let out = Pipe()
  private let err = Pipe()
  /// Everything read from stdout so far.
  public private(set) var output = ""

  public init(_ arguments: [String], currentDirectory: URL? = nil) throws {
    process.executableURL = try reqbenchBinary
    process.arguments = arguments
    if let currentDirectory { process.currentDirectoryURL = currentDirectory }
    process.standardOutput = out
    process.standardError = err
    try process.run()
  }

  public var pid: pid_t { process.processIdentifier }

  /// Reads stdout until `done(output)` holds, it ends, or `timeout` seconds pass; returns
  /// whether `done` held (a test acting on that point must check it).
  public func read(until done: (String) -> Bool, timeout: Double = 20) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if done(output) { return true }
      let chunk = PipeRead.some(out.fileHandleForReading.fileDescriptor)
      if chunk.isEmpty { return done(output) }
      output += String(decoding: chunk, as: UTF8.self)
    }
    return done(output)
  }

  /// Waits for the end: the rest of stdout (added to `output`), and stderr.
  @discardableResult
  public func finish() -> (stdout: String, stderr: String) {
    output += String(decoding: PipeRead.all(out.fileHandleForReading.fileDescriptor), as: UTF8.self)
    let stderr = String(decoding: PipeRead.all(err.fileHandleForReading.fileDescriptor), as: UTF8.self)
    process.waitUntilExit()
    return (output, stderr)
  }
}

/// A small deterministic generator (SplitMix64) for tests that want reproducible randomness.
public struct SplitMix {
  public var state: UInt64
  public init(seed: UInt64) { state = seed }
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
  /// A number in 0..<n.
  public mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
