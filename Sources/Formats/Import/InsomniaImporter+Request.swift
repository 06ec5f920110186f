import RequestEngine
import Workspace

// One Insomnia request (v4 resource or v5 item) as a request template (see `InsomniaImporter`).
extension InsomniaImporter.Reader {
  /// Adds the request `item`, or refuses it with a warning.
  mutating func add(
    _ item: JSONValue, at path: JSONPath, folders: [String], auth: (JSONValue, JSONPath)?,
    headers folderHeaders: [(JSONValue, JSONPath)]
  ) {
    do throws(ImportError) {
      let template = try request(item, at: path, folders: folders, auth: auth, folderHeaders: folderHeaders)
      imported.requests.append(ImportedRequest(template: template, location: document.location(of: path)))
    } catch {
      refuse(error)
    }
  }

  mutating func request(
    _ item: JSONValue, at path: JSONPath, folders: [String], auth inherited: (JSONValue, JSONPath)?,
    folderHeaders: [(JSONValue, JSONPath)]
  ) throws(ImportError) -> RequestTemplate {
    let name = item["name"]?.stringValue ?? "request"
    let reader = self
    func text(_ value: JSONValue?, _ at: JSONPath) throws(ImportError) -> String {
      let raw: String
      switch value {
      case .string(let text)?: raw = text
      case nil, .null?: raw = ""
      case let other?: raw = JSONSerializer.compact(other)
      }
      do throws(ForeignPlaceholders.Unsupported) {
        return try InsomniaImporter.Reader.template(raw)
      } catch {
        throw reader.error(
          "request \(JSONSerializer.quote(name)): \(error.placeholder) is something Insomnia fills in and reqbench "
            + "cannot; write a value or a {{variable}} instead", at: at)
      }
    }
    var draft = RequestDraft()
    let methodWord = item["method"]?.stringValue ?? "GET"
    guard let method = HTTPMethod(word: methodWord.uppercased()) else {
      throw error("request \(JSONSerializer.quote(name)): \(JSONSerializer.quote(methodWord)) is not an HTTP method", at: path.appending("method"))
    }
    draft.method = method

    // The URL as written, the enabled parameters after it.
    var url = try text(item["url"], path.appending("url"))
    if let scheme = RequestDraft.unsupportedScheme(url) {
      throw error("request \(JSONSerializer.quote(name)): " + RequestDraft.schemeMessage(scheme), at: path.appending("url"))
    }
    url = String(url.prefix { $0 != "#" })
    var pieces: [String] = []
    for (index, parameter) in (item["parameters"]?.arrayValue ?? []).enumerated() where parameter["disabled"] != .bool(true) {
      let at = path.appending("parameters").appending(index)
      let key = try text(parameter["name"], at.appending("name"))
      if key.isEmpty { continue }
      pieces.append(PlaceholderEncoding.encode(key) + "=" + PlaceholderEncoding.encode(try text(parameter["value"], at.appending("value"))))
    }
    if !pieces.isEmpty { url = URLResolver.appendQuery(pieces.joined(separator: "&"), to: url) }
    draft.url = url

    // Headers: the folders', then the request's, in order.
    var fields: [(name: String, value: String)] = []
    var off: [String] = []
    for (list, listPath) in folderHeaders + [(item["headers"] ?? .null, path.appending("headers"))] {
      for (index, header) in (list.arrayValue ?? []).enumerated() {
        let at = listPath.appending(index)
        let headerName = (header["name"]?.stringValue ?? "").trimmingSpaces()
        if headerName.isEmpty { continue }
        guard WorkspaceReader.isValidHeaderName(headerName) else {
          throw error("request \(JSONSerializer.quote(name)): \(JSONSerializer.quote(headerName)) is not a valid header name", at: at)
        }
        fields.append((headerName, try text(header["value"], at.appending("value"))))
        if header["disabled"] == .bool(true) { off.append(headerName) }
      }
    }
    let enabledNames = Set(fields.map { $0.name.lowercased() }.filter { name in !off.contains { $0.lowercased() == name } })
    draft.addHeaders(fields.filter { field in !off.contains(field.name) || !enabledNames.contains(field.name.lowercased()) })
    for header in off where !enabledNames.contains(header.lowercased()) { draft.switchedOff.set(header: header, off: true) }
    let contentTypeSet = enabledNames.contains("content-type")

    try setBody(item["body"], at: path.appending("body"), name: name, contentTypeSet: contentTypeSet, into: &draft, text: text)

    let own = item["authentication"]
    if InsomniaImporter.Reader.hasAuth(own) {
      try setAuth(own!, at: path.appending("authentication"), name: name, into: &draft, text: text)
    } else if own?["type"]?.stringValue != "none", let (folderAuth, authPath) = inherited {
      try setAuth(folderAuth, at: authPath, name: name, into: &draft, text: text)
    }

    let follow = item["settingFollowRedirects"]?.stringValue ?? item["settings"]?["followRedirects"]?.stringValue
    if follow == "off" { draft.followRedirects = false }

    let template = draft.template(name: (folders + [name]).joined(separator: "/"))
    if let problem = RequestDraft.problem(in: template) {
      throw error("request \(JSONSerializer.quote(name)) would not load in a workspace: \(problem)", at: path)
    }
    return template
  }

