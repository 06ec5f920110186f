import RequestEngine

/// What an operation's `security` becomes in a request: auth, or a header or query parameter
/// holding a `{{secret.NAME}}`.
///
/// - `http` `basic` (and `digest`): `auth.basic` with the user `{{NAME-user}}` (a variable,
///   declared empty) and the password `{{secret.NAME-password}}`;
/// - `http` `bearer`: `auth.bearer` `{{secret.NAME}}`;
/// - `apiKey` in a header or the query: that header or parameter, `{{secret.NAME}}`; in a
///   cookie, a `Cookie` header `name={{secret.NAME}}`;
/// - `oauth2` and `openIdConnect`: not imported (a note names the scheme).
/// NAME is the scheme's name in `components.securitySchemes`, spelled as a variable
/// (characters other than letters, digits, `_`, `-` and `.` become `-`). The operation's own
/// `security` wins over the document's; `security: []` means none; of several alternatives the
/// first is used; schemes that must be combined (one alternative naming several) are all applied.
struct OpenAPISecurity: Equatable {
  var auth: Auth?
  var headers: [(name: String, value: String)] = []
  var query: [(name: String, value: String)] = []
  /// The secrets its values name, and the variables (declared empty) they use.
  var secrets: [String] = []
  var variables: [String] = []

  static func == (a: OpenAPISecurity, b: OpenAPISecurity) -> Bool {
    a.auth == b.auth && a.headers.elementsEqual(b.headers, by: { $0 == $1 })
      && a.query.elementsEqual(b.query, by: { $0 == $1 }) && a.secrets == b.secrets
  }
}

extension OpenAPIDocument {
  /// The security of the operation at `path` (`operation` its object), `document`'s when it
  /// says none itself.
  mutating func security(of operation: JSONObject, at path: JSONPath) throws(ImportError) -> OpenAPISecurity {
    let (requirements, requirementsPath): ([JSONValue], JSONPath)
    if let own = try array(operation, "security", at: path) {
      (requirements, requirementsPath) = (own, path.appending("security"))
    } else if let rootObject = root.objectValue, let global = try array(rootObject, "security", at: .root) {
      (requirements, requirementsPath) = (global, JSONPath.root.appending("security"))
    } else {
      return OpenAPISecurity()
    }
    var result = OpenAPISecurity()
    guard let first = requirements.first else { return result }
    let requirement = try object(first, at: requirementsPath.appending(0))
    for name in requirement.keys {
      try apply(scheme: name, at: requirementsPath.appending(0).appending(name), to: &result)
    }
    return result
  }

  private mutating func apply(scheme name: String, at usePath: JSONPath, to result: inout OpenAPISecurity) throws(ImportError) {
    let schemesPath = JSONPath.root.appending("components").appending("securitySchemes")
    guard let declared = root["components"]?["securitySchemes"]?[name] else {
      throw failure(
        "the security scheme \(JSONSerializer.quote(name)) is not declared in components.securitySchemes", at: usePath)
    }
    let (value, path) = try resolve(declared, at: schemesPath.appending(name))
    let scheme = try object(value, at: path)
    let secret = OpenAPIDocument.variableName(name)
    guard let type = try string(scheme, "type", at: path) else {
      throw failure("a security scheme needs a \"type\" (http, apiKey, oauth2, openIdConnect)", at: path)
    }
    func setAuth(_ auth: Auth) {
      if let existing = result.auth, existing.kind != auth.kind {
        note("the security scheme \(name) would be a second auth beside \(existing.kind); only the first is imported")
        return
      }
      result.auth = auth
    }
    switch type {
    case "http":
      let kind = (try string(scheme, "scheme", at: path) ?? "").lowercased()
      switch kind {
      case "basic", "digest":
        let user = "{{\(secret)-user}}"
        let password = "{{secret.\(secret)-password}}"
        setAuth(kind == "basic" ? .basic(user: user, password: password) : .digest(user: user, password: password))
        result.variables.append("\(secret)-user")
        result.secrets.append("\(secret)-password")
      case "bearer":
        setAuth(.bearer("{{secret.\(secret)}}"))
        result.secrets.append(secret)
      default:
        note("the http security scheme \(name) (\(kind)) is not one reqbench sends (basic, digest, bearer); left out")
      }
    case "apiKey":
      guard let keyName = try string(scheme, "name", at: path), !keyName.isEmpty else {
        throw failure("an apiKey security scheme needs a \"name\"", at: path)
      }
      let where_ = try string(scheme, "in", at: path) ?? ""
      let value = "{{secret.\(secret)}}"
      switch where_ {
      case "header": result.headers.append((keyName, value))
      case "query": result.query.append((keyName, value))
      case "cookie": result.headers.append(("Cookie", "\(keyName)=\(value)"))
      default:
        throw failure(
          "an apiKey goes in \"header\", \"query\" or \"cookie\", not \(JSONSerializer.quote(where_))", at: path.appending("in"))
      }
      result.secrets.append(secret)
    case "oauth2", "openIdConnect", "mutualTLS":
      note("the \(type) security scheme \(name) is not imported; set the request's auth yourself")
    default:
      throw failure(
        "unknown security scheme type \(JSONSerializer.quote(type)); OpenAPI has http, apiKey, oauth2, openIdConnect and mutualTLS",
        at: path.appending("type"))
    }
  }

  /// `name` as a `{{variable}}` name: characters other than letters, digits, `_`, `-` and `.`
  /// become `-`.
  static func variableName(_ name: String) -> String {
    var out = ""
    for scalar in name.unicodeScalars {
      let keep = scalar.properties.isAlphabetic || scalar.properties.numericType != nil || "_-.".unicodeScalars.contains(scalar)
      out.unicodeScalars.append(keep && !scalar.properties.isWhitespace ? scalar : "-")
    }
    return out.isEmpty ? "value" : out
  }
}
