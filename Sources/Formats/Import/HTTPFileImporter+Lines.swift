import RequestEngine
import Workspace

// The lines of an `.http` request around its headers and body: `# @directives`, `@name = value`
// file variables, the request line, and the clients' unencoded `Authorization` spellings.
extension HTTPFileImporter.Reader {
  /// `# @name NAME`, `# @no-redirect`, `# @timeout 5`; other comments are skipped.
  /// `template` with the fields of a `# @reqbench {…}` directive (what `HTTPFileExporter` could
  /// not say in the format) read as a workspace request's keys. An `auth` there replaces the
  /// `Authorization` header the exporter wrote for it.
  func withExtras(_ template: RequestTemplate, _ fields: JSONObject, line: Line)
    throws(ImportError) -> RequestTemplate
  {
    var object = template.json.objectValue ?? JSONObject()
    if fields["auth"] != nil, var headers = object["headers"]?.objectValue {
      headers["Authorization"] = nil
      object["headers"] = headers.isEmpty ? nil : .object(headers)
    }
    for member in fields.members { object[member.key] = member.value }
    var reader = WorkspaceReader()
    guard var read = reader.request(.object(object), .root), reader.problems.isEmpty else {
      let problem = reader.problems.first?.message ?? "not a request"
      throw error(
        "@reqbench: \(problem)", line: line.number, column: Self.indent(line.text))
    }
    read.source = template.source
    return read
  }

  func directive(
    _ text: String, line: Line, name: inout String?, draft: inout RequestDraft,
    extras: inout (fields: JSONObject, line: Line)?
  ) throws(ImportError) {
    let body = text.drop(while: { $0 == "#" || $0 == "/" }).trimmingSpaces()
    guard body.hasPrefix("@") else { return }
    let word = String(
      body.dropFirst().prefix(while: { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }))
    var value = body.dropFirst(1 + word.count).trimmingSpaces()
    if value.hasPrefix("=") { value = value.dropFirst().trimmingSpaces() }
    switch word {
    case "name":
      guard !value.isEmpty else {
        throw error(
          "@name needs a name: # @name get-user", line: line.number,
          column: Self.indent(line.text))
      }
      name = value
    case "no-redirect":
      draft.followRedirects = false
    case "timeout":
      guard let seconds = Double(value), seconds > 0, seconds.isFinite else {
        throw error(
          "@timeout needs a number of seconds above 0, found \(JSONSerializer.quote(value))",
          line: line.number, column: Self.indent(line.text))
      }
      draft.timeout = seconds
    case "reqbench":
      guard let fields = (try? JSONParser.parse(value))?.objectValue else {
        throw error(
          "@reqbench needs a JSON object of request fields: # @reqbench {\"priority\": \"high\"}",
          line: line.number, column: Self.indent(line.text))
      }
      extras = (fields, line)
    default:
      break
    }
  }

  /// `@name = value`: a file variable. `{{other}}` file variables defined above are filled in.
  mutating func variable(_ text: String, line: Line) throws(ImportError) {
    guard let eq = text.firstIndex(of: "=") else {
      throw error(
        "expected a variable definition \"@name = value\"", line: line.number,
        column: Self.indent(line.text))
    }
    let name = text[text.index(after: text.startIndex)..<eq].trimmingSpaces()
    guard Template.isValidName(name) else {
      throw error(
        "\(JSONSerializer.quote(name)) is not a variable name; use letters, digits, '_', '-' and '.'",
        line: line.number, column: Self.indent(line.text))
    }
    var uses = Set<String>()
    var value = try placeholders(text[text.index(after: eq)...].trimmingSpaces(), line: line, uses: &uses)
    do {
      // Earlier variables are filled in; text stays text (`{{'{{'}}` included).
      let known = imported.variables
      value = try Template(value).parts.map { part in
        switch part {
        case .text(let text): Template.literal(text)
        case .variable(let name): known.value(of: name) ?? "{{\(name)}}"
        }
      }.joined()
    } catch {
      throw self.error(
        "variable \(name): \(error.message)", line: line.number, column: Self.indent(line.text))
    }
    variableUses[name] = uses
    imported.variables.removeAll { $0.name == name }
    imported.variables.append(Variable(name: name, value: value))
  }

