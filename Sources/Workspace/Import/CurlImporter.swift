import RequestEngine

/// Reads curl command lines into request templates: what browsers' "Copy as cURL" (Chrome,
/// Firefox; bash flavour) and API docs paste. Each `curl …` command (one line, or several joined
/// by `\` continuations) is one request.
///
/// ```swift
/// let imported = try CurlImporter.parse(
///   "curl 'https://api.test/users?page=2' -H 'accept: application/json' --compressed",
///   file: "paste.sh")
/// imported.requests[0].template.url    // "https://api.test/users"
/// imported.requests[0].template.query  // {"page": "2"}
/// ```
/// The options read (see `options`): `-X`, `-H`, `-d`/`--data`, `--data-raw`, `--data-binary`,
/// `--data-ascii`, `--data-urlencode` (all its forms), `--json`, `-u`, `--oauth2-bearer`, `-G`,
/// `-A`, `-e`, `-b`, `-k`, `-L`, `--max-redirs`, `--compressed`, `--url`, `-I`, `-m`/`--max-time`
/// (the deadline), `--connect-timeout` (the idle timeout), `--retry`, and options that only shape
/// curl's own output, which are ignored (`-s`, `-S`, `-v`, `-i`, `-o FILE`, `-w FMT`, …). Any other
/// option is an error naming it and its place, never silently dropped.
///
/// Decisions:
/// - Without `-L` curl does not follow redirects, but a pasted command keeps reqbench's default of
///   following them: browsers' copies never carry `-L`, and the browser did follow.
/// - `--compressed` is accepted and changes nothing: reqbench always asks for compressed responses
///   and decodes them. For the same reason a copied `Accept-Encoding` header is left out (it would
///   turn decoding off), and so is `Content-Length` (computed from the body).
/// - `--http1.1` and `--http2` are accepted and ignored: reqbench uses HTTP/2 over TLS when the
///   server offers it, HTTP/1.1 otherwise.
/// - `$NAME` and `${NAME}` become `{{NAME}}` placeholders (see `ShellWords`).
public enum CurlImporter {
  public static func parse(
    _ text: String, file: String,
    readFile: @escaping (String) throws(FileError) -> [UInt8] = ImportFile.read
  ) throws(ImportError) -> ImportedRequests {
    let commands: [[ShellWord]]
    do {
      commands = try ShellWords.split(text)
    } catch {
      throw ImportError(file: file, location: error.location, message: error.message)
    }
    guard !commands.isEmpty else {
      throw ImportError(
        file: file, location: nil,
        message: "there is no curl command here; paste a command that starts with curl")
    }
    var imported = ImportedRequests()
    for command in commands {
      var words = command[...]
      // A copied shell prompt: `$ curl …`.
      if words.first?.text == "$", words.count > 1 { words = words.dropFirst() }
      guard let first = words.first else { continue }
      guard isCurl(first.text) else {
        throw ImportError(
          file: file, location: first.location,
          message: "expected a curl command, found \(JSONSerializer.quote(first.text)); "
            + "every command must start with curl")
      }
      var reader = CommandReader(file: file, command: first, readFile: readFile)
      let template = try reader.read(words.dropFirst())
      imported.requests.append(ImportedRequest(template: template, location: first.location))
      imported.warnings += reader.warnings
    }
    return imported
  }

  private static func isCurl(_ word: String) -> Bool {
    let name = word.split(separator: "/").last.map(String.init) ?? word
    return name == "curl" || name == "curl.exe"
  }

  /// What a curl option does once read.
  enum Option: Equatable {
    case request, header, json, form, user, oauth2Bearer, get, userAgent, referer, cookie
    case insecure, location, maxRedirects, compressed, url, head, maxTime, connectTimeout, retry
    /// `-d`, `--data-raw`, `--data-binary`, …
    case data(DataKind)
    /// Shapes curl's output only (or is what reqbench does anyway): read and ignored.
    case ignored, ignoredWithValue
    /// Known to curl, not importable: the message says why.
    case unsupported(String)

