import RequestEngine
import Workspace

/// What HTTPie 3 puts on the wire for a command, written out so an imported request sends the
/// same bytes: the URL as Python's `requests` prepares it, the JSON text `json.dumps` writes, the
/// form text `urlencode` writes, and the headers in the order HTTPie sends them.
enum HTTPieWire {
  // MARK: URL and query

  /// `url` as `requests` sends it (`requote_uri`): `%XX` of an unreserved character (`%41`) is
  /// that character, and what may not stand in a URL (a space, `é`) is percent-encoded; `%`,
  /// reserved characters and `{{variables}}` stay as written (an escape's digits in capitals).
  static func requote(_ url: String) -> String {
    encodingBytes(url) { byte, bytes, out in
      if byte == UInt8(ascii: "%"), bytes.count >= 2,
        let high = QueryDecoder.hexValue(bytes[bytes.startIndex]),
        let low = QueryDecoder.hexValue(bytes[bytes.index(after: bytes.startIndex)])
      {
        let decoded = high << 4 | low
        // urllib3 writes an escape's digits in capitals
        if isUnreserved(decoded) { out.unicodeScalars.append(Unicode.Scalar(decoded)) } else { out += percent(decoded) }
        bytes = bytes.dropFirst(2)
      } else if isUnreserved(byte) || requoteSafe.utf8.contains(byte) {
        out.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        out += percent(byte)
      }
    }
  }

  /// `name==value` items as `urlencode` writes them (`quote_plus`: a space is `+`), after the
  /// URL's own query.
  static func appendQuery(_ pairs: [(key: String, value: String)], to url: String) -> String {
    guard !pairs.isEmpty else { return url }
    let encoded = pairs.map { quotePlus($0.key) + "=" + quotePlus($0.value) }.joined(separator: "&")
    var base = url
    var fragment = ""
    if let hash = base.firstIndex(of: "#") {
      fragment = String(base[hash...])
      base = String(base[..<hash])
    }
    if base.hasSuffix("?") { return base + encoded + fragment }
    return base + (base.contains("?") ? "&" : "?") + encoded + fragment
  }

  /// `quote_plus`: letters, digits and `_.-~` as they are, a space as `+`, every other byte
  /// `%XX`; `{{variables}}` stay as written.
  static func quotePlus(_ text: String) -> String {
    encodingBytes(text) { byte, _, out in
      if isUnreserved(byte) {
        out.unicodeScalars.append(Unicode.Scalar(byte))
      } else if byte == UInt8(ascii: " ") {
        out += "+"
      } else {
        out += percent(byte)
      }
    }
  }

  /// `text` written byte by byte by `encode` (which may take more of the bytes after the one it
  /// is given), `{{variables}}` kept as written.
  private static func encodingBytes(
    _ text: String, _ encode: (UInt8, inout Substring.UTF8View.SubSequence, inout String) -> Void
  ) -> String {
    var out = ""
    var bytes = Substring(text).utf8[...]
    while let byte = bytes.first {
      if byte == UInt8(ascii: "{"), let variable = leadingVariable(bytes) {
        out += variable
        bytes = bytes.dropFirst(variable.utf8.count)
        continue
      }
      bytes = bytes.dropFirst()
      encode(byte, &bytes, &out)
    }
    return out
  }

  /// A `{{name}}` at the start of `bytes` (a variable of the workspace, kept as written).
  private static func leadingVariable(_ bytes: Substring.UTF8View.SubSequence) -> String? {
    guard bytes.starts(with: "{{".utf8) else { return nil }
    let text = Substring(bytes)
    guard let close = text.range(of: "}}") else { return nil }
    let name = text[text.index(text.startIndex, offsetBy: 2)..<close.lowerBound]
    guard Template.isValidName(String(name)) else { return nil }
    return String(text[..<close.upperBound])
  }

  private static let requoteSafe = "!#$%&'()*+,/:;=?@[]~"

  private static func isUnreserved(_ byte: UInt8) -> Bool {
    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
      || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
      || byte == UInt8(ascii: "~")
  }

  private static func percent(_ byte: UInt8) -> String {
    let hex = Array("0123456789ABCDEF")
    return "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0x0F)])
  }

  // MARK: Bodies

  /// `json.dumps(value)`: `", "` and `": "` between items, non-ASCII as `\uXXXX` (UTF-16), a
  /// number as Python reads and writes it (`-0` is `0`, `1E5` is `100000.0`).
  static func json(_ value: JSONValue) -> String {
    switch value {
    case .null: "null"
    case .bool(let flag): flag ? "true" : "false"
    case .number(let literal): number(literal)
    case .string(let text): string(text)
    case .array(let items): "[" + items.map(json).joined(separator: ", ") + "]"
    case .object(let object):
      "{" + object.members.map { string($0.key) + ": " + json($0.value) }.joined(separator: ", ") + "}"
    }
  }

