import Base
import Foundation
import RequestEngine
import Workspace

/// The HTTP listener on 127.0.0.1 that takes the authorization redirect (RFC 8252 §7.3) for
/// `OAuth2AuthorizationCode`. Anything on the machine (and any web page, through the browser)
/// can reach it, so no one client can end or stall the wait:
///
/// - it serves its connections together (`poll`), each with a deadline of its own
///   (`connectionSeconds` to send its request head), so an idle or slow client holds only itself;
///   at most `maxConnections` are open (a new one closes the oldest);
/// - a request head is at most `maxHeadBytes`, its request line `maxLineBytes`;
/// - every request is answered and the wait goes on, except the one `judge` accepts: another path
///   is a 404; a request that is not a GET, is incomplete when its client stops (or its deadline
///   passes), is too large or malformed is a 400; one `judge` refuses (another `state`) gets what
///   it says;
/// - an answered connection is shut for writing and what its client still sends is read and
///   dropped for a moment (`lingerSeconds`), so the answer reaches it rather than a reset.
final class LoopbackListener: @unchecked Sendable {
  struct Failure: Error { var message: String }
  struct ListenerTimeout: Error { var message: String }

  /// What `waitForRedirect`'s judge says of a request to the redirect's path: the status and the
  /// text of the page that answers it.
  enum Verdict {
    /// The redirect waited for: answered, it ends the wait.
    case accept(Int, String)
    /// Not it (another state): answered, the wait goes on.
    case refuse(Int, String)
  }

  static let maxConnections = 32
  static let maxHeadBytes = 64 << 10
  static let maxLineBytes = 8 << 10
  static let connectionSeconds = 10.0
  static let lingerSeconds = 1.0

  let redirect: String
  private let path: String
  private var fd: Int32

