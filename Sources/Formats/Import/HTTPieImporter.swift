import RequestEngine
import Workspace

/// Reads HTTPie command lines (`http`, `https`, and xh's `xh`, `xhs`) into request templates: what
/// HTTPie's documentation and many API docs write, and what its users paste. Each command (one
/// line, or several joined by `\`) is one request: `http [OPTIONS] [METHOD] URL [ITEM…]`.
///
/// ```swift
/// let imported = try HTTPieImporter.parse("http POST :3000/users name=ada age:=36 X-Trace:abc", file: "paste")
/// imported.requests[0].template.url   // "http://localhost:3000/users"
/// imported.requests[0].template.body  // .json({"name": "ada", "age": 36})
/// ```
///
/// The request items, by the separator that comes first in the word (the longer one when two
/// start at the same place), as HTTPie reads them:
/// - `Name:value` a header; `Name:` (HTTPie's "do not send") removes a header HTTPie sends of its
///   own; `Name;` (an empty header) a header of empty value, which reqbench sends empty as HTTPie
///   does (but for a header curl adds itself, which an empty value removes: the import warns);
/// - `name==value` a query parameter, after the URL's own;
/// - `field=value` a JSON string field (a form field with `--form`), `field:=json` a raw JSON
///   value; fields nest as HTTPie's do: `user[name]=ada`, `tags[]=a` (append);
/// - `field@path` a file part: the body becomes multipart (`--form` or not), the path relative to
///   the workspace's folder as every imported path is. `field=@path` and `field:=@path` (a file's
///   text as the value) are errors: write the value.
///
/// Options read: `--json`/`-j` (the default), `--form`/`-f`, `--multipart`, `--auth`/`-a`
/// `USER:PASS` (or a token with `--auth-type`/`-A bearer`; `digest` too), `--raw TEXT` (the body
/// as it is), `--verify no` (insecure), `--timeout N`, `--follow`/`-F`, `--max-redirects N`,
/// and options that only shape HTTPie's own output, which are ignored (`-v`, `-h`, `-b`, `-p`,
/// `--pretty`, `--style`, `-s`, `--offline`, `-I`, `--check-status`…). Any other option is an
/// error naming it and its place.
///
/// Decisions: `http` completes a URL without a scheme with `http://` (`https` and `xhs` with
/// `https://`), and `:3000/x` with `localhost`, as HTTPie does; without `--follow` HTTPie does
/// not follow redirects, but the request keeps reqbench's default of following them, as a pasted
/// curl command does. Credentials (`-a`, an `Authorization` header, a key header or parameter)
/// go to the secrets file, as every import's do (`ImportedCredentials`).
public enum HTTPieImporter {
  /// The command names read as HTTPie, with the scheme each one assumes.
  static let programs: [String: String] = ["http": "http://", "https": "https://", "xh": "http://", "xhs": "https://"]

  public static func parse(_ text: String, file: String) throws(ImportError) -> ImportedRequests {
    var imported = ImportedRequests()
    let commands = try ShellWords.commands(
      text, file: file, command: "HTTPie command", article: "an", starts: "http or https",
      accepts: { programs[$0] != nil })
    for command in commands {
      let scheme = programs[ShellWords.programName(command.program.text)] ?? "http://"
      var reader = CommandReader(file: file, command: command.program, scheme: scheme)
      imported.requests.append(ImportedRequest(template: try reader.read(command.arguments), location: command.program.location))
      imported.warnings += reader.warnings
    }
    return imported
  }

  /// Reads HTTPie's arguments typed without the program, `[METHOD] URL ITEM…` on one line
  /// (`POST :3000/users name=ada age:=36`), as `http` reads them. Locations are in `line` as
  /// typed.
  public static func parseArguments(_ line: String, file: String) throws(ImportError) -> ImportedRequests {
    let program = "http "
    // What is on the first line of `program + line` is `program.count` columns further right.
    func typed(_ location: SourceLocation) -> SourceLocation {
      guard location.line == 1 else { return location }
      return SourceLocation(line: 1, column: max(1, location.column - program.count))
    }
    do {
      var imported = try parse(program + line, file: file)
      for index in imported.requests.indices {
        imported.requests[index].location = imported.requests[index].location.map(typed)
      }
      return imported
    } catch {
      throw ImportError(file: error.file, location: error.location.map(typed), message: error.message)
    }
  }

  /// Whether `word` is an HTTPie request item: it has a separator (`name=ada`, `X-Trace:abc`,
  /// `q==1`, `age:=36`, `photo@a.png`).
  static func isRequestItem(_ word: some StringProtocol) -> Bool {
    CommandReader.separator(in: String(word)) != nil
  }

