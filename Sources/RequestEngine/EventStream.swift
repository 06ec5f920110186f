import Foundation

/// How a streamed response body is cut into events.
public enum StreamFormat: String, Sendable, Equatable, Hashable, CaseIterable {
  /// Server-sent events (`text/event-stream`), by the WHATWG HTML event-stream rules.
  case sse
  /// One JSON value a line (`application/x-ndjson`, `application/jsonl`).
  case ndjson
  /// One event a line of text, whatever it holds.
  case lines
  /// RFC 7464 JSON text sequences (`application/json-seq`): records that start with RS (0x1E).
  case jsonSeq = "json-seq"

  /// The format a `Content-Type` names, or nil when it names no stream.
  public init?(contentType: String) {
    // The media type before any parameter, trimmed, compared without regard to case, on the
    // bytes: asked of every response (Foundation's trimming and lowercasing were a twentieth of
    // `run`'s instructions for 1,000 exchanges; a lowered copy and a switch over strings still
    // cost 3,000 for each).
    var text = contentType
    guard let format = text.withUTF8(Self.format(ofContentType:)) else { return nil }
    self = format
  }

  private static func format(ofContentType bytes: UnsafeBufferPointer<UInt8>) -> StreamFormat? {
    func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
    var start = 0
    var end = 0
    while end < bytes.count && bytes[end] != UInt8(ascii: ";") { end += 1 }
    while start < end && isSpace(bytes[start]) { start += 1 }
    while end > start && isSpace(bytes[end - 1]) { end -= 1 }
    let media = UnsafeBufferPointer(rebasing: bytes[start..<end])
    func named(_ type: StaticString) -> Bool {
      guard media.count == type.utf8CodeUnitCount else { return false }
      for offset in 0..<media.count {
        let byte = media[offset]
        let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
        if lower != type.utf8Start[offset] { return false }
      }
      return true
    }
    if named("text/event-stream") { return .sse }
    if named("application/x-ndjson") || named("application/ndjson") || named("application/jsonl")
      || named("application/x-jsonlines") || named("application/jsonlines")
    {
      return .ndjson
    }
    if named("application/json-seq") { return .jsonSeq }
    return nil
  }
}

/// One event of a stream, as the parser made it.
public struct StreamEvent: Sendable, Equatable {
  public var format: StreamFormat
  /// 0 for the first event of the exchange; counts on across reconnects.
  public var index: Int
  /// The SSE `event` field (`message` when the server gave none); nil for the line formats.
  public var type: String?
  /// The SSE last event id when the event was dispatched (the `id` field, which persists to
  /// later events); nil for the line formats or before any `id`.
  public var id: String?
  /// The SSE `data` lines joined by `\n`; the line (or record) itself for the line formats.
  /// Cut to the parser's `maxEventBytes` (`truncated` then says so).
  public var data: String
  /// The bytes the event took on the wire (its lines, ends included).
  public var size: Int
  /// Seconds from the exchange's start to the arrival of the event's last byte.
  public var seconds: Double
  /// The data was longer than `maxEventBytes`: only the first bytes are kept.
  public var truncated: Bool

  public init(
    format: StreamFormat, index: Int, type: String?, id: String?, data: String, size: Int, seconds: Double,
    truncated: Bool = false
  ) {
    self.format = format
    self.index = index
    self.type = type
    self.id = id
    self.data = data
    self.size = size
    self.seconds = seconds
    self.truncated = truncated
  }
}

/// An incremental parser of a streamed body: fed bytes as they arrive, in pieces cut anywhere
/// (inside a UTF-8 sequence, between CR and LF), it hands back each event as soon as its last
/// byte came. Pure: no clock (the caller says when bytes arrived), no I/O.
///
/// SSE follows the WHATWG HTML "event stream interpretation": one leading BOM dropped; lines end
/// with CRLF, LF or CR; an empty line dispatches; `:` starts a comment; `field: value` with one
/// space after the colon dropped, a line without a colon a field with an empty value; `data`
/// lines joined by `\n`; `event` sets the type (default `message`); `id` sets the last event id
/// unless it holds NUL; `retry` of ASCII digits sets the reconnection time; unknown fields are
/// ignored; an event without a `data` line is not dispatched (its `id` still counts); an event not
/// ended by an empty line when the stream ends is dropped.
public struct StreamParser: Sendable {
  public let format: StreamFormat
  /// The most bytes kept of one event's data (a server that never ends a line cannot grow
  /// memory without bound); the rest is counted, not kept.
  public let maxEventBytes: Int

  /// The SSE last event id (persists across events, and across reconnects when carried over).
  public var lastEventID: String?
  /// The SSE reconnection time the server asked for (`retry`), in milliseconds.
  public private(set) var retryMilliseconds: Int?
  /// Events handed out so far, the next event's `index`.
  public private(set) var nextIndex: Int

