import Base
import Digest
import Foundation
import RequestEngine
import Workspace

/// RFC 7636: the code verifier and its S256 challenge.
public struct PKCE: Sendable, Equatable {
  public var verifier: String
  public var challenge: String { PKCE.challenge(for: verifier) }

  /// 32 random bytes, base64url: 43 characters (RFC 7636 §4.1).
  public static func random() -> PKCE { PKCE(verifier: base64URL(randomBytes(32))) }

  public init(verifier: String) { self.verifier = verifier }

  /// BASE64URL(SHA256(ASCII(verifier))) (§4.2).
  public static func challenge(for verifier: String) -> String {
    var hasher = SHA256()
    hasher.update(Array(verifier.utf8))
    return base64URL(hasher.finalize())
  }

  static func randomBytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
  }

  /// Base64 with the URL alphabet and no padding (RFC 4648 §5).
  static func base64URL(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
  }
}

/// The authorization code grant (RFC 6749 §4.1) for a native app (RFC 8252): a listener on
/// 127.0.0.1 takes the redirect, the authorization URL goes to the user (`open`: printed, and
/// `xdg-open` with a display), the `state` that comes back is checked, and the code is exchanged
/// at the token endpoint with the PKCE verifier.
public enum OAuth2AuthorizationCode {
  /// The authorization URL for `client`, sending the user back to `redirect`.
  public static func authorizationURL(
    _ client: OAuth2Client, redirect: String, state: String, pkce: PKCE?
  ) -> String? {
    guard case .authorizationCode(let base, _, _) = client.grant else { return nil }
    var fields = [("response_type", "code"), ("client_id", client.clientId), ("redirect_uri", redirect), ("state", state)]
    if let scope = client.scope, !scope.isEmpty { fields.append(("scope", scope)) }
    if let audience = client.audience, !audience.isEmpty { fields.append(("audience", audience)) }
    if let pkce { fields += [("code_challenge", pkce.challenge), ("code_challenge_method", "S256")] }
    let query = fields.map { QueryEncoder.encodeComponent($0.0) + "=" + QueryEncoder.encodeComponent($0.1) }.joined(separator: "&")
    return base + (base.contains("?") ? "&" : "?") + query
  }

  /// How long the listener waits for the redirect unless told otherwise, in seconds.
  public static let defaultTimeout: Double = 300

  /// Runs the grant: listens, hands the URL to `open`, waits up to `timeout` seconds for the
  /// redirect (or until `cancellation` says stop), checks it and exchanges the code through
  /// `send`. `done` runs once.
  public static func run(
    _ client: OAuth2Client, timeout: Double = defaultTimeout, cancellation: OAuth2Cancellation? = nil,
    open: @escaping @Sendable (String) -> Void,
    send: @escaping Authorizer.Send, done: @escaping @Sendable (Result<OAuth2Token, ExchangeError>) -> Void
  ) {
    @Sendable func fail(_ message: String) {
      done(.failure(ExchangeError(kind: .authorization, message: "\(client.label): authorize: " + message)))
    }
    guard case .authorizationCode(_, let usePKCE, let redirectURL) = client.grant else {
      fail("not an authorizationCode grant")
      return
    }
    let listener: LoopbackListener
    do {
      listener = try LoopbackListener(redirectURL: redirectURL)
    } catch {
      fail(error.message)
      return
    }
    let state = PKCE.base64URL(PKCE.randomBytes(16))
    let pkce = usePKCE ? PKCE.random() : nil
    guard let url = authorizationURL(client, redirect: listener.redirect, state: state, pkce: pkce) else {
      fail("not an authorizationCode grant")
      return
    }
    // The URL goes to the user while this thread waits: `open` may be slow, or (in tests) be
    // the browser that brings the redirect here.
    WorkerThread.detached(name: "rb-browser") { open(url) }
    Thread.detachNewThread {
      // Only the redirect with this grant's state ends the wait: any other request (a stray
      // tab, another program, a forged redirect) is answered and the listener goes on waiting.
      let answer = listener.waitForRedirect(timeout: timeout, cancelled: { cancellation?.isCancelled == true }) { query in
        guard query["state"] == state else {
          return .refuse(400, "reqbench: this is not the redirect reqbench is waiting for (its state does not match); it was ignored.")
        }
        if query["code"] != nil { return .accept(200, "reqbench: authorized. You can close this tab.") }
        return .accept(400, "reqbench: the authorization was not given (\(query["error"] ?? "no code")).")
      }
      listener.close()
      if cancellation?.isCancelled == true {
        done(.failure(OAuth2Cancellation.error(client)))
        return
      }
      switch answer {
      case .failure(let timeout): fail(timeout.message)
      case .success(let query):
        guard let code = query["code"] else {
          let error = ControlEscaping.visible(String((query["error"] ?? "no code").prefix(100)))
          let text = query["error_description"].map { " (" + ControlEscaping.visible(String($0.prefix(300))) + ")" } ?? ""
          fail("the authorization server answered \(error)\(text)")
          return
        }
        var fields = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", listener.redirect)]
        if let pkce { fields.append(("code_verifier", pkce.verifier)) }
        var request = client.post(fields, step: "token")
        request.secrets += [code] + [pkce?.verifier].compactMap { $0 }
        send(request) { result in done(client.token(from: result, step: "token")) }
      }
    }
  }
}
