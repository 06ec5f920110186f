import RequestEngine
import Workspace

/// One word of a shell command after quote removal, and where it starts in the input.
public struct ShellWord: Sendable, Equatable, CustomStringConvertible {
  public var text: String
  public var location: SourceLocation
  /// True when the word was written without quotes, escapes or variables, so column `n` of the
  /// input is character `n` of `text` (errors inside a word like `-sSZ` can point at the `Z`).
  public var isPlain: Bool

  public init(text: String, location: SourceLocation, isPlain: Bool) {
    self.text = text
    self.location = location
    self.isPlain = isPlain
  }

  /// Where character `offset` of the word is: exact for a plain word, the word's start otherwise.
  public func location(at offset: Int) -> SourceLocation {
    isPlain ? SourceLocation(line: location.line, column: location.column + offset) : location
  }

  public var description: String { text }
}

/// A shell text the importer cannot read, and where.
public struct ShellSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String
  public var location: SourceLocation

  public init(message: String, location: SourceLocation) {
    self.message = message
    self.location = location
  }

  public var description: String { "\(location): \(message)" }
}

/// Splits a shell text into commands and words the way `sh`/`bash` would, without running
/// anything: what "Copy as cURL" and API docs paste.
///
/// ```swift
/// try ShellWords.split("curl -H 'a: b' \\\n  \"$HOST/x\"; curl y")
/// // [["curl", "-H", "a: b", "{{HOST}}/x"], ["curl", "y"]]
/// ```
/// - Quotes: `'…'` literal; `"…"` with `\` escaping only `$ \` " \` and newline; `$'…'` ANSI-C
///   escapes (`\n`, `\'`, `\x41`, `\u00e9`, `\101`, …) as Chrome writes them.
/// - Outside quotes a backslash escapes the next character; backslash-newline continues the line,
///   and so does a `^` at the end of a line (Windows cmd copies; their `^"` quoting is an error
///   that asks for the bash copy).
/// - A newline, `;` or `&&` ends a command; `#` at the start of a word starts a comment.
/// - `$NAME` and `${NAME}` (outside single quotes) become reqbench placeholders, `{{NAME}}`.
/// - Anything that would run something or redirect (`$(…)`, backticks, `|`, `<`, `>`, a lone `&`,
///   `(`, `)`) is an error: the text is read, never run.
public enum ShellWords {
  public static func split(_ text: String) throws(ShellSyntaxError) -> [[ShellWord]] {
    var scanner = Scanner(Array(text.unicodeScalars))
    return try scanner.scan()
  }

  private struct Scanner {
    let scalars: [Unicode.Scalar]
    var index = 0
    var line = 1
    var column = 1

    var finished: [[ShellWord]] = []
    var words: [ShellWord] = []
    /// The word being read: its bytes (ANSI-C escapes may produce any byte), start and plainness.
    var word: [UInt8]?
    var wordStart = SourceLocation(line: 1, column: 1)
    var plain = true

    init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

    var here: SourceLocation { SourceLocation(line: line, column: column) }

    func peek(_ offset: Int = 0) -> Unicode.Scalar? {
      index + offset < scalars.count ? scalars[index + offset] : nil
    }

    mutating func advance() {
      if scalars[index] == "\n" {
        line += 1
        column = 1
      } else {
        column += 1
      }
      index += 1
    }

    mutating func startWord() {
      if word == nil {
        word = []
        wordStart = here
        plain = true
      }
    }

    mutating func append(_ scalar: Unicode.Scalar) {
      word?.append(contentsOf: Array(String(Character(scalar)).utf8))
    }

    mutating func append(_ text: String) { word?.append(contentsOf: Array(text.utf8)) }

    mutating func endWord() throws(ShellSyntaxError) {
      guard let bytes = word else { return }
      word = nil
      if bytes.contains(0) {
        throw ShellSyntaxError(
          message: "this word contains a NUL byte, which no command can receive",
          location: wordStart)
      }
      guard let text = String(validating: bytes, as: UTF8.self) else {
        throw ShellSyntaxError(
          message: "this word is not valid UTF-8 (check its \\x escapes)", location: wordStart)
      }
      words.append(ShellWord(text: text, location: wordStart, isPlain: plain))
    }

    mutating func endCommand() throws(ShellSyntaxError) {
      try endWord()
      if !words.isEmpty { finished.append(words) }
      words = []
    }

