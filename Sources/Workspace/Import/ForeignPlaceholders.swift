import RequestEngine

/// The `{{…}}` placeholders of another tool's text (Bruno's `{{name}}`, Insomnia's
/// `{{ _.name }}`) as reqbench templates: each placeholder is renamed by the tool's rule, and a
/// `{{` that opens no placeholder is text (`{{'{{'}}`), sent as written as the tool sends it.
///
/// ```swift
/// try ForeignPlaceholders.template("{{ _.host }}/a{{b") { $0.hasPrefix("_.") ? String($0.dropFirst(2)) : nil }
/// // "{{host}}/a{{'{{'}}b"
/// ```
enum ForeignPlaceholders {
  /// A placeholder the tool fills in and reqbench cannot (`{{$randomInt}}`): its text.
  struct Unsupported: Error {
    var placeholder: String
  }

  /// `text` with each `{{ inner }}` written `{{name}}` where `rename(inner)` gives a variable
  /// name; `rename` returning nil refuses the text.
  static func template(_ text: String, rename: (String) -> String?) throws(Unsupported) -> String {
    guard text.contains("{{") else { return text }
    var out = ""
    var rest = Substring(text)
    while let open = rest.range(of: "{{") {
      out += rest[..<open.lowerBound]
      let afterOpen = rest[open.upperBound...]
      guard let close = afterOpen.range(of: "}}") else {
        out += "{{'{{'}}"
        rest = afterOpen
        continue
      }
      let inner = afterOpen[..<close.lowerBound].trimmingSpaces()
      rest = afterOpen[close.upperBound...]
      if inner.isEmpty || inner.contains("{{") {
        // `{{}}`, or `{{` again before the `}}`: the first is text.
        out += "{{'{{'}}"
        rest = afterOpen
        continue
      }
      guard let name = rename(inner), Template.isValidName(name) else {
        throw Unsupported(placeholder: "{{\(inner)}}")
      }
      out += "{{\(name)}}"
    }
    return out + rest
  }
}
