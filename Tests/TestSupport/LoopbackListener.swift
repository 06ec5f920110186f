import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A TCP socket listening on 127.0.0.1 that never answers: it stands for a server of another
/// protocol (an FTP server a redirect points to) and tells whether anyone connected. The kernel
/// completes a connection into the backlog without `accept`, so `connections()` counts every
/// attempt that reached it.
public final class LoopbackListener: @unchecked Sendable {
  public let port: Int
  private let fd: Int32

  public struct Failure: Error, CustomStringConvertible {
    public let description: String
  }

  public init() throws {
    let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard socketFD >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr = in_addr(s_addr: UInt32(0x7f00_0001).bigEndian)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0, listen(socketFD, 16) == 0 else {
      let message = String(cString: strerror(errno))
      close(socketFD)
      throw Failure(description: "bind/listen on 127.0.0.1: \(message)")
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketFD, $0, &length) }
    }
    _ = fcntl(socketFD, F_SETFL, fcntl(socketFD, F_GETFL) | O_NONBLOCK)
    fd = socketFD
    port = Int(UInt16(bigEndian: address.sin_port))
  }

  deinit { close(fd) }

  /// How many connections arrived so far (each accepted and closed, counted once).
  public func connections() -> Int {
    lock.withLock {
      while true {
        let client = accept(fd, nil, nil)
        guard client >= 0 else { break }
        close(client)
        accepted += 1
      }
      return accepted
    }
  }

  private let lock = NSLock()
  private var accepted = 0
}
