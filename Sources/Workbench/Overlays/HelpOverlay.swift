import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// The keys overlay (`?`, F1): every binding of the key table; `scroll` is its first line shown.
struct HelpOverlay: ScrolledOverlay {
  static let id = OverlayID.help
  static var openedBy: Action? { .help }
  static let context = KeyContext.help
  var scroll = 0

  static func open(_ app: inout AppState) -> [Command] {
    app.open(HelpOverlay())
    return []
  }

  static func lines(in app: AppState) -> (count: Int, page: Int) {
    (Keymap.helpLines.count, max(1, Painter.helpRows(height: app.height)))
  }

  func view(_ painter: Painter, _ buffer: inout ScreenBuffer) { painter.help(&buffer, scroll: scroll) }
}

extension OverlayID { public static let help = OverlayID("help") }

extension AppState {
  /// The help's first line shown (0 while it is closed).
  public var helpScroll: Int { openOverlay(HelpOverlay.self)?.scroll ?? 0 }
}

/// The keys overlay (`?`, F1): a box of every key, scrolled when it is taller than the screen.
extension Painter {
  /// Rows of keys the help overlay shows at a screen height (the rest scroll).
  static func helpRows(height: Int) -> Int {
    min(height - 2, Keymap.helpLines.count + 4) - 4
  }

  func help(_ buffer: inout ScreenBuffer, scroll: Int) {
    let lines = Keymap.helpLines
    var keyWidth = 0
    var textWidth = 0
    for line in lines {
      switch line {
      case .heading(let text), .note(let text): textWidth = max(textWidth, TextWidth.of(text))
      case .binding(let keys, let help):
        keyWidth = max(keyWidth, TextWidth.of(keys) + 2)
        textWidth = max(textWidth, TextWidth.of(help))
      }
    }
    let natural = 4 + keyWidth + textWidth
    let width = min(buffer.width - 4, natural)
    let height = min(buffer.height - 2, lines.count + 4)
    let rows = Painter.helpRows(height: buffer.height)
    let first = min(scroll, max(0, lines.count - rows))
    let rect = Rect(x: (buffer.width - width) / 2, y: max(0, (buffer.height - height) / 2), width: width, height: height)
    buffer.fill(rect)
    let scrolls = rows < lines.count
    let title =
      scrolls
      ? "Keys \(first + 1)–\(first + rows)/\(lines.count) · " + HelpOverlay(scroll: scroll).footer(in: state).text
      : "Keys · any key closes"
    buffer.box(rect, title: title, style: theme.focusedBorder, titleStyle: theme.focusedBorder)
    let room = width - 4 - keyWidth
    for (i, line) in lines.dropFirst(first).prefix(rows).enumerated() {
      let y = rect.y + 2 + i
      switch line {
      case .heading(let text):
        buffer.putTruncated(text, x: rect.x + 2, y: y, style: theme.title, width: width - 4)
      case .binding(let keys, let help):
        buffer.put(TextWidth.pad(keys, to: keyWidth), x: rect.x + 2, y: y, style: theme.key)
        buffer.putTruncated(help, x: rect.x + 2 + keyWidth, y: y, width: room)
      case .note(let text):
        buffer.putTruncated(text, x: rect.x + 2 + keyWidth, y: y, style: theme.dim, width: room)
      }
    }
    if scrolls {
      let more = (first > 0 ? "↑" : " ") + (first + rows < lines.count ? "↓" : " ")
      buffer.put(more, x: rect.x + width - 4, y: rect.y + height - 1, style: theme.focusedBorder)
    }
  }
}
