import RequestEngine
import Workspace

// What an `.http` request sends, kept as written: the URL's query, the body's text, GraphQL
// bodies as the editors build them, `<@ file` bodies; and the scripts that are left out.
extension HTTPFileImporter.Reader {
  typealias BodyLine = HTTPFileImporter.Line

  /// Sets the URL as written. Its query becomes `query` parameters only when reqbench writes
  /// them back byte for byte as they are (`a=1&b=caf%C3%A9`), so nothing sent changes; otherwise
  /// it stays in the URL. A fragment is never sent.
  func setURLAsWritten(_ url: String, of draft: inout RequestDraft) {
    var written = String(url.prefix { $0 != "#" })
    // `localhost:9999`: http, as the editors' HTTP clients take it (a host and port cannot be a
    // relative URL; `example.com/api` may be one, relative to a workspace's baseURL).
    if let completed = RequestText.completedURL(written, hasBaseURL: true) { written = completed }
    draft.url = written
    draft.query = JSONObject()
    guard let mark = written.firstIndex(of: "?") else { return }
    let query = String(written[written.index(after: mark)...])
    if let object = QueryDecoder.object(query, form: false), Self.encoded(object) == query {
      draft.url = String(written[..<mark])
      draft.query = object
    }
  }

  /// `k=v&k2` as reqbench encodes query parameters and form fields, placeholders kept.
  static func encoded(_ object: JSONObject) -> String {
    object.members.map { member in
      PlaceholderEncoding.encode(member.key)
        + (member.value.stringValue.map { "=" + PlaceholderEncoding.encode($0) } ?? "")
    }.joined(separator: "&")
  }

  /// The body of a request from its lines (blank lines around it already gone): GraphQL, a
  /// multipart body, a `<@ file` or `< file` line, or text sent as written. A `Content-Type`
  /// written last goes into the body when the body sends it as written (reqbench sends a body's
  /// type after the headers); written before other headers, it stays where it is.
  mutating func setBody(
    _ body: [BodyLine], of draft: inout RequestDraft, uses: inout Set<String>, contentTypeIsLast: Bool
  ) throws(ImportError) {
    defer { if contentTypeIsLast { Self.moveContentType(of: &draft) } }
    let requestType = draft.headers["X-Request-Type"]
    if draft.method.rawValue.uppercased() == "GRAPHQL" || requestType?.lowercased() == "graphql" {
      // REST Client's `X-Request-Type: GraphQL` is a note to the editor, not sent.
      if requestType != nil { draft.headers["X-Request-Type"] = nil }
      draft.body = try graphQL(body, restClient: draft.method.rawValue.uppercased() != "GRAPHQL")
      draft.method = .POST
      return
    }
    guard !body.isEmpty else { return }
    let contentType = draft.headers["Content-Type"]
    if let contentType, RequestDraft.mediaType(contentType) == "multipart/form-data" {
      draft.setMultipart(try multipart(body, contentType: contentType))
      return
    }
    if let included = try fileWithVariables(body, uses: &uses) {
      draft.body = .text(included, contentType: nil)
      return
    }
    if let path = try fileReference(body) {
      draft.setFileBody(path, defaultContentType: nil)
      return
    }
    let media = contentType.map(RequestDraft.mediaType) ?? ""
    var text: String
    if media == RequestDraft.formType {
      // The editors join a form's lines, a line starting with `&` without a line break.
      text = ""
      for (index, line) in body.enumerated() {
        let piece = line.text.trimmingSpaces()
        text += (index == 0 || piece.hasPrefix("&") ? "" : "\n") + piece
      }
    } else {
      text = body.map(\.text).joined(separator: "\n")
    }
    // JSON and forms become `json` and `form` bodies only when reqbench sends them back byte
    // for byte as written; the Content-Type header stays where it was written.
    if media == "application/json" || media.hasSuffix("+json"), let value = try? JSONParser.parse(text),
      JSONSerializer.compact(value) == text
    {
      draft.body = .json(value)
    } else if media == RequestDraft.formType, let fields = QueryDecoder.object(text, form: true),
      Self.encoded(fields) == text
    {
      draft.body = .form(fields)
    } else {
      draft.body = .text(text, contentType: nil)
    }
  }

  /// Moves the `Content-Type` header into the body when the body sends that very value:
  /// `application/json` for JSON, the form type for a form, any type for text (the text body's
  /// own `text/plain; charset=utf-8` is its default).
  static func moveContentType(of draft: inout RequestDraft) {
    // A body's type is not a template: a `{{type}}` stays a header, which is filled in.
    guard let type = draft.headers["Content-Type"], !type.contains("{{") else { return }
    switch draft.body {
    case .json? where type == "application/json": break
    case .form? where type == RequestDraft.formType: break
    case .text(let text, nil)?:
      draft.body = .text(text, contentType: type == "text/plain; charset=utf-8" ? nil : type)
    default: return
    }
    draft.headers["Content-Type"] = nil
  }

