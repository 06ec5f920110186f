import RequestEngine

/// A request being assembled by an importer; `template(name:)` makes the `RequestTemplate`.
/// The rules every format shares live here: how a URL splits into `url` + `query`, which body
/// kind a body becomes, which headers are left out, and the name a request gets when the input
/// gives it none.
struct RequestDraft {
  var method: HTTPMethod = .GET
  var url = ""
  var query = JSONObject()
  var headers = HTTPHeaders()
  /// Headers and query parameters the input has but switches off (Postman's `disabled`).
  var switchedOff = SwitchedOff()
  var body: BodyTemplate?
  var auth: Auth?
  /// `--digest`: the user and password answer a Digest challenge.
  var digest = false
  var tls: TLSSettings?
  var timeout: Double?
  var deadline: Double?
  var followRedirects = true
  var maxRedirects: Int?
  var insecure = false
  var retry: RetryPolicy?
  var download: DownloadTemplate?

  /// Takes the URL apart: the query goes to `query` when it decodes cleanly (see
  /// `QueryDecoder.object`), else it stays in the URL as written; a fragment is dropped (it is never
  /// sent).
  mutating func setURL(_ raw: String) {
    var parts = URLResolver.split(raw)
    parts.fragment = nil
    query = JSONObject()
    if let text = parts.query, let object = QueryDecoder.object(text, form: false) {
      parts.query = nil
      query = object
    }
    url = URLResolver.join(parts)
  }

  /// Sets the URL as written, its query included (sent as it is); only a fragment is dropped
  /// (it is never sent). `{{` in it is literal text.
  mutating func setURLAsWritten(_ raw: String) {
    var parts = URLResolver.split(raw)
    parts.fragment = nil
    url = Template.literal(URLResolver.join(parts))
    query = JSONObject()
  }

  /// Sets query parameters given as pairs (a Postman `query` array): an object when the keys are
  /// unique, else the encoded pairs stay in the URL.
  mutating func setQuery(_ pairs: [(key: String, value: String?)]) {
    var members: [(key: String, value: JSONValue)] = []
    var seen = Set<String>()
    var clean = true
    for pair in pairs {
      if pair.key.isEmpty || !seen.insert(pair.key).inserted { clean = false }
      members.append((pair.key, pair.value.map { .string($0) } ?? .null))
    }
    if clean {
      query = JSONObject(distinctKeys: members)
      return
    }
    let encoded = pairs.map { pair in
      PlaceholderEncoding.encode(pair.key)
        + (pair.value.map { "=" + PlaceholderEncoding.encode($0) } ?? "")
    }
    url = URLResolver.appendQuery(encoded.joined(separator: "&"), to: url)
    query = JSONObject()
  }

  /// Adds a header the way a sender that repeats it would mean it: a repeated `Cookie` joins with
  /// `; `, other repeated fields with `, ` (RFC 9110 §5.3); an empty value replaces.
  mutating func addHeader(_ name: String, _ value: String) {
    addHeaders([(name, value)])
  }

  /// `addHeader` of each field in order, in one pass: each name is found in a table, not among
  /// all the headers before it (a HAR entry may have thousands).
  mutating func addHeaders(_ added: [(name: String, value: String)]) {
    var fields = headers.fields
    var places = [[UInt8]: Int](minimumCapacity: fields.count + added.count)
    for (place, field) in fields.enumerated() { places[HTTPHeaders.foldedName(field.name)] = place }
    for (name, value) in added {
      let key = HTTPHeaders.foldedName(name)
      guard let place = places[key] else {
        places[key] = fields.count
        fields.append((name, value))
        continue
      }
      let existing = fields[place].value
      let separator = key == Array("cookie".utf8) ? "; " : ", "
      fields[place] = (name, !existing.isEmpty && !value.isEmpty ? existing + separator + value : value)
    }
    headers = HTTPHeaders(fields.map { ($0.name, $0.value) })
  }

  /// Headers reqbench sets itself and an import leaves out: `Content-Length` (computed from the
  /// body) and `Accept-Encoding` (reqbench offers every coding libcurl decodes and decodes the
  /// response; a copied `Accept-Encoding` would turn decoding off and show compressed bytes).
  static func isLeftOut(header name: String) -> Bool {
    let lower = name.lowercased()
    return lower == "content-length" || lower == "accept-encoding"
  }

