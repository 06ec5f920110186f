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
}
