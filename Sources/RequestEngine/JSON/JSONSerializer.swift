/// Writes `JSONValue`s: compact for request bodies, pretty (2-space indent, keys in their order)
/// for workspace files.
public enum JSONSerializer {
  public static func compact(_ value: JSONValue) -> String {
    var out = ""
    write(value, into: &out, indent: nil, level: 0)
    return out
  }

  public static func pretty(_ value: JSONValue) -> String {
    var out = ""
    write(value, into: &out, indent: "  ", level: 0)
    return out
  }

  /// A JSON string literal for `text`, escaping quotes, backslashes and control characters.
  public static func quote(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case "\u{08}": out += "\\b"
      case "\u{0C}": out += "\\f"
      case "\u{00}"..."\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}":
        out += "\\u" + String(scalar.value, radix: 16).leftPadded(to: 4)
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }

  private static func write(_ value: JSONValue, into out: inout String, indent: String?, level: Int) {
    switch value {
    case .null: out += "null"
    case .bool(let b): out += b ? "true" : "false"
    case .number(let n): out += n
    case .string(let s): out += quote(s)
    case .array(let items):
      if items.isEmpty { out += "[]"; return }
      // Short arrays of scalars stay on one line in pretty output: `"status": [200, 299]`.
      if indent != nil, items.count <= 8, items.allSatisfy(\.isScalar) {
        out += "[" + items.map { compact($0) }.joined(separator: ", ") + "]"
        return
      }
      out += "["
      for (i, item) in items.enumerated() {
        if i > 0 { out += "," }
        newline(&out, indent, level + 1)
        write(item, into: &out, indent: indent, level: level + 1)
      }
      newline(&out, indent, level)
      out += "]"
    case .object(let object):
      if object.isEmpty { out += "{}"; return }
      out += "{"
      for (i, member) in object.members.enumerated() {
        if i > 0 { out += "," }
        newline(&out, indent, level + 1)
        out += quote(member.key)
        out += indent == nil ? ":" : ": "
        write(member.value, into: &out, indent: indent, level: level + 1)
      }
      newline(&out, indent, level)
      out += "}"
    }
  }

  private static func newline(_ out: inout String, _ indent: String?, _ level: Int) {
    guard let indent else { return }
    out += "\n" + String(repeating: indent, count: level)
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
