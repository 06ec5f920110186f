// Building a request from a template: one pipeline (variables, URL, headers, body, auth,
// download, limits), each step naming the field of an error. Where the variables' values come
// from is VariableSources.swift.
import Base
import Foundation
import RequestEngine

extension Workspace {
  /// The request `name`, ready to send; see `prepare(_:sources:)`.
  public func prepare(
    requestNamed name: String, variables overrides: [String: String] = [:],
    environment: String? = nil
  ) throws(PrepareError) -> Request {
    guard let template = request(named: name) else {
      let names = requests.map(\.name)
      throw PrepareError(
        code: .unknownRequest(name), request: name,
        message: "there is no request named \(JSONSerializer.quote(name)); "
          + (names.isEmpty
            ? "this workspace has no requests"
            : "this workspace has \(names.joined(separator: ", "))"))
    }
    return try prepare(template, variables: overrides, environment: environment)
  }

  /// `prepare(_:sources:)` with overrides and an environment, reading `{{env.NAME}}` from this
  /// process's environment and no secrets file.
  public func prepare(
    _ template: RequestTemplate, variables overrides: [String: String] = [:],
    environment: String? = nil
  ) throws(PrepareError) -> Request {
    try prepare(template, sources: VariableSources(overrides: overrides, environment: environment))
  }

  /// Fills in a template's `{{variables}}` and builds the request the engine sends. An undefined
  /// variable is an error naming it and the request, never an empty string.
  ///
  /// The URL is resolved against `baseURL` (or `cdnURL` with `useCDN`) unless it is absolute; a
  /// relative URL also gets the workspace's `defaults` (headers and query the request does not set
  /// itself). The query is appended to any query the URL already has. `Authorization` comes from
  /// `auth` unless the template's headers set it; the body's content type travels on
  /// `RequestBody` and yields to a `Content-Type` header. Every secret used ends up in
  /// `Request.secrets`, with the forms it takes on the wire (percent-encoded, JSON-escaped, inside
  /// an Authorization header).
  /// An error names no secret's value: a URL that a secret fills in and that then has a space or
  /// no host, a download path made from one, are masked (`••••`) like everything else printed.
  public func prepare(_ template: RequestTemplate, sources: VariableSources) throws(PrepareError)
    -> Request
  {
    let environment = try selectEnvironment(sources.environment, for: template.name)
    let scope = VariableScope(
      request: template.name, sources: sources, environment: environment, variables: variables)
    do {
      var request = try prepare(template, in: scope)
      if cookies, template.cookies, let jars = sources.cookies {
        request.cookieJar = jars.jar(environment: sources.cookieJarEnvironment(of: environment?.name))
      }
      return request
    } catch {
      var masked = error
      masked.message = Redaction(secrets: scope.secretForms()).apply(error.message)
      if let file = sourceText.file, let location = location(of: scope.field, in: template.name) {
        masked.file = file
        masked.location = location
      }
      throw masked
    }
  }

  /// Where `field` of the request `name` starts in the file this workspace was read from (the
  /// nearest enclosing value the file has: the request itself for a header it does not write);
  /// nil when the workspace was not read from a file or the file has no such request (one added
  /// since). Only an error pays for this: the first one parses the file again, recording
  /// locations, and the text keeps them (`SourceText.located`).
  func location(of field: PrepareError.Field, in name: String) -> SourceLocation? {
    guard let (document, requests) = sourceText.located() else { return nil }
    switch field {
    case .workspace(let path):
      return document.location(of: path)
    case .request(let path):
      guard let index = requests[name] else { return nil }
      return document.location(
        of: JSONPath([.key("requests"), .index(index)] + path.components))
    }
  }

