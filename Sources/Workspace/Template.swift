import RequestEngine

/// A text with `{{name}}` placeholders, parsed once and rendered with a lookup.
///
/// ```swift
/// let template = try Template("/users/{{id}}")
/// template.variableNames                       // ["id"]
/// try template.render { name in ["id": "7"][name] ?? "" }  // "/users/7"
/// ```
/// Whitespace inside the braces is ignored (`{{ id }}`). A name is letters, digits, `_`, `-` and
/// `.`; `{{` without a closing `}}` is an error, a lone `}}` is plain text. `{{'{{'}}` is the text
/// `{{` itself, the one way to write two opening braces that are not a placeholder
/// (`Template.literal` writes any text that way):
///
/// ```swift
/// Template.literal("Hi {{name}}")                          // "Hi {{'{{'}}name}}"
/// try Template("Hi {{'{{'}}name}}").render { _ in "" }   // "Hi {{name}}"
/// ```
public struct Template: Sendable, Equatable, Hashable {
  public enum Part: Sendable, Equatable, Hashable {
    case text(String)
    case variable(String)
  }

  public let parts: [Part]

  public init(_ text: String) throws(TemplateError) {
    // Most values hold no variable: skip the search (Foundation's range(of:) is not cheap).
    guard text.utf8.contains(UInt8(ascii: "{")) else {
      self.parts = text.isEmpty ? [] : [.text(text)]
      return
    }
    var parts: [Part] = []
    // Text runs, a literal `{{` among them, are joined into one part.
    var pending = ""
    var rest = Substring(text)
    while let open = rest.range(of: "{{") {
      pending += rest[..<open.lowerBound]
      let afterOpen = rest[open.upperBound...]
      guard let close = afterOpen.range(of: "}}") else {
        throw TemplateError(
          message: "\"{{\" has no closing \"}}\"; write a variable as {{name}}, two braces as {{'{{'}}",
          offset: text.distance(from: text.startIndex, to: open.lowerBound))
      }
      let name = afterOpen[..<close.lowerBound].trimmingSpaces()
      rest = afterOpen[close.upperBound...]
      if name == Template.literalBraces {
        pending += "{{"
        continue
      }
      guard Template.isValidName(name) else {
        throw TemplateError(
          message: name.isEmpty
            ? "\"{{}}\" names no variable; write a variable as {{name}}, two braces as {{'{{'}}"
            : "\"{{\(name)}}\" is not a variable name; use letters, digits, '_', '-' and '.' (two braces as text: {{'{{'}})",
          offset: text.distance(from: text.startIndex, to: open.lowerBound))
      }
      if !pending.isEmpty { parts.append(.text(pending)) }
      pending = ""
      parts.append(.variable(name))
    }
    pending += rest
    if !pending.isEmpty { parts.append(.text(pending)) }
    self.parts = parts
  }

  /// What stands between the braces of `{{'{{'}}`, the text `{{`.
  static let literalBraces = "'{{'"

  /// `text` as a template that renders to `text` itself: each `{{` written `{{'{{'}}`, so an
  /// example, a description or any text taken from elsewhere is sent as it is, never filled in.
  public static func literal(_ text: String) -> String {
    guard text.contains("{{") else { return text }
    return text.replacingOccurrences(of: "{{", with: "{{\(literalBraces)}}")
  }

  /// `literal` of every string in a JSON value, object keys included.
  public static func literal(_ value: JSONValue) -> JSONValue {
    switch value {
    case .string(let text): .string(literal(text))
    case .array(let items): .array(items.map { literal($0) })
    case .object(let object): .object(JSONObject(object.members.map { (key: literal($0.key), value: literal($0.value)) }))
    default: value
    }
  }

  /// The names of the variables used, in order of first use.
  public var variableNames: [String] {
    var seen: [String] = []
    for case .variable(let name) in parts where !seen.contains(name) { seen.append(name) }
    return seen
  }

  /// Replaces each placeholder with `lookup(name)`; the lookup decides what an unknown name means.
  public func render<Failure: Error>(_ lookup: (String) throws(Failure) -> String) throws(Failure)
    -> String
  {
    var out = ""
    for part in parts {
      switch part {
      case .text(let text): out += text
      case .variable(let name): out += try lookup(name)
      }
    }
    return out
  }

  /// Whether `name` can be a variable's (or an environment's) name: letters, digits, `_`, `-`, `.`.
  public static func isValidName(_ name: String) -> Bool {
    !name.isEmpty
      && name.unicodeScalars.allSatisfy {
        ($0.properties.isAlphabetic || $0.properties.numericType != nil
          || "_-.".unicodeScalars.contains($0))
          && !$0.properties.isWhitespace
      }
  }
}

/// A placeholder that cannot be parsed; `offset` counts characters from the start of the text.
public struct TemplateError: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String
  public var offset: Int

  public init(message: String, offset: Int) {
    self.message = message
    self.offset = offset
  }

  public var description: String { message }
}

extension StringProtocol {
  package func trimmingSpaces() -> String {
    let scalars = unicodeScalars
    guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
      let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })
    else { return "" }
    var out = String.UnicodeScalarView()
    out.append(contentsOf: scalars[start...end])
    return String(out)
  }
}
