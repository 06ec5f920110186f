import CYAML
import RequestEngine
import Workspace

/// A YAML text that could not be read: what is wrong and where.
public struct YAMLError: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String
  public var location: SourceLocation
  public var description: String { "\(location): \(message)" }
}

/// Reads one YAML document into the project's JSON value, with the line and column where every
/// value starts (`JSONDocument`), so what reads YAML follows the same code path as JSON and
/// points into the YAML file in its errors.
///
/// ```swift
/// let document = try YAMLReader.parseDocument(Array("paths:\n  /pets: {}\n".utf8))
/// document.root["paths"]?["/pets"]  // .object([:])
/// document.location(of: JSONPath.root.appending("paths"))  // 2:3
/// ```
/// libyaml (Debian's `libyaml-0-2`, through the `CYAML` shim) does the parsing; this file only
/// turns its events into values:
/// - plain scalars are resolved by YAML 1.2's core schema: `null`, `~` and nothing are null,
///   `true`/`false` (any of `True`, `TRUE`) booleans, decimal, `0x` and `0o` integers and decimal
///   floats numbers (spelled as JSON spells them: `+1` is `1`, `.5` is `0.5`); anything else, and
///   every quoted or block scalar, is a string; `.inf` and `.nan`, which JSON cannot hold, are
///   strings. The tags `!!str`, `!!int`, `!!float`, `!!bool` and `!!null` ask for a type; other
///   tags are ignored;
/// - mapping keys are scalars, taken as written (`200:` is the key `"200"`); a key that appears
///   twice is an error; `<<: *base` merges the members of the anchored mapping(s) the mapping
///   does not set itself;
/// - `*alias` is a copy of the anchored value; aliases may not expand to more than
///   `maxValues` values in all (a "billion laughs" file fails instead of filling memory);
/// - one document: a second (`---`) is an error.
public enum YAMLReader {
  public static let maxDepth = 512
  public static let maxValues = 2_000_000

