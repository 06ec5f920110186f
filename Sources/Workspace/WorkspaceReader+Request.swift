// Just over 500 lines because one request template's keys are read in one place (each key's
// checks beside its value, the errors naming its place); the other parts of the file have their
// own WorkspaceReader extensions (OAuth2, validation, the document).
import RequestEngine

// One request template: query, headers, body, multipart, download, auth, TLS, retry, cache.
extension WorkspaceReader {
  // MARK: - Request

  /// `deferredBody`: the request's JSON body, left as text by the parser (`null` in `value`).
  package mutating func request(_ value: JSONValue, _ path: ReaderPath, deferredBody: JSONText? = nil) -> RequestTemplate? {
    guard let object = object(value, path) else { return nil }
    var request = RequestTemplate(source: object)
    // A request has a few of the keys below: they are found in one pass over its members, not
    // by looking each key up (which compared every key with every member).
    let known = KnownMembers<RequestKey>(object)
    let ok = clean { r in
      func at(_ key: RequestKey) -> ReaderPath { path.appending(key.name) }
      func present(_ key: RequestKey) -> JSONValue? {
        guard let value = known[key], value != .null else { return nil }
        return value
      }
      if let value = known[.name] {
        if let name = r.nonEmptyString(value, at(.name)) { request.name = name }
      } else {
        r.fail(path, "missing \"name\"; every request needs a unique name")
      }
      if let value = known[.url] {
        if let url = r.lineTemplate(value, at(.url)) { request.url = url }
      } else {
        r.fail(path, "missing \"url\"; write an absolute URL or a path relative to \"baseURL\"")
      }
      if let value = present(.method), let method = r.method(value, at(.method)) {
        request.method = method
      }
      if let value = present(.query), let fields = r.query(value, at(.query)) {
        request.setQuery(fields)
      }
      if let value = present(.headers), let fields = r.headers(value, at(.headers)) {
        request.setHeaders(fields)
      }
      if let value = present(.body) {
        request.body = r.body(value, at(.body))
        if let deferredBody { r.keep(deferredBody, in: &request, at(.body)) }
        if request.method == .HEAD {
          // curl would send it and then wait for a response body a HEAD never gets.
          r.fail(at(.body), "a HEAD request has no body; remove \"body\" or use another method")
        }
      }
      if let value = present(.auth) { request.auth = r.auth(value, at(.auth)) }
      if let value = present(.imported) { request.imported = r.importOrigin(value, at(.imported)) }
      if let value = present(.timeout), let timeout = r.seconds(value, at(.timeout), zeroMeans: RequestTemplate.noTimeout) {
        request.timeout = timeout
      }
      if let value = present(.deadline) { request.deadline = r.seconds(value, at(.deadline)) }
      if let value = present(.priority), let priority = r.priority(value, at(.priority)) {
        request.priority = priority
      }
      if let value = present(.followRedirects), let flag = r.bool(value, at(.followRedirects)) {
        request.followRedirects = flag
      }
      if let value = present(.maxRedirects),
        let count = r.int(value, at(.maxRedirects), atLeast: 0, atMost: ValueLimits.redirects)
      {
        request.maxRedirects = count
      }
      if let value = present(.insecure), let flag = r.bool(value, at(.insecure)) {
        request.insecure = flag
      }
      if let value = present(.compressed), let flag = r.bool(value, at(.compressed)) {
        request.compressed = flag
      }
      if let value = present(.proxy), let proxy = r.proxy(value, at(.proxy)) { request.proxy = proxy }
      if let value = present(.noProxy), let list = r.lineTemplate(value, at(.noProxy)) { request.noProxy = list }
      if let value = present(.requestTarget), let target = r.requestTarget(value, at(.requestTarget)) {
        request.requestTarget = target
      }
      if let value = present(.useCDN), let flag = r.bool(value, at(.useCDN)) {
        request.useCDN = flag
      }
      if let value = present(.cache) { request.cache = r.cache(value, at(.cache)) }
      if let value = present(.tls) { request.tls = r.tls(value, at(.tls)) }
      if let value = present(.download) {
        request.download = r.download(value, at(.download))
        if request.method != .GET {
          r.fail(at(.download), "a download needs GET (a resume asks for a Range, which only GET honours)")
        }
      }
      if let value = present(.dedup), let flag = r.bool(value, at(.dedup)) {
        request.dedup = flag
      }
      if let value = present(.cookies), let flag = r.bool(value, at(.cookies)) { request.cookies = flag }
      if let value = present(.stream) { request.stream = r.streamFormat(value, at(.stream)) }
      if let value = present(.reconnect), let flag = r.bool(value, at(.reconnect)) {
        request.reconnect = flag
        if flag, request.stream != nil, request.stream != .sse {
          r.fail(at(.reconnect), "only an SSE stream reconnects (with Last-Event-ID); remove \"reconnect\" or use \"stream\": \"sse\"")
        }
      }
      if let value = present(.throttle),
        let seconds = r.number(value, at(.throttle), from: 0, atMost: ValueLimits.throttleSeconds, unit: "seconds")
      {
        request.throttle = seconds
      }
      if let value = present(.retry) { request.retry = r.retry(value, at(.retry)) }
      if let value = present(.maxBodyMB) { request.maxBodyMB = r.megabytes(value, at(.maxBodyMB)) }
      if let value = present(.validate), let validation = r.validation(value, at(.validate)) {
        request.validation = validation
      }
    }
    return ok ? request : nil
  }

