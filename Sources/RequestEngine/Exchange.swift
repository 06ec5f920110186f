import Foundation

/// One send of a request. Ids are unique for the life of the process and increase.
public struct ExchangeID: Sendable, Hashable, Comparable, CustomStringConvertible {
  public let rawValue: UInt64
  public init(rawValue: UInt64) { self.rawValue = rawValue }
  public static func < (a: ExchangeID, b: ExchangeID) -> Bool { a.rawValue < b.rawValue }
  public var description: String { "#\(rawValue)" }
}

/// Where an exchange is in its life: `queued → running → succeeded | failed | cancelled`.
public enum ExchangeState: String, Sendable, Equatable {
  case queued, running, succeeded, failed, cancelled

  public var isTerminal: Bool {
    switch self {
    case .queued, .running: false
    case .succeeded, .failed, .cancelled: true
    }
  }
}

/// curl's timing breakdown, in seconds from the start of the attempt (each includes the ones
/// before it: DNS ≤ connect ≤ TLS ≤ first byte ≤ total).
public struct Timing: Sendable, Equatable {
  public var dns: Double
  public var connect: Double
  /// Zero for plain HTTP.
  public var tls: Double
  public var firstByte: Double
  public var total: Double

  public init(dns: Double = 0, connect: Double = 0, tls: Double = 0, firstByte: Double = 0, total: Double = 0) {
    self.dns = dns
    self.connect = connect
    self.tls = tls
    self.firstByte = firstByte
    self.total = total
  }
}

/// A response body: in memory up to the agent's limit, spilled to a temporary file beyond it.
public enum ResponseBody: Sendable {
  case memory([UInt8])
  case file(SpilledFile)

  public static let empty = ResponseBody.memory([])

  public var count: Int {
    switch self {
    case .memory(let bytes): bytes.count
    case .file(let file): file.size
    }
  }

  /// The whole body. For a spilled body this reads the file.
  public func bytes() throws -> [UInt8] {
    switch self {
    case .memory(let bytes): return bytes
    case .file(let file): return try file.read(offset: 0, count: file.size)
    }
  }

  /// The first `limit` bytes, without reading a spilled file whole.
  public func prefix(_ limit: Int) -> [UInt8] {
    switch self {
    case .memory(let bytes): return Array(bytes.prefix(limit))
    case .file(let file): return (try? file.read(offset: 0, count: min(max(0, limit), file.size))) ?? []
    }
  }
}

/// A body the agent wrote to a temporary file. The file has no name (it was unlinked as soon as
/// it was created): it exists as the open `descriptor` this object owns and is gone when the
/// last reference goes, or with the process, however it ends. Read it with `read`, map the
/// descriptor, or open `path`.
public final class SpilledFile: Sendable {
  /// Open for reading and writing; reads use `pread`, so they share no file offset.
  public let descriptor: Int32
  public let size: Int

  init(descriptor: Int32, size: Int) {
    self.descriptor = descriptor
    self.size = size
  }

  /// Takes over the file at `path`: opens it and removes its name, so it goes with this object
  /// (tests and tools that make a spilled body of their own). A file that cannot be opened reads
  /// as an error.
  convenience init(path: String, size: Int) {
    let fd = open(path, O_RDWR | O_CLOEXEC)
    if fd >= 0 { unlink(path) }
    self.init(descriptor: fd, size: size)
  }

  deinit { if descriptor >= 0 { close(descriptor) } }

  /// A path that opens this file while this object lives (`/proc/self/fd/N`: the file has no
  /// name of its own), for code that reads files by path.
  public var path: String { "/proc/self/fd/\(descriptor)" }

