import RequestEngine
import Workspace

// The `{{…}}` of `.http` files: variables, the values of earlier responses (request variables:
// `{{login.response.body.$.token}}`, which become a chain whose step captures the value), the
// editors' dynamic variables, and `{{` that opens no placeholder (sent as written).
extension HTTPFileImporter.Reader {
  /// `text` (one line of a request or a file variable's value) with its placeholders as reqbench
  /// reads them; the requests whose responses it uses are added to `uses`.
  /// - `{{name}}`, `{{ name }}`: kept (a file variable used adds what its value uses).
  /// - `{{login.response.body.$.a[0].b}}`: `{{login.body.a.0.b}}`, captured by the step of
  ///   `login` with the jq path `.a[0].b`; `{{login.response.headers.X-Token}}`:
  ///   `{{login.headers.X-Token}}`, captured as `header:X-Token`.
  /// - `{{$processEnv NAME}}`, `{{$env.NAME}}`: `{{env.NAME}}`.
  /// - `{{` without a closing `}}`: the text `{{`, as the editors send it.
  /// - Anything else (`{{$guid}}`, `{{$randomInt 1 9}}`, a script expression) is an error: reqbench
  ///   has no such value.
  /// `offset`: the number of characters of the line before `text` (for the columns in errors).
  mutating func placeholders(_ text: String, line: HTTPFileImporter.Line, uses: inout Set<String>, offset: Int = 0)
    throws(ImportError) -> String
  {
    var found: Set<String> = []
    let rewritten = try PlaceholderScan.rewrite(text) { (placeholder) throws(ImportError) -> PlaceholderScan.Replacement in
      guard case .placeholder(let between, let written, let at) = placeholder else { return .openingIsText }
      let inner = between.trimmingSpaces()
      let column = offset + at + 1
      if inner == "'{{'" { return .text(String(written)) }
      if let reference = try reference(inner, line: line, column: column) {
        found.insert(reference.request)
        return .text("{{\(reference.variable)}}")
      }
      if Template.isValidName(inner) {
        found.formUnion(variableUses[inner] ?? [])
        return .text(String(written))
      }
      if let name = Self.environmentName(inner) { return .text("{{env.\(name)}}") }
      if inner.isEmpty { return .text("{{'{{'}}}}") }
      throw error(
        "{{\(inner)}} is \(inner.hasPrefix("$") ? "a dynamic variable of the editor" : "no variable name"), "
          + "which reqbench cannot fill in; write a value or a {{variable}} of your own",
        line: line.number, column: column)
    }
    uses.formUnion(found)
    return rewritten
  }

  /// `NAME` of `$processEnv NAME` and `$env.NAME`; nil for anything else.
  static func environmentName(_ inner: String) -> String? {
    var name: Substring?
    if inner.hasPrefix("$processEnv ") {
      name = inner.dropFirst("$processEnv ".count).drop(while: { $0 == " " })
    } else if inner.hasPrefix("$env.") {
      name = inner.dropFirst("$env.".count)
    }
    guard let name, !name.hasPrefix("%"), Template.isValidName("env." + name) else { return nil }
    return String(name)
  }

  /// A request variable, `NAME.response.body.PATH` or `NAME.response.headers.HEADER`, where
  /// NAME is a request of the file (`# @name NAME`): the variable it becomes and the capture the
  /// chain's step of NAME makes. Nil when `inner` is not one.
  mutating func reference(_ inner: String, line: HTTPFileImporter.Line, column: Int)
    throws(ImportError) -> (variable: String, request: String)?
  {
    // The longest request name that the text starts with, then `.`.
    guard
      let request = requestNames.filter({ inner.hasPrefix($0 + ".") }).max(by: { $0.count < $1.count })
    else { return nil }
    let path = inner.dropFirst(request.count + 1)
    func fail(_ why: String) -> ImportError {
      error("{{\(inner)}}: \(why)", line: line.number, column: column)
    }
    let base = Self.variableSlug(request)
    let variable: String
    let capture: Capture
    if path.hasPrefix("response.headers.") || path.hasPrefix("response.headers[") {
      // `headers.X-Token`, or kulala's `headers['Content-Type']`.
      var header = String(path.dropFirst("response.headers".count))
      if header.hasPrefix(".") {
        header.removeFirst()
      } else if header.count >= 4, header.hasSuffix("]"), let quote = header.dropFirst().first, quote == "'" || quote == "\"",
        header.dropLast().last == quote
      {
        header = String(header.dropFirst(2).dropLast(2))
      }
      guard WorkspaceReader.isValidHeaderName(header) else { throw fail("\(header) is no header name") }
      variable = base + ".headers." + header
      capture = .header(header)
    } else if path == "response.body" || path.hasPrefix("response.body.") {
      let expression = String(path.dropFirst("response.body".count).drop(while: { $0 == "." }))
      guard let (jq, words) = Self.jq(fromJSONPath: expression) else {
        throw fail(
          "only JSONPath of names and indexes ($.a.b[0]) or * can be captured from a response "
            + "(reqbench captures with jq from JSON bodies)")
      }
      variable = ([base, "body"] + words).joined(separator: ".")
      capture = .jq(jq)
    } else if path.hasPrefix("request.") || path.hasPrefix("response.") {
      throw fail("only a response's body and headers can be used by another request in reqbench")
    } else {
      return nil
    }
    guard Template.isValidName(variable) else { throw fail("\(variable) is not a variable name") }
    if !(captures[request]?.contains { $0.name == variable } ?? false) {
      captures[request, default: []].append((variable, capture))
    }
    return (variable, request)
  }

