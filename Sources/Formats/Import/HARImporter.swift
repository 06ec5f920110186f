import RequestEngine
import Workspace

/// Reads the requests of a HAR 1.2 file (a browser's network panel, "Save all as HAR": Chrome,
/// Firefox) into request templates.
///
/// ```swift
/// let imported = try HARImporter.parse(bytes, file: "session.har", options: .init(filter: "/api/"))
/// imported.templates.map(\.name)  // ["get-api-users", "post-api-login"]
/// ```
/// - One request per entry (`log.entries[].request`), in the file's order; the responses are not
///   imported. Only http and https entries: `data:`, `blob:`, `ws:` and extension URLs are
///   skipped (a warning counts them).
/// - `filter`: only the entries whose URL contains it.
/// - The headers only a browser sends are left out: HTTP/2 pseudo-headers (`:authority`,
///   `:path`…), `sec-*` (fetch metadata, client hints), `Host`, `Connection` and the other
///   hop-by-hop fields, and what reqbench sets itself (`Content-Length`, `Accept-Encoding`);
///   `Cookie` too unless `cookies` (a browser session's cookies are secrets).
/// - The body from `postData`: its `text` by its `mimeType` (JSON, a form, else text); a form or
///   multipart given only as `params` becomes a form or multipart body; a multipart file part
///   cannot be imported (a HAR holds no file content) and is left out with a warning.
/// Errors point at the line and column of the offending value.
public enum HARImporter {
  public struct Options: Sendable, Equatable {
    /// Only the entries whose URL contains this.
    public var filter: String?
    /// Keep the `Cookie` header.
    public var cookies: Bool

    public init(filter: String? = nil, cookies: Bool = false) {
      self.filter = filter
      self.cookies = cookies
    }
  }

  /// HARP, a HAR wrapped in a JavaScript call (`onInputData({…});`, as Firebug's NetExport and
  /// HAR Viewer write it), is read as the HAR inside: the call's name, parentheses and semicolon
  /// become spaces, so every line and column of an error is still the file's own. Any other text
  /// is returned as it is.
  static func unwrappingHARP(_ bytes: [UInt8]) -> [UInt8] {
    func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
    func isNamePart(_ byte: UInt8) -> Bool {
      (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
        || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$") || byte == UInt8(ascii: ".")
    }
    var start = bytes.startIndex
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start += 3 }
    while start < bytes.endIndex, isSpace(bytes[start]) { start += 1 }
    var open = start
    while open < bytes.endIndex, isNamePart(bytes[open]) { open += 1 }
    guard open > start, open < bytes.endIndex, bytes[open] == UInt8(ascii: "(") else { return bytes }
    var close = bytes.endIndex
    while close > open, isSpace(bytes[close - 1]) { close -= 1 }
    if close > open, bytes[close - 1] == UInt8(ascii: ";") { close -= 1 }
    while close > open, isSpace(bytes[close - 1]) { close -= 1 }
    guard close > open + 1, bytes[close - 1] == UInt8(ascii: ")") else { return bytes }
    var unwrapped = bytes
    for index in start...open { unwrapped[index] = 0x20 }
    for index in (close - 1)..<bytes.endIndex where !isSpace(bytes[index]) { unwrapped[index] = 0x20 }
    return unwrapped
  }

