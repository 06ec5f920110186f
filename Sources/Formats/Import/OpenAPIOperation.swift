import RequestEngine
import Workspace

/// One operation of an OpenAPI description as a request: its parameters, URL, body, `Accept`
/// and auth (`OpenAPIImporter` says what each becomes).
extension OpenAPIImporter {
  /// A parameter as the request needs it.
  struct Parameter {
    var name: String
    var location: String
    var required: Bool
    var example: JSONValue?
    var path: JSONPath
  }

  /// The `parameters` of a path item or an operation, `$ref`s followed.
  static func parameters(_ object: JSONObject, at path: JSONPath, _ document: inout OpenAPIDocument)
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

  static func request(
    method: HTTPMethod, path: String, base: String, operation: JSONObject, at: JSONPath, shared: [Parameter], api: String,
    into imported: inout ImportedRequests, _ document: inout OpenAPIDocument
  ) throws(ImportError) -> ImportedRequest {
    let operationID = try document.string(operation, "operationId", at: at).map { $0.trimmingSpaces() }
    let key = operationID.flatMap { $0.isEmpty ? nil : $0 } ?? "\(method.rawValue) \(path)"
    let label = operationID.flatMap { $0.isEmpty ? nil : $0 } ?? "\(method.rawValue) \(path)"
    // The operation's parameters win over the path item's of the same name and place.
    var parameters = shared
    for parameter in try self.parameters(operation, at: at, &document) {
      parameters.removeAll { $0.name == parameter.name && $0.location == parameter.location }
      parameters.append(parameter)
    }

    var draft = RequestDraft()
    draft.method = method
    draft.url = base + (try urlPath(path, parameters: parameters, label: label, into: &imported, &document))
    var queryPairs: [(String, JSONValue)] = []
    var cookies = 0
    for parameter in parameters {
      // Sent as written: a `{{` in an example is text.
      let value = Template.literal(parameter.example.map(OpenAPIImporter.text) ?? "")
      switch parameter.location {
      case "query":
        let name = Template.literal(parameter.name)
        queryPairs.append((name, .string(value)))
        if !parameter.required { draft.switchedOff.set(query: name, off: true) }
      case "header":
        // OpenAPI ignores these three as parameters: the media types and security say them.
        if ["accept", "content-type", "authorization"].contains(parameter.name.lowercased()) { continue }
        guard WorkspaceReader.isValidHeaderName(parameter.name) else {
          document.note(
            "\(JSONSerializer.quote(parameter.name)) is not a valid header name; \(label) is imported without it", at: parameter.path)
          continue
        }
        if let found = LineBreaks.find(in: value) {
          document.note(
            "the example of the header \(parameter.name) contains \(found), which a header cannot send; \(label) has it empty",
            at: parameter.path)
          draft.headers[parameter.name] = ""
        } else {
          draft.headers[parameter.name] = value
        }
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
    if let accept = try acceptedTypes(operation, at: at, &document) { draft.headers["Accept"] = accept }
    let security = try document.security(of: operation, at: at)
    draft.auth = security.auth
    for header in security.headers { draft.headers[header.name] = header.value }
    for parameter in security.query { draft.query[Template.literal(parameter.name)] = .string(parameter.value) }
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
    return ImportedRequest(template: template, location: document.location(of: at))
  }

  /// Adds `variable` to the import's variables (its name not declared yet).
  static func declare(
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
      out += Template.literal(String(rest[..<open]))
      guard let close = rest[open...].firstIndex(of: "}") else { break }
      let name = String(rest[rest.index(after: open)..<close])
      let variable = OpenAPIDocument.variableName(name)
      out += "{{\(variable)}}"
      rest = rest[rest.index(after: close)...]
      let parameter = parameters.first { $0.name == name && $0.location == "path" }
      let value = parameter?.example.map { Template.literal(OpenAPIImporter.text($0)) }
      if let index = document.variablePlaces[variable] {
        if let value, imported.variables[index].value.isEmpty { imported.variables[index].value = value }
        continue
      }
      declare(Variable(name: variable, value: value ?? ""), in: &imported, &document)
      if value == nil {
        document.note("the path parameter \(name) (\(label)) has no example or default: set the variable \(variable)")
      }
    }
    return out + Template.literal(String(rest))
  }

  /// `Accept`: the media types of the operation's responses other than errors (`2XX` and `3XX`;
  /// else `default`), `$ref`s followed, each once; nil when they name none (or only `*/*`).
  private static func acceptedTypes(_ operation: JSONObject, at path: JSONPath, _ document: inout OpenAPIDocument)
    throws(ImportError) -> String?
  {
    guard let responses = document.member(operation, "responses") else { return nil }
    let responsesPath = path.appending("responses")
    let codes = try document.object(responses, at: responsesPath)
    var chosen = codes.members.filter { $0.key.hasPrefix("2") || $0.key.hasPrefix("3") }
    if chosen.isEmpty { chosen = codes.members.filter { $0.key == "default" } }
    var types: [String] = []
    for code in chosen {
      let (value, at) = try document.resolve(code.value, at: responsesPath.appending(code.key))
      let response = try document.object(value, at: at)
      guard let content = document.member(response, "content") else { continue }
      for type in try document.object(content, at: at.appending("content")).keys where !types.contains(type) {
        types.append(type)
      }
    }
    guard !types.isEmpty, types != ["*/*"] else { return nil }
    let accept = types.joined(separator: ", ")
    guard LineBreaks.find(in: accept) == nil else { return nil }
    return Template.literal(accept)
  }

  // MARK: - Bodies

  static func requestBody(
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
    // Sent as written: a `{{` in an example is text.
    let value = Template.literal(example ?? .null)
    let contentType = Template.literal(chosen)
    if type == "application/json" || type.hasSuffix("+json") {
      draft.body = .json(value)
      if type != "application/json" { draft.headers["Content-Type"] = contentType }
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
      let text = example.map { $0.stringValue ?? ($0 == .null ? "" : JSONSerializer.compact($0)) } ?? ""
      draft.body = .text(Template.literal(text), contentType: contentType)
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
