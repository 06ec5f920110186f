import Synchronization

/// Where `JSONParser.parse(_:deferring:)` leaves large values as their text instead of making
/// them values: at `path` (`requests`, any index, `body`, `json`: every request's JSON body), an
/// object or array whose text is `minimumBytes` long or more. A value of a few bytes of text
/// takes tens of bytes as a `JSONValue` (an allocation per object and array), so a workspace
/// holding a large JSON body is read, and kept, at about the size of its file; the body is
/// made a value when it is used (`JSONText.value`).
public struct JSONDeferral: Sendable {
  public enum Step: Sendable, Equatable {
    case key(String)
    case anyIndex
  }

  public var path: [Step]
  public var minimumBytes: Int

  public init(path: [Step], minimumBytes: Int) {
    self.path = path
    self.minimumBytes = minimumBytes
  }

  /// A value left as text, and the indices its path took where `path` has any index.
  public struct Value: Sendable {
    public var indices: [Int]
    public var text: JSONText
  }

}

/// A JSON value kept as its text (checked: the parser read all of it, as it reads any value),
/// made a value when asked for, once (`value`).
public final class JSONText: Sendable, Equatable, CustomStringConvertible {
  /// The value's text, a slice of the document's bytes (not a copy).
  public let bytes: ArraySlice<UInt8>
  /// Whether a string in it (a key or a value) holds `{`: a `{{variable}}` may be there.
  public let hasOpeningBrace: Bool
  private let parsed = Mutex<JSONValue?>(nil)

  init(bytes: ArraySlice<UInt8>, hasOpeningBrace: Bool) {
    self.bytes = bytes
    self.hasOpeningBrace = hasOpeningBrace
  }

  /// The value, made from the text the first time and kept.
  public var value: JSONValue {
    parsed.withLock { parsed in
      if let parsed { return parsed }
      let value = parsedAgain()
      parsed = value
      return value
    }
  }

  /// The value, made from the text and not kept (a save writes it out once).
  public func parsedAgain() -> JSONValue {
    // The text was read whole as part of its document, so it parses (less deep on its own).
    (try? JSONParser.parse(bytes)) ?? .null
  }

  /// Calls `visit` with each string of the value holding `{` (keys too), in order, without
  /// making the value.
  public func forEachStringWithOpeningBrace(_ visit: (String) -> Void) {
    guard hasOpeningBrace else { return }
    var parser = JSONParser(valuesOnly: Array(bytes))
    _ = try? parser.skipValue(depth: 0, visit: visit)
  }

  public var description: String { "JSONText(\(bytes.count) bytes)" }

  /// The same text, or texts of equal values.
  public static func == (a: JSONText, b: JSONText) -> Bool {
    a === b || a.bytes == b.bytes || a.value == b.value
  }
}

extension JSONParser {
  /// The value of `bytes` with the values `deferral` points at, when their text is large, left
  /// as `JSONText` (in the value they are `null`), in the document's order. Errors are those of
  /// `parse`: a value left as text is read all the same, only not made.
  public static func parse(_ bytes: [UInt8], deferring deferral: JSONDeferral) throws(JSONSyntaxError)
    -> (value: JSONValue, deferred: [JSONDeferral.Value])
  {
    var parser = JSONParser(valuesOnly: bytes)
    parser.deferralPath = deferral.path
    parser.deferralMinimum = deferral.minimumBytes
    let value = try parser.parseDocument()
    return (value, parser.deferred)
  }

  /// A parser that records neither locations nor layout.
  init(valuesOnly bytes: [UInt8]) {
    self.init(bytes: bytes, recordLocations: false, duplicateKeys: .refused)
  }

  /// The steps of `deferralPath` matched after a member `key` of an object reached with
  /// `matched` steps; -1 when the path goes elsewhere.
  func deferralStep(after matched: Int, key: String) -> Int {
    guard matched < deferralPath.count, case .key(let step) = deferralPath[matched], step == key else { return -1 }
    return matched + 1
  }

  /// The steps matched after an item of an array reached with `matched` steps, or -1.
  func deferralStep(afterIndexAt matched: Int) -> Int {
    matched < deferralPath.count && deferralPath[matched] == .anyIndex ? matched + 1 : -1
  }

  func overBudget() -> JSONSyntaxError {
    var signal = JSONSyntaxError(message: "", location: .start, offset: index)
    signal.isOverBudget = true
    return signal
  }

