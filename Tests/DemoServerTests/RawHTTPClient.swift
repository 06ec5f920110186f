import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

struct RawClientError: Error, CustomStringConvertible {
  var description: String
}

/// A parsed response read off a raw connection.
struct RawResponse {
  var status: Int
  var reason: String
  var headers: [(name: String, value: String)]
  var body: [UInt8]
  /// The body ended early (connection closed before Content-Length / the last chunk).
  var truncated = false

  func header(_ name: String) -> String? {
    headers.first(where: { $0.name.lowercased() == name.lowercased() })?.value
  }

  var text: String { String(decoding: body, as: UTF8.self) }

  func json() throws -> [String: Any] {
    let value = try JSONSerialization.jsonObject(with: Data(body))
    guard let object = value as? [String: Any] else { throw RawClientError(description: "not a JSON object: \(text)") }
    return object
  }

  func jsonArray() throws -> [[String: Any]] {
    let value = try JSONSerialization.jsonObject(with: Data(body))
    guard let array = value as? [[String: Any]] else { throw RawClientError(description: "not a JSON array: \(text)") }
    return array
  }
}

/// A tiny HTTP/1.1 client over a blocking socket, so tests control every byte.
final class RawConnection {
  let fd: Int32
  private var buffer: [UInt8] = []

  init(port: Int, timeout: Int = 5) throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw RawClientError(description: "socket failed") }
    var tv = timeval(tv_sec: timeout, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr = in_addr(s_addr: UInt32(0x7f00_0001).bigEndian)
    let r = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard r == 0 else {
      let code = errno
      Glibc.close(fd)
      throw RawClientError(description: "connect failed: \(String(cString: strerror(code)))")
    }
  }

  deinit { Glibc.close(fd) }

  func send(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      guard n > 0 else { throw RawClientError(description: "send failed") }
      offset += n
    }
  }

  func send(_ text: String) throws { try send(Array(text.utf8)) }

  /// Sends a request with `Host` and (when there is a body) `Content-Length` added.
  func sendRequest(
    _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = [], close: Bool = false
  ) throws {
    var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    for (name, value) in headers { head += "\(name): \(value)\r\n" }
    if !body.isEmpty || ["POST", "PUT", "PATCH"].contains(method) { head += "Content-Length: \(body.count)\r\n" }
    if close { head += "Connection: close\r\n" }
    head += "\r\n"
    try send(Array(head.utf8) + body)
  }

  /// Reads more bytes into the buffer; false at EOF (or reset).
  private func fill() throws -> Bool {
    var chunk = [UInt8](repeating: 0, count: 65536)
    let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
    if n > 0 {
      buffer += chunk[0..<n]
      return true
    }
    if n == 0 { return false }
    if errno == EAGAIN || errno == EWOULDBLOCK { throw RawClientError(description: "read timed out") }
    return false
  }

  func readLine() throws -> String {
    while true {
      if let lf = buffer.firstIndex(of: 0x0a) {
        var line = Array(buffer[..<lf])
        buffer.removeFirst(lf + 1)
        if line.last == 0x0d { line.removeLast() }
        return String(decoding: line, as: UTF8.self)
      }
      guard try fill() else { throw RawClientError(description: "connection closed mid-line") }
    }
  }

  /// Reads one response head (status line and headers).
  func readHead() throws -> RawResponse {
    let statusLine = try readLine()
    let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
    guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
      throw RawClientError(description: "bad status line: \(statusLine)")
    }
    var response = RawResponse(
      status: status, reason: parts.count > 2 ? String(parts[2]) : "", headers: [], body: [])
    while true {
      let line = try readLine()
      if line.isEmpty { break }
      guard let colon = line.firstIndex(of: ":") else { throw RawClientError(description: "bad header: \(line)") }
      response.headers.append(
        (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
    }
    return response
  }

  /// Reads exactly `count` bytes or up to EOF; returns what was read.
  func readBytes(_ count: Int) throws -> [UInt8] {
    while buffer.count < count {
      guard try fill() else { break }
    }
    let n = min(count, buffer.count)
    let out = Array(buffer[..<n])
    buffer.removeFirst(n)
    return out
  }

  /// Everything until the server closes.
  func readToEnd() throws -> [UInt8] {
    while try fill() {}
    defer { buffer.removeAll() }
    return buffer
  }

  /// Reads one complete response (skipping nothing: a 1xx is returned as is). `headOnly` for HEAD.
  func readResponse(headOnly: Bool = false) throws -> RawResponse {
    var response = try readHead()
    if headOnly || (100..<200).contains(response.status) || response.status == 204 || response.status == 304 {
      return response
    }
    if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
      while true {
        guard let sizeLine = try? readLine() else {
          response.truncated = true  // the connection ended between chunks
          return response
        }
        guard let size = Int(sizeLine.split(separator: ";")[0], radix: 16) else {
          throw RawClientError(description: "bad chunk size: \(sizeLine)")
        }
        if size == 0 {
          while try !readLine().isEmpty {}
          break
        }
        let data = try readBytes(size)
        response.body += data
        if data.count < size {
          response.truncated = true
          return response
        }
        _ = try readLine()
      }
    } else if let lengthText = response.header("Content-Length"), let length = Int(lengthText) {
      response.body = try readBytes(length)
      response.truncated = response.body.count < length
    } else {
      response.body = try readToEnd()
    }
    return response
  }

  /// True when the server has closed the connection (EOF within `timeout` seconds).
  func isClosedByServer() -> Bool {
    (try? readToEnd()) != nil
  }
}

/// One GET on a fresh connection (`Connection: close`).
func fetch(_ port: Int, _ target: String, headers: [(String, String)] = []) throws -> RawResponse {
  try fetch(port, "GET", target, headers: headers)
}

/// One request on a fresh connection (`Connection: close`).
func fetch(
  _ port: Int, _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = []
) throws -> RawResponse {
  let connection = try RawConnection(port: port)
  try connection.sendRequest(method, target, headers: headers, body: body, close: true)
  return try connection.readResponse(headOnly: method == "HEAD")
}

func fetchJSON(_ port: Int, _ target: String) throws -> [String: Any] {
  try fetch(port, target).json()
}

func elapsed(since start: Date) -> Double { Date().timeIntervalSince(start) }
