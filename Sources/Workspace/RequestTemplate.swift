import Base
import RequestEngine

/// One request as the workspace file describes it, `{{variables}}` not yet filled in.
/// `Workspace.prepare` turns it into a `RequestEngine.Request`.
///
/// ```json
/// {"name": "get-user", "method": "GET", "url": "/users/{{id}}", "query": {"verbose": "1"},
///  "headers": {"Accept": "application/json"}, "timeout": 30, "priority": "high",
///  "validate": {"status": [200, 299], "json": {"id": "number"}}}
/// ```
/// Keys the app does not know are kept when the workspace is saved.
public struct RequestTemplate: Sendable, Equatable, SwitchableFields {
  /// Unique in the workspace; `/` separates folders (`users/get`).
  public var name: String
  public var method: HTTPMethod
  /// Absolute, or relative to the workspace's `baseURL`.
  public var url: String
  /// Query parameters in the order written; values may be any JSON (see `QueryEncoder`).
  /// Switched-off ones are here too (see `switchedOff`); `sentQuery` leaves them out.
  public var query: JSONObject
  /// Header fields in the order written; they win over headers the body or auth would add.
  /// Switched-off ones are here too (see `switchedOff`); `sentHeaders` leaves them out.
  public var headers: HTTPHeaders
  /// The headers and query parameters switched off: kept (in the editor and in the file, as
  /// `{"value": …, "enabled": false}`) but left out of what is sent, exported and cached.
  public var switchedOff = SwitchedOff()
  public var body: BodyTemplate? {
    get {
      switch storedBody {
      case .template(let body): body
      case .deferredJSON(let text): .json(text.value)
      }
    }
    set { storedBody = .template(newValue) }
  }
  /// The body as read: a large JSON body stays its text in the file until it is used (see
  /// `StoredBody`).
  var storedBody: StoredBody = .template(nil)
  public var auth: Auth?
  /// Idle timeout in seconds: the longest silence before the exchange fails.
  public var timeout: Double
  /// Total seconds the whole exchange may take; nil for no limit.
  public var deadline: Double?
  public var priority: Priority
  /// The `validate` object: accepted statuses and a JSON shape.
  public var validation: Validation
  /// nil uses the workspace's `retry` (and no retries when that is absent too).
  public var retry: RetryPolicy?
  public var followRedirects: Bool
  public var maxRedirects: Int
  /// Skip TLS certificate and host verification.
  public var insecure: Bool
  /// `"compressed": false`: send no `Accept-Encoding` of reqbench's own and show the response as
  /// it arrives, as curl without `--compressed` does (default true: ask for every coding and
  /// decode).
  public var compressed = true
  /// `"proxy": "http://proxy.test:3128"`: this request goes through that proxy (curl's `-x`),
  /// whatever HTTP_PROXY / HTTPS_PROXY say; `{{variables}}` allowed.
  public var proxy: String?
  /// `"noProxy": "localhost,.internal.test"`: hosts that skip the proxy (curl's `--noproxy`),
  /// instead of NO_PROXY; `*` for all.
  public var noProxy: String?
  /// `"requestTarget": "*"`: the request line's target instead of the URL's path and query
  /// (curl's `--request-target`); `OPTIONS *` is the one use most people meet.
  public var requestTarget: String?
  /// Resolve a relative URL against the workspace's `cdnURL` instead of its `baseURL`.
  public var useCDN: Bool
  /// The response cache policy; `sensitive` is a template, filled in by `prepare`.
  public var cache: CachePolicy?
  /// Join an identical idempotent request in flight (`"dedup": false` turns it off).
  public var dedup: Bool
  /// Send cookies from the environment's jar and keep the ones the response sets
  /// (`"cookies": false` turns it off for this request).
  public var cookies: Bool = true
  /// `"throttle": 2`: a send of the same request within 2 s of the last one is refused
  /// (`throttled`), a guard against double submits.
  public var throttle: Double?
  /// Save the body to a file, resumably, instead of showing it.
  public var download: DownloadTemplate?
  /// `"tls": {"ca": "certs/ca.pem", "pin": "sha256//…"}`: trust this CA bundle (a path relative
  /// to the workspace's folder, or absolute), require this public key.
  public var tls: TLSSettings?
  /// `"maxBodyMB": 64`: the largest response body, in MB (1 MB = 1,048,576 bytes); nil uses the
  /// workspace's `maxBodyMB` (1024 when that is absent too). Downloads are bounded by their disk.
  public var maxBodyMB: Double?
  /// `"stream": "sse"`: cut the response into events as it arrives whatever its Content-Type
  /// (nil: when the Content-Type names a stream).
  public var stream: StreamFormat?
  /// `"reconnect": true`: an SSE stream that drops connects again with `Last-Event-ID`.
  public var reconnect = false
  /// `"imported": {"openapi": …, "operation": …}`: the operation of an OpenAPI description this
  /// request was imported from, so a re-import updates it (see `ImportOrigin`).
  public var imported: ImportOrigin?

