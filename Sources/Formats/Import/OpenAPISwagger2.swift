import RequestEngine
import Workspace

/// A Swagger 2.0 description read as the OpenAPI 3 one it stands for, so one importer reads both
/// (the conversion swagger2openapi makes, of the parts an import uses):
///
/// - `schemes`, `host` and `basePath` become `servers`, one a scheme (`http`, `https`; `https`
///   when none is named), named by the host, and by the host and the scheme when there are several;
/// - `securityDefinitions` become `components.securitySchemes`: `basic` is `http` basic, `apiKey`
///   stays, `oauth2`'s `flow` becomes the `flows` entry of the same grant (`accessCode` is
///   `authorizationCode`, `application` `clientCredentials`, `password` and `implicit` stay);
/// - in each operation, the parameters of its path and its own (theirs winning) are split: a
///   `body` parameter becomes the `requestBody`, its schema under each type the operation
///   `consumes` (the document's when it names none, else `application/json`); `formData`
///   parameters become a `requestBody` whose schema has a property each (`type: file` a binary
///   string), `multipart/form-data` when `consumes` names it or a parameter is a file, else
///   `application/x-www-form-urlencoded`; path, query and header parameters get their `type`,
///   `format`, `items`, `enum`, `default`… as a `schema` (`x-example` as their example, an array
///   default or example of `collectionFormat` `ssv`, `tsv` or `pipes` joined by its separator);
/// - each response gets `content`: the types the operation `produces` (the document's when it
///   names none), the response's `schema` under each.
///
/// `$ref`s into `definitions` stay as they are (the description keeps them where they are);
/// those into `parameters` and `responses` are followed here. Each value placed elsewhere keeps
/// where it is in the file (`OpenAPIDocument.origins`), so errors point into the file as written.
extension OpenAPIDocument {
  /// Reads the Swagger 2.0 document's servers and security schemes as OpenAPI 3's; operations
  /// are read one at a time (`swagger2Operation`), so one that cannot be read is left out alone.
  mutating func readSwagger2() throws(ImportError) {
    let source = try object(root, at: .root)
    isSwagger2 = true
    var converted = source
    converted["servers"] = .array(try swagger2Servers(source))
    if let definitions = member(source, "securityDefinitions") {
      let definitionsPath = JSONPath.root.appending("securityDefinitions")
      var schemes = JSONObject()
      let schemesPath = JSONPath.root.appending("components").appending("securitySchemes")
      for scheme in try object(definitions, at: definitionsPath).members {
        schemes[scheme.key] = swagger2Scheme(scheme.value)
        origins[schemesPath.appending(scheme.key)] = definitionsPath.appending(scheme.key)
        // The flow's URLs are the scheme's own in Swagger 2.0.
        if case .object(let flows)? = schemes[scheme.key]?["flows"], let flow = flows.keys.first {
          origins[schemesPath.appending(scheme.key).appending("flows").appending(flow)] = definitionsPath.appending(scheme.key)
        }
      }
      var components = converted["components"]?.objectValue ?? JSONObject()
      components["securitySchemes"] = .object(schemes)
      converted["components"] = .object(components)
    }
    read(.object(converted))
  }

  /// One server a scheme, `https://host/basePath`.
  private mutating func swagger2Servers(_ source: JSONObject) throws(ImportError) -> [JSONValue] {
    let host = try string(source, "host", at: .root)
    var basePath = try string(source, "basePath", at: .root) ?? ""
    if !basePath.isEmpty, !basePath.hasPrefix("/") { basePath = "/" + basePath }
    guard let host, !host.isEmpty else {
      // No host: the API is where the description is served.
      return [.object(JSONObject([("url", .string(basePath))]))]
    }
    let written = try array(source, "schemes", at: .root)?.compactMap(\.stringValue) ?? []
    let schemes = written.map { $0.lowercased() }.filter { $0 == "http" || $0 == "https" }
    for other in written where !["http", "https"].contains(other.lowercased()) {
      note("the scheme \(other) is not one reqbench sends (http, https); no environment for it")
    }
    let used = schemes.isEmpty ? ["https"] : schemes
    return used.enumerated().map { index, scheme in
      var server = JSONObject([("url", .string("\(scheme)://\(host)\(basePath)"))])
      if used.count > 1 { server["description"] = .string("\(host) \(scheme)") }
      origins[JSONPath.root.appending("servers").appending(index)] = JSONPath.root.appending("host")
      return .object(server)
    }
  }

