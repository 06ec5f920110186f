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

  /// The bytes that may start something to escape: C0, `"`, `\`, DEL, and 0xE2 (the lead byte
  /// of U+2028 and U+2029).
  @inline(__always)
  private static func mayEscape(_ byte: UInt8) -> Bool {
    byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == 0x7F || byte == 0xE2
  }

  private static func quote(bytes: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
    var runStart = 0
    var index = 0
    let count = bytes.count
    while index < count {
      let byte = bytes[index]
      guard mayEscape(byte) else {
        index += 1
        continue
      }
      let escape: StaticString?
      var width = 1
      switch byte {
      case UInt8(ascii: "\""): escape = "\\\""
      case UInt8(ascii: "\\"): escape = "\\\\"
      case 0x0A: escape = "\\n"
      case 0x0D: escape = "\\r"
      case 0x09: escape = "\\t"
      case 0x08: escape = "\\b"
      case 0x0C: escape = "\\f"
      case 0xE2:
        guard index + 2 < count, bytes[index + 1] == 0x80, bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9 else {
          index += 1  // another character: kept
          continue
        }
        escape = nil  // U+2028, U+2029
        width = 3
      default: escape = nil  // the other C0 controls, DEL
      }
      if runStart < index { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index])) }
      if let escape {
        escape.withUTF8Buffer { out.append(contentsOf: $0) }
      } else {
        let value: UInt32 = width == 1 ? UInt32(byte) : (bytes[index + 2] == 0xA8 ? 0x2028 : 0x2029)
        appendUnicodeEscape(value, into: &out)
      }
      index += width
      runStart = index
    }
    if runStart < count { out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count])) }
  }

  /// `\u` and four lowercase hex digits.
  private static func appendUnicodeEscape(_ value: UInt32, into out: inout [UInt8]) {
    let digits: StaticString = "0123456789abcdef"
    out.append(UInt8(ascii: "\\"))
    out.append(UInt8(ascii: "u"))
    digits.withUTF8Buffer { hex in
      for shift in stride(from: 12, through: 0, by: -4) { out.append(hex[Int((value >> UInt32(shift)) & 0xF)]) }
    }
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