  /// The JSON object this template was read from, unknown keys included; changes are written back
  /// into it so a save keeps everything the app does not know about.
  package var source: JSONObject

  public static let defaultTimeout: Double = 30
  /// What `"timeout": 0` means.
  static let noTimeout = "no idle timeout"

  public init(
    name: String,
    method: HTTPMethod = .GET,
    url: String,
    query: JSONObject = JSONObject(),
    headers: HTTPHeaders = [:],
    body: BodyTemplate? = nil,
    auth: Auth? = nil,
    timeout: Double = RequestTemplate.defaultTimeout,
    deadline: Double? = nil,
    priority: Priority = .normal,
    validation: Validation = Validation(),
    retry: RetryPolicy? = nil,
    followRedirects: Bool = true,
    maxRedirects: Int = 10,
    insecure: Bool = false,
    useCDN: Bool = false,
    cache: CachePolicy? = nil,
    dedup: Bool = true
  ) {
    self.init(
      name: name, method: method, url: url, query: query, headers: headers, body: body, auth: auth,
      timeout: timeout, deadline: deadline, priority: priority, validation: validation, retry: retry,
      followRedirects: followRedirects, maxRedirects: maxRedirects, insecure: insecure, useCDN: useCDN,
      cache: cache, dedup: dedup,
      // A new request is written with its name, method and URL first, the method always spelled out.
      source: JSONObject(distinctKeys: [
        (key: "name", value: .string(name)), (key: "method", value: .string(method.rawValue)),
        (key: "url", value: .string(url)),
      ]))
  }

  /// A template at its defaults (the public initializer's) whose `source` is the object it is
  /// read from (`WorkspaceReader` fills in the rest). Made in place, field by field: building a
  /// template at its defaults and then replacing its source copied it twice, a quarter of the
  /// time reading 10,000 requests took.
  init(source: JSONObject) {
    self.init(
      name: "", method: .GET, url: "", query: JSONObject(), headers: [:], body: nil, auth: nil,
      timeout: RequestTemplate.defaultTimeout, deadline: nil, priority: .normal, validation: Validation(),
      retry: nil, followRedirects: true, maxRedirects: 10, insecure: false, useCDN: false, cache: nil,
      dedup: true, source: source)
  }

  private init(
    name: String, method: HTTPMethod, url: String, query: JSONObject, headers: HTTPHeaders,
    body: BodyTemplate?, auth: Auth?, timeout: Double, deadline: Double?, priority: Priority,
    validation: Validation, retry: RetryPolicy?, followRedirects: Bool, maxRedirects: Int,
    insecure: Bool, useCDN: Bool, cache: CachePolicy?, dedup: Bool, source: JSONObject
  ) {
    self.name = name
    self.method = method
    self.url = url
    self.query = query
    self.headers = headers
    self.storedBody = .template(body)
    self.auth = auth
    self.timeout = timeout
    self.deadline = deadline
    self.priority = priority
    self.validation = validation
    self.retry = retry
    self.followRedirects = followRedirects
    self.maxRedirects = maxRedirects
    self.insecure = insecure
    self.useCDN = useCDN
    self.cache = cache
    self.dedup = dedup
    self.source = source
  }
}

/// What a request sends, before variables are filled in.
public enum BodyTemplate: Sendable, Equatable {
  /// `{"json": any}`: sent compact, `Content-Type: application/json`. `{{variables}}` are filled
  /// in inside strings (keys included).
  case json(JSONValue)
  /// `{"form": {"k": "v"}}`: `application/x-www-form-urlencoded`, fields in order. Values are
  /// strings, numbers or booleans (sent as `true` / `false`).
  case form(JSONObject)
  /// `{"text": "…", "contentType": "…"}`: `text/plain; charset=utf-8` unless a content type is
  /// given.
  case text(String, contentType: String?)
  /// `{"multipart": [{"name": "note", "value": "hello"}, {"name": "file", "file": "data/a.png",
  /// "type": "image/png"}]}`: `multipart/form-data`, parts in order, files streamed from disk.
  case multipart([MultipartField])
  /// `{"file": "data/blob.bin", "contentType": "…"}`: the file's bytes, streamed from disk;
  /// `application/octet-stream` unless a content type is given.
  case file(String, contentType: String?)

