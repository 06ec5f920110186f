import RequestEngine

/// Reads `"auth": {"oauth2": {…}}` (`OAuth2Settings`): every problem at its place, as the rest
/// of the reader does (`w.json:9:20: requests[0].auth.oauth2.grant: unknown grant …`).
extension WorkspaceReader {
  static let oauth2Keys = [
    "grant", "tokenURL", "authorizationURL", "deviceURL", "redirectURL", "clientId", "clientSecret", "scope",
    "audience", "username", "password", "pkce", "clientAuth",
  ]

  mutating func oauth2(_ value: JSONValue, _ path: ReaderPath) -> OAuth2Settings? {
    guard let object = object(value, path) else { return nil }
    var texts: [String: String] = [:]
    var pkce = true
    var clientAuth = OAuth2ClientAuth.basic
    let ok = clean { r in
      for member in object.members {
        let at = path.appending(member.key)
        switch member.key {
        case "grant":
          guard let name = r.string(member.value, at) else { continue }
          if OAuth2Grant.names.contains(name) {
            texts["grant"] = name
          } else {
            r.fail(at, "unknown grant \(JSONSerializer.quote(name)); use " + OAuth2Grant.names.joined(separator: ", "))
          }
        case "pkce":
          if let flag = r.bool(member.value, at) { pkce = flag }
        case "clientAuth":
          guard let name = r.string(member.value, at) else { continue }
          if let found = OAuth2ClientAuth(rawValue: name) {
            clientAuth = found
          } else {
            r.fail(at, "unknown clientAuth \(JSONSerializer.quote(name)); use basic (HTTP Basic, the default) or body")
          }
        case "clientSecret", "password":
          // Secrets may hold anything; they go into a form body or a Basic header, encoded.
          if let text = r.template(member.value, at) { texts[member.key] = text }
        case let key where WorkspaceReader.oauth2Keys.contains(key):
          if let text = r.lineTemplate(member.value, at) { texts[key] = text }
        default:
          r.fail(at, "unknown oauth2 setting; use " + WorkspaceReader.oauth2Keys.joined(separator: ", "))
        }
      }
    }
    guard ok else { return nil }
    // What each grant needs, in the order a reader of the error would add them.
    func required(_ key: String, for grant: String) -> String? {
      if let text = texts[key] { return text }
      fail(path, "missing \(JSONSerializer.quote(key)) (the \(grant) grant needs it)")
      return nil
    }
    guard let grantName = texts["grant"] else {
      fail(path, "missing \"grant\"; use " + OAuth2Grant.names.joined(separator: ", "))
      return nil
    }
    let tokenURL = required("tokenURL", for: grantName)
    let clientId = required("clientId", for: grantName)
    if let clientId, clientId.allSatisfy({ $0 == " " || $0 == "\t" }) {
      // Every grant sends it; an empty one is refused by the server only at the first send.
      fail(path.appending("clientId"), "empty; write the client's id, as the authorization server registered it")
    }
    let grant: OAuth2Grant?
    switch grantName {
    case "clientCredentials":
      grant = required("clientSecret", for: grantName).map { _ in .clientCredentials }
    case "password":
      let username = required("username", for: grantName)
      let password = required("password", for: grantName)
      grant = username.flatMap { u in password.map { .password(username: u, password: $0) } }
    case "authorizationCode":
      grant = required("authorizationURL", for: grantName).map {
        .authorizationCode(authorizationURL: $0, pkce: pkce, redirectURL: texts["redirectURL"])
      }
    default:
      grant = required("deviceURL", for: grantName).map { .deviceCode(deviceURL: $0) }
    }
    // A key that belongs to another grant is a mistake worth saying (a password grant's
    // "username" under clientCredentials would silently do nothing).
    let foreign: [String: [String]] = [
      "username": ["password"], "password": ["password"], "authorizationURL": ["authorizationCode"],
      "redirectURL": ["authorizationCode"], "deviceURL": ["deviceCode"],
    ]
    for member in object.members {
      if let grants = foreign[member.key], !grants.contains(grantName) {
        fail(path.appending(member.key), "only the \(grants.joined(separator: ", ")) grant uses this; remove it or change \"grant\"")
      }
    }
    if object["pkce"] != nil, grantName != "authorizationCode" {
      fail(path.appending("pkce"), "only the authorizationCode grant uses this; remove it or change \"grant\"")
    }
    guard let grant, let tokenURL, let clientId, problemsAllowOAuth2(object, path) else { return nil }
    return OAuth2Settings(
      grant: grant, tokenURL: tokenURL, clientId: clientId, clientSecret: texts["clientSecret"],
      scope: texts["scope"], audience: texts["audience"], clientAuth: clientAuth)
  }

  /// A secret written into the workspace file is refused: `clientSecret` and `password` must
  /// come from `{{secret.NAME}}` (or another variable), never stand in the file itself.
  private mutating func problemsAllowOAuth2(_ object: JSONObject, _ path: ReaderPath) -> Bool {
    clean { r in
      for key in ["clientSecret", "password"] {
        guard case .string(let text)? = object[key], !text.isEmpty else { continue }
        if !text.contains("{{") {
          r.fail(
            path.appending(key),
            "a literal secret in the workspace file; store it with `reqbench secrets set WORKSPACE NAME` and write \"{{secret.NAME}}\"")
        }
      }
    }
  }
}
