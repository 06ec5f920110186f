/// An HTTP method: any token (RFC 9110 §9.1: letters, digits and `!#$%&'*+-.^_`|~`), sent as it
/// is spelled (methods are case-sensitive: `PURGE`, `PROPFIND`, a server's own `wHat`). The seven
/// `common` ones have names here (`.GET`…); `HTTPMethod(parsing:)` reads one the way every file
/// and command line is read: a common method whatever its case (`get` is GET), any other token
/// as written.
public struct HTTPMethod: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
  public let rawValue: String

  /// A method spelled `rawValue`; nil when it is not a token.
  public init?(rawValue: String) {
    guard Self.isToken(rawValue) else { return nil }
    self.rawValue = rawValue
  }

  private init(known: String) { rawValue = known }

  public static let GET = HTTPMethod(known: "GET")
  public static let POST = HTTPMethod(known: "POST")
  public static let PUT = HTTPMethod(known: "PUT")
  public static let PATCH = HTTPMethod(known: "PATCH")
  public static let DELETE = HTTPMethod(known: "DELETE")
  public static let HEAD = HTTPMethod(known: "HEAD")
  public static let OPTIONS = HTTPMethod(known: "OPTIONS")

  /// The methods the editor offers and messages list, in this order.
  public static let common: [HTTPMethod] = [.GET, .POST, .PUT, .PATCH, .DELETE, .HEAD, .OPTIONS]

  /// `text` as a method: a common one whatever its case (`get` → GET), else the token as
  /// written (`PURGE`, `wHat`); nil when it is not a token (empty, a space, a control character).
  public init?(parsing text: String) {
    if let known = Self.common.first(where: { $0.rawValue.caseInsensitiveCompare(text) == .orderedSame }) {
      self = known
    } else {
      self.init(rawValue: text)
    }
  }

  /// `word` as a method where a URL could stand instead (a request line typed or pasted, an
  /// `.http` line): a common method whatever its case, or a token of capital letters, digits,
  /// `-` and `_` (`PURGE`, `M-SEARCH`); nil for anything else (`example.com`, `:3000/users`).
  public init?(word: String) {
    if let known = Self.common.first(where: { $0.rawValue.caseInsensitiveCompare(word) == .orderedSame }) {
      self = known
      return
    }
    guard let first = word.utf8.first, (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first),
      word.utf8.allSatisfy({
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
          || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
      })
    else { return nil }
    self.init(rawValue: word)
  }

  /// What a method may be, for messages.
  public static let tokenRule = "a method is one word of letters, digits and !#$%&'*+-.^_`|~ (GET, POST, PURGE…)"

  /// `"FE TCH" is not a method: a method is one word of …`.
  public static func notAMethod(_ text: String) -> String {
    "\(JSONSerializer.quote(text)) is not a method: \(tokenRule)"
  }

  /// Whether `text` is an RFC 9110 token, at most 64 bytes.
  public static func isToken(_ text: String) -> Bool {
    guard !text.isEmpty, text.utf8.count <= 64 else { return false }
    return text.utf8.allSatisfy { byte in
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
        true
      default:
        "!#$%&'*+-.^_`|~".utf8.contains(byte)
      }
    }
  }

  /// Idempotent methods are retried by default and may be de-duplicated (RFC 9110 §9.2.2); a
  /// method of another name is not assumed to be.
  public var isIdempotent: Bool {
    switch self {
    case .GET, .HEAD, .PUT, .DELETE, .OPTIONS: true
    default: rawValue == "TRACE"
    }
  }

  public var description: String { rawValue }
}
