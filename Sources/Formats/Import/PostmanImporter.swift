import RequestEngine
import Workspace

/// Reads Postman collections (format v2.1, and v2.0) into request templates.
///
/// ```swift
/// let imported = try PostmanImporter.parse(Array(json.utf8), file: "api.postman_collection.json")
/// imported.templates.map(\.name)  // ["users/get user", "users/admin/create user", …]
/// ```
/// - Folders (`item` inside `item`) become name prefixes: `folder/sub/request`.
/// - `request.url` is a string or an object (`raw`, or `protocol`/`host`/`port`/`path`; its `query`
///   list wins over the query in `raw`; `:id` path variables get their
///   values, or become `{{id}}`).
/// - `header` entries (and `query` entries) marked `disabled` are kept switched off
///   (`{"value": …, "enabled": false}`), unless an enabled entry has the same name.
/// - Bodies: `raw` (JSON when `options.raw.language` is `json` or the Content-Type is JSON, and it
///   parses; otherwise text), `urlencoded` (a form), `graphql` (the JSON Postman sends),
///   `formdata` (a `{"multipart": […]}` body: `text` entries are values, `file` entries files from
///   their `src`, one part per file when `src` lists several; `contentType` is the part's type;
///   disabled entries skipped) and `file` (a `{"file": src}` body, its type from `Content-Type`).
///   File paths are relative to the workspace's folder, where the files must be: Postman's
///   absolute paths are errors naming the request and saying to copy the file into the folder.
/// - `auth`: `basic`, `bearer`, `digest` and `apikey` (a header, or a query parameter, of its key
///   name: a credential the import moves to the secrets file), inherited from the folder or
///   collection when the request has none; other kinds are imported without auth, with a warning.
/// - The collection's `variable` list becomes workspace variables; Postman's `{{var}}` is
///   reqbench's syntax. Pre-request and test scripts are not imported (a warning says so).
/// - An environment export (`*.postman_environment.json`: `name`, `values`) becomes an
///   environment of that name, a globals export (`*.postman_globals.json`) workspace variables;
///   switched-off values are left out, and those of type `secret` are listed in
///   `sensitiveVariables` (an import moves them to the secrets file).
/// Errors point at the line and column of the offending value.
public enum PostmanImporter {
  public static func parse(_ bytes: [UInt8], file: String) throws(ImportError) -> ImportedRequests {
    let document: JSONDocument
    do {
      document = try JSONParser.parseDocument(utf8(bytes))
    } catch {
      throw ImportError(
        file: file, location: error.location,
        message: "a Postman collection is JSON, and this is not: \(error.message)")
    }
    var reader = Reader(file: file, document: document)
    if reader.isVariableExport {
      try reader.variableExport()
    } else {
      try reader.collection()
    }
    return reader.imported
  }