  /// A variable name's spelling of a request name: characters a variable name cannot hold are `-`.
  static func variableSlug(_ name: String) -> String {
    String(
      name.unicodeScalars.map { scalar in
        Template.isValidName(String(scalar)) ? Character(scalar) : "-"
      })
  }

  /// The jq path of a JSONPath (`$.a.b[0]`, `$['x y']`, `*` or nothing for the whole body) and
  /// its steps as words for a variable name (`a`, `b`, `0`); nil for wildcards, filters, slices
  /// and recursive descent, which jq writes otherwise.
  static func jq(fromJSONPath path: String) -> (String, [String])? {
    if path.isEmpty || path == "*" || path == "$" { return (".", []) }
    guard path.hasPrefix("$") else { return nil }
    var rest = path.dropFirst()[...]
    var jq = ""
    var words: [String] = []
    func isIdentifier(_ text: Substring) -> Bool {
      guard let first = text.first, first.isLetter || first == "_" else { return false }
      return text.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "_" }
    }
    func key(_ name: String) {
      jq += isIdentifier(name[...]) ? "." + name : "." + JSONSerializer.quote(name)
      words.append(variableSlug(name))
    }
    while let first = rest.first {
      if first == "." {
        rest = rest.dropFirst()
        let name = rest.prefix { $0 != "." && $0 != "[" }
        guard !name.isEmpty, name != "*" else { return nil }
        key(String(name))
        rest = rest.dropFirst(name.count)
      } else if first == "[" {
        guard let close = rest.firstIndex(of: "]") else { return nil }
        let inside = rest[rest.index(after: rest.startIndex)..<close]
        rest = rest[rest.index(after: close)...]
        if let quote = inside.first, quote == "'" || quote == "\"", inside.count >= 2, inside.last == quote {
          key(String(inside.dropFirst().dropLast()))
        } else if !inside.isEmpty, inside.allSatisfy({ $0.isASCII && $0.isNumber }) {
          jq += "[\(inside)]"
          words.append(String(inside))
        } else {
          return nil
        }
      } else {
        return nil
      }
    }
    return (jq.isEmpty ? "." : jq, words)
  }

  /// The chains of the requests that use earlier responses: each such request's chain sends the
  /// requests it needs (and those they need), in the file's order, each capturing the values
  /// used, then the request itself. Named after the request: `NAME-chain`.
  mutating func addChains() {
    // The request a name stands for: the last imported one declared with it.
    var indexOf: [String: Int] = [:]
    for (index, key) in requestKeys.enumerated() { if let key { indexOf[key] = index } }
    for (index, uses) in requestUses.enumerated() where !uses.isEmpty {
      var needed = Set<Int>()
      var missing: [String] = []
      var pending = Array(uses)
      var visited = Set<String>()
      while let name = pending.popLast() {
        guard visited.insert(name).inserted else { continue }
        guard let found = indexOf[name] else {
          missing.append(name)
          continue
        }
        if found == index { continue }
        needed.insert(found)
        pending.append(contentsOf: requestUses[found])
      }
      let template = imported.requests[index].template
      guard missing.isEmpty else {
        imported.warnings.append(
          "\(file): \(template.name) uses the response of \(missing.sorted().joined(separator: ", ")), "
            + "which is not imported; no chain made for it")
        continue
      }
      var steps = needed.sorted().map { step in
        ChainStep(
          request: imported.requests[step].template.name,
          capture: (requestKeys[step].flatMap { captures[$0] } ?? []).map { ($0.name, $0.source) })
      }
      steps.append(ChainStep(request: template.name))
      imported.chains.append(Chain(name: template.name + "-chain", steps: steps))
    }
  }
}
