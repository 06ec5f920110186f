/// The one escaping of everything that reaches a terminal, so bytes from a server or a file can
/// never drive it: the TUI draws every cell through it (`ScreenBuffer.put`, `TextWidth`), and the
/// commands write every line, message and body shown on a terminal through it (`Output`,
/// `Terminal` in `Sources/reqbench`).
///
/// Made visible as printable ASCII:
/// - every C0 control (U+0000–U+001F), DEL (U+007F) and C1 control (U+0080–U+009F, among them
///   the one-byte CSI U+009B and OSC U+009D);
/// - the Unicode line and paragraph separators (U+2028, U+2029);
/// - the bidirectional controls, which reorder what is shown after them ("Trojan Source"): the
///   embeddings and overrides U+202A–U+202E, the isolates U+2066–U+2069, the marks U+200E,
///   U+200F and U+061C;
/// - in bytes (`visible(bytes:)`), every byte that is not part of valid UTF-8.
///
///     ControlEscaping.visible("\u{1b}[31mred")   // #"\x1b[31mred"#
///     ControlEscaping.visible("a\tb\r\n")        // #"a\tb\r\n"#
///     ControlEscaping.visible("\u{202e}evil")     // #"\u202eevil"#
///
/// `\n`, `\r` and `\t` use their short forms; other C0/C1 controls and DEL use `\xHH` (the code
/// point in two lowercase hex digits); the others `\uHHHH`; an invalid byte `\xHH` too. Everything
/// else, printable non-ASCII text included, is kept. `visible` escapes newlines and tabs too;
/// `visibleLines` keeps newlines (messages of several lines), `visible(bytes:)` keeps newlines
/// and tabs (a response body on a terminal), `jsonEscaped` makes the controls a JSON text still
/// holds (its serializer escapes only C0) `\uHHHH` escapes.
///
/// `ScreenBuffer.put` draws control characters in exactly these forms, except tabs, which it
/// expands to spaces.
public enum ControlEscaping {
  /// `text` with every control character replaced by its visible escape.
  public static func visible(_ text: String) -> String {
    escaping(text, keeping: nil)
  }

  /// `text` with every control character but the newline replaced by its visible escape: a
  /// message of several lines, each line safe.
  public static func visibleLines(_ text: String) -> String {
    escaping(text, keeping: "\n")
  }

  /// Bytes (a response body, a file) made safe for a terminal: valid UTF-8 kept, newlines and
  /// tabs kept, control characters escaped as in `visible`, a byte that is not valid UTF-8 as
  /// `\xHH` (`\xff`).
  public static func visible(bytes: some Collection<UInt8>) -> String {
    let bytes = Array(bytes)
    var out = ""
    out.reserveCapacity(bytes.count)
    var i = 0
    while i < bytes.count {
      let lead = bytes[i]
      if lead < 0x80 {
        let scalar = Unicode.Scalar(lead)
        if lead == 0x0A || lead == 0x09 || !isControl(scalar) {
          out.unicodeScalars.append(scalar)
        } else {
          out += escape(scalar)
        }
        i += 1
        continue
      }
      let length: Int
      switch lead {
      case 0xC2..<0xE0: length = 2
      case 0xE0..<0xF0: length = 3
      case 0xF0..<0xF5: length = 4
      default: length = 0
      }
      if length > 0, i + length <= bytes.count,
        bytes[(i + 1)..<(i + length)].allSatisfy({ $0 & 0xC0 == 0x80 }),
        let scalar = String(validating: bytes[i..<(i + length)], as: UTF8.self)?.unicodeScalars.first
      {
        if isControl(scalar) { out += escape(scalar) } else { out.unicodeScalars.append(scalar) }
        i += length
      } else {
        out += "\\x" + hex(UInt32(lead), digits: 2)
        i += 1
      }
    }
    return out
  }

  /// A serialized JSON text with the controls it may still hold raw inside its strings (DEL, C1,
  /// the separators, the bidirectional controls: JSON requires escaping only C0) written as
  /// `\uHHHH` escapes. The JSON means the same; a terminal showing it cannot be driven by it.
  public static func jsonEscaped(_ json: String) -> String {
    // C0 is left alone: inside strings the serializer escaped it, outside it is whitespace.
    func needsEscape(_ scalar: Unicode.Scalar) -> Bool { scalar.value >= 0x7F && isControl(scalar) }
    guard json.unicodeScalars.contains(where: needsEscape) else { return json }
    var out = ""
    out.reserveCapacity(json.utf8.count + 16)
    for scalar in json.unicodeScalars {
      if needsEscape(scalar) {
        out += "\\u" + hex(scalar.value, digits: 4)
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out
  }

  private static func escaping(_ text: String, keeping kept: Unicode.Scalar?) -> String {
    guard text.unicodeScalars.contains(where: { isControl($0) && $0 != kept }) else { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count + 8)
    for scalar in text.unicodeScalars {
      if isControl(scalar) && scalar != kept {
        result += escape(scalar)
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// Whether `scalar` is drawn escaped: C0, DEL, C1, U+2028 or U+2029, a bidirectional control.
  @inline(__always)
  public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    isControl(scalar.value)
  }

  @inline(__always)
  package static func isControl(_ value: UInt32) -> Bool {
    if value < 0x20 || (value >= 0x7F && value < 0xA0) { return true }
    guard value >= 0x061C else { return false }
    return value == 0x061C || value == 0x200E || value == 0x200F || value == 0x2028 || value == 0x2029
      || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
  }

  /// The visible escape of one control scalar (ASCII only).
  package static func escape(_ scalar: Unicode.Scalar) -> String {
    switch scalar.value {
    case 0x0A: return "\\n"
    case 0x0D: return "\\r"
    case 0x09: return "\\t"
    case let value where value > 0xFF: return "\\u" + hex(value, digits: 4)
    default: return "\\x" + hex(scalar.value, digits: 2)
    }
  }

  private static func hex(_ value: UInt32, digits: Int) -> String {
    let text = String(value, radix: 16)
    return text.count >= digits ? text : String(repeating: "0", count: digits - text.count) + text
  }

  /// The number of columns `escape(scalar)` takes.
  @inline(__always)
  package static func escapedWidth(_ value: UInt32) -> Int {
    switch value {
    case 0x0A, 0x0D, 0x09: 2
    case 0x100...: 6
    default: 4
    }
  }
}
