import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server on 127.0.0.1 that keeps the bytes of every request it is sent and answers
/// each `200 OK` with an empty body: what a client put on the wire, to compare one client with
/// another (curl with reqbench, HTTPie with reqbench) request line by request line, header by
/// header in order, byte by byte of the body. A body is read by its `Content-Length` or its
/// chunks (kept decoded, and raw); `Expect: 100-continue` is answered first. Bounded: a head of
/// at most 1 MB, a body of at most 16 MB, 10 s of silence ends a connection, at most 1,000
/// requests are kept.
public final class RecordingServer: @unchecked Sendable {
  /// One request as it arrived.
  public struct Recorded: Sendable, Equatable, CustomStringConvertible {
    /// `GET /x?a=1 HTTP/1.1`.
    public var requestLine: String
    /// The header fields in the order sent, names as spelled.
    public var headers: [Header]
    /// The body (de-chunked).
    public var body: [UInt8]
    /// Whether the body came in chunks.
    public var chunked: Bool

    public struct Header: Sendable, Equatable, CustomStringConvertible {
      public var name: String
      public var value: String
      public var description: String { "\(name): \(value)" }
    }

    public var method: String { String(requestLine.prefix { $0 != " " }) }
    /// The request target as sent (`/x?a=%2F`).
    public var target: String {
      let parts = requestLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
      return parts.count > 1 ? String(parts[1]) : ""
    }

    /// The value of the header `name` (case-insensitive), the first when several.
    public func header(_ name: String) -> String? {
      headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var description: String {
      ([requestLine] + headers.map(\.description)).joined(separator: "\n") + "\n\n"
        + (String(validating: body, as: UTF8.self) ?? "(\(body.count) bytes)")
    }

    /// What differs between this request and `other`: the request line, the headers in order
    /// (those named in `ignoring`, case-insensitive, left out of both), the body bytes. Empty
    /// when they are the same.
    public func differences(from other: Recorded, ignoring: Set<String> = []) -> [String] {
      var found: [String] = []
      if requestLine != other.requestLine { found.append("request line: \(requestLine) ≠ \(other.requestLine)") }
      let ignored = Set(ignoring.map { $0.lowercased() })
      let mine = headers.filter { !ignored.contains($0.name.lowercased()) }
      let theirs = other.headers.filter { !ignored.contains($0.name.lowercased()) }
      if mine != theirs {
        found.append("headers:\n  " + mine.map(\.description).joined(separator: "\n  ") + "\n≠\n  "
          + theirs.map(\.description).joined(separator: "\n  "))
      }
      if body != other.body {
        found.append("body: \(String(decoding: body.prefix(200), as: UTF8.self).debugDescription) (\(body.count) B) ≠ "
          + "\(String(decoding: other.body.prefix(200), as: UTF8.self).debugDescription) (\(other.body.count) B)")
      }
      return found
    }
  }

  public let port: Int
  private let listener: Int32
  private let lock = NSLock()
  private var recorded: [Recorded] = []
  private var stopped = false

  public var baseURL: String { "http://127.0.0.1:\(port)" }

  public init() throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw LoopbackListener.Failure(description: "socket: \(String(cString: strerror(errno)))") }
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr = in_addr(s_addr: UInt32(0x7f00_0001).bigEndian)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0, listen(fd, 64) == 0 else {
      let message = String(cString: strerror(errno))
      close(fd)
      throw LoopbackListener.Failure(description: "bind/listen on 127.0.0.1: \(message)")
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    listener = fd
    port = Int(UInt16(bigEndian: address.sin_port))
    let thread = Thread { [self] in acceptLoop() }
    thread.start()
  }

  deinit { stop() }

  /// Stops accepting; the requests kept stay readable.
  public func stop() {
    let first = lock.withLock { () -> Bool in
      defer { stopped = true }
      return !stopped
    }
    if first { shutdown(listener, Int32(SHUT_RDWR)) }
  }

  /// Every request so far, in the order they were complete.
  public var requests: [Recorded] { lock.withLock { recorded } }

  /// Forgets the requests kept.
  public func clear() { lock.withLock { recorded.removeAll() } }