    /// True when the characters from `offset` on are blanks up to a newline or the end.
    func onlyBlanksToLineEnd(from offset: Int) -> Bool {
      var i = index + offset
      while i < scalars.count {
        switch scalars[i] {
        case "\n": return true
        case " ", "\t", "\r": i += 1
        default: return false
        }
      }
      return true
    }

    /// Skips blanks and the newline after them (a line continuation).
    mutating func skipToNextLine() {
      while let c = peek(), c != "\n" { advance() }
      if peek() == "\n" { advance() }
    }

    mutating func scan() throws(ShellSyntaxError) -> [[ShellWord]] {
      while let c = peek() {
        switch c {
        case " ", "\t":
          try endWord()
          advance()
        case "\r":
          try endWord()
          advance()
        case "\n":
          try endCommand()
          advance()
        case ";":
          try endCommand()
          advance()
        case "#" where word == nil:
          while let c = peek(), c != "\n" { advance() }
        case "\\":
          if peek(1) == "\n" || (peek(1) == "\r" && peek(2) == "\n") {
            skipToNextLine()  // continuation: the word, if any, goes on
          } else if let next = peek(1) {
            startWord()
            plain = false
            advance()
            append(next)
            advance()
          } else {
            startWord()
            append("\\")
            advance()
          }
        case "^" where onlyBlanksToLineEnd(from: 1):
          skipToNextLine()
        case "^" where peek(1) == "\"":
          throw ShellSyntaxError(
            message: "this is Windows cmd quoting (^\"); copy the request as cURL (bash) instead",
            location: here)
        case "'":
          startWord()
          plain = false
          try singleQuoted()
        case "\"":
          startWord()
          plain = false
          try doubleQuoted()
        case "$":
          startWord()
          try dollar(inDoubleQuotes: false)
        case "&" where peek(1) == "&":
          try endCommand()
          advance()
          advance()
        case "`":
          throw ShellSyntaxError(
            message: "command substitution (`…`) is not supported; run it and paste its output",
            location: here)
        case "|", "&", "<", ">", "(", ")":
          throw ShellSyntaxError(
            message: "the shell operator \(c) is not supported; import the curl command alone",
            location: here)
        default:
          startWord()
          append(c)
          advance()
        }
      }
      try endCommand()
      return finished
    }

    mutating func singleQuoted() throws(ShellSyntaxError) {
      let start = here
      advance()
      while let c = peek() {
        advance()
        if c == "'" { return }
        append(c)
      }
      throw ShellSyntaxError(message: "this single quote is never closed", location: start)
    }

    mutating func doubleQuoted() throws(ShellSyntaxError) {
      let start = here
      advance()
      while let c = peek() {
        switch c {
        case "\"":
          advance()
          return
        case "\\":
          advance()
          guard let next = peek() else { break }
          switch next {
          case "\n": advance()
          case "$", "`", "\"", "\\":
            append(next)
            advance()
          default:
            append("\\")
          }
        case "$":
          try dollar(inDoubleQuotes: true)
        case "`":
          throw ShellSyntaxError(
            message: "command substitution (`…`) is not supported; run it and paste its output",
            location: here)
        default:
          append(c)
          advance()
        }
      }
      throw ShellSyntaxError(message: "this double quote is never closed", location: start)
    }

    /// `$'…'`, `$"…"`, `${NAME}`, `$NAME`, `$(…)`; any other `$` is itself.
    mutating func dollar(inDoubleQuotes: Bool) throws(ShellSyntaxError) {
      let start = here
      let next = peek(1)
      if !inDoubleQuotes, next == "'" {
        plain = false
        advance()
        try ansiQuoted()
      } else if !inDoubleQuotes, next == "\"" {
        plain = false
        advance()
        try doubleQuoted()
      } else if next == "(" {
        throw ShellSyntaxError(
          message: "command substitution $(…) is not supported; run it and paste its output",
          location: start)
      } else if next == "{" {
        var name = ""
        var i = 2
        while let c = peek(i), c != "}" {
          name.unicodeScalars.append(c)
          i += 1
        }
        guard peek(i) == "}", isVariableName(name) else {
          throw ShellSyntaxError(
            message: "only ${NAME} is supported here; write the value instead", location: start)
        }
        for _ in 0...i { advance() }
        plain = false
        append("{{\(name)}}")
      } else if let first = next, isNameStart(first) {
        advance()
        var name = ""
        while let c = peek(), isNameStart(c) || ("0"..."9").contains(c) {
          name.unicodeScalars.append(c)
          advance()
        }
        plain = false
        append("{{\(name)}}")
      } else {
        append("$")
        advance()
      }
    }