  /// Sets the body from its text. The content type is the `Content-Type` header, else
  /// `defaultContentType` (curl sends form data when none is set; `.http` files send none):
  /// - JSON types (`application/json`, `…+json`), or `json: true`: a `{"json": …}` body when the
  ///   text parses;
  /// - `application/x-www-form-urlencoded`: a `{"form": …}` body when it decodes cleanly;
  /// - anything else, or a body that does not parse: `{"text": …, "contentType": …}`.
  /// A `Content-Type` header that only restates what the body kind sends is dropped, and a text
  /// body carries its type in `contentType`; an empty `Content-Type` (which removes the header) is
  /// kept as it is.
  mutating func setBody(_ text: String, defaultContentType: String?, json: Bool = false) {
    let header = headers["Content-Type"]
    guard let type = header ?? defaultContentType, !type.trimmingSpaces().isEmpty else {
      body = .text(text, contentType: nil)
      return
    }
    let media = RequestDraft.mediaType(type)
    if json || media == "application/json" || media.hasSuffix("+json") {
      if let value = try? JSONParser.parse(text) {
        body = .json(value)
        if let header, RequestDraft.restates(header, "application/json") {
          headers["Content-Type"] = nil
        }
        return
      }
    } else if media == RequestDraft.formType {
      if let fields = QueryDecoder.object(text, form: true) {
        body = .form(fields)
        if let header, RequestDraft.restates(header, RequestDraft.formType) {
          headers["Content-Type"] = nil
        }
        return
      }
    }
    body = .text(text, contentType: type.trimmingSpaces())
    headers["Content-Type"] = nil
  }

  static let formType = "application/x-www-form-urlencoded"

  /// Sets a `{"file": path}` body. Its content type is the `Content-Type` header (which goes),
  /// else `defaultContentType`; `application/octet-stream`, what a file body sends anyway, is left
  /// out. An empty `Content-Type` (which removes the header) stays a header.
  mutating func setFileBody(_ path: String, defaultContentType: String?) {
    var type = defaultContentType
    if let header = headers["Content-Type"], !header.trimmingSpaces().isEmpty {
      type = header.trimmingSpaces()
      headers["Content-Type"] = nil
    }
    if let given = type, RequestDraft.restates(given, "application/octet-stream") { type = nil }
    body = .file(path, contentType: type)
  }

  /// Sets a `{"multipart": […]}` body. A `Content-Type: multipart/form-data` header goes: the
  /// engine writes its own, with the boundary it uses.
  mutating func setMultipart(_ fields: [MultipartField]) {
    body = .multipart(fields)
    if let header = headers["Content-Type"], RequestDraft.mediaType(header) == "multipart/form-data" {
      headers["Content-Type"] = nil
    }
  }

  /// What is wrong with `path` as a file an upload reads (or, with `download`, a download
  /// writes), and what to do about it; nil when it is fine. Such paths are relative to the
  /// workspace's folder and stay inside it (`WorkspacePaths.problem`).
  /// A Windows drive path (`C:\Users\…`, which Postman writes) counts as absolute too.
  static func pathProblem(_ path: String, download: Bool = false) -> String? {
    var problem = WorkspacePaths.problem(with: path)
    let characters = Array(path.prefix(3))
    if problem == nil, characters.count == 3, characters[0].isASCII, characters[0].isLetter,
      characters[1] == ":", characters[2] == "\\" || characters[2] == "/"
    {
      problem = "\(JSONSerializer.quote(path)) is absolute; paths are relative to the workspace's folder"
    }
    guard let problem else { return nil }
    return problem
      + (download
        ? "; write a path inside the workspace's folder, such as downloads/file.bin"
        : "; copy the file into the workspace's folder and write its path relative to that folder")
  }

  /// `application/json` of `Application/JSON; charset=utf-8`.
  static func mediaType(_ contentType: String) -> String {
    let head = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
      .first
    return (head.map { $0.trimmingSpaces() } ?? "").lowercased()
  }

  static func restates(_ header: String, _ type: String) -> Bool {
    header.trimmingSpaces().lowercased() == type
  }

  func template(name: String) -> RequestTemplate {
    var template = RequestTemplate(
      name: name, method: method, url: url, query: query, headers: headers, body: body, auth: auth,
      timeout: timeout ?? RequestTemplate.defaultTimeout, deadline: deadline,
      retry: retry, followRedirects: followRedirects, maxRedirects: maxRedirects ?? 10,
      insecure: insecure)
    // reqbench resumes only GET downloads (a resume is a Range request): the response of any other
    // method is kept like any response (viewer, history, `w` writes it to a file).
    template.download = method == .GET ? download : nil
    if digest, case .basic(let user, let password)? = auth { template.auth = .digest(user: user, password: password) }
    template.tls = tls
    template.switchedOff = switchedOff
    return template
  }