  /// Options that only shape HTTPie's output or its session: accepted, changing nothing sent.
  static let ignoredFlags: Set<String> = [
    "-v", "--verbose", "-h", "--headers", "-b", "--body", "-m", "--meta", "-s", "--style", "--pretty", "-p", "--print",
    "-P", "--history-print", "--offline", "-I", "--ignore-stdin", "--check-status", "-q", "--quiet", "--all",
    "--unsorted", "--sorted", "-x", "--compress", "--ignore-netrc", "-S", "--stream", "--debug", "--traceback",
  ]
  /// Of those, the ones that take a value.
  static let ignoredWithValue: Set<String> = ["-s", "--style", "--pretty", "-p", "--print", "-P", "--history-print"]

  struct CommandReader {
    let file: String
    let command: ShellWord
    /// What a URL without one gets: `https://` for `https` and `xhs`.
    let scheme: String
    var warnings: [String] = []
    var method: HTTPMethod?
    var url: ShellWord?
    var form = false
    var multipart = false
    var raw: String?
    var authType = "basic"
    var auth: String?
    /// Header items in order; nil for `Name:` (HTTPie: do not send it).
    var headers: [(name: String, value: String?)] = []
    var query: [(key: String, value: String)] = []
    /// `--json` given: HTTPie's JSON headers even without data.
    var explicitJSON = false
    var fields = JSONValue.object(JSONObject())
    var hasFields = false
    var formFields: [(name: String, value: String)] = []
    var files: [MultipartField] = []
    var draft = RequestDraft()

    init(file: String, command: ShellWord, scheme: String) {
      self.file = file
      self.command = command
      self.scheme = scheme
    }

    func error(_ message: String, at location: SourceLocation) -> ImportError {
      ImportError(file: file, location: location, message: message)
    }

    mutating func read(_ words: ArraySlice<ShellWord>) throws(ImportError) -> RequestTemplate {
      var rest = words
      var positional: [ShellWord] = []
      while let word = rest.popFirst() {
        let text = word.text
        guard text.hasPrefix("-"), text.count > 1, positional.isEmpty || !isItem(text) else {
          positional.append(word)
          continue
        }
        var flag = text
        var attached: String?
        if text.hasPrefix("--"), let eq = text.firstIndex(of: "=") {
          flag = String(text[..<eq])
          attached = String(text[text.index(after: eq)...])
        }
        func value() throws(ImportError) -> String {
          if let attached { return attached }
          guard let next = rest.popFirst() else { throw error("\(flag) needs a value", at: word.location) }
          return next.text
        }
        switch flag {
        case "-j", "--json":
          form = false
          explicitJSON = true
        case "-f", "--form": form = true
        case "--multipart": multipart = true
        case "-a", "--auth": auth = try value()
        case "-A", "--auth-type": authType = try value().lowercased()
        case "--raw": raw = try value()
        case "--verify":
          if ["no", "false"].contains(try value().lowercased()) { draft.insecure = true }
        case "--timeout":
          let given = try value()
          guard let seconds = Double(given), seconds > 0 else {
            throw error("--timeout takes seconds (30, 2.5), not \(JSONSerializer.quote(given))", at: word.location)
          }
          draft.timeout = seconds
        case "-F", "--follow": draft.followRedirects = true
        case "--max-redirects":
          let given = try value()
          guard let count = Int(given), count >= 0 else {
            throw error("--max-redirects takes a count, not \(JSONSerializer.quote(given))", at: word.location)
          }
          draft.maxRedirects = count
        default:
          guard HTTPieImporter.ignoredFlags.contains(flag) else {
            throw error("\(flag) is not an HTTPie option reqbench can import; remove it to import the rest", at: word.location)
          }
          if HTTPieImporter.ignoredWithValue.contains(flag) { _ = try value() }
        }
      }
      // [METHOD] URL ITEM…
      var arguments = positional[...]
      // HTTPie's rule: with more than one argument, a first one of ASCII letters only is the
      // method, sent in capitals (`http wHat :3000` sends WHAT).
      if arguments.count >= 2, let first = arguments.first, !first.text.isEmpty,
        first.text.allSatisfy({ $0.isASCII && $0.isLetter }),
        let given = HTTPMethod(rawValue: first.text.uppercased())
      {
        method = given
        arguments = arguments.dropFirst()
      }
      guard let urlWord = arguments.popFirst() else { throw error("this HTTPie command has no URL", at: command.location) }
      url = urlWord
      for item in arguments { try readItem(item) }
      return try finish()
    }

    /// Whether `text` is a request item (it has a separator).
    func isItem(_ text: String) -> Bool { Self.separator(in: text) != nil }

    /// The separators, longest first where two start at the same place.
    static let separators = [":=@", "==@", "=@", ":@", "==", ":=", "=", "@", ":", ";"]

