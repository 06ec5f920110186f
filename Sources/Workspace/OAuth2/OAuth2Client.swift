import Base
import Digest
import Foundation
import RequestEngine

/// An `oauth2` block with its templates filled in: what talks to the token endpoint. Pure: it
/// makes the token requests (RFC 6749 §4.3, §4.4, §6; RFC 7636; RFC 8628) and reads their
/// answers; `OAuth2Tokens` sends them and keeps the tokens.
public struct OAuth2Client: Sendable, Equatable {
  /// The grant with its values filled in (URLs absolute).
  public var grant: OAuth2Grant
  /// Absolute.
  public var tokenURL: String
  public var clientId: String
  public var clientSecret: String?
  public var scope: String?
  public var audience: String?
  public var clientAuth: OAuth2ClientAuth
  /// Names the token's exchanges and errors: `oauth2 › users/get` (the request that asked first).
  public var label: String
  /// The environment selected when the block was filled in (part of the cache key).
  public var environment: String?
  /// Certificate settings of the request, used for the token endpoint too.
  public var insecure = false
  public var tls: TLSSettings?
  /// The idle timeout and deadline of every request the client makes (the token request, a
  /// refresh, the device endpoint, each device-code poll): the request's own `timeout` and
  /// `deadline`, so its token is bound by them too (`Workspace.prepare`); 60 s without a deadline.
  public var timeouts = Timeouts(idle: 30, deadline: OAuth2Client.defaultDeadline)

  /// The deadline of a token request when its request has none, in seconds.
  public static let defaultDeadline: Double = 60
  /// The most bytes a token (or device) endpoint's answer may have: a token answer is a few KB;
  /// more stops the transfer (`answer(of:step:)`).
  public static let maxAnswerBytes: Int64 = 1 << 20

  public init(
    grant: OAuth2Grant, tokenURL: String, clientId: String, clientSecret: String? = nil, scope: String? = nil,
    audience: String? = nil, clientAuth: OAuth2ClientAuth = .basic, label: String, environment: String? = nil
  ) {
    self.grant = grant
    self.tokenURL = tokenURL
    self.clientId = clientId
    self.clientSecret = clientSecret
    self.scope = scope
    self.audience = audience
    self.clientAuth = clientAuth
    self.label = label
    self.environment = environment
  }

  /// Which cached token this block uses: the environment, the endpoint, the client, the grant,
  /// its user, scope and audience (never a secret), hashed. Requests whose blocks agree share one
  /// token, and one fetch of it.
  public var cacheKey: String {
    var parts = [environment ?? "", tokenURL, clientId, scope ?? "", audience ?? ""]
    switch grant {
    case .clientCredentials: parts.append("clientCredentials")
    case .password(let username, _): parts += ["password", username]
    case .authorizationCode(let url, _, _): parts += ["authorizationCode", url]
    case .deviceCode(let url): parts += ["deviceCode", url]
    }
    return SHA256.hex(Array(parts.joined(separator: "\u{1F}").utf8))
  }

  /// The values to mask wherever a token request is shown: the secret and the password, as
  /// written and as the form encodes them, and the Basic header made from them.
  var secrets: [String] {
    var values = [clientSecret].compactMap { $0 }
    if case .password(_, let password) = grant { values.append(password) }
    values += values.map(QueryEncoder.encodeComponent)
    if let basic = basicHeader { values.append(basic) }
    return values.filter { !$0.isEmpty }
  }

  /// RFC 6749 §2.3.1: the id and secret form-encoded, then Basic.
  var basicHeader: String? {
    guard clientAuth == .basic, let clientSecret else { return nil }
    let pair = QueryEncoder.encodeComponent(clientId) + ":" + QueryEncoder.encodeComponent(clientSecret)
    return "Basic " + Data(pair.utf8).base64EncodedString()
  }

