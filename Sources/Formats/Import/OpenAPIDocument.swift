import Foundation
import RequestEngine
import Workspace

/// An OpenAPI description being imported: the parsed document (JSON or YAML, with where every
/// value starts), local `$ref`s followed, and errors that name the value and where it is.
///
/// ```text
/// spec.yaml:120:7: paths./pets.get.responses: expected an object
/// ```
/// The path in an error is the value's place in the document, keys joined by `.` and list
/// indices in brackets (`paths./pets.get.parameters[1].in`); a value reached through a `$ref`
/// is named and located where the reference points (`components.schemas.Pet.properties`).
struct OpenAPIDocument {
  let document: JSONDocument
  let file: String
  /// The description the import reads: the file's own, or for a Swagger 2.0 file its OpenAPI 3
  /// form (`OpenAPISwagger2.swift`), which places some values elsewhere than the file does.
  private(set) var root: JSONValue
  /// Where the values a Swagger 2.0 conversion placed elsewhere are in the file: a path in `root`
  /// (`paths./pets.post.requestBody`) and the path in the file it came from
  /// (`paths./pets.post.parameters[0]`); what lies below follows along. Empty for OpenAPI 3.
  var origins: [JSONPath: JSONPath] = [:]
  /// Whether the file is a Swagger 2.0 description (its messages name Swagger's places).
  var isSwagger2 = false
  /// Things left out or filled in, and operations refused, for the report (each said once),
  /// each line naming the file.
  private(set) var notes: [String] = []
  private var noted: Set<String> = []
  /// Where each variable the import declares is in its `variables` (found at once, not among all
  /// the others: a large description declares thousands).
  var variablePlaces: [String: Int] = [:]
  /// The `$ref`s followed so far, and the keys of the large objects they walked through: a
  /// description of thousands of operations refers to thousands of schemas, each found at once.
  private let references = References()

  private final class References {
    var targets: [String: (value: JSONValue, path: JSONPath)] = [:]
    var keyIndexes: [JSONPath: [String: Int]] = [:]
  }

