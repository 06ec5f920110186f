import Digest
import JSON

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One part of a `multipart/form-data` body, as `/upload` reports it.
struct MultipartPart: Equatable, Sendable {
  /// The Content-Disposition `name` (nil when the part has none).
  var name: String?
  /// The Content-Disposition `filename` (or a decoded `filename*`); nil for a plain field.
  var filename: String?
  /// The part's Content-Type header.
  var contentType: String?
  /// Bytes of part content (the CRLF before the next delimiter is not content).
  var size = 0
  /// SHA-256 of the content, lowercase hex.
  var sha256 = ""
  /// The content as text, for a part without a filename of at most `MultipartParser.maxValueBytes`.
  var value: String?

  var json: JSONValue {
    var fields: [(String, JSONValue)] = [
      ("name", name.map { .string($0) } ?? .null),
      ("filename", filename.map { .string($0) } ?? .null),
      ("type", contentType.map { .string($0) } ?? .null),
      ("size", .int(size)),
      ("sha256", .string(sha256)),
    ]
    if let value { fields.append(("value", .string(value))) }
    return .obj(fields)
  }
}

/// What the multipart parser made of a whole body: the parts, and why it stopped early if it did.
struct MultipartSummary: Equatable, Sendable {
  var parts: [MultipartPart]
  /// nil when the body was well-formed through its closing delimiter.
  var error: String?
}

/// Parses a `multipart/form-data` body (RFC 7578, RFC 2046 §5.1) incrementally, fed in chunks
/// of any size as the body is read. Memory is bounded whatever the body's size: each part keeps
/// at most its header block (`maxHeaderBytes`) and a short text value (`maxValueBytes`); content
/// is otherwise only counted and hashed. Malformed input is never fatal: the parser records an
/// error, ignores the rest, and `finish()` reports the parts seen so far.
///
/// The body is scanned for the delimiter `CRLF "--" boundary`, as if the body began with a CRLF
/// (so a first boundary at offset 0 is found the same way as later ones). A boundary never contains
/// CR (header values cannot), so after a mismatch the only place a new delimiter can start is the
/// mismatching byte itself: the scanner needs no lookbehind beyond "how much of the delimiter has
/// matched so far", which is what makes delimiters split across chunks work.
struct MultipartParser {
  /// A part without a filename reports its text as `value` up to this many bytes.
  static let maxValueBytes = 4096
  /// The largest header block of one part.
  static let maxHeaderBytes = 8192
  /// Parts after this many make the body malformed (the list of parts is kept in memory).
  static let maxParts = 10_000

  private enum State: Equatable {
    /// Before the first delimiter: bytes are discarded.
    case preamble
    /// Right after a delimiter: `--` (close), or optional spaces then CRLF.
    case afterDelimiter
    /// Saw one `-` after a delimiter.
    case closeDash
    /// Spaces or tabs after a delimiter (transport padding).
    case padding
    /// Saw the CR ending a delimiter line.
    case delimiterLF
    /// In a part's header block.
    case headers
    /// In a part's content.
    case content
    /// After the close delimiter: bytes are discarded.
    case epilogue
    /// Malformed: the rest is ignored.
    case failed
  }

  /// `CRLF "--" boundary`.
  private let delimiter: [UInt8]
  private var state: State = .preamble
  /// How many bytes of `delimiter` the latest bytes match (held back, not yet content).
  private var matched = 2  // the body is treated as if it began with CRLF
  private var error: String?
  private var parts: [MultipartPart] = []

  // The part being read.
  private var line: [UInt8] = []
  private var headerBytes = 0
  private var current = MultipartPart()
  private var hasher = SHA256()
  private var retained: [UInt8] = []
  private var keepsValue = false

  /// A parser for `boundary`; a missing or invalid boundary yields a parser that reports the error.
  init(boundary: String?) {
    let bytes = Array((boundary ?? "").utf8)
    delimiter = Array("\r\n--".utf8) + bytes
    if bytes.isEmpty {
      fail("multipart/form-data without a boundary parameter")
    } else if bytes.count > 70 || bytes.contains(where: { $0 == 0x0d || $0 == 0x0a }) {
      fail("invalid multipart boundary")
    }
  }