  /// The object or array at `index`, where `deferral` points: made as usual while its text is
  /// shorter than `minimumBytes`; past that, read to its end without being made, and left as text.
  mutating func parseOrDefer(depth: Int) throws(JSONSyntaxError) -> JSONValue {
    let start = index
    let startLine = line
    let startLineStart = lineStart
    budgetEnd = start &+ deferralMinimum
    do {
      let value = try parseValue(path: .root, depth: depth)
      budgetEnd = .max
      return value
    } catch {
      budgetEnd = .max
      guard error.isOverBudget else { throw error }
    }
    index = start
    line = startLine
    lineStart = startLineStart
    let hasOpeningBrace = try skipValue(depth: depth, visit: { _ in })
    deferred.append(
      JSONDeferral.Value(indices: deferralIndices, text: JSONText(bytes: bytes[start..<index], hasOpeningBrace: hasOpeningBrace)))
    return .null
  }

  /// Reads the value at `index` as `parseValue` does, with the same checks and errors (depth,
  /// syntax, duplicate keys), without making it; returns whether a string in it holds `{`, and
  /// gives each such string to `visit`.
  mutating func skipValue(depth: Int, visit: (String) -> Void) throws(JSONSyntaxError) -> Bool {
    if depth > maxDepth { throw error("nesting deeper than \(maxDepth) levels") }
    guard index < bytes.count else { throw error("unexpected end of input; expected a value") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try skipObject(depth: depth, visit: visit)
    case UInt8(ascii: "["): return try skipArray(depth: depth, visit: visit)
    case UInt8(ascii: "\""):
      let text = try parseString()
      guard text.utf8.contains(UInt8(ascii: "{")) else { return false }
      visit(text)
      return true
    default:
      _ = try parseScalar()
      return false
    }
  }

  private mutating func skipObject(depth: Int, visit: (String) -> Void) throws(JSONSyntaxError) -> Bool {
    index += 1
    skipWhitespace()
    if peek == UInt8(ascii: "}") {
      index += 1
      return false
    }
    var brace = false
    // This object's keys follow its parent's in `skippedKeys`; a large object's are in a set.
    let keysStart = skippedKeys.count
    var keySet: Set<String>?
    defer { skippedKeys.removeSubrange(keysStart...) }
    while true {
      skipWhitespace()
      guard peek == UInt8(ascii: "\"") else {
        if peek == UInt8(ascii: "}") { throw error("trailing comma before '}'") }
        throw error("unexpected \(describeCurrent()); expected a key in double quotes")
      }
      let keyStart = index
      let key = try parseString()
      let seen = duplicateKeys == .refused && (keySet.map { $0.contains(key) } ?? skippedKeys[keysStart...].contains(key))
      if seen {
        index = keyStart
        throw error("duplicate key \(JSONSerializer.quote(key))")
      }
      if keySet != nil {
        keySet?.insert(key)
      } else {
        skippedKeys.append(key)
        if skippedKeys.count - keysStart > 16 { keySet = Set(skippedKeys[keysStart...]) }
      }
      if key.utf8.contains(UInt8(ascii: "{")) {
        brace = true
        visit(key)
      }
      skipWhitespace()
      guard peek == UInt8(ascii: ":") else {
        throw error("unexpected \(describeCurrent()); expected ':' after the key")
      }
      index += 1
      skipWhitespace()
      if try skipValue(depth: depth + 1, visit: visit) { brace = true }
      skipWhitespace()
      switch peek {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "}"):
        index += 1
        return brace
      case nil: throw error("unexpected end of input; expected ',' or '}'")
      default: throw error("unexpected \(describeCurrent()); expected ',' or '}'")
      }
    }
  }

  private mutating func skipArray(depth: Int, visit: (String) -> Void) throws(JSONSyntaxError) -> Bool {
    index += 1
    skipWhitespace()
    if peek == UInt8(ascii: "]") {
      index += 1
      return false
    }
    var brace = false
    while true {
      skipWhitespace()
      if peek == UInt8(ascii: "]") { throw error("trailing comma before ']'") }
      if try skipValue(depth: depth + 1, visit: visit) { brace = true }
      skipWhitespace()
      switch peek {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "]"):
        index += 1
        return brace
      case nil: throw error("unexpected end of input; expected ',' or ']'")
      default: throw error("unexpected \(describeCurrent()); expected ',' or ']'")
      }
    }
  }
}