  private var line: [UInt8] = []
  private var lineOverflow = false
  private var afterCR = false
  private var atStart = true
  private var bomChecked = 0
  // SSE event being assembled.
  private var data: [UInt8] = []
  /// The event's only data line so far, still in the bytes `feed` is reading (see `sseLine`):
  /// valid only until `feed` returns, which copies it to `data` first. Kept as an address (the
  /// parser is `Sendable`; this is never set between calls).
  private var pendingDataAddress: UInt = 0
  private var pendingDataCount = 0
  private var pendingData: UnsafeRawBufferPointer? {
    get {
      UnsafeRawPointer(bitPattern: pendingDataAddress).map { UnsafeRawBufferPointer(start: $0, count: pendingDataCount) }
    }
    set {
      pendingDataAddress = newValue?.baseAddress.map { UInt(bitPattern: $0) } ?? 0
      pendingDataCount = newValue?.count ?? 0
    }
  }
  private var hasData = false
  private var dataTruncated = false
  private var eventType: String?
  /// The last `event` value made into a String: a stream names the same few types again and
  /// again, so the next `event: tick` reuses it instead of making another.
  private var recentType: String?
  private var eventBytes = 0

  public init(format: StreamFormat, maxEventBytes: Int = 16 << 20, lastEventID: String? = nil, firstIndex: Int = 0) {
    self.format = format
    self.maxEventBytes = max(1, maxEventBytes)
    self.lastEventID = lastEventID
    self.nextIndex = firstIndex
  }

  /// Feeds the next bytes; returns the events they completed, in order.
  public mutating func feed(_ bytes: UnsafeRawBufferPointer, at seconds: Double) -> [StreamEvent] {
    var out: [StreamEvent] = []
    out.reserveCapacity(min(bytes.count / 40, 1024))  // room for the events of small ones
    var index = bytes.startIndex
    let end = bytes.endIndex
    // A UTF-8 BOM (EF BB BF) at the very start of the stream is not part of the first line.
    while bomChecked < 3 && atStart && index < end {
      let expected: [UInt8] = [0xEF, 0xBB, 0xBF]
      if bytes[index] == expected[bomChecked] {
        bomChecked += 1
        index += 1
        if bomChecked == 3 { atStart = false }
      } else {
        // Not a BOM: what was taken for its start is text.
        line.append(contentsOf: expected[0..<bomChecked])
        bomChecked = 3
        atStart = false
      }
    }
    if index < end { atStart = false }
    if format == .jsonSeq {
      feedSequence(bytes, from: index, at: seconds, into: &out)
      return out
    }
    while index < end {
      let byte = bytes[index]
      index += 1
      if afterCR {
        afterCR = false
        if byte == 0x0A {
          eventBytes += 1
          continue
        }
      }
      switch byte {
      case 0x0A:
        eventBytes += 1
        endLine(at: seconds, into: &out)
      case 0x0D:
        eventBytes += 1
        afterCR = true
        endLine(at: seconds, into: &out)
      default:
        // The run up to the next line end.
        let stop = Self.lineEnd(in: bytes, from: index)
        let run = UnsafeRawBufferPointer(rebasing: bytes[(index - 1)..<stop])
        eventBytes += run.count
        if stop < end && line.isEmpty && !lineOverflow {
          // The whole line is in these bytes: parsed where it is, not copied first.
          eventBytes += 1
          afterCR = bytes[stop] == 0x0D
          let room = maxEventBytes + 16
          let overflow = run.count > room
          lineEnded(
            overflow ? UnsafeRawBufferPointer(rebasing: run.prefix(room)) : run, overflow: overflow, inFedBytes: true,
            at: seconds, into: &out)
          index = stop + 1
        } else {
          appendToLine(run)
          index = stop
        }
      }
    }
    keepPendingData()
    return out
  }

  /// Where the line that goes on at `start` ends: the offset of the next LF or CR, or the end.
  /// Eight bytes at a time (a line end is found in a word by the "has a zero byte" test of the
  /// word XOR each end, whose lowest flagged byte is exact), then byte by byte.
  @inline(__always)
  private static func lineEnd(in bytes: UnsafeRawBufferPointer, from start: Int) -> Int {
    let ones: UInt64 = 0x0101_0101_0101_0101
    let highs: UInt64 = 0x8080_8080_8080_8080
    var stop = start
    let end = bytes.endIndex
    while stop + 8 <= end {
      let word = bytes.loadUnaligned(fromByteOffset: stop, as: UInt64.self)
      let lf = word ^ (ones &* 0x0A)
      let cr = word ^ (ones &* 0x0D)
      let found = ((lf &- ones) & ~lf & highs) | ((cr &- ones) & ~cr & highs)
      if found != 0 { return stop + found.trailingZeroBitCount >> 3 }
      stop += 8
    }
    while stop < end {
      let next = bytes[stop]
      if next <= 0x0D && (next == 0x0A || next == 0x0D) { return stop }
      stop += 1
    }
    return end
  }