  /// Reads `METHOD URL [HTTP/1.1]` and returns the URL.
  func requestLine(_ line: Line, draft: inout RequestDraft) throws(ImportError) -> String {
    var tokens: [(text: String, column: Int)] = []
    var column = 1
    var current = ""
    var start = 1
    var braces = false  // inside `{{ … }}`, where blanks are part of the placeholder
    var previous: Character?
    for character in line.text {
      if character == "{" && previous == "{" { braces = true }
      if character == "}" && previous == "}" { braces = false }
      previous = character
      if (character == " " || character == "\t") && !braces {
        if !current.isEmpty { tokens.append((current, start)) }
        current = ""
      } else {
        if current.isEmpty { start = column }
        current.append(character)
      }
      column += 1
    }
    if !current.isEmpty { tokens.append((current, start)) }
    if tokens.count >= 2, let last = tokens.last, Self.isHTTPVersion(last.text) {
      tokens.removeLast()
    }
    if tokens.count == 1 {
      draft.method = .GET
      return try url(tokens[0], line: line)
    }
    let first = tokens[0]
    guard let method = HTTPMethod(word: first.text) else {
      throw error(
        "expected a request line \"METHOD URL\"", line: line.number, column: first.column)
    }
    if Self.otherProtocols.contains(method.rawValue) {
      throw error(
        "\(method.rawValue) requests are httpyac's for another protocol; reqbench sends HTTP requests",
        line: line.number, column: first.column)
    }
    if tokens.count > 2 {
      throw error(
        "unexpected text after the URL; write a space in a URL as %20", line: line.number,
        column: tokens[2].column)
    }
    draft.method = method
    return try url(tokens[1], line: line)
  }

  /// A request line's URL; one written out with a scheme other than http and https (a typo:
  /// `htps://`) is an error at its place, as in the other importers.
  func url(_ token: (text: String, column: Int), line: Line) throws(ImportError) -> String {
    if let scheme = RequestDraft.unsupportedScheme(token.text) {
      throw error(RequestDraft.schemeMessage(scheme), line: line.number, column: token.column)
    }
    if let message = RequestDraft.misspelledScheme(token.text) {
      throw error(message, line: line.number, column: token.column)
    }
    return token.text
  }

  /// `HTTP/1.1`, `HTTP/2`, `HTTP/3` at the end of a request line: a version, not a URL (a URL
  /// missing its colon, `http//host/path`, is not one).
  static func isHTTPVersion(_ token: String) -> Bool {
    let upper = token.uppercased()
    guard upper.hasPrefix("HTTP/") else { return false }
    let number = upper.dropFirst(5)
    return !number.isEmpty && number.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
  }

  /// `Basic user password` or `Basic user:password`, the unencoded spelling of the HTTP clients,
  /// and `Digest user password`; nil for an encoded `Basic dXNlcjpwYXNz`, a computed
  /// `Digest username="…", …` and other schemes (they stay headers).
  static func basicAuth(_ value: String) -> Auth? {
    let digest = value.lowercased().hasPrefix("digest ")
    guard value.lowercased().hasPrefix("basic ") || digest else { return nil }
    if digest && value.contains("=\"") { return nil }
    // `Digest user password` (JetBrains): curl answers the challenge.
    guard let basic = credentials(String(value.dropFirst(digest ? 7 : 6))) else { return nil }
    guard digest, case .basic(let user, let password) = basic else { return basic }
    return .digest(user: user, password: password)
  }

  private static func credentials(_ value: String) -> Auth? {
    let credentials = value.trimmingSpaces()
    let firstWord = credentials.prefix(while: { $0 != " " })
    if !firstWord.contains(":"), let space = credentials.firstIndex(of: " ") {
      return .basic(
        user: String(credentials[..<space]),
        password: credentials[credentials.index(after: space)...].trimmingSpaces())
    }
    if let colon = credentials.firstIndex(of: ":") {
      return .basic(
        user: String(credentials[..<colon]),
        password: String(credentials[credentials.index(after: colon)...]))
    }
    return nil
  }
}