    /// The item's separator: the one that starts first (the longest of those starting there).
    static func separator(in text: String) -> (separator: String, range: Range<String.Index>)? {
      var best: (separator: String, range: Range<String.Index>)?
      for separator in separators {
        guard let range = text.range(of: separator) else { continue }
        if best == nil || range.lowerBound < best!.range.lowerBound { best = (separator, range) }
      }
      return best
    }

    mutating func readItem(_ word: ShellWord) throws(ImportError) {
      guard let (separator, range) = Self.separator(in: word.text) else {
        throw error(
          "\(JSONSerializer.quote(word.text)) is no request item: write Header:value, name==value, field=value or "
            + "field:=json (a second URL needs a command of its own)", at: word.location)
      }
      let key = String(word.text[..<range.lowerBound])
      let value = String(word.text[range.upperBound...])
      guard !key.isEmpty else { throw error("\(JSONSerializer.quote(word.text)) has no name before \(separator)", at: word.location) }
      switch separator {
      case ":":
        let trimmed = value.trimmingSpaces()
        headers.append((key, trimmed.isEmpty ? nil : trimmed))
      case ";":
        headers.append((key, ""))
        if HTTPHeaders.isAddedByCurl(key) {
          warnings.append(
            "\(file):\(word.location): HTTPie sends \(key) with an empty value; reqbench does not send an empty "
              + "\(key) (an empty value removes the one curl adds)")
        }
      case "==": query.append((key, value))
      case "=":
        if form || multipart {
          formFields.append((key, value))
        } else {
          try setField(key, .string(value), at: word.location)
        }
      case ":=":
        guard let parsed = try? JSONParser.parse(value) else {
          throw error("\(key):= takes JSON (a number, true, [1, 2], {\"a\": 1}), not \(JSONSerializer.quote(value))", at: word.location)
        }
        if form || multipart {
          throw error("\(key):= is a JSON field; a form (--form) takes field=value", at: word.location)
        }
        try setField(key, parsed, at: word.location)
      case "@":
        if let problem = RequestDraft.pathProblem(value) { throw error("\(word.text): \(problem)", at: word.location) }
        var field = MultipartField(name: key, value: nil, file: value)
        if let semicolon = value.range(of: ";type=") {
          field.file = String(value[..<semicolon.lowerBound])
          field.type = String(value[semicolon.upperBound...])
        }
        files.append(field)
      default:  // =@, :=@, ==@ and :@
        throw error(
          "\(word.text): reqbench does not read a value from a file at import (HTTPie's \(separator)); "
            + "write the value (field=value, name==value, Header:value)",
          at: word.location)
      }
    }

    /// Sets `key` (`a`, `a[b]`, `a[]`, HTTPie's nested JSON) in the JSON body.
    mutating func setField(_ key: String, _ value: JSONValue, at location: SourceLocation) throws(ImportError) {
      hasFields = true
      var path: [String] = []
      var rest = Substring(key)
      if let open = rest.firstIndex(of: "[") {
        // `[]:=1` (a key that starts with `[`): the body is a top-level array, as in HTTPie.
        if open == rest.startIndex, fields == .object(JSONObject()) { fields = .array([]) }
        if open != rest.startIndex { path.append(String(rest[..<open])) }
        rest = rest[open...]
        while !rest.isEmpty {
          guard rest.first == "[", let close = rest.firstIndex(of: "]") else {
            throw error("\(JSONSerializer.quote(key)): write nested fields as a[b][c] or a[] (append)", at: location)
          }
          let segment = String(rest[rest.index(after: rest.startIndex)..<close])
          if !segment.isEmpty, segment.allSatisfy(\.isNumber) {
            throw error("\(JSONSerializer.quote(key)): array indexes are not imported; use a[] to append", at: location)
          }
          path.append(segment)
          rest = rest[rest.index(after: close)...]
        }
      } else {
        path = [key]
      }
      guard let updated = Self.set(value, at: path[...], in: fields) else {
        throw error("\(JSONSerializer.quote(key)) sets a field another item made a value of another type", at: location)
      }
      fields = updated
    }

    /// `value` set at `path` in `container` (an empty segment appends); nil on a type clash.
    static func set(_ value: JSONValue, at path: ArraySlice<String>, in container: JSONValue?) -> JSONValue? {
      guard let segment = path.first else { return value }
      let rest = path.dropFirst()
      if segment.isEmpty {
        var elements: [JSONValue] = []
        if let container {
          guard case .array(let existing) = container else { return nil }
          elements = existing
        }
        guard let element = set(value, at: rest, in: nil) else { return nil }
        elements.append(element)
        return .array(elements)
      }
      var object = JSONObject()
      if let container {
        guard case .object(let existing) = container else { return nil }
        object = existing
      }
      guard let member = set(value, at: rest, in: object[segment]) else { return nil }
      object[segment] = member
      return .object(object)
    }

