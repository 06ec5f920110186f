import RequestEngine

/// Reads the workspace format out of a parsed JSON tree, collecting every problem with the location
/// of the offending value instead of stopping at the first. Each reading method returns nil when
/// the value (or anything inside it) has a problem.
///
/// The writer uses the same readers, without locations, to tell whether a value in the file still
/// means what the model holds (then the file's spelling is kept).
package struct WorkspaceReader {
  /// Where each value starts; nil when reading a value the writer holds.
  private let document: JSONDocument?
  package private(set) var problems: [WorkspaceError.Problem] = []
  /// The JSON bodies the parser left as text (`Workspace.parse`), by the index of their request:
  /// in the tree each is `null`.
  var deferredBodies: [Int: JSONText] = [:]

  package init(document: JSONDocument? = nil) {
    self.document = document
  }

  static let supportedVersions = [1]

  /// Runs `read` on a reader that records no locations (give it `.untracked`); nil if it found
  /// any problem.
  static func decode<T>(_ read: (inout WorkspaceReader) -> T?) -> T? {
    var reader = WorkspaceReader()
    let value = read(&reader)
    return reader.problems.isEmpty ? value : nil
  }

  /// A reader of the same document with no problems yet: one per thread reading a part of it.
  var blank: WorkspaceReader {
    var reader = WorkspaceReader(document: document)
    reader.deferredBodies = deferredBodies
    return reader
  }

  // MARK: - Problems

  /// Problems another reader of the same document found, in the order they come here.
  mutating func report(_ found: [WorkspaceError.Problem]) {
    problems.append(contentsOf: found)
  }

  mutating func fail(_ path: ReaderPath, _ message: String) {
    guard case .tracked(let path) = path else {
      problems.append(WorkspaceError.Problem(location: nil, message: message))
      return
    }
    let place = WorkspaceReader.display(path)
    problems.append(
      WorkspaceError.Problem(
        location: document?.location(of: path), message: place.isEmpty ? message : "\(place): \(message)"))
  }

  /// `requests[2].method`: the JSON path without the leading `$.`.
  static func display(_ path: JSONPath) -> String {
    var text = path.description
    if text.hasPrefix("$.") {
      text.removeFirst(2)
    } else if text.hasPrefix("$") {
      text.removeFirst()
    }
    return text
  }

  /// Runs `body` and reports whether it added no problem.
  mutating func clean(_ body: (inout WorkspaceReader) -> Void) -> Bool {
    let before = problems.count
    body(&self)
    return problems.count == before
  }

  // MARK: - Scalars

  static func describe(_ value: JSONValue) -> String {
    switch value {
    case .bool: "boolean"
    default: value.typeName
    }
  }

  mutating func expected(_ what: String, _ value: JSONValue, _ path: ReaderPath) {
    fail(path, "expected \(what), found \(WorkspaceReader.describe(value))")
  }

  mutating func object(_ value: JSONValue, _ path: ReaderPath) -> JSONObject? {
    guard case .object(let object) = value else {
      expected("an object", value, path)
      return nil
    }
    return object
  }

  mutating func array(_ value: JSONValue, _ path: ReaderPath) -> [JSONValue]? {
    guard case .array(let items) = value else {
      expected("an array", value, path)
      return nil
    }
    return items
  }

  mutating func string(_ value: JSONValue, _ path: ReaderPath) -> String? {
    guard case .string(let text) = value else {
      expected("a string", value, path)
      return nil
    }
    return text
  }

  mutating func nonEmptyString(_ value: JSONValue, _ path: ReaderPath) -> String? {
    guard let text = string(value, path) else { return nil }
    // A visible ASCII first character answers at once (Unicode's properties are a table search).
    if let first = text.utf8.first, first > 0x20, first < 0x7F { return text }
    if text.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) {
      fail(path, "must not be empty")
      return nil
    }
    return text
  }

  mutating func bool(_ value: JSONValue, _ path: ReaderPath) -> Bool? {
    guard case .bool(let flag) = value else {
      expected("true or false", value, path)
      return nil
    }
    return flag
  }

  mutating func number(_ value: JSONValue, _ path: ReaderPath) -> Double? {
    guard let number = value.doubleValue else {
      expected("a number", value, path)
      return nil
    }
    return number
  }

  mutating func int(_ value: JSONValue, _ path: ReaderPath) -> Int? {
    guard case .number(let literal) = value else {
      expected("a whole number", value, path)
      return nil
    }
    guard let int = value.intValue else {
      fail(path, "expected a whole number, found \(literal)")
      return nil
    }
    return int
  }

  mutating func int(_ value: JSONValue, _ path: ReaderPath, atLeast minimum: Int) -> Int? {
    guard let int = int(value, path) else { return nil }
    if int < minimum {
      fail(path, "must be \(minimum) or more, found \(int)")
      return nil
    }
    return int
  }

  /// A whole number from `minimum` to `maximum` (`ValueLimits`).
  mutating func int(_ value: JSONValue, _ path: ReaderPath, atLeast minimum: Int, atMost maximum: Int) -> Int? {
    guard case .number(let literal) = value, value.intValue == nil, let number = value.doubleValue,
      number == number.rounded(), number > Double(maximum)
    else {
      guard let int = int(value, path, atLeast: minimum) else { return nil }
      if int > maximum {
        fail(path, "must be at most \(maximum), found \(int)")
        return nil
      }
      return int
    }
    // A whole number too large for Int (9223372036854775808, 1e19): too large, not "not whole".
    fail(path, "must be at most \(maximum), found \(literal)")
    return nil
  }

  /// Seconds, more than 0 and at most `maximum` (`ValueLimits.seconds`: 7 days).
  /// `zeroMeans`: 0 is allowed too, and means that (`"timeout": 0`, no idle timeout).
  mutating func seconds(
    _ value: JSONValue, _ path: ReaderPath, atMost maximum: Double = ValueLimits.seconds, zeroMeans: String? = nil
  ) -> Double? {
    guard let number = number(value, path) else { return nil }
    if zeroMeans != nil, number == 0 { return 0 }
    if !(number > 0) || !number.isFinite {
      let zero = zeroMeans.map { ", or 0 for \($0)" } ?? ""
      fail(path, "must be a number of seconds above 0\(zero), found \(JSONSerializer.compact(value))")
      return nil
    }
    if number > maximum {
      fail(path, "must be at most \(ValueLimits.seconds(maximum)), found \(JSONSerializer.compact(value))")
      return nil
    }
    return number
  }

  /// A number from `minimum` (or above it) to `maximum`; `unit` says what it counts (`seconds`, `MB`).
  mutating func number(
    _ value: JSONValue, _ path: ReaderPath, from minimum: Double, above: Bool = false, atMost maximum: Double,
    unit: String
  ) -> Double? {
    guard let number = number(value, path) else { return nil }
    let low = above ? number > minimum : number >= minimum
    if !low || !number.isFinite {
      let bound = above ? "more than \(ValueLimits.text(minimum))" : "\(ValueLimits.text(minimum)) or more"
      fail(path, "must be \(bound) \(unit), found \(JSONSerializer.compact(value))")
      return nil
    }
    if number > maximum {
      let limit = unit == "seconds" ? ValueLimits.seconds(maximum) : "\(ValueLimits.text(maximum)) \(unit)"
      fail(path, "must be at most \(limit), found \(JSONSerializer.compact(value))")
      return nil
    }
    return number
  }

  /// A string that may hold `{{variables}}`; the placeholders are checked now so a typo is a load
  /// error, not a surprise at send time.
  mutating func template(_ value: JSONValue, _ path: ReaderPath) -> String? {
    guard let text = string(value, path) else { return nil }
    return checkTemplate(text, path) ? text : nil
  }

  /// A template that goes onto the wire in the request line or a header (a URL, a header value, a
  /// content type, a token): CR, LF and NUL written in the file are refused here, at their place
  /// (`LineBreaks`, the check preparation and the engine make too, for filled-in values).
  mutating func lineTemplate(_ value: JSONValue, _ path: ReaderPath) -> String? {
    guard let text = template(value, path) else { return nil }
    return checkLine(text, path) ? text : nil
  }

  /// Whether `text` has no CR, LF or NUL; records the problem when it has.
  mutating func checkLine(_ text: String, _ path: ReaderPath) -> Bool {
    guard let found = LineBreaks.find(in: text) else { return true }
    fail(path, "contains \(found); \(LineBreaks.rule)")
    return false
  }

  @discardableResult
  mutating func checkTemplate(_ text: String, _ path: ReaderPath) -> Bool {
    do {
      _ = try Template(text)
      return true
    } catch {
      fail(path, error.message)
      return false
    }
  }

  /// Checks the placeholders in every string of a JSON value, object keys included.
  mutating func checkTemplates(in value: JSONValue, _ path: ReaderPath) {
    switch value {
    case .string(let text): checkTemplate(text, path)
    case .array(let items):
      for (i, item) in items.enumerated() { checkTemplates(in: item, path.appending(i)) }
    case .object(let object):
      for member in object.members {
        checkTemplate(member.key, path.appending(member.key))
        checkTemplates(in: member.value, path.appending(member.key))
      }
    default: break
    }
  }

  mutating func method(_ value: JSONValue, _ path: ReaderPath) -> HTTPMethod? {
    guard let text = string(value, path) else { return nil }
    guard checkLine(text, path) else { return nil }
    guard let method = HTTPMethod(parsing: text) else {
      fail(path, HTTPMethod.notAMethod(text))
      return nil
    }
    return method
  }

  mutating func priority(_ value: JSONValue, _ path: ReaderPath) -> Priority? {
    guard let text = string(value, path) else { return nil }
    guard let priority = Priority(name: text.lowercased()) else {
      fail(path, "unknown priority \(JSONSerializer.quote(text)); use one of high, normal, low")
      return nil
    }
    return priority
  }

  /// A value that may be `null` or absent: `.some(nil)` for null.
  mutating func optional<T>(
    _ value: JSONValue, _ path: ReaderPath, _ read: (inout WorkspaceReader, JSONValue, ReaderPath) -> T?
  ) -> T?? {
    if value == .null { return .some(nil) }
    return read(&self, value, path).map { .some($0) }
  }
}