    var takesValue: Bool {
      switch self {
      case .request, .header, .data, .json, .form, .user, .oauth2Bearer, .userAgent, .referer,
        .cookie, .maxRedirects, .url, .maxTime, .connectTimeout, .retry, .ignoredWithValue:
        true
      default: false
      }
    }
  }

  enum DataKind: Equatable { case plain, ascii, raw, binary, urlencode }

  /// The long options read, by name.
  static let longOptions: [String: Option] = [
    "--request": .request, "--header": .header, "--data": .data(.plain),
    "--data-ascii": .data(.ascii), "--data-raw": .data(.raw), "--data-binary": .data(.binary),
    "--data-urlencode": .data(.urlencode), "--json": .json, "--form": .form,
    "--form-string": .form, "--user": .user, "--oauth2-bearer": .oauth2Bearer, "--get": .get,
    "--user-agent": .userAgent, "--referer": .referer, "--cookie": .cookie,
    "--insecure": .insecure, "--location": .location, "--location-trusted": .location,
    "--max-redirs": .maxRedirects, "--compressed": .compressed, "--url": .url, "--head": .head,
    "--max-time": .maxTime, "--connect-timeout": .connectTimeout, "--retry": .retry,
    "--basic": .ignored, "--globoff": .ignored, "--http1.1": .ignored, "--http2": .ignored,
    // Output only.
    "--silent": .ignored, "--show-error": .ignored, "--verbose": .ignored, "--include": .ignored,
    "--no-buffer": .ignored, "--progress-bar": .ignored, "--no-progress-meter": .ignored,
    "--fail": .ignored, "--fail-with-body": .ignored, "--remote-name": .ignored,
    "--create-dirs": .ignored, "--trace-time": .ignored,
    "--output": .ignoredWithValue, "--write-out": .ignoredWithValue,
    "--dump-header": .ignoredWithValue, "--trace": .ignoredWithValue,
    "--trace-ascii": .ignoredWithValue, "--stderr": .ignoredWithValue,
    // Known, not importable.
    "--upload-file": .unsupported("uploading a file"),
    "--cookie-jar": .unsupported("a cookie jar"),
    "--proxy": .unsupported("a proxy (reqbench reads HTTP_PROXY / HTTPS_PROXY)"),
    "--digest": .unsupported("digest authentication"),
    "--ntlm": .unsupported("NTLM authentication"),
    "--negotiate": .unsupported("Negotiate authentication"),
    "--cert": .unsupported("client certificates"),
    "--cacert": .unsupported("a CA certificate file"),
    "--config": .unsupported("reading options from a file"),
  ]

  /// The one-letter options read.
  static let shortOptions: [Character: Option] = [
    "X": .request, "H": .header, "d": .data(.plain), "F": .form, "u": .user, "G": .get,
    "A": .userAgent, "e": .referer, "b": .cookie, "k": .insecure, "L": .location, "I": .head,
    "m": .maxTime, "g": .ignored,
    "s": .ignored, "S": .ignored, "v": .ignored, "i": .ignored, "N": .ignored, "#": .ignored,
    "f": .ignored, "O": .ignored,
    "o": .ignoredWithValue, "w": .ignoredWithValue, "D": .ignoredWithValue,
    "T": .unsupported("uploading a file"), "c": .unsupported("a cookie jar"),
    "x": .unsupported("a proxy (reqbench reads HTTP_PROXY / HTTPS_PROXY)"),
    "E": .unsupported("client certificates"), "K": .unsupported("reading options from a file"),
  ]

  /// Reads the options of one curl command.
  private struct CommandReader {
    let file: String
    /// The `curl` word: errors about the command as a whole point at it.
    let command: ShellWord
    let readFile: (String) throws(FileError) -> [UInt8]

    var method: HTTPMethod?
    var head = false
    var get = false
    var urls: [ShellWord] = []
    var headers: [(name: String, value: String)] = []
    var data: [(text: String, json: Bool)] = []
    var sawJSONOption = false
    var cookies: [String] = []
    var userAgent: String?
    var referer: String?
    var draft = RequestDraft()
    var warnings: [String] = []

