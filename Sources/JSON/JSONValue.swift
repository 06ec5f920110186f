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
/// A key is found by comparing it with the members, last first: cheap for the small objects most
/// are, and what keeps the object one array (every copy of a value holding it retains that array
/// alone). Building a large object from members (`init(_:)`, the parser) finds repeated keys in a
/// table made for the purpose, so it is linear; code that looks up many keys of a large object
/// makes a table of its own (`keyIndex`).
public struct JSONObject: Sendable, Equatable, Hashable {
  public private(set) var members: [(key: String, value: JSONValue)]

  /// Objects up to this size are searched member by member; past it a table is made.
  static let indexedCount = 16

  public init() {
    members = []
  }

  /// The members set in order, as by the subscript: a repeated key keeps the place of its first
  /// member and the value of its last.
  public init(_ members: [(key: String, value: JSONValue)]) {
    guard members.count > JSONObject.indexedCount else {
      self.members = []
      for (key, value) in members { self[key] = value }
      return
    }
    var kept: [(key: String, value: JSONValue)] = []
    kept.reserveCapacity(members.count)
    var places = [String: Int](minimumCapacity: members.count)
    for (key, value) in members {
      if let place = places[key] {
        kept[place].value = value
      } else {
        places[key] = kept.count
        kept.append((key, value))
      }
    }
    self.members = kept
  }

  public var keys: [String] { members.map(\.key) }
  public var isEmpty: Bool { members.isEmpty }
  public var count: Int { members.count }

  /// Members in order, taken as they are: the keys must be distinct (a literal's, a model's
  /// fixed keys, the members of another object), so none is looked for.
  public init(distinctKeys members: [(key: String, value: JSONValue)]) {
    self.members = members
  }

  public subscript(key: String) -> JSONValue? {
    get { JSONObject.lastIndex(of: key, in: members).map { members[$0].value } }
    set {
      if let position = JSONObject.lastIndex(of: key, in: members) {
        if let newValue { members[position].value = newValue } else { members.remove(at: position) }
      } else if let newValue {
        members.append((key, newValue))
      }
    }
  }

  /// The place of each key's last member: for code that looks up many keys of one object
  /// (`object[key]` compares with every member).
  public var keyIndex: [String: Int] {
    var table = [String: Int](minimumCapacity: members.count)
    for (position, member) in members.enumerated() { table[member.key] = position }
    return table
  }

  /// The last member named `key` in `members`.
  @inline(__always)
  static func lastIndex(of key: String, in members: [(key: String, value: JSONValue)]) -> Int? {
    var position = members.endIndex
    while position > members.startIndex {
      position -= 1
      if members[position].key == key { return position }
    }
    return nil
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
