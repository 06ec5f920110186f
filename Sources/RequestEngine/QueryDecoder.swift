import JSON

/// Reads query strings and `application/x-www-form-urlencoded` bodies back into parameters: the
/// inverse of `QueryEncoder`, for importers.
///
/// ```swift
/// QueryDecoder.object("page=2&q=caf%C3%A9", form: false)  // {"page": "2", "q": "café"}
/// QueryDecoder.object("a=1&a=2", form: false)              // nil: a JSON object has one "a"
/// ```
/// An importer keeps a query (or body) as text when it does not decode cleanly, so nothing is lost.
public enum QueryDecoder {
  /// The pairs of `text` in order, values percent-decoded; a key without `=` has a nil value.
  /// Empty pieces (`a=1&&b=2`, a trailing `&`) are skipped. In a form (`form: true`) `+` is a
  /// space. Nil when a `%` escape is malformed or the decoded bytes are not UTF-8.
  public static func pairs(_ text: String, form: Bool) -> [(key: String, value: String?)]? {
    var pairs: [(key: String, value: String?)] = []
    for piece in text.split(separator: "&", omittingEmptySubsequences: true) {
      if let eq = piece.firstIndex(of: "=") {
        guard let key = decode(piece[..<eq], form: form),
          let value = decode(piece[piece.index(after: eq)...], form: form)
        else { return nil }
        pairs.append((key, value))
      } else {
        guard let key = decode(piece, form: form) else { return nil }
        pairs.append((key, nil))
      }
    }
    return pairs
  }

  /// The parameters as a `query` or `form` object, or nil when they do not decode cleanly: a
  /// malformed escape, a repeated or empty key, a `+` in a URL query (a space to some servers, a
  /// plus to others), and in a form a key without `=`. A bare query key becomes `null`, which
  /// `QueryEncoder` writes back as a bare key.
  public static func object(_ text: String, form: Bool) -> JSONObject? {
    if !form && text.contains("+") { return nil }
    guard let pairs = pairs(text, form: form) else { return nil }
    var members: [(key: String, value: JSONValue)] = []
    var seen = Set<String>()
    for pair in pairs {
      guard !pair.key.isEmpty, seen.insert(pair.key).inserted else { return nil }
      if let value = pair.value {
        members.append((pair.key, .string(value)))
      } else if form {
        return nil
      } else {
        members.append((pair.key, .null))
      }
    }
    return JSONObject(distinctKeys: members)
  }

  /// The parameters of a URL's query string whose (decoded) name says it holds a key
  /// (`CredentialMasking.isKeyName`): each with its place among the `&`-separated pieces and
  /// its name and value as written (percent-encoded).
  ///
  /// ```swift
  /// QueryDecoder.keyParameters(in: "page=2&api_key=ak%2F1")  // [(piece: 1, name: "api_key", value: "ak%2F1")]
  /// ```
  public static func keyParameters(in query: String) -> [(piece: Int, name: String, value: String)] {
    var found: [(piece: Int, name: String, value: String)] = []
    for (index, piece) in query.split(separator: "&", omittingEmptySubsequences: false).enumerated() {
      guard let eq = piece.firstIndex(of: "=") else { continue }
      let name = piece[..<eq]
      guard CredentialMasking.isKeyName(decode(name, form: false) ?? String(name)) else { continue }
      found.append((index, String(name), String(piece[piece.index(after: eq)...])))
    }
    return found
  }

  /// Percent-decodes one key or value; nil for a bad escape or bytes that are not UTF-8.
  public static func decode(_ text: Substring, form: Bool) -> String? {
    guard
      text.utf8.contains(where: { $0 == UInt8(ascii: "%") || (form && $0 == UInt8(ascii: "+")) })
    else { return String(text) }
    var bytes: [UInt8] = []
    var utf8 = text.utf8[...]
    while let byte = utf8.popFirst() {
      switch byte {
      case UInt8(ascii: "%"):
        guard let high = utf8.popFirst().flatMap(hexValue),
          let low = utf8.popFirst().flatMap(hexValue)
        else { return nil }
        bytes.append(high << 4 | low)
      case UInt8(ascii: "+") where form:
        bytes.append(UInt8(ascii: " "))
      default:
        bytes.append(byte)
      }
    }
    return String(validating: bytes, as: UTF8.self)
  }

  /// The value of one hex digit (`0`–`9`, `a`–`f`, `A`–`F`); nil for any other byte.
  package static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
