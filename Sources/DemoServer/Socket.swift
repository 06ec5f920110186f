import Base
import Digest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why reading or writing a client socket stopped.
enum IOError: Error, Equatable {
  /// The peer closed (or reset) the connection, or the server is stopping.
  case closed
  /// No progress for the socket's timeout.
  case timedOut
  /// The request head is larger than allowed.
  case tooLarge
  /// The request body is malformed (bad chunk framing); answered with 400.
  case malformed(String)
}

/// The body of a request as it is read: counted and hashed in full, kept in memory up to `limit`,
/// and fed to `multipart` (when set) as it arrives.
struct BodyCollector {
  var retained: [UInt8] = []
  var length = 0
  var truncated = false
  var hasher = SHA256()
  var multipart: MultipartParser?
  let limit: Int

  init(limit: Int) { self.limit = limit }

  mutating func append(_ buffer: UnsafeRawBufferPointer) {
    guard buffer.count > 0 else { return }
    length += buffer.count
    hasher.update(buffer)
    multipart?.feed(buffer)
    let room = limit - retained.count
    if room >= buffer.count {
      retained.append(contentsOf: buffer)
    } else {
      if room > 0 { retained.append(contentsOf: buffer[0..<room]) }
      truncated = true
    }
  }
}

private let pollReadHangUp: Int16 = 0x2000  // POLLRDHUP (Linux): the peer shut down its side.

/// A connected client socket with a read buffer. Owned by one connection thread; the server's
/// `stop()` only ever calls `shutdown` on the descriptor (through the registry), never `close`.
final class ClientSocket {
  let fd: Int32
  private let isStopping: () -> Bool
  private var buffer: [UInt8] = []
  private var start = 0
  private var scratch: [UInt8]
  private(set) var dropped = false
  /// Set while a body is read slowly (`/upload?rate=`): the rate, when it began, bytes taken since.
  private var throttle: (rate: Double, began: Double, taken: Int)?

  init(fd: Int32, isStopping: @escaping () -> Bool) {
    self.fd = fd
    self.isStopping = isStopping
    self.scratch = [UInt8](repeating: 0, count: 64 * 1024)
  }

  // MARK: Reading

  /// recv into the scratch buffer; returns the byte count (> 0) or throws.
  private func receive(max: Int) throws(IOError) -> Int {
    let wanted = Swift.min(max, scratch.count)
    while true {
      let n = scratch.withUnsafeMutableBytes { raw in
        recv(fd, raw.baseAddress, wanted, 0)
      }
      if n > 0 { return n }
      if n == 0 { throw .closed }
      let code = errno
      if code == EINTR { continue }
      if code == EAGAIN || code == EWOULDBLOCK { throw .timedOut }
      throw .closed
    }
  }

  /// Appends more bytes to the read buffer.
  private func fill() throws(IOError) {
    if start == buffer.count {
      buffer.removeAll(keepingCapacity: true)
      start = 0
    } else if start >= 64 * 1024 {
      buffer.removeFirst(start)
      start = 0
    }
    let n = try receive(max: throttle.map { Self.throttledSlice($0.rate) } ?? scratch.count)
    buffer.append(contentsOf: scratch[0..<n])
  }

  // MARK: Throttled reading

  /// Reads request bodies at about `rate` bytes a second from now on (nil: as fast as they come).
  /// The socket is read in slices about 20 times a second with sleeps in between, so unread bytes
  /// pile up and TCP backpressure slows the client's sending. The receive buffer is shrunk to about
  /// a quarter second of data so this side's kernel does not absorb much of the upload (this lasts
  /// for the rest of the connection). The client's own send buffer still does: on Linux it grows to
  /// `net.ipv4.tcp_wmem`'s maximum (4 MiB by default), so a client's upload progress runs up to that
  /// far ahead of what was read here, and bytes it wrote before closing still arrive (at this rate).
  func throttleBodyReads(_ rate: Double?) {
    guard let rate, rate.isFinite, rate > 0 else {
      throttle = nil
      return
    }
    throttle = (rate, MonotonicClock.now(), 0)
    var size = Int32(Swift.min(Double(1 << 20), Swift.max(16 * 1024, rate / 4)))
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
  }

