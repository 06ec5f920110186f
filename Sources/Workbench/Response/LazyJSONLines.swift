import RequestEngine

/// The lines of `JSONSerializer.pretty`'s layout for a JSON body too big to parse at once, made
/// on demand: a scanner walks the bytes from a checkpoint (a byte offset and a depth at the start
/// of every `blockSize`-th line) and lays out one block of lines at a time. Opening a 50 MB body
/// costs nothing; drawing a screen costs a block or two; `G` and search scan the body once.
///
/// It never builds a tree and never fails: malformed input is laid out as far as it goes (a
/// stray character is a token of its own). The layout matches the small bodies': two spaces per
/// level, `"key": value`, empty containers as `{}`/`[]`, short arrays of up to 8 scalars on one
/// line.
final class LazyJSONLines {
  static let blockSize = 64
  private let bytes: BodyBytes
  /// `(offset, depth)` at the start of lines 0, blockSize, 2 × blockSize, …
  private var checkpoints: [(offset: Int, depth: Int)] = [(0, 0)]
  /// Lines counted so far, and whether that is all of them.
  private(set) var countedLines = 0
  private(set) var complete = false
  /// The most recently laid out blocks, by block number.
  private var cache: [(block: Int, lines: [String])] = []
  private let maxLineBytes: Int

  init(bytes: BodyBytes, maxLineBytes: Int) {
    self.bytes = bytes
    self.maxLineBytes = maxLineBytes
  }

  /// Scans until at least `needed` lines are known (or the end).
  func count(upTo needed: Int) {
    guard !complete, countedLines < needed else { return }
    bytes.withUnsafeBufferPointer { buffer in
      while !complete, countedLines < needed {
        let last = checkpoints.count - 1
        var scanner = Scanner(bytes: buffer, offset: checkpoints[last].offset, depth: checkpoints[last].depth)
        var made = 0
        while made < LazyJSONLines.blockSize, scanner.skipLine() { made += 1 }
        countedLines = last * LazyJSONLines.blockSize + made
        if made < LazyJSONLines.blockSize || scanner.atEnd {
          complete = true
        } else {
          checkpoints.append((scanner.offset, scanner.depth))
        }
      }
    }
  }

  func line(_ i: Int) -> String {
    count(upTo: i + 1)
    guard i < countedLines else { return "" }
    let block = i / LazyJSONLines.blockSize
    let lines: [String]
    if let cached = cache.first(where: { $0.block == block }) {
      lines = cached.lines
    } else {
      let start = checkpoints[block]
      lines = bytes.withUnsafeBufferPointer { buffer in
        var scanner = Scanner(bytes: buffer, offset: start.offset, depth: start.depth)
        var made: [String] = []
        while made.count < LazyJSONLines.blockSize, let line = scanner.nextLine(maxBytes: maxLineBytes) { made.append(line) }
        return made
      }
      cache.append((block, lines))
      if cache.count > 8 { cache.removeFirst() }
    }
    let index = i % LazyJSONLines.blockSize
    return index < lines.count ? lines[index] : ""
  }

  /// Lays out lines from a position, over bytes valid while it is used.
  struct Scanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var offset: Int
    var depth: Int

    var atEnd: Bool {
      var probe = self
      probe.skipWhitespace()
      return probe.offset >= bytes.count
    }

    /// The next line, or nil at the end.
    mutating func nextLine(maxBytes: Int) -> String? {
      var out: [UInt8] = []
      guard layOutLine(into: &out) else { return nil }
      if out.count > maxBytes {
        var cut = maxBytes
        while cut > 0, out[cut] & 0xC0 == 0x80 { cut -= 1 }
        return String(decoding: out[..<cut], as: UTF8.self) + " … (\(out.count - cut) more bytes on this line)"
      }
      return String(decoding: out, as: UTF8.self)
    }

    /// Moves past the next line without keeping it; false at the end.
    mutating func skipLine() -> Bool {
      var sink: [UInt8]? = nil
      return layOutLine(into: &sink)
    }

    private mutating func layOutLine(into out: inout [UInt8]) -> Bool {
      var sink: [UInt8]? = out
      defer { out = sink ?? [] }
      return layOutLine(into: &sink)
    }