  /// A GraphQL request's JSON body: the query, then (after a blank line) its variables as JSON.
  /// REST Client's (`X-Request-Type: GraphQL`) is `{"query", "operationName" of a named `query`,
  /// "variables" ({} when none)}`; a `GRAPHQL` request's (JetBrains, httpyac, kulala) is
  /// `{"query", "operationName" of a named operation, "variables" when given}`.
  func graphQL(_ body: [BodyLine], restClient: Bool) throws(ImportError) -> BodyTemplate {
    var queryLines = body
    var variableLines: [BodyLine] = []
    if let blank = body.firstIndex(where: { $0.text.trimmingSpaces().isEmpty }) {
      queryLines = Array(body[..<blank])
      variableLines = Array(body[(blank + 1)...])
    }
    let query = queryLines.map(\.text).joined(separator: "\n")
    var members: [(key: String, value: JSONValue)] = [("query", .string(query))]
    let words = query.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).prefix(2)
    let keywords = restClient ? ["query"] : ["query", "mutation", "subscription"]
    if words.count == 2, keywords.contains(words[words.startIndex].lowercased()) {
      let name = words[words.startIndex + 1].prefix { $0 != "(" && $0 != "{" && $0 != "@" }
      if !name.isEmpty { members.append(("operationName", .string(String(name)))) }
    }
    let variablesText = variableLines.map(\.text).joined(separator: "\n")
    if !variablesText.trimmingSpaces().isEmpty {
      do {
        members.append(("variables", try JSONParser.parse(variablesText)))
      } catch {
        let first = variableLines.first { !$0.text.trimmingSpaces().isEmpty } ?? variableLines[0]
        throw self.error(
          "the GraphQL variables after the query are not JSON: \(error.message)", line: first.number,
          column: Self.indent(first.text))
      }
    } else if restClient {
      members.append(("variables", .object(JSONObject())))
    }
    return .json(.object(JSONObject(members)))
  }

  /// The text of the file of a `<@ path` body (`<@utf8 path`), its `{{variables}}` filled in
  /// when sent; nil when the body is not that line alone.
  mutating func fileWithVariables(_ lines: [BodyLine], uses: inout Set<String>) throws(ImportError) -> String? {
    guard lines.count == 1, let line = lines.first else { return nil }
    let text = line.text.trimmingSpaces()
    guard text.hasPrefix("<@") else { return nil }
    let column = Self.indent(line.text)
    let rest = text.dropFirst(2)
    let encoding = rest.prefix { $0 != " " && $0 != "\t" }
    let path = rest.dropFirst(encoding.count).trimmingSpaces()
    guard encoding.isEmpty || ["utf8", "utf-8"].contains(encoding.lowercased()) else {
      throw error(
        "<@\(encoding): only UTF-8 files can be read; save the file as UTF-8 and write <@ \(path)",
        line: line.number, column: column)
    }
    if let problem = RequestDraft.pathProblem(path) { throw error(problem, line: line.number, column: column) }
    guard let readFile else {
      throw error(
        "<@ \(path): the file is read when the request is imported; import the .http file with reqbench import http",
        line: line.number, column: column)
    }
    let bytes: [UInt8]
    do {
      bytes = try readFile(path)
    } catch {
      throw self.error("<@ \(path): \(error.reason)", line: line.number, column: column)
    }
    guard let content = String(validating: bytes, as: UTF8.self) else {
      throw error("<@ \(path): the file is not UTF-8 text", line: line.number, column: column)
    }
    return try placeholders(content, line: line, uses: &uses)
  }

  /// Whether `line` starts a script, which is skipped with the lines up to its end (`%}`) and a
  /// warning naming its line: `> {% … %}` and `> handler.js` after a request (response
  /// handlers), `< {% … %}` and `< script.js` before one (pre-request scripts), and httpyac's
  /// `{{ … }}` blocks of JavaScript before one.
  mutating func skipScript(_ line: BodyLine, in lines: inout ArraySlice<BodyLine>, before: Bool) -> Bool {
    let text = line.text.trimmingSpaces()
    let mark: Character = before ? "<" : ">"
    let afterMark = text.first == mark ? text.dropFirst().trimmingSpaces() : nil
    let isScriptFile = afterMark.map { $0.hasSuffix(".js") && !$0.contains(" ") } ?? false
    let isInline = afterMark?.hasPrefix("{%") ?? false
    // Before a request, `{{` opening a line that does not close it; after one, `{{` alone.
    let isHttpyacBlock =
      before ? text.hasPrefix("{{") && !text.dropFirst(2).contains("}}") : text == "{{" || text == "{{+"
    if !before, text.hasPrefix("?? ") {
      // httpyac's assertions (`?? status == 200`), one a line.
      imported.warnings.append(
        "\(file):\(line.number):\(Self.indent(line.text)): the assertion is left out (reqbench checks responses with "
          + "\"validate\"); the request is imported without it")
      return true
    }
    guard isScriptFile || isInline || isHttpyacBlock else { return false }
    let end = isHttpyacBlock ? "}}" : "%}"
    if !isScriptFile && !text.dropFirst(2).contains(end) {
      while let next = lines.popFirst() {
        if next.text.contains(end) { break }
      }
    }
    let kind = before ? "pre-request script" : isHttpyacBlock ? "script" : "response handler script"
    imported.warnings.append(
      "\(file):\(line.number):\(Self.indent(line.text)): the \(kind) is left out (reqbench runs no scripts); "
        + "the request is imported without it")
    return true
  }
}