  public static func parse(_ bytes: [UInt8], file: String, options: Options = Options()) throws(ImportError)
    -> ImportedRequests
  {
    let document: JSONDocument
    do {
      document = try JSONParser.parseDocument(HARImporter.unwrappingHARP(bytes))
    } catch {
      throw ImportError(file: file, location: error.location, message: "a HAR file is JSON, and this is not: \(error.message)")
    }
    func failure(_ message: String, _ path: JSONPath) -> ImportError {
      ImportError(file: file, location: document.location(of: path), message: message)
    }
    guard let log = document.root["log"], log.objectValue != nil else {
      throw failure("this is not a HAR file (no \"log\" object); save it from the browser's network panel (\"Save all as HAR\")", .root)
    }
    let logPath = JSONPath.root.appending("log")
    guard let entries = log["entries"]?.arrayValue else {
      throw failure("\"log\" needs an \"entries\" list", logPath)
    }
    var imported = ImportedRequests()
    var skipped = 0
    var filteredOut = 0
    var fileParts = 0
    var refused: [String] = []
    for (index, entry) in entries.enumerated() {
      let at = logPath.appending("entries").appending(index)
      do throws(ImportError) {
        if let request = try self.entry(
          entry, index: index, at: at, options: options, document: document, file: file,
          fileParts: &fileParts, warnings: &imported.warnings)
        {
          imported.requests.append(request)
        } else if let url = entry["request"]?["url"]?.stringValue,
          url.lowercased().hasPrefix("http://") || url.lowercased().hasPrefix("https://")
        {
          filteredOut += 1
        } else {
          skipped += 1
        }
      } catch {
        // One entry the import cannot read is left out, named; the others are imported.
        refused.append(error.description)
      }
    }
    imported.warnings += refused.map { $0 + "; this entry is not imported" }
    if imported.requests.isEmpty {
      let why =
        options.filter.map { "no entry's URL contains \(JSONSerializer.quote($0)) (of \(entries.count) entries)" }
        ?? (entries.isEmpty ? "the HAR file has no entries" : "no entry is an http or https request")
      let reasons = refused.isEmpty ? "" : " (" + refused.joined(separator: "; ") + ")"
      throw failure(
        (refused.isEmpty ? why : "no entry could be imported") + reasons + "; nothing was imported",
        logPath.appending("entries"))
    }
    if skipped > 0 {
      imported.warnings.append("\(file): \(skipped) entr\(skipped == 1 ? "y is" : "ies are") not http or https (data:, blob:, ws:…); left out")
    }
    if filteredOut > 0 {
      imported.warnings.append("\(file): \(filteredOut) entr\(filteredOut == 1 ? "y does" : "ies do") not match --filter; left out")
    }
    if fileParts > 0 {
      imported.warnings.append(
        "\(file): \(fileParts) multipart file part\(fileParts == 1 ? "" : "s") left out (a HAR holds no file content); add them with a \"file\" part")
    }
    return imported
  }

  /// The request of one entry; nil for an entry left out on purpose (not http or https, or not
  /// matching the filter). What is wrong with it is an error at its line and column.
  static func entry(
    _ entry: JSONValue, index: Int, at: JSONPath, options: Options, document: JSONDocument, file: String,
    fileParts: inout Int, warnings: inout [String]
  ) throws(ImportError) -> ImportedRequest? {
    func failure(_ message: String, _ path: JSONPath) -> ImportError {
      ImportError(file: file, location: document.location(of: path), message: message)
    }
    guard let request = entry["request"], request.objectValue != nil else {
      throw failure("entry \(index + 1) has no \"request\" object", at)
    }
    let requestPath = at.appending("request")
    guard let url = request["url"]?.stringValue else {
      let urlPath = request["url"] == nil ? requestPath : requestPath.appending("url")
      throw failure("entry \(index + 1): the request has no \"url\" string", urlPath)
    }
    let lower = url.lowercased()
    guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else { return nil }
    if let filter = options.filter, !url.contains(filter) { return nil }
    var draft = RequestDraft()
    let methodName = request["method"]?.stringValue ?? "GET"
    guard let method = HTTPMethod(parsing: methodName) else {
      throw failure("entry \(index + 1): " + HTTPMethod.notAMethod(methodName), requestPath.appending("method"))
    }
    draft.method = method
    // The URL as the browser sent it: its query stays as written (`queryString` is the same
    // parameters decoded, and re-encoding them could change the bytes).
    draft.setURLAsWritten(url)
    if let headers = request["headers"] {
      guard let list = headers.arrayValue else {
        throw failure("entry \(index + 1): \"headers\" should be a list of {\"name\", \"value\"}", requestPath.appending("headers"))
      }
      var fields: [(name: String, value: String)] = []
      for (i, header) in list.enumerated() {
        let headerPath = requestPath.appending("headers").appending(i)
        guard let name = header["name"]?.stringValue, let value = header["value"]?.stringValue else {
          throw failure("entry \(index + 1): a header needs a \"name\" and a \"value\" string", headerPath)
        }
        if leftOut(header: name, cookies: options.cookies) { continue }
        guard WorkspaceReader.isValidHeaderName(name) else {
          // WebPageTest writes the request line as a header of that name.
          let location = document.location(of: headerPath).map { ":\($0)" } ?? ""
          warnings.append(
            "\(file)\(location): entry \(index + 1) (\(methodName) \(url)): the header \(JSONSerializer.quote(name)) "
              + "is not a header name (letters, digits and !#$%&'*+-.^_`|~); left out, the entry's other headers are imported")
          continue
        }
        fields.append((name, value))
      }
      draft.addHeaders(fields)
      // The entry's headers are all that was sent: no Accept, none sent (curl adds `*/*`; an
      // empty value keeps it from doing so).
      if !fields.contains(where: { $0.name.caseInsensitiveCompare("Accept") == .orderedSame }) {
        draft.headers["Accept"] = ""
      }
    }
    if let postData = request["postData"], postData != .null {
      try body(postData, into: &draft, fileParts: &fileParts) { message in
        failure("entry \(index + 1): \(message)", requestPath.appending("postData"))
      }
    }
    let template = draft.template(name: RequestDraft.derivedName(method: method, url: draft.url))
    if let problem = RequestDraft.problem(in: template) {
      throw failure("entry \(index + 1): it would not load in a workspace: \(problem)", requestPath)
    }
    return ImportedRequest(template: template, location: document.location(of: at))
  }