  /// `"proxy": "http://proxy.test:3128"`: a URL of scheme http, https, socks4, socks4a, socks5 or
  /// socks5h, or `host:port` (http, as curl reads it); `{{variables}}` allowed.
  mutating func proxy(_ value: JSONValue, _ path: ReaderPath) -> String? {
    guard let text = lineTemplate(value, path) else { return nil }
    guard !text.trimmingSpaces().isEmpty else {
      fail(path, "is empty; write the proxy as http://host:port, or remove \"proxy\"")
      return nil
    }
    if let found = text.range(of: "://") {
      let scheme = text[..<found.lowerBound].lowercased()
      guard scheme.hasPrefix("{{") || WorkspaceReader.proxySchemes.contains(scheme) else {
        fail(
          path, "the proxy scheme \(JSONSerializer.quote(scheme)) is not one reqbench speaks; "
            + "use \(WorkspaceReader.proxySchemes.joined(separator: ", "))")
        return nil
      }
    }
    return text
  }

  /// `"requestTarget": "*"`: one token of visible characters, as a request line's target is.
  mutating func requestTarget(_ value: JSONValue, _ path: ReaderPath) -> String? {
    guard let text = lineTemplate(value, path) else { return nil }
    guard WorkspaceReader.isRequestTarget(text) else {
      fail(path, "is not a request target (visible ASCII, no spaces: * for OPTIONS *, or /path?query)")
      return nil
    }
    return text
  }