  /// Convenience for tests and callers holding an array.
  public mutating func feed(_ bytes: [UInt8], at seconds: Double) -> [StreamEvent] {
    bytes.withUnsafeBytes { feed($0, at: seconds) }
  }

  /// The stream ended: the line formats hand out a last line that had no line end; SSE drops an
  /// event not ended by an empty line (the WHATWG rule).
  public mutating func finish(at seconds: Double) -> [StreamEvent] {
    var out: [StreamEvent] = []
    switch format {
    case .sse:
      break
    case .ndjson, .lines, .jsonSeq:
      if !line.isEmpty || lineOverflow { emitLine(at: seconds, into: &out) }
    }
    line = []
    lineOverflow = false
    afterCR = false
    resetEvent()
    return out
  }

  // MARK: - Lines

  private mutating func appendToLine(_ run: UnsafeRawBufferPointer) {
    let room = maxEventBytes + 16 - line.count  // a little over the data cap for the field name
    if run.count <= room {
      line.append(contentsOf: run)
    } else {
      if room > 0 { line.append(contentsOf: run.prefix(room)) }
      lineOverflow = true
    }
  }

  /// The line kept in `line` (it came in pieces) ended.
  private mutating func endLine(at seconds: Double, into out: inout [StreamEvent]) {
    let overflow = lineOverflow
    let kept = line
    kept.withUnsafeBytes { lineEnded($0, overflow: overflow, inFedBytes: false, at: seconds, into: &out) }
    line.removeAll(keepingCapacity: line.count < 4096)
    lineOverflow = false
  }

  /// A whole line (its end left out; `overflow`: it was longer, and cut; `inFedBytes`: it lies
  /// in the bytes `feed` was given, which stay valid until it returns).
  private mutating func lineEnded(
    _ text: UnsafeRawBufferPointer, overflow: Bool, inFedBytes: Bool, at seconds: Double, into out: inout [StreamEvent]
  ) {
    switch format {
    case .sse: sseLine(text, overflow: overflow, inFedBytes: inFedBytes, at: seconds, into: &out)
    case .ndjson, .lines: emitLine(text, overflow: overflow, at: seconds, into: &out)
    case .jsonSeq: break
    }
  }

  /// The record kept in `line` is one event (JSON text sequences, and a last line at the end).
  private mutating func emitLine(at seconds: Double, into out: inout [StreamEvent]) {
    let overflow = lineOverflow
    let kept = line
    kept.withUnsafeBytes { emitLine($0, overflow: overflow, at: seconds, into: &out) }
    line = []
  }

