import RequestEngine
import Workspace

/// Example values for an OpenAPI import: a request body from the first `example` or `examples`
/// of its media type, else one made from the schema.
///
/// A schema becomes a value by, in order: its own `example` (3.0) or first `examples` item
/// (3.1), `const`, `default`, the first `enum` value; `allOf` merges its parts' objects,
/// `oneOf` and `anyOf` take the first; then by `type` (3.1's `["string", "null"]` takes the
/// first that is not `null`): an object holds its `required` properties (all of them when the
/// schema lists none as required), an array one item, a string an example of its `format`
/// (`date-time`, `date`, `email`, `uuid`, `uri`, `ipv4`…) or `"string"`, a number its `minimum`
/// or 0, a boolean `false`. `$ref`s within the file are followed; a schema that refers back to
/// itself (a tree's `children`) is cut where it would repeat, with a note.
extension OpenAPIDocument {
  /// How deep a made-up value may nest, whatever the schema says.
  static let maxExampleDepth = 24

  /// The value `schema` (at `path`) describes.
  mutating func example(schema: JSONValue, at path: JSONPath) throws(ImportError) -> JSONValue {
    var stack: [String] = []
    return try example(schema, at: path, stack: &stack, depth: 0) ?? .null
  }

  /// nil when the schema was cut (a cycle, too deep): the caller leaves the property or item out.
  private mutating func example(
    _ schema: JSONValue, at path: JSONPath, stack: inout [String], depth: Int
  ) throws(ImportError) -> JSONValue? {
    if depth > OpenAPIDocument.maxExampleDepth {
      note("a schema nests deeper than \(OpenAPIDocument.maxExampleDepth) levels at \(place(path)); the example stops there")
      return nil
    }
    if let ref = schema["$ref"]?.stringValue {
      if stack.contains(ref) {
        note("the schema \(ref) refers back to itself (\((stack + [ref]).joined(separator: " → "))); the example is cut where it repeats")
        return nil
      }
      let target = try referenced(ref, from: path)
      stack.append(ref)
      defer { stack.removeLast() }
      return try example(target.value, at: target.path, stack: &stack, depth: depth + 1)
    }
    if schema == .bool(true) || schema == .object(JSONObject()) { return .string("") }
    let object = try self.object(schema, at: path)
    if let value = member(object, "example") { return value }
    if let first = member(object, "examples")?.arrayValue?.first { return first }
    if let value = object["const"] { return value }
    if let value = member(object, "default") { return value }
    if let first = member(object, "enum")?.arrayValue?.first { return first }
    if let parts = member(object, "allOf")?.arrayValue {
      var merged = JSONObject()
      var other: JSONValue?
      for (i, part) in parts.enumerated() {
        guard let value = try example(part, at: path.appending("allOf").appending(i), stack: &stack, depth: depth + 1) else {
          continue
        }
        if let members = value.objectValue?.members {
          for member in members { merged[member.key] = member.value }
        } else {
          other = value
        }
      }
      if !merged.isEmpty || other == nil {
        // The object's own properties beside allOf (`allOf: [...]`, `properties: {...}`).
        if let own = try properties(object, at: path, stack: &stack, depth: depth)?.objectValue {
          for member in own.members { merged[member.key] = member.value }
        }
        return .object(merged)
      }
      return other
    }
    for key in ["oneOf", "anyOf"] {
      if let first = member(object, key)?.arrayValue?.first {
        return try example(first, at: path.appending(key).appending(0), stack: &stack, depth: depth + 1)
      }
    }
    switch schemaType(object) {
    case "object": return try properties(object, at: path, stack: &stack, depth: depth) ?? .object(JSONObject())
    case "array":
      guard let items = member(object, "items") else { return .array([]) }
      let item = try example(items, at: path.appending("items"), stack: &stack, depth: depth + 1)
      return .array(item.map { [$0] } ?? [])
    case "integer", "number":
      if let minimum = member(object, "minimum"), case .number = minimum { return minimum }
      return .number(0)
    case "boolean": return .bool(false)
    case "null": return .null
    case "string": return .string(OpenAPIDocument.example(format: object["format"]?.stringValue))
    default: return .string("")
    }
  }

  /// The schema's type: `type` (the first that is not `null` of a 3.1 list), else `object` when
  /// it has `properties`, `array` when it has `items`.
  private func schemaType(_ schema: JSONObject) -> String? {
    if let type = schema["type"]?.stringValue { return type }
    if let types = schema["type"]?.arrayValue?.compactMap(\.stringValue) {
      return types.first { $0 != "null" } ?? types.first
    }
    if schema["properties"] != nil || schema["additionalProperties"] != nil { return "object" }
    if schema["items"] != nil { return "array" }
    return nil
  }

  /// The object of `properties`: the required ones, or all when none is marked required.
  private mutating func properties(
    _ schema: JSONObject, at path: JSONPath, stack: inout [String], depth: Int
  ) throws(ImportError) -> JSONValue? {
    guard let properties = member(schema, "properties") else { return nil }
    let members = try object(properties, at: path.appending("properties")).members
    let required = Set(member(schema, "required")?.arrayValue?.compactMap(\.stringValue) ?? [])
    var out = JSONObject()
    for property in members where required.isEmpty || required.contains(property.key) {
      let at = path.appending("properties").appending(property.key)
      if property.value["readOnly"] == .bool(true) { continue }
      if let value = try example(property.value, at: at, stack: &stack, depth: depth + 1) {
        out[property.key] = value
      }
    }
    return .object(out)
  }

  static func example(format: String?) -> String {
    switch format {
    case "date-time": "2024-01-01T00:00:00Z"
    case "date": "2024-01-01"
    case "time": "00:00:00Z"
    case "email": "user@example.com"
    case "uuid": "00000000-0000-0000-0000-000000000000"
    case "uri", "url": "https://example.com/"
    case "hostname": "example.com"
    case "ipv4": "192.0.2.1"
    case "ipv6": "2001:db8::1"
    case "byte", "binary", "password": ""
    default: "string"
    }
  }

  /// The first example a parameter or media type gives: `example`, else the first of `examples`
  /// (its `value`, a `$ref` to `components.examples` followed), else its schema's `example`,
  /// `default` or first `enum` value. nil when there is none.
  mutating func givenExample(_ object: JSONObject, at path: JSONPath) throws(ImportError) -> JSONValue? {
    if let value = object["example"] { return value }
    if let examples = member(object, "examples")?.objectValue, let first = examples.members.first {
      let (resolved, resolvedPath) = try resolve(first.value, at: path.appending("examples").appending(first.key))
      if let value = try self.object(resolved, at: resolvedPath)["value"] { return value }
      if resolved["externalValue"] != nil {
        note("an example given only as externalValue is not fetched (\(place(resolvedPath)))")
      }
    }
    guard let schema = member(object, "schema") else { return nil }
    let (resolved, _) = try resolve(schema, at: path.appending("schema"))
    for key in ["example", "default"] {
      if let value = resolved[key], value != .null { return value }
    }
    if let first = resolved["examples"]?.arrayValue?.first { return first }
    return resolved["enum"]?.arrayValue?.first
  }
}
