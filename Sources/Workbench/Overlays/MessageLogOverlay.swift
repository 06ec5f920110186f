import Foundation
import TerminalUI

/// The status line's last messages (`M`), newest first and whole: what went by while the user
/// looked elsewhere, or did not fit, can be read again. `scroll` is its first line shown.
struct MessageLogOverlay: ScrolledOverlay {
  static let id = OverlayID.messages
  static var openedBy: Action? { .showMessages }
  static let context = KeyContext.messages
  var scroll = 0

  static func open(_ app: inout AppState) -> [Command] {
    app.open(MessageLogOverlay())
    return []
  }

  static func lines(in app: AppState) -> (count: Int, page: Int) {
    let box = Painter.messageBox(app.width, app.height)
    return (Painter.messageLines(app.messageLog, width: box.width - 4).count, max(1, box.height - 4))
  }

  func view(_ painter: Painter, _ buffer: inout ScreenBuffer) { painter.messageLog(&buffer, scroll: scroll) }
}

extension OverlayID { public static let messages = OverlayID("messages") }

extension Painter {
  /// The box: most of the screen.
  static func messageBox(_ width: Int, _ height: Int) -> Rect {
    let boxWidth = max(20, min(width - 4, 100))
    let boxHeight = max(5, height - 4)
    return Rect(x: max(0, (width - boxWidth) / 2), y: 2, width: min(width, boxWidth), height: min(height, boxHeight))
  }

  /// The messages newest first, each wrapped at its words to `width` (an error marked `✗`).
  static func messageLines(_ log: [StatusMessage], width: Int) -> [(text: String, isError: Bool)] {
    log.reversed().flatMap { message in
      TextWidth.wordWrap((message.isError ? "✗ " : "· ") + message.text, width: width).map { ($0, message.isError) }
    }
  }

  func messageLog(_ buffer: inout ScreenBuffer, scroll: Int) {
    let rect = Painter.messageBox(buffer.width, buffer.height)
    let lines = Painter.messageLines(state.messageLog, width: rect.width - 4)
    let rows = max(1, rect.height - 4)
    let first = min(scroll, max(0, lines.count - rows))
    buffer.fill(rect)
    let title = "Messages \(state.messageLog.count), newest first · " + MessageLogOverlay(scroll: scroll).footer(in: state).text
    buffer.box(rect, title: title, style: theme.focusedBorder, titleStyle: theme.focusedBorder)
    if lines.isEmpty {
      buffer.putTruncated("no messages yet", x: rect.x + 2, y: rect.y + 2, style: theme.dim, width: rect.width - 4)
    }
    for (i, line) in lines.dropFirst(first).prefix(rows).enumerated() {
      buffer.putTruncated(
        line.text, x: rect.x + 2, y: rect.y + 2 + i, style: line.isError ? theme.error : .plain, width: rect.width - 4)
    }
    if rows < lines.count {
      let more = (first > 0 ? "↑" : " ") + (first + rows < lines.count ? "↓" : " ")
      buffer.put(more, x: rect.x + rect.width - 4, y: rect.y + rect.height - 1, style: theme.focusedBorder)
    }
  }
}
