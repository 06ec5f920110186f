import Foundation

/// The real servers the tests talk to. `.ci/test` starts them on loopback and exports their base
/// URLs; a test that needs a server that is not there fails with a message saying how to start it.
/// (It never skips: a skipped test asserts nothing.)
public enum TestServer: String, CaseIterable, Sendable {
  /// The project's own fixture server (`reqbench demo-server`): byte-level faults, hit counters.
  case fixture = "REQBENCH_FIXTURE_URL"
  /// httpbin under gunicorn.
  case httpbin = "REQBENCH_HTTPBIN_URL"
  /// nginx serving static files (`/1k.bin`, `/10m.bin`, …).
  case nginx = "REQBENCH_NGINX_URL"
  /// The same nginx over TLS with HTTP/2 and a self-signed certificate.
  case nginxTLS = "REQBENCH_NGINX_TLS_URL"

  /// The server's base URL without a trailing slash, e.g. `http://127.0.0.1:41234`.
  public var baseURL: String {
    get throws {
      guard let value = ProcessInfo.processInfo.environment[rawValue], !value.isEmpty else {
        throw TestServerMissing(server: self)
      }
      return value.hasSuffix("/") ? String(value.dropLast()) : value
    }
  }

  /// `baseURL + path`.
  public func url(_ path: String) throws -> String {
    try baseURL + (path.hasPrefix("/") ? path : "/" + path)
  }
}

public struct TestServerMissing: Error, CustomStringConvertible {
  public var server: TestServer
  public var description: String {
    "\(server.rawValue) is not set: the \(server) server is not running. Run the tests with `bash .ci/test`, which starts nginx, httpbin and the fixture server on loopback and exports their URLs."
  }
}

/// A fresh key for the fixture's per-key hit counters and logs, so tests running in parallel
/// never see each other's traffic.
public func uniqueKey(_ prefix: String = "t") -> String {
  prefix + "-" + UUID().uuidString.prefix(8).lowercased()
}

/// The built `reqbench` binary, next to the test bundle in `.build/<config>/`.
public var reqbenchBinary: URL {
  get throws {
    if let explicit = ProcessInfo.processInfo.environment["REQBENCH_BIN"] {
      return URL(fileURLWithPath: explicit)
    }
    var dir = Bundle.main.bundleURL
    for _ in 0..<4 {
      let candidate = dir.appendingPathComponent("reqbench")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      dir = dir.deletingLastPathComponent()
    }
    throw BinaryMissing()
  }
}

public struct BinaryMissing: Error, CustomStringConvertible {
  public var description: String { "the reqbench binary was not found next to the tests; run `swift build` first or set REQBENCH_BIN" }
}

/// Runs a program to completion and returns its exit status, stdout and stderr.
public struct ProcessResult: Sendable {
  public var status: Int32
  public var stdout: String
  public var stderr: String
}

///
/// A child still running after `timeout` seconds is killed (SIGKILL) and the call fails: a hung
/// child must fail its test, never hang the suite.
public func runProcess(
  _ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
  stdin: String? = nil, currentDirectory: URL? = nil, timeout: Double = 120
) throws -> ProcessResult {
  let process = Process()
  process.executableURL = executable
  process.arguments = arguments
  if let environment {
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
  }
  if let currentDirectory { process.currentDirectoryURL = currentDirectory }
  let out = Pipe()
  let err = Pipe()
  process.standardOutput = out
  process.standardError = err
  let input = Pipe()
  process.standardInput = input
  try process.run()
  if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
  try? input.fileHandleForWriting.close()
  // Read both pipes concurrently so a full pipe never blocks the child.
  let errData = LockedBox(Data())
  let group = DispatchGroup()
  group.enter()
  DispatchQueue.global().async {
    errData.set(err.fileHandleForReading.readDataToEndOfFile())
    group.leave()
  }
  let timedOut = LockedBox(false)
  let watchdog = DispatchWorkItem {
    timedOut.set(true)
    kill(process.processIdentifier, SIGKILL)
  }
  DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
  let outData = out.fileHandleForReading.readDataToEndOfFile()
  group.wait()
  process.waitUntilExit()
  watchdog.cancel()
  if timedOut.get() {
    throw ProcessTimedOut(command: ([executable.path] + arguments).joined(separator: " "), seconds: timeout)
  }
  return ProcessResult(
    status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
    stderr: String(decoding: errData.get(), as: UTF8.self))
}

public struct ProcessTimedOut: Error, CustomStringConvertible {
  public let command: String
  public let seconds: Double
  public var description: String { "`\(command)` was still running after \(Int(seconds)) s and was killed" }
}

/// A value shared between threads under a lock.
public final class LockedBox<Value>: @unchecked Sendable {
  private var value: Value
  private let lock = NSLock()
  public init(_ value: Value) { self.value = value }
  public func get() -> Value { lock.withLock { value } }
  public func set(_ newValue: Value) { lock.withLock { value = newValue } }
  public func mutate<R>(_ body: (inout Value) -> R) -> R { lock.withLock { body(&value) } }
}
