import Foundation
import RequestEngine
import Workspace

/// Reads an OpenAPI 3.0 or 3.1 description, or a Swagger 2.0 one (JSON or YAML), into request
/// templates, variables and environments.
///
/// ```swift
/// let imported = try OpenAPIImporter.parse(bytes, file: "petstore.yaml")
/// imported.templates.map(\.name)  // ["pets/listPets", "pets/createPets", "pets/showPetById"]
/// imported.templates[2].url        // "{{baseURL}}/pets/{{petId}}"
/// ```
/// - A Swagger 2.0 description is read as the OpenAPI 3 one it stands for
///   (`OpenAPISwagger2.swift`): what follows holds for both.
/// - One request per operation (`paths.*.get|put|post|delete|options|head|patch`), named by
///   `operationId` (else method and path, `get-pets-petId`), in a folder named by its first tag;
///   the operations of a folder are together, the folders in the order their first operations
///   have in the file (`grouped`); `tag` keeps only the operations with that tag.
/// - The URL is `{{baseURL}}` and the path, path parameters as `{{variables}}`, declared in
///   `variables` with their example or default (else empty, with a note); an operation whose own
///   servers (or its path's) are elsewhere has that server's URL written out. `servers` become
///   environments, each with its `baseURL` (server variables filled with their defaults), named
///   by the server's description, else its host; the first is also the workspace's `baseURL`
///   variable.
/// - Query and header parameters (the path item's and the operation's) with their examples:
///   the required ones sent, the optional ones present but switched off. Cookie parameters are
///   left out with a note. `Accept` lists the media types of the success responses.
/// - The body from the request body's preferred media type (`application/json` or `…+json`, then
///   a form, then multipart, then text): its `example` or first `examples` value, else a value
///   made from its schema (`OpenAPIExamples.swift`).
/// - Auth from `security` (`OpenAPISecurity.swift`), values as `{{secret.NAME}}`.
/// - Text from the description (examples, defaults, server URLs) is sent as written: a `{{` in
///   it is written as a literal (`Template.literal`), never taken for a placeholder.
/// - Each request records the operation it came from (`imported`, see `ImportOrigin`), so a
///   re-import updates it.
/// Errors name the value (`paths./pets.get.responses: expected an object`) and where it is. An
/// operation (or a path) that cannot be imported is left out with a warning naming it and why,
/// and the others are imported; when every one is refused, the first refusal is the error.
public enum OpenAPIImporter {
  public struct Options: Sendable, Equatable {
    /// Only the operations with this tag.
    public var tag: String?

    public init(tag: String? = nil) { self.tag = tag }
  }

  static let methods: [(key: String, method: HTTPMethod)] = [
    ("get", .GET), ("put", .PUT), ("post", .POST), ("delete", .DELETE), ("options", .OPTIONS), ("head", .HEAD),
    ("patch", .PATCH),
  ]