    init(
      file: String, command: ShellWord, readFile: @escaping (String) throws(FileError) -> [UInt8]
    ) {
      self.file = file
      self.command = command
      self.readFile = readFile
    }

    func error(_ message: String, at location: SourceLocation) -> ImportError {
      ImportError(file: file, location: location, message: message)
    }

    mutating func read(_ words: ArraySlice<ShellWord>) throws(ImportError) -> RequestTemplate {
      var rest = words
      var onlyURLs = false
      while let word = rest.popFirst() {
        if onlyURLs || !word.text.hasPrefix("-") || word.text == "-" {
          urls.append(word)
          continue
        }
        if word.text == "--" {
          onlyURLs = true
          continue
        }
        if word.text.hasPrefix("--") {
          guard let option = CurlImporter.longOptions[word.text] else {
            throw unknownOption(word.text, at: word.location)
          }
          let value = option.takesValue ? try nextValue(for: word.text, at: word, from: &rest) : nil
          try apply(option, flag: word.text, value: value, at: word.location)
          continue
        }
        // One-letter options, possibly combined (`-sSL`), the last possibly with its value
        // attached (`-XPOST`, `-H'X: y'`).
        let letters = Array(word.text.dropFirst())
        var k = 0
        while k < letters.count {
          let flag = "-\(letters[k])"
          // A lone `-F` is pointed at from its dash, a letter inside `-sSZ` directly.
          let location = k == 0 ? word.location : word.location(at: k + 1)
          guard let option = CurlImporter.shortOptions[letters[k]] else {
            throw unknownOption(flag, at: location)
          }
          if option.takesValue {
            let attached = String(letters[(k + 1)...])
            let value =
              attached.isEmpty
              ? try nextValue(for: flag, at: word, from: &rest)
              : ShellWord(text: attached, location: word.location(at: k + 2), isPlain: word.isPlain)
            try apply(option, flag: flag, value: value, at: location)
            break
          }
          try apply(option, flag: flag, value: nil, at: location)
          k += 1
        }
      }
      return try finish()
    }

    func unknownOption(_ flag: String, at location: SourceLocation) -> ImportError {
      if flag.hasPrefix("--"), let eq = flag.firstIndex(of: "="),
        CurlImporter.longOptions[String(flag[..<eq])] != nil
      {
        return error(
          "curl takes an option's value as the next word: write \(flag[..<eq]) "
            + "'\(flag[flag.index(after: eq)...])'", at: location)
      }
      return error(
        "\(flag) is not a curl option reqbench can import; remove it to import the rest",
        at: location)
    }

    func nextValue(for flag: String, at word: ShellWord, from rest: inout ArraySlice<ShellWord>)
      throws(ImportError) -> ShellWord
    {
      guard let value = rest.popFirst() else {
        throw error("\(flag) needs a value", at: word.location)
      }
      return value
    }

