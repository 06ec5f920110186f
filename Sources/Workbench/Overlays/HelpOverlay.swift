import Foundation
import RequestEngine
import TerminalUI
import Workspace

extension AppState {
  /// Keys while the help shows: j k, pages, g G scroll it; any other key closes it.
  mutating func handleHelpKey(_ key: Key) -> [Command] {
    let page = max(1, Painter.helpRows(height: height))
    let last = max(0, Painter.helpLines.count - page)
    switch key {
    case .down, .char("j"): helpScroll = min(last, helpScroll + 1)
    case .up, .char("k"): helpScroll = max(0, helpScroll - 1)
    case .pageDown, .ctrl("d"), .char(" "): helpScroll = min(last, helpScroll + page)
    case .pageUp, .ctrl("u"): helpScroll = max(0, helpScroll - page)
    case .home, .char("g"): helpScroll = 0
    case .end, .char("G"): helpScroll = last
    default:
      overlay = nil
      helpScroll = 0
    }
    return []
  }
}

/// The keys overlay (`?`, F1): a box of every key, scrolled when it is taller than the screen.
extension Painter {
  static let helpLines: [(String, String)] = [
    ("Tab / Shift-Tab, 1–4", "move between panes"),
    ("↑ ↓ j k, PgUp PgDn, g G", "move, page, first, last (also Home End, Ctrl-D Ctrl-U)"),
    ("Enter or s", "send the selected request"),
    ("Enter (queue)", "show the exchange in the response pane"),
    ("S", "send it ignoring the cache (and refresh the cached response)"),
    ("c", "cancel the selected exchange or run"),
    ("C", "cancel everything"),
    ("r", "re-send a failure; resume a download or chain"),
    ("e", "edit the field (Enter keeps, Esc cancels, empty removes)"),
    ("E", "edit the body in $EDITOR"),
    ("/", "filter requests / search the response"),
    ("n  N", "next / previous match"),
    ("|", "filter the JSON body with jq (Esc clears)"),
    ("w  W", "write the body to a file / wrap long lines"),
    ("← →  h l", "response tabs; queue: show / hide a batch's members, a chain's steps"),
    ("[  ]", "older / newer responses from history; s sends the one shown again"),
    ("Esc", "close a prompt, stop a search or jq, clear a filter or jq, leave history"),
    ("in a prompt", "the last value comes selected: typing replaces it, ← → edit it"),
    ("Ctrl-U  Ctrl-K", "in a prompt: clear before / after the cursor (Ctrl-A Ctrl-E: start, end)"),
    ("Ctrl-S", "save the workspace"),
    ("mouse", "click selects and focuses, the wheel scrolls"),
    ("q  Ctrl-C", "quit (asks while transfers run or edits are unsaved)"),
    ("? F1", "this help"),
  ]

  /// Rows of keys the help overlay shows at a screen height (the rest scroll).
  static func helpRows(height: Int) -> Int {
    min(height - 2, helpLines.count + 4) - 4
  }

  func help(_ buffer: inout ScreenBuffer) {
    let lines = Painter.helpLines
    let keyWidth = (lines.map { TextWidth.of($0.0) }.max() ?? 0) + 2
    let natural = 4 + keyWidth + (lines.map { TextWidth.of($0.1) }.max() ?? 0)
    let width = min(buffer.width - 4, natural)
    let height = min(buffer.height - 2, lines.count + 4)
    let rows = Painter.helpRows(height: buffer.height)
    let first = min(state.helpScroll, max(0, lines.count - rows))
    let rect = Rect(x: (buffer.width - width) / 2, y: max(0, (buffer.height - height) / 2), width: width, height: height)
    buffer.fill(rect)
    let scrolls = rows < lines.count
    let title =
      scrolls ? "Keys \(first + 1)–\(first + rows)/\(lines.count) · j k scroll · other keys close" : "Keys · any key closes"
    buffer.box(rect, title: TextWidth.truncate(title, to: width - 4), style: theme.focusedBorder, titleStyle: theme.focusedBorder)
    for (i, line) in lines.dropFirst(first).prefix(rows).enumerated() {
      buffer.put(TextWidth.pad(line.0, to: keyWidth), x: rect.x + 2, y: rect.y + 2 + i, style: theme.key)
      let room = width - 4 - keyWidth
      buffer.put(TextWidth.truncate(line.1, to: room), x: rect.x + 2 + keyWidth, y: rect.y + 2 + i, maxWidth: room)
    }
    if scrolls {
      let more = (first > 0 ? "↑" : " ") + (first + rows < lines.count ? "↓" : " ")
      buffer.put(more, x: rect.x + width - 4, y: rect.y + height - 1, style: theme.focusedBorder)
    }
  }
}