    func isNameStart(_ c: Unicode.Scalar) -> Bool {
      c == "_" || ("a"..."z").contains(c) || ("A"..."Z").contains(c)
    }

    func isVariableName(_ name: String) -> Bool {
      guard let first = name.unicodeScalars.first, isNameStart(first) else { return false }
      return name.unicodeScalars.allSatisfy { isNameStart($0) || ("0"..."9").contains($0) }
    }

    /// The body of `$'…'` (the opening quote is next).
    mutating func ansiQuoted() throws(ShellSyntaxError) {
      let start = here
      advance()
      while let c = peek() {
        advance()
        switch c {
        case "'": return
        case "\\":
          guard let e = peek() else { continue }
          advance()
          switch e {
          case "a": word?.append(0x07)
          case "b": word?.append(0x08)
          case "e", "E": word?.append(0x1B)
          case "f": word?.append(0x0C)
          case "n": word?.append(0x0A)
          case "r": word?.append(0x0D)
          case "t": word?.append(0x09)
          case "v": word?.append(0x0B)
          case "\\", "'", "\"", "?": append(e)
          case "0"..."7":
            var value = e.value - 0x30
            for _ in 0..<2 {
              guard let d = peek(), ("0"..."7").contains(d) else { break }
              value = value * 8 + d.value - 0x30
              advance()
            }
            word?.append(UInt8(truncatingIfNeeded: value))
          case "x":
            guard let value = hexDigits(max: 2) else {
              append("\\x")
              continue
            }
            word?.append(UInt8(truncatingIfNeeded: value))
          case "u", "U":
            guard let value = hexDigits(max: e == "u" ? 4 : 8) else {
              append("\\")
              append(e)
              continue
            }
            guard let scalar = Unicode.Scalar(value) else {
              throw ShellSyntaxError(
                message: "\\\(e) escape names no character",
                location: SourceLocation(line: line, column: column - 2))
            }
            append(scalar)
          case "c":
            guard let control = peek() else { continue }
            advance()
            word?.append(UInt8(truncatingIfNeeded: control.value & 0x1F))
          default:
            append("\\")
            append(e)
          }
        default:
          append(c)
        }
      }
      throw ShellSyntaxError(message: "this $'…' quote is never closed", location: start)
    }

    mutating func hexDigits(max: Int) -> UInt32? {
      var value: UInt32 = 0
      var count = 0
      while count < max, let c = peek(), let digit = hex(c) {
        value = value * 16 + digit
        count += 1
        advance()
      }
      return count > 0 ? value : nil
    }

    func hex(_ c: Unicode.Scalar) -> UInt32? {
      switch c {
      case "0"..."9": c.value - 0x30
      case "a"..."f": c.value - 0x61 + 10
      case "A"..."F": c.value - 0x41 + 10
      default: nil
      }
    }
  }
}

/// One command line an importer reads (`curl …`, `http …`): its first word and the words after.
struct ImportedCommand {
  var program: ShellWord
  var arguments: ArraySlice<ShellWord>
}

extension ShellWords {
  /// The name a command's first word runs, without its folder (`curl` for `/usr/bin/curl`).
  static func programName(_ word: String) -> String {
    word.split(separator: "/").last.map(String.init) ?? word
  }

  /// The commands of `text`, each without a copied shell prompt (`$ curl …`), each run by a
  /// program `accepts` takes (by `programName`). A command of another program, or none, is an
  /// error naming `command` (`"curl command"`, after `article`) and how one starts (`starts`).
  static func commands(
    _ text: String, file: String, command: String, article: String = "a", starts: String,
    accepts: (String) -> Bool
  ) throws(ImportError) -> [ImportedCommand] {
    let lines: [[ShellWord]]
    do {
      lines = try split(text)
    } catch {
      throw ImportError(file: file, location: error.location, message: error.message)
    }
    var commands: [ImportedCommand] = []
    for line in lines {
      var words = line[...]
      if words.first?.text == "$", words.count > 1 { words = words.dropFirst() }
      guard let first = words.first else { continue }
      guard accepts(programName(first.text)) else {
        throw ImportError(
          file: file, location: first.location,
          message: "expected \(article) \(command), found \(JSONSerializer.quote(first.text)); every command must start with \(starts)")
      }
      commands.append(ImportedCommand(program: first, arguments: words.dropFirst()))
    }
    guard !commands.isEmpty else {
      throw ImportError(
        file: file, location: .start, message: "there is no \(command) here; paste a command that starts with \(starts)")
    }
    return commands
  }
}
