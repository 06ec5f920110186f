import Digest
import RequestEngine

/// Where an imported request came from, so importing the same description again updates it
/// instead of adding a copy: the request's `imported` key.
///
/// ```json
/// "imported": {"openapi": "Swagger Petstore", "operation": "listPets",
///              "fields": {"method": "5c1f0a3e9b2d", "url": "0d4e…", "query": "…"}}
/// ```
/// - `openapi`: the description's `info.title`; `operation`: its `operationId`, else
///   `METHOD /path`. Together they name the operation the request was made from.
/// - `fields`: for each field the import sets (`ImportOrigin.fields`), a digest of the value it
///   wrote last; a field it left empty (no query, no auth…) is not listed. A re-import compares: a field that still holds what the import wrote takes the
///   description's new value; one that differs was edited by the user and keeps the user's value.
public struct ImportOrigin: Sendable, Equatable {
  /// The description's title (`info.title`).
  public var api: String
  /// The operation's `operationId`, else `METHOD /path`.
  public var operation: String
  /// Field name → digest of the value the import last wrote (see `digest(of:_:)`).
  public var fields: [(field: String, digest: String)]

  public init(api: String, operation: String, fields: [(field: String, digest: String)] = []) {
    self.api = api
    self.operation = operation
    self.fields = fields
  }

  public static func == (a: ImportOrigin, b: ImportOrigin) -> Bool {
    a.api == b.api && a.operation == b.operation
      && a.fields.elementsEqual(b.fields, by: { $0.field == $1.field && $0.digest == $1.digest })
  }

  /// The same operation of the same description.
  public func names(sameOperationAs other: ImportOrigin) -> Bool {
    api == other.api && operation == other.operation
  }

  public func digest(of field: String) -> String? { fields.first { $0.field == field }?.digest }

  /// The digest of a field an import leaves empty (`null` in the file): not written.
  public static let emptyDigest = digest(of: "auth", RequestTemplate(name: "x", url: ""))

  /// The fields an import sets, in the order a report names them.
  public static let fields = ["method", "url", "query", "headers", "body", "auth"]

  /// A digest of `field` of `template` as a new file would write it (its spelling in the file
  /// does not count): the first 12 hex digits of the SHA-256 of its compact JSON.
  public static func digest(of field: String, _ template: RequestTemplate) -> String {
    digests(of: template)[ImportOrigin.fields.firstIndex(of: field) ?? 0]
  }

  /// `digest(of:_:)` of each of `fields`, in order, from one template written once (each field
  /// is written on its own, so they are the same as one at a time).
  public static func digests(of template: RequestTemplate) -> [String] {
    var fresh = RequestTemplate(name: "x", url: "")
    for field in fields { fresh.copy(field, from: template) }
    let json = fresh.json
    return fields.map { String(SHA256.hex(Array(JSONSerializer.compact(json[$0] ?? .null).utf8)).prefix(12)) }
  }

  var json: JSONValue {
    var object = JSONObject([(key: "openapi", value: .string(api)), (key: "operation", value: .string(operation))])
    if !fields.isEmpty {
      object["fields"] = .object(JSONObject(fields.map { (key: $0.field, value: .string($0.digest)) }))
    }
    return .object(object)
  }
}

extension RequestTemplate {
  /// Sets `field` (one of `ImportOrigin.fields`) to `other`'s value.
  package mutating func copy(_ field: String, from other: RequestTemplate) {
    switch field {
    case "method": method = other.method
    case "url": url = other.url
    case "query":
      query = other.query
      for key in switchedOff.query { switchedOff.set(query: key, off: false) }
      for key in other.switchedOff.query { switchedOff.set(query: key, off: true) }
    case "headers":
      headers = other.headers
      for name in switchedOff.headers { switchedOff.set(header: name, off: false) }
      for name in other.switchedOff.headers { switchedOff.set(header: name, off: true) }
    case "body": body = other.body
    case "auth": auth = other.auth
    default: break
    }
  }
}

extension WorkspaceReader {
  /// A request's `imported` object (see `ImportOrigin`).
  mutating func importOrigin(_ value: JSONValue, _ path: ReaderPath) -> ImportOrigin? {
    guard let object = object(value, path) else { return nil }
    var origin = ImportOrigin(api: "", operation: "")
    let ok = clean { r in
      for member in object.members {
        let at = path.appending(member.key)
        switch member.key {
        case "openapi": if let text = r.string(member.value, at) { origin.api = text }
        case "operation": if let text = r.nonEmptyString(member.value, at) { origin.operation = text }
        case "fields":
          guard let fields = r.object(member.value, at) else { continue }
          for field in fields.members {
            if let digest = r.string(field.value, at.appending(field.key)) { origin.fields.append((field.key, digest)) }
          }
        default: r.fail(at, "unknown import setting; use openapi, operation and fields")
        }
      }
      if object["openapi"] == nil || object["operation"] == nil {
        r.fail(path, "\"imported\" needs \"openapi\" and \"operation\" (written by reqbench import openapi)")
      }
    }
    return ok ? origin : nil
  }
}