  /// The bytes as UTF-8: a UTF-8 byte order mark is dropped, and UTF-16 with one (what Windows
  /// tools write an exported environment as) is read as UTF-16.
  static func utf8(_ bytes: [UInt8]) -> [UInt8] {
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return Array(bytes.dropFirst(3)) }
    let little = bytes.starts(with: [0xFF, 0xFE])
    guard little || bytes.starts(with: [0xFE, 0xFF]) else { return bytes }
    var units: [UInt16] = []
    units.reserveCapacity(bytes.count / 2)
    var index = 2
    while index + 1 < bytes.count {
      let (a, b) = (UInt16(bytes[index]), UInt16(bytes[index + 1]))
      units.append(little ? b << 8 | a : a << 8 | b)
      index += 2
    }
    return Array(String(decoding: units, as: UTF16.self).utf8)
  }

  /// The methods whose body Postman does not send (postman-runtime's `METHODS_WITHOUT_BODY`)
  /// unless the request's `protocolProfileBehavior.disableBodyPruning` is true.
  static let prunedMethods: Set<String> = ["GET", "COPY", "HEAD", "PURGE", "UNLOCK"]

  /// Reads one document (a collection here; variables, environments and globals in
  /// `PostmanImporter+Variables.swift`).
  struct Reader {
    let file: String
    let document: JSONDocument
    var imported = ImportedRequests()
    var scripted = 0

    init(file: String, document: JSONDocument) {
      self.file = file
      self.document = document
    }

    func error(_ message: String, at path: JSONPath) -> ImportError {
      ImportError(file: file, location: document.location(of: path), message: message)
    }

    mutating func collection() throws(ImportError) {
      if case .object(let root) = document.root, root["info"] == nil, root["requests"]?.arrayValue != nil {
        throw error(
          "this is a Postman collection in format v1 (a \"requests\" list, no \"info\"), which reqbench does not "
            + "read; convert it to v2.1 with postman-collection-transformer (npx postman-collection-transformer "
            + "convert -i in.json -o out.json -j 1.0.0 -p 2.1.0), or export it from Postman as Collection v2.1",
          at: .root)
      }
      // A collection without `info` but with its `item` list (newman runs one) is read too.
      if case .object(let root) = document.root, root["info"] == nil, root["item"]?.arrayValue?.isEmpty == false {
        try items(root)
        return
      }
      guard case .object(let root) = document.root, let info = root["info"]?.objectValue else {
        throw error(
          "this is not a Postman collection (no \"info\") nor an environment (no \"values\"); export it from "
            + "Postman as Collection v2.1, or an environment's ⋯ › Export", at: .root)
      }
      if let schema = info["schema"]?.stringValue, !schema.contains("v2.1"),
        !schema.contains("v2.0"), !schema.contains("/v2/")
      {
        throw error(
          "this collection's format is \(schema); reqbench reads Postman collections v2.1 "
            + "(and v2.0): export it again as Collection v2.1",
          at: JSONPath.root.appending("info").appending("schema"))
      }
      try items(root)
    }

    /// The collection's variables, auth and items.
    mutating func items(_ root: JSONObject) throws(ImportError) {
      guard let items = root["item"]?.arrayValue else {
        throw error("the collection has no \"item\" list of requests", at: .root)
      }
      if let list = root["variable"] {
        imported.variables = try variables(list, at: JSONPath.root.appending("variable"))
      }
      let auth =
        try root["auth"].map { value throws(ImportError) in
          try self.auth(value, at: JSONPath.root.appending("auth"))
        } ?? AuthChoice.none
      countScripts(root["event"])
      try walk(items, at: JSONPath.root.appending("item"), folders: [], auth: auth)
      if scripted > 0 {
        imported.warnings.append(
          "\(file): \(scripted) item\(scripted == 1 ? " has" : "s have") pre-request or test "
            + "scripts; scripts are not imported")
      }
    }

    mutating func countScripts(_ events: JSONValue?) {
      guard let events = events?.arrayValue else { return }
      let hasCode = events.contains { event in
        guard let exec = event["script"]?["exec"] else { return false }
        if let lines = exec.arrayValue {
          return lines.contains { !($0.stringValue ?? "").trimmingSpaces().isEmpty }
        }
        return !(exec.stringValue ?? "").trimmingSpaces().isEmpty
      }
      if hasCode { scripted += 1 }
    }

    /// A scalar as text: strings as they are, numbers as written, `true`/`false`, null as "".
    static func text(_ value: JSONValue?) -> String {
      switch value {
      case .string(let text): text
      case .number(let literal): literal
      case .bool(let flag): flag ? "true" : "false"
      default: ""
      }
    }

    mutating func walk(_ items: [JSONValue], at path: JSONPath, folders: [String], auth: AuthChoice)
      throws(ImportError)
    {
      for (i, item) in items.enumerated() {
        let at = path.appending(i)
        guard case .object(let object) = item else {
          throw error("expected an item (an object with \"name\" and \"request\")", at: at)
        }
        // An item without a name is named from its method and URL (`fullName` below); a
        // folder without one adds no folder.
        let name = (object["name"].map { Reader.text($0) } ?? "").trimmingSpaces()
        countScripts(object["event"])
        var inherited = auth
        if let value = object["auth"], value != .null {
          inherited = try self.auth(value, at: at.appending("auth"))
        }
        if let children = object["item"] {
          guard let list = children.arrayValue else {
            throw error(
              "the folder \(JSONSerializer.quote(name)) needs an \"item\" list",
              at: at.appending("item"))
          }
          try walk(list, at: at.appending("item"), folders: folders + (name.isEmpty ? [] : [name]), auth: inherited)
        } else if let request = object["request"] {
          try self.request(request, at: at, folders: folders, name: name, auth: inherited, behavior: object["protocolProfileBehavior"])
        } else {
          throw error(
            "the item \(JSONSerializer.quote(name)) has neither a \"request\" nor an \"item\" list",
            at: at)
        }
      }
    }

    mutating func request(
      _ value: JSONValue, at item: JSONPath, folders: [String], name given: String, auth: AuthChoice,
      behavior: JSONValue?
    ) throws(ImportError) {
      let path = item.appending("request")
      var name = (folders + [given.isEmpty ? "(unnamed item)" : given]).joined(separator: "/")
      func fail(_ message: String, _ at: JSONPath) -> ImportError {
        error("request \(JSONSerializer.quote(name)): \(message)", at: at)
      }
      var draft = RequestDraft()
      var hadContentTypeHeader = false
      var choice = auth
      switch value {
      case .string(let url):
        draft.setURL(try absolute(url, at: path, name: name))
      case .object(let request):
        if let method = request["method"]?.stringValue {
          guard let parsed = HTTPMethod(parsing: method) else {
            throw fail(HTTPMethod.notAMethod(method), path.appending("method"))
          }
          draft.method = parsed
        }
        guard let url = request["url"] else { throw fail("there is no \"url\"", path) }
        try self.url(url, at: path.appending("url"), name: name, into: &draft)
        if let header = request["header"] {
          try headers(header, at: path.appending("header"), name: name, into: &draft)
        }
        hadContentTypeHeader = draft.headers["Content-Type"] != nil
        if let body = request["body"], body != .null {
          try self.body(body, at: path.appending("body"), name: name, into: &draft)
        }
        if let value = request["auth"], value != .null {
          choice = try self.auth(value, at: path.appending("auth"))
        }
      default:
        throw fail("expected a request object or a URL string", path)
      }
      var credentials: [CredentialField] = []
      switch choice {
      case .none: break
      case .auth(let auth): draft.auth = auth
      case .apiKey(let field, let key):
        // The request's own header or parameter of that name wins, as Postman sends it.
        switch field {
        case .header(let name) where draft.headers[name] == nil: draft.headers[name] = key
        case .query(let name) where draft.query[name] == nil: draft.query[name] = .string(key)
        default: break
        }
        credentials.append(field)
      case .unsupported(let type):
        imported.warnings.append(
          "request \(JSONSerializer.quote(name)): auth type \(JSONSerializer.quote(type)) is not "
            + "supported; imported without auth")
      }
      if given.isEmpty {
        name = (folders + [RequestDraft.derivedName(method: draft.method, url: draft.url)]).joined(separator: "/")
      }
      // What Postman does not send: the body of GET, HEAD, COPY, PURGE and UNLOCK unless the
      // request says `disableBodyPruning`.
      if draft.body != nil, PostmanImporter.prunedMethods.contains(draft.method.rawValue.uppercased()),
        behavior?["disableBodyPruning"]?.boolValue != true
      {
        draft.body = nil
        if let type = draft.headers["Content-Type"], !type.isEmpty, !hadContentTypeHeader { draft.headers["Content-Type"] = nil }
        imported.warnings.append(
          "\(file): request \(JSONSerializer.quote(name)): Postman does not send the body of a \(draft.method.rawValue) "
            + "request (its protocolProfileBehavior.disableBodyPruning is not true), so the body is not imported")
      }
      if draft.body != nil, draft.method == .HEAD {
        draft.body = nil
        imported.warnings.append(
          "\(file): request \(JSONSerializer.quote(name)): Postman sends this HEAD request's body "
            + "(disableBodyPruning); reqbench sends no body with HEAD, so the body is not imported")
      }
      var texts = PostmanText()
      texts.apply(to: &draft)
      if let warning = texts.warning(file: file, request: name) { imported.warnings.append(warning) }
      let template = draft.template(name: name)
      if let problem = RequestDraft.problem(in: template) {
        throw fail("it would not load in a workspace: \(problem)", item)
      }
      imported.requests.append(
        ImportedRequest(template: template, location: document.location(of: item), credentials: credentials))
    }

    /// `{{baseUrl}}/x` and `http(s)://…` as they are; no scheme: `http://` (what Postman sends).
    func absolute(_ url: String, at path: JSONPath, name: String) throws(ImportError) -> String {
      let url = url.trimmingSpaces()
      let lower = url.lowercased()
      if lower.hasPrefix("http://") || lower.hasPrefix("https://") || url.hasPrefix("{{") {
        return url
      }
      if let scheme = url.range(of: "://") {
        throw error(
          "request \(JSONSerializer.quote(name)): only http and https URLs can be imported, found "
            + "\(url[..<scheme.lowerBound]):", at: path)
      }
      return "http://" + url
    }

    func url(_ value: JSONValue, at path: JSONPath, name: String, into draft: inout RequestDraft)
      throws(ImportError)
    {
      if case .string(let raw) = value {
        draft.setURL(try absolute(raw, at: path, name: name))
        return
      }
      guard case .object(let url) = value else {
        throw error(
          "request \(JSONSerializer.quote(name)): \"url\" should be a string or an object", at: path
        )
      }
      let raw = url["raw"]?.stringValue ?? ""
      var base: String
      if !raw.isEmpty {
        base = String(raw.prefix(while: { $0 != "?" && $0 != "#" }))
      } else {
        let host: String
        switch url["host"] {
        case .string(let text): host = text
        case .array(let parts): host = parts.map { Reader.text($0) }.joined(separator: ".")
        default: host = ""
        }
        var pathText = ""
        switch url["path"] {
        case .string(let text): pathText = text.hasPrefix("/") ? text : "/" + text
        case .array(let parts):
          pathText = parts.map { "/" + ($0["value"].map { Reader.text($0) } ?? Reader.text($0)) }
            .joined()
        default: break
        }
        base =
          (url["protocol"]?.stringValue.map { $0 + "://" } ?? "") + host
          + (url["port"].map { ":" + Reader.text($0) } ?? "") + pathText
      }
      // Path variables: `/users/:id` with `"variable": [{"key": "id", "value": "1"}]`.
      if let variables = url["variable"]?.arrayValue {
        for variable in variables {
          guard let key = variable["key"]?.stringValue, !key.isEmpty else { continue }
          let value = Reader.text(variable["value"])
          let replacement = value.isEmpty ? "{{\(key)}}" : value
          var segments = base.split(separator: "/", omittingEmptySubsequences: false).map(
            String.init)
          for i in segments.indices where segments[i] == ":" + key { segments[i] = replacement }
          base = segments.joined(separator: "/")
        }
      }
      if !raw.isEmpty {
        // `raw` as written: Postman keeps it and the parts in step, and sends its query bytes.
        let query = raw.firstIndex(of: "?").map { raw[$0...].prefix { $0 != "#" } } ?? ""
        var parts = URLResolver.split(try absolute(base + query, at: path, name: name))
        parts.fragment = nil
        draft.url = URLResolver.join(parts)
        // Disabled parameters (not in `raw`) are kept switched off.
        var members: [(key: String, value: JSONValue)] = []
        for item in url["query"]?.arrayValue ?? [] where item["disabled"]?.boolValue == true {
          guard let key = item["key"]?.stringValue, !key.isEmpty, !members.contains(where: { $0.key == key }) else { continue }
          members.append((key, item["value"].flatMap { $0 == .null ? nil : .string(Reader.text($0)) } ?? .null))
          draft.switchedOff.set(query: key, off: true)
        }
        draft.query = JSONObject(distinctKeys: members)
      } else if let query = url["query"]?.arrayValue {
        draft.setURL(try absolute(base, at: path, name: name))
        var pairs: [(key: String, value: String?)] = []
        var disabled: [(key: String, value: String?)] = []
        for item in query {
          guard let key = item["key"]?.stringValue else { continue }
          let value = item["value"].flatMap { $0 == .null ? nil : Reader.text($0) }
          let pair = (
            key: QueryDecoder.decode(key[...], form: false) ?? key,
            value: value.map { QueryDecoder.decode($0[...], form: false) ?? $0 }
          )
          if item["disabled"]?.boolValue == true { disabled.append(pair) } else { pairs.append(pair) }
        }
        draft.setQuery(pairs)
        // Disabled parameters are kept switched off, when the query is an object (its keys
        // unique) and no enabled parameter has the key.
        if pairs.isEmpty || !draft.query.isEmpty {
          var members = draft.query.members
          var keys = Set(draft.query.keys)
          for pair in disabled where !pair.key.isEmpty && keys.insert(pair.key).inserted {
            members.append((pair.key, pair.value.map { .string($0) } ?? .null))
            draft.switchedOff.set(query: pair.key, off: true)
          }
          draft.query = JSONObject(distinctKeys: members)
        }
      } else {
        draft.setURL(try absolute(raw.isEmpty ? base : raw, at: path, name: name))
      }
    }

    func headers(
      _ value: JSONValue, at path: JSONPath, name: String, into draft: inout RequestDraft
    )
      throws(ImportError)
    {
      var fields: [(name: String, value: String, path: JSONPath, disabled: Bool)] = []
      switch value {
      case .array(let items):
        for (i, item) in items.enumerated() {
          fields.append(
            (
              item["key"]?.stringValue ?? "", Reader.text(item["value"]),
              path.appending(i).appending("key"), item["disabled"]?.boolValue == true
            ))
        }
      case .string(let text):
        for line in text.split(whereSeparator: \.isNewline) where !line.trimmingSpaces().isEmpty {
          let colon = line.firstIndex(of: ":") ?? line.endIndex
          fields.append(
            (
              line[..<colon].trimmingSpaces(),
              colon < line.endIndex ? line[line.index(after: colon)...].trimmingSpaces() : "", path,
              false
            ))
        }
      default:
        throw error("request \(JSONSerializer.quote(name)): \"header\" should be a list", at: path)
      }
      // A disabled header is kept switched off unless an enabled one has its name (Postman users
      // keep variants of a header, one enabled); a disabled one without a valid name is dropped.
      let enabled = Set(fields.filter { !$0.disabled }.map { $0.name.trimmingSpaces().lowercased() })
      // Collected, then added in one pass (a name found in a table, not among all the others).
      var added: [(name: String, value: String)] = []
      var names = Set(draft.headers.fields.map { HTTPHeaders.foldedName($0.name) })
      for field in fields {
        let fieldName = field.name.trimmingSpaces()
        if field.disabled,
          !WorkspaceReader.isValidHeaderName(fieldName) || enabled.contains(fieldName.lowercased())
            || names.contains(HTTPHeaders.foldedName(fieldName))
        {
          continue
        }
        guard WorkspaceReader.isValidHeaderName(fieldName) else {
          throw error(
            "request \(JSONSerializer.quote(name)): \(JSONSerializer.quote(fieldName)) is not a "
              + "valid header name", at: field.path)
        }
        added.append((fieldName, field.value))
        names.insert(HTTPHeaders.foldedName(fieldName))
        if field.disabled { draft.switchedOff.set(header: fieldName, off: true) }
      }
      draft.addHeaders(added)
    }
  }
}