  public static func parseDocument(_ bytes: [UInt8]) throws(YAMLError) -> JSONDocument {
    // libyaml reads the bytes in place: a copy that lives as long as the reader.
    let input = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(bytes.count, 1))
    defer { input.deallocate() }
    _ = input.initialize(from: bytes)
    guard let handle = rb_yaml_open(input.baseAddress, bytes.count) else {
      throw YAMLError(message: "out of memory", location: .start)
    }
    defer { rb_yaml_close(handle) }
    var builder = Builder(handle: handle)
    return try builder.document()
  }

  /// The JSON value of a plain scalar (`plain`: written without quotes or a block indicator)
  /// under YAML 1.2's core schema, or as `tag` asks.
  static func scalar(_ text: String, plain: Bool, tag: String?) -> JSONValue? {
    let core = "tag:yaml.org,2002:"
    if let tag, tag.hasPrefix(core) {
      switch tag.dropFirst(core.count) {
      case "str": return .string(text)
      case "null": return .null
      case "bool": return boolean(text).map { .bool($0) }
      case "int": return integer(text)
      case "float": return float(text) ?? integer(text)
      default: break
      }
    }
    // The non-specific tag `!` makes a plain scalar a string.
    guard plain, tag != "!" else { return .string(text) }
    if ["", "~", "null", "Null", "NULL"].contains(text) { return .null }
    if let flag = boolean(text) { return .bool(flag) }
    return integer(text) ?? float(text) ?? .string(text)
  }

  private static func boolean(_ text: String) -> Bool? {
    switch text {
    case "true", "True", "TRUE": true
    case "false", "False", "FALSE": false
    default: nil
    }
  }

  /// `[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+`, as a JSON number literal.
  private static func integer(_ text: String) -> JSONValue? {
    if text.hasPrefix("0x") || text.hasPrefix("0o") {
      let digits = text.dropFirst(2)
      guard !digits.isEmpty, let value = Int(digits, radix: text.hasPrefix("0x") ? 16 : 8) else { return nil }
      return .number(value)
    }
    var rest = Substring(text)
    var negative = false
    if let sign = rest.first, sign == "-" || sign == "+" {
      negative = sign == "-"
      rest = rest.dropFirst()
    }
    guard !rest.isEmpty, rest.allSatisfy(\.isASCIIDigit) else { return nil }
    let digits = rest.drop(while: { $0 == "0" })
    return .number((negative ? "-" : "") + (digits.isEmpty ? "0" : String(digits)))
  }

  /// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, as a JSON number literal.
  private static func float(_ text: String) -> JSONValue? {
    var rest = Substring(text)
    var sign = ""
    if let first = rest.first, first == "-" || first == "+" {
      if first == "-" { sign = "-" }
      rest = rest.dropFirst()
    }
    let whole = rest.prefix(while: \.isASCIIDigit)
    rest = rest.dropFirst(whole.count)
    var fraction: Substring = ""
    var hasPoint = false
    if rest.first == "." {
      hasPoint = true
      rest = rest.dropFirst()
      fraction = rest.prefix(while: \.isASCIIDigit)
      rest = rest.dropFirst(fraction.count)
    }
    guard !whole.isEmpty || !fraction.isEmpty else { return nil }
    var exponent = ""
    if let e = rest.first, e == "e" || e == "E" {
      rest = rest.dropFirst()
      var expSign = ""
      if let s = rest.first, s == "-" || s == "+" {
        expSign = String(s)
        rest = rest.dropFirst()
      }
      let digits = rest.prefix(while: \.isASCIIDigit)
      guard !digits.isEmpty else { return nil }
      rest = rest.dropFirst(digits.count)
      exponent = "e" + expSign + digits
    }
    guard rest.isEmpty, hasPoint || !exponent.isEmpty else { return nil }
    let integerPart = whole.drop(while: { $0 == "0" })
    let literal = sign + (integerPart.isEmpty ? "0" : String(integerPart))
      + (hasPoint ? "." + (fraction.isEmpty ? "0" : String(fraction)) : "") + exponent
    return .number(literal)
  }

  /// Turns libyaml's events into one value, recording locations.
  private struct Builder {
    let handle: OpaquePointer
    var locations: [JSONPath: SourceLocation] = [:]
    /// Anchored values and how many values each holds (an alias counts them all again).
    var anchors: [String: (value: JSONValue, size: Int)] = [:]
    var values = 0

    init(handle: OpaquePointer) { self.handle = handle }

    struct Event {
      var kind: Int32
      var location: SourceLocation
      var text: String
      var plain: Bool
      var anchor: String?
      var tag: String?
    }

    mutating func next() throws(YAMLError) -> Event {
      var raw = rb_yaml_event()
      guard rb_yaml_next(handle, &raw) == 1 else {
        var line = 0
        var column = 0
        let message = String(cString: rb_yaml_error(handle, &line, &column))
        throw YAMLError(message: "not valid YAML: \(message)", location: SourceLocation(line: line + 1, column: column + 1))
      }
      let text = raw.value.map { pointer in
        String(decoding: UnsafeRawBufferPointer(start: pointer, count: raw.length), as: UTF8.self)
      } ?? ""
      return Event(
        kind: raw.kind, location: SourceLocation(line: raw.line + 1, column: raw.column + 1), text: text,
        plain: raw.plain == 1, anchor: raw.anchor.map { String(cString: $0) }, tag: raw.tag.map { String(cString: $0) })
    }

    mutating func document() throws(YAMLError) -> JSONDocument {
      var event = try next()
      if event.kind == Int32(RB_YAML_STREAM_START.rawValue) { event = try next() }
      guard event.kind == Int32(RB_YAML_DOCUMENT_START.rawValue) else {
        throw YAMLError(message: "the document is empty", location: event.location)
      }
      let first = try next()
      let root = try value(first, path: .root, depth: 0)
      _ = try next()  // the document's end
      let after = try next()
      if after.kind == Int32(RB_YAML_DOCUMENT_START.rawValue) {
        throw YAMLError(
          message: "the file holds more than one YAML document (---); keep one", location: after.location)
      }
      return JSONDocument(root: root, locations: locations)
    }

    mutating func count(_ n: Int, at location: SourceLocation) throws(YAMLError) {
      values += n
      if values > YAMLReader.maxValues {
        throw YAMLError(
          message: "the document expands to more than \(YAMLReader.maxValues) values (aliases of aliases?)",
          location: location)
      }
    }

    mutating func value(_ event: Event, path: JSONPath, depth: Int) throws(YAMLError) -> JSONValue {
      if depth > YAMLReader.maxDepth {
        throw YAMLError(message: "nesting deeper than \(YAMLReader.maxDepth) levels", location: event.location)
      }
      locations[path] = event.location
      let start = values
      let result: JSONValue
      switch Int(event.kind) {
      case Int(RB_YAML_ALIAS.rawValue):
        guard let name = event.anchor, let anchored = anchors[name] else {
          throw YAMLError(message: "the alias *\(event.anchor ?? "") names no anchor before it", location: event.location)
        }
        try count(anchored.size, at: event.location)
        return anchored.value
      case Int(RB_YAML_SCALAR.rawValue):
        try count(1, at: event.location)
        guard let scalar = YAMLReader.scalar(event.text, plain: event.plain, tag: event.tag) else {
          throw YAMLError(
            message: "\(JSONSerializer.quote(event.text)) is not a \(event.tag.map { String($0.split(separator: ":").last ?? "") } ?? "value")",
            location: event.location)
        }
        result = scalar
      case Int(RB_YAML_SEQUENCE_START.rawValue):
        try count(1, at: event.location)
        var items: [JSONValue] = []
        while true {
          let item = try next()
          if item.kind == Int32(RB_YAML_SEQUENCE_END.rawValue) { break }
          items.append(try value(item, path: path.appending(items.count), depth: depth + 1))
        }
        result = .array(items)
      case Int(RB_YAML_MAPPING_START.rawValue):
        try count(1, at: event.location)
        result = .object(try mapping(path: path, depth: depth))
      default:
        throw YAMLError(message: "unexpected YAML event", location: event.location)
      }
      if let anchor = event.anchor { anchors[anchor] = (result, values - start) }
      return result
    }

    mutating func mapping(path: JSONPath, depth: Int) throws(YAMLError) -> JSONObject {
      var object = JSONObject()
      var seen: [String: SourceLocation] = [:]
      var merged: [(key: String, value: JSONValue)] = []
      while true {
        let keyEvent = try next()
        if keyEvent.kind == Int32(RB_YAML_MAPPING_END.rawValue) { break }
        let key: String
        switch Int(keyEvent.kind) {
        case Int(RB_YAML_SCALAR.rawValue): key = keyEvent.text
        case Int(RB_YAML_ALIAS.rawValue):
          guard let name = keyEvent.anchor, let anchored = anchors[name]?.value,
            let text = anchored.stringValue ?? (anchored.objectValue == nil && anchored.arrayValue == nil ? JSONSerializer.compact(anchored) : nil)
          else { throw YAMLError(message: "a key must be a scalar (text, a number…)", location: keyEvent.location) }
          key = text
        default:
          throw YAMLError(message: "a key must be a scalar (text, a number…), not a mapping or a list", location: keyEvent.location)
        }
        let valueEvent = try next()
        if key == "<<", keyEvent.plain, keyEvent.kind == Int32(RB_YAML_SCALAR.rawValue) {
          let base = try value(valueEvent, path: path.appending(key), depth: depth + 1)
          locations[path.appending(key)] = nil
          let sources = base.arrayValue ?? [base]
          for source in sources {
            guard let members = source.objectValue?.members else {
              throw YAMLError(message: "<< merges mappings: give it *anchor of a mapping, or a list of them", location: valueEvent.location)
            }
            for member in members where !merged.contains(where: { $0.key == member.key }) { merged.append(member) }
          }
          continue
        }
        if let first = seen[key] {
          throw YAMLError(
            message: "the key \(JSONSerializer.quote(key)) appears twice in this mapping (first at \(first)); keep one",
            location: keyEvent.location)
        }
        seen[key] = keyEvent.location
        object[key] = try value(valueEvent, path: path.appending(key), depth: depth + 1)
      }
      for member in merged where seen[member.key] == nil { object[member.key] = member.value }
      return object
    }
  }
}

extension Character {
  fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