  public static func parse(_ bytes: [UInt8], file: String, options: Options = Options()) throws(ImportError)
    -> ImportedRequests
  {
    var document = try OpenAPIDocument(bytes: bytes, file: file)
    var root = try document.object(document.root, at: .root)
    if let swagger = root["swagger"] {
      let version = versionText(swagger)
      guard version == "2" || version.hasPrefix("2.") else {
        throw document.failure(
          "Swagger \(version) is not one reqbench imports; it reads Swagger 2.0 and OpenAPI 3.0 and 3.1",
          at: JSONPath.root.appending("swagger"))
      }
      try document.readSwagger2()
      root = try document.object(document.root, at: .root)
    } else {
      guard let given = root["openapi"], given != .null else {
        throw document.failure(
          "this is not an OpenAPI description (no \"openapi\" version); reqbench imports OpenAPI 3.0 and 3.1 and Swagger 2.0",
          at: .root)
      }
      let version = versionText(given)
      guard version.hasPrefix("3.") || version == "3" else {
        throw document.failure(
          "OpenAPI \(version) is not one reqbench imports; it reads 3.0 and 3.1 (and Swagger 2.0)",
          at: JSONPath.root.appending("openapi"))
      }
    }
    var title = Workspace.defaultName(for: file)
    if let info = root["info"]?.objectValue, let given = info["title"].map(text), !given.trimmingSpaces().isEmpty {
      title = given
    }

    var imported = ImportedRequests()
    imported.api = title
    let environments = try servers(root, &document)
    imported.environments = environments
    let baseURL = environments.first?.value(of: "baseURL") ?? ""
    declare(Variable(name: "baseURL", value: baseURL), in: &imported, &document)
    if environments.isEmpty {
      document.note("the description names no servers: set the variable baseURL to the API's address")
    }

    var operations = 0
    var tags = Set<String>()
    var firstRefusal: ImportError?
    if let paths = document.member(root, "paths") {
      let pathsPath = JSONPath.root.appending("paths")
      for entry in try document.object(paths, at: pathsPath).members {
        // `x-…` members are extensions, not paths.
        if entry.key.hasPrefix("x-") { continue }
        let itemPath = pathsPath.appending(entry.key)
        let item: JSONObject
        let resolvedItemPath: JSONPath
        var shared: [Parameter] = []
        do throws(ImportError) {
          guard entry.key.hasPrefix("/") else {
            throw document.failure("a path starts with /", at: itemPath)
          }
          let (itemValue, itemAt) = try document.resolve(entry.value, at: itemPath)
          item = try document.object(itemValue, at: itemAt)
          resolvedItemPath = itemAt
          // Swagger 2.0's are read with each operation's (a body parameter becomes its body).
          if !document.isSwagger2 { shared = try parameters(item, at: resolvedItemPath, &document) }
        } catch {
          firstRefusal = firstRefusal ?? error
          document.refuse(error, leftOut: "the path \(entry.key)")
          continue
        }
        for key in item.keys where key == "trace" {
          document.note("TRACE \(entry.key) is left out: reqbench does not send TRACE")
        }
        for (key, method) in methods {
          guard let value = document.member(item, key) else { continue }
          let written = resolvedItemPath.appending(key)
          operations += 1
          let label = "\(method.rawValue) \(entry.key)" + (value["operationId"]?.stringValue.map { " (\($0))" } ?? "")
          // A refused operation adds nothing: not the variables and secrets it had declared either
          // (counted, not copied: a copy of all the requests so far for each one is quadratic).
          let before = (variables: imported.variables.count, secrets: imported.secrets.count)
          do throws(ImportError) {
            // Bundlers write an operation as a `$ref` too (to another file, until bundled).
            let (resolved, at) = try document.resolve(value, at: written)
            var operation = try document.object(resolved, at: at)
            let operationTags = try document.array(operation, "tags", at: at)?.compactMap(\.stringValue) ?? []
            tags.formUnion(operationTags)
            if let tag = options.tag, !operationTags.contains(tag) { continue }
            if document.isSwagger2 {
              operation = try document.swagger2Operation(operation, item: item, itemPath: resolvedItemPath, at: at)
            }
            let base = try self.base(
              of: operation, at: at, item: item, itemPath: resolvedItemPath, documentURL: baseURL,
              &document)
            let request = try self.request(
              method: method, path: entry.key, base: base, operation: operation, at: at, shared: shared, api: title,
              into: &imported, &document)
            imported.requests.append(request)
          } catch {
            for variable in imported.variables[before.variables...] { document.variablePlaces[variable.name] = nil }
            imported.variables.removeSubrange(before.variables...)
            imported.secrets.removeSubrange(before.secrets...)
            firstRefusal = firstRefusal ?? error
            document.refuse(error, leftOut: label)
          }
        }
      }
    }
    if imported.requests.isEmpty, let firstRefusal { throw firstRefusal }
    if let tag = options.tag {
      imported.api = nil  // a part of the description: requests of other tags are not "gone"
      if imported.requests.isEmpty {
        throw document.failure(
          "no operation has the tag \(JSONSerializer.quote(tag))"
            + (tags.isEmpty ? " (the description has no tags)" : "; its tags: " + tags.sorted().joined(separator: ", ")),
          at: JSONPath.root.appending("paths"))
      }
    } else if operations == 0 {
      throw document.failure("the description has no operations (nothing under paths); nothing was imported", at: .root)
    }
    if let webhooks = root["webhooks"]?.objectValue, !webhooks.isEmpty {
      document.note("\(webhooks.count) webhook\(webhooks.count == 1 ? " is" : "s are") left out (the API calls them; they are not requests to it)")
    }
    imported.requests = grouped(imported.requests)
    imported.warnings = document.notes
    return imported
  }