  private func prepare(_ template: RequestTemplate, in scope: VariableScope) throws(PrepareError) -> Request {
    try scope.fillStepVariables()

    scope.field = .inRequest("url")
    let reference = try scope.renderLine(template.url, in: "url")
    let isRelative = URLResolver.split(reference).scheme == nil
    // An absolute URL ignores the base, and so the base's variables too.
    var base: String?
    if isRelative {
      if template.useCDN {
        scope.field = .inRequest("useCDN")
        guard let cdnURL else {
          throw PrepareError(
            code: .invalidURL, request: template.name,
            message: "\"useCDN\" is true but the workspace has no \"cdnURL\"; add one or remove \"useCDN\"")
        }
        scope.field = .inWorkspace("cdnURL")
        base = try scope.renderLine(cdnURL, in: "cdnURL")
      } else if let baseURL {
        scope.field = .inWorkspace("baseURL")
        base = try scope.renderLine(baseURL, in: "baseURL")
      }
    }
    scope.field = .inRequest("url")
    var url: String
    do {
      url = try URLResolver.resolve(reference, against: base)
    } catch {
      throw PrepareError(code: .invalidURL, request: template.name, message: error.message)
    }
    // Switched-off parameters and headers are left out (a default then fills the gap).
    var query = template.sentQuery
    if isRelative {
      for member in defaults.sentQuery.members where query[member.key] == nil {
        query[member.key] = member.value
      }
    }
    var parameters: [(String, JSONValue)] = []
    for member in query.members {
      let place = "query parameter \(JSONSerializer.quote(member.key))"
      scope.field =
        template.query[member.key] != nil
        ? .inRequest("query", member.key) : .inWorkspace("defaults", "query", member.key)
      parameters.append(
        (try scope.render(member.key, in: place), try scope.render(member.value, in: place)))
    }
    url = URLResolver.appendQuery(QueryEncoder.encode(parameters), to: url)

    var headers = HTTPHeaders()
    for field in template.sentHeaders.fields {
      let place = "header \(JSONSerializer.quote(field.name))"
      scope.field = .inRequest("headers", field.name)
      try scope.checkLiteralLine(field.name, in: "the name of \(place)")
      headers[field.name] = try scope.renderLine(field.value, in: place)
    }
    if isRelative {
      for field in defaults.sentHeaders.fields where headers[field.name] == nil {
        let place = "default header \(JSONSerializer.quote(field.name))"
        scope.field = .inWorkspace("defaults", "headers", field.name)
        try scope.checkLiteralLine(field.name, in: "the name of \(place)")
        headers[field.name] = try scope.renderLine(field.value, in: place)
      }
    }
    var digest: DigestCredentials?
    var oauth2: OAuth2Client?
    // A header auth yields to the template's own Authorization header (and is then not filled in).
    if let auth = template.auth, headers["Authorization"] == nil || auth.kind == "digest" {
      scope.field = .inRequest("auth")
      let before = scope.usedSecrets.count
      switch try scope.credentials(auth) {
      case .header(let value):
        headers["Authorization"] = value
        // Basic credentials are base64-encoded: mask the whole header value.
        if scope.usedSecrets.count > before { scope.usedSecrets.append(value) }
      case .digest(let credentials):
        digest = credentials
      case .oauth2(let settings):
        oauth2 = try oauth2Client(settings, for: template, in: scope)
      }
    }
    // A credential written into the request itself (a pasted `Authorization: Bearer …`, a basic
    // auth with its password in the file) is masked wherever the request is shown or kept, as a
    // secret's value is.
    for field in headers.fields {
      if CredentialMasking.carriesCredential(field.name) {
        if let credential = CredentialMasking.credential(in: field.value) { scope.usedSecrets.append(credential) }
      } else if CredentialMasking.isKeyName(field.name), let key = CredentialMasking.key(in: field.value) {
        scope.usedSecrets.append(key)  // X-Api-Key, Private-Token…
      }
    }
    // So is a key in the query (`?api_key=…`, `access_token=…`): as the URL shows it, and decoded.
    for parameter in QueryDecoder.keyParameters(in: URLResolver.split(url).query ?? "") {
      guard let key = CredentialMasking.key(in: parameter.value) else { continue }
      scope.usedSecrets.append(key)
      if let decoded = QueryDecoder.decode(key[...], form: false), decoded != key { scope.usedSecrets.append(decoded) }
    }
    var body = RequestBody.empty
    scope.field = .inRequest("body")
    if let template = template.body { body = try scope.render(template, folder: folder) }
    var download: DownloadTarget?
    if let spec = template.download {
      scope.field = .inRequest("download", "to")
      guard template.method == .GET else {
        throw PrepareError(
          code: .invalidPath, request: template.name,
          message: "a download needs GET, not \(template.method.rawValue); change the method or remove \"download\"")
      }
      let to = try scope.render(spec.to, in: "download.to")
      do {
        download = DownloadTarget(
          path: try WorkspacePaths.downloadTarget(to, in: folder, url: url), sha256: spec.sha256,
          trustLength: spec.trustLength)
      } catch {
        throw PrepareError(code: .invalidPath, request: template.name, message: "download.to: \(error.message)")
      }
    }
    var cache = template.cache
    scope.field = .inRequest("cache")
    if let sensitive = cache?.sensitive { cache?.sensitive = try scope.render(sensitive, in: "cache.sensitive") }
    if let namespace = cache?.namespace { cache?.namespace = try scope.render(namespace, in: "cache.namespace") }

    // Certificates and keys follow the folder rule of every file a workspace names: a hostile
    // workspace must not present the user's client certificate from ~/.ssh or elsewhere.
    var tls: TLSSettings?
    if let settings = template.tls {
      scope.field = .inRequest("tls")
      func resolve(_ path: String?, _ place: String) throws(PrepareError) -> String? {
        guard let path else { return nil }
        do {
          return try WorkspacePaths.resolve(path, in: folder)
        } catch {
          throw PrepareError(code: .invalidPath, request: template.name, message: "tls.\(place): \(error.message)")
        }
      }
      tls = TLSSettings(
        caFile: try resolve(settings.caFile, "ca"), pinnedPublicKey: settings.pinnedPublicKey,
        clientCertificate: try resolve(settings.clientCertificate, "cert"), clientKey: try resolve(settings.clientKey, "key"))
    }

    var request = Request(
      name: template.name,
      method: template.method,
      url: url,
      headers: headers,
      body: body,
      timeouts: Timeouts(idle: template.timeout, deadline: template.deadline),
      priority: template.priority,
      validation: template.validation,
      retry: template.retry ?? retry,
      followRedirects: template.followRedirects,
      maxRedirects: template.maxRedirects,
      insecure: template.insecure,
      group: nil,
      cache: cache,
      dedup: template.dedup,
      secrets: scope.secretForms(),
      download: download,
      digest: digest,
      tls: tls)
    request.throttle = template.throttle
    request.stream = template.stream
    request.reconnect = template.reconnect
    request.compressed = template.compressed
    if let proxy = template.proxy {
      scope.field = .inRequest("proxy")
      request.proxy = try scope.renderLine(proxy, in: "proxy")
    }
    if let noProxy = template.noProxy {
      scope.field = .inRequest("noProxy")
      request.noProxy = try scope.renderLine(noProxy, in: "noProxy")
    }
    if let target = template.requestTarget {
      scope.field = .inRequest("requestTarget")
      request.requestTarget = try scope.renderLine(target, in: "requestTarget")
    }
    if let mb = template.maxBodyMB ?? maxBodyMB { request.maxBodyBytes = Int64(saturating: mb * 1_048_576) }
    if var oauth2 {
      oauth2.insecure = template.insecure
      oauth2.tls = tls
      // The request's timeout and deadline bound its token too (60 s without a deadline).
      oauth2.timeouts = Timeouts(idle: template.timeout, deadline: template.deadline ?? OAuth2Client.defaultDeadline)
      request.authorizer = scope.sources.oauth2?.authorizer(for: oauth2)
    }
    return request
  }

