import Foundation
import RequestEngine

/// A response body ready to draw, built lazily so a 50 MB body opens as fast as a small one: its
/// bytes are a `BodyBytes` (a body the agent spilled to a file is mapped, never read whole);
/// JSON up to `prettyLimit` is parsed and pretty-printed at once; larger JSON is laid out in the
/// same shape a block of lines at a time, as far as the screen needs (`LazyJSONLines`); other
/// text is indexed line by line only as far as the screen needs; binary bodies are shown as a hex
/// dump computed per visible line.
/// Lines never contain raw control characters (they are escaped when drawn).
public final class BodyDocument: @unchecked Sendable {
  public enum Kind: Sendable, Equatable { case json, text, binary, empty }

  /// JSON bodies up to this size are parsed and pretty-printed at once; larger ones lazily.
  public static let prettyLimit = 1 << 20
  /// The longest line shown (and searched); the rest of a longer line is summarised.
  public static let maxLineBytes = 16 << 10

  public let kind: Kind
  /// Why a body its response calls JSON (`Content-Type: application/json`, `…+json`) is shown as
  /// text: where it stops being JSON. Nil for valid JSON, bodies not said to be JSON, and JSON
  /// above `prettyLimit` (laid out as it is drawn, never validated).
  public let invalidJSON: JSONSyntaxError?
  private let bytes: BodyBytes
  private var pretty: [String]?
  private var lazyJSON: LazyJSONLines?
  /// Start offsets of the lines indexed so far (text bodies).
  private var lineStarts: [Int] = [0]
  private var indexedAll = false
  private let lock = NSLock()

  /// A document of a response body: a spilled body is mapped, not read (`BodyBytes`).
  public convenience init(body: ResponseBody, mediaType: String?) {
    self.init(bytes: BodyBytes(body), mediaType: mediaType)
  }

  public convenience init(bytes: [UInt8], mediaType: String?) {
    self.init(bytes: BodyBytes(bytes), mediaType: mediaType)
  }

  /// Looks at no more of the bytes than it needs: the first 4 KB (binary or not), and all of them
  /// only for JSON up to `prettyLimit`.
  public init(bytes: BodyBytes, mediaType: String?) {
    self.bytes = bytes
    if bytes.isEmpty {
      kind = .empty
      invalidJSON = nil
      indexedAll = true
      return
    }
    let isJSONType = mediaType.map { $0.contains("json") } ?? false
    let first = bytes.withUnsafeBufferPointer { $0.first(where: { $0 > 0x20 }) }
    let looksLikeJSON = first == UInt8(ascii: "{") || first == UInt8(ascii: "[")
    var parsed: Result<JSONValue, JSONSyntaxError>?
    if bytes.count <= BodyDocument.prettyLimit, isJSONType || looksLikeJSON {
      parsed = bytes.withUnsafeBufferPointer { buffer in Result { () throws(JSONSyntaxError) in try JSONParser.parse(buffer) } }
    }
    if case .failure(let error)? = parsed, isJSONType {
      invalidJSON = error
    } else {
      invalidJSON = nil
    }
    if case .success(let value)? = parsed {
      kind = .json
      pretty = JSONSerializer.pretty(value).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      indexedAll = true
    } else if bytes.count > BodyDocument.prettyLimit, isJSONType || (mediaType == nil && looksLikeJSON) {
      // Too big to parse on the way to the screen: laid out as it is drawn, never validated.
      kind = .json
      lazyJSON = LazyJSONLines(bytes: bytes, maxLineBytes: BodyDocument.maxLineBytes)
    } else if BodyDocument.looksBinary(bytes.prefix(4096)) {
      kind = .binary
      indexedAll = true
    } else {
      kind = .text
    }
  }

  /// A document of plain text (jq output, headers).
  public convenience init(text: String) {
    self.init(bytes: Array(text.utf8), mediaType: "text/plain")
  }

  public var byteCount: Int { bytes.count }

