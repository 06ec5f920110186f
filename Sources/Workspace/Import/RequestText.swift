import RequestEngine

/// Request drafts from a text typed at the TUI's `n` prompt or pasted into the request list:
/// a curl command, an `.http` block, a bare URL or `METHOD URL`, read by the importers
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
    /// One or more `.http`/`.rest` requests (`###` between them), read by `HTTPFileImporter`.
    case http
    /// A URL alone (absolute, relative to `baseURL`, or templated): a GET.
    case url
    /// `METHOD URL` on one line.
    case methodAndURL
  }

  /// What the text is: a curl command when its first word is `curl` (after an optional `$ `
  /// prompt); a URL or `METHOD URL` when it is one line of one word or a method and one word;
  /// otherwise an `.http` block.
  public static func kind(of text: String) -> Kind {
    let lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" })
      .map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
    var words = lines.first?.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init) ?? []
    if words.first == "$" { words.removeFirst() }
    if let first = words.first {
      let program = first.split(separator: "/").last.map(String.init) ?? first
      if program == "curl" || program == "curl.exe" { return .curl }
    }
    guard lines.count == 1 else { return .http }
    if words.count == 1 { return .url }
    if words.count == 2, HTTPMethod(rawValue: words[0].uppercased()) != nil { return .methodAndURL }
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
    switch kind {
    case .curl:
      return Drafts(kind: kind, imported: try CurlImporter.parse(text, file: source, readFile: readFile))
    case .http, .url, .methodAndURL:
      // A URL alone and `METHOD URL` are `.http` request lines.
      return Drafts(kind: kind, imported: try HTTPFileImporter.parse(text, file: source))
    }
  }

  /// What `drafts(from:)` read.
  public struct Drafts: Sendable, Equatable {
    public var kind: Kind
    /// The requests, in the text's order, and the `.http` file variables.
    public var imported: ImportedRequests
  }
}