  /// Waits until `count` requests have been kept (at most `timeout` seconds) and returns them.
  public func waitFor(_ count: Int, timeout: Double = 10) -> [Recorded] {
    let deadline = Date().addingTimeInterval(timeout)
    while requests.count < count && Date() < deadline { usleep(10_000) }
    return requests
  }

  private func acceptLoop() {
    while true {
      let client = accept(listener, nil, nil)
      if client < 0 {
        if errno == EINTR { continue }
        close(listener)
        return
      }
      var timeout = timeval(tv_sec: 10, tv_usec: 0)
      setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
      let thread = Thread { [self] in serve(client) }
      thread.start()
    }
  }

  private static let maxHead = 1 << 20
  private static let maxBody = 16 << 20

  /// Serves the requests of one connection until it closes.
  private func serve(_ fd: Int32) {
    defer { close(fd) }
    var buffer: [UInt8] = []
    func fill() -> Bool {
      var chunk = [UInt8](repeating: 0, count: 64 << 10)
      let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { return false }
      buffer.append(contentsOf: chunk[0..<count])
      return true
    }
    func send(_ text: String) { _ = Array(text.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } }
    while true {
      // The head.
      var end: Int?
      while end == nil {
        end = Self.headEnd(buffer)
        if end == nil {
          guard buffer.count < Self.maxHead, fill() else { return }
        }
      }
      guard let headEnd = end else { return }
      let head = String(decoding: buffer[0..<headEnd], as: UTF8.self)
      buffer.removeFirst(headEnd + 4)
      var lines = head.components(separatedBy: "\r\n")
      let requestLine = lines.removeFirst()
      let headers = lines.map { line -> Recorded.Header in
        guard let colon = line.firstIndex(of: ":") else { return Recorded.Header(name: line, value: "") }
        return Recorded.Header(
          name: String(line[..<colon]),
          value: String(line[line.index(after: colon)...]).trimmingCharacters(in: CharacterSet(charactersIn: " \t")))
      }
      var request = Recorded(requestLine: requestLine, headers: headers, body: [], chunked: false)
      if request.header("Expect")?.lowercased() == "100-continue" { send("HTTP/1.1 100 Continue\r\n\r\n") }
      // The body.
      if request.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
        request.chunked = true
        while true {
          var lineEnd: Int?
          while lineEnd == nil {
            lineEnd = Self.lineEnd(buffer)
            if lineEnd == nil { guard buffer.count < Self.maxHead, fill() else { return } }
          }
          guard let sizeEnd = lineEnd else { return }
          let sizeText = String(decoding: buffer[0..<sizeEnd], as: UTF8.self).split(separator: ";").first ?? ""
          guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0,
            request.body.count + size <= Self.maxBody
          else { return }
          buffer.removeFirst(sizeEnd + 2)
          if size == 0 {
            // Trailer lines, if any, then the empty line that ends the body.
            while true {
              var trailerEnd = Self.lineEnd(buffer)
              while trailerEnd == nil {
                guard buffer.count < Self.maxHead, fill() else { return }
                trailerEnd = Self.lineEnd(buffer)
              }
              guard let lineLength = trailerEnd else { return }
              buffer.removeFirst(lineLength + 2)
              if lineLength == 0 { break }
            }
            break
          }
          while buffer.count < size + 2 { guard fill() else { return } }
          request.body += buffer[0..<size]
          buffer.removeFirst(size + 2)
        }
      } else if let lengthText = request.header("Content-Length"), let length = Int(lengthText), length >= 0 {
        guard length <= Self.maxBody else { return }
        while buffer.count < length { guard fill() else { return } }
        request.body = Array(buffer[0..<length])
        buffer.removeFirst(length)
      }
      lock.withLock { if recorded.count < 1000 { recorded.append(request) } }
      send("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok")
    }
  }

  /// The offset of the `\r\n\r\n` that ends a head, if it is there.
  private static func headEnd(_ bytes: [UInt8]) -> Int? {
    guard bytes.count >= 4 else { return nil }
    for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
      return i
    }
    return nil
  }

  /// The offset of the first `\r\n`.
  private static func lineEnd(_ bytes: [UInt8]) -> Int? {
    guard bytes.count >= 2 else { return nil }
    for i in 0...(bytes.count - 2) where bytes[i] == 13 && bytes[i + 1] == 10 { return i }
    return nil
  }
}
