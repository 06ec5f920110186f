import RequestEngine
import Workspace

/// What an input is, by what it starts with, so that a file given to the wrong importer is named
/// with the command that reads it (`reqbench import http x.bru`: "this is a Bruno request file;
/// read it with reqbench import bruno").
extension ImportFormat {
  /// The format `bytes` are written in, when they say so clearly: a `.bru` file's first block,
  /// a JSON or YAML document's top-level keys (Insomnia, Postman, HAR, OpenAPI), a curl or
  /// HTTPie command's first word; nil otherwise.
  public static func recognize(_ bytes: [UInt8]) -> ImportFormat? {
    var start = bytes[...]
    if start.starts(with: [0xEF, 0xBB, 0xBF]) { start = start.dropFirst(3) }
    let head = String(decoding: start.prefix(4096), as: UTF8.self)
    let trimmed = head.drop(while: { $0.isWhitespace })
    if trimmed.hasPrefix("{"), !trimmed.hasPrefix("{{") { return detect(json: Array(start)) }
    if BrunoImporter.looksLikeBru(head) { return .bruno }
    // YAML documents: their top-level keys, at the start of a line.
    let lines = head.split(whereSeparator: \.isNewline).map(String.init)
    let keys = lines.filter { !$0.hasPrefix(" ") && !$0.hasPrefix("#") && !$0.hasPrefix("-") }
    if keys.contains(where: { $0.hasPrefix("type: collection.insomnia.rest/") || $0.hasPrefix("_type: export") }) {
      return .insomnia
    }
    if keys.contains(where: { $0.hasPrefix("openapi:") || $0.hasPrefix("swagger:") }) { return .openapi }
    var words = lines.first { !$0.trimmingSpaces().isEmpty }?.split(separator: " ").map(String.init) ?? []
    if words.first == "$" { words.removeFirst() }
    if let first = words.first {
      let program = ShellWords.programName(first)
      if CurlImporter.isCurl(program) { return .curl }
      if words.count >= 2, HTTPieImporter.programs[program] != nil { return .httpie }
    }
    return nil
  }

  /// What a user calls an input of this format.
  var inputName: String {
    switch self {
    case .curl: "a curl command"
    case .httpie: "an HTTPie command"
    case .http: "an .http file"
    case .postman: "a Postman collection or environment"
    case .har: "a HAR file"
    case .openapi: "an OpenAPI description"
    case .bruno: "a Bruno request file"
    case .insomnia: "an Insomnia export"
    }
  }

  /// `error` of this format's importer, or, when `bytes` are clearly of another format, an error
  /// saying which and the command that reads them.
  func explaining(_ error: ImportError, bytes: [UInt8]) -> ImportError {
    guard let other = ImportFormat.recognize(bytes), other != self else { return error }
    return ImportError(
      file: error.file, location: nil,
      message: "this is \(other.inputName), not \(inputName); read it with reqbench import \(other.rawValue)")
  }
}
