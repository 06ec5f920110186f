import Base

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Synchronization

/// The listening sockets, the accept loop and the registry of open connections.
final class ServerCore: Sendable {
  let port: Int
  let app = App()

  private let listeners: [Int32]
  private let wakeRead: Int32
  private let wakeWrite: Int32
  private let stopping = Atomic<Bool>(false)
  private let state = Mutex(State())

  private struct State {
    var started = false
    var stopped = false
    var acceptRunning = false
    var connections: Set<Int32> = []
    var threads = 0
  }

  /// Connections served at once; more are answered 503 and closed.
  static let maxConnections = 512

  var isStopping: Bool { stopping.load(ordering: .acquiring) }

  init(port requested: Int) throws(DemoServerError) {
    guard (0...65535).contains(requested) else { throw .invalidPort(requested) }
    let v4 = try Self.listen(port: requested)
    var bound = requested
    do {
      bound = try Self.localPort(v4)
    } catch {
      close(v4)
      throw error
    }
    var listeners = [v4]
    // ::1 on the same port too, best effort (so `localhost` works when it resolves to ::1 first).
    if let v6 = Self.listenIPv6(port: bound) { listeners.append(v6) }

    var fds: [Int32] = [-1, -1]
    guard pipe(&fds) == 0 else {
      let message = String(cString: strerror(errno))
      listeners.forEach { close($0) }
      throw .socket("pipe: \(message)")
    }
    for fd in fds {
      _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }
    self.port = bound
    self.listeners = listeners
    self.wakeRead = fds[0]
    self.wakeWrite = fds[1]
  }

  // MARK: Sockets

  private static func listen(port: Int) throws(DemoServerError) -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw .socket("socket: \(String(cString: strerror(errno)))") }
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr = in_addr(s_addr: UInt32(0x7f00_0001).bigEndian)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    if bound != 0 {
      let code = errno
      close(fd)
      if code == EADDRINUSE { throw .portInUse(port) }
      if code == EACCES { throw .permissionDenied(port) }
      throw .socket("bind 127.0.0.1:\(port): \(String(cString: strerror(code)))")
    }
    guard Glibc.listen(fd, 128) == 0 else {
      let code = errno
      close(fd)
      if code == EADDRINUSE { throw .portInUse(port) }
      throw .socket("listen: \(String(cString: strerror(code)))")
    }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    return fd
  }

  private static func listenIPv6(port: Int) -> Int32? {
    let fd = socket(AF_INET6, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return nil }
    var one: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in6()
    address.sin6_family = sa_family_t(AF_INET6)
    address.sin6_port = in_port_t(UInt16(port).bigEndian)
    withUnsafeMutableBytes(of: &address.sin6_addr) { $0[15] = 1 }  // ::1
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
      }
    }
    guard bound == 0, Glibc.listen(fd, 128) == 0 else {
      close(fd)
      return nil
    }
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    return fd
  }

  private static func localPort(_ fd: Int32) throws(DemoServerError) -> Int {
    var address = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let r = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard r == 0 else { throw .socket("getsockname: \(String(cString: strerror(errno)))") }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  private static func configureClient(_ fd: Int32) {
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    var timeout = timeval(tv_sec: 60, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  }

  // MARK: Lifecycle

  func start() {
    let launch = state.withLock { state -> Bool in
      guard !state.started, !state.stopped else { return false }
      state.started = true
      state.acceptRunning = true
      return true
    }
    guard launch else { return }
    let thread = Thread { [self] in acceptLoop() }
    thread.name = "DemoServer accept"
    thread.start()
  }

  func stop() {
    let (wasStarted, alreadyStopped) = state.withLock { state in
      defer { state.stopped = true }
      return (state.started, state.stopped)
    }
    guard !alreadyStopped else {
      waitUntil(timeout: 2) { !$0.acceptRunning && $0.threads == 0 }
      return
    }
    stopping.store(true, ordering: .releasing)
    if wasStarted {
      // The read end stays open until the accept loop has exited, so this write cannot raise SIGPIPE.
      var byte: UInt8 = 1
      _ = write(wakeWrite, &byte, 1)
      waitUntil(timeout: 2) { !$0.acceptRunning }
    } else {
      listeners.forEach { close($0) }
    }
    // Wake every connection thread: blocked reads and writes fail, sleeps see `stopping`.
    state.withLock { state in
      for fd in state.connections { shutdown(fd, Int32(SHUT_RDWR)) }
    }
    waitUntil(timeout: 2) { $0.threads == 0 }
    close(wakeWrite)
    if !state.withLock({ $0.acceptRunning }) { close(wakeRead) }
  }

  private func waitUntil(timeout: Double, _ condition: (State) -> Bool) {
    let deadline = MonotonicClock.now() + timeout
    while !state.withLock({ condition($0) }), MonotonicClock.now() < deadline {
      usleep(2000)
    }
  }

  private func acceptLoop() {
    var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
    fds += listeners.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    while !isStopping {
      for i in fds.indices { fds[i].revents = 0 }
      let r = poll(&fds, nfds_t(fds.count), -1)
      if r < 0 {
        if errno != EINTR { usleep(10_000) }  // transient (ENOMEM): try again rather than stop serving
        continue
      }
      if isStopping || fds[0].revents != 0 { break }
      for entry in fds.dropFirst() where entry.revents != 0 {
        acceptAll(entry.fd)
      }
    }
    listeners.forEach { close($0) }
    state.withLock { $0.acceptRunning = false }
  }

  private func acceptAll(_ listener: Int32) {
    while !isStopping {
      let fd = accept(listener, nil, nil)
      if fd < 0 {
        switch errno {
        case EINTR, ECONNABORTED, EPROTO: continue
        case EAGAIN, EWOULDBLOCK: return  // accepted everything pending
        default: usleep(10_000)  // out of descriptors (EMFILE) or memory: back off, don't spin
        }
        return
      }
      spawn(fd)
    }
  }

  private func spawn(_ fd: Int32) {
    let admitted = state.withLock { state -> Bool in
      guard !state.stopped, state.connections.count < Self.maxConnections else { return false }
      state.connections.insert(fd)
      state.threads += 1
      return true
    }
    guard admitted else {
      let busy = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
      _ = busy.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
      close(fd)
      return
    }
    Self.configureClient(fd)
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    // Accepted sockets inherit nothing on Linux, but be explicit: blocking I/O with timeouts.
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    let thread = Thread { [self] in
      let socket = ClientSocket(fd: fd, isStopping: { [self] in isStopping })
      ConnectionHandler(socket: socket, app: app, isStopping: { [self] in isStopping }).run()
      finished(fd)
    }
    thread.stackSize = 1 << 20
    thread.start()
  }

  private func finished(_ fd: Int32) {
    state.withLock { state in
      // Closed under the lock so `stop()` never shuts down a reused descriptor number.
      state.connections.remove(fd)
      close(fd)
      state.threads -= 1
    }
  }
}
