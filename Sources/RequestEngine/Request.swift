import Foundation

/// Which queued request the agent starts first when it is at its concurrency limit.
public enum Priority: Int, Sendable, CaseIterable, Comparable, Hashable {
  case low = 0, normal = 1, high = 2

  public init?(name: String) {
    switch name {
    case "low": self = .low
    case "normal": self = .normal
    case "high": self = .high
    default: return nil
    }
  }

  public var name: String {
    switch self {
    case .low: "low"
    case .normal: "normal"
    case .high: "high"
    }
  }

  public static func < (a: Priority, b: Priority) -> Bool { a.rawValue < b.rawValue }
}

/// How long a request may take. `idle` is the longest silence (no byte either way) before the
/// exchange fails with "timed out"; `deadline` bounds the whole exchange. A trickle of one byte
/// every 2 s survives an idle timeout of 5 s.
public struct Timeouts: Sendable, Equatable, Hashable {
  public var idle: Double
  public var deadline: Double?

  public init(idle: Double = 30, deadline: Double? = nil) {
    self.idle = idle
    self.deadline = deadline
  }
}

/// One request ready to send: every template resolved, the URL absolute with its query.
/// Requests are values; each send creates a new exchange with its own id.
public struct Request: Sendable, Equatable {
  /// The fields, behind one reference (`CopyOnWrite`): a request is copied into each exchange,
  /// each attempt and each event that carries it.
  private struct Fields: Sendable, Equatable {
    var name: String
    var method: HTTPMethod
    var url: String
    var headers: HTTPHeaders
    var body: RequestBody
    var timeouts: Timeouts
    var priority: Priority
    var validation: Validation
    var retry: RetryPolicy?
    var followRedirects: Bool
    var maxRedirects: Int
    var insecure: Bool
    var group: String?
    var limit: GroupLimit?
    var tags: [String: String] = [:]
    var cache: CachePolicy?
    var dedup: Bool
    var throttle: Double? = nil
    var secrets: [String]
    var download: DownloadTarget?
    var digest: DigestCredentials?
    var tls: TLSSettings?
    var maxBodyBytes: Int64? = nil
    var cookieJar: CookieJar? = nil
    var stream: StreamFormat? = nil
    var reconnect: Bool = false
    var authorizer: Authorizer? = nil
    var secretResponseFields: [String] = []
    var compressed: Bool = true
    var proxy: String? = nil
    var noProxy: String? = nil
    var requestTarget: String? = nil
  }

  private var fields: CopyOnWrite<Fields>

