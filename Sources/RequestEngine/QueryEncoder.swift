/// Query strings and form bodies: percent-encoding as Alamofire's URLEncoding does it
/// (RFC 3986 unreserved plus `/` and `?` stay; space is `%20`).
///
/// ```swift
/// QueryEncoder.encode([("a", "x y"), ("arr", [1, 2]), ("n", nil)])
/// // a=x%20y&arr%5B%5D=1&arr%5B%5D=2&n
/// ```
public enum QueryEncoder {
  private static let allowed: Set<UInt8> = {
    var set = Set<UInt8>()
    for c in UInt8(ascii: "a")...UInt8(ascii: "z") { set.insert(c) }
    for c in UInt8(ascii: "A")...UInt8(ascii: "Z") { set.insert(c) }
    for c in UInt8(ascii: "0")...UInt8(ascii: "9") { set.insert(c) }
    for c in "-._~/?".utf8 { set.insert(c) }
    return set
  }()

  /// Percent-encodes one key or value.
  public static func encodeComponent(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    for byte in text.utf8 {
      if allowed.contains(byte) {
        out.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        let hex: [Character] = Array("0123456789ABCDEF")
        out.append("%")
        out.append(hex[Int(byte >> 4)])
        out.append(hex[Int(byte & 0x0f)])
      }
    }
    return out
  }

  /// Encodes parameters in the order given. Arrays become `key[]=v` pairs, objects `key[sub]=v`,
  /// `null` a bare key, booleans `1` / `0`.
  public static func encode(_ parameters: [(String, JSONValue)]) -> String {
    var pairs: [String] = []
    for (key, value) in parameters { append(key: key, value: value, to: &pairs) }
    return pairs.joined(separator: "&")
  }

  /// Encodes string pairs in the order given.
  public static func encode(_ parameters: [(String, String)]) -> String {
    parameters.map { encodeComponent($0.0) + "=" + encodeComponent($0.1) }.joined(separator: "&")
  }

  private static func append(key: String, value: JSONValue, to pairs: inout [String]) {
    switch value {
    case .null: pairs.append(encodeComponent(key))
    case .bool(let b): pairs.append(encodeComponent(key) + "=" + (b ? "1" : "0"))
    case .number(let n): pairs.append(encodeComponent(key) + "=" + encodeComponent(n))
    case .string(let s): pairs.append(encodeComponent(key) + "=" + encodeComponent(s))
    case .array(let items):
      for item in items { append(key: key + "[]", value: item, to: &pairs) }
    case .object(let object):
      for member in object.members.sorted(by: { $0.key < $1.key }) {
        append(key: key + "[" + member.key + "]", value: member.value, to: &pairs)
      }
    }
  }
}