  /// Gives the file the name `path` (a new name; an existing one is not replaced), then puts its
  /// bytes on disk (fsync) before returning, so whatever refers to the name afterwards never finds
  /// a file a power loss emptied. False when it cannot (a file made with a name and unlinked,
  /// another file system, the name taken, the fsync failing: the name is removed again): the
  /// caller copies it instead.
  public func link(to path: String) -> Bool {
    guard linkat(AT_FDCWD, self.path, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0 else { return false }
    guard fsync(descriptor) == 0 else {
      unlink(path)
      return false
    }
    return true
  }

  public struct ReadError: Error, CustomStringConvertible {
    public let description: String
  }

  /// `count` bytes from `offset`; an error when the file is shorter or cannot be read.
  public func read(offset: Int, count: Int) throws(ReadError) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: count)
    var done = 0
    while done < count {
      let n = out.withUnsafeMutableBytes { buffer in
        pread(descriptor, buffer.baseAddress! + done, count - done, off_t(offset + done))
      }
      if n < 0 && errno == EINTR { continue }
      guard n > 0 else {
        throw ReadError(description: "cannot read the spilled response body: \(n < 0 ? String(cString: strerror(errno)) : "it is shorter than \(size) bytes")")
      }
      done += n
    }
    return out
  }

  /// The whole file, `chunkSize` bytes at a time, never loaded whole.
  public func forEachChunk(_ chunkSize: Int = 1 << 20, _ body: ([UInt8]) throws -> Void) throws {
    var offset = 0
    while offset < size {
      let chunk = try read(offset: offset, count: min(chunkSize, size - offset))
      try body(chunk)
      offset += chunk.count
    }
  }

  /// A new temporary file in `directory` with no name: created (mode 0600) and unlinked at once,
  /// so nothing is left behind whatever happens next. Nil when it cannot be created.
  ///
  /// On Linux it is made nameless from the start (`O_TMPFILE`), which also lets it be given a
  /// name later (`link(to:)`: history keeps a large body by linking it, not copying it); where
  /// the file system cannot, it is made with a name and unlinked at once.
  static func createAnonymous(in directory: String) -> Int32? {
    #if os(Linux)
      // O_TMPFILE is `__O_TMPFILE | O_DIRECTORY`, a macro Swift does not import.
      let tmpfile: Int32 = 0o20_000_000 | O_DIRECTORY
      let nameless = open(directory, tmpfile | O_RDWR | O_CLOEXEC, 0o600)
      if nameless >= 0 { return nameless }
    #endif
    var template = Array((directory + "/reqbench-body-XXXXXX").utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    guard fd >= 0 else { return nil }
    _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
    template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    return fd
  }

  /// Writes every byte (retrying short writes and EINTR); false on an error (errno says which).
  static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
      if n < 0 {
        if errno == EINTR { continue }
        return false
      }
      offset += n
    }
    return true
  }
}

/// What came back from the server.
public struct Response: Sendable {
  public var status: Int
  /// `HTTP/1.1`, `HTTP/2`…
  public var httpVersion: String
  public var headers: HTTPHeaders
  public var body: ResponseBody
  /// The URL of the last request after redirects.
  public var effectiveURL: String
  public var redirectCount: Int
  public var timing: Timing
  public var bytesSent: Int64

  public init(
    status: Int, httpVersion: String = "HTTP/1.1", headers: HTTPHeaders = [:],
    body: ResponseBody = .empty, effectiveURL: String = "", redirectCount: Int = 0,
    timing: Timing = Timing(), bytesSent: Int64 = 0
  ) {
    self.status = status
    self.httpVersion = httpVersion
    self.headers = headers
    self.body = body
    self.effectiveURL = effectiveURL
    self.redirectCount = redirectCount
    self.timing = timing
    self.bytesSent = bytesSent
  }

  /// The media type without parameters, lower-cased (`application/json`).
  public var mediaType: String? {
    headers["Content-Type"].map {
      String($0.split(separator: ";", maxSplits: 1).first ?? "").trimmingWhitespace().lowercased()
    }
  }

  /// Whether the Content-Type names JSON (`application/json`, `text/json`, `…+json`).
  public var isJSON: Bool {
    guard let type = mediaType else { return false }
    return type == "application/json" || type == "text/json" || type == "text/javascript"
      || type.hasSuffix("+json")
  }
}

/// Bytes moved so far; totals are nil when the size is unknown. A resumed download counts from
/// the bytes already on disk, of the full length.
public struct TransferProgress: Sendable, Equatable {
  public var downloaded: Int64
  public var downloadTotal: Int64?
  public var uploaded: Int64
  public var uploadTotal: Int64?
  /// Bytes per second of the current attempt, in the direction that is moving (the upload until
  /// it is sent, then the download); nil until it can be measured.
  public var bytesPerSecond: Double?

  /// Whether the request body is still going out.
  public var isUploading: Bool {
    guard let uploadTotal, uploadTotal > 0 else { return false }
    return uploaded < uploadTotal
  }

  /// How far the moving direction is, 0–1; nil when its total is unknown.
  public var fraction: Double? {
    let (done, total) = isUploading ? (uploaded, uploadTotal) : (downloaded, downloadTotal)
    guard let total, total > 0 else { return nil }
    return min(1, Double(done) / Double(total))
  }

  /// Seconds left at the current speed; nil when the total or the speed is unknown.
  public var secondsLeft: Double? {
    let (done, total) = isUploading ? (uploaded, uploadTotal) : (downloaded, downloadTotal)
    guard let total, let speed = bytesPerSecond, speed > 0, total >= done else { return nil }
    return Double(total - done) / speed
  }

  public init(downloaded: Int64 = 0, downloadTotal: Int64? = nil, uploaded: Int64 = 0, uploadTotal: Int64? = nil) {
    self.downloaded = downloaded
    self.downloadTotal = downloadTotal
    self.uploaded = uploaded
    self.uploadTotal = uploadTotal
  }
}

