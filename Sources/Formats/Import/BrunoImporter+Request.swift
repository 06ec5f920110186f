import RequestEngine
import Workspace

// One Bruno request `.bru` file as a request template: method, URL, headers, body, auth and
// settings (see `BrunoImporter`).
extension BrunoImporter.Reader {
  static let methods = ["get", "post", "put", "delete", "patch", "options", "head", "connect", "trace"]

  /// The request of `bru` (a `.bru` file at `file`), nil for a file of another kind (gRPC,
  /// WebSocket: warned about).
  mutating func request(
    _ bru: BruFile, file: String, name: String?, folders: [String], levels: [BrunoImporter.Level] = []
  ) throws(ImportError) -> RequestTemplate? {
    func fail(_ message: String, line: Int? = nil) -> ImportError {
      ImportError(file: file, location: line.map { SourceLocation(line: $0, column: 1) }, message: message)
    }
    func text(_ value: String, line: Int) throws(ImportError) -> String {
      do throws(ForeignPlaceholders.Unsupported) {
        return try ForeignPlaceholders.template(value, rename: Self.variableName)
      } catch {
        throw fail("\(error.placeholder) is a value Bruno makes up, which reqbench cannot fill in; write a value or a {{variable}}", line: line)
      }
    }
    let type = bru.value("meta", "type") ?? "http"
    guard type == "http" || type == "graphql" else {
      imported.warnings.append("\(file): a \(type) request is not imported (reqbench sends HTTP requests)")
      return nil
    }
    var draft = RequestDraft()
    let block: BruFile.Block
    if let found = bru.blocks.first(where: { Self.methods.contains($0.name) }) {
      block = found
      draft.method = HTTPMethod(word: found.name.uppercased()) ?? .GET
    } else if let custom = bru.block("http") {
      block = custom
      let word = custom.pairs.first { $0.key == "method" }?.value ?? ""
      guard let method = HTTPMethod(word: word.uppercased()) else {
        throw fail("\(JSONSerializer.quote(word)) is not an HTTP method", line: custom.line)
      }
      draft.method = method
    } else {
      throw fail("this .bru file has no method block (get {, post {, …)")
    }
    func setting(_ key: String) -> BruFile.Pair? { block.pairs.first { $0.key == key } }

    // The URL as written, `:name` path parameters filled in.
    var url = try text(setting("url")?.value ?? "", line: setting("url")?.line ?? block.line)
    let pathParameters = bru.block("params:path")?.pairs.filter(\.enabled) ?? []
    if !pathParameters.isEmpty { url = Self.fillingPathParameters(url, pathParameters) }
    if let scheme = RequestDraft.unsupportedScheme(url) { throw fail(RequestDraft.schemeMessage(scheme), line: block.line) }
    draft.url = String(url.prefix { $0 != "#" })

    // Headers: the collection's, the folders', the request's; the same name replaces in place.
    var fields: [(name: String, value: String)] = []
    var off: [String] = []
    for (source, headersFile) in levels.map({ ($0.bru, $0.file) }) + [(bru, file)] {
      for pair in source.block("headers")?.pairs ?? [] {
        guard !pair.key.isEmpty else { continue }
        guard WorkspaceReader.isValidHeaderName(pair.key) else {
          throw fail("\(JSONSerializer.quote(pair.key)) in \(headersFile) is not a valid header name", line: pair.line)
        }
        let headerName = pair.key.lowercased() == "content-type" ? "content-type" : pair.key
        let value = try text(pair.value, line: pair.line)
        if let place = fields.firstIndex(where: { $0.name == headerName }) {
          if pair.enabled { fields[place].value = value }
          continue
        }
        fields.append((headerName, value))
        if !pair.enabled { off.append(headerName) } else { off.removeAll { $0 == headerName } }
      }
    }
    draft.addHeaders(fields)
    for header in off { draft.switchedOff.set(header: header, off: true) }
    let contentTypeSet = fields.contains { $0.name == "content-type" && !off.contains($0.name) }

    try setBody(bru, mode: setting("body")?.value ?? "none", contentTypeSet: contentTypeSet, into: &draft, text: text, fail: fail)
    try setAuth(bru, mode: setting("auth")?.value ?? "none", levels: levels, file: file, into: &draft, text: text)

    // Settings: redirects and the timeout (milliseconds, 0 for none).
    if let settings = bru.block("settings") {
      func value(_ key: String) -> String? { settings.pairs.first { $0.key == key }?.value }
      if value("followRedirects") == "false" { draft.followRedirects = false }
      if let max = value("maxRedirects").flatMap(Int.init), max >= 0 { draft.maxRedirects = max }
      if let ms = value("timeout").flatMap(Double.init), ms > 0 { draft.timeout = ms / 1000 }
    }
    noteLeftOut(bru, file: file, request: true)

    let leaf = name ?? bru.value("meta", "name") ?? RequestDraft.derivedName(method: draft.method, url: draft.url)
    let template = draft.template(name: (folders + [leaf]).joined(separator: "/"))
    if let problem = RequestDraft.problem(in: template) {
      throw fail("this request would not load in a workspace: \(problem)")
    }
    return template
  }