  /// The key that names the kind in the file.
  public var kind: String {
    switch self {
    case .json: "json"
    case .form: "form"
    case .text: "text"
    case .multipart: "multipart"
    case .file: "file"
    }
  }

  static let kinds = ["json", "form", "text", "multipart", "file"]
}

/// A request's body as the model holds it. A JSON body read from a file whose text is 64 KB or
/// more is kept as that text (`JSONText`, a slice of the file's bytes the workspace keeps anyway)
/// and made a value the first time `body` is asked for: a JSON value takes several times its
/// text in memory (an allocation per object and array), so a workspace holding a large body
/// would need many times its file to run another request.
enum StoredBody: Sendable, Equatable {
  case template(BodyTemplate?)
  case deferredJSON(JSONText)

  /// The size of a JSON body's text from which it is kept as text (`Workspace.parse`).
  static let deferredBytes = 64 * 1024

  static func == (a: StoredBody, b: StoredBody) -> Bool {
    switch (a, b) {
    case (.template(let x), .template(let y)): x == y
    case (.deferredJSON(let x), .deferredJSON(let y)): x == y
    case (.deferredJSON(let text), .template(let body)), (.template(let body), .deferredJSON(let text)):
      body == .json(text.value)
    }
  }
}

/// One part of a multipart body: `value` (a text field) or `file` (a path relative to the
/// workspace's folder), with an optional `type` and `filename`. Every string may hold
/// `{{variables}}`.
public struct MultipartField: Sendable, Equatable {
  public var name: String
  public var value: String?
  public var file: String?
  public var type: String?
  public var filename: String?

  public init(name: String, value: String? = nil, file: String? = nil, type: String? = nil, filename: String? = nil) {
    self.name = name
    self.value = value
    self.file = file
    self.type = type
    self.filename = filename
  }
}

/// `"download": {"to": "downloads/big.bin", "sha256": "…", "trustLength": false}`: the body goes
/// to a file, resumably. `to` is relative to the workspace's folder (`{{variables}}` allowed); a
/// folder (an existing one, or a path ending in `/`) gets the URL's last path component.
public struct DownloadTemplate: Sendable, Equatable {
  public var to: String
  /// Lower-case hex SHA-256 the finished file must have.
  public var sha256: String?
  /// Resume even without validators from the server.
  public var trustLength: Bool

  public init(to: String, sha256: String? = nil, trustLength: Bool = false) {
    self.to = to
    self.sha256 = sha256
    self.trustLength = trustLength
  }
}

/// How a request authenticates.
public enum Auth: Sendable, Equatable {
  /// `{"basic": {"user": "…", "password": "…"}}`, sent up front as `Authorization: Basic …`.
  case basic(user: String, password: String)
  /// `{"bearer": "token"}`, sent as `Authorization: Bearer token`.
  case bearer(String)
  /// `{"digest": {"user": "…", "password": "…"}}`: HTTP Digest (RFC 7616), curl answers the
  /// server's challenge.
  case digest(user: String, password: String)
  /// `{"oauth2": {"grant": …, "tokenURL": …, "clientId": …, …}}`: a bearer token reqbench gets
  /// from the token endpoint itself (`OAuth2Settings`, `OAuth2Tokens`).
  case oauth2(OAuth2Settings)

  static let kinds = ["basic", "bearer", "digest", "oauth2"]

  /// The key that names the kind in the file.
  public var kind: String {
    switch self {
    case .basic: "basic"
    case .bearer: "bearer"
    case .digest: "digest"
    case .oauth2: "oauth2"
    }
  }
}

/// The workspace's `defaults`: `{"headers": {…}, "query": {…}}`, added to requests whose URL is
/// relative. Values may hold `{{variables}}`; entries may be switched off, as a request's can.
public struct RequestDefaults: Sendable, Equatable, SwitchableFields {
  public var headers: HTTPHeaders
  public var query: JSONObject
  public var switchedOff = SwitchedOff()

  public init(headers: HTTPHeaders = [:], query: JSONObject = JSONObject()) {
    self.headers = headers
    self.query = query
  }
}