  public var name: String {
    _read { yield fields.value.name }
    _modify { yield &fields.value.name }
  }
  public var method: HTTPMethod {
    _read { yield fields.value.method }
    _modify { yield &fields.value.method }
  }
  /// Absolute `http` or `https` URL, query included, already percent-encoded.
  public var url: String {
    _read { yield fields.value.url }
    _modify { yield &fields.value.url }
  }
  public var headers: HTTPHeaders {
    _read { yield fields.value.headers }
    _modify { yield &fields.value.headers }
  }
  public var body: RequestBody {
    _read { yield fields.value.body }
    _modify { yield &fields.value.body }
  }
  public var timeouts: Timeouts {
    _read { yield fields.value.timeouts }
    _modify { yield &fields.value.timeouts }
  }
  public var priority: Priority {
    _read { yield fields.value.priority }
    _modify { yield &fields.value.priority }
  }
  public var validation: Validation {
    _read { yield fields.value.validation }
    _modify { yield &fields.value.validation }
  }
  public var retry: RetryPolicy? {
    _read { yield fields.value.retry }
    _modify { yield &fields.value.retry }
  }
  public var followRedirects: Bool {
    _read { yield fields.value.followRedirects }
    _modify { yield &fields.value.followRedirects }
  }
  public var maxRedirects: Int {
    _read { yield fields.value.maxRedirects }
    _modify { yield &fields.value.maxRedirects }
  }
  /// Skip TLS certificate and host verification.
  public var insecure: Bool {
    _read { yield fields.value.insecure }
    _modify { yield &fields.value.insecure }
  }
  /// Exchanges sent with the same group can be cancelled together.
  public var group: String? {
    _read { yield fields.value.group }
    _modify { yield &fields.value.group }
  }
  /// A limit shared by the requests of a group (a batch's own concurrency): at most `max` of
  /// those with this `name` run at once, within the agent's own limits.
  public var limit: GroupLimit? {
    _read { yield fields.value.limit }
    _modify { yield &fields.value.limit }
  }
  /// Labels that travel with the request into its events and result, for whoever sent it
  /// (batches and chains put their name and the step there). The engine ignores them.
  public var tags: [String: String] {
    _read { yield fields.value.tags }
    _modify { yield &fields.value.tags }
  }
  /// The response cache policy; nil for none.
  public var cache: CachePolicy? {
    _read { yield fields.value.cache }
    _modify { yield &fields.value.cache }
  }
  /// Join an identical idempotent request already in flight instead of sending another.
  public var dedup: Bool {
    _read { yield fields.value.dedup }
    _modify { yield &fields.value.dedup }
  }
  /// A debounce window in seconds (XPNetworking's uniqueTimeOut): a send of the same request
  /// (method, URL, headers, body; any method) less than this long after an accepted one fails at
  /// once with kind `throttled`, without the network. Nil or 0: off.
  public var throttle: Double? {
    _read { yield fields.value.throttle }
    _modify { yield &fields.value.throttle }
  }
  /// Values that must never be shown, logged or stored (resolved `{{secret.NAME}}`s and what was
  /// derived from them, such as a Basic authorization header). See `redacted()`.
  public var secrets: [String] {
    _read { yield fields.value.secrets }
    _modify { yield &fields.value.secrets }
  }
  /// Stream the body to this file, resumably, instead of into memory. Downloads are never cached
  /// and always join an identical download in flight.
  public var download: DownloadTarget? {
    _read { yield fields.value.download }
    _modify { yield &fields.value.download }
  }
  /// HTTP Digest credentials (RFC 7616): curl answers the server's challenge. (Basic and bearer
  /// auth are plain headers.)
  public var digest: DigestCredentials? {
    _read { yield fields.value.digest }
    _modify { yield &fields.value.digest }
  }
  /// Certificate checks beyond the system's: a CA bundle, a pinned public key.
  public var tls: TLSSettings? {
    _read { yield fields.value.tls }
    _modify { yield &fields.value.tls }
  }
  /// The most bytes the response body may have (after decoding: a gzip bomb is stopped by the
  /// same count); more stops the transfer with `body over N MB: stopped; raise maxBodyMB or use
  /// download`. Nil: the agent's `Configuration.maxBodyBytes` (1024 MB). Downloads are bounded
  /// by their disk instead.
  public var maxBodyBytes: Int64? {
    _read { yield fields.value.maxBodyBytes }
    _modify { yield &fields.value.maxBodyBytes }
  }
  /// The cookie jar this request sends cookies from and stores the `Set-Cookie`s of its
  /// responses (and of every redirect on the way) in; nil sends and stores none.
  public var cookieJar: CookieJar? {
    _read { yield fields.value.cookieJar }
    _modify { yield &fields.value.cookieJar }
  }
  /// Cut the response body into events as it arrives (`AgentEvent.streamEvents`), whatever its
  /// `Content-Type`; nil: only when the Content-Type names a stream (`StreamFormat(contentType:)`).
  public var stream: StreamFormat? {
    _read { yield fields.value.stream }
    _modify { yield &fields.value.stream }
  }
  /// An SSE stream that drops (ends, or loses its connection) is sent again after the server's
  /// `retry` (3 s without one) with `Last-Event-ID`, as EventSource does, until it is cancelled,
  /// its deadline passes or the server answers with anything but a 2xx event stream.
  public var reconnect: Bool {
    _read { yield fields.value.reconnect }
    _modify { yield &fields.value.reconnect }
  }
  /// Gives the request its `Authorization` before it is sent and renews it after a 401 (once):
  /// OAuth 2.0 tokens (`Authorizer`). Nil: the headers are sent as they are.
  public var authorizer: Authorizer? {
    _read { yield fields.value.authorizer }
    _modify { yield &fields.value.authorizer }
  }
  /// Top-level members of a JSON response whose string values are secrets (a token endpoint's
  /// `access_token`, `refresh_token`): the sender's completion gets the response as received,
  /// every event (the queue, history, reporters) gets those values masked.
  public var secretResponseFields: [String] {
    _read { yield fields.value.secretResponseFields }
    _modify { yield &fields.value.secretResponseFields }
  }