  /// A parser when `contentType` is `multipart/form-data` (whatever its boundary), else nil.
  init?(contentType: String?) {
    guard let contentType else { return nil }
    let (mediaType, parameters) = parseHeaderParameters(contentType)
    guard mediaType.lowercased() == "multipart/form-data" else { return nil }
    self.init(boundary: parameters.last(where: { $0.name == "boundary" })?.value)
  }

  private mutating func fail(_ message: String) {
    guard state != .failed else { return }
    error = message
    state = .failed
  }

  /// Feeds the next bytes of the body.
  mutating func feed(_ buffer: UnsafeRawBufferPointer) {
    var i = 0
    let count = buffer.count
    while i < count {
      switch state {
      case .preamble, .content:
        if matched == 0 {
          // Fast path: everything before the next CR is content.
          var cr = count
          if let base = buffer.baseAddress, let found = memchr(base + i, 0x0d, count - i) {
            cr = base.distance(to: UnsafeRawPointer(found))
          }
          if state == .content, cr > i { content(UnsafeRawBufferPointer(rebasing: buffer[i..<cr])) }
          i = cr
          if cr < count {
            matched = 1
            i += 1
          }
        } else if buffer[i] == delimiter[matched] {
          matched += 1
          i += 1
          if matched == delimiter.count {
            matched = 0
            if state == .content { endPart() }
            state = .afterDelimiter
          }
        } else {
          // The held-back bytes were content after all; rescan this byte from scratch.
          releaseHeldBytes()
        }
      case .afterDelimiter:
        switch buffer[i] {
        case UInt8(ascii: "-"): state = .closeDash
        case 0x20, 0x09: state = .padding
        case 0x0d: state = .delimiterLF
        default: fail("malformed delimiter line (boundary followed by other text)")
        }
        i += 1
      case .closeDash:
        if buffer[i] == UInt8(ascii: "-") {
          state = .epilogue
        } else {
          fail("malformed close delimiter")
        }
        i += 1
      case .padding:
        switch buffer[i] {
        case 0x20, 0x09: break
        case 0x0d: state = .delimiterLF
        default: fail("malformed delimiter line (boundary followed by other text)")
        }
        i += 1
      case .delimiterLF:
        if buffer[i] == 0x0a {
          beginPart()
        } else {
          fail("malformed delimiter line (CR without LF)")
        }
        i += 1
      case .headers:
        let byte = buffer[i]
        i += 1
        headerBytes += 1
        guard headerBytes <= Self.maxHeaderBytes else {
          fail("part header block larger than \(Self.maxHeaderBytes) bytes")
          break
        }
        guard byte == 0x0a else {
          line.append(byte)
          break
        }
        if line.last == 0x0d { line.removeLast() }
        if line.isEmpty {
          state = .content
          matched = 0
        } else {
          headerLine(line)
          line.removeAll(keepingCapacity: true)
        }
      case .epilogue, .failed:
        return
      }
    }
  }

  mutating func feed(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { feed($0) }
  }

  /// The body has ended: the parts, and an error unless the close delimiter was seen. A part cut
  /// off by the end of the body is listed with the content it got.
  mutating func finish() -> MultipartSummary {
    switch state {
    case .preamble:
      fail("no multipart boundary found in the body")
    case .content:
      releaseHeldBytes()
      endPart()
      fail("body ended inside a part (missing closing boundary)")
    case .headers:
      endPart()
      fail("body ended inside a part's headers (missing closing boundary)")
    case .afterDelimiter, .closeDash, .padding, .delimiterLF:
      fail("body ended after a boundary (missing closing boundary)")
    case .epilogue, .failed:
      break
    }
    return MultipartSummary(parts: parts, error: error)
  }

  // MARK: Parts

  private mutating func beginPart() {
    guard parts.count < Self.maxParts else {
      fail("more than \(Self.maxParts) parts")
      return
    }
    state = .headers
    line.removeAll(keepingCapacity: true)
    headerBytes = 0
    current = MultipartPart()
    hasher = SHA256()
    retained.removeAll(keepingCapacity: true)
    keepsValue = true
  }