  /// Bytes taken per step at `rate` bytes a second: about 20 steps a second.
  private static func throttledSlice(_ rate: Double) -> Int {
    Int(Swift.min(64 * 1024, Swift.max(1, rate / 20)))
  }

  /// Waits until the throttle (if any) lets more body bytes in; returns how many of `wanted` may be
  /// taken now. Throws `.closed` when the server stops; once the peer has hung up it no longer waits
  /// (what it sent is read at once, then the read fails).
  private func paced(_ wanted: Int) throws(IOError) -> Int {
    guard let throttle else { return wanted }
    let due = throttle.began + Double(throttle.taken) / throttle.rate
    let wait = due - MonotonicClock.now()
    if wait > 0, !sleep(wait), isStopping() || dropped { throw .closed }
    return Swift.min(wanted, Self.throttledSlice(throttle.rate))
  }

  var hasBufferedBytes: Bool { start < buffer.count }

  /// Reads one request head (request line and header lines, through the empty line). Empty lines
  /// before the request line are skipped. Returns nil when the peer closes cleanly between requests.
  func readHead(limit: Int) throws(IOError) -> [UInt8]? {
    // `scanned` counts the bytes after `start` already searched (fill() may move `start`).
    var scanned = 0
    while true {
      while start < buffer.count, buffer[start] == 0x0d || buffer[start] == 0x0a { start += 1 }
      var i = start + scanned
      var end: Int? = nil
      scan: while i < buffer.count {
        if buffer[i] == 0x0a {
          if i + 1 >= buffer.count { break scan }
          if buffer[i + 1] == 0x0a {
            end = i + 2
            break scan
          }
          if buffer[i + 1] == 0x0d {
            if i + 2 >= buffer.count { break scan }
            if buffer[i + 2] == 0x0a {
              end = i + 3
              break scan
            }
          }
        }
        i += 1
      }
      if let end {
        if end - start > limit { throw .tooLarge }
        let head = Array(buffer[start..<end])
        start = end
        return head
      }
      scanned = Swift.max(0, i - start)
      if buffer.count - start > limit { throw .tooLarge }
      do {
        try fill()
      } catch .closed where start == buffer.count {
        return nil
      }
    }
  }

  /// Reads exactly `count` body bytes into `collector` (at the throttle's pace when there is one).
  func readBody(count: Int, into collector: inout BodyCollector) throws(IOError) {
    var remaining = count
    while remaining > 0 {
      let step = try paced(remaining)
      let n: Int
      if start < buffer.count {
        n = Swift.min(step, buffer.count - start)
        buffer.withUnsafeBytes { raw in
          collector.append(UnsafeRawBufferPointer(rebasing: raw[start..<(start + n)]))
        }
        start += n
      } else {
        n = try receive(max: step)
        scratch.withUnsafeBytes { raw in
          collector.append(UnsafeRawBufferPointer(rebasing: raw[0..<n]))
        }
      }
      remaining -= n
      throttle?.taken += n
    }
  }

  /// One line without its LF (and CR); throws `.malformed` past `limit` bytes.
  func readLine(limit: Int) throws(IOError) -> [UInt8] {
    var scanned = 0  // bytes after `start` already searched
    while true {
      if let lf = buffer[(start + scanned)...].firstIndex(of: 0x0a) {
        var line = Array(buffer[start..<lf])
        start = lf + 1
        if line.last == 0x0d { line.removeLast() }
        return line
      }
      scanned = buffer.count - start
      if scanned > limit { throw .malformed("line too long") }
      try fill()
    }
  }

