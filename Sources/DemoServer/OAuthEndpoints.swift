import Digest
import Foundation
import JSON
import Synchronization

/// The demo's OAuth 2.0: a token endpoint for the client credentials grant (RFC 6749 §4.4) and
/// a resource it protects, so the demo workspace shows a token exchange (`oauth2 › NAME` in the
/// queue) without a real authorization server.
///
/// - `POST /oauth/token`: `grant_type=client_credentials`, the client `demo` / `demo-secret`
///   by HTTP Basic (§2.3.1) or in the form, an optional `scope` (default `read`) and `audience`
///   (Auth0's extension: the API the token is for); answers `{"access_token", "token_type":
///   "Bearer", "expires_in": 3600, "scope"}`, or RFC 6749 §5.2's errors (`invalid_client` 401,
///   `unsupported_grant_type`, `invalid_request` 400).
/// - `GET /oauth/report`: needs `Authorization: Bearer` with such a token (its scope and
///   audience are in the report); 401 with `WWW-Authenticate: Bearer` otherwise.
public final class DemoOAuth: Sendable {
  public static let clientId = "demo"
  /// `reqbench --demo` gives it to the demo workspace as the secret `demo-client`.
  public static let clientSecret = "demo-secret"
  /// What a token was issued for.
  struct Grant: Sendable {
    var scope: String
    var audience: String?
    var expires: Date
  }

  /// Tokens issued, by token.
  private let tokens = Mutex([String: Grant]())

  func issue(scope: String, audience: String?) -> String {
    var generator = SystemRandomNumberGenerator()
    let token = hexString((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    tokens.withLock { $0[token] = Grant(scope: scope, audience: audience, expires: Date().addingTimeInterval(3600)) }
    return token
  }

  /// What a good token grants; nil for an unknown or expired one.
  func grant(of token: String) -> Grant? {
    tokens.withLock { tokens in
      guard let grant = tokens[token], grant.expires > Date() else { return nil }
      return grant
    }
  }
}

extension App {
  func oauthToken(_ request: ServerRequest) -> ServerResponse {
    if let refusal = requireMethod(request, ["POST"]) { return refusal }
    var form: [String: String] = [:]
    for pair in String(decoding: request.body, as: UTF8.self).split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      form[percentDecode(parts[0], plusAsSpace: true)] = parts.count > 1 ? percentDecode(parts[1], plusAsSpace: true) : ""
    }
    var client = (id: form["client_id"], secret: form["client_secret"])
    if let basic = request.header("Authorization"), basic.lowercased().hasPrefix("basic "),
      let decoded = Data(base64Encoded: String(basic.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
      let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
    {
      // RFC 6749 §2.3.1: the id and secret form-encoded, then joined by a colon.
      client = (
        percentDecode(text[..<colon], plusAsSpace: true), percentDecode(text[text.index(after: colon)...], plusAsSpace: true)
      )
    }
    func failure(_ status: Int, _ error: String, _ description: String) -> ServerResponse {
      ServerResponse.json(status, .obj(["error": .string(error), "error_description": .string(description)]))
        .header("Cache-Control", "no-store")
    }
    guard client.id == DemoOAuth.clientId, client.secret == DemoOAuth.clientSecret else {
      return failure(401, "invalid_client", "the demo's client is demo / demo-secret")
        .header("WWW-Authenticate", #"Basic realm="demo""#)
    }
    guard let grant = form["grant_type"] else { return failure(400, "invalid_request", "grant_type is missing") }
    guard grant == "client_credentials" else {
      return failure(400, "unsupported_grant_type", "the demo has the client_credentials grant only")
    }
    let scope = form["scope"].flatMap { $0.isEmpty ? nil : $0 } ?? "read"
    return ServerResponse.json(
      200,
      .obj([
        "access_token": .string(oauth.issue(scope: scope, audience: form["audience"].flatMap { $0.isEmpty ? nil : $0 })), "token_type": .string("Bearer"), "expires_in": .int(3600),
        "scope": .string(scope),
      ])
    ).header("Cache-Control", "no-store")
  }

  func oauthReport(_ request: ServerRequest) -> ServerResponse {
    if let refusal = requireMethod(request, ["GET"]) { return refusal }
    guard let token = Self.bearerToken(request), let grant = oauth.grant(of: token) else {
      return ServerResponse.error(401, "send a token from POST /oauth/token (client_credentials, demo / demo-secret)")
        .header("WWW-Authenticate", #"Bearer realm="demo""#)
    }
    var fields: [(String, JSONValue)] = [("client", .string(DemoOAuth.clientId)), ("scope", .string(grant.scope))]
    if let audience = grant.audience { fields.append(("audience", .string(audience))) }
    fields.append(
      ("report", .obj(["users": .int(users.all.count), "admins": .int(users.all.filter { $0.role == "admin" }.count)])))
    return .json(200, .obj(fields))
  }
}
