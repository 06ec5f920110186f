/// Text that goes onto the wire inside the request line or a header: a method, a URL, a header
/// name or value. A CR or LF there ends the line early, so a value holding `\r\nX-Injected: 1`
/// would add a header (or a whole request) of its author's choosing; a NUL cuts the C string curl
/// is handed. All three are refused wherever the text comes from, through this one check: when
/// the workspace file writes them literally (`WorkspaceReader`, an error at FILE:LINE:COLUMN) and
/// when a value fills them in at build time (variables, `--var`, secrets, chain captures: a usage
/// error naming the request, the field and where the value came from).
public enum WireText {
  /// Where the text goes, for the message.
  public enum Field: Sendable, Equatable {
    case method, url, headerName, headerValue

    var noun: String {
      switch self {
      case .method: "a method"
      case .url: "a URL"
      case .headerName: "a header name"
      case .headerValue: "a header value"
      }
    }
  }

  /// A forbidden character and where it is.
  public struct Forbidden: Sendable, Equatable {
    /// `CR`, `LF` or `NUL`.
    public var name: String
    /// 1-based, in characters (Unicode scalars) of the text.
    public var position: Int

    public init(name: String, position: Int) {
      self.name = name
      self.position = position
    }
  }

  /// The first CR, LF or NUL in `text`, or nil when it has none.
  public static func firstForbidden(in text: String) -> Forbidden? {
    // The common case, no control byte at all, is one pass over the UTF-8 bytes.
    guard text.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }) else { return nil }
    for (i, scalar) in text.unicodeScalars.enumerated() {
      switch scalar.value {
      case 0x0D: return Forbidden(name: "CR", position: i + 1)
      case 0x0A: return Forbidden(name: "LF", position: i + 1)
      case 0x00: return Forbidden(name: "NUL", position: i + 1)
      default: continue
      }
    }
    return nil
  }

  /// What is wrong with `text` as `field`, or nil when it is fine:
  /// `contains a line break (CR) at character 4; a header value must be one line without CR, LF or NUL`.
  public static func problem(in text: String, as field: Field) -> String? {
    guard let bad = firstForbidden(in: text) else { return nil }
    let what = bad.name == "NUL" ? "a NUL byte" : "a line break (\(bad.name))"
    return "contains \(what) at character \(bad.position); \(field.noun) must be one line without CR, LF or NUL"
  }
}
