import RequestEngine
import Workspace

/// Reads curl command lines into request templates: what browsers' "Copy as cURL" (Chrome,
/// Firefox; bash flavour) and API docs paste. Each `curl …` command (one line, or several joined
/// by `\` continuations) is one request.
///
/// ```swift
/// let imported = try CurlImporter.parse(
///   "curl 'https://api.test/users?page=2' -H 'accept: application/json' --compressed",
///   file: "paste.sh")
/// imported.requests[0].template.url         // "https://api.test/users"
/// imported.requests[0].template.query       // {"page": "2"}
/// imported.requests[0].template.compressed  // true
/// ```
/// The options read (see `options`): `-X`, `-H`, `-d`/`--data`, `--data-raw`, `--data-binary`,
/// `--data-ascii`, `--data-urlencode` (all its forms), `--json`, `-F`/`--form`, `--form-string`,
/// `-T`/`--upload-file`, `-o`/`--output`, `-O`/`--remote-name`, `-C`/`--continue-at`, `-u`,
/// `--oauth2-bearer`, `-G`, `-A`, `-e`, `-b`, `-k`, `-L`, `--max-redirs`, `--compressed`, `--url`,
/// `-I`, `-m`/`--max-time` (the deadline), `--connect-timeout` (the idle timeout), `--retry`,
/// `--url-query`, `-r`/`--range`, `-x`/`--proxy`, `--noproxy`, `-U`/`--proxy-user`, and
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
/// - `--data-binary @path` as the only data option (no `-G`) becomes a `{"file": path}` body,
///   streamed from disk when sent, with curl's form content type unless a `Content-Type` header
///   says otherwise. `-d @path` and `--data-ascii @path` are read at import, their CR and LF
///   dropped as curl drops them, as are `@path` pieces among several data options (joined with `&`).
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
/// - What is sent is what curl sends (docs/import-export.md, "curl commands: sent as curl sends
///   them"): bodies and queries as written (`RequestDraft.setBody`, `setURL`), curl's own headers
///   (`-A`, `-e`, `-b`, `-r`) before the `-H` ones, `"compressed": false` unless `--compressed`
///   (a copied `Accept-Encoding` is sent as written), a `Content-Length` only when it states the
///   body's length.
/// - Long options by any unambiguous prefix among curl's own (`curlLongOptionNames`), `--no-`
///   before a switch's whole name; `-x`, `--noproxy` and `-U` become the request's `proxy` and
///   `noProxy`.
/// - `--http1.1` and `--http2` are accepted and ignored: reqbench uses HTTP/2 over TLS when the
///   server offers it, HTTP/1.1 otherwise.
/// - `$NAME` and `${NAME}` become `{{NAME}}` placeholders (see `ShellWords`).
public enum CurlImporter {
  public static func parse(
    _ text: String, file: String,
    readFile: @escaping (String) throws(FileError) -> [UInt8] = ImportFile.reader(in: nil)
  ) throws(ImportError) -> ImportedRequests {
    var imported = ImportedRequests()
    for command in try ShellWords.commands(text, file: file, command: "curl command", starts: "curl", accepts: isCurl) {
      var reader = CommandReader(file: file, command: command.program, readFile: readFile)
      let template = try reader.read(command.arguments)
      imported.requests.append(ImportedRequest(template: template, location: command.program.location))
      imported.warnings += reader.warnings
    }
    return imported
  }

  /// Whether a program name (`ShellWords.programName`) is curl's.
  static func isCurl(_ name: String) -> Bool { name == "curl" || name == "curl.exe" }

  /// Reads the options of one curl command.
  struct CommandReader {
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
    /// `--compressed` (or `--no-compressed`, the last wins): curl asks for compressed responses
    /// only when told to.
    var compressed = false
    /// `--url-query` pieces, as they join the URL's query; the first such option, for messages.
    var urlQueries: [String] = []
    var urlQueryFlag: String?
    /// `-r` / `--range`.
    var range: String?
    /// `-U` / `--proxy-user`: `user:password`, the option and where its value is.
    var proxyUser: (credentials: String, flag: String, location: SourceLocation)?
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
          // curl takes any unambiguous prefix of a long option (`--sil`), `--no-` before a switch.
          let name: String
          let off: Bool
          switch CurlImporter.resolveLongOption(word.text) {
          case .success(let found): (name, off) = found
          case .failure(.unknown): throw unknownOption(word.text, at: word.location, curls: false)
          case .failure(.ambiguous(let candidates)):
            throw error(
              "\(word.text) is ambiguous: curl has \(candidates.joined(separator: ", ")); "
                + "write the whole option", at: word.location)
          case .failure(.notASwitch(let option)):
            throw error("\(word.text): --\(option) takes a value and cannot be turned off with --no-", at: word.location)
          }
          guard let option = CurlImporter.longOptions[name] else {
            throw error(
              "\(name == word.text ? name : "\(word.text) (\(name))") is a curl option reqbench cannot import; "
                + "remove it to import the rest", at: word.location)
          }
          let value = option.takesValue ? try nextValue(for: word.text, at: word, from: &rest) : nil
          try apply(option, flag: word.text, value: value, at: word.location, off: off)
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

