import RequestEngine
import Workspace

/// Postman's `{{name}}` in what a collection sends. A name reqbench's variables can have is kept
/// as a variable; anything else between braces is kept as written, as literal text
/// (`Template.literal`), and noted: a dynamic variable (`{{$guid}}`, `{{$randomInt}}`,
/// `{{$timestamp}}`…, which Postman fills in at each send and reqbench does not yet), a name
/// with a `/` or a space, a nested reference (`{{a{{b}}}}`, where Postman fills in `{{b}}` first).
struct PostmanText {
  /// The dynamic variables met, and the other names that are no variable names.
  var dynamic: [String] = []
  var unnamed: [String] = []

  /// `text` with each `{{` that opens no variable name made literal.
  mutating func template(_ text: String) -> String {
    PlaceholderScan.rewrite(text) { found in
      switch found {
      case .placeholder(let name, _, _) where Template.isValidName(String(name)):
        return .text("{{" + name + "}}")
      case .placeholder(let name, _, _): note(String(name))
      case .unclosed(let rest, _): note(String(rest))
      }
      return .openingIsText
    }
  }

  private mutating func note(_ name: String) {
    let shown = String(name.prefix(40))
    if name.hasPrefix("$") {
      if !dynamic.contains(shown) { dynamic.append(shown) }
    } else if !unnamed.contains(shown) {
      unnamed.append(shown)
    }
  }

  /// Every text the draft sends, through `template`.
  mutating func apply(to draft: inout RequestDraft) {
    draft.url = template(draft.url)
    draft.query = JSONObject(distinctKeys: draft.query.members.map { (template($0.key), json($0.value)) })
    draft.headers = HTTPHeaders(draft.headers.fields.map { ($0.name, template($0.value)) })
    switch draft.body {
    case .json(let value)?: draft.body = .json(json(value))
    case .form(let fields)?:
      draft.body = .form(JSONObject(distinctKeys: fields.members.map { (template($0.key), json($0.value)) }))
    case .text(let text, let type)?: draft.body = .text(template(text), contentType: type.map { template($0) })
    case .multipart(let fields)?:
      draft.body = .multipart(
        fields.map { field in
          var field = field
          field.name = template(field.name)
          field.value = field.value.map { template($0) }
          return field
        })
    default: break
    }
    switch draft.auth {
    case .basic(let user, let password)?: draft.auth = .basic(user: template(user), password: template(password))
    case .digest(let user, let password)?: draft.auth = .digest(user: template(user), password: template(password))
    case .bearer(let token)?: draft.auth = .bearer(template(token))
    default: break
    }
  }

  mutating func json(_ value: JSONValue) -> JSONValue {
    switch value {
    case .string(let text): .string(template(text))
    case .array(let items): .array(items.map { json($0) })
    case .object(let object): .object(JSONObject(distinctKeys: object.members.map { (template($0.key), json($0.value)) }))
    default: value
    }
  }

  /// The warning for `request`, nil when every name was a variable name.
  func warning(file: String, request: String) -> String? {
    var parts: [String] = []
    if !dynamic.isEmpty {
      parts.append(
        "Postman's dynamic variable\(dynamic.count == 1 ? "" : "s") "
          + dynamic.map { "{{\($0)}}" }.joined(separator: ", ")
          + " \(dynamic.count == 1 ? "is" : "are") kept as written and not filled in yet (reqbench sends the text)")
    }
    if !unnamed.isEmpty {
      parts.append(
        unnamed.map { JSONSerializer.quote("{{" + $0 + "}}") }.joined(separator: ", ")
          + " \(unnamed.count == 1 ? "is" : "are") no variable name here (letters, digits, '_', '-' and '.'; "
          + "a nested reference is not filled in) and \(unnamed.count == 1 ? "is" : "are") kept as text")
    }
    guard !parts.isEmpty else { return nil }
    return "\(file): request \(JSONSerializer.quote(request)): " + parts.joined(separator: "; ")
  }
}
