import RequestEngine
import Workspace

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
    try PlaceholderScan.rewrite(text) { (found) throws(Unsupported) -> PlaceholderScan.Replacement in
      guard case .placeholder(let between, _, _) = found else { return .openingIsText }
      let inner = between.trimmingSpaces()
      // `{{}}`, or `{{` again before the `}}`: the first is text.
      if inner.isEmpty || inner.contains("{{") { return .openingIsText }
      guard let name = rename(inner), Template.isValidName(name) else {
        throw Unsupported(placeholder: "{{\(inner)}}")
      }
      return .text("{{\(name)}}")
    }
  }
}

extension ImportedRequests {
  /// An OAuth 2.0 client secret or password written out in the source, as a variable the
  /// workspace may hold (it refuses a literal secret in `oauth2`): `{{oauth2-client-secret}}`,
  /// which the import then moves to the secrets file as it moves every key (`ImportedCredentials`).
  /// A value that is empty or holds a placeholder is returned as it is.
  mutating func oauth2Secret(_ value: String, named name: String) -> String {
    guard !value.isEmpty, !value.contains("{{") else { return value }
    var chosen = name
    var n = 2
    while let existing = variables.first(where: { $0.name == chosen }), existing.value != value {
      chosen = "\(name)-\(n)"
      n += 1
    }
    if !variables.contains(where: { $0.name == chosen }) { variables.append(Variable(name: chosen, value: value)) }
    if !sensitiveVariables.contains(chosen) { sensitiveVariables.append(chosen) }
    return "{{\(chosen)}}"
  }
}