    /// `curls`: whether the option may be curl's (a letter reqbench does not read); false for a
    /// long option curl does not have.
    func unknownOption(_ flag: String, at location: SourceLocation, curls: Bool = true) -> ImportError {
      if flag.hasPrefix("--"), let eq = flag.firstIndex(of: "="),
        CurlImporter.longOptions[String(flag[..<eq])] != nil
      {
        return error(
          "curl takes an option's value as the next word: write \(flag[..<eq]) "
            + "'\(flag[flag.index(after: eq)...])'", at: location)
      }
      return error(
        "\(flag) is not a curl option\(curls ? " reqbench can import" : ""); remove it to import the rest",
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
      _ option: Option, flag: String, value: ShellWord?, at location: SourceLocation, off: Bool = false
    )
      throws(ImportError)
    {
      let text = value?.text ?? ""
      let valueLocation = value?.location ?? location
      switch option {
      case .request:
        // Spelled as written (`-X wHat`, `-X PURGE`); a common method in another case is that
        // method (the workspace file reads `get` as GET), which curl would send as written.
        guard let parsed = HTTPMethod(parsing: text) else {
          throw error(HTTPMethod.notAMethod(text), at: valueLocation)
        }
        if parsed.rawValue != text {
          warnings.append(
            "\(file):\(valueLocation): \(flag) \(text) is sent as \(parsed.rawValue) (a workspace reads a common "
              + "method in any case); curl sends \(text) as written")
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
      case .get: get = !off
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
      case .insecure: draft.insecure = !off
      case .digest: draft.digest = true
      case .cacert:
        if let problem = RequestDraft.pathProblem(text) { throw error("\(flag) \(text): \(problem)", at: valueLocation) }
        draft.tls = draft.tls ?? TLSSettings()
        draft.tls?.caFile = text
      case .pinnedPublicKey:
        guard text.split(separator: ";").allSatisfy({ $0.hasPrefix("sha256//") }) else {
          throw error(
            "\(flag) \(JSONSerializer.quote(text)): reqbench pins sha256//BASE64 hashes of the public key, "
              + "not key files; compute one with openssl (see docs/requests.md, tls)", at: valueLocation)
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
      case .location: draft.followRedirects = !off
      case .maxRedirects:
        guard let count = Int(text), count >= 0 else {
          throw error("\(flag) needs a number of redirects, 0 or more", at: valueLocation)
        }
        draft.maxRedirects = count
      case .compressed: compressed = !off
      case .url: if let value { urls.append(value) }
      case .head: head = !off
      case .urlQuery:
        urlQueries.append(try urlQueryText(text, flag: flag, at: valueLocation))
        urlQueryFlag = urlQueryFlag ?? flag
      case .range:
        // curl sends `Range: bytes=…` with the value as written (`0-99`, `-500`, `0-1,5-9`).
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || "-,".contains($0)) }) else {
          throw error("\(flag) needs a byte range such as 0-99, found \(JSONSerializer.quote(text))", at: valueLocation)
        }
        // curl appends the dash a range without one lacks (`600` is `600-`).
        range = text.contains("-") ? text : text + "-"
      case .proxy:
        draft.proxy = try proxyURL(text, flag: flag, at: valueLocation)
      case .noProxy:
        draft.noProxy = text
      case .requestTarget:
        draft.requestTarget = try requestTarget(text, flag: flag, at: valueLocation)
      case .proxyUser:
        guard text.contains(":") else {
          throw error(
            "\(flag) needs user:password; without the password curl would ask for it, which an import cannot",
            at: valueLocation)
        }
        proxyUser = (text, flag, valueLocation)
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
  }

  /// Where `-O` saves: a folder, so the file takes the URL's last path segment, as with curl.
  static let remoteNameFolder = "downloads/"
}