  /// Many NUL or invalid bytes in the first 4 KB mean binary.
  static func looksBinary(_ bytes: [UInt8]) -> Bool {
    let sample = bytes.prefix(4096)
    if sample.contains(0) { return true }
    let text = String(decoding: sample, as: UTF8.self)
    let replacements = text.unicodeScalars.filter { $0 == "\u{FFFD}" }.count
    return replacements > max(4, sample.count / 20)
  }

  /// The number of lines, when known without indexing more than `atLeast` lines.
  public func lineCount(atLeast needed: Int) -> (count: Int, exact: Bool) {
    lock.lock()
    defer { lock.unlock() }
    switch kind {
    case .empty: return (0, true)
    case .json:
      guard let lazyJSON else { return (pretty?.count ?? 0, true) }
      lazyJSON.count(upTo: needed)
      return (lazyJSON.countedLines, lazyJSON.complete)
    case .binary: return ((bytes.count + 15) / 16, true)
    case .text:
      indexLines(upTo: needed)
      return (lineStarts.count, indexedAll)
    }
  }

  /// All lines indexed (for `G`): O(size) once.
  public func totalLineCount() -> Int {
    lineCount(atLeast: Int.max).count
  }

  /// Line `i` as text (not escaped; the buffer escapes control characters when drawing).
  public func line(_ i: Int) -> String {
    lock.lock()
    defer { lock.unlock() }
    switch kind {
    case .empty: return ""
    case .json:
      if let lazyJSON { return lazyJSON.line(i) }
      return pretty.flatMap { i < $0.count ? $0[i] : nil } ?? ""
    case .binary: return hexLine(i)
    case .text:
      indexLines(upTo: i + 2)
      guard i < lineStarts.count else { return "" }
      let start = lineStarts[i]
      var end = i + 1 < lineStarts.count ? lineStarts[i + 1] : bytes.count
      if end > start, bytes[end - 1] == 0x0A { end -= 1 }
      if end > start, bytes[end - 1] == 0x0D { end -= 1 }
      // A huge line (minified JSON of 50 MB) is cut, so a frame never costs more than this.
      if end - start > BodyDocument.maxLineBytes {
        var cut = start + BodyDocument.maxLineBytes
        while cut > start, bytes[cut] & 0xC0 == 0x80 { cut -= 1 }  // not inside a UTF-8 sequence
        return bytes.string(start..<cut)
          + " … (\(end - cut) more bytes on this line; | with jq . pretty-prints JSON)"
      }
      return bytes.string(start..<max(start, end))
    }
  }

  /// The first line after `from` (forward) or before it (backward) containing `query`,
  /// case-insensitively; wraps around once.
  public func find(_ query: String, from: Int, forward: Bool) -> Int? {
    if case .found(let line) = search(SearchCursor(query: query, from: from, forward: forward), budget: .max) {
      return line
    }
    return nil
  }

  /// The match at `line` as `(k, of)`: lines containing `query` (as `search` finds them) up to
  /// and including it, of all of them; nil for a body of more than `limit` lines (counting would
  /// be a pass through all of it).
  public func matchPosition(of query: String, at line: Int, limit: Int) -> (index: Int, total: Int)? {
    let (count, exact) = lineCount(atLeast: limit + 1)
    guard exact, count <= limit, !query.isEmpty else { return nil }
    let needle = query.lowercased()
    var index = 0
    var total = 0
    for i in 0..<count where self.line(i).lowercased().contains(needle) {
      total += 1
      if i <= line { index = total }
    }
    return (index, total)
  }

  /// Where a search is: it resumes at `step` (lines looked at so far + 1).
  public struct SearchCursor: Sendable, Equatable {
    public var query: String
    public var from: Int
    public var forward: Bool
    public var step = 1
    public init(query: String, from: Int, forward: Bool) {
      self.query = query
      self.from = from
      self.forward = forward
    }
  }

  public enum SearchStep: Sendable, Equatable {
    case found(Int)
    case notFound
    /// Not done after `budget` lines: go on from this cursor; `fraction` of the lines are done.
    case more(SearchCursor, fraction: Double)
  }

