/// Writes `JSONValue`s: compact for request bodies and `--json` lines, pretty (2-space indent,
/// keys in their order) for workspace files. One writer, on UTF-8 bytes: the `String` forms
/// decode what it wrote, `compact(_:into:)` appends to a caller's buffer (a stream of `--json`
/// lines without a `String` per line).
public enum JSONSerializer {
  public static func compact(_ value: JSONValue) -> String {
    var out: [UInt8] = []
    write(value, into: &out, indent: nil, level: 0)
    return String(decoding: out, as: UTF8.self)
  }

  /// Appends the compact text of `value` to `out`, as UTF-8.
  public static func compact(_ value: JSONValue, into out: inout [UInt8]) {
    write(value, into: &out, indent: nil, level: 0)
  }

  public static func pretty(_ value: JSONValue) -> String {
    var out: [UInt8] = []
    write(value, into: &out, indent: "  ", level: 0)
    return String(decoding: out, as: UTF8.self)
  }

  /// A JSON string literal for `text`, escaping quotes, backslashes and control characters.
  public static func quote(_ text: String) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count + 2)
    quote(text, into: &out)
    return String(decoding: out, as: UTF8.self)
  }

  /// Appends the JSON string literal for `text` to `out`: `"` and `\` escaped, `\n`, `\r`,
  /// `\t`, `\b`, `\f`, the other C0 controls, DEL, U+2028 and U+2029 as `\uHHHH`. Runs of
  /// bytes that need nothing are copied at once.
  public static func quote(_ text: String, into out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    if text.utf8.withContiguousStorageIfAvailable({ quote(bytes: $0, into: &out) }) == nil {
      var text = text  // not stored as UTF-8 (a bridged string): made so
      text.withUTF8 { quote(bytes: $0, into: &out) }
    }
    out.append(UInt8(ascii: "\""))
  }

  /// The bytes that may start something to escape, `1` at their place: C0, `"`, `\`, DEL,
  /// and 0xE2 (the lead byte of U+2028 and U+2029); `2` at the other bytes of non-ASCII text,
  /// which are kept but noted (a caller escaping what JSON leaves raw in non-ASCII text, C1 and
  /// bidirectional controls, skips ASCII text). A table in the binary's constant data, read once
  /// per byte instead of five comparisons.
  private static var escapeTable: StaticString {
    """
    1111111111111111111111111111111100100000000000000000000000000000\
    0000000000000000000000000000100000000000000000000000000000000001\
    2222222222222222222222222222222222222222222222222222222222222222\
    2222222222222222222222222222222222122222222222222222222222222222
    """
  }

  /// Whether the byte may start something to escape.
  @inline(__always)
  private static func mayEscape(_ byte: UInt8, in table: UnsafeBufferPointer<UInt8>) -> Bool {
    table[Int(byte)] == UInt8(ascii: "1")
  }

  /// Whether the byte may start something to escape, or is non-ASCII.
  @inline(__always)
  private static func mayEscapeOrIsNonASCII(_ byte: UInt8, in table: UnsafeBufferPointer<UInt8>) -> Bool {
    table[Int(byte)] != UInt8(ascii: "0")
  }

  private static func quote(bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
    // Most text needs nothing escaped: copied at once. Otherwise the one escaping routine
    // writes it into a `ByteWriter`, which is then copied.
    let clean = escapeTable.withUTF8Buffer { table in !bytes.contains { mayEscape($0, in: table) } }
    if clean {
      out.append(contentsOf: bytes)
      return
    }
    var writer = ByteWriter(capacity: bytes.count + 16)
    quote(bytes: bytes, into: &writer)
    writer.withBytes { out.append(contentsOf: $0) }
  }

  /// The text of a string literal (without its quotes) for `bytes`: runs that need nothing
  /// copied at once, the rest escaped. Returns whether `bytes` held non-ASCII text.
  @discardableResult
  static func quote(bytes: UnsafeBufferPointer<UInt8>, into out: inout ByteWriter) -> Bool {
    escapeTable.withUTF8Buffer { table in quote(bytes: bytes, into: &out, table: table) }
  }

  private static func quote(
    bytes: UnsafeBufferPointer<UInt8>, into out: inout ByteWriter, table: UnsafeBufferPointer<UInt8>
  ) -> Bool {
    out.reserve(bytes.count)
    var runStart = 0
    var index = 0
    var nonASCII = false
    let count = bytes.count
    while index < count {
      let byte = bytes[index]
      guard mayEscapeOrIsNonASCII(byte, in: table) else {
        index += 1
        continue
      }
      if byte >= 0x80 {
        nonASCII = true
        if byte != 0xE2 {
          index += 1
          continue
        }
      }
      let escape: UInt8?  // the letter after the backslash; nil for a \u escape
      var width = 1
      switch byte {
      case UInt8(ascii: "\""): escape = UInt8(ascii: "\"")
      case UInt8(ascii: "\\"): escape = UInt8(ascii: "\\")
      case 0x0A: escape = UInt8(ascii: "n")
      case 0x0D: escape = UInt8(ascii: "r")
      case 0x09: escape = UInt8(ascii: "t")
      case 0x08: escape = UInt8(ascii: "b")
      case 0x0C: escape = UInt8(ascii: "f")
      case 0xE2:
        guard index + 2 < count, bytes[index + 1] == 0x80, bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 else {
          index += 1  // another character: kept
          continue
        }
        escape = nil  // U+2028, U+2029
        width = 3
      default: escape = nil  // the other C0 controls, DEL
      }
      out.put(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
      // An escape is at most 6 bytes for at least 1 of the input, whose room is reserved.
      out.reserve(6)
      out.put(UInt8(ascii: "\\"))
      if let escape {
        out.put(escape)
      } else {
        let value: UInt32 = width == 1 ? UInt32(byte) : (bytes[index + 2] == 0xA8 ? 0x2028 : 0x2029)
        let hex: StaticString = "0123456789abcdef"
        out.put(UInt8(ascii: "u"))
        hex.withUTF8Buffer { hex in
          for shift in stride(from: 12, through: 0, by: -4) { out.put(hex[Int((value >> UInt32(shift)) & 0xF)]) }
        }
      }
      index += width
      runStart = index
      out.reserve(count - index)
    }
    out.put(UnsafeBufferPointer(rebasing: bytes[runStart..<count]))
    return nonASCII
  }

  private static func write(_ value: JSONValue, into out: inout [UInt8], indent: String?, level: Int) {
    switch value {
    case .null: append("null", to: &out)
    case .bool(let b): append(b ? "true" : "false", to: &out)
    case .number(let n): out.append(contentsOf: n.utf8)
    case .string(let s): quote(s, into: &out)
    case .array(let items):
      if items.isEmpty { append("[]", to: &out); return }
      // Short arrays of scalars stay on one line in pretty output: `"status": [200, 299]`.
      if indent != nil, items.count <= 8, items.allSatisfy(\.isScalar) {
        out.append(UInt8(ascii: "["))
        for (i, item) in items.enumerated() {
          if i > 0 { append(", ", to: &out) }
          write(item, into: &out, indent: nil, level: 0)
        }
        out.append(UInt8(ascii: "]"))
        return
      }
      out.append(UInt8(ascii: "["))
      for (i, item) in items.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        newline(&out, indent, level + 1)
        write(item, into: &out, indent: indent, level: level + 1)
      }
      newline(&out, indent, level)
      out.append(UInt8(ascii: "]"))
    case .object(let object):
      if object.isEmpty { append("{}", to: &out); return }
      out.append(UInt8(ascii: "{"))
      for (i, member) in object.members.enumerated() {
        if i > 0 { out.append(UInt8(ascii: ",")) }
        newline(&out, indent, level + 1)
        quote(member.key, into: &out)
        out.append(UInt8(ascii: ":"))
        if indent != nil { out.append(UInt8(ascii: " ")) }
        write(member.value, into: &out, indent: indent, level: level + 1)
      }
      newline(&out, indent, level)
      out.append(UInt8(ascii: "}"))
    }
  }

  @inline(__always)
  private static func append(_ text: StaticString, to out: inout [UInt8]) {
    text.withUTF8Buffer { out.append(contentsOf: $0) }
  }

  private static func newline(_ out: inout [UInt8], _ indent: String?, _ level: Int) {
    guard let indent else { return }
    out.append(0x0A)
    for _ in 0..<level { out.append(contentsOf: indent.utf8) }
  }
}

extension JSONValue {
  var isScalar: Bool {
    switch self {
    case .array, .object: false
    default: true
    }
  }
}
