import RequestEngine
import Workspace

/// Request drafts from a text typed at the TUI's `n` prompt or pasted into the request list:
/// a curl command, an HTTPie command (or its arguments alone: `POST :3000/users name=ada`), an
/// `.http` block, a bare URL or `METHOD URL`, read by the importers
/// `reqbench import` uses, so a paste and an import make the same requests.
///
/// ```swift
/// let drafts = try RequestText.drafts(from: "GET {{baseURL}}users")
/// drafts.kind                                  // .methodAndURL
/// drafts.imported.requests[0].template.name    // "get-users", the importer's suggestion
/// try workspace.addImported(drafts.imported)   // nothing is added when drafts(from:) throws
/// ```
public enum RequestText {
  /// What a text was read as.
  public enum Kind: Sendable, Equatable {
    /// One or more curl commands ("Copy as cURL" of Chrome or Firefox, several lines joined by
    /// `\`), read by `CurlImporter`.
    case curl
    /// One or more HTTPie (or xh) commands, `http POST :3000/users name=ada`, read by
    /// `HTTPieImporter`.
    case httpie
    /// One or more `.http`/`.rest` requests (`###` between them), read by `HTTPFileImporter`.
    case http
    /// A URL alone (absolute, relative to `baseURL`, or templated): a GET.
    case url
    /// `METHOD URL` on one line.
    case methodAndURL
    /// HTTPie's arguments without the program on one line, `[METHOD] URL ITEM…`
    /// (`POST :3000/users name=ada age:=36`), read by `HTTPieImporter` as `http` reads them.
    case httpieArguments
    /// A document: JSON (it starts with `{`: a Postman collection or environment, a HAR, an
    /// OpenAPI description or an Insomnia export, `ImportFormat.detect`), a `.bru` file, an
    /// Insomnia or OpenAPI YAML document; read by that importer. Nil: JSON of none of them.
    case document(ImportFormat?)
  }

