import Workspace

/// The one walk over the `{{…}}` of another tool's text, for the importers that rewrite them
/// (`.http` files, Postman, Bruno, Insomnia): each `{{` is handed to the importer's rule with
/// what follows it, and the rule says what to write instead, or that the `{{` opens nothing and
/// is text (written `{{'{{'}}`, `Template.literal`, so it is sent as written).
enum PlaceholderScan {
  /// A `{{` of the text.
  enum Found {
    /// `{{inner}}`: `inner` as written between the braces (untrimmed), `written` the whole of
    /// it, `offset` the characters of the text before it.
    case placeholder(inner: Substring, written: Substring, offset: Int)
    /// A `{{` with no `}}` after it: `rest`, what follows it.
    case unclosed(rest: Substring, offset: Int)
  }

  enum Replacement {
    /// Written in place of the placeholder (of the `{{` alone when it is unclosed).
    case text(String)
    /// The `{{` is text; the walk goes on right after it (a `{{` inside is looked at again).
    case openingIsText
  }

  /// `text` with each `{{` replaced as `rule` says.
  static func rewrite<E: Error>(_ text: String, _ rule: (Found) throws(E) -> Replacement) throws(E) -> String {
    guard text.contains("{{") else { return text }
    var out = ""
    var rest = Substring(text)
    while let open = rest.range(of: "{{") {
      out += rest[..<open.lowerBound]
      let afterOpen = rest[open.upperBound...]
      let offset = text.distance(from: text.startIndex, to: open.lowerBound)
      let close = afterOpen.range(of: "}}")
      let found: Found =
        close.map { .placeholder(inner: afterOpen[..<$0.lowerBound], written: rest[open.lowerBound..<$0.upperBound], offset: offset) }
        ?? .unclosed(rest: afterOpen, offset: offset)
      switch try rule(found) {
      case .text(let replacement):
        out += replacement
        rest = close.map { afterOpen[$0.upperBound...] } ?? afterOpen
      case .openingIsText:
        out += Template.literal("{{")
        rest = afterOpen
      }
    }
    return out + rest
  }
}
