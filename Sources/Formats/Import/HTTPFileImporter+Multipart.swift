import RequestEngine
import Workspace

// The multipart bodies of `.http` requests: `--BOUNDARY` lines between parts, each part's
// `Content-Disposition` and `Content-Type` headers, then a `< path` line or its text.
extension HTTPFileImporter.Reader {
  typealias Line = HTTPFileImporter.Line

  /// The parts of a `multipart/form-data` body: `--BOUNDARY` lines between parts, `--BOUNDARY--`
  /// after the last; each part's headers, a blank line, then its content.
  func multipart(_ lines: [Line], contentType: String) throws(ImportError) -> [MultipartField] {
    let first = lines[0]
    guard let boundary = Self.parameters(contentType)["boundary"], !boundary.isEmpty else {
      throw error(
        "a multipart/form-data body needs a boundary: Content-Type: multipart/form-data; "
          + "boundary=BOUNDARY", line: first.number)
    }
    var fields: [MultipartField] = []
    // The part being read: its first line, its headers, its content once past the blank line.
    // Kept in separate variables and appended to in place: a copy of the part per line made
    // this quadratic in the part's lines (a 100 KB part took 22 s).
    var partStart: Line?
    var partHeaders: [(String, String)] = []
    var partContent: [Line]?
    func endPart() throws(ImportError) {
      if let start = partStart {
        fields.append(try field(start, partHeaders, partContent ?? []))
      }
      partStart = nil
      partHeaders = []
      partContent = nil
    }
    for line in lines {
      let text = line.text.trimmingSpaces()
      if text == "--" + boundary || text == "--" + boundary + "--" {
        try endPart()
        if text != "--" + boundary { return fields }  // the closing --BOUNDARY--
        partStart = line
        continue
      }
      guard partStart != nil else {
        if text.isEmpty { continue }
        throw error(
          "expected --\(boundary), the line that starts a part", line: line.number,
          column: Self.indent(line.text))
      }
      if partContent != nil {
        partContent?.append(line)
      } else if text.isEmpty {
        partContent = []
      } else {
        guard let colon = text.firstIndex(of: ":") else {
          throw error(
            "expected a part header \"Name: value\" or a blank line before the part's content",
            line: line.number, column: Self.indent(line.text))
        }
        partHeaders.append(
          (text[..<colon].trimmingSpaces(), text[text.index(after: colon)...].trimmingSpaces()))
      }
    }
    try endPart()
    return fields
  }

  /// One multipart part: `Content-Disposition: form-data; name="…"[; filename="…"]`, an optional
  /// `Content-Type`, and a `< path` line or text.
  func field(_ start: Line, _ headers: [(String, String)], _ content: [Line]) throws(ImportError)
    -> MultipartField
  {
    func fail(_ message: String) -> ImportError {
      error(message, line: start.number, column: Self.indent(start.text))
    }
    var field = MultipartField(name: "")
    var disposition: [String: String]?
    for (name, value) in headers {
      switch name.lowercased() {
      case "content-disposition":
        guard value.lowercased().hasPrefix("form-data") else {
          throw fail("a part's Content-Disposition must be form-data; name=\"…\"")
        }
        disposition = Self.parameters(value)
      case "content-type": field.type = value
      default:
        throw fail(
          "the part header \(JSONSerializer.quote(name)) is not supported; a part has "
            + "Content-Disposition and Content-Type")
      }
    }
    guard let name = disposition?["name"], !name.isEmpty else {
      throw fail("this part has no name: write Content-Disposition: form-data; name=\"field\"")
    }
    field.name = name
    let filename = disposition?["filename"]
    if let path = try fileReference(content) {
      field.file = path
      // The file's own name is what reqbench sends anyway.
      if let filename, filename != path.split(separator: "/").last.map(String.init) {
        field.filename = filename
      }
    } else {
      field.value = content.map(\.text).joined(separator: "\n")
      field.filename = filename
    }
    return field
  }

  /// The `;` parameters of a header value (`form-data; name="a"`, `multipart/form-data;
  /// boundary=x`), by lower-case name; quoted values unescaped (`\"`, `\\`).
  static func parameters(_ value: String) -> [String: String] {
    var out: [String: String] = [:]
    var rest = value.drop(while: { $0 != ";" })
    while rest.first == ";" {
      rest = rest.dropFirst().drop(while: { $0 == " " || $0 == "\t" })
      let key = rest.prefix(while: { $0 != "=" && $0 != ";" })
      rest = rest[key.endIndex...]
      guard rest.first == "=" else { continue }
      rest = rest.dropFirst()
      var text = ""
      if rest.first == "\"" {
        rest = rest.dropFirst()
        while let character = rest.first {
          rest = rest.dropFirst()
          if character == "\"" { break }
          if character == "\\", let next = rest.first {
            text.append(next)
            rest = rest.dropFirst()
          } else {
            text.append(character)
          }
        }
        rest = rest.drop(while: { $0 != ";" })
      } else {
        let token = rest.prefix(while: { $0 != ";" })
        text = token.trimmingSpaces()
        rest = rest[token.endIndex...]
      }
      out[key.trimmingSpaces().lowercased()] = text
    }
    return out
  }
}