  /// `url` with each `:name` path segment that `parameters` names replaced by its value.
  static func fillingPathParameters(_ url: String, _ parameters: [BruFile.Pair]) -> String {
    let queryStart = url.firstIndex(of: "?") ?? url.endIndex
    let path = url[..<queryStart]
    let segments = path.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
      guard segment.hasPrefix(":"), let value = parameters.first(where: { $0.key == segment.dropFirst() })?.value
      else { return String(segment) }
      return value
    }
    return segments.joined(separator: "/") + url[queryStart...]
  }

  /// The body of `mode` (`json`, `text`, `xml`, `sparql`, `formUrlEncoded`, `multipartForm`,
  /// `graphql`, `file`, `none`). Text bodies are sent as written; when the request sets no
  /// `content-type`, the one Bruno adds goes with the body.
  func setBody(
    _ bru: BruFile, mode: String, contentTypeSet: Bool, into draft: inout RequestDraft,
    text: (String, Int) throws(ImportError) -> String, fail: (String, Int?) -> ImportError
  ) throws(ImportError) {
    func textBody(_ block: String, _ type: String) throws(ImportError) {
      guard let found = bru.block(block) else { return }
      draft.body = .text(try text(found.text ?? "", found.line), contentType: contentTypeSet ? nil : type)
    }
    switch mode {
    case "none": break
    case "json": try textBody("body:json", "application/json")
    case "text": try textBody("body:text", "text/plain")
    case "xml": try textBody("body:xml", "application/xml")
    case "sparql": try textBody("body:sparql", "application/sparql-query")
    case "formUrlEncoded":
      var members: [(key: String, value: JSONValue)] = []
      for pair in bru.block("body:form-urlencoded")?.pairs ?? [] where pair.enabled {
        members.append((try text(pair.key, pair.line), .string(try text(pair.value, pair.line))))
      }
      if Set(members.map(\.key)).count == members.count {
        draft.body = .form(JSONObject(distinctKeys: members))
      } else {
        let encoded = members.map { PlaceholderEncoding.encode($0.key) + "=" + PlaceholderEncoding.encode($0.value.stringValue ?? "") }
        draft.body = .text(encoded.joined(separator: "&"), contentType: contentTypeSet ? nil : RequestDraft.formType)
      }
    case "multipartForm":
      var parts: [MultipartField] = []
      for pair in bru.block("body:multipart-form")?.pairs ?? [] where pair.enabled {
        var value = pair.value
        var type: String?
        if let range = value.range(of: "@contentType(", options: .backwards), value.hasSuffix(")") {
          type = String(value[range.upperBound...].dropLast()).trimmingSpaces()
          value = value[..<range.lowerBound].trimmingSpaces()
        }
        var part = MultipartField(name: try text(pair.key, pair.line))
        part.type = type?.isEmpty == false ? type : nil
        if value.hasPrefix("@file("), value.hasSuffix(")") {
          let paths = value.dropFirst(6).dropLast().split(separator: "|").map(String.init)
          guard let path = paths.first else { continue }
          if let problem = RequestDraft.pathProblem(path) { throw fail(problem, pair.line) }
          if paths.count > 1 { throw fail("the part \(pair.key) sends \(paths.count) files; reqbench sends one file a part", pair.line) }
          part.file = path
        } else {
          part.value = try text(value, pair.line)
        }
        parts.append(part)
      }
      draft.setMultipart(parts)
    case "graphql":
      let query = try text(bru.block("body:graphql")?.text ?? "", bru.block("body:graphql")?.line ?? 1)
      let variablesText = try text(bru.block("body:graphql:vars")?.text ?? "", bru.block("body:graphql:vars")?.line ?? 1)
      let trimmed = variablesText.trimmingSpaces()
      if trimmed.isEmpty {
        draft.body = .json(.object(JSONObject([("query", .string(query)), ("variables", .object(JSONObject()))])))
      } else if let variables = try? JSONParser.parse(trimmed) {
        draft.body = .json(.object(JSONObject([("query", .string(query)), ("variables", variables)])))
      } else {
        // Variables with placeholders for values (`{"n": {{n}}}`): Bruno parses them once filled in.
        draft.body = .text(
          "{\"query\":" + JSONSerializer.quote(query) + ",\"variables\":" + trimmed + "}",
          contentType: contentTypeSet ? nil : "application/json")
      }
      if contentTypeSet { break }
    case "file":
      guard let selected = bru.block("body:file")?.pairs.first(where: \.enabled) else { break }
      var value = selected.value
      var type: String?
      if let range = value.range(of: "@contentType(", options: .backwards), value.hasSuffix(")") {
        type = String(value[range.upperBound...].dropLast()).trimmingSpaces()
        value = value[..<range.lowerBound].trimmingSpaces()
      }
      guard value.hasPrefix("@file("), value.hasSuffix(")") else { break }
      let path = String(value.dropFirst(6).dropLast())
      if let problem = RequestDraft.pathProblem(path) { throw fail(problem, selected.line) }
      draft.body = .file(path, contentType: type?.isEmpty == false ? type : nil)
    default:
      throw fail("the body kind \(JSONSerializer.quote(mode)) is not one reqbench sends", nil)
    }
  }

  /// The request's auth: its own `auth:MODE` block, or with `inherit` the nearest folder's or the
  /// collection's (`auth { mode: … }` and its block).
  mutating func setAuth(
    _ bru: BruFile, mode: String, levels: [BrunoImporter.Level], file: String, into draft: inout RequestDraft,
    text: (String, Int) throws(ImportError) -> String
  ) throws(ImportError) {
    var source = bru
    var mode = mode
    var sourceFile = file
    if mode == "inherit" {
      mode = "none"
      for level in levels.reversed() {
        let declared = level.bru.value("auth", "mode") ?? "inherit"
        if declared == "inherit" { continue }
        mode = declared
        source = level.bru
        sourceFile = level.file
        break
      }
    }
    func value(_ key: String) throws(ImportError) -> String {
      guard let pair = source.block("auth:" + mode)?.pairs.first(where: { $0.key == key }) else { return "" }
      return try text(pair.value, pair.line)
    }
    switch mode {
    case "none": break
    case "basic": draft.auth = .basic(user: try value("username"), password: try value("password"))
    case "bearer": draft.auth = .bearer(try value("token"))
    case "digest": draft.auth = .digest(user: try value("username"), password: try value("password"))
    case "apikey":
      let key = try value("key")
      guard !key.isEmpty else { break }
      if try value("placement") == "queryparams" {
        draft.url = URLResolver.appendQuery(PlaceholderEncoding.encode(key) + "=" + PlaceholderEncoding.encode(try value("value")), to: draft.url)
      } else if WorkspaceReader.isValidHeaderName(key) {
        draft.addHeader(key, try value("value"))
      }
    case "oauth2":
      var grant: OAuth2Grant?
      switch try value("grant_type") {
      case "client_credentials": grant = .clientCredentials
      case "password": grant = .password(username: try value("username"), password: try value("password"))
      case "authorization_code":
        let callback = try value("callback_url")
        grant = .authorizationCode(
          authorizationURL: try value("authorization_url"), pkce: try value("pkce") == "true",
          redirectURL: callback.isEmpty ? nil : callback)
      default: grant = nil
      }
      if case .password(let user, let password)? = grant {
        grant = .password(username: user, password: imported.oauth2Secret(password, named: "oauth2-password"))
      }
      let tokenURL = try value("access_token_url")
      guard let grant, !tokenURL.isEmpty, !(try value("client_id")).isEmpty else {
        imported.warnings.append("\(sourceFile): this OAuth 2.0 auth cannot be imported (reqbench gets tokens with client credentials, a password or an authorization code, from a token URL, for a client id); \(file) is imported without auth")
        break
      }
      let secret = try value("client_secret")
      let scope = try value("scope")
      draft.auth = .oauth2(
        OAuth2Settings(
          grant: grant, tokenURL: tokenURL, clientId: try value("client_id"),
          clientSecret: secret.isEmpty ? nil : imported.oauth2Secret(secret, named: "oauth2-client-secret"),
          scope: scope.isEmpty ? nil : scope, clientAuth: try value("credentials_placement") == "basic_auth_header" ? .basic : .body))
    default:
      imported.warnings.append("\(sourceFile): the \(mode) auth is not one reqbench has; \(file) is imported without auth")
    }
  }
}
