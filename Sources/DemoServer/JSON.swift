/// A small JSON value with ordered objects: the server's responses keep their field order, and
/// request bodies (users, login) are parsed without Foundation's JSONSerialization.
enum JSON: Sendable, Equatable {
  case null
  case bool(Bool)
  case int(Int)
  case double(Double)
  case string(String)
  case array([JSON])
  case object([Field])

  struct Field: Sendable, Equatable {
    var name: String
    var value: JSON
  }

  static func obj(_ fields: KeyValuePairs<String, JSON>) -> JSON {
    .object(fields.map { Field(name: $0.key, value: $0.value) })
  }

  static func obj(_ fields: [(String, JSON)]) -> JSON {
    .object(fields.map { Field(name: $0.0, value: $0.1) })
  }

  /// The last member with that name (objects only).
  subscript(name: String) -> JSON? {
    guard case .object(let fields) = self else { return nil }
    return fields.last(where: { $0.name == name })?.value
  }

  var stringValue: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  var isObject: Bool {
    if case .object = self { return true }
    return false
  }

  // MARK: Serializing

  /// Pretty-printed with two-space indentation and a trailing newline.
  func serialized() -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(256)
    write(into: &out, indent: 0)
    out.append(0x0a)
    return out
  }

  /// On one line, no spaces, no trailing newline: a line of NDJSON, an SSE `data` field.
  func compact() -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(128)
    write(into: &out, indent: nil)
    return out
  }

  /// `indent` nil writes the compact form.
  private func write(into out: inout [UInt8], indent: Int?) {
    switch self {
    case .null: out.append(contentsOf: "null".utf8)
    case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
    case .int(let i): out.append(contentsOf: String(i).utf8)
    case .double(let d):
      if !d.isFinite {
        out.append(contentsOf: "null".utf8)
      } else if d == d.rounded(), abs(d) < 1e15 {
        out.append(contentsOf: String(Int(d)).utf8)
      } else {
        out.append(contentsOf: String(d).utf8)
      }
    case .string(let s): JSON.writeString(s, into: &out)
    case .array(let items):
      if items.isEmpty {
        out.append(contentsOf: "[]".utf8)
        return
      }
      out.append(UInt8(ascii: "["))
      for (i, item) in items.enumerated() {
        guard let indent else {
          if i > 0 { out.append(UInt8(ascii: ",")) }
          item.write(into: &out, indent: nil)
          continue
        }
        out.append(contentsOf: i == 0 ? "\n".utf8 : ",\n".utf8)
        JSON.pad(&out, indent + 2)
        item.write(into: &out, indent: indent + 2)
      }
      if let indent {
        out.append(0x0a)
        JSON.pad(&out, indent)
      }
      out.append(UInt8(ascii: "]"))
    case .object(let fields):
      if fields.isEmpty {
        out.append(contentsOf: "{}".utf8)
        return
      }
      out.append(UInt8(ascii: "{"))
      for (i, field) in fields.enumerated() {
        guard let indent else {
          if i > 0 { out.append(UInt8(ascii: ",")) }
          JSON.writeString(field.name, into: &out)
          out.append(UInt8(ascii: ":"))
          field.value.write(into: &out, indent: nil)
          continue
        }
        out.append(contentsOf: i == 0 ? "\n".utf8 : ",\n".utf8)
        JSON.pad(&out, indent + 2)
        JSON.writeString(field.name, into: &out)
        out.append(contentsOf: ": ".utf8)
        field.value.write(into: &out, indent: indent + 2)
      }
      if let indent {
        out.append(0x0a)
        JSON.pad(&out, indent)
      }
      out.append(UInt8(ascii: "}"))
    }
  }

  private static func pad(_ out: inout [UInt8], _ n: Int) {
    out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: n))
  }

  private static func writeString(_ s: String, into out: inout [UInt8]) {
    let hex = Array("0123456789abcdef".utf8)
    out.append(UInt8(ascii: "\""))
    for byte in s.utf8 {
      switch byte {
      case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
      case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
      case 0x0a: out.append(contentsOf: "\\n".utf8)
      case 0x0d: out.append(contentsOf: "\\r".utf8)
      case 0x09: out.append(contentsOf: "\\t".utf8)
      case 0x08: out.append(contentsOf: "\\b".utf8)
      case 0x0c: out.append(contentsOf: "\\f".utf8)
      case 0..<0x20, 0x7f:
        out.append(contentsOf: "\\u00".utf8)
        out.append(hex[Int(byte >> 4)])
        out.append(hex[Int(byte & 0x0f)])
      default: out.append(byte)
      }
    }
    out.append(UInt8(ascii: "\""))
  }

  // MARK: Parsing

  struct ParseError: Error, CustomStringConvertible {
    var message: String
    var offset: Int
    var description: String { "invalid JSON at byte \(offset): \(message)" }
  }

  /// Parses one JSON document (surrounding whitespace allowed). Nesting is limited to 64 levels.
  static func parse(_ bytes: [UInt8]) throws(ParseError) -> JSON {
    var parser = Parser(bytes: bytes)
    parser.skipWhitespace()
    let value = try parser.parseValue(depth: 0)
    parser.skipWhitespace()
    guard parser.index == bytes.count else { throw parser.error("unexpected data after the value") }
    return value
  }

  private struct Parser {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    func error(_ message: String) -> ParseError { ParseError(message: message, offset: index) }

    mutating func skipWhitespace() {
      while index < bytes.count, [0x20, 0x09, 0x0a, 0x0d].contains(bytes[index]) { index += 1 }
    }

    mutating func expect(_ literal: String, _ value: JSON) throws(ParseError) -> JSON {
      let lit = Array(literal.utf8)
      guard index + lit.count <= bytes.count, Array(bytes[index..<(index + lit.count)]) == lit else {
        throw error("unexpected token")
      }
      index += lit.count
      return value
    }

    mutating func parseValue(depth: Int) throws(ParseError) -> JSON {
      guard depth < 64 else { throw error("nested too deeply") }
      guard index < bytes.count else { throw error("unexpected end of input") }
      switch bytes[index] {
      case UInt8(ascii: "{"):
        index += 1
        var fields: [Field] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
          index += 1
          return .object(fields)
        }
        while true {
          skipWhitespace()
          guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a member name") }
          let name = try parseString()
          skipWhitespace()
          guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
          index += 1
          skipWhitespace()
          let value = try parseValue(depth: depth + 1)
          fields.append(Field(name: name, value: value))
          skipWhitespace()
          guard index < bytes.count else { throw error("unexpected end of input") }
          if bytes[index] == UInt8(ascii: ",") {
            index += 1
            continue
          }
          guard bytes[index] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
          index += 1
          return .object(fields)
        }
      case UInt8(ascii: "["):
        index += 1
        var items: [JSON] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
          index += 1
          return .array(items)
        }
        while true {
          skipWhitespace()
          items.append(try parseValue(depth: depth + 1))
          skipWhitespace()
          guard index < bytes.count else { throw error("unexpected end of input") }
          if bytes[index] == UInt8(ascii: ",") {
            index += 1
            continue
          }
          guard bytes[index] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
          index += 1
          return .array(items)
        }
      case UInt8(ascii: "\""):
        return .string(try parseString())
      case UInt8(ascii: "t"): return try expect("true", .bool(true))
      case UInt8(ascii: "f"): return try expect("false", .bool(false))
      case UInt8(ascii: "n"): return try expect("null", .null)
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        return try parseNumber()
      default:
        throw error("unexpected character")
      }
    }

    mutating func parseNumber() throws(ParseError) -> JSON {
      let start = index
      var isInteger = true
      if bytes[index] == UInt8(ascii: "-") { index += 1 }
      let digitsStart = index
      while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
      guard index > digitsStart else { throw error("expected digits") }
      if index - digitsStart > 1, bytes[digitsStart] == UInt8(ascii: "0") { throw error("leading zero") }
      if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
        isInteger = false
        index += 1
        let fracStart = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        guard index > fracStart else { throw error("expected digits after '.'") }
      }
      if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
        isInteger = false
        index += 1
        if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
        let expStart = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        guard index > expStart else { throw error("expected exponent digits") }
      }
      let text = String(decoding: bytes[start..<index], as: UTF8.self)
      if isInteger, let i = Int(text) { return .int(i) }
      guard let d = Double(text) else { throw error("bad number") }
      return .double(d)
    }

    mutating func parseHex4() throws(ParseError) -> UInt32 {
      guard index + 4 <= bytes.count else { throw error("short \\u escape") }
      var value: UInt32 = 0
      for _ in 0..<4 {
        guard let digit = hexDigitValue(bytes[index]) else { throw error("bad \\u escape") }
        value = value << 4 | UInt32(digit)
        index += 1
      }
      return value
    }

    mutating func parseString() throws(ParseError) -> String {
      index += 1  // opening quote
      var out: [UInt8] = []
      while true {
        guard index < bytes.count else { throw error("unterminated string") }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""):
          return String(decoding: out, as: UTF8.self)
        case UInt8(ascii: "\\"):
          guard index < bytes.count else { throw error("unterminated escape") }
          let escape = bytes[index]
          index += 1
          switch escape {
          case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
          case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
          case UInt8(ascii: "/"): out.append(UInt8(ascii: "/"))
          case UInt8(ascii: "b"): out.append(0x08)
          case UInt8(ascii: "f"): out.append(0x0c)
          case UInt8(ascii: "n"): out.append(0x0a)
          case UInt8(ascii: "r"): out.append(0x0d)
          case UInt8(ascii: "t"): out.append(0x09)
          case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800..<0xDC00).contains(scalar) {
              // A high surrogate must be followed by a low one; otherwise it becomes U+FFFD.
              if index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") {
                let save = index
                index += 2
                let low = try parseHex4()
                if (0xDC00..<0xE000).contains(low) {
                  scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else {
                  index = save
                  scalar = 0xFFFD
                }
              } else {
                scalar = 0xFFFD
              }
            } else if (0xDC00..<0xE000).contains(scalar) {
              scalar = 0xFFFD
            }
            let character = Unicode.Scalar(scalar) ?? "\u{FFFD}"
            out.append(contentsOf: String(character).utf8)
          default:
            throw error("bad escape")
          }
        case 0..<0x20:
          throw error("control character in string")
        default:
          out.append(byte)
        }
      }
    }
  }
}

func hexDigitValue(_ byte: UInt8) -> UInt8? {
  switch byte {
  case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
  case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
  case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
  default: nil
  }
}