  /// A `securityDefinitions` entry as the security scheme of OpenAPI 3 it stands for; one that
  /// is not an object, or of an unknown type, stays as it is (its use says what is wrong).
  private func swagger2Scheme(_ value: JSONValue) -> JSONValue {
    guard let scheme = value.objectValue, let type = scheme["type"]?.stringValue else { return value }
    switch type {
    case "basic":
      return .object(JSONObject([("type", "http"), ("scheme", "basic")]))
    case "oauth2":
      let grants = ["implicit": "implicit", "password": "password", "application": "clientCredentials", "accessCode": "authorizationCode"]
      var flow = JSONObject()
      for key in ["authorizationUrl", "tokenUrl", "scopes"] { flow[key] = scheme[key] }
      var flows = JSONObject()
      if let name = scheme["flow"]?.stringValue, let grant = grants[name] { flows[grant] = .object(flow) }
      return .object(JSONObject([("type", "oauth2"), ("flows", .object(flows))]))
    default:
      return value
    }
  }

  /// The operation at `path` (`operation`; `item` its path item, at `itemPath`) as an OpenAPI 3
  /// operation: parameters, request body and responses as the type's comment says.
  mutating func swagger2Operation(
    _ operation: JSONObject, item: JSONObject, itemPath: JSONPath, at path: JSONPath
  ) throws(ImportError) -> JSONObject {
    let source = root.objectValue ?? JSONObject()
    // The path item's parameters, then the operation's: one of the same name and place wins.
    var parameters: [(object: JSONObject, path: JSONPath)] = []
    for (list, listPath) in [(item, itemPath), (operation, path)] {
      for (index, value) in (try array(list, "parameters", at: listPath) ?? []).enumerated() {
        let (resolved, at) = try resolve(value, at: listPath.appending("parameters").appending(index))
        let parameter = try object(resolved, at: at)
        let key = (parameter["name"]?.stringValue, parameter["in"]?.stringValue)
        parameters.removeAll { $0.object["name"]?.stringValue == key.0 && $0.object["in"]?.stringValue == key.1 }
        parameters.append((parameter, at))
      }
    }
    var converted = operation
    var kept: [JSONValue] = []
    var body: (object: JSONObject, path: JSONPath)?
    var form: [(object: JSONObject, path: JSONPath)] = []
    for parameter in parameters {
      switch parameter.object["in"]?.stringValue {
      case "body":
        if let body {
          note("\(place(parameter.path)): a second body parameter (the first is \(place(body.path))) is left out")
        } else {
          body = parameter
        }
      case "formData": form.append(parameter)
      default:
        origins[path.appending("parameters").appending(kept.count)] = parameter.path
        kept.append(.object(swagger2Parameter(parameter.object)))
        if parameter.object["collectionFormat"]?.stringValue == "multi" {
          note(
            "the parameter repeats once a value (collectionFormat multi); the request has one, its values joined by ,",
            at: parameter.path)
        }
      }
    }
    converted["parameters"] = .array(kept)
    let consumes = try mediaTypes("consumes", of: operation, at: path, source)
    if let body {
      let bodyPath = path.appending("requestBody")
      origins[bodyPath] = body.path
      var content = JSONObject()
      let examples = body.object["x-examples"]?.objectValue
      for type in consumes.isEmpty ? ["application/json"] : consumes {
        var media = JSONObject()
        if let schema = body.object["schema"] {
          media["schema"] = schema
          origins[bodyPath.appending("content").appending(type).appending("schema")] = body.path.appending("schema")
        }
        if let example = examples?[type] ?? body.object["x-example"] { media["example"] = example }
        content[type] = .object(media)
      }
      converted["requestBody"] = .object(JSONObject([("content", .object(content)), ("required", body.object["required"] ?? false)]))
    } else if !form.isEmpty {
      let multipart =
        consumes.contains { RequestDraft.mediaType($0) == "multipart/form-data" }
        || form.contains { $0.object["type"]?.stringValue == "file" }
      let type = multipart ? "multipart/form-data" : RequestDraft.formType
      let schemaPath = path.appending("requestBody").appending("content").appending(type).appending("schema")
      origins[path.appending("requestBody")] = form[0].path
      var properties = JSONObject()
      var required: [JSONValue] = []
      for field in form {
        guard let name = field.object["name"]?.stringValue else {
          throw failure("a parameter needs a \"name\"", at: field.path)
        }
        origins[schemaPath.appending("properties").appending(name)] = field.path
        var schema = swagger2Parameter(field.object)["schema"]?.objectValue ?? JSONObject()
        if schema["type"]?.stringValue == "file" {
          schema["type"] = "string"
          schema["format"] = "binary"
        }
        if let example = field.object["x-example"] { schema["example"] = example }
        properties[name] = .object(schema)
        if field.object["required"] == .bool(true) { required.append(.string(name)) }
      }
      var schema = JSONObject([("type", "object"), ("properties", .object(properties))])
      if !required.isEmpty { schema["required"] = .array(required) }
      let media = JSONObject([("schema", .object(schema))])
      converted["requestBody"] = .object(JSONObject([("content", .object(JSONObject([(type, .object(media))])))]))
    }
    if let responses = member(operation, "responses"), let codes = responses.objectValue {
      let produces = try mediaTypes("produces", of: operation, at: path, source)
      var out = JSONObject()
      for code in codes.members {
        let codePath = path.appending("responses").appending(code.key)
        let (resolved, at) = try resolve(code.value, at: codePath)
        origins[codePath] = at
        guard var response = resolved.objectValue else {
          out[code.key] = resolved
          continue
        }
        var content = JSONObject()
        for type in produces {
          content[type] = .object(response["schema"].map { JSONObject([("schema", $0)]) } ?? JSONObject())
        }
        response["content"] = .object(content)
        out[code.key] = .object(response)
      }
      converted["responses"] = .object(out)
    }
    return converted
  }