  /// `body`: `mimeType` with `text`, `params` (form or multipart) or `fileName`.
  func setBody(
    _ body: JSONValue?, at path: JSONPath, name: String, contentTypeSet: Bool, into draft: inout RequestDraft,
    text: (JSONValue?, JSONPath) throws(ImportError) -> String
  ) throws(ImportError) {
    guard let body, body.objectValue?.isEmpty == false else { return }
    let mimeType = body["mimeType"]?.stringValue ?? ""
    let type = mimeType.isEmpty || contentTypeSet ? nil : (mimeType == "application/graphql" ? "application/json" : mimeType)
    if let params = body["params"]?.arrayValue {
      if RequestDraft.mediaType(mimeType) == "multipart/form-data" {
        var parts: [MultipartField] = []
        for (index, param) in params.enumerated() where param["disabled"] != .bool(true) {
          let at = path.appending("params").appending(index)
          var part = MultipartField(name: try text(param["name"], at.appending("name")))
          if param["type"]?.stringValue == "file" {
            let file = param["fileName"]?.stringValue ?? ""
            if let problem = RequestDraft.pathProblem(file) {
              throw error("request \(JSONSerializer.quote(name)): the file part \(part.name): \(problem)", at: at)
            }
            part.file = file
          } else {
            part.value = try text(param["value"], at.appending("value"))
          }
          parts.append(part)
        }
        draft.setMultipart(parts)
        return
      }
      var members: [(key: String, value: JSONValue)] = []
      for (index, param) in params.enumerated() where param["disabled"] != .bool(true) {
        let at = path.appending("params").appending(index)
        members.append((try text(param["name"], at.appending("name")), .string(try text(param["value"], at.appending("value")))))
      }
      if Set(members.map(\.key)).count == members.count, !contentTypeSet || draft.headers["Content-Type"] == RequestDraft.formType {
        draft.body = .form(JSONObject(distinctKeys: members))
      } else {
        let encoded = members.map { PlaceholderEncoding.encode($0.key) + "=" + PlaceholderEncoding.encode($0.value.stringValue ?? "") }
        draft.body = .text(encoded.joined(separator: "&"), contentType: type)
      }
      return
    }
    if let file = body["fileName"]?.stringValue {
      if let problem = RequestDraft.pathProblem(file) {
        throw error("request \(JSONSerializer.quote(name)): the body file: \(problem)", at: path.appending("fileName"))
      }
      draft.body = .file(file, contentType: type)
      return
    }
    guard body["text"] != nil else { return }
    draft.body = .text(try text(body["text"], path.appending("text")), contentType: type)
  }

  /// `authentication`: basic, bearer, digest, apikey, oauth2; other kinds are warned about.
  mutating func setAuth(
    _ auth: JSONValue, at path: JSONPath, name: String, into draft: inout RequestDraft,
    text: (JSONValue?, JSONPath) throws(ImportError) -> String
  ) throws(ImportError) {
    func value(_ key: String) throws(ImportError) -> String { try text(auth[key], path.appending(key)) }
    switch auth["type"]?.stringValue ?? "none" {
    case "basic": draft.auth = .basic(user: try value("username"), password: try value("password"))
    case "bearer":
      let prefix = try value("prefix")
      if prefix.isEmpty || prefix == "Bearer" {
        draft.auth = .bearer(try value("token"))
      } else {
        draft.addHeader("Authorization", prefix + " " + (try value("token")))
      }
    case "digest": draft.auth = .digest(user: try value("username"), password: try value("password"))
    case "apikey":
      let key = try value("key")
      guard !key.isEmpty else { return }
      if auth["addTo"]?.stringValue == "queryParams" {
        draft.url = URLResolver.appendQuery(PlaceholderEncoding.encode(key) + "=" + PlaceholderEncoding.encode(try value("value")), to: draft.url)
      } else if auth["addTo"]?.stringValue == "cookie" {
        draft.addHeader("Cookie", key + "=" + (try value("value")))
      } else if WorkspaceReader.isValidHeaderName(key) {
        draft.addHeader(key, try value("value"))
      }
    case "oauth2":
      var grant: OAuth2Grant?
      switch auth["grantType"]?.stringValue {
      case "client_credentials": grant = .clientCredentials
      case "password": grant = .password(username: try value("username"), password: try value("password"))
      case "authorization_code":
        let redirect = try value("redirectUrl")
        grant = .authorizationCode(
          authorizationURL: try value("authorizationUrl"), pkce: auth["usePkce"] == .bool(true),
          redirectURL: redirect.isEmpty ? nil : redirect)
      default: grant = nil
      }
      if case .password(let user, let password)? = grant {
        grant = .password(username: user, password: imported.oauth2Secret(password, named: "oauth2-password"))
      }
      let tokenURL = try value("accessTokenUrl")
      guard let grant, !tokenURL.isEmpty, !(try value("clientId")).isEmpty else {
        imported.warnings.append(
          "\(error("request \(JSONSerializer.quote(name)): this OAuth 2.0 auth cannot be imported (reqbench gets tokens with client credentials, a password or an authorization code, from a token URL, for a client id)", at: path)); "
            + "the request is imported without auth")
        return
      }
      let secret = try value("clientSecret")
      let scope = try value("scope")
      draft.auth = .oauth2(
        OAuth2Settings(
          grant: grant, tokenURL: tokenURL, clientId: try value("clientId"),
          clientSecret: secret.isEmpty ? nil : imported.oauth2Secret(secret, named: "oauth2-client-secret"),
          scope: scope.isEmpty ? nil : scope, clientAuth: auth["credentialsInBody"] == .bool(true) ? .body : .basic))
    case "none": break
    case let other:
      imported.warnings.append(
        "\(error("request \(JSONSerializer.quote(name)): the \(other) auth is not one reqbench has", at: path)); "
          + "the request is imported without auth")
    }
  }
}
