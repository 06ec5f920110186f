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
        // Why Enter was refused, on the line above the prompt until the text changes.
        let line = Rect(x: area.x, y: area.y - 1, width: area.width, height: 1)
        buffer.fill(line)
        buffer.putTruncated("✗ " + error, x: area.x + 1, y: line.y, style: theme.error, width: area.width - 2)
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
      buffer.putTruncated(" " + message.text, x: x, y: area.y, style: message.isError ? theme.error : .plain, width: area.width - x)
    } else {
      let (hints, essential) = state.statusHints
      buffer.putTruncated(
        " " + Painter.fit(hints, width: area.width - x - 1, keeping: essential), x: x, y: area.y, style: theme.dim,
        width: area.width - x)
    }
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
