import RequestEngine
import Workspace

// The body options of a curl command: `-F`/`--form-string` parts as curl splits them (`FormSpec`),
// the text each data option adds (`-d`, `--data-*`, `--data-urlencode`) and the `@file`s they read.
// The command reader that calls these is in CurlImporter.swift.

extension CurlImporter.CommandReader {
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
      let spec: CurlImporter.FormSpec
      do {
        spec = try CurlImporter.FormSpec(isFile || isRead ? content.dropFirst() : content, files: isFile)
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
    func dataText(_ kind: CurlImporter.DataKind, _ text: String, flag: String, at location: SourceLocation)
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
        let separator = text.firstIndex(where: { $0 == "=" || $0 == "@" })
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
}

extension CurlImporter {
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

  /// Percent-encodes as curl's `--data-urlencode` does: everything but letters, digits and `-._~`,
  /// a space as `+` (curl 7.88 turns its `%20` into `+`).
  static func escape(_ text: String) -> String {
    var out = ""
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: " "):
        out += "+"
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