  private static func number(_ literal: String) -> String {
    let isInteger = !literal.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
    if isInteger {
      var digits = literal
      let negative = digits.hasPrefix("-")
      if negative { digits.removeFirst() }
      return digits.allSatisfy({ $0 == "0" }) ? "0" : literal
    }
    guard let double = Double(literal) else { return literal }
    if double.isInfinite { return double < 0 ? "-Infinity" : "Infinity" }
    // Python's float repr and Swift's description are both the shortest text that reads back.
    var text = "\(double)"
    if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "n" || $0 == "i" }) { text += ".0" }
    return text
  }

  private static func string(_ text: String) -> String {
    var out = "\""
    for unit in text.utf16 {
      switch unit {
      case 0x22: out += "\\\""
      case 0x5C: out += "\\\\"
      case 0x0A: out += "\\n"
      case 0x0D: out += "\\r"
      case 0x09: out += "\\t"
      case 0x08: out += "\\b"
      case 0x0C: out += "\\f"
      case 0x20...0x7E: out.unicodeScalars.append(Unicode.Scalar(UInt8(unit)))
      default:
        let hex = String(unit, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      }
    }
    return out + "\""
  }

  /// `urlencode(pairs)`: `quote_plus` of each name and value.
  static func form(_ pairs: [(name: String, value: String)]) -> String {
    pairs.map { quotePlus($0.name) + "=" + quotePlus($0.value) }.joined(separator: "&")
  }

  // MARK: Headers

  static let jsonAccept = "application/json, */*;q=0.5"
  static let formContentType = "application/x-www-form-urlencoded; charset=utf-8"
  static let userAgent = "HTTPie/3.2.1"

  /// The headers HTTPie sends, in its order. `defaults` are HTTPie's own (`Accept`, `Content-Type`)
  /// after its `User-Agent`; `items` the command's header items in order, nil for `Name:` (do not
  /// send). Python's `requests` starts from its session's `User-Agent`, `Accept-Encoding: gzip,
  /// deflate`, `Accept: */*` and `Connection: keep-alive`, sets each of HTTPie's headers in place
  /// or at the end (one a name), drops those set to nothing, adds `Content-Length` (`hasLength`)
  /// and `-a`'s `Authorization` (`auth`); HTTPie then moves each header it set itself to the end,
  /// in that order, repeated items restored.
  static func headers(
    defaults: [(name: String, value: String)], items: [(name: String, value: String?)],
    contentLength: String?, auth: String?
  ) -> [(name: String, value: String)] {
    // HTTPie's headers: its defaults, updated by the items (the first of a name in place).
    var own: [(name: String, value: String?)] = [("User-Agent", userAgent)] + defaults.map { ($0.name, $0.value) }
    var replaced = Set<String>()
    let defaultCount = own.count
    for item in items {
      let key = item.name.lowercased()
      if !replaced.contains(key), let place = own.prefix(defaultCount).firstIndex(where: { $0.name.lowercased() == key }) {
        own[place] = item
      } else {
        own.append(item)
      }
      replaced.insert(key)
    }
    // The prepared request: one field per name.
    var prepared: [(name: String, value: String)] = [
      ("User-Agent", "python-requests"), ("Accept-Encoding", "gzip, deflate"), ("Accept", "*/*"),
      ("Connection", "keep-alive"),
    ]
    for field in own {
      let key = field.name.lowercased()
      let place = prepared.firstIndex { $0.name.lowercased() == key }
      switch (field.value, place) {
      case (nil, let place?): prepared.remove(at: place)
      case (nil, nil): break
      case (let value?, let place?): prepared[place] = (field.name, value)
      case (let value?, nil): prepared.append((field.name, value))
      }
    }
    if let contentLength, !prepared.contains(where: { $0.name.lowercased() == "content-length" }) {
      prepared.append(("Content-Length", contentLength))
    }
    if let auth {
      if let place = prepared.firstIndex(where: { $0.name.lowercased() == "authorization" }) {
        prepared[place].value = auth
      } else {
        prepared.append(("Authorization", auth))
      }
    }
    // HTTPie's own headers move to the end, in the prepared order, with every value it set.
    var sent = prepared
    for field in prepared {
      let key = field.name.lowercased()
      let values = own.filter { $0.name.lowercased() == key }
      guard !values.isEmpty, values.contains(where: { $0.value == field.value }) else { continue }
      sent.removeAll { $0.name.lowercased() == key }
      sent += values.compactMap { value in value.value.map { (value.name, $0) } }
    }
    return sent
  }
}
