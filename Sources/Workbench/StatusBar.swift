import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// The status bar: a prompt while one is open, else the workspace, environment, counts and the
/// last message or the focused pane's key hints.
extension Painter {
  func statusBar(_ buffer: inout ScreenBuffer) {
    let area = layout.status
    if let prompt = state.prompt {
      let x = buffer.put(prompt.label + ": ", x: area.x, y: area.y, style: theme.key)
      // What the line-editing keys do, at the right when there is room.
      let editing = prompt.input.selected ? ["typing replaces", Keymap.hint(.cursorLeft, in: .lineEdit)] : [Keymap.hint(.clearBefore, in: .lineEdit)]
      let hint = (editing + [Keymap.hint(.cancelPrompt, in: .prompt)]).compactMap { $0 }.joined(separator: " · ")
      let hintWidth = TextWidth.of(hint) + 1
      var width = area.width - x
      if width - hintWidth >= 30 {
        buffer.put(hint, x: area.x + area.width - hintWidth, y: area.y, style: theme.dim)
        width -= hintWidth + 1
      }
      var input = prompt.input
      if prompt.isHidden { input.text = String(repeating: "•", count: input.text.count) }
      drawEdit(input, &buffer, x: x, y: area.y, width: width)
      if let error = prompt.error, area.y > 0 {
        // Why Enter was refused, on the line above the prompt until the text changes (two lines
        // when it is long, its end kept: that is where it says what to do).
        let (top, bottom) = Painter.twoRows("✗ " + error, top: area.width - 2, bottom: area.width - 2)
        let rows = bottom.isEmpty || area.y < 2 ? [bottom.isEmpty ? top : bottom] : [top, bottom]
        for (i, row) in rows.enumerated() {
          let line = Rect(x: area.x, y: area.y - rows.count + i, width: area.width, height: 1)
          buffer.fill(line)
          buffer.putTruncated(row, x: area.x + 1, y: line.y, style: theme.error, width: area.width - 2)
        }
      }
      return
    }
    let environment = state.sources.environment ?? state.workspace.environment
    var left = " \(state.workspace.name)"
    if let environment { left += " · env \(environment)" }
    if state.isNewFile { left += " · new, not saved" }
    let unsavedCount = state.unsaved.count + state.unsavedSettings.count
    if unsavedCount > 0 { left += " · \(unsavedCount) unsaved" }
    if let disk = state.disk { left += " · " + disk.label }
    var x = buffer.putTruncated(left, x: area.x, y: area.y, style: theme.title, width: area.width)
    let (running, queued, failed) = state.exchangeCounts
    let counts = " · \(running) running · \(queued) queued · \(failed) failed "
    // A message says what the last key did: one too long to fit after the counts takes their
    // place (the queue shows them) rather than being cut.
    let messageFits = state.message.map { x + TextWidth.of(counts) + 1 + TextWidth.of($0.text) <= area.width } ?? true
    if messageFits {
      x += buffer.putTruncated(counts, x: x, y: area.y, style: failed > 0 ? theme.error : theme.dim, width: area.width - x)
    } else {
      x += buffer.putTruncated(" ·", x: x, y: area.y, style: theme.dim, width: area.width - x)
    }
    if let message = state.message {
      let style = message.isError ? theme.error : Style.plain
      let room = area.width - x - 1
      if TextWidth.of(message.text) <= room || area.y == 0 {
        buffer.putTruncated(" " + message.text, x: x, y: area.y, style: style, width: area.width - x)
      } else {
        // Too long even in the counts' place: it starts on the line above and ends here; when two
        // lines are not enough, its middle is cut and its end (what to do) kept. `M` shows it whole.
        let (top, bottom) = Painter.twoRows(message.text, top: area.width - 2, bottom: room)
        let above = Rect(x: area.x, y: area.y - 1, width: area.width, height: 1)
        buffer.fill(above)
        buffer.putTruncated(top, x: area.x + 1, y: above.y, style: style, width: area.width - 2)
        buffer.putTruncated(" " + bottom, x: x, y: area.y, style: style, width: area.width - x)
      }
    } else {
      let (hints, essential) = state.statusHints
      buffer.putTruncated(
        " " + Painter.fit(hints, width: area.width - x - 1, keeping: essential), x: x, y: area.y, style: theme.dim,
        width: area.width - x)
    }
  }

  /// `text` on two rows of `top` and `bottom` columns, cut at its words: the first row as full as
  /// it goes, the rest on the second; when the rest does not fit there, the second row keeps the
  /// text's last words (a message ends with what to do) and the first is cut with "…".
  static func twoRows(_ text: String, top: Int, bottom: Int) -> (top: String, bottom: String) {
    let rows = TextWidth.wordWrap(text, width: top)
    guard rows.count > 1 else { return (rows.first ?? "", "") }
    let rest = rows.dropFirst().joined(separator: " ")
    if TextWidth.of(rest) <= bottom { return (rows[0], rest) }
    let words = text.split(separator: " ").map(String.init)
    var end = words.count
    var width = 0
    while end > 1 {
      let added = TextWidth.of(words[end - 1]) + (width == 0 ? 0 : 1)
      if width + added > bottom { break }
      width += added
      end -= 1
    }
    guard end < words.count else { return (TextWidth.truncate(text, to: top), "") }
    let head = words[..<end].joined(separator: " ")
    return (TextWidth.truncate(head + " …", to: top), words[end...].joined(separator: " "))
  }

  /// Hints joined with ` · ` in `width` columns: whole hints dropped from the end (never one cut
  /// mid-word), the essential ones (`? help`, `q quit`) the last to go.
  static func fit(_ hints: [String], width: Int, keeping essential: Set<String>) -> String {
    var kept = hints
    while TextWidth.of(kept.joined(separator: " · ")) > width {
      if let last = kept.lastIndex(where: { !essential.contains($0) }) {
        kept.remove(at: last)
      } else if !kept.isEmpty {
        kept.removeFirst()
      } else {
        break
      }
    }
    return kept.joined(separator: " · ")
  }
}

extension AppState {
  /// The keys the status bar shows: those of the overlay or question on top, else the focused
  /// pane's (a field being edited, a type list open: theirs).
  var statusHints: (hints: [String], essential: Set<String>) {
    switch layer {
    case .overlay, .question: Keymap.hints(in: keyContext)
    case .tooSmall, .prompt, .field, .choice, .pane: Keymap.hints(in: paneContext)
    }
  }
}