  init(redirectURL: String?) throws(Failure) {
    var port: UInt16 = 0
    var path = "/callback"
    if let redirectURL {
      let parts = URLResolver.split(redirectURL)
      guard let components = URLComponents(string: redirectURL), components.scheme == "http",
        components.host == "127.0.0.1", parts.scheme != nil
      else {
        throw Failure(message: "redirectURL must be http://127.0.0.1:PORT/PATH (a loopback redirect, RFC 8252), not \(redirectURL)")
      }
      port = UInt16(clamping: components.port ?? 0)
      if !components.path.isEmpty { path = components.path }
    }
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    guard fd >= 0 else { throw Failure(message: "cannot open a socket: \(String(cString: strerror(errno)))") }
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0, listen(fd, 64) == 0 else {
      let reason = String(cString: strerror(errno))
      Glibc.close(fd)
      throw Failure(message: "cannot listen on 127.0.0.1:\(port) for the redirect: \(reason)")
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    withUnsafeMutablePointer(to: &address) {
      _ = $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    self.fd = fd
    self.path = path
    redirect = "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))\(path)"
  }

  /// One client's connection: what it sent so far, and until when it may take.
  private struct Connection {
    var fd: Int32
    var head: [UInt8] = []
    var deadline: Double
    /// Answered and shut for writing: what it still sends is dropped.
    var answered = false
    var dropped = 0
  }

  /// What a connection's bytes came to.
  private enum Step {
    case open
    case close
    case redirect([String: String])
  }

  /// Waits for the request to the redirect's path that `judge` accepts, answers it and returns its
  /// query; every other request is answered and the wait goes on. Gives up after `timeout`
  /// seconds, or within a quarter of a second of `cancelled` saying so.
  func waitForRedirect(
    timeout: Double, cancelled: () -> Bool = { false }, judge: ([String: String]) -> Verdict
  ) -> Result<[String: String], ListenerTimeout> {
    let end = MonotonicClock.now() + timeout
    var connections: [Connection] = []
    var refused = 0
    defer { for connection in connections { Glibc.close(connection.fd) } }
    while true {
      let now = MonotonicClock.now()
      if now >= end {
        let others = refused == 0 ? "" : " (\(refused) other request\(refused == 1 ? " was" : "s were") answered and ignored)"
        return .failure(ListenerTimeout(message: "no redirect came back within \(Int(timeout)) s" + others))
      }
      if cancelled() { return .failure(ListenerTimeout(message: "cancelled")) }
      // Past its deadline: a request begun and not finished is answered 400, a silent one closed.
      connections.removeAll { connection in
        guard now >= connection.deadline else { return false }
        if !connection.answered, !connection.head.isEmpty {
          reply(connection.fd, 400, "reqbench: the request did not arrive in time; it was ignored.")
        }
        Glibc.close(connection.fd)
        return true
      }
      var polled = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
      polled += connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
      let nearest = connections.map(\.deadline).min() ?? end
      let wait = max(0, min(0.25, end - now, nearest - now))
      guard poll(&polled, nfds_t(polled.count), Int32(wait * 1000) + 1) > 0 else { continue }
      for index in connections.indices.reversed() where polled[index + 1].revents != 0 {
        switch read(&connections[index], judge: judge, refused: &refused) {
        case .open: break
        case .close:
          Glibc.close(connections[index].fd)
          connections.remove(at: index)
        case .redirect(let query):
          return .success(query)
        }
      }
      guard polled[0].revents & Int16(POLLIN) != 0 else { continue }
      for _ in 0..<Self.maxConnections {
        let client = accept(fd, nil, nil)
        guard client >= 0 else { break }
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
        if connections.count >= Self.maxConnections { Glibc.close(connections.removeFirst().fd) }
        connections.append(Connection(fd: client, deadline: MonotonicClock.now() + Self.connectionSeconds))
      }
    }
  }

  /// Reads what `connection`'s client sent and, once its request head is complete (or cannot
  /// be), answers it.
  private func read(
    _ connection: inout Connection, judge: ([String: String]) -> Verdict, refused: inout Int
  ) -> Step {
    var chunk = [UInt8](repeating: 0, count: 16 << 10)
    let count = chunk.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
    if count < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return .open }
    if connection.answered {
      connection.dropped += max(0, count)
      return count > 0 && connection.dropped < Self.maxHeadBytes * 16 ? .open : .close
    }
    guard count > 0 else {
      // The client stopped sending (or the connection broke) before its request was whole.
      if !connection.head.isEmpty { reply(connection.fd, 400, "reqbench: the request is incomplete; it was ignored.") }
      return .close
    }
    connection.head += chunk[..<count]
    let head = connection.head
    // A method is capital letters: anything else (a TLS handshake, binary) is not HTTP.
    let method = head.prefix { $0 != 32 }
    if method.count > 16 || method.contains(where: { !(65...90).contains($0) }) {
      return answer(&connection, 400, "reqbench: this is not a request reqbench understands; it was ignored.")
    }
    guard let lineEnd = head.firstIndex(of: 10) else {
      if head.count <= Self.maxLineBytes { return .open }
      return answer(&connection, 400, "reqbench: the request line is too long; it was ignored.")
    }
    guard lineEnd <= Self.maxLineBytes else {
      return answer(&connection, 400, "reqbench: the request line is too long; it was ignored.")
    }
    guard Self.endOfHead(head) != nil else {
      if head.count <= Self.maxHeadBytes { return .open }
      return answer(&connection, 400, "reqbench: the request is too large; it was ignored.")
    }
    let line = head[..<lineEnd].last == 13 ? head[..<(lineEnd - 1)] : head[..<lineEnd]
    let words = String(decoding: line, as: UTF8.self).split(separator: " ", omittingEmptySubsequences: false)
    guard words.count == 3, words[2].hasPrefix("HTTP/1."), words[1].hasPrefix("/"),
      let components = URLComponents(string: String(words[1]))
    else {
      return answer(&connection, 400, "reqbench: this is not a request reqbench understands; it was ignored.")
    }
    guard components.path == path else { return answer(&connection, 404, "not found") }
    guard words[0] == "GET" else {
      return answer(&connection, 400, "reqbench: only the browser's redirect (a GET) is taken here; it was ignored.")
    }
    var query: [String: String] = [:]
    for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
    switch judge(query) {
    case .accept(let status, let text):
      reply(connection.fd, status, text)
      shutdown(connection.fd, Int32(SHUT_WR))
      return .redirect(query)
    case .refuse(let status, let text):
      refused += 1
      return answer(&connection, status, text)
    }
  }

  /// Answers the request and keeps its connection a moment to drop what the client still sends.
  private func answer(_ connection: inout Connection, _ status: Int, _ text: String) -> Step {
    reply(connection.fd, status, text)
    shutdown(connection.fd, Int32(SHUT_WR))
    connection.answered = true
    connection.head = []
    connection.deadline = MonotonicClock.now() + Self.lingerSeconds
    return .open
  }

  /// Where the request head ends (after its blank line: CRLF CRLF, or LF LF), or nil while it
  /// has not.
  private static func endOfHead(_ bytes: [UInt8]) -> Int? {
    var index = 0
    while let newline = bytes[index...].firstIndex(of: 10) {
      let next = newline + 1
      if next < bytes.count, bytes[next] == 10 { return next + 1 }
      if next + 1 < bytes.count, bytes[next] == 13, bytes[next + 1] == 10 { return next + 2 }
      index = next
    }
    return nil
  }

  private func reply(_ client: Int32, _ status: Int, _ text: String) {
    let body = "<!doctype html><meta charset=utf-8><title>reqbench</title><p>\(XMLText.escaped(text))</p>\n"
    let head = "HTTP/1.1 \(status) \(status == 200 ? "OK" : status == 404 ? "Not Found" : "Bad Request")\r\n"
      + "Content-Type: text/html; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
    let bytes = Array((head + body).utf8)
    _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
  }

  func close() {
    if fd >= 0 { Glibc.close(fd) }
    fd = -1
  }
}