    mutating func apply(
      _ option: Option, flag: String, value: ShellWord?, at location: SourceLocation
    )
      throws(ImportError)
    {
      let text = value?.text ?? ""
      let valueLocation = value?.location ?? location
      switch option {
      case .request:
        guard let parsed = HTTPMethod(rawValue: text.uppercased()) else {
          throw error(
            "the method \(JSONSerializer.quote(text)) is not supported; use one of "
              + HTTPMethod.allCases.map(\.rawValue).joined(separator: ", "), at: valueLocation)
        }
        method = parsed
      case .header:
        try header(text, at: valueLocation, flag: flag)
      case .data(let kind):
        data.append((try dataText(kind, text, flag: flag, at: valueLocation), false))
      case .json:
        sawJSONOption = true
        let piece = text.hasPrefix("@") ? try fileText(text, flag: flag, at: valueLocation) : text
        data.append((piece, true))
      case .form:
        throw error(
          "\(flag) (multipart) is not supported yet; send the fields as -d 'name=value' if the "
            + "server accepts a urlencoded form", at: location)
      case .user:
        guard let colon = text.firstIndex(of: ":") else {
          throw error(
            "\(flag) needs user:password; without the password curl would ask for it, "
              + "which an import cannot", at: valueLocation)
        }
        draft.auth = .basic(
          user: String(text[..<colon]), password: String(text[text.index(after: colon)...]))
      case .oauth2Bearer:
        draft.auth = .bearer(text)
      case .get: get = true
      case .userAgent: userAgent = text
      case .referer:
        referer = text.hasSuffix(";auto") ? String(text.dropLast(5)) : text
      case .cookie:
        guard text.contains("=") else {
          throw error(
            "\(flag) \(JSONSerializer.quote(text)) reads cookies from a file, which is not "
              + "supported; pass them as \(flag) 'name=value; other=value'", at: valueLocation)
        }
        cookies.append(text)
      case .insecure: draft.insecure = true
      case .location: draft.followRedirects = true
      case .maxRedirects:
        guard let count = Int(text), count >= 0 else {
          throw error("\(flag) needs a number of redirects, 0 or more", at: valueLocation)
        }
        draft.maxRedirects = count
      case .compressed: break
      case .url: if let value { urls.append(value) }
      case .head: head = true
      case .maxTime: draft.deadline = try seconds(text, flag: flag, at: valueLocation)
      case .connectTimeout: draft.timeout = try seconds(text, flag: flag, at: valueLocation)
      case .retry:
        guard let count = Int(text), count >= 0 else {
          throw error("\(flag) needs a number of retries, 0 or more", at: valueLocation)
        }
        draft.retry = RetryPolicy(max: count)
      case .ignored, .ignoredWithValue: break
      case .unsupported(let what):
        throw error(
          "\(flag) (\(what)) is not supported; remove it to import the rest", at: location)
      }
    }

    func seconds(_ text: String, flag: String, at location: SourceLocation) throws(ImportError)
      -> Double
    {
      guard let value = Double(text), value > 0, value.isFinite else {
        throw error(
          "\(flag) needs a number of seconds above 0, found \(JSONSerializer.quote(text))",
          at: location)
      }
      return value
    }

    mutating func header(_ text: String, at location: SourceLocation, flag: String)
      throws(ImportError)
    {
      if text.hasPrefix("@") {
        throw error(
          "\(flag) @file (headers from a file) is not supported; paste the headers", at: location)
      }
      guard let colon = text.firstIndex(of: ":") else {
        if text.hasSuffix(";") {
          throw error(
            "\(flag) '\(text)' sends an empty header, which reqbench cannot: an empty value "
              + "removes a header there", at: location)
        }
        throw error(
          "\(flag) needs \"Name: value\", found \(JSONSerializer.quote(text))", at: location)
      }
      let name = text[..<colon].trimmingSpaces()
      guard WorkspaceReader.isValidHeaderName(name) else {
        throw error("\(JSONSerializer.quote(name)) is not a valid header name", at: location)
      }
      headers.append((name, text[text.index(after: colon)...].trimmingSpaces()))
    }

    /// The text one data option adds to the body.
    func dataText(_ kind: DataKind, _ text: String, flag: String, at location: SourceLocation)
      throws(ImportError) -> String
    {
      switch kind {
      case .raw:
        return text
      case .plain, .ascii:
        guard text.hasPrefix("@") else { return text }
        // curl drops carriage returns and newlines from a file read by -d.
        return try fileText(text, flag: flag, at: location).filter {
          $0 != "\n" && $0 != "\r" && $0 != "\r\n"
        }
      case .binary:
        return text.hasPrefix("@") ? try fileText(text, flag: flag, at: location) : text
      case .urlencode:
        // curl: `content`, `=content`, `name=content`, `@file`, `name@file`; the name is sent as
        // written, the content percent-encoded.
        let separator = text.firstIndex(of: "=") ?? text.firstIndex(of: "@")
        guard let separator else { return CurlImporter.escape(text) }
        let name = String(text[..<separator])
        let rest = String(text[text.index(after: separator)...])
        let content =
          text[separator] == "@" ? try fileText("@" + rest, flag: flag, at: location) : rest
        return (name.isEmpty ? "" : name + "=") + CurlImporter.escape(content)
      }
    }

