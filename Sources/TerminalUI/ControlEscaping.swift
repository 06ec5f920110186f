/// Makes control characters visible, so bytes from a server can never drive the terminal.
///
/// Every C0 control (U+0000–U+001F), DEL (U+007F), C1 control (U+0080–U+009F) and the Unicode
/// line and paragraph separators (U+2028, U+2029) become printable ASCII:
///
///     ControlEscaping.visible("\u{1b}[31mred")   // #"\x1b[31mred"#
///     ControlEscaping.visible("a\tb\r\n")        // #"a\tb\r\n"#
///
/// `\n`, `\r` and `\t` use their short forms; other C0/C1 controls and DEL use `\xHH` (the code
/// point in two lowercase hex digits); the separators use `\u2028` and `\u2029`. Everything else,
/// including printable non-ASCII text, is kept. This function escapes newlines and tabs too:
/// callers that show several lines split the text into lines first.
///
/// `ScreenBuffer.put` draws control characters in exactly these forms, except tabs, which it
/// expands to spaces.
public enum ControlEscaping {
  /// `text` with every control character replaced by its visible escape.
  public static func visible(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count + 8)
    for scalar in text.unicodeScalars {
      if isControl(scalar) {
        result += escape(scalar)
      } else {
        result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  /// Whether `scalar` is drawn escaped: C0, DEL, C1, U+2028 or U+2029.
  @inline(__always)
  static func isControl(_ scalar: Unicode.Scalar) -> Bool {
    isControl(scalar.value)
  }

  @inline(__always)
  static func isControl(_ value: UInt32) -> Bool {
    value < 0x20 || (value >= 0x7F && value < 0xA0) || value == 0x2028 || value == 0x2029
  }

  /// The visible escape of one control scalar (ASCII only).
  static func escape(_ scalar: Unicode.Scalar) -> String {
    switch scalar.value {
    case 0x0A: return "\\n"
    case 0x0D: return "\\r"
    case 0x09: return "\\t"
    case 0x2028: return "\\u2028"
    case 0x2029: return "\\u2029"
    default:
      let hex = String(scalar.value, radix: 16)
      return (hex.count == 1 ? "\\x0" : "\\x") + hex
    }
  }

  /// The number of columns `escape(scalar)` takes.
  @inline(__always)
  static func escapedWidth(_ value: UInt32) -> Int {
    switch value {
    case 0x0A, 0x0D, 0x09: 2
    case 0x2028, 0x2029: 6
    default: 4
    }
  }
}
