import Base

/// Renders a screen buffer as a standalone SVG image, for the user guide's screenshots.
///
/// The image is a monospace grid of 9×17 px cells (15 px font) with a 10 px margin, on a dark
/// xterm-like palette. Each run of cells with the same background colour is one `<rect>`; each
/// run with the same look is one `<text>` whose `textLength` pins it to the grid and whose
/// `xml:space="preserve"` keeps its spaces (set on each `<text>`: browsers do not inherit it from a
/// group, and a collapsed trailing space would let `textLength` spread the letters); runs also
/// break at gaps and around wide characters, so panels stay aligned in renderers that ignore
/// `textLength` and with fonts of other advances. Bold, dim, italic, underline and
/// reverse are honoured; text is XML-escaped; the title is an XML comment and the `<title>`.
///
///     let svg = SVGRenderer.render(frame, title: "reqbench: response viewer")
public enum SVGRenderer {
  static let cellWidth = 9
  static let cellHeight = 17
  static let fontSize = 15
  static let baseline = 14
  static let margin = 10
  static let defaultForeground = "#cccccc"
  static let defaultBackground = "#161616"
  /// Colours 0…15.
  static let palette = [
    "#0c0c0c", "#c50f1f", "#13a10e", "#c19c00", "#0037da", "#881798", "#3a96dd", "#cccccc",
    "#767676", "#e74856", "#16c60c", "#f9f1a5", "#3b78ff", "#b4009e", "#61d6d6", "#f2f2f2",
  ]

  /// The buffer as an SVG document.
  public static func render(_ buffer: ScreenBuffer, title: String = "reqbench") -> String {
    let imageWidth = buffer.width * cellWidth + 2 * margin
    let imageHeight = buffer.height * cellHeight + 2 * margin
    var out = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
    out += "<!-- \(commentText(title)) -->\n"
    out += #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(imageWidth)" "#
    out += #"height="\#(imageHeight)" viewBox="0 0 \#(imageWidth) \#(imageHeight)" "#
    out += #"font-family="'DejaVu Sans Mono', Menlo, Consolas, monospace" "#
    out += #"font-size="\#(fontSize)">"# + "\n"
    out += "<title>\(XMLText.escaped(title))</title>\n"
    out += #"<rect width="100%" height="100%" fill="\#(defaultBackground)"/>"# + "\n"

    out += #"<g shape-rendering="crispEdges">"# + "\n"
    for y in 0..<buffer.height {
      var x = 0
      while x < buffer.width {
        guard let fill = colors(buffer[x, y].style).background else {
          x += 1
          continue
        }
        let start = x
        while x < buffer.width && colors(buffer[x, y].style).background == fill { x += 1 }
        out += #"<rect x="\#(margin + start * cellWidth)" y="\#(margin + y * cellHeight)" "#
        out += #"width="\#((x - start) * cellWidth)" height="\#(cellHeight)" fill="\#(fill)"/>"#
        out += "\n"
      }
    }
    out += "</g>\n"

    out += "<g>\n"
    for y in 0..<buffer.height {
      for run in textRuns(buffer, row: y) {
        let look = run.look
        out += #"<text xml:space="preserve" x="\#(margin + run.column * cellWidth)" "#
        out += #"y="\#(margin + y * cellHeight + baseline)" "#
        out += #"textLength="\#(run.columns * cellWidth)" fill="\#(look.foreground)""#
        if look.bold { out += #" font-weight="bold""# }
        if look.italic { out += #" font-style="italic""# }
        if look.underline { out += #" text-decoration="underline""# }
        if look.dim { out += #" opacity="0.6""# }
        out += ">\(XMLText.escaped(run.text))</text>\n"
      }
    }
    out += "</g>\n</svg>\n"
    return out
  }

  /// What a text run looks like: everything but the background.
  struct Look: Equatable {
    var foreground: String
    var bold, dim, italic, underline: Bool
  }

  struct TextRun {
    var column: Int
    var columns: Int
    var text: String
    var look: Look
    /// False for a wide character's run, which nothing joins.
    var joinable: Bool
    /// Blank cells at the end of the run.
    var trailingBlanks = 0
  }

  /// The foreground and background (nil: the default background) after `reverse`.
  static func colors(_ style: Style) -> (foreground: String, background: String?) {
    let fg = style.foreground == .default ? nil : palette[style.foreground.index]
    let bg = style.background == .default ? nil : palette[style.background.index]
    if style.reverse {
      return (bg ?? defaultBackground, fg ?? defaultForeground)
    }
    return (fg ?? defaultForeground, bg)
  }

  /// The row's characters grouped into runs of one look. A run ends at a gap of two or more
  /// blank cells, and a wide character is a run of its own, so each run starts at its exact
  /// grid column even in renderers that ignore `textLength`. Blank cells (spaces that are not
  /// underlined) never start a run, and runs end with a visible character.
  static func textRuns(_ buffer: ScreenBuffer, row y: Int) -> [TextRun] {
    var runs: [TextRun] = []
    var x = 0
    while x < buffer.width {
      let cell = buffer[x, y]
      var columns = 1
      while x + columns < buffer.width && buffer[x + columns, y].isContinuation { columns += 1 }
      defer { x += columns }
      if cell.isContinuation { continue }  // an orphan at column 0
      let style = cell.style
      let look = Look(
        foreground: colors(style).foreground, bold: style.bold, dim: style.dim,
        italic: style.italic, underline: style.underline)
      let blank = cell.text == " " && !look.underline
      var joins = false
      if let last = runs.last, last.joinable, last.look == look, last.column + last.columns == x,
        columns == 1
      {
        joins = blank || last.trailingBlanks < 2
      }
      if joins {
        runs[runs.count - 1].columns += 1
        runs[runs.count - 1].text += cell.text
        runs[runs.count - 1].trailingBlanks = blank ? runs[runs.count - 1].trailingBlanks + 1 : 0
      } else if !blank {
        if let last = runs.last, last.trailingBlanks > 0 { trimTrailingBlanks(&runs) }
        runs.append(
          TextRun(column: x, columns: columns, text: cell.text, look: look, joinable: columns == 1))
      }
    }
    if let last = runs.last, last.trailingBlanks > 0 { trimTrailingBlanks(&runs) }
    return runs
  }

  private static func trimTrailingBlanks(_ runs: inout [TextRun]) {
    let n = runs[runs.count - 1].trailingBlanks
    runs[runs.count - 1].text.removeLast(n)
    runs[runs.count - 1].columns -= n
    runs[runs.count - 1].trailingBlanks = 0
  }

  /// `text` safe inside `<!-- -->`: no `--`, no control characters.
  static func commentText(_ text: String) -> String {
    var out = ""
    for scalar in ControlEscaping.visible(text).unicodeScalars {
      if scalar == "-" && out.hasSuffix("-") { out += " " }
      out.unicodeScalars.append(scalar)
    }
    return out
  }
}