/// Where the value being read sits: the JSON path a problem names (`requests[2].method`) and its
/// file location is looked up by, or `.untracked` where only whether there is a problem matters
/// (the first pass over a file, the writer's checks). An untracked path appends nothing, so a
/// valid file is read without a path made for each of its values; a file with problems is read
/// again with `.root` (`Workspace.parse`).
package enum ReaderPath {
  case tracked(JSONPath)
  case untracked

  package static let root = ReaderPath.tracked(.root)

  func appending(_ key: String) -> ReaderPath {
    guard case .tracked(let path) = self else { return .untracked }
    return .tracked(path.appending(key))
  }

  func appending(_ index: Int) -> ReaderPath {
    guard case .tracked(let path) = self else { return .untracked }
    return .tracked(path.appending(index))
  }

  /// This path followed by `relative` (a problem found inside a value, at its own path).
  func appending(_ relative: JSONPath) -> ReaderPath {
    guard case .tracked(let path) = self else { return .untracked }
    return .tracked(JSONPath(path.components + relative.components))
  }
}

/// The keys of one kind of object the reader knows (a request's), numbered from 0 in the order
/// they are most often found, at most 64 of them, with their names in the same order.
protocol MemberKey: RawRepresentable<Int>, CaseIterable {
  static var names: [String] { get }
}

extension MemberKey {
  /// The key as it is written in the file.
  var name: String { Self.names[rawValue] }
}

/// The members of an object whose keys `Key` names, found in one pass over the object: a reader
/// then asks for each key it knows, and one that is absent (most are) is answered from one bit,
/// with no search. Like `JSONObject`'s subscript, the last member of a key wins.
struct KnownMembers<Key: MemberKey> {
  private var members: [(key: Key, value: JSONValue)] = []
  /// Bit `n` set: the object has the key whose raw value is `n`.
  private var present: UInt64 = 0

  init(_ object: JSONObject) {
    members.reserveCapacity(object.count)
    let names = Key.names
    for member in object.members {
      // Small strings compare by their bits: the usual keys are found in a comparison or three.
      guard let index = names.firstIndex(of: member.key), let key = Key(rawValue: index) else { continue }
      members.append((key, member.value))
      present |= 1 << UInt64(index)
    }
  }

  subscript(key: Key) -> JSONValue? {
    guard present & (1 << UInt64(key.rawValue)) != 0 else { return nil }
    var index = members.endIndex
    while index > members.startIndex {
      index -= 1
      if members[index].key.rawValue == key.rawValue { return members[index].value }
    }
    return nil
  }
}
