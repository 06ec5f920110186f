import Foundation
import Digest

/// The cache key of a request: sha256 of a canonical form (docs/engine-rules.md, "The cache key"):
/// the method, the URL with its query sorted, a canonical body (JSON with sorted keys, form
/// fields sorted), the policy's `vary` headers, the identity of the credentials it carries and
/// the namespace (both digests), all minus the fields listed in `ignore`.
/// `{b:1,a:2}` and `{a:2,b:1}` give the same key; a different base URL or CDN gives another, and
/// so does another user: a response cached for one credential is never served to another.
public enum CacheKey {
  /// The canonical text the key digests (secrets still in: redact before storing or showing it).
  /// The credentials (`Request.credentialIdentity`) and the namespace are in it as HMAC-SHA256
  /// under `digestKey` (the cache's key), like the digests the metadata keeps, never as they are.
  public static func inputs(for request: Request, policy: CachePolicy, digestKey: [UInt8] = []) -> String {
    let ignored = Set(policy.ignore)
    var parts = URLResolver.split(request.url)
    parts.fragment = nil
    let query = canonicalPairs(parts.query ?? "", ignoring: ignored)
    parts.query = query.isEmpty ? nil : query
    var lines = [request.method.rawValue, URLResolver.join(parts)]
    let type = (request.headers["Content-Type"] ?? request.body.contentType ?? "").lowercased()
    if !request.body.bytes.isEmpty {
      if type.contains("json"), case .object(let object)? = try? JSONParser.parse(request.body.bytes) {
        var kept = object
        for name in ignored { kept[name] = nil }
        lines.append("json " + JSONSerializer.compact(sorted(.object(kept))))
      } else if type.hasPrefix("application/x-www-form-urlencoded") {
        lines.append("form " + canonicalPairs(String(decoding: request.body.bytes, as: UTF8.self), ignoring: ignored))
      } else {
        lines.append("bytes " + SHA256.hex(request.body.bytes))
      }
    }
    if let stream = request.body.stream { lines.append("stream " + stream.fingerprint) }
    for name in policy.vary.map({ $0.lowercased() }).sorted() {
      lines.append("vary \(name): \(request.headers[name] ?? "")")
    }
    let identity = request.credentialIdentity
    if !identity.isEmpty {
      let text = identity.joined(separator: "\n")
      lines.append("identity " + hexString(HMAC.sha256(key: digestKey, message: Array(text.utf8))))
    }
    if let namespace = policy.namespace {
      lines.append("namespace " + hexString(HMAC.sha256(key: digestKey, message: Array(namespace.utf8))))
    }
    return lines.joined(separator: "\n")
  }

  public static func key(for request: Request, policy: CachePolicy, digestKey: [UInt8] = []) -> String {
    SHA256.hex(Array(inputs(for: request, policy: policy, digestKey: digestKey).utf8))
  }

  /// `b=2&a=1&ts=9` minus `ts`, sorted: `a=1&b=2`. Names compare percent-decoded.
  static func canonicalPairs(_ text: String, ignoring ignored: Set<String>) -> String {
    text.split(separator: "&", omittingEmptySubsequences: true)
      .filter { pair in
        let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
        return !ignored.contains(name.removingPercentEncoding ?? name)
      }
      .map(String.init)
      .sorted()
      .joined(separator: "&")
  }

  /// JSON with every object's keys sorted.
  static func sorted(_ value: JSONValue) -> JSONValue {
    switch value {
    case .object(let object):
      return .object(
        JSONObject(object.members.sorted { $0.key < $1.key }.map { (key: $0.key, value: sorted($0.value)) }))
    case .array(let items):
      return .array(items.map(sorted))
    default:
      return value
    }
  }
}