  /// `openapi: 3.0.3`, or a version written as a number (`swagger: 2.0`, which YAML reads as one).
  private static func versionText(_ value: JSONValue) -> String {
    switch value {
    case .string(let text): text.trimmingSpaces()
    case .number(let literal): literal
    default: JSONSerializer.compact(value)
    }
  }

  /// The requests of each folder together, the folders in the order of their first request:
  /// operations of one tag apart in the file still make one folder. Inside a folder (and at the
  /// top), its own requests come together where the first of them was, its subfolders likewise.
  static func grouped(_ requests: [ImportedRequest]) -> [ImportedRequest] {
    final class Folder {
      /// Its own requests (as one entry, where the first was) and its subfolders, in order of
      /// first appearance: nil stands for its own requests.
      var entries: [Folder?] = []
      var own: [Int] = []
      var subfolders: [Substring: Folder] = [:]
    }
    let top = Folder()
    for (index, request) in requests.enumerated() {
      let name = request.template.name
      var folder = top
      if let slash = name.lastIndex(of: "/") {
        for segment in name[..<slash].split(separator: "/", omittingEmptySubsequences: false) {
          if let known = folder.subfolders[segment] {
            folder = known
          } else {
            let sub = Folder()
            folder.subfolders[segment] = sub
            folder.entries.append(sub)
            folder = sub
          }
        }
      }
      if folder.own.isEmpty { folder.entries.append(nil) }
      folder.own.append(index)
    }
    var out: [ImportedRequest] = []
    out.reserveCapacity(requests.count)
    // Depth first, without recursion: a stack of (folder, its next entry).
    var stack: [(Folder, Int)] = [(top, 0)]
    while let (folder, next) = stack.popLast() {
      guard next < folder.entries.count else { continue }
      stack.append((folder, next + 1))
      if let sub = folder.entries[next] {
        stack.append((sub, 0))
      } else {
        out.append(contentsOf: folder.own.map { requests[$0] })
      }
    }
    return out
  }

  // MARK: - Servers

  /// `servers` as environments: `baseURL` each, `{variables}` filled with their defaults. A
  /// server that cannot be read is left out with a note naming it.
  private static func servers(_ root: JSONObject, _ document: inout OpenAPIDocument) throws(ImportError) -> [Environment] {
    guard let list = try document.array(root, "servers", at: .root) else { return [] }
    var environments: [Environment] = []
    for (index, value) in list.enumerated() {
      let at = JSONPath.root.appending("servers").appending(index)
      let url: String
      do throws(ImportError) {
        url = try serverURL(value, at: at, &document)
      } catch {
        document.refuse(error, leftOut: "the server \(document.place(at))")
        continue
      }
      if !url.contains("://") {
        document.note(
          "the server \(JSONSerializer.quote(url.isEmpty ? "/" : url)) is relative to where the description is served; "
            + "write the API's absolute address in the variable baseURL")
      }
      var name = value["description"]?.stringValue.map(environmentName) ?? ""
      if name.isEmpty { name = environmentName(URLResolver.split(url).authority ?? "server") }
      if name.isEmpty { name = "server" }
      var unique = name
      var n = 2
      while environments.contains(where: { $0.name == unique }) {
        unique = "\(name)-\(n)"
        n += 1
      }
      environments.append(Environment(name: unique, variables: [Variable(name: "baseURL", value: Template.literal(url))]))
    }
    return environments
  }

