/// Text inside XML: the SVG screenshots and the JUnit reports of `run --junit` both write it
/// through this one function.
public enum XMLText {
  /// `text` safe in XML content and attribute values; characters XML 1.0 forbids (or that are
  /// C1 controls) become U+FFFD.
  public static func escaped(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for scalar in text.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&apos;"
      default:
        let v = scalar.value
        if (v < 0x20 && v != 0x09 && v != 0x0A && v != 0x0D) || (v >= 0x7F && v < 0xA0)
          || v == 0xFFFE || v == 0xFFFF
        {
          out += "\u{FFFD}"
        } else {
          out.unicodeScalars.append(scalar)
        }
      }
    }
    return out
  }
}