  /// Whether `text` can be a request line's target: visible ASCII, no spaces, not empty.
  package static func isRequestTarget(_ text: String) -> Bool {
    !text.isEmpty && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7F }
  }

  package static let proxySchemes = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

  /// `"stream": "sse" | "ndjson" | "lines" | "json-seq"`.
  mutating func streamFormat(_ value: JSONValue, _ path: ReaderPath) -> StreamFormat? {
    if case .string(let text) = value, let format = StreamFormat(rawValue: text) { return format }
    fail(path, "must be \"sse\", \"ndjson\", \"lines\" or \"json-seq\", found \(JSONSerializer.compact(value))")
    return nil
  }

  /// The keys of a request object, the usual ones first (`KnownMembers` compares in this order).
  enum RequestKey: Int, MemberKey {
    case name, url, method, headers, query, body, auth, timeout, deadline, priority, followRedirects
    case maxRedirects, insecure, useCDN, cache, tls, download, dedup, cookies, stream, reconnect
    case throttle, retry, maxBodyMB, validate, imported, compressed, proxy, noProxy, requestTarget

    /// The cases' own names (a test checks it).
    static let names = [
      "name", "url", "method", "headers", "query", "body", "auth", "timeout", "deadline", "priority",
      "followRedirects", "maxRedirects", "insecure", "useCDN", "cache", "tls", "download", "dedup",
      "cookies", "stream", "reconnect", "throttle", "retry", "maxBodyMB", "validate", "imported",
      "compressed", "proxy", "noProxy", "requestTarget",
    ]
  }

  /// Query parameters as read: every one (switched-off ones too) and the keys switched off.
  struct QueryFields: Equatable {
    var query = JSONObject()
    var off: Set<String> = []
  }

  /// Header fields as read: every one (switched-off ones too) and the names switched off
  /// (lower-cased).
  struct HeaderFields: Equatable {
    var headers = HTTPHeaders()
    var off: Set<String> = []
  }

  /// `{"key": value}`; a value `{"value": …, "enabled": false}` (exactly those two keys,
  /// `enabled` a boolean) is a parameter switched off (or on, with `true`).
  mutating func query(_ value: JSONValue, _ path: ReaderPath) -> QueryFields? {
    guard let object = object(value, path) else { return nil }
    var fields = QueryFields()
    var members: [(key: String, value: JSONValue)] = []
    let ok = clean { r in
      for member in object.members {
        let at = path.appending(member.key)
        r.checkTemplate(member.key, at)
        if let (content, enabled) = WorkspaceReader.queryEntry(member.value) {
          r.checkTemplates(in: content, at.appending("value"))
          members.append((member.key, content))
          if !enabled { fields.off.insert(member.key) }
        } else {
          r.checkTemplates(in: member.value, at)
          members.append(member)
        }
      }
    }
    // An object's keys are distinct: its members are taken as they are (linear in their number).
    fields.query = JSONObject(distinctKeys: members)
    return ok ? fields : nil
  }

  /// The value and flag of a switchable query entry; nil for any other value.
  static func queryEntry(_ value: JSONValue) -> (JSONValue, Bool)? {
    guard case .object(let object) = value, object.count == 2, let content = object["value"],
      case .bool(let enabled)? = object["enabled"]
    else { return nil }
    return (content, enabled)
  }

  /// `{"Name": "value"}`; a value `{"value": "…", "enabled": false}` is a header switched off.
  mutating func headers(_ value: JSONValue, _ path: ReaderPath) -> HeaderFields? {
    guard let object = object(value, path) else { return nil }
    var fields = HeaderFields()
    let ok = clean { r in
      for member in object.members {
        let at = path.appending(member.key)
        if !WorkspaceReader.isValidHeaderName(member.key) {
          if r.checkLine(member.key, at) { r.fail(at, "\(JSONSerializer.quote(member.key)) is not a valid header name") }
          continue
        }
        var content = member.value
        var contentPath = at
        if case .object(let entry) = member.value {
          guard let (value, enabled) = r.headerEntry(entry, at) else { continue }
          content = value
          contentPath = at.appending("value")
          if !enabled { fields.off.insert(member.key.lowercased()) }
        }
        if let text = r.lineTemplate(content, contentPath) { fields.headers.add(member.key, text) }
      }
    }
    return ok ? fields : nil
  }

  /// `{"value": "…", "enabled": false}`: a header's value and whether it is sent.
  private mutating func headerEntry(_ entry: JSONObject, _ path: ReaderPath) -> (JSONValue, Bool)? {
    var enabled = true
    let ok = clean { r in
      if entry["value"] == nil {
        r.fail(path, "missing \"value\"; a header is \"value\" or {\"value\": \"value\", \"enabled\": false}")
      }
      for member in entry.members where member.key != "value" {
        if member.key == "enabled" {
          if let flag = r.bool(member.value, path.appending("enabled")) { enabled = flag }
        } else {
          r.fail(path.appending(member.key), "unknown header setting; use value and enabled")
        }
      }
    }
    guard ok, let value = entry["value"] else { return nil }
    return (value, enabled)
  }

  package static func isValidHeaderName(_ name: String) -> Bool {
    // RFC 9110 token characters.
    !name.isEmpty
      && name.unicodeScalars.allSatisfy {
        $0.isASCII
          && ($0.properties.isAlphabetic || ("0"..."9").contains($0)
            || "!#$%&'*+-.^_`|~".unicodeScalars.contains($0))
      }
  }

  mutating func body(_ value: JSONValue, _ path: ReaderPath) -> BodyTemplate? {
    guard let object = object(value, path) else { return nil }
    let kinds = BodyTemplate.kinds.filter { object[$0] != nil }
    guard kinds.count == 1, let kind = kinds.first else {
      if kinds.count > 1 {
        fail(
          path, "a body has one kind, found \(kinds.joined(separator: " and ")); keep one of them")
      } else if let other = object.keys.first(where: { $0 != "contentType" }) {
        fail(
          path.appending(other),
          "unknown body kind \(JSONSerializer.quote(other)); use \"json\", \"form\", \"text\", \"multipart\" or \"file\"")
      } else {
        fail(path, "the body has no kind; use " + WorkspaceReader.bodyKinds)
      }
      return nil
    }
    let contentTypePath = path.appending("contentType")
    if kind != "text", kind != "file", object["contentType"] != nil {
      fail(
        contentTypePath,
        "\"contentType\" applies to text and file bodies; "
          + "for a \(kind) body set a Content-Type header instead"
      )
      return nil
    }
    let at = path.appending(kind)
    guard let content = object[kind] else { return nil }
    switch kind {
    case "json":
      return clean({ r in r.checkTemplates(in: content, at) }) ? .json(content) : nil
    case "form":
      guard let fields = self.object(content, at) else { return nil }
      let ok = clean { r in
        for member in fields.members {
          let fieldPath = at.appending(member.key)
          switch member.value {
          case .string(let text): r.checkTemplate(text, fieldPath)
          case .number, .bool: break
          default: r.expected("a string, number or boolean", member.value, fieldPath)
          }
        }
      }
      return ok ? .form(fields) : nil
    case "multipart":
      return multipart(content, at).map { .multipart($0) }
    case "file":
      guard let file = relativePath(content, at), let contentType = optionalContentType(object, contentTypePath)
      else { return nil }
      return .file(file, contentType: contentType)
    default:
      guard let text = template(content, at), let contentType = optionalContentType(object, contentTypePath)
      else { return nil }
      return .text(text, contentType: contentType)
    }
  }

  /// A text or file body's `contentType`: `.some(nil)` when absent, nil when it is invalid.
  private mutating func optionalContentType(_ object: JSONObject, _ path: ReaderPath) -> String?? {
    guard let value = object["contentType"], value != .null else { return .some(nil) }
    guard let type = nonEmptyString(value, path) else { return nil }
    return checkLine(type, path) ? type : nil
  }

  mutating func multipart(_ value: JSONValue, _ path: ReaderPath) -> [MultipartField]? {
    guard let items = array(value, path) else { return nil }
    var fields: [MultipartField] = []
    let ok = clean { r in
      for (i, item) in items.enumerated() {
        let at = path.appending(i)
        guard let object = r.object(item, at) else { continue }
        var field = MultipartField(name: "")
        if let name = object["name"] {
          if let text = r.nonEmptyString(name, at.appending("name")), r.checkLine(text, at.appending("name")) {
            field.name = text
          }
        } else {
          r.fail(at, "missing \"name\": the form field this part fills")
        }
        let sources = ["value", "file"].filter { object[$0] != nil }
        if sources.count != 1 {
          r.fail(at, "a part has either \"value\" (text) or \"file\" (a path), not \(sources.isEmpty ? "neither" : "both")")
        }
        for member in object.members {
          let memberPath = at.appending(member.key)
          switch member.key {
          case "name": break
          case "value": field.value = r.template(member.value, memberPath)
          case "file": field.file = r.relativePath(member.value, memberPath)
          case "type", "filename":
            // Both go into the part's header lines.
            guard let text = r.nonEmptyString(member.value, memberPath), r.checkLine(text, memberPath) else { continue }
            if member.key == "type" {
              field.type = text
            } else {
              field.filename = text
            }
          default: r.fail(memberPath, "unknown part setting; use name, value, file, type, filename")
          }
        }
        fields.append(field)
      }
    }
    return ok ? fields : nil
  }

  /// A path relative to the workspace's folder, as written (`{{variables}}` allowed): absolute
  /// paths and `..` are refused, so a workspace from elsewhere cannot reach outside its folder.
  mutating func relativePath(_ value: JSONValue, _ path: ReaderPath) -> String? {
    guard let text = template(value, path) else { return nil }
    if let problem = WorkspacePaths.problem(with: text) {
      fail(path, problem)
      return nil
    }
    return text
  }

  /// A path without `{{variables}}` (a TLS file), under the same folder rule.
  mutating func filePath(_ value: JSONValue, _ path: ReaderPath) -> String? {
    guard let text = nonEmptyString(value, path) else { return nil }
    if let problem = WorkspacePaths.problem(with: text) {
      fail(path, problem)
      return nil
    }
    return text
  }

  mutating func download(_ value: JSONValue, _ path: ReaderPath) -> DownloadTemplate? {
    guard let object = object(value, path) else { return nil }
    var download = DownloadTemplate(to: "")
    let ok = clean { r in
      if object["to"] == nil {
        r.fail(path, "missing \"to\": the file (or folder) the download goes to, relative to the workspace")
      }
      for member in object.members {
        let at = path.appending(member.key)
        switch member.key {
        case "to": if let to = r.relativePath(member.value, at) { download.to = to }
        case "sha256":
          guard let text = r.string(member.value, at) else { continue }
          let hex = text.lowercased()
          if hex.count == 64, hex.allSatisfy({ $0.isHexDigit }) {
            download.sha256 = hex
          } else {
            r.fail(at, "a sha256 is 64 hexadecimal digits")
          }
        case "trustLength": if let flag = r.bool(member.value, at) { download.trustLength = flag }
        default: r.fail(at, "unknown download setting; use to, sha256, trustLength")
        }
      }
    }
    return ok ? download : nil
  }

  mutating func auth(_ value: JSONValue, _ path: ReaderPath) -> Auth? {
    guard let object = object(value, path) else { return nil }
    let kinds = Auth.kinds.filter { object[$0] != nil }
    guard kinds.count == 1, let kind = kinds.first, let content = object[kind] else {
      if kinds.count > 1 {
        fail(path, "auth has one kind, found \(kinds.joined(separator: " and ")); keep one of them")
      } else if let other = object.keys.first {
        fail(
          path.appending(other),
          "unknown auth kind \(JSONSerializer.quote(other)); use " + WorkspaceReader.authKinds)
      } else {
        fail(path, "auth has no kind; use " + WorkspaceReader.authKinds)
      }
      return nil
    }
    let at = path.appending(kind)
    if kind == "bearer" {
      return lineTemplate(content, at).map { .bearer($0) }
    }
    if kind == "digest" {
      return credentials(content, at).map { .digest(user: $0.user, password: $0.password) }
    }
    if kind == "oauth2" {
      return oauth2(content, at).map { .oauth2($0) }
    }
    return credentials(content, at).map { .basic(user: $0.user, password: $0.password) }
  }

  /// `{"user": "…", "password": "…"}` of basic and digest auth.
  mutating func credentials(_ content: JSONValue, _ at: ReaderPath) -> (user: String, password: String)? {
    guard let basic = self.object(content, at) else { return nil }
    var user: String?
    var password: String?
    let ok = clean { r in
      if let v = basic["user"] {
        user = r.lineTemplate(v, at.appending("user"))
      } else {
        r.fail(at, "missing \"user\"")
      }
      if let v = basic["password"] {
        password = r.template(v, at.appending("password"))
      } else {
        r.fail(at, "missing \"password\"")
      }
    }
    guard ok, let user, let password else { return nil }
    return (user, password)
  }

  mutating func tls(_ value: JSONValue, _ path: ReaderPath) -> TLSSettings? {
    guard let object = object(value, path) else { return nil }
    var settings = TLSSettings()
    let ok = clean { r in
      for member in object.members {
        let at = path.appending(member.key)
        switch member.key {
        case "ca": settings.caFile = r.filePath(member.value, at)
        case "cert": settings.clientCertificate = r.filePath(member.value, at)
        case "key": settings.clientKey = r.filePath(member.value, at)
        case "pin":
          guard let pin = r.nonEmptyString(member.value, at) else { continue }
          if pin.split(separator: ";").allSatisfy({ $0.hasPrefix("sha256//") && $0.count > 8 }) {
            settings.pinnedPublicKey = pin
          } else {
            r.fail(at, "a pin is sha256//BASE64 (several joined by ;), e.g. from "
              + "`openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`")
          }
        default: r.fail(at, "unknown tls setting; use ca, pin, cert, key")
        }
      }
    }
    return ok ? settings : nil
  }

  static let bodyKinds = "{\"json\": …}, {\"form\": {…}}, {\"text\": \"…\"}, {\"multipart\": […]} or {\"file\": \"path\"}"
  static let authKinds =
    "{\"basic\": {\"user\": …, \"password\": …}}, {\"digest\": {\"user\": …, \"password\": …}}, {\"bearer\": \"token\"} or {\"oauth2\": {\"grant\": …, \"tokenURL\": …, \"clientId\": …}}"

  mutating func retry(_ value: JSONValue, _ path: ReaderPath) -> RetryPolicy? {
    guard let object = object(value, path) else { return nil }
    var policy = RetryPolicy()
    let ok = clean { r in
      if let v = object["max"], let max = r.int(v, path.appending("max"), atLeast: 0, atMost: ValueLimits.retries) {
        policy.max = max
      }
      if let v = object["delay"],
        let delay = r.number(v, path.appending("delay"), from: 0, atMost: ValueLimits.retryDelay, unit: "seconds")
      {
        policy.baseDelay = delay
      }
      if let v = object["statuses"], let items = r.array(v, path.appending("statuses")) {
        var statuses = Set<Int>()
        for (i, item) in items.enumerated() {
          if let code = r.statusCode(item, path.appending("statuses").appending(i)) {
            statuses.insert(code)
          }
        }
        policy.statuses = statuses
      }
      if let v = object["methods"], let items = r.array(v, path.appending("methods")) {
        var methods = Set<HTTPMethod>()
        for (i, item) in items.enumerated() {
          if let method = r.method(item, path.appending("methods").appending(i)) {
            methods.insert(method)
          }
        }
        policy.methods = methods
      }
    }
    return ok ? policy : nil
  }

  /// `{"seconds": 300, "version": 2, "sensitive": "{{user}}", "namespace": "{{tenant}}",
  ///   "ignore": ["ts"], "mode": "cacheElseNetwork", "revalidate": true, "vary": ["Accept-Language"]}`
  mutating func cache(_ value: JSONValue, _ path: ReaderPath) -> CachePolicy? {
    guard let object = object(value, path) else { return nil }
    var policy = CachePolicy(seconds: 0)
    let ok = clean { r in
      if object["seconds"] == nil {
        r.fail(path, "missing \"seconds\": how long a response stays fresh (0 turns caching off)")
      }
      for member in object.members {
        let at = path.appending(member.key)
        switch member.key {
        case "seconds":
          if let seconds = r.number(member.value, at, from: 0, atMost: ValueLimits.cacheSeconds, unit: "seconds") {
            policy.seconds = seconds
          }
        case "version": if let version = r.int(member.value, at) { policy.version = version }
        case "sensitive": policy.sensitive = r.template(member.value, at)
        case "namespace": policy.namespace = r.template(member.value, at)
        case "ignore", "vary":
          guard let items = r.array(member.value, at) else { continue }
          var names: [String] = []
          for (i, item) in items.enumerated() {
            if let name = r.nonEmptyString(item, at.appending(i)) { names.append(name) }
          }
          if member.key == "ignore" { policy.ignore = names } else { policy.vary = names }
        case "mode":
          guard let text = r.string(member.value, at) else { continue }
          if let mode = CachePolicy.Mode(rawValue: text) {
            policy.mode = mode
          } else {
            r.fail(at, "unknown mode \(JSONSerializer.quote(text)); use one of "
              + CachePolicy.Mode.allCases.map(\.rawValue).joined(separator: ", "))
          }
        case "revalidate": if let flag = r.bool(member.value, at) { policy.revalidate = flag }
        default:
          r.fail(at, "unknown cache setting; use seconds, version, sensitive, namespace, ignore, mode, revalidate, vary")
        }
      }
    }
    return ok ? policy : nil
  }
}

extension RequestTemplate {
  /// What is wrong with `text` as a request's `proxy`, as the workspace file would say it; nil
  /// when it is fine.
  public static func proxyProblem(_ text: String) -> String? {
    var reader = WorkspaceReader()
    _ = reader.proxy(.string(text), .root)
    return reader.problems.first?.message
  }
}