  /// The headers a browser sends that a request in a workspace should not: pseudo-headers,
  /// `sec-*`, hop-by-hop fields and `Host` (curl writes its own), what reqbench sets itself, and
  /// `Cookie` unless asked for.
  static func leftOut(header name: String, cookies: Bool) -> Bool {
    let lower = name.lowercased()
    if lower.hasPrefix(":") || lower.hasPrefix("sec-") || RequestDraft.isLeftOut(header: name) { return true }
    if lower == "cookie" { return !cookies }
    return ["host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "upgrade"].contains(lower)
  }

  /// The body as the browser sent it: `postData.text` as written, its type the entry's
  /// `Content-Type` header (else `mimeType`); a form or multipart given only as `params` is built
  /// from them. An empty `postData` (no text, no params, as Firefox and Insomnia write for a
  /// request without a body) is no body and adds no `Content-Type`.
  private static func body(
    _ postData: JSONValue, into draft: inout RequestDraft, fileParts: inout Int,
    _ failure: (String) -> ImportError
  ) throws(ImportError) {
    guard postData.objectValue != nil else { throw failure("\"postData\" should be an object") }
    let mimeType = postData["mimeType"]?.stringValue ?? ""
    let text = postData["text"]?.stringValue ?? ""
    let params = postData["params"]?.arrayValue ?? []
    guard !text.isEmpty || !params.isEmpty else { return }
    if draft.headers["Content-Type"] == nil, !mimeType.isEmpty { draft.headers["Content-Type"] = mimeType }
    let media = RequestDraft.mediaType(draft.headers["Content-Type"] ?? mimeType)
    if text.isEmpty {
      var pairs: [(String, String)] = []
      var fields: [MultipartField] = []
      for param in params {
        guard let name = param["name"]?.stringValue else { throw failure("a \"params\" entry needs a \"name\"") }
        if param["fileName"]?.stringValue != nil {
          fileParts += 1
          continue
        }
        let value = param["value"]?.stringValue ?? ""
        pairs.append((name, value))
        fields.append(MultipartField(name: name, value: value))
      }
      if media == "multipart/form-data" {
        draft.setMultipart(fields)
      } else {
        draft.setBody(QueryEncoder.encode(pairs), defaultContentType: RequestDraft.formType)
      }
      return
    }
    // The text as written, `{{` in it literal; its type the header (kept where the browser
    // sent it), none when the browser sent none.
    draft.body = .text(Template.literal(text), contentType: nil)
    if draft.headers["Content-Type"] == nil { draft.headers["Content-Type"] = "" }
  }
}
