import RequestEngine

/// `"auth": {"oauth2": {…}}`: a request authenticated with an OAuth 2.0 bearer token (RFC 6749)
/// that reqbench gets itself, from the token endpoint, through the agent (`OAuth2Tokens`).
/// Every string is a template (`{{host}}`, `{{secret.client}}`), filled in when the request is
/// prepared.
///
/// ```json
/// {"oauth2": {"grant": "clientCredentials", "tokenURL": "{{auth}}/token", "clientId": "svc",
///             "clientSecret": "{{secret.client}}", "scope": "read write", "clientAuth": "basic"}}
/// ```
public struct OAuth2Settings: Sendable, Equatable {
  public var grant: OAuth2Grant
  /// The token endpoint: absolute, or relative to the workspace's `baseURL`.
  public var tokenURL: String
  public var clientId: String
  /// Nil for a public client (no secret: the device grant, authorization code with PKCE).
  public var clientSecret: String?
  /// Space-separated scopes, sent as `scope`.
  public var scope: String?
  /// Sent as `audience` (Auth0's and others' extension).
  public var audience: String?
  /// How the client authenticates at the token endpoint.
  public var clientAuth: OAuth2ClientAuth

  public init(
    grant: OAuth2Grant, tokenURL: String, clientId: String, clientSecret: String? = nil, scope: String? = nil,
    audience: String? = nil, clientAuth: OAuth2ClientAuth = .basic
  ) {
    self.grant = grant
    self.tokenURL = tokenURL
    self.clientId = clientId
    self.clientSecret = clientSecret
    self.scope = scope
    self.audience = audience
    self.clientAuth = clientAuth
  }

  /// Every template in the block, for the variables-in-scope lookup.
  public var templates: [String] {
    var texts = [tokenURL, clientId] + [clientSecret, scope, audience].compactMap { $0 }
    switch grant {
    case .clientCredentials: break
    case .password(let username, let password): texts += [username, password]
    case .authorizationCode(let authorizationURL, _, let redirectURL): texts += [authorizationURL] + [redirectURL].compactMap { $0 }
    case .deviceCode(let deviceURL): texts.append(deviceURL)
    }
    return texts
  }
}

/// The grant, with what each one needs besides the client.
public enum OAuth2Grant: Sendable, Equatable {
  /// RFC 6749 §4.4: the client's own credentials.
  case clientCredentials
  /// RFC 6749 §4.3: a user's name and password (`username`, `password`).
  case password(username: String, password: String)
  /// RFC 6749 §4.1 through a browser: the code comes back to a loopback listener (RFC 8252);
  /// `pkce` (default true) sends an S256 code challenge (RFC 7636). `redirectURL` (default
  /// `http://127.0.0.1:0/callback`, a free port) is where the listener waits.
  case authorizationCode(authorizationURL: String, pkce: Bool, redirectURL: String?)
  /// RFC 8628: the user approves on another device; reqbench polls the token endpoint.
  case deviceCode(deviceURL: String)

  /// The name in the file.
  public var name: String {
    switch self {
    case .clientCredentials: "clientCredentials"
    case .password: "password"
    case .authorizationCode: "authorizationCode"
    case .deviceCode: "deviceCode"
    }
  }

  public static let names = ["clientCredentials", "password", "authorizationCode", "deviceCode"]
}

/// RFC 6749 §2.3.1: HTTP Basic with the form-encoded id and secret (`basic`, the default), or
/// `client_id` and `client_secret` in the form body (`body`).
public enum OAuth2ClientAuth: String, Sendable, Equatable, CaseIterable {
  case basic, body
}

extension OAuth2Settings {
  /// The block as JSON, written over the one it was read from: unchanged, it is the old value
  /// byte for byte (keys the app does not know kept); changed, each key is written anew.
  func json(merging old: JSONValue?) -> JSONValue {
    if let old, WorkspaceReader.decode({ $0.oauth2(old, .untracked) }) == self { return old }
    var object = old?.objectValue ?? JSONObject()
    for key in WorkspaceReader.oauth2Keys { object[key] = nil }
    object["grant"] = .string(grant.name)
    object["tokenURL"] = .string(tokenURL)
    switch grant {
    case .clientCredentials: break
    case .password(let username, let password):
      object["username"] = .string(username)
      object["password"] = .string(password)
    case .authorizationCode(let authorizationURL, let pkce, let redirectURL):
      object["authorizationURL"] = .string(authorizationURL)
      if let redirectURL { object["redirectURL"] = .string(redirectURL) }
      if !pkce { object["pkce"] = .bool(false) }
    case .deviceCode(let deviceURL):
      object["deviceURL"] = .string(deviceURL)
    }
    object["clientId"] = .string(clientId)
    if let clientSecret { object["clientSecret"] = .string(clientSecret) }
    if let scope { object["scope"] = .string(scope) }
    if let audience { object["audience"] = .string(audience) }
    if clientAuth != .basic { object["clientAuth"] = .string(clientAuth.rawValue) }
    return .object(object)
  }
}