  private mutating func endPart() {
    current.sha256 = hexString(hasher.finalize())
    if keepsValue, current.filename == nil {
      current.value = String(decoding: retained, as: UTF8.self)
    }
    parts.append(current)
    retained.removeAll()
  }

  /// Content bytes of the current part: counted, hashed, and kept while they may be its value.
  private mutating func content(_ buffer: UnsafeRawBufferPointer) {
    guard buffer.count > 0 else { return }
    current.size += buffer.count
    hasher.update(buffer)
    guard keepsValue else { return }
    if current.filename == nil, retained.count + buffer.count <= Self.maxValueBytes {
      retained.append(contentsOf: buffer)
    } else {
      keepsValue = false
      retained.removeAll()
    }
  }

  /// The held-back delimiter prefix did not become a delimiter: it is content (or preamble).
  private mutating func releaseHeldBytes() {
    let held = matched
    matched = 0
    guard state == .content, held > 0 else { return }
    delimiter.withUnsafeBytes { raw in content(UnsafeRawBufferPointer(rebasing: raw[0..<held])) }
  }

  private mutating func headerLine(_ line: [UInt8]) {
    guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else {
      fail("malformed part header line (no colon)")
      return
    }
    let name = String(decoding: line[..<colon], as: UTF8.self).trimmingSpaces.lowercased()
    let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingSpaces
    switch name {
    case "content-disposition":
      let (_, parameters) = parseHeaderParameters(value)
      current.name = parameters.last(where: { $0.name == "name" })?.value
      if let filename = parameters.last(where: { $0.name == "filename" })?.value {
        current.filename = filename
      } else if let extended = parameters.last(where: { $0.name == "filename*" })?.value {
        current.filename = decodeExtendedValue(extended)
      }
    case "content-type":
      current.contentType = value
    default:
      break
    }
  }
}

/// Splits a header value such as `form-data; name="a"; filename="x.jpg"` into its first item and
/// its parameters (names lowercased, quoted strings unquoted with backslash escapes undone).
func parseHeaderParameters(_ value: String) -> (String, [(name: String, value: String)]) {
  let bytes = Array(value.utf8)
  var i = 0
  func skipSpaces() {
    while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 }
  }
  func token(until stops: [UInt8]) -> String {
    let start = i
    while i < bytes.count, !stops.contains(bytes[i]) { i += 1 }
    return String(decoding: bytes[start..<i], as: UTF8.self).trimmingSpaces
  }
  skipSpaces()
  let first = token(until: [UInt8(ascii: ";")])
  var parameters: [(name: String, value: String)] = []
  while i < bytes.count {
    i += 1  // the ';'
    skipSpaces()
    let name = token(until: [UInt8(ascii: "="), UInt8(ascii: ";")]).lowercased()
    var parameterValue = ""
    if i < bytes.count, bytes[i] == UInt8(ascii: "=") {
      i += 1
      skipSpaces()
      if i < bytes.count, bytes[i] == UInt8(ascii: "\"") {
        i += 1
        var out: [UInt8] = []
        while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
          if bytes[i] == UInt8(ascii: "\\"), i + 1 < bytes.count { i += 1 }
          out.append(bytes[i])
          i += 1
        }
        if i < bytes.count { i += 1 }  // closing quote
        parameterValue = String(decoding: out, as: UTF8.self)
        _ = token(until: [UInt8(ascii: ";")])  // anything up to the next ';' is ignored
      } else {
        parameterValue = token(until: [UInt8(ascii: ";")])
      }
    }
    if !name.isEmpty { parameters.append((name, parameterValue)) }
  }
  return (first, parameters)
}

/// An RFC 8187 extended value (`UTF-8''na%C3%AFve.txt`): the percent-decoded text.
private func decodeExtendedValue(_ value: String) -> String {
  let pieces = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
  let encoded = pieces.count == 3 ? pieces[2] : Substring(value)
  return percentDecode(encoded, plusAsSpace: false)
}