/// The agent's limits for this workspace: `{"maxConcurrent": 8, "maxPerHost": 6}`.
public struct AgentSettings: Sendable, Equatable, Hashable {
  public var maxConcurrent: Int
  public var maxPerHost: Int

  public init(maxConcurrent: Int = 8, maxPerHost: Int = 6) {
    self.maxConcurrent = maxConcurrent
    self.maxPerHost = maxPerHost
  }
}

/// How much history the workspace keeps: `{"perRequest": 50, "maxMB": 200}`; the oldest
/// entries are dropped first.
public struct HistorySettings: Sendable, Equatable, Hashable {
  /// Entries kept per request name; 0 records none.
  public var perRequest: Int
  /// Megabytes on disk over all requests (may be fractional).
  public var maxMB: Double

  public init(perRequest: Int = 50, maxMB: Double = 200) {
    self.perRequest = perRequest
    self.maxMB = maxMB
  }
}

/// A named value that fills `{{name}}` placeholders.
public struct Variable: Sendable, Equatable, Hashable {
  public var name: String
  public var value: String

  public init(name: String, value: String) {
    self.name = name
    self.value = value
  }
}

/// A named set of variables, e.g. `local` or `staging`; its values win over the workspace's
/// `variables` when the environment is selected.
public struct Environment: Sendable, Equatable, Hashable {
  public var name: String
  public var variables: [Variable]

  public init(name: String, variables: [Variable]) {
    self.name = name
    self.variables = variables
  }

  public func value(of variable: String) -> String? {
    variables.value(of: variable)
  }
}

extension Array where Element == Variable {
  /// The value of the variable `name`, nil when it is not defined.
  public func value(of name: String) -> String? {
    last { $0.name == name }?.value
  }
}

/// Which headers and query parameters of a request (or of the workspace's `defaults`) are
/// switched off. In the file a switched-off entry is an object:
/// `"headers": {"X-Debug": {"value": "1", "enabled": false}}`,
/// `"query": {"page": {"value": 2, "enabled": false}}` (for the query, only an object of exactly
/// these two keys, `enabled` a boolean, is an entry: any other object is a nested parameter).
public struct SwitchedOff: Sendable, Equatable, Hashable {
  /// Header names, lower-cased (header names compare case-insensitively).
  public private(set) var headers: Set<String> = []
  /// Query parameter keys, as written.
  public private(set) var query: Set<String> = []

  public init() {}

  public var isEmpty: Bool { headers.isEmpty && query.isEmpty }

  public func contains(header name: String) -> Bool { headers.contains(name.lowercased()) }
  public func contains(query key: String) -> Bool { query.contains(key) }

  public mutating func set(header name: String, off: Bool) {
    if off { headers.insert(name.lowercased()) } else { headers.remove(name.lowercased()) }
  }

  public mutating func set(query key: String, off: Bool) {
    if off { query.insert(key) } else { query.remove(key) }
  }
}

/// Headers and query parameters, some perhaps switched off: a request's, or the workspace's
/// `defaults`.
public protocol SwitchableFields {
  var headers: HTTPHeaders { get set }
  var query: JSONObject { get set }
  var switchedOff: SwitchedOff { get set }
}

extension SwitchableFields {
  public func isEnabled(header name: String) -> Bool { !switchedOff.contains(header: name) }
  public func isEnabled(query key: String) -> Bool { !switchedOff.contains(query: key) }

  /// Switches the header `name` (every field of that name) off or back on; it stays in `headers`.
  public mutating func setEnabled(_ enabled: Bool, header name: String) {
    switchedOff.set(header: name, off: !enabled)
  }

  /// Switches the query parameter `key` off or back on; it stays in `query`.
  public mutating func setEnabled(_ enabled: Bool, query key: String) {
    switchedOff.set(query: key, off: !enabled)
  }

  /// The headers that are sent: those not switched off, in order.
  public var sentHeaders: HTTPHeaders {
    guard !switchedOff.headers.isEmpty else { return headers }
    var sent = HTTPHeaders()
    for field in headers.fields where isEnabled(header: field.name) { sent.add(field.name, field.value) }
    return sent
  }

  /// The query parameters that are sent: those not switched off, in order.
  public var sentQuery: JSONObject {
    guard !switchedOff.query.isEmpty else { return query }
    return JSONObject(query.members.filter { isEnabled(query: $0.key) })
  }
}