  /// Reads a chunked body (RFC 9112 §7.1) into `collector`, trailers included and discarded.
  func readChunked(into collector: inout BodyCollector) throws(IOError) {
    while true {
      let line = try readLine(limit: 4096)
      var size = 0
      var digits = 0
      var index = 0
      while index < line.count, let digit = hexDigitValue(line[index]) {
        digits += 1
        guard digits <= 15 else { throw .malformed("chunk size too large") }
        size = size << 4 | Int(digit)
        index += 1
      }
      guard digits > 0 else { throw .malformed("bad chunk size line") }
      while index < line.count, line[index] == 0x20 || line[index] == 0x09 { index += 1 }
      guard index == line.count || line[index] == UInt8(ascii: ";") else { throw .malformed("bad chunk size line") }
      if size == 0 { break }
      try readBody(count: size, into: &collector)
      let end = try readLine(limit: 2)
      guard end.isEmpty else { throw .malformed("chunk data longer than its size") }
    }
    var trailers = 0
    while true {
      let line = try readLine(limit: 8192)
      if line.isEmpty { return }
      trailers += 1
      guard trailers <= 64, line.contains(UInt8(ascii: ":")) else { throw .malformed("bad trailer") }
    }
  }

  // MARK: Writing

  func send(_ buffer: UnsafeRawBufferPointer) throws(IOError) {
    guard !dropped else { throw .closed }
    guard let base = buffer.baseAddress else { return }
    var offset = 0
    while offset < buffer.count {
      let n = Glibc.send(fd, base + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
      if n > 0 {
        offset += n
        continue
      }
      let code = errno
      if n < 0, code == EINTR { continue }
      if n < 0, code == EAGAIN || code == EWOULDBLOCK { throw .timedOut }
      throw .closed
    }
  }

  func send(_ bytes: [UInt8]) throws(IOError) {
    let result = bytes.withUnsafeBytes { raw in Result { () throws(IOError) in try send(raw) } }
    try result.get()
  }

  // MARK: Waiting and closing

  /// Waits `seconds`; false as soon as the server stops, the connection was dropped, or the peer
  /// hangs up (so slow endpoints do not outlive their clients).
  func sleep(_ seconds: Double) -> Bool {
    let deadline = MonotonicClock.now() + Swift.max(0, seconds)
    while true {
      if isStopping() || dropped { return false }
      let left = deadline - MonotonicClock.now()
      if left <= 0 { return true }
      var entry = pollfd(fd: fd, events: pollReadHangUp, revents: 0)
      let timeout = Int32((Swift.min(left, 0.1) * 1000).rounded(.up))
      let r = poll(&entry, 1, Swift.max(1, timeout))
      if r > 0, entry.revents & (pollReadHangUp | Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)) != 0 {
        return false
      }
    }
  }

  /// Drops the connection at once: no more bytes go out, the peer sees the connection end.
  func drop() {
    guard !dropped else { return }
    dropped = true
    shutdown(fd, Int32(SHUT_RDWR))
  }

  /// After a final response on a closing connection: send FIN, then read and discard what the
  /// client still sends (up to 1 s / 1 MB) so that closing does not reset the connection before the
  /// client has read the response.
  func lingeringClose() {
    guard !dropped else { return }
    dropped = true
    shutdown(fd, Int32(SHUT_WR))
    let deadline = MonotonicClock.now() + 1
    var discarded = 0
    while discarded < 1 << 20, !isStopping() {
      let left = deadline - MonotonicClock.now()
      if left <= 0 { break }
      var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let r = poll(&entry, 1, Int32(Swift.max(1, (Swift.min(left, 0.1) * 1000).rounded(.up))))
      if r < 0 && errno != EINTR { break }
      if r <= 0 { continue }
      let n = scratch.withUnsafeMutableBytes { raw in recv(fd, raw.baseAddress, raw.count, Int32(MSG_DONTWAIT)) }
      if n <= 0 {
        if n < 0, errno == EINTR || errno == EAGAIN { continue }
        break
      }
      discarded += n
    }
  }
}
