/// A line and column in a text, both counted from 1; columns count characters, not bytes.
public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
  public var line: Int
  public var column: Int
  public init(line: Int, column: Int) {
    self.line = line
    self.column = column
  }
  public var description: String { "\(line):\(column)" }
  /// Line 1, column 1: where an error about the whole text (nothing usable in it) points.
  public static let start = SourceLocation(line: 1, column: 1)
}

/// A JSON text that is not valid JSON: what is wrong and where.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String
  public var location: SourceLocation
  /// Byte offset into the UTF-8 text.
  public var offset: Int
  public var description: String { "\(location): \(message)" }
  /// Not an error in the text: a value `parse(_:deferring:)` leaves as text went past its size,
  /// and is skipped instead (never thrown out of the parser).
  var isOverBudget = false
}

/// A parsed document plus where each value started, for errors that point into the file.
public struct JSONDocument: Sendable {
  public var root: JSONValue
  public var locations: [JSONPath: SourceLocation]

  public init(root: JSONValue, locations: [JSONPath: SourceLocation]) {
    self.root = root
    self.locations = locations
  }

  public func location(of path: JSONPath) -> SourceLocation? {
    var path = path
    while true {
      if let found = locations[path] { return found }
      if path.components.isEmpty { return nil }
      path.components.removeLast()
    }
  }
}

/// A strict RFC 8259 parser over UTF-8 bytes that keeps key order, number literals and, on request,
/// the line and column where every value starts (`parseDocument`) or the text's layout: where
/// every value, key and the whitespace around them are (`parseLayout`, for `JSONTextEditor`).
public struct JSONParser {
  let bytes: [UInt8]
  var index = 0
  var line = 1
  var lineStart = 0
  private var columnLineStart = -1
  private var columnIndex = 0
  private var column = 1
  private let recordLocations: Bool
  private var locations: [JSONPath: SourceLocation] = [:]
  /// Whether to keep where every value, member and the whitespace between them are
  /// (`JSONTextEditor`'s layout); `lastNode` is the value just parsed.
  private let recordLayout: Bool
  /// What an object's repeated key is: an error, or kept (see `DuplicateKeys`).
  let duplicateKeys: DuplicateKeys
  private var lastNode = JSONLayoutNode(start: 0, end: 0)
  let maxDepth = 512
  /// Where values are left as text (`parse(_:deferring:)`): the path's steps (none for every
  /// other parse) and the size from which they are.
  var deferralPath: [JSONDeferral.Step] = []
  var deferralMinimum = Int.max
  /// The array indices on the way to the value being parsed where `deferralPath` has any index.
  var deferralIndices: [Int] = []
  /// The values left as text, in the document's order.
  var deferred: [JSONDeferral.Value] = []
  /// While a value where `deferralPath` points is parsed: past this offset it is left as text.
  var budgetEnd = Int.max
  /// The keys of the objects being skipped (`skipValue`), each object's after its parent's.
  var skippedKeys: [String] = []

  /// An object's key written twice (`{"a": 1, "a": 2}`): RFC 8259 allows it and leaves its
  /// meaning to the reader.
  public enum DuplicateKeys: Sendable {
    /// Both members are kept, in order, as written (so the text is written back as it came);
    /// a lookup finds the last, as JavaScript's `JSON.parse` and Foundation's parser do. What
    /// other programs wrote (responses, imported files) is read this way.
    case kept
    /// An error at the second key: for the files reqbench owns (the workspace, the secrets),
    /// where a member silently hidden by another would be a member lost.
    case refused
  }

  init(bytes: [UInt8], recordLocations: Bool, recordLayout: Bool = false, duplicateKeys: DuplicateKeys = .kept) {
    self.bytes = bytes
    self.recordLocations = recordLocations
    self.recordLayout = recordLayout
    self.duplicateKeys = duplicateKeys
  }

  public static func parse(_ text: String, duplicateKeys: DuplicateKeys = .kept) throws(JSONSyntaxError) -> JSONValue {
    try parse(Array(text.utf8), duplicateKeys: duplicateKeys)
  }

  public static func parse(_ bytes: some Collection<UInt8>, duplicateKeys: DuplicateKeys = .kept)
    throws(JSONSyntaxError) -> JSONValue
  {
    var parser = JSONParser(bytes: Array(bytes), recordLocations: false, duplicateKeys: duplicateKeys)
    return try parser.parseDocument()
  }

