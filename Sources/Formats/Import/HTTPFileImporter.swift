import RequestEngine
import Workspace

/// Reads `.http` / `.rest` files, the format of the JetBrains HTTP Client, VS Code's REST
/// Client, httpyac, kulala.nvim and rest.nvim, into request templates that send what the editors
/// send.
///
/// ```http
/// @host = https://api.test
///
/// ### get-user
/// GET {{host}}/users/1?verbose=1 HTTP/1.1
/// Accept: application/json
///
/// ### Create a user
/// # @name users/create
/// POST {{host}}/users
/// Content-Type: application/json
///
/// {"name": "Ada"}
/// ```
/// - `###` separates requests; text after it names the request, and `# @name NAME` (or
///   `// @name NAME`) wins over it. Without either the name comes from the method and path.
/// - `@name = value` lines are file variables (a value may use earlier ones, which are filled in);
///   `#` and `//` lines are comments.
/// - The request line is `METHOD URL [HTTP/1.1]` (no method: GET); lines after it that start with
///   `?` or `&`, and indented lines that start with `/`, continue the URL. Headers follow until a
///   blank line, then the body until the next `###`.
/// - The URL, query included, and the body's text are kept as written; a query or a JSON or form
///   body becomes parameters only when reqbench writes them back byte for byte as written.
///   The headers keep their order, `Content-Type` included.
/// - `{{var}}` and `{{ var }}` placeholders are kept: reqbench uses the same syntax; other
///   placeholders are read as `HTTPFileImporter+Placeholders.swift` says (request variables
///   become chains).
/// - `# @no-redirect` sets `followRedirects` false, `# @timeout N` the idle timeout in seconds.
/// - `Authorization: Basic user password` (or `user:password`), the clients' unencoded spelling,
///   becomes `auth.basic`; an encoded `Basic dXNlcjpwYXNz` stays a header.
/// - A body that is one `< path` line is a `{"file": path}` body (its type from `Content-Type`);
///   one `<@ path` line is the file's text, its placeholders filled in when sent.
/// - `GRAPHQL` requests and `X-Request-Type: GraphQL` ones send the JSON the editors build.
/// - A `multipart/form-data; boundary=X` body becomes a `{"multipart": […]}` body: each part's
///   `Content-Disposition: form-data; name="…"; filename="…"` names it, its `Content-Type` is the
///   part's `type`, and its content is a `< path` line (a file part) or the text of the value.
///   The multipart `Content-Type` header goes: reqbench writes its own, with its own boundary.
///   A file part's `filename` is kept only when it is not the file's own name.
/// - `>> path` and `>>! path` (save the response to a file) become `"download": {"to": path}`.
/// - Paths are relative to the workspace's folder, where the files must be: an absolute path, `~`
///   or `..` is an error saying to copy the file into the folder (`WorkspacePaths.problem`).
/// - Scripts (`> {% … %}`, `> handler.js`, `< {% … %}`, httpyac's `{{ … }}` blocks) are left out
///   with a warning naming their line; `<> ./previous.json` response references are skipped.
/// - A request that cannot be imported is left out with a warning saying where and why; the
///   import fails only when no request is left.
public enum HTTPFileImporter {
  /// `readFile` reads the file of a `<@ path` body (its text, with its `{{variables}}`, becomes
  /// the body); without it such a body is refused.
  public static func parse(
    _ text: String, file: String, readFile: ((String) throws(FileError) -> [UInt8])? = nil
  ) throws(ImportError) -> ImportedRequests {
    var lines: [Line] = []
    // "\r\n" is one Character: split on both.
    let split = text.split(
      omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    for (i, raw) in split.enumerated() {
      lines.append(
        Line(number: i + 1, text: raw.hasSuffix("\r") ? String(raw.dropLast()) : String(raw)))
    }
    // Blocks between `###` lines; the first one has no name line.
    var blocks: [Block] = [Block(name: nil, lines: [])]
    var names = Set<String>()
    for line in lines {
      if line.text.hasPrefix("###") {
        let name = line.text.drop(while: { $0 == "#" }).trimmingSpaces()
        blocks.append(Block(name: name.isEmpty ? nil : name, lines: []))
      } else {
        blocks[blocks.count - 1].lines.append(line)
        if let name = Reader.requestVariableName(line.text) { names.insert(name) }
      }
    }
    blocks = blocks.flatMap(Self.splitAtRequestLines)
    var reader = Reader(file: file, readFile: readFile)
    reader.requestNames = names
    // A request that cannot be imported is left out, named in a warning; the others are kept.
    var refused: ImportError?
    for block in blocks {
      do throws(ImportError) {
        try reader.read(block)
      } catch {
        refused = refused ?? error
        reader.imported.warnings.append("\(error.description); this request is not imported, the others are")
      }
    }
    if reader.imported.requests.isEmpty {
      if let refused { throw refused }
      throw ImportError(
        file: file, location: .start,
        message: "there is no request here; write a request line such as GET https://host/path")
    }
    reader.addChains()
    return reader.imported
  }

  /// `block` cut before each request line that follows its first one (see `isRequestLine`).
  static func splitAtRequestLines(_ block: Block) -> [Block] {
    var out = [Block(name: block.name, lines: [])]
    var seenRequest = false
    for line in block.lines {
      let text = line.text.trimmingSpaces()
      if Reader.isRequestLine(text) {
        if seenRequest { out.append(Block(name: nil, lines: [])) }
        seenRequest = true
      } else if !seenRequest, !text.isEmpty, !Reader.isComment(text), !text.hasPrefix("@"),
        !text.hasPrefix("<"), !text.hasPrefix("{{"), !text.hasPrefix("}}"), HTTPMethod(word: text.split(separator: " ").first.map(String.init) ?? "") != nil
      {
        seenRequest = true
      }
      out[out.count - 1].lines.append(line)
    }
    return out
  }

  struct Line {
    var number: Int
    var text: String
  }

  struct Block {
    var name: String?
    var lines: [Line]
  }

  /// Reads the blocks of one file; its multipart bodies in HTTPFileImporter+Multipart.swift, its
  /// placeholders and chains in HTTPFileImporter+Placeholders.swift, scripts and GraphQL in
  /// HTTPFileImporter+Body.swift.
  struct Reader {
    let file: String
    let readFile: ((String) throws(FileError) -> [UInt8])?
    var imported = ImportedRequests()
    /// The `# @name`s of the file: `{{NAME.response.…}}` uses the response of NAME.
    var requestNames = Set<String>()
    /// For each imported request, its `# @name` (what other requests call it).
    var requestKeys: [String?] = []
    /// For each imported request, the `# @name`s of the requests whose responses it uses.
    var requestUses: [Set<String>] = []
    /// The values taken from each named request's response, as its chain steps capture them.
    var captures: [String: [(name: String, source: Capture)]] = [:]
    /// The requests whose responses a file variable's value uses.
    var variableUses: [String: Set<String>] = [:]

    init(file: String, readFile: ((String) throws(FileError) -> [UInt8])?) {
      self.file = file
      self.readFile = readFile
    }

    func error(_ message: String, line: Int, column: Int = 1) -> ImportError {
      ImportError(
        file: file, location: SourceLocation(line: line, column: column), message: message)
    }

    static func isComment(_ text: String) -> Bool { text.hasPrefix("#") || text.hasPrefix("//") }

    /// NAME of a `# @name NAME` (or `// @name NAME`, `# @name=NAME`) line.
    static func requestVariableName(_ text: String) -> String? {
      let trimmed = text.trimmingSpaces()
      guard isComment(trimmed) else { return nil }
      let body = trimmed.drop(while: { $0 == "#" || $0 == "/" }).trimmingSpaces()
      guard body.hasPrefix("@name"), let next = body.dropFirst(5).first, next == " " || next == "=" || next == "\t"
      else { return nil }
      let value = body.dropFirst(5).trimmingSpaces()
      let name = value.hasPrefix("=") ? value.dropFirst().trimmingSpaces() : value
      return name.isEmpty ? nil : name
    }

    /// httpyac's request lines for protocols other than HTTP.
    static let otherProtocols: Set<String> = ["KAFKA", "MQTT", "AMQP", "RABBITMQ", "GRPC", "WS", "WEBSOCKET", "SSE", "EVENTSOURCE"]

    /// A line that is a request line alone (`GET https://host/x`, `POST /users HTTP/1.1`): after
    /// a request it starts the next one, as httpyac reads requests not separated by `###`.
    static func isRequestLine(_ text: String) -> Bool {
      let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
      guard words.count == 2 || (words.count == 3 && words[2].uppercased().hasPrefix("HTTP/")) else { return false }
      let methods: Set<Substring> = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "TRACE", "CONNECT"]
      let url = words[1]
      return methods.contains(words[0])
        && (url.hasPrefix("http://") || url.hasPrefix("https://") || url.hasPrefix("/") || url.hasPrefix("{{"))
    }

    /// The column of the first character that is not a blank.
    static func indent(_ text: String) -> Int {
      (text.firstIndex(where: { $0 != " " && $0 != "\t" }).map {
        text.distance(from: text.startIndex, to: $0)
      } ?? 0) + 1
    }

    mutating func read(_ block: Block) throws(ImportError) {
      var name = block.name
      var key: String?
      var draft = RequestDraft()
      var extras: (fields: JSONObject, line: Line)?
      var lines = block.lines[...]

      // Before the request line: blanks, comments (with their @directives), file variables and
      // pre-request scripts.
      var requestLine: Line?
      while let line = lines.popFirst() {
        let text = line.text.trimmingSpaces()
        if text.isEmpty { continue }
        if text.hasPrefix("/*") {
          // httpyac's block comment, up to `*/`.
          if !text.dropFirst(2).contains("*/") {
            while let next = lines.popFirst(), !next.text.contains("*/") {}
          }
          continue
        }
        if Reader.isComment(text) {
          if let declared = Reader.requestVariableName(text) { key = declared }
          try directive(text, line: line, name: &name, draft: &draft, extras: &extras)
        } else if text.hasPrefix("@") {
          try variable(text, line: line)
        } else if skipScript(line, in: &lines, before: true) {
          continue
        } else {
          requestLine = line
          break
        }
      }
      guard let requestLine else { return }
      let start = SourceLocation(line: requestLine.number, column: Reader.indent(requestLine.text))
      var uses = Set<String>()
      var url = try self.requestLine(requestLine, draft: &draft)
      let written = url
      // The URL goes on over the lines after it that start with `?` or `&`, and over indented
      // lines that start with `/` (JetBrains: "indent the lines after the first").
      while let next = lines.first, let first = next.text.trimmingSpaces().first,
        first == "?" || first == "&" || (first == "/" && Reader.indent(next.text) > 1)
      {
        // The version may end the last line (`  &age=25 HTTP/1.1`).
        var piece = next.text.trimmingSpaces()
        if let space = piece.lastIndex(where: { $0 == " " || $0 == "\t" }),
          piece[piece.index(after: space)...].uppercased().hasPrefix("HTTP/")
        {
          piece = piece[..<space].trimmingSpaces()
        }
        url += piece
        lines.removeFirst()
      }
      let urlOffset = requestLine.text.range(of: written).map { requestLine.text.distance(from: requestLine.text.startIndex, to: $0.lowerBound) } ?? 0
      url = try placeholders(url, line: requestLine, uses: &uses, offset: urlOffset)
      setURLAsWritten(url, of: &draft)

      // Headers, until a blank line.
      var fields: [(name: String, value: String)] = []
      while let line = lines.first {
        let text = line.text.trimmingSpaces()
        if text.isEmpty {
          lines.removeFirst()
          break
        }
        // httpyac: a script block after the request, or a JSON body right after the headers.
        if text == "{{" || text == "{{+" { break }
        if text.hasPrefix("[") || (text.hasPrefix("{") && !text.hasPrefix("{{")) { break }
        lines.removeFirst()
        if Reader.isComment(text) { continue }
        guard let colon = text.firstIndex(of: ":") else {
          throw error(
            "expected a header \"Name: value\" or a blank line before the body", line: line.number,
            column: Reader.indent(line.text))
        }
        let headerName = text[..<colon].trimmingSpaces()
        guard WorkspaceReader.isValidHeaderName(headerName) else {
          throw error(
            "\(JSONSerializer.quote(headerName)) is not a valid header name; leave a blank line "
              + "between the headers and the body", line: line.number,
            column: Reader.indent(line.text))
        }
        let rest = text[text.index(after: colon)...]
        let valueOffset =
          Reader.indent(line.text) - 1 + text.distance(from: text.startIndex, to: colon) + 1
          + rest.prefix(while: { $0 == " " || $0 == "\t" }).count
        let value = try placeholders(rest.trimmingSpaces(), line: line, uses: &uses, offset: valueOffset)
        fields.append((headerName, value))
      }
      draft.addHeaders(fields)
      if draft.url == "*" {
        // The asterisk form (`OPTIONS * HTTP/1.1`) asks about the server, not a resource: sent to
        // the host's root with `*` as the request line's target.
        guard draft.headers["Host"] != nil || imported.variables.value(of: "host") != nil else {
          throw error(
            "a request to * (the asterisk form) needs the server: a Host header, or a host variable",
            line: requestLine.number, column: start.column)
        }
        draft.url = "/"
        draft.requestTarget = "*"
      }
      if draft.url.hasPrefix("/"), draft.headers["Host"] == nil, imported.variables.value(of: "host") != nil {
        // httpyac: a path alone goes to the file's `host`.
        draft.url = "{{host}}" + draft.url
      }
      if draft.url.hasPrefix("/"), let host = draft.headers["Host"]?.trimmingSpaces(), !host.isEmpty {
        // `GET /api` with `Host: example.com:8080` (REST Client, rest.nvim): the host's URL, https
        // for port 443 or 8443; curl sends that Host itself.
        let port = host.split(separator: ":").last.map(String.init) ?? ""
        let base =
          host.contains("://") || host.hasPrefix("{{") ? host : (port == "443" || port == "8443" ? "https://" : "http://") + host
        draft.url = (base.hasSuffix("/") ? String(base.dropLast()) : base) + draft.url
        draft.headers["Host"] = nil
      }
      if let value = draft.headers["Authorization"], let auth = Reader.basicAuth(value) {
        draft.auth = auth
        draft.headers["Authorization"] = nil
      }

      // The body, until the next `###`.
      var body: [Line] = []
      while let line = lines.popFirst() {
        let text = line.text.trimmingSpaces()
        if text.hasPrefix("<>") { continue }  // response references
        if text.hasPrefix(">>") {
          // `>> path` / `>>! path`: save the response.
          let path = text.dropFirst(text.hasPrefix(">>!") ? 3 : 2).trimmingSpaces()
          if let problem = RequestDraft.pathProblem(path, download: true) {
            throw error(problem, line: line.number, column: Reader.indent(line.text))
          }
          draft.download = DownloadTemplate(to: path)
          continue
        }
        if skipScript(line, in: &lines, before: false) { continue }
        var filled = line
        filled.text = try placeholders(line.text, line: line, uses: &uses)
        body.append(filled)
      }
      // Blank lines around the body are not part of it (dropped by index, not one by one).
      let isText = { (line: Line) in !line.text.trimmingSpaces().isEmpty }
      if let first = body.firstIndex(where: isText), let last = body.lastIndex(where: isText) {
        body = Array(body[first...last])
      } else {
        body = []
      }
      let contentTypeIsLast = fields.last.map { $0.name.lowercased() == "content-type" } ?? false
      try setBody(body, of: &draft, uses: &uses, contentTypeIsLast: contentTypeIsLast)

      var template = draft.template(
        name: name ?? RequestDraft.derivedName(method: draft.method, url: draft.url))
      if let extras { template = try withExtras(template, extras.fields, line: extras.line) }
      if let problem = RequestDraft.problem(in: template) {
        throw ImportError(
          file: file, location: start,
          message:
            "request \(JSONSerializer.quote(template.name)) would not load in a workspace: \(problem)"
        )
      }
      imported.requests.append(ImportedRequest(template: template, location: start))
      requestKeys.append(key)
      requestUses.append(uses)
    }

    /// The path of a `< path` line when `lines` (a body, or a part's content) is that line alone;
    /// nil when they are text.
    func fileReference(_ lines: [Line]) throws(ImportError) -> String? {
      let filled = lines.filter { !$0.text.trimmingSpaces().isEmpty }
      guard let first = filled.first else { return nil }
      let text = first.text.trimmingSpaces()
      guard text.hasPrefix("<") else { return nil }
      func fail(_ message: String, _ line: Line) -> ImportError {
        error(message, line: line.number, column: Reader.indent(line.text))
      }
      if text.hasPrefix("<@") {
        throw fail(
          filled.count > 1
            ? "a body read from a file (<@ FILE) is that file alone; remove the lines after it"
            : "<@ (a file with {{variables}} filled in) is not supported in a multipart part; use < FILE "
              + "to send the file as it is", filled.count > 1 ? filled[1] : first)
      }
      guard text.hasPrefix("< ") else { return nil }
      if filled.count > 1 {
        throw fail(
          "a body read from a file (< FILE) is that file alone; remove the lines after it",
          filled[1])
      }
      let path = text.dropFirst(2).trimmingSpaces()
      if let problem = RequestDraft.pathProblem(path) { throw fail(problem, first) }
      return path
    }
  }
}
