/// A three-way merge of JSON documents, git's rule applied value by value: what `mine` changed
/// since `base` goes onto `theirs`, what only `theirs` changed stays, and a value both changed
/// differently is a conflict. Objects merge member by member (their order `theirs`', members only
/// `mine` added after them). Arrays whose elements are all objects with a distinct string
/// `"name"` (a workspace's requests, batches and chains) merge element by element, matched by
/// name; any other array is one value.
///
/// ```swift
/// let base: JSONValue = ["a": 1, "b": 1]
/// JSONMerge.merge(base: base, mine: ["a": 2, "b": 1], theirs: ["a": 1, "b": 3])
/// // .merged(["a": 2, "b": 3])
/// JSONMerge.merge(base: base, mine: ["a": 2, "b": 1], theirs: ["a": 3, "b": 1])
/// // .conflicts(["a"])
/// ```
public enum JSONMerge {
  public enum Outcome: Sendable, Equatable {
    case merged(JSONValue)
    /// Where both sides changed a value differently (`requests[users/get].url`,
    /// `environments.dev.host`); `(root)` for the whole document.
    case conflicts([String])
  }

  /// Merges; a nil side is a missing document (`base` nil: both sides were made from nothing).
  public static func merge(base: JSONValue?, mine: JSONValue, theirs: JSONValue) -> Outcome {
    var conflicts: [String] = []
    let merged = merge(base, mine, theirs, at: "", conflicts: &conflicts)
    if !conflicts.isEmpty { return .conflicts(conflicts) }
    return .merged(merged ?? .null)
  }

  /// One value (nil: absent on that side, or removed in the result).
  static func merge(
    _ base: JSONValue?, _ mine: JSONValue?, _ theirs: JSONValue?, at path: String, conflicts: inout [String]
  ) -> JSONValue? {
    if mine == theirs { return mine }
    if mine == base { return theirs }
    if theirs == base { return mine }
    switch (base, mine, theirs) {
    case (.object(let b)?, .object(let m)?, .object(let t)?):
      return .object(mergeObjects(b, m, t, at: path, conflicts: &conflicts))
    case (nil, .object(let m)?, .object(let t)?):
      return .object(mergeObjects(JSONObject(), m, t, at: path, conflicts: &conflicts))
    case (_, .array(let m)?, .array(let t)?):
      var b: [JSONValue] = []
      if case .array(let elements)? = base { b = elements }
      if let merged = mergeNamed(b, m, t, at: path, conflicts: &conflicts) { return .array(merged) }
    default:
      break
    }
    conflicts.append(path.isEmpty ? "(root)" : path)
    return mine
  }

  private static func mergeObjects(
    _ base: JSONObject, _ mine: JSONObject, _ theirs: JSONObject, at path: String, conflicts: inout [String]
  ) -> JSONObject {
    var result = JSONObject()
    func member(_ key: String) -> String { path.isEmpty ? key : path + "." + key }
    for key in theirs.keys {
      if let value = merge(base[key], mine[key], theirs[key], at: member(key), conflicts: &conflicts) {
        result[key] = value
      }
    }
    for key in mine.keys where !theirs.keys.contains(key) {
      if let value = merge(base[key], mine[key], nil, at: member(key), conflicts: &conflicts) {
        result[key] = value
      }
    }
    return result
  }

  /// Arrays of named objects, matched by name; nil when one of them is not such an array.
  private static func mergeNamed(
    _ base: [JSONValue], _ mine: [JSONValue], _ theirs: [JSONValue], at path: String, conflicts: inout [String]
  ) -> [JSONValue]? {
    guard let baseByName = byName(base), let mineByName = byName(mine), let theirNames = names(theirs),
      names(mine) != nil
    else { return nil }
    func element(_ name: String) -> String { "\(path)[\(name)]" }
    var result: [(name: String, value: JSONValue)] = []
    for (name, value) in zip(theirNames, theirs) {
      if let merged = merge(baseByName[name], mineByName[name], value, at: element(name), conflicts: &conflicts) {
        result.append((name, merged))
      }
    }
    // What only mine has: after the element it follows in mine (or first).
    let theirSet = Set(theirNames)
    var previous: String?
    for (name, value) in zip(names(mine) ?? [], mine) {
      defer { previous = name }
      guard !theirSet.contains(name),
        let merged = merge(baseByName[name], value, nil, at: element(name), conflicts: &conflicts)
      else { continue }
      let index = previous.flatMap { p in result.firstIndex { $0.name == p }.map { $0 + 1 } } ?? 0
      result.insert((name, merged), at: index)
    }
    return result.map(\.value)
  }

  /// The `"name"` of each element, when every element is an object with a distinct string name.
  private static func names(_ elements: [JSONValue]) -> [String]? {
    var names: [String] = []
    var seen: Set<String> = []
    for element in elements {
      guard case .object(let object) = element, case .string(let name)? = object["name"], seen.insert(name).inserted
      else { return nil }
      names.append(name)
    }
    return names
  }

  private static func byName(_ elements: [JSONValue]) -> [String: JSONValue]? {
    guard let names = names(elements) else { return nil }
    return Dictionary(uniqueKeysWithValues: zip(names, elements))
  }
}