  /// Reads JSON (the first character `{`) with the project's JSON parser, anything else with
  /// the YAML reader (`YAMLReader`): both give the same value, so one code path follows.
  init(bytes: [UInt8], file: String) throws(ImportError) {
    self.file = file
    let start = bytes.drop(while: { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) })
    if start.first == UInt8(ascii: "{") {
      do {
        document = try JSONParser.parseDocument(bytes)
      } catch {
        throw ImportError(file: file, location: error.location, message: "not valid JSON: \(error.message)")
      }
    } else {
      do {
        document = try YAMLReader.parseDocument(bytes)
      } catch {
        throw ImportError(file: file, location: error.location, message: error.message)
      }
    }
    root = document.root
  }

  /// Replaces the description the import reads (a Swagger 2.0 file's OpenAPI 3 form).
  mutating func read(_ converted: JSONValue) { root = converted }

  mutating func note(_ text: String) {
    let line = "\(file): \(text)"
    if noted.insert(line).inserted { notes.append(line) }
  }

  /// A note about the value at `path`, naming it and where it is
  /// (`spec.yaml:12:9: paths./users.get.parameters[0]: …`).
  mutating func note(_ text: String, at path: JSONPath) {
    let line = failure(text, at: path).description
    if noted.insert(line).inserted { notes.append(line) }
  }

  /// An error that refused a part of the description, and what follows (`GET /pets is left
  /// out, the rest is imported`).
  mutating func note(_ error: ImportError, then consequence: String) {
    let line = "\(error.description); \(consequence)"
    if noted.insert(line).inserted { notes.append(line) }
  }

  /// An operation (or a path, a server) left out: the error that refused it, what is left out.
  mutating func refuse(_ error: ImportError, leftOut: String) {
    note(error, then: "\(leftOut) is left out, the rest is imported")
  }

  /// The place in the file of a value at `path` in `root`.
  func sourcePath(_ path: JSONPath) -> JSONPath {
    guard !origins.isEmpty else { return path }
    var prefix = path
    while true {
      if let origin = origins[prefix] {
        return JSONPath(origin.components + path.components[prefix.components.count...])
      }
      if prefix.components.isEmpty { return path }
      prefix.components.removeLast()
    }
  }

  /// Where the value at `path` in `root` is in the file.
  func location(of path: JSONPath) -> SourceLocation? { document.location(of: sourcePath(path)) }

  /// `paths./pets.get.responses` of the value at `path` in `root`, as the file has it.
  func place(_ path: JSONPath) -> String { OpenAPIDocument.pointer(sourcePath(path)) }

  /// `paths./pets.get.responses`; the document itself is `(the document)`.
  static func pointer(_ path: JSONPath) -> String {
    var text = ""
    for component in path.components {
      switch component {
      case .key(let key): text += (text.isEmpty ? "" : ".") + key
      case .index(let index): text += "[\(index)]"
      }
    }
    return text.isEmpty ? "(the document)" : text
  }

  func failure(_ message: String, at path: JSONPath) -> ImportError {
    ImportError(file: file, location: location(of: path) ?? .start, message: "\(place(path)): \(message)")
  }

  /// The object at `path`, or an error saying what was found instead.
  func object(_ value: JSONValue, at path: JSONPath) throws(ImportError) -> JSONObject {
    guard let object = value.objectValue else { throw failure("expected an object, found \(article(value))", at: path) }
    return object
  }

  /// The member `key` of `object` (at `path`) when it is there and not null.
  func member(_ object: JSONObject, _ key: String) -> JSONValue? {
    guard let value = object[key], value != .null else { return nil }
    return value
  }

  func string(_ object: JSONObject, _ key: String, at path: JSONPath) throws(ImportError) -> String? {
    guard let value = member(object, key) else { return nil }
    guard let text = value.stringValue else {
      throw failure("expected a string, found \(article(value))", at: path.appending(key))
    }
    return text
  }

  func array(_ object: JSONObject, _ key: String, at path: JSONPath) throws(ImportError) -> [JSONValue]? {
    guard let value = member(object, key) else { return nil }
    guard let items = value.arrayValue else {
      throw failure("expected a list, found \(article(value))", at: path.appending(key))
    }
    return items
  }

  func article(_ value: JSONValue) -> String {
    switch value {
    case .object: "an object"
    case .array: "a list"
    case .string(let s): "the string \(JSONSerializer.quote(s.count > 40 ? String(s.prefix(40)) + "…" : s))"
    case .number(let n): "the number \(n)"
    case .bool(let b): "\(b)"
    case .null: "null"
    }
  }

  // MARK: - References

  /// `value` with its `$ref` followed (again while the target is a reference), and where it
  /// ended up. Only references within the file (`#/components/…`) are followed: a reference to
  /// another file is an error naming it.
  func resolve(_ value: JSONValue, at path: JSONPath) throws(ImportError) -> (value: JSONValue, path: JSONPath) {
    var value = value
    var path = path
    var seen: [String] = []
    while let ref = value["$ref"]?.stringValue {
      if seen.contains(ref) {
        throw failure(
          "the $ref \(JSONSerializer.quote(ref)) leads back to itself (\((seen + [ref]).joined(separator: " → ")))",
          at: path)
      }
      seen.append(ref)
      (value, path) = try referenced(ref, from: path)
    }
    return (value, path)
  }

  /// The value a local `$ref` (`#/components/schemas/Pet`) names, and its path.
  func referenced(_ ref: String, from path: JSONPath) throws(ImportError) -> (value: JSONValue, path: JSONPath) {
    if let target = references.targets[ref] { return target }
    let at = path.appending("$ref")
    guard ref.hasPrefix("#") else {
      throw failure(
        "the $ref \(JSONSerializer.quote(ref)) points into another file; reqbench follows references within the file: "
          + "bundle the description into one file first (e.g. `redocly bundle`)", at: at)
    }
    let pointer = ref.dropFirst()
    guard pointer.isEmpty || pointer.hasPrefix("/") else {
      throw failure("the $ref \(JSONSerializer.quote(ref)) is not a JSON pointer (#/components/…)", at: at)
    }
    var value = root
    var walked = JSONPath.root
    for token in pointer.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
      let key = (String(token).removingPercentEncoding ?? String(token))
        .replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
      if let items = value.arrayValue, let index = Int(key), items.indices.contains(index) {
        value = items[index]
        walked = walked.appending(index)
      } else if let next = member(key, of: value, at: walked) {
        value = next
        walked = walked.appending(key)
      } else {
        throw failure(
          "the $ref \(JSONSerializer.quote(ref)) names nothing in this file (\(place(walked)) has no \(JSONSerializer.quote(key)))",
          at: at)
      }
    }
    references.targets[ref] = (value, walked)
    return (value, walked)
  }

  /// The member `key` of `value` (at `path`); a large object's keys are put in a table once.
  private func member(_ key: String, of value: JSONValue, at path: JSONPath) -> JSONValue? {
    guard case .object(let object) = value else { return nil }
    guard object.count > 16 else { return object[key] }
    if references.keyIndexes[path] == nil { references.keyIndexes[path] = object.keyIndex }
    return references.keyIndexes[path]?[key].map { object.members[$0].value }
  }
}