  /// A line of a line format is one event; blank lines (only spaces) are none.
  private mutating func emitLine(
    _ bytes: UnsafeRawBufferPointer, overflow: Bool, at seconds: Double, into out: inout [StreamEvent]
  ) {
    let size = eventBytes
    eventBytes = 0
    var text = bytes[...]
    if format == .jsonSeq {
      while let last = text.last, last == 0x0A || last == 0x0D || last == 0x20 || last == 0x09 { text = text.dropLast() }
    }
    guard text.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) || overflow else { return }
    let kept = text.prefix(maxEventBytes)
    out.append(
      StreamEvent(
        format: format, index: nextIndex, type: nil, id: nil, data: String(decoding: kept, as: UTF8.self), size: size,
        seconds: seconds, truncated: overflow || kept.count < text.count))
    nextIndex += 1
  }

  // MARK: - JSON text sequences

  private mutating func feedSequence(
    _ bytes: UnsafeRawBufferPointer, from start: Int, at seconds: Double, into out: inout [StreamEvent]
  ) {
    var index = start
    while index < bytes.endIndex {
      var stop = index
      while stop < bytes.endIndex, bytes[stop] != 0x1E { stop += 1 }
      let run = UnsafeRawBufferPointer(rebasing: bytes[index..<stop])
      eventBytes += run.count
      appendToLine(run)
      if stop < bytes.endIndex {
        // RS: the record before it (if any) is whole.
        if !line.isEmpty || lineOverflow { emitLine(at: seconds, into: &out) }
        line = []
        lineOverflow = false
        eventBytes = 1
        stop += 1
      }
      index = stop
    }
  }

  // MARK: - SSE fields

  private mutating func sseLine(
    _ line: UnsafeRawBufferPointer, overflow: Bool, inFedBytes: Bool, at seconds: Double, into out: inout [StreamEvent]
  ) {
    if line.isEmpty && !overflow {
      dispatch(at: seconds, into: &out)
      return
    }
    if line.first == UInt8(ascii: ":") { return }  // a comment (a heartbeat)
    let colon = Self.offset(of: UInt8(ascii: ":"), in: line)
    let name = line[..<(colon ?? line.endIndex)]
    var value = colon.map { line[($0 + 1)...] } ?? line[line.endIndex...]
    if value.first == 0x20 { value = value.dropFirst() }
    // The field name compared on its bytes: no String made for each line.
    if Self.named(name, "data") {
      if !hasData && inFedBytes && !overflow && value.count <= maxEventBytes {
        // An event's first data line, where it lies: most events have one, and are dispatched
        // within the same bytes (`dispatch` makes the String from it; `feed` copies it to `data`
        // before it returns when the event is not over).
        hasData = true
        pendingData = UnsafeRawBufferPointer(rebasing: value)
        return
      }
      keepPendingData()
      if hasData {
        if data.count < maxEventBytes { data.append(0x0A) } else { dataTruncated = true }
      }
      hasData = true
      appendData(UnsafeRawBufferPointer(rebasing: value))
      if overflow { dataTruncated = true }
    } else if Self.named(name, "event") {
      if let recentType, Self.same(recentType, value) {
        eventType = recentType
      } else {
        eventType = String(decoding: value, as: UTF8.self)
        recentType = eventType
      }
    } else if Self.named(name, "id") {
      if Self.offset(of: 0, in: UnsafeRawBufferPointer(rebasing: value)) == nil {
        lastEventID = String(decoding: value, as: UTF8.self)
      }
    } else if Self.named(name, "retry") {
      if !value.isEmpty, value.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
        retryMilliseconds = Int(String(decoding: value.prefix(12), as: UTF8.self))
      }
    }
    // Other fields are ignored.
  }

  /// Where `byte` first is in `bytes` (memchr: a field's colon, a NUL in an id, looked for in
  /// every line of a stream).
  @inline(__always)
  private static func offset(of byte: UInt8, in bytes: UnsafeRawBufferPointer) -> Int? {
    guard let base = bytes.baseAddress, let found = memchr(base, Int32(byte), bytes.count) else { return nil }
    return UnsafeRawPointer(found) - base
  }

  /// Whether a line's field name is `field`, byte for byte.
  @inline(__always)
  private static func named(_ name: Slice<UnsafeRawBufferPointer>, _ field: StaticString) -> Bool {
    // A literal of several characters is UTF-8 in the binary, compared where it lies.
    guard field.hasPointerRepresentation else {
      return field.withUTF8Buffer { name.elementsEqual($0) }
    }
    guard name.count == field.utf8CodeUnitCount else { return false }
    return name.isEmpty || memcmp(field.utf8Start, name.base.baseAddress! + name.startIndex, name.count) == 0
  }

  /// Whether `text` is the bytes of `value` (compared where the String keeps its UTF-8).
  private static func same(_ text: String, _ value: Slice<UnsafeRawBufferPointer>) -> Bool {
    guard text.utf8.count == value.count else { return false }
    return text.utf8.withContiguousStorageIfAvailable { kept in
      kept.isEmpty || memcmp(kept.baseAddress!, value.base.baseAddress! + value.startIndex, kept.count) == 0
    } ?? text.utf8.elementsEqual(value)
  }

  private mutating func appendData(_ bytes: UnsafeRawBufferPointer) {
    let room = maxEventBytes - data.count
    if bytes.count <= room {
      data.append(contentsOf: bytes)
    } else {
      if room > 0 { data.append(contentsOf: bytes.prefix(room)) }
      dataTruncated = true
    }
  }

  private mutating func dispatch(at seconds: Double, into out: inout [StreamEvent]) {
    let size = eventBytes
    defer { resetEvent() }
    guard hasData else { return }
    let type = eventType.flatMap { $0.isEmpty ? nil : $0 } ?? "message"
    let text = pendingData.map { String(decoding: $0, as: UTF8.self) } ?? String(decoding: data, as: UTF8.self)
    out.append(
      StreamEvent(
        format: format, index: nextIndex, type: type, id: lastEventID, data: text, size: size,
        seconds: seconds, truncated: dataTruncated))
    nextIndex += 1
  }

  /// Copies a data line `sseLine` left where it lay into `data`: before the bytes it lies in are
  /// gone, or before more data joins it.
  private mutating func keepPendingData() {
    guard let pending = pendingData else { return }
    pendingData = nil
    appendData(pending)
  }

  private mutating func resetEvent() {
    pendingData = nil
    if !data.isEmpty { data.removeAll(keepingCapacity: data.count < 4096) }
    hasData = false
    dataTruncated = false
    eventType = nil
    eventBytes = 0
  }
}