    /// One line into `out` (nil: only scan). Returns false when nothing is left.
    private mutating func layOutLine(into out: inout [UInt8]?) -> Bool {
      skipWhitespace()
      guard offset < bytes.count else { return false }
      out?.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * max(0, depth)))
      var content = false
      while true {
        skipWhitespace()
        guard offset < bytes.count else { return true }
        let c = bytes[offset]
        switch c {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
          let close = c == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
          var probe = self
          probe.offset += 1
          probe.skipWhitespace()
          if probe.offset < bytes.count, bytes[probe.offset] == close {
            out?.append(contentsOf: [c, close])
            offset = probe.offset + 1
            content = true
            continue
          }
          if c == UInt8(ascii: "["), let short = shortArray() {
            out?.append(contentsOf: short.text)
            offset = short.end
            content = true
            continue
          }
          out?.append(c)
          offset += 1
          depth += 1
          return true
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
          if content {
            // The closing bracket goes on a line of its own, one level up.
            depth = max(0, depth - 1)
            return true
          }
          out?.append(c)
          offset += 1
          content = true
        case UInt8(ascii: ","):
          out?.append(c)
          offset += 1
          return true
        case UInt8(ascii: ":"):
          out?.append(contentsOf: [c, UInt8(ascii: " ")])
          offset += 1
        case UInt8(ascii: "\""):
          let end = stringEnd(from: offset)
          if out != nil { appendString(offset..<end, to: &out!) }
          offset = end
          content = true
        default:
          let end = scalarEnd(from: offset)
          out?.append(contentsOf: bytes[offset..<end])
          offset = end
          content = true
        }
      }
    }

    /// `[1, 2, "x"]` when the array at `offset` holds up to 8 scalars and nothing else.
    private func shortArray() -> (text: [UInt8], end: Int)? {
      var text: [UInt8] = [UInt8(ascii: "[")]
      var probe = self
      probe.offset += 1
      var items = 0
      while items <= 8 {
        probe.skipWhitespace()
        guard probe.offset < bytes.count else { return nil }
        let c = bytes[probe.offset]
        if c == UInt8(ascii: "]") {
          text.append(c)
          return (text, probe.offset + 1)
        }
        if c == UInt8(ascii: ",") {
          text.append(contentsOf: [c, UInt8(ascii: " ")])
          probe.offset += 1
          continue
        }
        if c == UInt8(ascii: "[") || c == UInt8(ascii: "{") || c == UInt8(ascii: "}") || c == UInt8(ascii: ":") { return nil }
        let end = c == UInt8(ascii: "\"") ? stringEnd(from: probe.offset) : scalarEnd(from: probe.offset)
        if end - probe.offset > 64 { return nil }
        if c == UInt8(ascii: "\"") {
          appendString(probe.offset..<end, to: &text)
        } else {
          text.append(contentsOf: bytes[probe.offset..<end])
        }
        probe.offset = end
        items += 1
      }
      return nil
    }

    /// The string token in `range` as `JSONSerializer.pretty` writes it: escapes decoded and the
    /// text quoted again by `JSONSerializer.quote` (`"\u65e5"` → `"日"`, `"\/"` → `"/"`). A token
    /// with nothing to decode or re-escape is copied as it is; one that does not parse (a
    /// malformed body) too.
    private func appendString(_ range: Range<Int>, to out: inout [UInt8]) {
      let token = UnsafeBufferPointer(rebasing: bytes[range])
      var plain = true
      var i = 0
      while i < token.count {
        let b = token[i]
        // A backslash, a raw control character or DEL, or U+2028/U+2029 (E2 80 A8/A9): quote()
        // would write these differently.
        if b == UInt8(ascii: "\\") || b < 0x20 || b == 0x7F
          || (b == 0xE2 && i + 2 < token.count && token[i + 1] == 0x80 && (token[i + 2] == 0xA8 || token[i + 2] == 0xA9))
        {
          plain = false
          break
        }
        i += 1
      }
      guard !plain, let value = try? JSONParser.parse(token), case .string(let text) = value else {
        out.append(contentsOf: token)
        return
      }
      out.append(contentsOf: JSONSerializer.quote(text).utf8)
    }

    mutating func skipWhitespace() {
      while offset < bytes.count, bytes[offset] == 0x20 || bytes[offset] == 0x0A || bytes[offset] == 0x0D || bytes[offset] == 0x09 {
        offset += 1
      }
    }

    /// Just past the string starting at `start` (at its opening quote).
    private func stringEnd(from start: Int) -> Int {
      var i = start + 1
      while i < bytes.count {
        switch bytes[i] {
        case UInt8(ascii: "\\"): i += 2
        case UInt8(ascii: "\""): return i + 1
        default: i += 1
        }
      }
      return bytes.count
    }

    /// Just past a number, literal or stray character.
    private func scalarEnd(from start: Int) -> Int {
      var i = start
      while i < bytes.count {
        switch bytes[i] {
        case 0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "]"), UInt8(ascii: "}"),
          UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "\""):
          return max(i, start + 1)
        default: i += 1
        }
      }
      return bytes.count
    }
  }
}