  /// `consumes` or `produces` of the operation, else the document's.
  private func mediaTypes(_ key: String, of operation: JSONObject, at path: JSONPath, _ source: JSONObject)
    throws(ImportError) -> [String]
  {
    if let own = try array(operation, key, at: path) { return own.compactMap(\.stringValue) }
    return (try array(source, key, at: .root) ?? []).compactMap(\.stringValue)
  }

  /// A path, query, header or form parameter with its `type`, `format`, `items`… as a `schema`
  /// (one it has already is kept), `x-example` as its `example`.
  private func swagger2Parameter(_ parameter: JSONObject) -> JSONObject {
    var out = JSONObject()
    var schema = JSONObject()
    let schemaKeys: Set<String> = [
      "type", "format", "items", "default", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
      "minLength", "maxLength", "pattern", "minItems", "maxItems", "uniqueItems", "multipleOf",
    ]
    for member in parameter.members {
      if schemaKeys.contains(member.key) {
        schema[member.key] = member.value
      } else if member.key == "x-example" {
        out["example"] = member.value
      } else {
        out[member.key] = member.value
      }
    }
    if out["schema"] == nil, !schema.isEmpty { out["schema"] = .object(schema) }
    // An array's values are sent joined as `collectionFormat` says (csv, the default, is OpenAPI
    // 3's own `form` style).
    let separators = ["ssv": " ", "tsv": "\t", "pipes": "|"]
    if let format = parameter["collectionFormat"]?.stringValue, let separator = separators[format] {
      for key in ["example", "default"] {
        let holder = key == "example" ? out[key] : schema[key]
        guard let items = holder?.arrayValue else { continue }
        out["example"] = .string(items.map(OpenAPIImporter.text).joined(separator: separator))
        break
      }
    }
    return out
  }
}
