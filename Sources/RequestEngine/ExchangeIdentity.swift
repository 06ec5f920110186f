import Digest

/// What makes two sends the same exchange: the one value de-duplication and the throttle window
/// compare (`AgentCore.Job.dedupKey`, `AgentCore.admit`). Two requests are the same exchange only
/// when everything that shapes what goes on the wire, or what the transfer accepts as an answer,
/// is the same: the method, URL, headers and body; the credential behind them, including one an
/// `Authorizer` adds after this value is made (its `identity`: an OAuth 2.0 block's token URL,
/// client, user, scope and audience), HTTP Digest credentials and the cookie jar the cookies come
/// from; and every transfer option that decides success: TLS verification, pinning and client
/// certificates, redirect policy and limit, the proxy and whether responses come compressed, timeouts, the body limit, retries, the stream and
/// cache handling, a download's target.
///
/// What a request only says about itself (its name, priority, group, tags, its own validators:
/// each waiter is judged by its own) is left out: `Request.fieldsLeftOutOfIdentity` lists those
/// fields and why, and a test checks that every stored field of `Request` is either here or
/// there, so a field added later cannot be forgotten.
public struct ExchangeIdentity: Sendable, Hashable {
  private let method: HTTPMethod
  private let url: String
  private let headers: HTTPHeaders
  /// The body's SHA-256 (hex), content type and, for a body streamed from disk, its files'
  /// fingerprint (path, size, modification time).
  private let bodyDigest: String
  private let bodyContentType: String?
  private let bodyStream: String?
  private let timeouts: Timeouts
  private let retry: RetryPolicy?
  private let followRedirects: Bool
  private let maxRedirects: Int
  private let insecure: Bool
  private let cache: CachePolicy?
  private let download: DownloadTarget?
  private let digest: DigestCredentials?
  private let tls: TLSSettings?
  private let maxBodyBytes: Int64?
  private let cookieJar: ObjectIdentifier?
  private let stream: StreamFormat?
  private let reconnect: Bool
  private let authorizer: String?
  private let secretResponseFields: [String]
  private let compressed: Bool
  private let proxy: String?
  private let noProxy: String?
  private let requestTarget: String?

  public init(_ request: Request) {
    method = request.method
    url = request.url
    headers = request.headers
    bodyDigest = request.body.bytes.isEmpty ? "" : SHA256.hex(request.body.bytes)
    bodyContentType = request.body.contentType
    bodyStream = request.body.stream?.fingerprint
    timeouts = request.timeouts
    retry = request.retry
    followRedirects = request.followRedirects
    maxRedirects = request.maxRedirects
    insecure = request.insecure
    cache = request.cache
    download = request.download
    digest = request.digest
    tls = request.tls
    maxBodyBytes = request.maxBodyBytes
    // The jar is alive while a request that holds it is in flight, so its identifier is not reused.
    cookieJar = request.cookieJar.map(ObjectIdentifier.init)
    stream = request.stream
    reconnect = request.reconnect
    authorizer = request.authorizer?.identity
    secretResponseFields = request.secretResponseFields
    compressed = request.compressed
    proxy = request.proxy
    noProxy = request.noProxy
    requestTarget = request.requestTarget
  }
}

extension Request {
  /// The stored fields of `Request` that are not part of `ExchangeIdentity`, and why: none of
  /// them changes the bytes sent or what the transfer accepts.
  public static let fieldsLeftOutOfIdentity: [String: String] = [
    "name": "a label for the user",
    "priority": "when it starts, not what it sends",
    "validation": "each waiter judges the shared response by its own validators",
    "group": "what cancels it together, not what it sends",
    "limit": "when it starts, not what it sends",
    "tags": "labels for whoever sent it",
    "dedup": "whether it may be merged at all",
    "throttle": "whether a repeat is refused, decided before any merge",
    "secrets": "what is masked when shown; the values are in the URL, headers and body already",
  ]

  /// The credentials this request carries, as lines of text (in memory only: the response cache
  /// keeps them as a keyed digest, `CacheKey`): its authorizer's identity (or the `Authorization`
  /// header when it has none), `Proxy-Authorization` and `Cookie` headers, every header whose
  /// value holds one of its secrets (an API key from `{{secret.NAME}}`), HTTP Digest credentials,
  /// a client certificate, and the name of the cookie jar it sends cookies from. Empty for an
  /// anonymous request.
  public var credentialIdentity: [String] {
    var lines: [String] = []
    if let authorizer { lines.append("authorizer " + authorizer.identity) }
    let secretValues = secrets.filter { !$0.isEmpty }
    for field in headers.fields {
      let name = field.name.lowercased()
      // An authorizer's header changes with each token: its identity stands for it.
      if name == "authorization" && authorizer != nil { continue }
      let credential =
        name == "authorization" || name == "proxy-authorization" || name == "cookie"
        || secretValues.contains { field.value.contains($0) }
      if credential { lines.append("header " + name + ": " + field.value) }
    }
    if let digest { lines.append("digest " + digest.user + "\u{1F}" + digest.password) }
    if let certificate = tls?.clientCertificate { lines.append("client certificate " + certificate) }
    if let key = tls?.clientKey { lines.append("client key " + key) }
    if let jar = cookieJar { lines.append("cookie jar " + jar.name) }
    return lines
  }
}