/// Kinds of `AgentEvent`, for a batch subscriber to say which it wants
/// (`Agent.subscribeBatches(kinds:_:)`). The engine builds only the events some subscriber
/// wants: `run` printing result lines wants the ends, not a `queued` event carrying a copy of
/// each request nor the headers and progress of each exchange.
public struct AgentEventKinds: OptionSet, Sendable, Hashable {
  public let rawValue: UInt16
  public init(rawValue: UInt16) { self.rawValue = rawValue }

  public static let queued = AgentEventKinds(rawValue: 1 << 0)
  public static let joined = AgentEventKinds(rawValue: 1 << 1)
  public static let started = AgentEventKinds(rawValue: 1 << 2)
  public static let headers = AgentEventKinds(rawValue: 1 << 3)
  public static let progress = AgentEventKinds(rawValue: 1 << 4)
  public static let retrying = AgentEventKinds(rawValue: 1 << 5)
  public static let delivered = AgentEventKinds(rawValue: 1 << 6)
  public static let streamEvents = AgentEventKinds(rawValue: 1 << 7)
  public static let reconnecting = AgentEventKinds(rawValue: 1 << 8)
  public static let paused = AgentEventKinds(rawValue: 1 << 9)
  public static let resumed = AgentEventKinds(rawValue: 1 << 10)
  public static let finished = AgentEventKinds(rawValue: 1 << 11)
  public static let all = AgentEventKinds(rawValue: (1 << 12) - 1)
}

/// What the agent reports, in order per exchange:
/// queued → joined? → (started → headers? → (progress | streamEvents)*)+ with retrying (or, for a
/// stream, reconnecting) between attempts → finished.
public enum AgentEvent: Sendable {
  case queued(ExchangeID, Request)
  /// The exchange joined an identical request in flight (de-duplication): it gets that
  /// exchange's response and is flagged `deduplicated`. Right after `queued`; when the primary is
  /// running already, its `started`, its `headers` (when they came) and its latest `progress`
  /// follow at once, so a waiter shows the same status and bytes as the primary from the start.
  case joined(ExchangeID, primary: ExchangeID)
  case started(ExchangeID, attempt: Int)
  case headers(ExchangeID, status: Int, headers: HTTPHeaders)
  case progress(ExchangeID, TransferProgress)
  /// The attempt failed and attempt `attempt` starts in `delay` seconds (the server's
  /// `Retry-After`, or the policy's backoff); the exchange is queued meanwhile.
  case retrying(ExchangeID, attempt: Int, delay: Double, reason: ExchangeError)
  /// A response delivered before the end (`cacheThenNetwork`: the cached one, then `finished`
  /// with the fresh one). Not terminal.
  case delivered(ExchangeResult)
  /// Events of a streamed response (SSE, NDJSON…), in order, as soon as their last bytes
  /// arrived: the ones one write of the body completed (never empty), handed over together so a
  /// fast stream is not one agent event (and one copy through every queue) per event. Between
  /// `headers` and `finished`; each event's `index` counts from 0 over the whole exchange.
  case streamEvents(ExchangeID, [StreamEvent])
  /// A stream with `reconnect` dropped; it connects again in `delay` seconds, for the `count`th
  /// time, with `Last-Event-ID` (`started` follows when it does).
  case reconnecting(ExchangeID, count: Int, delay: Double, reason: ExchangeError)
  /// The exchange was paused (`Agent.pause`): out of the queue, or its transfer held still on the
  /// wire (it keeps its slot and connection); `resumed` when it goes on. A waiter (dedup) gets
  /// its primary's.
  case paused(ExchangeID)
  case resumed(ExchangeID)
  case finished(ExchangeResult)

  /// Which kind of event this is (`AgentEventKinds`).
  public var kind: AgentEventKinds {
    switch self {
    case .queued: .queued
    case .joined: .joined
    case .started: .started
    case .headers: .headers
    case .progress: .progress
    case .retrying: .retrying
    case .delivered: .delivered
    case .streamEvents: .streamEvents
    case .reconnecting: .reconnecting
    case .paused: .paused
    case .resumed: .resumed
    case .finished: .finished
    }
  }

  public var exchangeID: ExchangeID {
    switch self {
    case .queued(let id, _), .joined(let id, _), .started(let id, _), .headers(let id, _, _), .progress(let id, _),
      .retrying(let id, _, _, _), .streamEvents(let id, _), .reconnecting(let id, _, _, _), .paused(let id),
      .resumed(let id):
      id
    case .delivered(let result), .finished(let result): result.id
    }
  }

  /// The event as it may be shown: a `queued` event's request is `Request.redacted()`. (Errors
  /// in `retrying` events and results are masked by the agent already; a result's request is
  /// not, so show `result.request.redacted()`.)
  public func redacted() -> AgentEvent {
    if case .queued(let id, let request) = self { return .queued(id, request.redacted()) }
    return self
  }
}