    /// The text of the file an `@file` value names.
    func fileText(_ value: String, flag: String, at location: SourceLocation) throws(ImportError)
      -> String
    {
      let path = String(value.dropFirst())
      if path == "-" {
        throw error(
          "\(flag) @- reads the body from standard input, which an import cannot; "
            + "save it to a file and write \(flag) @FILE", at: location)
      }
      let bytes: [UInt8]
      do {
        bytes = try readFile(path)
      } catch {
        throw self.error("\(flag) @\(path): cannot read the file: \(error.reason)", at: location)
      }
      guard let text = String(validating: bytes, as: UTF8.self) else {
        throw error(
          "\(flag) @\(path): the file is not UTF-8 text; binary bodies are not supported yet",
          at: location)
      }
      return text
    }

    mutating func finish() throws(ImportError) -> RequestTemplate {
      guard let urlWord = urls.first else {
        throw error("this curl command has no URL", at: command.location)
      }
      if urls.count > 1 {
        throw error(
          "a second URL in one curl command; write one curl command per URL", at: urls[1].location)
      }
      var url = urlWord.text.trimmingSpaces()
      let lower = url.lowercased()
      if !(lower.hasPrefix("http://") || lower.hasPrefix("https://") || url.hasPrefix("{{")) {
        if let scheme = url.range(of: "://") {
          throw error(
            "only http and https URLs can be imported, found \(url[..<scheme.lowerBound]):",
            at: urlWord.location)
        }
        url = "http://" + url  // what curl assumes
      }

      // Several data options join with `&` (`--json` pieces are concatenated as they are).
      var body: String?
      for piece in data {
        if let text = body {
          body = text + (data.allSatisfy(\.json) ? "" : "&") + piece.text
        } else {
          body = piece.text
        }
      }
      if get, let text = body {
        url = URLResolver.appendQuery(text, to: url)
        body = nil
      }
      draft.method = method ?? (head ? .HEAD : body != nil ? .POST : .GET)
      draft.setURL(url)

      for field in headers where !RequestDraft.isLeftOut(header: field.name) {
        draft.addHeader(field.name, field.value)
      }
      if !cookies.isEmpty { draft.addHeader("Cookie", cookies.joined(separator: "; ")) }
      if let userAgent, !draft.headers.contains("User-Agent") {
        draft.headers["User-Agent"] = userAgent
      }
      if let referer, !draft.headers.contains("Referer") { draft.headers["Referer"] = referer }
      if sawJSONOption, !draft.headers.contains("Accept") {
        draft.headers["Accept"] = "application/json"
      }
      if let body {
        draft.setBody(
          body, defaultContentType: sawJSONOption ? "application/json" : RequestDraft.formType,
          json: sawJSONOption)
        if draft.method == .GET || draft.method == .HEAD {
          warnings.append(
            "the \(draft.method.rawValue) request at \(file):\(command.location) has a body, "
              + "which reqbench does not send with \(draft.method.rawValue)")
        }
      }
      let name = RequestDraft.derivedName(method: draft.method, url: draft.url)
      let template = draft.template(name: name)
      if let problem = RequestDraft.problem(in: template) {
        throw error("this request would not load in a workspace: \(problem)", at: command.location)
      }
      return template
    }
  }

  /// Percent-encodes as curl's `--data-urlencode` does: everything but letters, digits and `-._~`.
  static func escape(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
        UInt8(ascii: "_"), UInt8(ascii: "~"):
        out.unicodeScalars.append(Unicode.Scalar(byte))
      default:
        let hex = String(byte, radix: 16, uppercase: true)
        out += (hex.count == 1 ? "%0" : "%") + hex
      }
    }
    return out
  }
}