  /// What the text is: a JSON document when it starts with `{` but not `{{` (a Postman collection or
  /// environment, a HAR, an OpenAPI description); a curl command when its first word is `curl`
  /// (after an optional `$ ` prompt), an HTTPie command when it is `http`, `https`, `xh` or `xhs`
  /// followed by more; a URL or `METHOD URL` when it is one line of one word or a
  /// method and one word; HTTPie's arguments when it is one line with a request item after the
  /// URL (`POST :3000/users name=ada`); otherwise an `.http` block.
  public static func kind(of text: String) -> Kind {
    // (`{{host}}/users` is a templated URL, not JSON.)
    if case let start = text.drop(while: { $0.isWhitespace }), start.hasPrefix("{"), !start.hasPrefix("{{") {
      return .document(ImportFormat.detect(json: Array(text.utf8)))
    }
    // A `.bru` file, an Insomnia or OpenAPI YAML document.
    if let format = ImportFormat.recognize(Array(text.utf8)), [.bruno, .insomnia, .openapi].contains(format) {
      return .document(format)
    }
    let lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" })
      .map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
    var words = lines.first?.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init) ?? []
    if words.first == "$" { words.removeFirst() }
    if let first = words.first {
      let program = ShellWords.programName(first)
      if CurlImporter.isCurl(program) { return .curl }
      // `http :3000/users`, `https POST api.test/x a=1` (a URL alone is one word).
      if words.count >= 2, HTTPieImporter.programs[program] != nil { return .httpie }
    }
    guard lines.count == 1 else { return .http }
    if words.count == 1 { return .url }
    let hasMethod = HTTPMethod(word: words[0]) != nil
    if words.count == 2, hasMethod { return .methodAndURL }
    // `POST :3000/users name=ada`, `api.test/users X-Trace:abc`: a request item after the URL
    // (an `.http` request line has only `HTTP/1.1` there).
    if let item = words.dropFirst(hasMethod ? 2 : 1).first, HTTPieImporter.isRequestItem(item) {
      return .httpieArguments
    }
    return .http
  }

  /// The requests in `text`, named as the importer suggests (a `.http` request's `# @name`, else
  /// the method and path: `get-users-1`), with the `.http` file's `@variables`. An error says
  /// what is wrong and where (`source:LINE:COLUMN` in the text); a caller then adds nothing.
  /// `readFile` reads the files a curl command names (`-d @body.json`).
  public static func drafts(
    from text: String, source: String = "paste",
    readFile: @escaping (String) throws(FileError) -> [UInt8] = ImportFile.read
  ) throws(ImportError) -> Drafts {
    if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
      throw ImportError(
        file: source, location: .start,
        message: "there is nothing here; paste a curl command, an .http request or a URL")
    }
    let kind = kind(of: text)
    var imported: ImportedRequests
    switch kind {
    case .curl:
      imported = try CurlImporter.parse(text, file: source, readFile: readFile)
    case .httpie:
      imported = try HTTPieImporter.parse(text, file: source)
    case .httpieArguments:
      imported = try HTTPieImporter.parseArguments(text, file: source)
    case .http, .url, .methodAndURL:
      // A URL alone and `METHOD URL` are `.http` request lines.
      imported = try HTTPFileImporter.parse(text, file: source)
    case .document(let format?):
      return Drafts(kind: kind, imported: try format.parse(Array(text.utf8), file: source, readFile: readFile))
    case .document(nil):
      // Malformed JSON says where; well-formed JSON of another shape says what is read here.
      do {
        _ = try JSONParser.parse(Array(text.utf8))
      } catch {
        throw ImportError(file: source, location: error.location, message: "this JSON is malformed: \(error.message)")
      }
      throw ImportError(
        file: source, location: .start,
        message: "this JSON is no request: paste a curl command, an .http request, a URL, a Postman collection or "
          + "environment, a HAR, an OpenAPI description, an Insomnia export or a .bru file")
    }
    imported.followNameRules(file: source)
    return Drafts(kind: kind, imported: imported)
  }

  /// What `drafts(from:)` read.
  public struct Drafts: Sendable, Equatable {
    public var kind: Kind
    /// The requests, in the text's order, and the `.http` file variables.
    public var imported: ImportedRequests
  }

  /// Gives each request whose URL has no scheme the URL curl or HTTPie would send
  /// (`completedURL`), and the name derived from that URL when it had the one derived from the
  /// text (`get-users` for `:3000/users`, not `get-3000-users`; a name the text gave is kept).
  public static func completeURLs(_ imported: inout ImportedRequests, hasBaseURL: Bool) {
    for index in imported.requests.indices {
      let template = imported.requests[index].template
      guard let url = completedURL(template.url, hasBaseURL: hasBaseURL) else { continue }
      imported.requests[index].template.url = url
      if template.name == RequestDraft.derivedName(method: template.method, url: template.url) {
        imported.requests[index].template.name = RequestDraft.derivedName(method: template.method, url: url)
      }
    }
  }

  /// The URL a typed or pasted scheme-less URL stands for, as curl and HTTPie read one (nil when
  /// it is left as it is): `:3000/users` is `http://localhost:3000/users` (HTTPie's shorthand),
  /// `localhost:8080/x` and `127.0.0.1:8080` get `http://` (a colon in the first segment makes
  /// it no relative URL), and, when the workspace has no `baseURL` to resolve it against, so do
  /// `example.com/api`, `localhost/x` and `[::1]/x` (curl's guess). A URL with a scheme, a path
  /// (`/users`), a template (`{{host}}/x`) or a first segment that names no host (`users`) is
  /// left as it is.
  public static func completedURL(_ url: String, hasBaseURL: Bool) -> String? {
    guard !url.isEmpty, !url.contains("://"), !url.contains("{{"),
      !url.contains(where: { $0 == " " || $0 == "\t" })
    else { return nil }
    if url.hasPrefix(":") {
      // `:3000/users`, `:3000`, `:/users`: localhost, the port if one is given.
      let rest = url.dropFirst()
      let port = rest.prefix { $0.isASCII && $0.isNumber }
      let after = rest.dropFirst(port.count)
      guard after.isEmpty || after.hasPrefix("/") || after.hasPrefix("?") else { return nil }
      return "http://localhost" + (port.isEmpty ? "" : ":" + port) + after
    }
    var host = url.prefix { $0 != "/" && $0 != "?" && $0 != "#" }  // the authority
    var hasPort = false
    if host.hasPrefix("[") {
      // An IPv6 literal, `[::1]` or `[::1]:8080`.
      guard let close = host.firstIndex(of: "]") else { return nil }
      let port = host[host.index(after: close)...]
      guard port.isEmpty || isPort(port) else { return nil }
      return hasBaseURL && port.isEmpty ? nil : "http://" + url
    }
    if let colon = host.lastIndex(of: ":") {
      guard isPort(host[colon...]) else { return nil }
      host = host[..<colon]
      hasPort = true
    }
    let names = host.split(separator: ".", omittingEmptySubsequences: false)
    let isHost = host == "localhost"
      || (names.count > 1 && names.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" } })
    guard isHost else { return nil }
    // With a port it cannot be a relative URL; without one it is one when a baseURL is there.
    return hasBaseURL && !hasPort ? nil : "http://" + url
  }

  /// `:8080`: a colon and one to five digits.
  private static func isPort(_ text: Substring) -> Bool {
    let digits = text.dropFirst()
    return text.first == ":" && (1...5).contains(digits.count) && digits.allSatisfy { $0.isASCII && $0.isNumber }
  }
}