  public static func parseDocument(_ bytes: some Collection<UInt8>, duplicateKeys: DuplicateKeys = .kept)
    throws(JSONSyntaxError) -> JSONDocument
  {
    var parser = JSONParser(bytes: Array(bytes), recordLocations: true, duplicateKeys: duplicateKeys)
    let root = try parser.parseDocument()
    return JSONDocument(root: root, locations: parser.locations)
  }

  /// The value and its layout in the text (for `JSONTextEditor`, which writes over it).
  static func parseLayout(_ bytes: [UInt8]) throws(JSONSyntaxError) -> (value: JSONValue, layout: JSONLayoutNode) {
    var parser = JSONParser(bytes: bytes, recordLocations: false, recordLayout: true, duplicateKeys: .refused)
    let root = try parser.parseDocument()
    return (root, parser.lastNode)
  }

  // MARK: - Grammar

  mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3; lineStart = 3 }
    skipWhitespace()
    if index >= bytes.count { throw error("the document is empty; expected a JSON value") }
    let value = try parseValue(path: .root, depth: 0, rule: deferralPath.isEmpty ? -1 : 0)
    skipWhitespace()
    if index < bytes.count {
      throw error("unexpected \(describeCurrent()) after the end of the JSON value")
    }
    return value
  }

  /// `rule`: how many steps of `deferralPath` lead here (-1: none, or no deferral).
  mutating func parseValue(path: JSONPath, depth: Int, rule: Int = -1) throws(JSONSyntaxError) -> JSONValue
  {
    if depth > maxDepth { throw error("nesting deeper than \(maxDepth) levels") }
    if recordLocations { locations[path] = currentLocation }
    guard index < bytes.count else { throw error("unexpected end of input; expected a value") }
    if rule >= 0, rule == deferralPath.count,
      bytes[index] == UInt8(ascii: "{") || bytes[index] == UInt8(ascii: "[")
    {
      return try parseOrDefer(depth: depth)
    }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try parseObject(path: path, depth: depth, rule: rule)
    case UInt8(ascii: "["): return try parseArray(path: path, depth: depth, rule: rule)
    default:
      let start = index
      let value = try parseScalar()
      if recordLayout { lastNode = JSONLayoutNode(start: start, end: index) }
      return value
    }
  }

  /// A string, number, `true`, `false` or `null`.
  mutating func parseScalar() throws(JSONSyntaxError) -> JSONValue {
    switch bytes[index] {
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"): try expectWord("true"); return .bool(true)
    case UInt8(ascii: "f"): try expectWord("false"); return .bool(false)
    case UInt8(ascii: "n"): try expectWord("null"); return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
    default: throw error("unexpected \(describeCurrent()); expected a value")
    }
  }

  private mutating func parseObject(path: JSONPath, depth: Int, rule: Int) throws(JSONSyntaxError) -> JSONValue
  {
    let open = index
    index += 1
    skipWhitespace()
    if peek == UInt8(ascii: "}") {
      if recordLayout { lastNode = JSONLayoutNode(start: open, end: index + 1, inner: open + 1..<index) }
      index += 1
      return .object(JSONObject())
    }
    // The members, made here and handed to the object once; past `JSONObject.indexedCount` of
    // them, their keys in a set for the duplicate check when repeated keys are refused (a large
    // object stays linear).
    var members: [(key: String, value: JSONValue)] = []
    var keys: Set<String>?
    // Room for a small object's members at once, not grown one, two, four.
    members.reserveCapacity(4)
    var items: [JSONLayoutNode.Item] = []
    var leadStart = open + 1
    while true {
      skipWhitespace()
      guard peek == UInt8(ascii: "\"") else {
        if peek == UInt8(ascii: "}") { throw error("trailing comma before '}'") }
        throw error("unexpected \(describeCurrent()); expected a key in double quotes")
      }
      let keyStart = index
      let key = try parseString()
      let keyEnd = index
      let repeated: Bool
      if duplicateKeys == .kept {
        repeated = false
      } else if let keys {
        repeated = keys.contains(key)
      } else {
        repeated = JSONObject.lastIndex(of: key, in: members) != nil
      }
      if repeated {
        // Locations cost a scan of the line, so they are worked out only for an error.
        index = keyStart
        throw error("duplicate key \(JSONSerializer.quote(key))")
      }
      skipWhitespace()
      guard peek == UInt8(ascii: ":") else {
        throw error("unexpected \(describeCurrent()); expected ':' after the key")
      }
      index += 1
      skipWhitespace()
      let valueStart = index
      // Paths are only for the locations: not built (an allocation per value) without them.
      let value = try parseValue(
        path: recordLocations ? path.appending(key) : path, depth: depth + 1,
        rule: rule >= 0 ? deferralStep(after: rule, key: key) : -1)
      if index > budgetEnd { throw overBudget() }
      members.append((key, value))
      if duplicateKeys == .refused {
        if keys != nil {
          keys?.insert(key)
        } else if members.count > JSONObject.indexedCount {
          keys = Set(members.lazy.map(\.key))
        }
      }
      let trailStart = index
      skipWhitespace()
      if recordLayout {
        items.append(
          JSONLayoutNode.Item(
            lead: leadStart..<keyStart, key: keyStart..<keyEnd, separator: keyEnd..<valueStart, value: lastNode,
            trail: trailStart..<index))
      }
      switch peek {
      case UInt8(ascii: ","):
        index += 1
        leadStart = index
      case UInt8(ascii: "}"):
        index += 1
        if recordLayout { lastNode = JSONLayoutNode(start: open, end: index, items: items) }
        return .object(JSONObject(distinctKeys: members))
      case nil: throw error("unexpected end of input; expected ',' or '}'")
      default: throw error("unexpected \(describeCurrent()); expected ',' or '}'")
      }
    }
  }

  private mutating func parseArray(path: JSONPath, depth: Int, rule: Int) throws(JSONSyntaxError) -> JSONValue
  {
    let itemRule = rule >= 0 ? deferralStep(afterIndexAt: rule) : -1
    let open = index
    index += 1
    var items: [JSONValue] = []
    skipWhitespace()
    if peek == UInt8(ascii: "]") {
      if recordLayout { lastNode = JSONLayoutNode(start: open, end: index + 1, inner: open + 1..<index) }
      index += 1
      return .array(items)
    }
    var layout: [JSONLayoutNode.Item] = []
    var leadStart = open + 1
    while true {
      let itemStart = leadStart
      skipWhitespace()
      if peek == UInt8(ascii: "]") { throw error("trailing comma before ']'") }
      let lead = itemStart..<index
      if itemRule >= 0 { deferralIndices.append(items.count) }
      items.append(
        try parseValue(path: recordLocations ? path.appending(items.count) : path, depth: depth + 1, rule: itemRule))
      if itemRule >= 0 { deferralIndices.removeLast() }
      if index > budgetEnd { throw overBudget() }
      let trailStart = index
      skipWhitespace()
      if recordLayout {
        layout.append(JSONLayoutNode.Item(lead: lead, key: nil, separator: nil, value: lastNode, trail: trailStart..<index))
      }
      switch peek {
      case UInt8(ascii: ","):
        index += 1
        leadStart = index
      case UInt8(ascii: "]"):
        index += 1
        if recordLayout { lastNode = JSONLayoutNode(start: open, end: index, items: layout) }
        return .array(items)
      case nil: throw error("unexpected end of input; expected ',' or ']'")
      default: throw error("unexpected \(describeCurrent()); expected ',' or ']'")
      }
    }
  }

  mutating func parseString() throws(JSONSyntaxError) -> String {
    index += 1  // opening quote
    // The usual string has no escapes: decoded straight from the input once its end is found.
    let start = index
    let plain: (text: String, end: Int)? = bytes.withUnsafeBufferPointer { bytes in
      var end = start
      while end < bytes.count {
        let byte = bytes[end]
        if byte == UInt8(ascii: "\"") {
          return (String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self), end)
        }
        if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
        end += 1
      }
      return nil
    }
    if let plain {
      index = plain.end + 1
      return plain.text
    }
    var scalars: [UInt8] = []
    while true {
      guard index < bytes.count else { throw error("unterminated string") }
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "\""):
        index += 1
        return String(decoding: scalars, as: UTF8.self)
      case UInt8(ascii: "\\"):
        index += 1
        guard index < bytes.count else { throw error("unterminated string") }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""): scalars.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): scalars.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): scalars.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): scalars.append(0x08)
        case UInt8(ascii: "f"): scalars.append(0x0C)
        case UInt8(ascii: "n"): scalars.append(0x0A)
        case UInt8(ascii: "r"): scalars.append(0x0D)
        case UInt8(ascii: "t"): scalars.append(0x09)
        case UInt8(ascii: "u"):
          var code = try parseHex4()
          if (0xD800...0xDBFF).contains(code) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
              bytes[index + 1] == UInt8(ascii: "u")
            else { throw error("a high surrogate \\u escape must be followed by a low one") }
            index += 2
            let low = try parseHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid low surrogate") }
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
          } else if (0xDC00...0xDFFF).contains(code) {
            throw error("unpaired low surrogate in \\u escape")
          }
          guard let scalar = Unicode.Scalar(code) else { throw error("invalid \\u escape") }
          scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
        default:
          index -= 1
          throw error("invalid escape '\\\(Character(Unicode.Scalar(escape)))' in string")
        }
      case 0x00..<0x20:
        throw error(
          byte == 0x0A
            ? "unterminated string (a line break inside a string must be written \\n)"
            : "control character \(describeByte(byte)) in string must be escaped")
      default:
        scalars.append(byte)
        index += 1
      }
    }
  }

  private mutating func parseHex4() throws(JSONSyntaxError) -> UInt32 {
    guard index + 4 <= bytes.count else { throw error("incomplete \\u escape") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[index]
      let digit: UInt32
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
      default: throw error("invalid hex digit in \\u escape")
      }
      value = value * 16 + digit
      index += 1
    }
    return value
  }

  private mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
    let start = index
    if peek == UInt8(ascii: "-") { index += 1 }
    guard let first = peek, isDigit(first) else { throw error("invalid number: expected a digit") }
    if first == UInt8(ascii: "0") {
      index += 1
      if let next = peek, isDigit(next) { throw error("invalid number: leading zero") }
    } else {
      while let c = peek, isDigit(c) { index += 1 }
    }
    if peek == UInt8(ascii: ".") {
      index += 1
      guard let c = peek, isDigit(c) else { throw error("invalid number: expected a digit after '.'") }
      while let c = peek, isDigit(c) { index += 1 }
    }
    if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
      index += 1
      if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
      guard let c = peek, isDigit(c) else { throw error("invalid number: expected an exponent") }
      while let c = peek, isDigit(c) { index += 1 }
    }
    return .number(String(decoding: bytes[start..<index], as: UTF8.self))
  }

  private mutating func expectWord(_ word: String) throws(JSONSyntaxError) {
    let utf8 = Array(word.utf8)
    if index + utf8.count <= bytes.count, Array(bytes[index..<index + utf8.count]) == utf8 {
      index += utf8.count
      return
    }
    throw error("unexpected \(describeCurrent()); expected a value (strings need double quotes)")
  }

  // MARK: - Helpers

  var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

  private func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
  }

  mutating func skipWhitespace() {
    // On locals and the buffer, written back once: a pretty-printed file is much whitespace.
    var index = self.index
    var line = self.line
    var lineStart = self.lineStart
    bytes.withUnsafeBufferPointer { bytes in
      scan: while index < bytes.count {
        switch bytes[index] {
        case 0x20, 0x09, 0x0D: index += 1
        case 0x0A:
          index += 1
          line += 1
          lineStart = index
        default: break scan
        }
      }
    }
    self.index = index
    self.line = line
    self.lineStart = lineStart
  }

  /// Columns count characters (UTF-8 continuation bytes are not counted). Counted on from the
  /// last location asked for on the same line, so a long one-line file stays linear.
  private var currentLocation: SourceLocation {
    mutating get {
      let upto = min(index, bytes.count)
      if columnLineStart != lineStart || columnIndex > upto {
        columnLineStart = lineStart
        columnIndex = lineStart
        column = 1
      }
      while columnIndex < upto {
        if bytes[columnIndex] & 0xC0 != 0x80 { column += 1 }
        columnIndex += 1
      }
      // Strings may contain no raw newlines, so lineStart stays correct inside values.
      return SourceLocation(line: line, column: column)
    }
  }

  private func describeByte(_ byte: UInt8) -> String {
    "0x" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
  }

  func describeCurrent() -> String {
    guard index < bytes.count else { return "end of input" }
    let byte = bytes[index]
    if byte >= 0x20 && byte < 0x7F { return "character '\(Character(Unicode.Scalar(byte)))'" }
    return "byte \(describeByte(byte))"
  }

  mutating func error(_ message: String) -> JSONSyntaxError {
    JSONSyntaxError(message: message, location: currentLocation, offset: index)
  }
}

extension String {
  func leftPadded(to width: Int, with pad: Character = "0") -> String {
    count >= width ? self : String(repeating: pad, count: width - count) + self
  }
}
