import RequestEngine
import Workspace

/// What an operation's `security` becomes in a request: auth, or a header or query parameter
/// holding a `{{secret.NAME}}`.
///
/// - `http` `basic` (and `digest`): `auth.basic` with the user `{{NAME-user}}` (a variable,
///   declared empty) and the password `{{secret.NAME-password}}`;
/// - `http` `bearer`: `auth.bearer` `{{secret.NAME}}`;
/// - `apiKey` in a header or the query: that header or parameter, `{{secret.NAME}}`; in a
///   cookie, a `Cookie` header `name={{secret.NAME}}`;
/// - `oauth2`: `auth.oauth2` with the first flow reqbench runs, in this order: `authorizationCode`
///   (with PKCE, a public client), `clientCredentials`, `password`, `deviceAuthorization` (OpenAPI
///   3.2); the client id `{{NAME-client-id}}` (a variable, declared empty), the secret of a
///   confidential client `{{secret.NAME-client-secret}}`, a password grant's user
///   `{{NAME-user}}` and password `{{secret.NAME-password}}`, the scopes the requirement lists.
///   `implicit` alone is not imported (a note says so: it hands tokens to a browser page);
/// - `openIdConnect` and `mutualTLS`: not imported (a note names the scheme).
/// NAME is the scheme's name in `components.securitySchemes`, spelled as a variable
/// (characters other than letters, digits, `_`, `-` and `.` become `-`). The operation's own
/// `security` wins over the document's; `security: []` means none; of several alternatives the
/// first is used; schemes that must be combined (one alternative naming several) are all applied.
/// A scheme that is not declared, or cannot be read, leaves the requests without its auth (a
/// warning names it and why).
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
    for member in requirement.members {
      // The scopes an OAuth 2.0 requirement asks for (strings; other schemes list roles or none).
      let scopes = member.value.arrayValue?.compactMap(\.stringValue) ?? []
      // A scheme that cannot be read costs the requests that use it their auth, not more.
      do throws(ImportError) {
        try apply(scheme: member.key, scopes: scopes, at: requirementsPath.appending(0).appending(member.key), to: &result)
      } catch {
        note(error, then: "the requests that use the scheme \(member.key) have no auth from it")
      }
    }
    return result
  }

  private mutating func apply(
    scheme name: String, scopes: [String], at usePath: JSONPath, to result: inout OpenAPISecurity
  ) throws(ImportError) {
    let schemesPath = JSONPath.root.appending("components").appending("securitySchemes")
    guard let declared = root["components"]?["securitySchemes"]?[name] else {
      // The request is still the operation's: only its auth is unknown.
      note(
        "the security scheme \(JSONSerializer.quote(name)) is not declared in "
          + (isSwagger2 ? "securityDefinitions" : "components.securitySchemes") + "; the request has no auth for it",
        at: usePath)
      return
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
      case "cookie": result.headers.append(("Cookie", "\(Template.literal(keyName))=\(value)"))
      default:
        throw failure(
          "an apiKey goes in \"header\", \"query\" or \"cookie\", not \(JSONSerializer.quote(where_))", at: path.appending("in"))
      }
      result.secrets.append(secret)
    case "oauth2":
      guard let settings = try oauth2(scheme, named: secret, scopes: scopes, at: path, to: &result) else {
        note("the oauth2 security scheme \(name) has only flows reqbench does not run (implicit); set the request's auth yourself")
        return
      }
      setAuth(.oauth2(settings))
    case "openIdConnect", "mutualTLS":
      note("the \(type) security scheme \(name) is not imported; set the request's auth yourself")
    default:
      throw failure(
        "unknown security scheme type \(JSONSerializer.quote(type)); OpenAPI has http, apiKey, oauth2, openIdConnect and mutualTLS",
        at: path.appending("type"))
    }
  }

  /// The OAuth 2.0 block for the first of the scheme's flows reqbench runs (see the type's
  /// comment), its variables and secrets added to `result`; nil when it has none of them.
  private mutating func oauth2(
    _ scheme: JSONObject, named name: String, scopes: [String], at path: JSONPath, to result: inout OpenAPISecurity
  ) throws(ImportError) -> OAuth2Settings? {
    guard let flows = scheme["flows"] else {
      throw failure("an oauth2 security scheme needs \"flows\"", at: path)
    }
    let flowsPath = path.appending("flows")
    let flowsObject = try object(flows, at: flowsPath)
    let clientId = "{{\(name)-client-id}}"
    let clientSecret = "{{secret.\(name)-client-secret}}"
    let scope = scopes.isEmpty ? nil : scopes.joined(separator: " ")
    func url(_ flow: JSONObject, _ key: String, _ flowPath: JSONPath) throws(ImportError) -> String {
      guard let value = try string(flow, key, at: flowPath), !value.isEmpty else {
        throw failure("this oauth2 flow needs \"\(key)\"", at: flowPath)
      }
      return Template.literal(value)
    }
    for flowName in ["authorizationCode", "clientCredentials", "password", "deviceAuthorization"] {
      guard let value = flowsObject[flowName] else { continue }
      let flowPath = flowsPath.appending(flowName)
      let flow = try object(value, at: flowPath)
      let tokenURL = try url(flow, "tokenUrl", flowPath)
      result.variables.append("\(name)-client-id")
      switch flowName {
      case "authorizationCode":
        let authorizationURL = try url(flow, "authorizationUrl", flowPath)
        return OAuth2Settings(
          grant: .authorizationCode(authorizationURL: authorizationURL, pkce: true, redirectURL: nil),
          tokenURL: tokenURL, clientId: clientId, scope: scope)
      case "clientCredentials":
        result.secrets.append("\(name)-client-secret")
        return OAuth2Settings(
          grant: .clientCredentials, tokenURL: tokenURL, clientId: clientId, clientSecret: clientSecret, scope: scope)
      case "password":
        result.variables.append("\(name)-user")
        result.secrets.append(contentsOf: ["\(name)-client-secret", "\(name)-password"])
        return OAuth2Settings(
          grant: .password(username: "{{\(name)-user}}", password: "{{secret.\(name)-password}}"),
          tokenURL: tokenURL, clientId: clientId, clientSecret: clientSecret, scope: scope)
      default:
        let deviceURL = try url(flow, "deviceAuthorizationUrl", flowPath)
        return OAuth2Settings(grant: .deviceCode(deviceURL: deviceURL), tokenURL: tokenURL, clientId: clientId, scope: scope)
      }
    }
    return nil
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
