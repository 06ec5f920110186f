import Foundation
import RequestEngine

/// Reads an OpenAPI 3.0 or 3.1 description (JSON or YAML) into request templates, variables and
/// environments.
///
/// ```swift
/// let imported = try OpenAPIImporter.parse(bytes, file: "petstore.yaml")
/// imported.templates.map(\.name)  // ["pets/listPets", "pets/createPets", "pets/showPetById"]
/// imported.templates[2].url        // "{{baseURL}}/pets/{{petId}}"
/// ```
/// - One request per operation (`paths.*.get|put|post|delete|options|head|patch`), in the file's
///   order, named by `operationId` (else method and path, `get-pets-petId`), in a folder named
///   by its first tag; `tag` keeps only the operations with that tag.
/// - The URL is `{{baseURL}}` and the path, path parameters as `{{variables}}`, declared in
///   `variables` with their example or default (else empty, with a note). `servers` become
///   environments, each with its `baseURL` (server variables filled with their defaults), named
///   by the server's description, else its host; the first is also the workspace's `baseURL`
///   variable.
/// - Query and header parameters (the path item's and the operation's) with their examples:
///   the required ones sent, the optional ones present but switched off. Cookie parameters are
///   left out with a note.
/// - The body from the request body's preferred media type (`application/json` or `…+json`, then
///   a form, then multipart, then text): its `example` or first `examples` value, else a value
///   made from its schema (`OpenAPIExamples.swift`).
/// - Auth from `security` (`OpenAPISecurity.swift`), values as `{{secret.NAME}}`.
/// - Each request records the operation it came from (`imported`, see `ImportOrigin`), so a
///   re-import updates it.
/// Errors name the value (`paths./pets.get.responses: expected an object`) and where it is.
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
    let root = try document.object(document.root, at: .root)
    if root["swagger"] != nil {
      throw document.failure(
        "this is a Swagger 2.0 description; reqbench imports OpenAPI 3.0 and 3.1: convert it first (e.g. with swagger2openapi)",
        at: JSONPath.root.appending("swagger"))
    }
    guard let version = try document.string(root, "openapi", at: .root) else {
      throw document.failure("this is not an OpenAPI description (no \"openapi\" version); reqbench imports OpenAPI 3.0 and 3.1", at: .root)
    }
    guard version.hasPrefix("3.") else {
      throw document.failure(
        "OpenAPI \(version) is not one reqbench imports; it reads 3.0 and 3.1", at: JSONPath.root.appending("openapi"))
    }
    var title = Workspace.defaultName(for: file)
    if let info = document.member(root, "info") {
      let infoPath = JSONPath.root.appending("info")
      if let given = try document.string(try document.object(info, at: infoPath), "title", at: infoPath), !given.isEmpty {
        title = given
      }
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
    if let paths = document.member(root, "paths") {
      let pathsPath = JSONPath.root.appending("paths")
      for entry in try document.object(paths, at: pathsPath).members {
        let itemPath = pathsPath.appending(entry.key)
        guard entry.key.hasPrefix("/") else {
          throw document.failure("a path starts with /", at: itemPath)
        }
        let (itemValue, resolvedItemPath) = try document.resolve(entry.value, at: itemPath)
        let item = try document.object(itemValue, at: resolvedItemPath)
        let shared = try parameters(item, at: resolvedItemPath, &document)
        for key in item.keys where key == "trace" {
          document.note("TRACE \(entry.key) is left out: reqbench does not send TRACE")
        }
        for (key, method) in methods {
          guard let value = document.member(item, key) else { continue }
          let at = resolvedItemPath.appending(key)
          let operation = try document.object(value, at: at)
          operations += 1
          let operationTags = try document.array(operation, "tags", at: at)?.compactMap(\.stringValue) ?? []
          tags.formUnion(operationTags)
          if let tag = options.tag, !operationTags.contains(tag) { continue }
          let request = try self.request(
            method: method, path: entry.key, operation: operation, at: at, shared: shared, api: title,
            into: &imported, &document)
          imported.requests.append(request)
        }
      }
    }
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
    imported.warnings = document.notes.map { "\(file): \($0)" }
    return imported
  }

  // MARK: - Servers

  /// `servers` as environments: `baseURL` each, `{variables}` filled with their defaults.
  private static func servers(_ root: JSONObject, _ document: inout OpenAPIDocument) throws(ImportError) -> [Environment] {
    guard let list = try document.array(root, "servers", at: .root) else { return [] }
    var environments: [Environment] = []
    for (index, value) in list.enumerated() {
      let at = JSONPath.root.appending("servers").appending(index)
      let server = try document.object(value, at: at)
      guard var url = try document.string(server, "url", at: at) else {
        throw document.failure("a server needs a \"url\"", at: at)
      }
      if let variables = document.member(server, "variables") {
        for variable in try document.object(variables, at: at.appending("variables")).members {
          let variablePath = at.appending("variables").appending(variable.key)
          let object = try document.object(variable.value, at: variablePath)
          let value = try document.string(object, "default", at: variablePath)
            ?? object["enum"]?.arrayValue?.first?.stringValue ?? ""
          url = url.replacingOccurrences(of: "{\(variable.key)}", with: value)
        }
      }
      while url.hasSuffix("/") { url.removeLast() }
      if !url.contains("://") {
        document.note(
          "the server \(JSONSerializer.quote(url.isEmpty ? "/" : url)) is relative to where the description is served; "
            + "write the API's absolute address in the variable baseURL")
      }
      var name = server["description"]?.stringValue.map(environmentName) ?? ""
      if name.isEmpty { name = environmentName(URLResolver.split(url).authority ?? "server") }
      if name.isEmpty { name = "server" }
      var unique = name
      var n = 2
      while environments.contains(where: { $0.name == unique }) {
        unique = "\(name)-\(n)"
        n += 1
      }
      environments.append(Environment(name: unique, variables: [Variable(name: "baseURL", value: url)]))
    }
    return environments
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

  // MARK: - Operations

  /// A parameter as the request needs it.
  struct Parameter {
    var name: String
    var location: String
    var required: Bool
    var example: JSONValue?
    var path: JSONPath
  }

  /// The `parameters` of a path item or an operation, `$ref`s followed.
  private static func parameters(_ object: JSONObject, at path: JSONPath, _ document: inout OpenAPIDocument)
    throws(ImportError) -> [Parameter]
  {
    guard let list = try document.array(object, "parameters", at: path) else { return [] }
    var out: [Parameter] = []
    for (index, value) in list.enumerated() {
      let (resolved, at) = try document.resolve(value, at: path.appending("parameters").appending(index))
      let parameter = try document.object(resolved, at: at)
      guard let name = try document.string(parameter, "name", at: at), !name.isEmpty else {
        throw document.failure("a parameter needs a \"name\"", at: at)
      }
      guard let location = try document.string(parameter, "in", at: at) else {
        throw document.failure("the parameter \(JSONSerializer.quote(name)) needs \"in\" (path, query, header or cookie)", at: at)
      }
      guard ["path", "query", "header", "cookie"].contains(location) else {
        throw document.failure(
          "a parameter is in \"path\", \"query\", \"header\" or \"cookie\", not \(JSONSerializer.quote(location))",
          at: at.appending("in"))
      }
      let required = parameter["required"]?.boolValue ?? (location == "path")
      let example = try document.givenExample(parameter, at: at)
      out.append(Parameter(name: name, location: location, required: required, example: example, path: at))
    }
    return out
  }

  private static func request(
    method: HTTPMethod, path: String, operation: JSONObject, at: JSONPath, shared: [Parameter], api: String,
    into imported: inout ImportedRequests, _ document: inout OpenAPIDocument
  ) throws(ImportError) -> ImportedRequest {
    let operationID = try document.string(operation, "operationId", at: at).map { $0.trimmingSpaces() }
    let key = operationID.flatMap { $0.isEmpty ? nil : $0 } ?? "\(method.rawValue) \(path)"
    let label = operationID.flatMap { $0.isEmpty ? nil : $0 } ?? "\(method.rawValue) \(path)"
    if let responses = document.member(operation, "responses") {
      _ = try document.object(responses, at: at.appending("responses"))
    }
    // The operation's parameters win over the path item's of the same name and place.
    var parameters = shared
    for parameter in try self.parameters(operation, at: at, &document) {
      parameters.removeAll { $0.name == parameter.name && $0.location == parameter.location }
      parameters.append(parameter)
    }

    var draft = RequestDraft()
    draft.method = method
    draft.url = "{{baseURL}}" + (try urlPath(path, parameters: parameters, label: label, into: &imported, &document))
    var queryPairs: [(String, JSONValue)] = []
    var cookies = 0
    for parameter in parameters {
      let value = parameter.example.map(OpenAPIImporter.text) ?? ""
      switch parameter.location {
      case "query":
        queryPairs.append((parameter.name, .string(value)))
        if !parameter.required { draft.switchedOff.set(query: parameter.name, off: true) }
      case "header":
        // OpenAPI ignores these three as parameters: the media types and security say them.
        if ["accept", "content-type", "authorization"].contains(parameter.name.lowercased()) { continue }
        draft.headers[parameter.name] = value
        if !parameter.required { draft.switchedOff.set(header: parameter.name, off: true) }
      case "cookie": cookies += 1
      default: break
      }
    }
    draft.query = JSONObject(queryPairs.map { (key: $0.0, value: $0.1) })
    if cookies > 0 {
      document.note("cookie parameters are left out (\(label) has \(cookies)); the cookie jar sends the server's cookies")
    }
    if let body = document.member(operation, "requestBody") {
      if method == .GET || method == .HEAD {
        document.note("\(label): a \(method.rawValue) request sends no body; its requestBody is left out")
      } else {
        try requestBody(body, at: at.appending("requestBody"), label: label, into: &draft, &document)
      }
    }
    let security = try document.security(of: operation, at: at)
    draft.auth = security.auth
    for header in security.headers { draft.headers[header.name] = header.value }
    for parameter in security.query { draft.query[parameter.name] = .string(parameter.value) }
    for secret in security.secrets where !imported.secrets.contains(secret) { imported.secrets.append(secret) }
    for variable in security.variables where document.variablePlaces[variable] == nil {
      declare(Variable(name: variable, value: ""), in: &imported, &document)
      document.note("set the variable \(variable) (the user name of \(label)'s auth)")
    }

    let tags = try document.array(operation, "tags", at: at)?.compactMap(\.stringValue) ?? []
    let name = requestName(folder: tags.first, operationID: operationID, method: method, path: path)
    var template = draft.template(name: name)
    template.imported = ImportOrigin(api: api, operation: key)
    if let problem = RequestDraft.problem(in: template) {
      throw document.failure("\(label) would not load in a workspace: \(problem)", at: at)
    }
    return ImportedRequest(template: template, location: document.document.location(of: at))
  }

  /// Adds `variable` to the import's variables (its name not declared yet).
  private static func declare(
    _ variable: Variable, in imported: inout ImportedRequests, _ document: inout OpenAPIDocument
  ) {
    document.variablePlaces[variable.name] = imported.variables.count
    imported.variables.append(variable)
  }

  /// `/pets/{petId}` as `/pets/{{petId}}`, each path parameter declared as a variable.
  private static func urlPath(
    _ path: String, parameters: [Parameter], label: String, into imported: inout ImportedRequests,
    _ document: inout OpenAPIDocument
  ) throws(ImportError) -> String {
    var out = ""
    var rest = Substring(path)
    while let open = rest.firstIndex(of: "{") {
      out += rest[..<open]
      guard let close = rest[open...].firstIndex(of: "}") else {
        out += rest[open...]
        rest = ""
        break
      }
      let name = String(rest[rest.index(after: open)..<close])
      let variable = OpenAPIDocument.variableName(name)
      out += "{{\(variable)}}"
      rest = rest[rest.index(after: close)...]
      let parameter = parameters.first { $0.name == name && $0.location == "path" }
      let value = parameter?.example.map(OpenAPIImporter.text)
      if let index = document.variablePlaces[variable] {
        if let value, imported.variables[index].value.isEmpty { imported.variables[index].value = value }
        continue
      }
      declare(Variable(name: variable, value: value ?? ""), in: &imported, &document)
      if value == nil {
        document.note("the path parameter \(name) (\(label)) has no example or default: set the variable \(variable)")
      }
    }
    return out + rest
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

  // MARK: - Bodies

  private static func requestBody(
    _ value: JSONValue, at path: JSONPath, label: String, into draft: inout RequestDraft,
    _ document: inout OpenAPIDocument
  ) throws(ImportError) {
    let (resolved, at) = try document.resolve(value, at: path)
    let body = try document.object(resolved, at: at)
    guard let content = document.member(body, "content") else { return }
    let media = try document.object(content, at: at.appending("content"))
    let types = media.keys
    func find(_ match: (String) -> Bool) -> String? { types.first { match(RequestDraft.mediaType($0)) } }
    guard
      let chosen = find({ $0 == "application/json" || $0.hasSuffix("+json") })
        ?? find({ $0 == RequestDraft.formType }) ?? find({ $0 == "multipart/form-data" }) ?? types.first
    else { return }
    let mediaPath = at.appending("content").appending(chosen)
    let mediaObject = try document.object(media[chosen] ?? .null, at: mediaPath)
    var example = try document.givenExample(mediaObject, at: mediaPath)
    if example == nil, let schema = document.member(mediaObject, "schema") {
      example = try document.example(schema: schema, at: mediaPath.appending("schema"))
    }
    let type = RequestDraft.mediaType(chosen)
    let value = example ?? .null
    if type == "application/json" || type.hasSuffix("+json") {
      draft.body = .json(value)
      if type != "application/json" { draft.headers["Content-Type"] = chosen }
    } else if type == RequestDraft.formType {
      let fields = value.objectValue?.members.map { (key: $0.key, value: JSONValue.string(text($0.value))) } ?? []
      draft.body = .form(JSONObject(fields))
    } else if type == "multipart/form-data" {
      var parts: [MultipartField] = []
      for member in value.objectValue?.members ?? [] {
        parts.append(MultipartField(name: member.key, value: text(member.value)))
      }
      draft.body = .multipart(parts)
      if try hasBinaryPart(mediaObject, at: mediaPath, &document) {
        document.note("\(label): a multipart part is a file; give it a \"file\" path in the request")
      }
    } else if type.hasPrefix("text/") || type.hasSuffix("/xml") || type.hasSuffix("+xml") {
      draft.body = .text(value.stringValue ?? (value == .null ? "" : JSONSerializer.compact(value)), contentType: chosen)
    } else {
      document.note("\(label): a \(chosen) body is left out; give it a \"file\" body")
    }
  }

  private static func hasBinaryPart(_ media: JSONObject, at path: JSONPath, _ document: inout OpenAPIDocument) throws(ImportError) -> Bool {
    guard let schema = media["schema"] else { return false }
    let (resolved, _) = try document.resolve(schema, at: path.appending("schema"))
    return resolved["properties"]?.objectValue?.members.contains { $0.value["format"]?.stringValue == "binary" } ?? false
  }
}