  /// The `oauth2` block filled in; `tokenURL` (and the authorization and device URLs) may be
  /// relative to `baseURL`.
  private func oauth2Client(_ settings: OAuth2Settings, for template: RequestTemplate, in scope: VariableScope)
    throws(PrepareError) -> OAuth2Client
  {
    func url(_ text: String, _ key: String) throws(PrepareError) -> String {
      scope.field = .inRequest("auth", "oauth2", key)
      let reference = try scope.renderLine(text, in: "auth.oauth2.\(key)")
      var base: String?
      if URLResolver.split(reference).scheme == nil, let baseURL {
        scope.field = .inWorkspace("baseURL")
        base = try scope.renderLine(baseURL, in: "baseURL")
      }
      do {
        return try URLResolver.resolve(reference, against: base)
      } catch {
        scope.field = .inRequest("auth", "oauth2", key)
        throw PrepareError(code: .invalidURL, request: template.name, message: "auth.oauth2.\(key): \(error.message)")
      }
    }
    func text(_ value: String?, _ key: String) throws(PrepareError) -> String? {
      guard let value else { return nil }
      scope.field = .inRequest("auth", "oauth2", key)
      return try scope.render(value, in: "auth.oauth2.\(key)")
    }
    let grant: OAuth2Grant
    switch settings.grant {
    case .clientCredentials: grant = .clientCredentials
    case .password(let username, let password):
      grant = .password(username: try text(username, "username") ?? "", password: try text(password, "password") ?? "")
    case .authorizationCode(let authorizationURL, let pkce, let redirectURL):
      grant = .authorizationCode(
        authorizationURL: try url(authorizationURL, "authorizationURL"), pkce: pkce,
        redirectURL: try text(redirectURL, "redirectURL"))
    case .deviceCode(let deviceURL):
      grant = .deviceCode(deviceURL: try url(deviceURL, "deviceURL"))
    }
    return OAuth2Client(
      grant: grant, tokenURL: try url(settings.tokenURL, "tokenURL"), clientId: try text(settings.clientId, "clientId") ?? "",
      clientSecret: try text(settings.clientSecret, "clientSecret"), scope: try text(settings.scope, "scope"),
      audience: try text(settings.audience, "audience"), clientAuth: settings.clientAuth,
      label: "oauth2 › " + template.name, environment: scope.environment?.name)
  }

  /// The environment named `name`, else the workspace's default one; nil when neither is set.
  private func selectEnvironment(_ name: String?, for request: String) throws(PrepareError)
    -> Environment?
  {
    guard let name = name ?? environment else { return nil }
    if let found = environments.first(where: { $0.name == name }) { return found }
    throw PrepareError(
      code: .unknownEnvironment(name), request: request,
      message: "unknown environment \(JSONSerializer.quote(name)); "
        + (environments.isEmpty
          ? "this workspace has no \"environments\""
          : "use one of \(environments.map(\.name).joined(separator: ", "))"))
  }
}