  /// A server's URL, its `{variables}` filled with their defaults, without a trailing `/`.
  private static func serverURL(_ value: JSONValue, at path: JSONPath, _ document: inout OpenAPIDocument)
    throws(ImportError) -> String
  {
    let server = try document.object(value, at: path)
    guard var url = try document.string(server, "url", at: path) else {
      throw document.failure("a server needs a \"url\"", at: path)
    }
    if let variables = document.member(server, "variables") {
      for variable in try document.object(variables, at: path.appending("variables")).members {
        let variablePath = path.appending("variables").appending(variable.key)
        let object = try document.object(variable.value, at: variablePath)
        let value = (document.member(object, "default") ?? object["enum"]?.arrayValue?.first).map(text) ?? ""
        url = url.replacingOccurrences(of: "{\(variable.key)}", with: value)
      }
    }
    while url.hasSuffix("/") { url.removeLast() }
    return url
  }

  /// Where an operation's request goes: `{{baseURL}}`, unless the operation (else its path item)
  /// names servers of its own, the first of them absolute and not the document's first: then
  /// that server's URL, written out (an upload host beside the API's, say).
  static func base(
    of operation: JSONObject, at path: JSONPath, item: JSONObject, itemPath: JSONPath, documentURL: String?,
    _ document: inout OpenAPIDocument
  ) throws(ImportError) -> String {
    for (object, objectPath) in [(operation, path), (item, itemPath)] {
      guard let first = try document.array(object, "servers", at: objectPath)?.first else { continue }
      let url = Template.literal(try serverURL(first, at: objectPath.appending("servers").appending(0), &document))
      return url == documentURL || !url.contains("://") ? "{{baseURL}}" : url
    }
    return "{{baseURL}}"
  }

  /// A server's description or host as an environment name: lower case, words joined by `-`.
  static func environmentName(_ text: String) -> String {
    var out = ""
    for scalar in text.lowercased().unicodeScalars {
      if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "." || scalar == "_" {
        out.unicodeScalars.append(scalar)
      } else if !out.isEmpty, !out.hasSuffix("-") {
        out += "-"
      }
      if out.count >= 40 { break }
    }
    while out.hasSuffix("-") || out.hasSuffix(".") { out.removeLast() }
    return out
  }

  /// The folder of the first tag, then the operation's name.
  static func requestName(folder: String?, operationID: String?, method: HTTPMethod, path: String) -> String {
    let base: String
    if let operationID, !operationID.isEmpty {
      base = operationID.replacingOccurrences(of: "/", with: "-")
    } else {
      let words = path.split(separator: "/").map { $0.replacingOccurrences(of: "{", with: "").replacingOccurrences(of: "}", with: "") }
      base = ([method.rawValue.lowercased()] + words.filter { !$0.isEmpty }).joined(separator: "-")
    }
    let segments = (folder ?? "").split(separator: "/").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
    return (segments + [base.trimmingSpaces()]).joined(separator: "/")
  }

  /// A parameter or form value as text: a string as it is, a number or boolean as written, a
  /// list joined by `,` (OpenAPI's default `form` style), anything else as compact JSON.
  static func text(_ value: JSONValue) -> String {
    switch value {
    case .string(let s): s
    case .number(let n): n
    case .bool(let b): b ? "true" : "false"
    case .null: ""
    case .array(let items) where items.allSatisfy({ $0.objectValue == nil && $0.arrayValue == nil }):
      items.map(text).joined(separator: ",")
    default: JSONSerializer.compact(value)
    }
  }
}
