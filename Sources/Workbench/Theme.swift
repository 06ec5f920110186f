import RequestEngine
import TerminalUI

/// The styles of the TUI. With colours off (`NO_COLOR`, or a terminal without colours) everything
/// is told apart by bold, reverse and glyphs alone.
public struct Theme: Sendable {
  public var colors: Bool

  public init(colors: Bool) { self.colors = colors }

  func fg(_ color: Color, bold: Bool = false) -> Style {
    Style(foreground: colors ? color : .default, bold: bold)
  }

  var border: Style { fg(.brightBlack) }
  var focusedBorder: Style { fg(.cyan, bold: true) }
  var title: Style { Style(bold: true) }
  var dim: Style { colors ? Style(foreground: .brightBlack) : Style(dim: true) }
  var selected: Style { Style(reverse: true) }
  var error: Style { fg(.red, bold: true) }
  var key: Style { fg(.yellow, bold: true) }
  var folder: Style { fg(.blue, bold: true) }
  var unsaved: Style { fg(.yellow, bold: true) }
  var flow: Style { fg(.magenta, bold: true) }
  var badge: Style { colors ? Style(foreground: .black, background: .cyan) : Style(reverse: true) }

  func method(_ method: HTTPMethod) -> Style {
    switch method {
    case .GET: fg(.green, bold: true)
    case .POST: fg(.yellow, bold: true)
    case .PUT, .PATCH: fg(.blue, bold: true)
    case .DELETE: fg(.red, bold: true)
    case .HEAD, .OPTIONS: fg(.magenta, bold: true)
    default: fg(.cyan, bold: true)
    }
  }

  func state(_ state: ExchangeState) -> Style {
    switch state {
    case .queued: fg(.brightBlack)
    case .running: fg(.cyan, bold: true)
    case .succeeded: fg(.green)
    case .failed: fg(.red, bold: true)
    case .cancelled: fg(.yellow)
    }
  }

  func status(_ code: Int?) -> Style {
    guard let code else { return dim }
    switch code {
    case 200..<300: return fg(.green, bold: true)
    case 300..<400: return fg(.cyan, bold: true)
    case 400..<500: return fg(.yellow, bold: true)
    default: return fg(.red, bold: true)
    }
  }

  func json(_ role: JSONHighlight.Role) -> Style {
    switch role {
    case .key: fg(.blue, bold: true)
    case .string: fg(.green)
    case .number: fg(.cyan)
    case .literal: fg(.magenta)
    case .punctuation: .plain
    }
  }
}

/// The glyph in front of each state, so states read without colour too.
func glyph(_ state: ExchangeState) -> String {
  switch state {
  case .queued: "…"
  case .running: "▶"
  case .succeeded: "✓"
  case .failed: "✗"
  case .cancelled: "⊘"
  }
}
