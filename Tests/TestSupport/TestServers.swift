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
  /// sse-starlette under uvicorn (`Tests/Servers/sse_app.py`): server-sent events.
  case sse = "REQBENCH_SSE_URL"
  /// The OAuth 2.0 authorization server (`Tests/OAuthServer/oauth_server.py`, authlib's grants).
  case oauth = "REQBENCH_OAUTH_URL"

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
    "\(server.rawValue) is not set: the \(server) server is not running. Run the tests with `bash .ci/test`, which starts nginx, httpbin, the fixture server, the SSE server and the OAuth 2.0 server on loopback and exports their URLs."
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

/// Writes a workspace against the fixture server (`{"version": 1, "baseURL": FIXTURE, "requests":
/// [REQUESTS]}`) into a fresh temporary folder; returns the file's path.
public func fixtureWorkspace(_ requests: String, file: String = "w.json") throws -> String {
  try workspaceFile(
    #"{"version": 1, "baseURL": "\#(try TestServer.fixture.baseURL)", "requests": [\#(requests)]}"#, named: file
  ).path
}

/// `text` written as the file `named` in a new folder of its own (its state folder, downloads and
/// secrets go beside it); returns the file's path and the folder.
public func workspaceFile(_ text: String, named file: String = "w.json") throws -> (path: String, folder: URL) {
  let dir = scratchURL("rb")
  try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
  let path = dir.appendingPathComponent(file).path
  try text.write(toFile: path, atomically: true, encoding: .utf8)
  return (path, dir)
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