  /// A slice of a search: looks at no more than `budget` lines, so a search through a huge body
  /// is done a slice at a time between frames and keys (the UI never freezes on it).
  public func search(_ cursor: SearchCursor, budget: Int) -> SearchStep {
    guard !cursor.query.isEmpty else { return .notFound }
    let count = totalLineCount()
    guard count > 0, cursor.step <= count else { return .notFound }
    let needle = cursor.query.lowercased()
    let last = budget >= count ? count : min(count, cursor.step + budget - 1)
    for step in cursor.step...last {
      let i = cursor.forward ? (cursor.from + step) % count : ((cursor.from - step) % count + count) % count
      if line(i).lowercased().contains(needle) { return .found(i) }
    }
    guard last < count else { return .notFound }
    var next = cursor
    next.step = last + 1
    return .more(next, fraction: Double(last) / Double(count))
  }

  private func indexLines(upTo needed: Int) {
    guard !indexedAll, lineStarts.count <= needed else { return }
    var offset = lineStarts.last ?? 0
    // Continue scanning from the last known line start.
    bytes.withUnsafeBufferPointer { buffer in
      while lineStarts.count <= needed {
        guard let base = buffer.baseAddress, offset < buffer.count,
          let found = memchr(base + offset, 0x0A, buffer.count - offset)
        else {
          indexedAll = true
          return
        }
        let position = UnsafePointer(found.assumingMemoryBound(to: UInt8.self)) - base
        offset = position + 1
        if offset >= buffer.count {
          indexedAll = true
          return
        }
        lineStarts.append(offset)
      }
    }
  }

  private func hexLine(_ i: Int) -> String {
    let start = i * 16
    guard start < bytes.count else { return "" }
    let chunk = bytes.copy(start..<min(start + 16, bytes.count))
    var hex = ""
    for (n, byte) in chunk.enumerated() {
      hex += (n == 8 ? "  " : " ") + String(byte, radix: 16).leftPadded(2)
    }
    hex += String(repeating: " ", count: (16 - chunk.count) * 3 + (chunk.count <= 8 ? 1 : 0))
    let ascii = String(chunk.map { $0 >= 0x20 && $0 < 0x7F ? Character(Unicode.Scalar($0)) : "." })
    return String(start, radix: 16).leftPadded(8) + " " + hex + "  |" + ascii + "|"
  }
}

extension String {
  func leftPadded(_ width: Int, _ pad: Character = "0") -> String {
    count >= width ? self : String(repeating: pad, count: width - count) + self
  }
}

/// Colours for a pretty-printed JSON line: key, string, number, literal or punctuation.
public enum JSONHighlight {
  public enum Role: Sendable, Equatable { case key, string, number, literal, punctuation }

  /// Spans of one line of `JSONSerializer.pretty` output, in order, covering the whole line.
  public static func spans(_ line: String) -> [(text: Substring, role: Role)] {
    var spans: [(Substring, Role)] = []
    var i = line.startIndex
    while i < line.endIndex {
      let c = line[i]
      if c == "\"" {
        var j = line.index(after: i)
        var escaped = false
        while j < line.endIndex {
          if escaped { escaped = false } else if line[j] == "\\" { escaped = true } else if line[j] == "\"" { break }
          j = line.index(after: j)
        }
        let end = j < line.endIndex ? line.index(after: j) : j
        let rest = line[end...].drop(while: { $0 == " " })
        spans.append((line[i..<end], rest.first == ":" ? .key : .string))
        i = end
      } else if c == "-" || c.isNumber {
        var j = i
        while j < line.endIndex, "-+.eE0123456789".contains(line[j]) { j = line.index(after: j) }
        spans.append((line[i..<j], .number))
        i = j
      } else if c.isLetter {
        var j = i
        while j < line.endIndex, line[j].isLetter { j = line.index(after: j) }
        spans.append((line[i..<j], .literal))
        i = j
      } else {
        var j = i
        while j < line.endIndex, !(line[j] == "\"" || line[j] == "-" || line[j].isNumber || line[j].isLetter) {
          j = line.index(after: j)
        }
        spans.append((line[i..<j], .punctuation))
        i = j
      }
    }
    return spans
  }
}
