import RequestEngine
import Workspace

/// The blocks of a Bruno `.bru` file (a request, `folder.bru`, `collection.bru` or an
/// environment), as Bruno's own grammar (`bruno-lang`, `bruToJson`) reads them:
///
/// ```text
/// meta {
///   name: Get user
///   seq: 2
/// }
///
/// get {
///   url: {{host}}/users/:id
///   body: json
///   auth: inherit
/// }
///
/// headers {
///   accept: application/json
///   ~x-debug: 1
/// }
///
/// body:json {
///   {"name": "Ada"}
/// }
/// ```
/// - A block is `NAME {` … a line `}`; a list block is `NAME [` … `]` (`vars:secret [a, b]`).
/// - Dictionary blocks hold `key: value` lines; `~` before a key switches the pair off, a key may
///   be quoted (`"a:b": 1`, `\"` inside), a value may be a `'''` … `'''` text of several lines,
///   and `@annotation(…)` lines before a pair are skipped.
/// - Text blocks (`body:*` but the form ones, `script:*`, `tests`, `docs`, `example`) hold text,
///   its lines indented by two spaces in the file (taken off).
struct BruFile {
  struct Pair: Equatable {
    var key: String
    var value: String
    var enabled: Bool
    var line: Int
  }

  struct Block {
    var name: String
    var line: Int
    var pairs: [Pair] = []
    var text: String?
    var items: [String] = []
  }

  var blocks: [Block] = []

  func block(_ name: String) -> Block? { blocks.first { $0.name == name } }

  /// The value of `key` in the dictionary block `name` (the first pair switched on).
  func value(_ name: String, _ key: String) -> String? {
    block(name)?.pairs.first { $0.key == key && $0.enabled }?.value
  }

  /// The blocks whose text is read as text, not as pairs.
  static func isTextBlock(_ name: String) -> Bool {
    if name == "body:form-urlencoded" || name == "body:multipart-form" || name == "body:file"
      || name == "body:grpc" || name == "body:ws"
    {
      return false
    }
    return name == "body" || name.hasPrefix("body:") || name.hasPrefix("script:") || name == "tests"
      || name == "docs" || name == "example"
  }

  struct ParseError: Error {
    var line: Int
    var column: Int
    var message: String
  }

  /// Reads the blocks of `text`.
  static func parse(_ text: String) throws(ParseError) -> BruFile {
    let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
      .map { $0.hasSuffix("\r") ? String($0.dropLast()) : String($0) }
    var file = BruFile()
    var index = 0
    while index < lines.count {
      let line = lines[index]
      let number = index + 1
      index += 1
      let trimmed = line.trimmingSpaces()
      if trimmed.isEmpty { continue }
      guard let last = trimmed.last, last == "{" || last == "[" else {
        throw ParseError(
          line: number, column: 1,
          message: "expected a block such as \"meta {\" or \"get {\", found \(JSONSerializer.quote(trimmed))")
      }
      let name = trimmed.dropLast().trimmingSpaces()
      guard !name.isEmpty, !name.contains(" ") else {
        throw ParseError(line: number, column: 1, message: "a block needs a name before \"\(last)\"")
      }
      var block = Block(name: name, line: number)
      // The block's lines up to its closing line, `}` (or `]`) at the start of a line.
      let close = last == "{" ? "}" : "]"
      var body: [(number: Int, text: String)] = []
      var closed = trimmed.hasSuffix("{}") || trimmed.hasSuffix("[]")
      while !closed, index < lines.count {
        let text = lines[index]
        index += 1
        if text == close || (last == "[" && text.trimmingSpaces() == close) {
          closed = true
        } else {
          body.append((index, text))
        }
      }
      guard closed else {
        throw ParseError(line: number, column: 1, message: "the block \(name) has no closing \(close)")
      }
      if last == "[" {
        block.items = body.flatMap { $0.text.split(separator: ",") }.map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
      } else if isTextBlock(name) {
        // Blank lines after the opening line are not part of the text (Bruno's grammar).
        while body.first?.text.isEmpty == true { body.removeFirst() }
        block.text = body.map { $0.text.hasPrefix("  ") ? String($0.text.dropFirst(2)) : $0.text }
          .joined(separator: "\n")
      } else {
        block.pairs = try pairs(body)
      }
      file.blocks.append(block)
    }
    return file
  }

  /// The `key: value` lines of a dictionary block.
  static func pairs(_ lines: [(number: Int, text: String)]) throws(ParseError) -> [Pair] {
    var pairs: [Pair] = []
    var index = 0
    while index < lines.count {
      let (number, raw) = lines[index]
      index += 1
      var text = raw.trimmingSpaces()[...]
      if text.isEmpty { continue }
      if text.hasPrefix("@") {
        // An annotation (`@description('''…''')` may go over several lines).
        if text.contains("('''"), text.components(separatedBy: "'''").count < 3 {
          while index < lines.count {
            index += 1
            if lines[index - 1].text.contains("'''") { break }
          }
        }
        continue
      }
      var enabled = true
      if text.hasPrefix("~") {
        enabled = false
        text = text.dropFirst()
      }
      var key = ""
      if text.hasPrefix("\"") {
        text = text.dropFirst()
        var found = false
        while let character = text.first {
          text = text.dropFirst()
          if character == "\\", text.first == "\"" {
            key.append("\"")
            text = text.dropFirst()
          } else if character == "\"" {
            found = true
            break
          } else {
            key.append(character)
          }
        }
        guard found else { throw ParseError(line: number, column: 1, message: "the quoted key has no closing \"") }
        text = text.drop(while: { $0 == " " || $0 == "\t" })
        guard text.first == ":" else { throw ParseError(line: number, column: 1, message: "expected \":\" after the key") }
      } else {
        guard let colon = text.firstIndex(of: ":") else {
          throw ParseError(line: number, column: 1, message: "expected \"key: value\", found \(JSONSerializer.quote(raw.trimmingSpaces()))")
        }
        key = text[..<colon].trimmingSpaces()
        text = text[colon...]
      }
      var value = text.dropFirst().trimmingSpaces()
      if value == "[" {
        // A list (`tags: [` … `]`), its items one a line.
        var items: [String] = []
        while index < lines.count {
          let item = lines[index].text.trimmingSpaces()
          index += 1
          if item == "]" { break }
          if !item.isEmpty { items.append(item) }
        }
        value = items.joined(separator: ",")
      } else if value.hasPrefix("'''") {
        // A text of several lines, indented by four spaces, up to a line `'''`.
        let rest = value.dropFirst(3)
        if let end = rest.range(of: "'''") {
          value = String(rest[..<end.lowerBound])
        } else {
          var texts: [String] = []
          var ended = false
          while index < lines.count {
            let line = lines[index].text
            index += 1
            if line.trimmingSpaces().hasPrefix("'''") {
              ended = true
              break
            }
            texts.append(line.hasPrefix("    ") ? String(line.dropFirst(4)) : line.trimmingSpaces())
          }
          guard ended else { throw ParseError(line: number, column: 1, message: "the ''' text has no closing '''") }
          value = texts.joined(separator: "\n")
        }
      }
      pairs.append(Pair(key: key, value: value, enabled: enabled, line: number))
    }
    return pairs
  }
}
