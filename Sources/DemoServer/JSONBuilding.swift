import JSON

/// The server's answers are the project's one JSON value (`JSONValue`, the JSON target), built with
/// these shorthands and written by `JSONSerializer`: pretty with two spaces and a final newline
/// for a response body, compact for a line of NDJSON or an SSE `data` field.
extension JSONValue {
  static func int(_ value: Int) -> JSONValue { .number(value) }

  /// A number; not finite (which JSON cannot say) is `null`.
  static func double(_ value: Double) -> JSONValue { value.isFinite ? .number(value) : .null }

  /// An object with its members in the order written.
  static func obj(_ fields: KeyValuePairs<String, JSONValue>) -> JSONValue {
    .object(JSONObject(fields.map { (key: $0.key, value: $0.value) }))
  }

  static func obj(_ fields: [(String, JSONValue)]) -> JSONValue {
    .object(JSONObject(fields.map { (key: $0.0, value: $0.1) }))
  }

  var isObject: Bool { objectValue != nil }

  /// Pretty-printed, with a trailing newline: a response body.
  func serialized() -> [UInt8] { Array((JSONSerializer.pretty(self) + "\n").utf8) }

  /// On one line, no spaces, no trailing newline.
  func compact() -> [UInt8] {
    var out: [UInt8] = []
    JSONSerializer.compact(self, into: &out)
    return out
  }
}

/// The value of one hexadecimal digit (chunk sizes, percent escapes, the HTTP version's digits).
func hexDigitValue(_ byte: UInt8) -> UInt8? {
  switch byte {
  case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
  case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
  case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
  default: nil
  }
}
