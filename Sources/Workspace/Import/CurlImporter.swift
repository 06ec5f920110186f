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
/// `--data-ascii`, `--data-urlencode` (all its forms), `--json`, `-F`/`--form`, `--form-string`,
/// `-T`/`--upload-file`, `-o`/`--output`, `-O`/`--remote-name`, `-C`/`--continue-at`, `-u`,
/// `--oauth2-bearer`, `-G`, `-A`, `-e`, `-b`, `-k`, `-L`, `--max-redirs`, `--compressed`, `--url`,
/// `-I`, `-m`/`--max-time` (the deadline), `--connect-timeout` (the idle timeout), `--retry`, and
/// options that only shape curl's own output, which are ignored (`-s`, `-S`, `-v`, `-i`, `-w FMT`,
/// …). Any other option is an error naming it and its place, never silently dropped.
///
/// Files, uploads and downloads. The paths a command names become paths relative to the
/// workspace's folder, where the files must be; an absolute path, `~` or `..` is an error naming
/// the option, saying to copy the file into the workspace's folder (`WorkspacePaths.problem`).
/// - `-F name=value` and `--form-string name=value` are text parts, `-F name=@path` file parts, in
///   order, with `;type=…` and `;filename=…` as curl reads them (a value in double quotes may hold
///   `;`): a `{"multipart": […]}` body, POST unless `-X` says otherwise. `-F name=<path` (a text
///   field whose value curl reads from a file) is read at import into the part's `value`, as
///   `-d @path` pieces are; it must be UTF-8 text. Several files in one `-F` (`@a,b`), nested
///   parts (`=(`), `;headers=` and `;encoder=` are errors, and so is a parameter curl would drop
///   (`-F 'a=x;y'` sends `x`): quote the value or use `--form-string`.
/// - `--data-binary @path`, `-d @path` and `--data-ascii @path` as the only data option (no
///   `-G`) become a `{"file": path}` body, streamed from disk when sent, with curl's form content
///   type unless a `Content-Type` header says otherwise. reqbench sends the file as it is, where
///   `-d` would drop its newlines. `@path` pieces among several data options are read at import
///   and joined with `&`, as before.
/// - `-T path` / `--upload-file path` is a file body too, PUT unless `-X` says otherwise,
///   `application/octet-stream` unless a `Content-Type` header is given; a URL ending in `/` gets
///   the file's name, as curl does.
/// - `-o path` / `--output path` is `"download": {"to": path}` (`-o -` and `-o /dev/null`, which
///   keep nothing, are ignored); `-O` / `--remote-name` is `{"to": "downloads/"}`: a folder, so the
///   file is named after the URL's last path segment as curl names it, in `downloads/` rather than
///   next to the workspace file. `-C -` is accepted and changes nothing: reqbench always resumes a
///   download from the bytes on disk.
/// - Only one of data options, `-F` and `-T` may set the body (curl refuses more), and `-G` goes
///   with data options only.
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
    readFile: @escaping (String) throws(FileError) -> [UInt8] = ImportFile.reader(in: nil)
  ) throws(ImportError) -> ImportedRequests {
    let commands: [[ShellWord]]
    do {
      commands = try ShellWords.split(text)
    } catch {
      throw ImportError(file: file, location: error.location, message: error.message)
    }
    guard !commands.isEmpty else {
      throw ImportError(
        file: file, location: .start,
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
    case request, header, json, form, formString, upload, output, remoteName, continueAt
    case user, oauth2Bearer, get, userAgent, referer, cookie
    case insecure, location, maxRedirects, compressed, url, head, maxTime, connectTimeout, retry
    case digest, cacert, pinnedPublicKey, cert, key
    /// `-d`, `--data-raw`, `--data-binary`, …
    case data(DataKind)
    /// Shapes curl's output only (or is what reqbench does anyway): read and ignored.
    case ignored, ignoredWithValue
    /// Known to curl, not importable: the message says why.
    case unsupported(String)

    var takesValue: Bool {
      switch self {
      case .request, .header, .data, .json, .form, .formString, .upload, .output, .continueAt,
        .user, .oauth2Bearer, .userAgent, .referer, .cookie, .maxRedirects, .url, .maxTime,
        .connectTimeout, .retry, .ignoredWithValue, .cacert, .pinnedPublicKey, .cert, .key:
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
    "--form-string": .formString, "--upload-file": .upload, "--output": .output,
    "--remote-name": .remoteName, "--continue-at": .continueAt, "--user": .user,
    "--oauth2-bearer": .oauth2Bearer, "--get": .get,
    "--user-agent": .userAgent, "--referer": .referer, "--cookie": .cookie,
    "--insecure": .insecure, "--location": .location, "--location-trusted": .location,
    "--max-redirs": .maxRedirects, "--compressed": .compressed, "--url": .url, "--head": .head,
    "--max-time": .maxTime, "--connect-timeout": .connectTimeout, "--retry": .retry,
    "--basic": .ignored, "--globoff": .ignored, "--http1.1": .ignored, "--http2": .ignored,
    // Output only.
    "--silent": .ignored, "--show-error": .ignored, "--verbose": .ignored, "--include": .ignored,
    "--no-buffer": .ignored, "--progress-bar": .ignored, "--no-progress-meter": .ignored,
    "--fail": .ignored, "--fail-with-body": .ignored,
    "--create-dirs": .ignored, "--trace-time": .ignored,
    "--write-out": .ignoredWithValue,
    "--dump-header": .ignoredWithValue, "--trace": .ignoredWithValue,
    "--trace-ascii": .ignoredWithValue, "--stderr": .ignoredWithValue,
    // Known, not importable.
    "--cookie-jar": .unsupported("a cookie jar"),
    "--proxy": .unsupported("a proxy (reqbench reads HTTP_PROXY / HTTPS_PROXY)"),
    "--digest": .digest, "--pinnedpubkey": .pinnedPublicKey, "--cacert": .cacert,
    "--ntlm": .unsupported("NTLM authentication"),
    "--negotiate": .unsupported("Negotiate authentication"),
    "--cert": .cert, "--key": .key,
    "--config": .unsupported("reading options from a file"),
  ]

  /// The one-letter options read.
  static let shortOptions: [Character: Option] = [
    "X": .request, "H": .header, "d": .data(.plain), "F": .form, "u": .user, "G": .get,
    "A": .userAgent, "e": .referer, "b": .cookie, "k": .insecure, "L": .location, "I": .head,
    "m": .maxTime, "g": .ignored,
    "s": .ignored, "S": .ignored, "v": .ignored, "i": .ignored, "N": .ignored, "#": .ignored,
    "f": .ignored, "O": .remoteName, "o": .output, "T": .upload, "C": .continueAt,
    "w": .ignoredWithValue, "D": .ignoredWithValue, "c": .unsupported("a cookie jar"),
    "x": .unsupported("a proxy (reqbench reads HTTP_PROXY / HTTPS_PROXY)"),
    "E": .cert, "K": .unsupported("reading options from a file"),
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
    var data: [DataPiece] = []
    /// `-F` and `--form-string` parts, in order.
    var parts: [MultipartField] = []
    /// `-T path`.
    var upload: String?
    /// The first option that set the body, of each kind (data, form, upload): curl takes one.
    var bodyOptions: [(kind: BodyKind, flag: String)] = []
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
        try noteBody(.data, flag: flag, at: location)
        if text.hasPrefix("@"), kind == .plain || kind == .ascii || kind == .binary {
          let path = String(text.dropFirst())
          if path == "-" { _ = try fileText(text, flag: flag, at: valueLocation) }  // the stdin error
          // Read at the end, unless it is the whole body (a file body).
          data.append(.file(path: path, kind: kind, flag: flag, location: valueLocation))
        } else {
          data.append(.text(try dataText(kind, text, flag: flag, at: valueLocation), json: false))
        }
      case .json:
        try noteBody(.data, flag: flag, at: location)
        sawJSONOption = true
        let piece = text.hasPrefix("@") ? try fileText(text, flag: flag, at: valueLocation) : text
        data.append(.text(piece, json: true))
      case .form, .formString:
        try noteBody(.form, flag: flag, at: location)
        parts.append(try formPart(text, literal: option == .formString, flag: flag, at: valueLocation))
      case .upload:
        try noteBody(.upload, flag: flag, at: location)
        if text == "-" || text == "." {
          throw error(
            "\(flag) \(text) uploads standard input, which an import cannot; save it to a file and "
              + "write \(flag) FILE", at: valueLocation)
        }
        if let problem = RequestDraft.pathProblem(text) {
          throw error("\(flag) \(text): \(problem)", at: valueLocation)
        }
        upload = text
      case .output:
        // Standard output, or nowhere: nothing to keep.
        if text == "-" || text == "/dev/null" {
          draft.download = nil
          break
        }
        if let problem = RequestDraft.pathProblem(text, download: true) {
          throw error("\(flag) \(text): \(problem)", at: valueLocation)
        }
        draft.download = DownloadTemplate(to: text)
      case .remoteName:
        draft.download = DownloadTemplate(to: CurlImporter.remoteNameFolder)
      case .continueAt:
        guard text == "-" else {
          throw error(
            "\(flag) \(text): reqbench resumes a download from the bytes on disk by itself; "
              + "write \(flag) - or leave it out", at: valueLocation)
        }
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
      case .digest: draft.digest = true
      case .cacert:
        if let problem = RequestDraft.pathProblem(text) { throw error("\(flag) \(text): \(problem)", at: valueLocation) }
        draft.tls = draft.tls ?? TLSSettings()
        draft.tls?.caFile = text
      case .pinnedPublicKey:
        guard text.split(separator: ";").allSatisfy({ $0.hasPrefix("sha256//") }) else {
          throw error(
            "\(flag) \(JSONSerializer.quote(text)): reqbench pins sha256//BASE64 hashes of the public key, "
              + "not key files; compute one with openssl (see the README)", at: valueLocation)
        }
        draft.tls = draft.tls ?? TLSSettings()
        draft.tls?.pinnedPublicKey = text
      case .cert:
        // curl's `--cert file:password` form: reqbench reads unencrypted keys only.
        guard !text.contains(":") else {
          throw error(
            "\(flag) \(JSONSerializer.quote(text)): a key password is not supported; decrypt the key "
              + "(openssl pkey -in key.pem -out plain.pem) and give it with --key", at: valueLocation)
        }
        if let problem = RequestDraft.pathProblem(text) { throw error("\(flag) \(text): \(problem)", at: valueLocation) }
        draft.tls = draft.tls ?? TLSSettings()
        draft.tls?.clientCertificate = text
      case .key:
        if let problem = RequestDraft.pathProblem(text) { throw error("\(flag) \(text): \(problem)", at: valueLocation) }
        draft.tls = draft.tls ?? TLSSettings()
        draft.tls?.clientKey = text
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

    /// Notes that `flag` sets the body; a second kind of body (`-F` after `-d`…) is an error, as
    /// it is for curl.
    mutating func noteBody(_ kind: BodyKind, flag: String, at location: SourceLocation)
      throws(ImportError)
    {
      if let other = bodyOptions.first(where: { $0.kind != kind }) {
        throw error(
          "\(flag) and \(other.flag) both set the body, and a request has one; keep one of them",
          at: location)
      }
      if !bodyOptions.contains(where: { $0.kind == kind }) { bodyOptions.append((kind, flag)) }
    }

    /// One `-F` (or, `literal`, `--form-string`) value, read as curl reads it: `name=value`,
    /// `name=@path` (a file part) or `name=<path` (a text part read from a file), each with
    /// `;type=…` and `;filename=…`.
    func formPart(_ text: String, literal: Bool, flag: String, at location: SourceLocation)
      throws(ImportError) -> MultipartField
    {
      guard let eq = text.firstIndex(of: "=") else {
        throw error(
          "\(flag) needs name=value or name=@file, found \(JSONSerializer.quote(text))", at: location)
      }
      let name = String(text[..<eq])
      guard !name.isEmpty else {
        throw error(
          "\(flag) \(JSONSerializer.quote(text)) has no field name; write name=value", at: location)
      }
      let content = text[text.index(after: eq)...]
      if literal { return MultipartField(name: name, value: String(content)) }
      func fail(_ message: String) -> ImportError {
        error("\(flag) \(JSONSerializer.quote(text)): \(message)", at: location)
      }
      if content.hasPrefix("(") {
        throw fail("nested multipart parts are not supported; write one -F per field")
      }
      let isFile = content.hasPrefix("@")
      let isRead = content.hasPrefix("<")
      let spec: FormSpec
      do {
        spec = try FormSpec(isFile || isRead ? content.dropFirst() : content, files: isFile)
      } catch {
        throw fail(error.message)
      }
      if isFile || isRead, spec.word == "-" {
        throw fail(
          "a part read from standard input cannot be imported; save it to a file and name the file")
      }
      if isFile {
        if let problem = RequestDraft.pathProblem(spec.word) { throw fail(problem) }
        return MultipartField(name: name, file: spec.word, type: spec.type, filename: spec.filename)
      }
      if isRead {
        if spec.filename != nil {
          throw fail("filename= does not go with <file (a text field); write name=@file to send a file")
        }
        if let problem = RequestDraft.pathProblem(spec.word) { throw fail(problem) }
        let bytes: [UInt8]
        do {
          bytes = try readFile(spec.word)
        } catch {
          throw fail("cannot read the file: \(error.reason)")
        }
        guard let value = String(validating: bytes, as: UTF8.self) else {
          throw fail("the file is not UTF-8 text; send it as a file part with name=@\(spec.word)")
        }
        return MultipartField(name: name, value: value, type: spec.type)
      }
      return MultipartField(name: name, value: spec.word, type: spec.type, filename: spec.filename)
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
      if let problem = RequestDraft.pathProblem(path) {
        throw error("\(flag) @\(path): \(problem)", at: location)
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

      if get, let other = bodyOptions.first(where: { $0.kind != .data }) {
        throw error(
          "-G moves data options into the query; it does not go with \(other.flag)",
          at: command.location)
      }
      // One `@path` data option is the whole body: a file body, sent as it is.
      var bodyFile: String?
      if data.count == 1, !get, case .file(let path, _, let flag, let location) = data[0] {
        if let problem = RequestDraft.pathProblem(path) {
          throw error("\(flag) @\(path): \(problem)", at: location)
        }
        bodyFile = path
        data = []
      }
      // Several data options join with `&` (`--json` pieces are concatenated as they are).
      var body: String?
      let allJSON = data.allSatisfy { if case .text(_, json: true) = $0 { true } else { false } }
      for piece in data {
        let text: String
        switch piece {
        case .text(let value, _): text = value
        case .file(let path, let kind, let flag, let location):
          text = try dataText(kind, "@" + path, flag: flag, at: location)
        }
        if let joined = body {
          body = joined + (allJSON ? "" : "&") + text
        } else {
          body = text
        }
      }
      if get, let text = body {
        url = URLResolver.appendQuery(text, to: url)
        body = nil
      }
      if let upload {
        // curl appends the file's name to a URL that ends in `/`.
        var split = URLResolver.split(url)
        if split.path.hasSuffix("/"), let name = upload.split(separator: "/").last {
          split.path += PlaceholderEncoding.encode(String(name))
          url = URLResolver.join(split)
        }
      }
      let hasBody = body != nil || bodyFile != nil || !parts.isEmpty
      draft.method = method ?? (head ? .HEAD : upload != nil ? .PUT : hasBody ? .POST : .GET)
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
      } else if let bodyFile {
        draft.setFileBody(bodyFile, defaultContentType: RequestDraft.formType)
      } else if let upload {
        draft.setFileBody(upload, defaultContentType: nil)
      } else if !parts.isEmpty {
        draft.setMultipart(parts)
      }
      if draft.body != nil {
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

  /// Where `-O` saves: a folder, so the file takes the URL's last path segment, as with curl.
  static let remoteNameFolder = "downloads/"

  /// A piece of the body from one data option: text, or the file an `@path` option names (read
  /// only when the body is more than that one file).
  enum DataPiece {
    case text(String, json: Bool)
    case file(path: String, kind: DataKind, flag: String, location: SourceLocation)
  }

  /// What sets the body: data options (`-d`, `--json`…), `-F`, or `-T`.
  enum BodyKind: Equatable { case data, form, upload }

  /// The content of one `-F` value after `name=` (and after the `@` or `<`), split as curl's
  /// `get_param_part` splits it: a word (in double quotes when it holds `;`, with `\"` and `\\`
  /// inside), then `;type=…` (its own `;` parameters included) and `;filename=…`. File parts also
  /// end at `,` (curl's list of several files).
  struct FormSpec {
    var word = ""
    var type: String?
    var filename: String?

    struct Problem: Error { let message: String }

    init(_ text: Substring, files: Bool) throws(Problem) {
      let ends: Set<Character> = files ? [";", ","] : [";"]
      var rest = text.drop(while: FormSpec.isSpace)
      word = FormSpec.word(&rest, ends: ends)
      // Where the type starts while its `;` parameters may follow.
      var typeStart: Substring.Index?
      while let separator = rest.first, separator == ";" {
        rest = rest.dropFirst().drop(while: FormSpec.isSpace)
        if type == nil, rest.hasPrefix("type=") {
          let start = rest.dropFirst(5).drop(while: FormSpec.isSpace)
          rest = start.drop(while: { !ends.contains($0) })
          let media = FormSpec.trimmed(start[..<rest.startIndex])
          guard let slash = media.firstIndex(of: "/"), slash > media.startIndex,
            media.index(after: slash) < media.endIndex
          else {
            throw Problem(message: "type= needs a media type such as text/plain")
          }
          type = media
          typeStart = start.startIndex
        } else if rest.hasPrefix("filename=") {
          typeStart = nil
          rest = rest.dropFirst(9).drop(while: FormSpec.isSpace)
          filename = FormSpec.word(&rest, ends: ends)
        } else if rest.hasPrefix("headers=") || rest.hasPrefix("encoder=") {
          throw Problem(message: "\(rest.prefix(7))= is not supported; remove it to import the rest")
        } else if let typeStart {
          // `;type=text/plain; charset=utf-8`: parameters of the media type, kept as written.
          let segment = rest.prefix(while: { !ends.contains($0) })
          type = FormSpec.trimmed(text[typeStart..<segment.endIndex])
          rest = rest[segment.endIndex...]
        } else {
          let segment = rest.prefix(while: { !ends.contains($0) })
          rest = rest[segment.endIndex...]
          if !FormSpec.trimmed(segment).isEmpty {
            throw Problem(
              message: "curl would drop \(JSONSerializer.quote(";" + String(segment))) (it reads "
                + ";type= and ;filename=); to send a ';' in a value, write the value in double "
                + "quotes, or use --form-string")
          }
        }
      }
      if files, rest.first == "," {
        throw Problem(message: "several files in one -F are not supported; write one -F per file")
      }
    }

    /// A word up to one of `ends`: in double quotes (`\"` and `\\` escaped) as it is, else with
    /// trailing blanks dropped.
    static func word(_ rest: inout Substring, ends: Set<Character>) -> String {
      if rest.first == "\"" {
        var out = ""
        var i = rest.index(after: rest.startIndex)
        while i < rest.endIndex {
          let character = rest[i]
          let next = rest.index(after: i)
          if character == "\\", next < rest.endIndex, rest[next] == "\\" || rest[next] == "\"" {
            out.append(rest[next])
            i = rest.index(after: next)
            continue
          }
          if character == "\"" {
            // Anything between the closing quote and the next separator is skipped, as curl does.
            rest = rest[next...].drop(while: { !ends.contains($0) })
            return out
          }
          out.append(character)
          i = next
        }
        // No closing quote: read as unquoted.
      }
      let word = rest.prefix(while: { !ends.contains($0) })
      rest = rest[word.endIndex...]
      return trimmed(word, leading: false)
    }

    static func isSpace(_ character: Character) -> Bool {
      character == " " || character == "\t" || character == "\n" || character == "\r"
    }

    static func trimmed(_ text: Substring, leading: Bool = true) -> String {
      var text = text
      if leading { text = text.drop(while: isSpace) }
      while let last = text.last, isSpace(last) { text = text.dropLast() }
      return String(text)
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