    /// The request as HTTPie sends it: the URL and query as `requests` writes them (kept in the
    /// URL), the body's bytes as HTTPie writes them (a text body), and its headers in its order,
    /// `Accept` and `Connection: keep-alive` included (see `HTTPieWire.headers`). Left to the
    /// engine: `User-Agent`, `Accept-Encoding` (it offers every coding it decodes),
    /// `Content-Length`, and `-a`'s `Authorization` (the request's auth).
    mutating func finish() throws(ImportError) -> RequestTemplate {
      guard let urlWord = url else { throw error("this HTTPie command has no URL", at: command.location) }
      var address = urlWord.text.trimmingSpaces()
      if address.hasPrefix("://") { address.removeFirst(3) }  // HTTPie's "paste after `http`"
      if address.hasPrefix(":"), !address.hasPrefix("::") {
        // `:3000/users`, `:/users`: localhost.
        address = "localhost" + (address.hasPrefix(":/") ? String(address.dropFirst()) : address)
      }
      address = try RequestDraft.commandLineURL(address, scheme: scheme, file: file, at: urlWord.location)
      address = HTTPieWire.appendQuery(query, to: HTTPieWire.requote(address))
      if let hash = address.firstIndex(of: "#") { address = String(address[..<hash]) }  // never sent
      draft.url = address

      if raw != nil && (hasFields || !formFields.isEmpty || !files.isEmpty) {
        throw error("--raw is the whole body; it does not go with request items that set fields", at: command.location)
      }
      let isMultipart = multipart || !files.isEmpty
      let hasData = hasFields || !formFields.isEmpty || !files.isEmpty || raw != nil
      // HTTPie's own headers (`make_default_headers`).
      var defaults: [(name: String, value: String)] = []
      let autoJSON = hasData && !form && !isMultipart
      if explicitJSON || autoJSON {
        defaults.append(("Accept", HTTPieWire.jsonAccept))
        if explicitJSON || hasData { defaults.append(("Content-Type", "application/json")) }
      } else if form && files.isEmpty && !isMultipart {
        defaults.append(("Content-Type", HTTPieWire.formContentType))
      }
      var text: String?
      if let raw {
        text = raw
      } else if isMultipart {
        draft.setMultipart(formFields.map { MultipartField(name: $0.name, value: $0.value) } + files)
      } else if !formFields.isEmpty {
        text = HTTPieWire.form(formFields)
      } else if hasFields, fields != .object(JSONObject()) {
        text = HTTPieWire.json(fields)
      }
      draft.method = method ?? (hasData ? .POST : .GET)
      // `-a`'s header wins over an `Authorization:` item (its place among the headers is all
      // that matters here: the engine writes the value from the request's auth).
      var authHeader: String?
      if let auth {
        try setAuth(auth)
        if case .digest? = draft.auth {} else { authHeader = "\u{0}auth" }
      }
      let lengthless = draft.method == .GET || draft.method == .HEAD || draft.method == .OPTIONS
      let length = text.map { String($0.utf8.count) } ?? (lengthless ? nil : "0")
      var sent = HTTPieWire.headers(defaults: defaults, items: headers, contentLength: length, auth: authHeader)
      sent.removeAll { field in
        let name = field.name.lowercased()
        return (name == "user-agent" && field.value == HTTPieWire.userAgent)
          || RequestDraft.isLeftOut(header: field.name)
          || (name == "authorization" && auth != nil)
          || (name == "content-type" && isMultipart && RequestDraft.mediaType(field.value) == "multipart/form-data")
      }
      // A `Name:` item of a header reqbench sends of its own (`User-Agent:`) removes it here too.
      for item in headers where item.value == nil && !sent.contains(where: { $0.name.lowercased() == item.name.lowercased() }) {
        if ["user-agent", "accept"].contains(item.name.lowercased()) { sent.append((item.name, "")) }
      }
      if let text {
        draft.body = .text(text, contentType: nil)
        // HTTPie sent no Content-Type (`Content-Type:`): neither does reqbench.
        if !sent.contains(where: { $0.name.lowercased() == "content-type" }) { sent.append(("Content-Type", "")) }
      }
      draft.headers = HTTPHeaders(sent.map { ($0.name, $0.value) })
      return try draft.commandLineTemplate(file: file, at: command.location, warnings: &warnings)
    }

    mutating func setAuth(_ credentials: String) throws(ImportError) {
      let (user, password) =
        credentials.firstIndex(of: ":").map { (String(credentials[..<$0]), String(credentials[credentials.index(after: $0)...])) }
        ?? (credentials, "")
      switch authType {
      case "basic": draft.auth = .basic(user: user, password: password)
      case "digest":
        draft.auth = .digest(user: user, password: password)
      case "bearer": draft.auth = .bearer(credentials)
      default:
        throw error(
          "--auth-type \(authType) is not imported; use basic, digest or bearer", at: command.location)
      }
    }
  }
}