  /// A name for a request the input does not name: the method and the last path segments,
  /// `get-users-1` for `GET https://api.test/v1/users/1`; the host when the path is empty.
  static func derivedName(method: HTTPMethod, url: String) -> String {
    let parts = URLResolver.split(url)
    var segments = parts.path.split(separator: "/").map(String.init)
    // `{{baseUrl}}/users`, `{{baseURL}}users`: the leading placeholder stands for the base, not
    // a path segment.
    if parts.authority == nil, let first = segments.first, first.hasPrefix("{{") {
      let rest = first.range(of: "}}").map { String(first[$0.upperBound...]) } ?? ""
      if rest.isEmpty { segments.removeFirst() } else { segments[0] = rest }
    }
    var words = segments.suffix(3).map(slug).filter { !$0.isEmpty }
    if words.isEmpty, let host = parts.authority.map(slug), !host.isEmpty { words = [host] }
    return ([method.rawValue.lowercased()] + words).joined(separator: "-")
  }

  /// Letters, digits, `.`, `_` and `-`; anything else becomes one `-`.
  private static func slug(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
      if scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
        || "._".unicodeScalars.contains(scalar)
      {
        out.unicodeScalars.append(scalar)
      } else if !out.isEmpty, !out.hasSuffix("-") {
        out += "-"
      }
    }
    while out.hasSuffix("-") { out.removeLast() }
    return out
  }

  /// The first problem the workspace reader finds in `template` (a placeholder that is not a
  /// variable name, an invalid header name…): an import never adds a request the workspace file
  /// could not load again.
  static func problem(in template: RequestTemplate) -> String? {
    var reader = WorkspaceReader()
    _ = reader.request(template.json, .root)
    return reader.problems.first?.message
  }

  /// A command line's URL (curl's, HTTPie's) with `scheme` (`http://`, what both assume) in front
  /// when it has none; a scheme other than http and https is an error at `location`.
  static func commandLineURL(
    _ text: String, scheme: String, file: String, at location: SourceLocation
  ) throws(ImportError) -> String {
    let url = text.trimmingSpaces()
    let lower = url.lowercased()
    if lower.hasPrefix("http://") || lower.hasPrefix("https://") || url.hasPrefix("{{") { return url }
    if let found = url.range(of: "://") {
      throw ImportError(file: file, location: location, message: schemeMessage(url[..<found.lowerBound]))
    }
    return scheme + url
  }

  /// The scheme of `url` when it is written out and is neither http nor https (`htps` in
  /// `htps://api.test`); nil for those two, for no scheme and for a templated one (`{{proto}}://`).
  static func unsupportedScheme(_ url: String) -> Substring? {
    guard let found = url.range(of: "://") else { return nil }
    let scheme = url[..<found.lowerBound]
    guard !scheme.isEmpty, scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) })
    else { return nil }
    let lower = scheme.lowercased()
    return lower == "http" || lower == "https" ? nil : scheme
  }

  /// What an import says of a URL with another scheme.
  static func schemeMessage(_ scheme: Substring) -> String {
    "only http and https URLs can be imported, found \(scheme):"
  }

  /// The template of a command line's request, named as importers name one; a GET or HEAD with a
  /// body is warned about (reqbench does not send it), and a template the workspace could not
  /// load again is an error at `location` (the command's first word).
  func commandLineTemplate(
    file: String, at location: SourceLocation, warnings: inout [String]
  ) throws(ImportError) -> RequestTemplate {
    if body != nil, method == .GET || method == .HEAD {
      warnings.append(
        "the \(method.rawValue) request at \(file):\(location) has a body, "
          + "which reqbench does not send with \(method.rawValue)")
    }
    let template = template(name: RequestDraft.derivedName(method: method, url: url))
    if let problem = RequestDraft.problem(in: template) {
      throw ImportError(file: file, location: location, message: "this request would not load in a workspace: \(problem)")
    }
    return template
  }
}

/// Percent-encoding that keeps `{{variables}}` as they are, so `q={{term}}` stays readable and is
/// filled in (and encoded) when the request is prepared.
enum PlaceholderEncoding {
  static func encode(_ text: String) -> String {
    guard let template = try? Template(text) else { return QueryEncoder.encodeComponent(text) }
    return template.parts.map { part in
      switch part {
      case .text(let text): QueryEncoder.encodeComponent(text)
      case .variable(let name): "{{\(name)}}"
      }
    }.joined()
  }
}