  /// Ask for compressed responses (`Accept-Encoding` with every coding libcurl decodes) and
  /// decode them, as `curl --compressed` does; false sends no `Accept-Encoding` of reqbench's own
  /// and shows the body as it arrives, as curl without `--compressed` does. An `Accept-Encoding`
  /// header the request sets is sent either way (and decoded when this is true).
  public var compressed: Bool {
    _read { yield fields.value.compressed }
    _modify { yield &fields.value.compressed }
  }
  /// The proxy this request goes through (`http://host:port`, curl's CURLOPT_PROXY syntax),
  /// instead of the agent's (from HTTP_PROXY / HTTPS_PROXY); nil: the agent's.
  public var proxy: String? {
    _read { yield fields.value.proxy }
    _modify { yield &fields.value.proxy }
  }
  /// Hosts that do not go through the proxy (curl's NOPROXY list: `localhost,.example.com`, `*`
  /// for all), instead of the agent's NO_PROXY; nil: the agent's.
  public var noProxy: String? {
    _read { yield fields.value.noProxy }
    _modify { yield &fields.value.noProxy }
  }
  /// The request line's target instead of the URL's path and query (curl's `--request-target`):
  /// `*` for `OPTIONS *`, the asterisk form, which no URL can say; nil: the URL's.
  public var requestTarget: String? {
    _read { yield fields.value.requestTarget }
    _modify { yield &fields.value.requestTarget }
  }

  public init(
    name: String = "",
    method: HTTPMethod = .GET,
    url: String,
    headers: HTTPHeaders = [:],
    body: RequestBody = .empty,
    timeouts: Timeouts = Timeouts(),
    priority: Priority = .normal,
    validation: Validation = Validation(),
    retry: RetryPolicy? = nil,
    followRedirects: Bool = true,
    maxRedirects: Int = 10,
    insecure: Bool = false,
    group: String? = nil,
    cache: CachePolicy? = nil,
    dedup: Bool = true,
    secrets: [String] = [],
    download: DownloadTarget? = nil,
    digest: DigestCredentials? = nil,
    tls: TLSSettings? = nil
  ) {
    fields = CopyOnWrite(Fields(
      name: name, method: method, url: url, headers: headers, body: body, timeouts: timeouts, priority: priority, validation: validation, retry: retry, followRedirects: followRedirects, maxRedirects: maxRedirects, insecure: insecure, group: group, cache: cache, dedup: dedup, secrets: secrets, download: download, digest: digest, tls: tls))
  }

  /// This request with every secret in its URL, headers and body replaced by `••••`, and the
  /// values of a `Cookie` header it sets (`CookieMasking`): what history, logs, exports and the
  /// screen show.
  public func redacted() -> Request {
    guard !secrets.isEmpty else {
      guard headers.contains("Cookie") else { return self }
      var copy = self
      copy.headers = CookieMasking.masked(headers)
      return copy
    }
    let redaction = Redaction(secrets: secrets)
    var copy = self
    copy.url = redaction.apply(url)
    copy.headers = CookieMasking.masked(HTTPHeaders(headers.fields.map { ($0.name, redaction.apply($0.value)) }))
    if let text = String(validating: body.bytes, as: UTF8.self) {
      copy.body.bytes = Array(redaction.apply(text).utf8)
    }
    copy.digest?.password = redaction.apply(digest?.password ?? "")
    switch body.stream {
    case .multipart(let parts):
      copy.body.stream = .multipart(parts.map { part in
        var masked = part
        masked.value = part.value.map(redaction.apply)
        masked.file = part.file.map(redaction.apply)
        return masked
      })
    case .file(let path): copy.body.stream = .file(path: redaction.apply(path))
    case nil: break
    }
    // A path a secret filled in (`download.to: "out/{{secret.k}}"`).
    if let path = download?.path { copy.download?.path = redaction.apply(path) }
    return copy
  }
}

