import Testing

@testable import TerminalUI

/// A tiny XML well-formedness check: balanced tags, no raw `<` or `&` in text or attributes,
/// comments without `--`, one root element.
private func wellFormednessProblem(_ xml: String) -> String? {
  var stack: [String] = []
  var roots = 0
  var rest = Substring(xml)
  func checkText(_ text: Substring) -> String? {
    var remaining = text
    while let amp = remaining.firstIndex(of: "&") {
      let after = remaining[amp...]
      guard let semi = after.firstIndex(of: ";") else { return "bare & in \(text)" }
      let entity = after[after.index(after: amp)..<semi]
      let known = ["amp", "lt", "gt", "quot", "apos"].contains(String(entity))
      if !known && !entity.hasPrefix("#") { return "unknown entity &\(entity);" }
      remaining = after[after.index(after: semi)...]
    }
    if text.contains(">") { return "raw > in \(text)" }
    return nil
  }
  while let open = rest.firstIndex(of: "<") {
    let text = rest[..<open]
    if let problem = checkText(text) { return problem }
    if stack.isEmpty && !text.allSatisfy(\.isWhitespace) { return "text outside the root" }
    rest = rest[open...]
    if rest.hasPrefix("<?") {
      guard let end = rest.firstRange(of: "?>") else { return "unclosed <?" }
      rest = rest[end.upperBound...]
    } else if rest.hasPrefix("<!--") {
      guard let end = rest.firstRange(of: "-->") else { return "unclosed comment" }
      let body = rest[rest.index(rest.startIndex, offsetBy: 4)..<end.lowerBound]
      if body.contains("--") || body.hasSuffix("-") { return "-- in a comment" }
      rest = rest[end.upperBound...]
    } else {
      guard let close = rest.firstIndex(of: ">") else { return "unclosed tag" }
      let tag = rest[rest.index(after: rest.startIndex)..<close]
      if tag.contains("<") { return "< inside a tag" }
      rest = rest[rest.index(after: close)...]
      // Attribute values: every quote pair balanced, no raw & outside entities.
      if tag.filter({ $0 == "\"" }).count % 2 != 0 { return "unbalanced quotes in <\(tag)>" }
      if let problem = checkText(Substring(tag.replacingOccurrences(">", ""))) { return problem }
      if tag.hasPrefix("/") {
        let name = String(tag.dropFirst())
        guard stack.popLast() == name else { return "mismatched </\(name)>" }
      } else {
        let name = String(tag.prefix { !$0.isWhitespace && $0 != "/" })
        if stack.isEmpty { roots += 1 }
        if !tag.hasSuffix("/") { stack.append(name) }
      }
    }
  }
  if !stack.isEmpty { return "unclosed \(stack)" }
  if roots != 1 { return "\(roots) root elements" }
  return checkText(rest)
}

extension Substring {
  fileprivate func replacingOccurrences(_ a: Character, _ b: String) -> String {
    String(self.map { $0 == a ? Character(b.isEmpty ? " " : b) : $0 })
  }
}

@Suite("SVGRenderer")
struct SVGRendererTests {
  @Test func outputIsWellFormedAndEscaped() {
    var buffer = ScreenBuffer(width: 30, height: 4)
    buffer.box(buffer.bounds, title: "<GET> & \"co\" 'x'")
    buffer.put("a<b && c>d \u{1b}[0m 日本 😀", x: 1, y: 1, style: Style(foreground: .yellow))
    buffer.put("selected", x: 1, y: 2, style: Style.plain.with(\.reverse).with(\.bold))
    let svg = SVGRenderer.render(buffer, title: "reqbench -- <demo> &")
    #expect(wellFormednessProblem(svg) == nil, "\(wellFormednessProblem(svg) ?? "")")
    #expect(svg.hasPrefix("<?xml"))
    #expect(svg.contains("<svg xmlns=\"http://www.w3.org/2000/svg\""))
    #expect(svg.contains("a&lt;b &amp;&amp; c&gt;d"))
    #expect(svg.contains("&lt;GET&gt; &amp; &quot;co&quot; &apos;x&apos;"))
    #expect(svg.contains("<title>reqbench -- &lt;demo&gt; &amp;</title>"))
    #expect(!svg.contains("\u{1b}"))
    #expect(svg.hasSuffix("</svg>\n"))
  }

  @Test func checkerCatchesBrokenXML() {
    #expect(wellFormednessProblem("<a><b></a>") != nil)
    #expect(wellFormednessProblem("<a>x & y</a>") != nil)
    #expect(wellFormednessProblem("<a><!-- x -- y --></a>") != nil)
    #expect(wellFormednessProblem("<a>ok &amp; fine</a>") == nil)
  }

  @Test func sizeFollowsTheGrid() {
    let svg = SVGRenderer.render(ScreenBuffer(width: 10, height: 2))
    #expect(svg.contains(##"width="110" height="54" viewBox="0 0 110 54""##))
    #expect(svg.contains("<!-- reqbench -->"))
  }

  @Test func coloursAndAttributesAreHonoured() {
    var buffer = ScreenBuffer(width: 12, height: 1)
    buffer.put("ok", x: 0, y: 0, style: Style(foreground: .green, bold: true, underline: true))
    buffer.put("sel", x: 4, y: 0, style: Style(reverse: true))
    buffer.put("bg", x: 8, y: 0, style: Style(background: .blue, dim: true, italic: true))
    let svg = SVGRenderer.render(buffer)
    #expect(
      svg.contains(
        ##"<text xml:space="preserve" x="10" y="24" textLength="18" fill="#13a10e" font-weight="bold" text-decoration="underline">ok</text>"##
      ))
    // Reverse: default foreground becomes the background and the other way round.
    #expect(svg.contains(##"<rect x="46" y="10" width="27" height="17" fill="#cccccc"/>"##))
    #expect(svg.contains(##"fill="#161616">sel</text>"##))
    #expect(svg.contains(##"<rect x="82" y="10" width="18" height="17" fill="#0037da"/>"##))
    #expect(svg.contains(#"font-style="italic" opacity="0.6">bg</text>"#))
  }

  @Test func wideCharactersAndGapsStartTheirOwnRuns() {
    var buffer = ScreenBuffer(width: 20, height: 1)
    buffer.put("日本x y  z", x: 1, y: 0)
    let texts = svgTexts(SVGRenderer.render(buffer))
    #expect(
      texts == [
        ##"<text xml:space="preserve" x="19" y="24" textLength="18" fill="#cccccc">日</text>"##,
        ##"<text xml:space="preserve" x="37" y="24" textLength="18" fill="#cccccc">本</text>"##,
        ##"<text xml:space="preserve" x="55" y="24" textLength="27" fill="#cccccc">x y</text>"##,
        ##"<text xml:space="preserve" x="100" y="24" textLength="9" fill="#cccccc">z</text>"##,
      ])
  }

  @Test func blankCellsAreLeftOutUnlessUnderlined() {
    var buffer = ScreenBuffer(width: 10, height: 2)
    buffer.put("   ", x: 0, y: 0, style: Style(foreground: .red))
    buffer.put(" a ", x: 0, y: 1, style: Style(underline: true))
    let texts = svgTexts(SVGRenderer.render(buffer))
    #expect(texts.count == 1)
    #expect(texts.first?.hasSuffix(#"text-decoration="underline"> a </text>"#) == true)
  }
}

/// The `<text>` elements of an SVG, one a line as the renderer writes them.
private func svgTexts(_ svg: String) -> [String] {
  svg.split(separator: "\n").filter { $0.hasPrefix("<text") }.map(String.init)
}
