import RequestEngine

/// A request being assembled by an importer; `template(name:)` makes the `RequestTemplate`.
/// The rules every format shares live here: how a URL splits into `url` + `query`, which body
/// kind a body becomes, which headers are left out, and the name a request gets when the input
/// gives it none.
package struct RequestDraft {
  package init() {}

  package var method: HTTPMethod = .GET
  package var url = ""
  package var query = JSONObject()
  package var headers = HTTPHeaders()
  /// Headers and query parameters the input has but switches off (Postman's `disabled`).
  package var switchedOff = SwitchedOff()
  package var body: BodyTemplate?
  package var auth: Auth?
  /// `--digest`: the user and password answer a Digest challenge.
  package var digest = false
  package var tls: TLSSettings?
  package var timeout: Double?
  package var deadline: Double?
  package var followRedirects = true
  package var maxRedirects: Int?
  package var insecure = false
  package var retry: RetryPolicy?
  package var download: DownloadTemplate?
  /// Whether reqbench asks for compressed responses (`"compressed"`); curl asks only with
  /// `--compressed`.
  package var compressed = true
  package var proxy: String?
  package var noProxy: String?
  /// The request line's target instead of the URL's (`--request-target`, `OPTIONS *`).
  package var requestTarget: String?

  /// Takes the URL apart: the query goes to `query` when it decodes cleanly (see
  /// `QueryDecoder.object`) and encodes back to the very bytes written, else it stays in the URL
  /// as written (`a=%2F`, `&&`, a trailing `&`, `+`); a fragment is dropped (it is never sent).
  /// `asWritten: false` (the `.http` reading, whose round trip with its exporter is structural)
  /// takes any query that decodes cleanly apart.
  package mutating func setURL(_ raw: String, asWritten: Bool = true) {
    var parts = URLResolver.split(raw)
    parts.fragment = nil
    query = JSONObject()
    if let text = parts.query, let object = QueryDecoder.object(text, form: false),
      !asWritten || QueryEncoder.encode(object.members.map { ($0.key, $0.value) }) == text
    {
      parts.query = nil
      query = object
    }
    url = URLResolver.join(parts)
  }

  /// Sets the URL as written, its query included (sent as it is); only a fragment is dropped
  /// (it is never sent). `{{` in it is literal text.
  package mutating func setURLAsWritten(_ raw: String) {
    var parts = URLResolver.split(raw)
    parts.fragment = nil
    url = Template.literal(URLResolver.join(parts))
    query = JSONObject()
  }

  /// Sets query parameters given as pairs (a Postman `query` array): an object when the keys are
  /// unique, else the encoded pairs stay in the URL.
  package mutating func setQuery(_ pairs: [(key: String, value: String?)]) {
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
  package mutating func addHeader(_ name: String, _ value: String) {
    addHeaders([(name, value)])
  }

  /// `addHeader` of each field in order, in one pass: each name is found in a table, not among
  /// all the headers before it (a HAR entry may have thousands).
  package mutating func addHeaders(_ added: [(name: String, value: String)]) {
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
  package static func isLeftOut(header name: String) -> Bool {
    let lower = name.lowercased()
    return lower == "content-length" || lower == "accept-encoding"
  }

  /// Sets the body from its text, which is sent as written. The content type is the
  /// `Content-Type` header, else `defaultContentType` (curl sends form data when none is set;
  /// `.http` files send none):
  /// - JSON types (`application/json`, `…+json`), or `json: true`: a `{"json": …}` body when the
  ///   text parses and reqbench's compact serialization of it is the text itself;
  /// - `application/x-www-form-urlencoded`: a `{"form": …}` body when it decodes cleanly and
  ///   encodes back to the text itself;
  /// - anything else, a body that does not parse, or one whose bytes a JSON or form body would
  ///   change (spaces, key order, escapes, `"` in a form value): `{"text": …, "contentType": …}`,
  ///   sent byte for byte.
  /// A `Content-Type` header that is the last header goes into the body (the body's type is
  /// sent after the headers, where it stood), dropped when it only restates what the body kind
  /// sends; one followed by other headers stays a header where it is, so the order sent is the
  /// order written. An empty `Content-Type` (which removes the header) is kept as it is.
  /// `asWritten: false` (the `.http` reading, whose round trip with its exporter is structural)
  /// makes a JSON or form body of any text that parses, and drops a restating header wherever it is.
  package mutating func setBody(_ text: String, defaultContentType: String?, json: Bool = false, asWritten: Bool = true) {
    let header = headers["Content-Type"]
    let isLast = header != nil && contentTypeIsLast
    guard let type = header ?? defaultContentType, !type.trimmingSpaces().isEmpty else {
      body = .text(text, contentType: nil)
      return
    }
    let media = RequestDraft.mediaType(type)
    // A written form type stays a header: the body's own form type is sent after
    // Content-Length, where curl sends its default, not where a written header stands.
    let movable = !asWritten || (isLast && media != RequestDraft.formType)
    if json || media == "application/json" || media.hasSuffix("+json") {
      if let value = try? JSONParser.parse(text), !asWritten || JSONSerializer.compact(value) == text {
        body = .json(value)
        if let header, movable, RequestDraft.restates(header, "application/json") {
          headers["Content-Type"] = nil
        } else if header == nil, type != "application/json" {
          body = .text(text, contentType: type.trimmingSpaces())
        }
        return
      }
    } else if media == RequestDraft.formType {
      if let fields = QueryDecoder.object(text, form: true), !asWritten || RequestDraft.encodesBack(fields, to: text) {
        body = .form(fields)
        if !asWritten, let header, RequestDraft.restates(header, RequestDraft.formType) { headers["Content-Type"] = nil }
        return
      }
    }
    guard header == nil || movable else {
      body = .text(text, contentType: nil)
      return
    }
    body = .text(text, contentType: type.trimmingSpaces())
    headers["Content-Type"] = nil
  }

  /// Whether a form body of `fields` sends exactly `text`.
  package static func encodesBack(_ fields: JSONObject, to text: String) -> Bool {
    var pairs: [(String, String)] = []
    for member in fields.members {
      guard case .string(let value) = member.value else { return false }
      pairs.append((member.key, value))
    }
    return QueryEncoder.encode(pairs) == text
  }

  package static let formType = "application/x-www-form-urlencoded"

  /// Whether `Content-Type` is the last header: a body's own type is sent after the headers, so
  /// only that one can move into the body without changing the order sent.
  package var contentTypeIsLast: Bool {
    headers.fields.last.map { HTTPHeaders.foldedName($0.name) == Array("content-type".utf8) } == true
  }

  /// Sets a `{"file": path}` body. Its content type is the `Content-Type` header (which goes),
  /// else `defaultContentType`; `application/octet-stream`, what a file body sends anyway, is left
  /// out. An empty `Content-Type` (which removes the header) stays a header.
  package mutating func setFileBody(_ path: String, defaultContentType: String?) {
    var type = defaultContentType
    if let header = headers["Content-Type"], !header.trimmingSpaces().isEmpty {
      // As in `setBody`: only the last header, and not the form type, moves into the body.
      guard contentTypeIsLast, RequestDraft.mediaType(header) != RequestDraft.formType else {
        body = .file(path, contentType: nil)
        return
      }
      type = header.trimmingSpaces()
      headers["Content-Type"] = nil
    }
    if let given = type, RequestDraft.restates(given, "application/octet-stream") { type = nil }
    body = .file(path, contentType: type)
  }

  /// Sets a `{"multipart": […]}` body. A `Content-Type: multipart/form-data` header goes: the
  /// engine writes its own, with the boundary it uses.
  package mutating func setMultipart(_ fields: [MultipartField]) {
    body = .multipart(fields)
    if let header = headers["Content-Type"], RequestDraft.mediaType(header) == "multipart/form-data" {
      headers["Content-Type"] = nil
    }
  }

  /// What is wrong with `path` as a file an upload reads (or, with `download`, a download
  /// writes), and what to do about it; nil when it is fine. Such paths are relative to the
  /// workspace's folder and stay inside it (`WorkspacePaths.problem`).
  /// A Windows drive path (`C:\Users\…`, which Postman writes) counts as absolute too.
  package static func pathProblem(_ path: String, download: Bool = false) -> String? {
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
  package static func mediaType(_ contentType: String) -> String {
    let head = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
      .first
    return (head.map { $0.trimmingSpaces() } ?? "").lowercased()
  }

  package static func restates(_ header: String, _ type: String) -> Bool {
    header.trimmingSpaces().lowercased() == type
  }

  package func template(name: String) -> RequestTemplate {
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
    template.compressed = compressed
    template.proxy = proxy
    template.noProxy = noProxy
    template.requestTarget = requestTarget
    return template
  }

  /// A name for a request the input does not name: the method and the last path segments,
  /// `get-users-1` for `GET https://api.test/v1/users/1`; the host when the path is empty.
  package static func derivedName(method: HTTPMethod, url: String) -> String {
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
  package static func problem(in template: RequestTemplate) -> String? {
    var reader = WorkspaceReader()
    _ = reader.request(template.json, .root)
    return reader.problems.first?.message
  }

  /// A command line's URL (curl's, HTTPie's) with `scheme` (`http://`, what both assume) in front
  /// when it has none; a scheme other than http and https is an error at `location`.
  package static func commandLineURL(
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
  package static func unsupportedScheme(_ url: String) -> Substring? {
    guard let found = url.range(of: "://") else { return nil }
    let scheme = url[..<found.lowerBound]
    guard !scheme.isEmpty, scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) })
    else { return nil }
    let lower = scheme.lowercased()
    return lower == "http" || lower == "https" ? nil : scheme
  }

  /// What is said of a URL whose `http` or `https` is not followed by `://` (`http//host`,
  /// `https:/host`, `http:host`): `"http//127.0.0.1…" is not a URL: did you mean http://?`;
  /// nil for every other text (`httpbin.org/get`, `/users`, `{{base}}/users`).
  package static func misspelledScheme(_ url: String) -> String? {
    let lower = url.lowercased()
    for scheme in ["https", "http"] where lower.hasPrefix(scheme) {
      let rest = lower.dropFirst(scheme.count)
      guard let next = rest.first, ":/;\\".contains(next), !rest.hasPrefix("://") else { return nil }
      let shown = url.count > 15 ? String(url.prefix(15)) + "…" : url
      return "\"\(shown)\" is not a URL: did you mean \(scheme)://?"
    }
    return nil
  }

  /// What an import says of a URL with another scheme.
  package static func schemeMessage(_ scheme: Substring) -> String {
    "only http and https URLs can be imported, found \(scheme):"
  }

  /// The template of a command line's request, named as importers name one; a GET or HEAD with a
  /// body is warned about (reqbench does not send it), and a template the workspace could not
  /// load again is an error at `location` (the command's first word).
  package func commandLineTemplate(
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
package enum PlaceholderEncoding {
  package static func encode(_ text: String) -> String {
    guard let template = try? Template(text) else { return QueryEncoder.encodeComponent(text) }
    return template.parts.map { part in
      switch part {
      case .text(let text): QueryEncoder.encodeComponent(text)
      case .variable(let name): "{{\(name)}}"
      }
    }.joined()
  }
}