extension Request {
  /// Whether the body goes on the wire: never for HEAD (its response has no body to wait for);
  /// for POST, PUT and PATCH when there is one, even empty (`Content-Length: 0`; no body at all
  /// sends none, as `curl -X POST` without data); for any other method, a GET among them, when
  /// it has bytes, as curl sends `-X GET -d …`.
  public var sendsBody: Bool {
    switch method {
    case .HEAD: false
    case .POST, .PUT, .PATCH: !body.isEmpty
    default: !body.bytes.isEmpty || body.stream != nil
    }
  }
}

extension Request {
  /// What the agent judges a response by: `validation`, with 3xx accepted too when the request
  /// does not follow redirects and keeps the default status range. A redirect that was not
  /// followed is the answer the request asked for, as for curl without `-L`; a `validate.status`
  /// of its own decides otherwise.
  public var judgedBy: Validation {
    guard !followRedirects, validation.status == Validation.defaultStatus else { return validation }
    var judged = validation
    judged.status = [200...399]
    return judged
  }
}

/// A user name and password for HTTP Digest authentication.
public struct DigestCredentials: Sendable, Equatable, Hashable {
  public var user: String
  public var password: String
  public init(user: String, password: String) {
    self.user = user
    self.password = password
  }
}

/// How the server's certificate is checked besides the system's trust store, and the client's
/// own certificate.
public struct TLSSettings: Sendable, Equatable, Hashable {
  /// A PEM file of CA certificates to trust (instead of the system's).
  public var caFile: String?
  /// The server's public key must match: `sha256//BASE64` (several joined by `;`), checked
  /// before any request byte is sent (CURLOPT_PINNEDPUBLICKEY).
  public var pinnedPublicKey: String?
  /// A client certificate (PEM) for servers that ask for one (mutual TLS), and its key (PEM,
  /// unencrypted; nil when the certificate file holds the key too).
  public var clientCertificate: String?
  public var clientKey: String?
  public init(
    caFile: String? = nil, pinnedPublicKey: String? = nil, clientCertificate: String? = nil, clientKey: String? = nil
  ) {
    self.caFile = caFile
    self.pinnedPublicKey = pinnedPublicKey
    self.clientCertificate = clientCertificate
    self.clientKey = clientKey
  }
}

/// At most `max` requests with this `name` run at once.
public struct GroupLimit: Sendable, Equatable, Hashable {
  public var name: String
  public var max: Int
  public init(name: String, max: Int) {
    self.name = name
    self.max = max
  }
}

/// Masks secret values in text. Longer secrets are replaced first, so a secret that contains
/// another is masked whole.
public struct Redaction: Sendable {
  public static let mask = "••••"
  private let secrets: [String]

  public init(secrets: [String]) {
    self.secrets = Set(secrets.filter { !$0.isEmpty }).sorted { $0.count > $1.count }
  }

  public func apply(_ text: String) -> String {
    var out = text
    for secret in secrets where out.contains(secret) {
      out = out.replacingOccurrences(of: secret, with: Redaction.mask)
    }
    return out
  }
}

extension Request {
  /// Whether the body's content type is the form type and curl sends that type itself (the body
  /// goes to curl as POSTFIELDS: any POST, PUT or PATCH, another method but HEAD with bytes):
  /// then the engine leaves it to curl, which sends it after `Content-Length` as the curl tool
  /// does, where a header of the engine's would stand before it.
  public var curlAddsFormType: Bool {
    guard body.contentType == "application/x-www-form-urlencoded" else { return false }
    switch body.stream {
    case .file?: return method != .PUT && method != .HEAD  // posted as curl --data-binary @file
    case .multipart?: return false
    case nil: break
    }
    switch method {
    case .HEAD: return false
    case .POST, .PUT, .PATCH: return true
    default: return !body.bytes.isEmpty
    }
  }
}
