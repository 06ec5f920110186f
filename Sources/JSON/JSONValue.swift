import Foundation

/// A JSON value that keeps what a person wrote: object keys in their order, numbers as their
/// literal text (so `1.0` and `10000000000000000001` survive a round trip).
///
/// ```swift
/// let value = try JSONParser.parse(#"{"id": 1, "name": "Ada"}"#)
/// value["name"]?.stringValue  // "Ada"
/// ```
public enum JSONValue: Sendable, Equatable, Hashable {
  case null
  case bool(Bool)
  /// The number's literal text, as written (valid JSON number syntax).
  case number(String)
  case string(String)
  case array([JSONValue])
  case object(JSONObject)

  public static func number(_ value: Int) -> JSONValue { .number(String(value)) }

  public static func number(_ value: Double) -> JSONValue {
    if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
      return .number(String(Int(value)))
    }
    return .number(String(value))
  }

  public var stringValue: String? {
    if case .string(let s) = self { return s }
    return nil
  }

  public var doubleValue: Double? {
    if case .number(let n) = self { return Double(n) }
    return nil
  }

  public var intValue: Int? {
    if case .number(let n) = self { return Int(n) ?? Double(n).flatMap { $0 == $0.rounded() ? Int(exactly: $0) : nil } }
    return nil
  }

  public var boolValue: Bool? {
    if case .bool(let b) = self { return b }
    return nil
  }

  public var arrayValue: [JSONValue]? {
    if case .array(let a) = self { return a }
    return nil
  }

  public var objectValue: JSONObject? {
    if case .object(let o) = self { return o }
    return nil
  }

  public var isNull: Bool { self == .null }

  /// The member `key` of an object, nil for anything else.
  public subscript(key: String) -> JSONValue? {
    objectValue?[key]
  }

  /// The JSON type's name as the shape validator and error messages spell it.
  public var typeName: String {
    switch self {
    case .null: "null"
    case .bool: "bool"
    case .number: "number"
    case .string: "string"
    case .array: "array"
    case .object: "object"
    }
  }
}

/// A JSON object whose members keep their order. Setting an existing key replaces it in place.
///
/// Finding a key compares it with the members, last first, while the object is small; an object
/// of more than `indexedCount` members also keeps where each key is (`index`), so building,
/// reading or looking up in one of thousands of keys (an API's `paths`, a request's query) is
/// linear in its size, not quadratic.
public struct JSONObject: Sendable, Equatable, Hashable {
  public private(set) var members: [(key: String, value: JSONValue)]
  /// The index in `members` of each key's last member; nil while there are at most
  /// `indexedCount` members. Not part of the value (`==`, `hash`).
  private var index: [String: Int]?

  /// Objects up to this size are searched member by member (no table to build or keep).
  static let indexedCount = 16

  public init(_ members: [(key: String, value: JSONValue)] = []) {
    self.members = []
    if members.count > JSONObject.indexedCount { self.members.reserveCapacity(members.count) }
    for (key, value) in members { self[key] = value }
  }

  public var keys: [String] { members.map(\.key) }
  public var isEmpty: Bool { members.isEmpty }
  public var count: Int { members.count }

  /// Members in order, taken as they are: the keys must be distinct (a literal's, a model's
  /// fixed keys), so none is looked for.
  public init(distinctKeys members: [(key: String, value: JSONValue)]) {
    self.members = members
    if members.count > JSONObject.indexedCount { buildIndex() }
  }

  public subscript(key: String) -> JSONValue? {
    get { lastIndex(of: key).map { members[$0].value } }
    set {
      if let position = lastIndex(of: key) {
        if let newValue {
          members[position].value = newValue
        } else {
          members.remove(at: position)
          if index != nil { buildIndex() }
        }
      } else if let newValue {
        append(key, newValue)
      }
    }
  }

  /// The last member named `key`.
  private func lastIndex(of key: String) -> Int? {
    if let index { return index[key] }
    var position = members.endIndex
    while position > members.startIndex {
      position -= 1
      if members[position].key == key { return position }
    }
    return nil
  }

  /// Appends a member, keeping the index (made when the object grows past `indexedCount`).
  private mutating func append(_ key: String, _ value: JSONValue) {
    members.append((key, value))
    if index != nil {
      index?[key] = members.count - 1
    } else if members.count > JSONObject.indexedCount {
      buildIndex()
    }
  }

  private mutating func buildIndex() {
    var table = [String: Int](minimumCapacity: members.count)
    for (position, member) in members.enumerated() { table[member.key] = position }
    index = table
  }

  /// Makes room for `count` members (the parser, before an object's first member).
  mutating func reserveCapacity(_ count: Int) { members.reserveCapacity(count) }

  /// Appends a member even when the key exists (the parser keeps duplicates so it can report them).
  mutating func appendDuplicate(_ key: String, _ value: JSONValue) {
    append(key, value)
  }

  public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
    lhs.members.count == rhs.members.count
      && zip(lhs.members, rhs.members).allSatisfy { $0.key == $1.key && $0.value == $1.value }
  }

  public func hash(into hasher: inout Hasher) {
    for member in members {
      hasher.combine(member.key)
      hasher.combine(member.value)
    }
  }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
  ExpressibleByIntegerLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral,
  ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
  public init(stringLiteral value: String) { self = .string(value) }
  public init(booleanLiteral value: Bool) { self = .bool(value) }
  public init(integerLiteral value: Int) { self = .number(String(value)) }
  public init(floatLiteral value: Double) { self = .number(value) }
  public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self = .object(JSONObject(elements.map { (key: $0.0, value: $0.1) }))
  }
  public init(nilLiteral: ()) { self = .null }
}