  /// A POST of `fields` to `url` (the token endpoint unless given), with the client's
  /// authentication: its Basic header, or `client_id` (and `client_secret`) in the body. A public
  /// client (no secret) always sends its `client_id` in the body. It follows no redirect (its
  /// form holds the client's secret, a password, a refresh token or a code verifier, and its
  /// answer must come from the endpoint itself: a 3xx is a failure, `answer(of:step:)`), its
  /// answer is capped at `maxAnswerBytes`, and it has the request's `timeouts`.
  package func post(_ fields: [(String, String)], to url: String? = nil, step: String) -> Request {
    var fields = fields
    if clientAuth == .body || clientSecret == nil {
      fields.append(("client_id", clientId))
      if let clientSecret { fields.append(("client_secret", clientSecret)) }
    }
    var request = Request(
      name: label, method: .POST, url: url ?? tokenURL, headers: ["Accept": "application/json"],
      body: .form(fields), timeouts: timeouts, priority: .high, followRedirects: false, insecure: insecure,
      dedup: false, secrets: secrets, tls: tls)
    request.maxBodyBytes = Self.maxAnswerBytes
    if let basic = basicHeader { request.headers["Authorization"] = basic }
    // What the endpoint answers is judged here (an OAuth error is a 400 or 401 with a JSON body).
    request.validation = Validation(status: [100...599])
    request.secretResponseFields = ["access_token", "refresh_token", "id_token", "device_code"]
    request.tags = ["oauth2": step]
    return request
  }

  /// The grant's own token request (client credentials and password; the code and device grants
  /// make theirs from what the user did: `codeRequest`, `devicePoll`).
  public func grantRequest() -> Request? {
    var fields: [(String, String)]
    switch grant {
    case .clientCredentials: fields = [("grant_type", "client_credentials")]
    case .password(let username, let password):
      fields = [("grant_type", "password"), ("username", username), ("password", password)]
    case .authorizationCode, .deviceCode: return nil
    }
    if let scope, !scope.isEmpty { fields.append(("scope", scope)) }
    if let audience, !audience.isEmpty { fields.append(("audience", audience)) }
    return post(fields, step: "token")
  }

  /// RFC 6749 §6.
  public func refreshRequest(_ refreshToken: String) -> Request {
    var request = post([("grant_type", "refresh_token"), ("refresh_token", refreshToken)], step: "refresh")
    request.secrets.append(refreshToken)
    return request
  }

  /// What an endpoint of the client's answered `result`, when it answered with a status of its
  /// own: the response and its body's JSON object (nil when the body is not one). Else the
  /// step's failure in words, never naming a secret: no answer (`cannot connect`), an answer
  /// that timed out (the request's `timeout` or `deadline`) or grew past `maxAnswerBytes`, or a
  /// redirect (3xx with a `Location`), which is never followed: `token: token endpoint
  /// redirected (307) to http://…; tokens are only taken from the token endpoint itself`.
  package func answer(of result: ExchangeResult, step: String, endpoint: String = "token endpoint")
    -> Result<(response: Response, object: JSONObject?), ExchangeError>
  {
    guard result.state == .succeeded, let response = result.response else {
      switch result.error?.transport {
      case .timedOut?:
        // `timed out: no data for 3 s`, `timed out: Operation timed out after 5000 milliseconds …`
        let message = result.error?.message ?? ""
        let reason = message.hasPrefix("timed out") ? message : "timed out: " + message
        return .failure(failure("\(step): the \(endpoint) \(reason)", result))
      case .bodyTooLarge?:
        return .failure(failure(
          "\(step): the \(endpoint)'s answer is over \(Self.maxAnswerBytes >> 20) MB: stopped (an OAuth 2.0 answer is a few KB)",
          result))
      default:
        let reason = result.error?.message ?? result.state.rawValue
        return .failure(failure("\(step): the \(endpoint) did not answer: \(reason)", result))
      }
    }
    if (300...399).contains(response.status), let location = response.headers["Location"], !location.isEmpty {
      let target = (try? URLResolver.resolve(location, against: result.request.url)) ?? location
      let shown = ControlEscaping.visible(target.count > 200 ? String(target.prefix(200)) + "…" : target)
      let what = endpoint == "token endpoint" ? "tokens are" : "its answers are"
      return .failure(failure(
        "\(step): \(endpoint) redirected (\(response.status)) to \(shown); \(what) only taken from the \(endpoint) itself",
        result))
    }
    let object = ((try? response.body.bytes()).flatMap { try? JSONParser.parse($0) })?.objectValue
    return .success((response, object))
  }

