/// The credential an `Authorization` or `Proxy-Authorization` header carries. It is a secret
/// however it got into the request: drawn from `{{secret.NAME}}`, or written into the request
/// itself (a pasted `curl -H 'Authorization: Bearer …'`, a basic auth with its password in the
/// file). The workspace adds it to `Request.secrets` when it prepares a request, so the screen,
/// history, `--json`, exports and logs show `Bearer ••••`, as browsers' sanitized HAR exports
/// drop these headers for the same reason.
///
/// ```swift
/// CredentialMasking.credential(in: "Bearer tok-123")  // "tok-123"
/// CredentialMasking.credential(in: "tok-123")         // "tok-123" (no scheme: all of it)
/// CredentialMasking.credential(in: "Bearer ab")       // nil (too short to be a credential)
/// ```
public enum CredentialMasking {
  /// Shorter values are not masked: masking `x` everywhere would garble every body that echoes
  /// the request, and nothing that short is a credential.
  public static let minimumLength = 4

  /// Whether a header of this name carries a credential.
  public static func carriesCredential(_ name: String) -> Bool {
    isAuthorization(name) || HTTPHeaders.sameName(name, "Proxy-Authorization")
  }

  /// Whether a header is `Authorization` (ASCII case folded, as header names compare).
  public static func isAuthorization(_ name: String) -> Bool { HTTPHeaders.sameName(name, "Authorization") }

  /// What follows the scheme (`Bearer`, `Basic`, `Token`, `AWS4-HMAC-SHA256`…), or the whole
  /// value when it is a single word that is not a scheme; nil when that is shorter than
  /// `minimumLength` (or a scheme alone: `Bearer` with no token).
  public static func credential(in value: String) -> String? {
    let trimmed = value.trimmingWhitespace()
    var credential = Substring(trimmed)
    if let space = trimmed.firstIndex(where: { $0 == " " || $0 == "\t" }) {
      credential = trimmed[space...].drop(while: { $0 == " " || $0 == "\t" })
    } else if schemes.contains(trimmed.lowercased()) {
      return nil
    }
    return credential.count >= minimumLength ? String(credential) : nil
  }

  /// Schemes that a header may hold alone (a token not filled in yet): never masked as one.
  private static let schemes: Set<String> = ["bearer", "basic", "token", "digest", "negotiate", "ntlm"]

  /// Whether a header's or a query parameter's name says that its whole value is a key, a
  /// token, a secret, a password or a signature: `X-Api-Key`, `Api-Key`, `X-Auth-Token`,
  /// `Private-Token`, `Ocp-Apim-Subscription-Key`, `X-CSRF-Token`, `X-Amz-Security-Token`;
  /// `api_key`, `apiKey`, `access_token`, `accessToken`, `client_secret`, `password`,
  /// `X-Amz-Signature`, `sig`. Its words are compared (ASCII case folded, split at `-` and `_`;
  /// a word's ending counts for camelCase names), so `Idempotency-Key`, `Sec-WebSocket-Key`, a
  /// fixture's `key` and a pagination `page_token` or `nextPageToken` are not credentials.
  ///
  /// ```swift
  /// CredentialMasking.isKeyName("X-Api-Key")        // true
  /// CredentialMasking.isKeyName("access_token")     // true
  /// CredentialMasking.isKeyName("Idempotency-Key")  // false
  /// ```
  public static func isKeyName(_ name: String) -> Bool {
    let words = name.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" })
    for (index, word) in words.enumerated() {
      let before = index > 0 ? words[index - 1] : nil
      switch word {
      case "sig", "signature", "credential", "credentials", "passwd":
        return true
      case "key":
        if let before, keyOwners.contains(before) { return true }
      default:
        // Also the end of a camelCase word: `accessToken`, `X-CSRFToken`, `clientSecret`, `apiKey`.
        if word.hasSuffix("token") {
          if let before, cursorWords.contains(before) { continue }
          if cursorWords.contains(where: { word.hasPrefix($0) }) { continue }  // nextPageToken
          return true
        }
        if word.hasSuffix("secret") || word.hasSuffix("password") || word.hasSuffix("apikey") { return true }
      }
    }
    return false
  }

  /// The credential a header or query parameter named by `isKeyName` carries: its whole value,
  /// when it is at least `minimumLength` long and no placeholder (`null`, `true`, `none`…: masked,
  /// every `null` of a JSON body shown would read `••••`).
  public static func key(in value: String) -> String? {
    let trimmed = value.trimmingWhitespace()
    guard trimmed.count >= minimumLength, !placeholders.contains(trimmed.lowercased()) else { return nil }
    return trimmed
  }

  /// Values a key field holds when it holds no key.
  private static let placeholders: Set<String> = ["null", "true", "false", "none", "undefined", "empty", "test"]

  /// `page_token`, `next_token`: a pagination cursor, not a credential.
  private static let cursorWords: Set<Substring> = ["page", "next", "continuation", "sync", "cursor", "resume"]
  /// `api-key`, `subscription-key`: a key that opens an API (not an idempotency or cache key).
  private static let keyOwners: Set<Substring> = ["api", "subscription", "access", "secret", "private", "auth", "client"]
}
