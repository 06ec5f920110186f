/// The embedded demo server (`reqbench demo-server`) and the project's fixture server: a small
/// HTTP/1.1 server on 127.0.0.1 (and ::1 when available) with a thread per connection.
///
///     let server = try DemoServer(port: 0)
///     server.start()
///     print(server.baseURL)   // http://127.0.0.1:41234
///     server.stop()
public final class DemoServer: Sendable {
  private let core: ServerCore

  /// Binds 127.0.0.1:port (0 = a free port). Throws `DemoServerError.portInUse` if the port is taken.
  public init(port: Int = 0) throws {
    core = try ServerCore(port: port)
  }

  /// The bound port.
  public var port: Int { core.port }

  /// `http://127.0.0.1:PORT`.
  public var baseURL: String { "http://127.0.0.1:\(port)" }

  /// Starts the accept loop on a background thread and returns at once. Idempotent; a stopped
  /// server cannot be started again.
  public func start() { core.start() }

  /// Closes the listening socket and every open connection; returns once they are closed (within
  /// about two seconds at most). Idempotent.
  public func stop() { core.stop() }

  deinit { core.stop() }
}

/// Why a `DemoServer` could not be created.
public enum DemoServerError: Error, CustomStringConvertible, Equatable, Sendable {
  case portInUse(Int)
  case permissionDenied(Int)
  case invalidPort(Int)
  case socket(String)

  public var description: String {
    switch self {
    case .portInUse(let port): "cannot listen on 127.0.0.1:\(port): address already in use"
    case .permissionDenied(let port): "cannot listen on 127.0.0.1:\(port): permission denied"
    case .invalidPort(let port): "invalid port \(port): expected 0...65535"
    case .socket(let message): "cannot start the demo server: \(message)"
    }
  }
}