  /// Reads the token endpoint's answer: a token (RFC 6749 §5.1), or the step's failure in words
  /// (§5.2: `token endpoint answered 401: invalid_client (…)`; `answer(of:step:)`), never naming
  /// a secret.
  package func token(from result: ExchangeResult, step: String, now: Date = Date()) -> Result<OAuth2Token, ExchangeError> {
    let response: Response
    let object: JSONObject?
    switch answer(of: result, step: step) {
    case .failure(let error): return .failure(error)
    case .success(let answer): (response, object) = answer
    }
    guard (200...299).contains(response.status) else {
      var message = "\(step): token endpoint answered \(response.status)"
      if let code = object?["error"]?.stringValue {
        message += ": " + ControlEscaping.visible(String(code.prefix(100)))
        if let text = object?["error_description"]?.stringValue, !text.isEmpty {
          message += " (" + ControlEscaping.visible(String(text.prefix(300))) + ")"
        }
      }
      return .failure(failure(message, result))
    }
    guard let object, let access = object["access_token"]?.stringValue, !access.isEmpty else {
      return .failure(failure("\(step): the token endpoint's answer (\(response.status)) has no access_token", result))
    }
    if let type = object["token_type"]?.stringValue, type.lowercased() != "bearer" {
      return .failure(failure(
        "\(step): the token endpoint gave a token of type \(ControlEscaping.visible(String(type.prefix(100)))); only Bearer tokens are supported",
        result))
    }
    var expiresAt: Date?
    if let seconds = object["expires_in"]?.doubleValue, seconds.isFinite, seconds >= 0 {
      expiresAt = now.addingTimeInterval(min(seconds, ValueLimits.seconds * 520))
    }
    return .success(
      OAuth2Token(
        accessToken: access, refreshToken: object["refresh_token"]?.stringValue, expiresAt: expiresAt,
        scope: object["scope"]?.stringValue, obtainedAt: now))
  }

  /// The step's failure: `oauth2 › NAME: ` and `message`, every secret of the request masked.
  package func failure(_ message: String, _ result: ExchangeResult) -> ExchangeError {
    ExchangeError(
      kind: .authorization, message: "\(label): " + Redaction(secrets: result.request.secrets).apply(message),
      status: result.response?.status)
  }
}

/// A token as the endpoint gave it, and when.
public struct OAuth2Token: Sendable, Equatable {
  public var accessToken: String
  public var refreshToken: String?
  /// Nil when the endpoint did not say (used until a 401 says otherwise).
  public var expiresAt: Date?
  public var scope: String?
  public var obtainedAt: Date

  public var header: String { "Bearer " + accessToken }

  /// Expired, or about to: within a tenth of its life (at most 30 s) of the end, so a request
  /// never leaves with a token that expires on the way.
  public func isExpired(at now: Date) -> Bool {
    guard let expiresAt else { return false }
    let life = expiresAt.timeIntervalSince(obtainedAt)
    return now >= expiresAt.addingTimeInterval(-min(30, max(0, life) / 10))
  }

  /// The file's JSON.
  package var json: JSONValue {
    var object = JSONObject()
    object["version"] = .number("1")
    object["accessToken"] = .string(accessToken)
    if let refreshToken { object["refreshToken"] = .string(refreshToken) }
    if let expiresAt { object["expiresAt"] = .number(String(expiresAt.timeIntervalSince1970)) }
    if let scope { object["scope"] = .string(scope) }
    object["obtainedAt"] = .number(String(obtainedAt.timeIntervalSince1970))
    return .object(object)
  }

  package init(
    accessToken: String, refreshToken: String?, expiresAt: Date?, scope: String?, obtainedAt: Date
  ) {
    self.accessToken = accessToken
    self.refreshToken = refreshToken
    self.expiresAt = expiresAt
    self.scope = scope
    self.obtainedAt = obtainedAt
  }

  /// Reads a token file's JSON; nil for anything else (a damaged file is ignored and rebuilt).
  package init?(json: JSONValue) {
    guard let object = json.objectValue, object["version"]?.doubleValue == 1,
      let access = object["accessToken"]?.stringValue, !access.isEmpty,
      let obtained = object["obtainedAt"]?.doubleValue, obtained.isFinite
    else { return nil }
    accessToken = access
    refreshToken = object["refreshToken"]?.stringValue
    expiresAt = object["expiresAt"]?.doubleValue.flatMap { $0.isFinite ? Date(timeIntervalSince1970: $0) : nil }
    scope = object["scope"]?.stringValue
    obtainedAt = Date(timeIntervalSince1970: obtained)
  }
}
