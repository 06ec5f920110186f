import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// The quit questions: transfers still running (cancel them and quit?), then edits not saved
/// (save, discard or stay?).
extension AppState {
  mutating func handleConfirmQuitKey(_ key: Key) -> [Command] {
    switch Keymap.action(for: key, in: .confirmQuit) {
    case .cancelAndQuit where hasUnsavedEdits:
      overlay = .unsavedChanges
      return [.cancelAll]
    case .cancelAndQuit, .quitNow:
      overlay = nil
      return [.cancelAll, .quit]
    default:
      overlay = nil
      message = StatusMessage("not quitting; C cancels every transfer")
      return []
    }
  }

  mutating func handleUnsavedChangesKey(_ key: Key) -> [Command] {
    switch Keymap.action(for: key, in: .unsavedChanges) {
    case .saveAndQuit:
      overlay = nil
      quitAfterSave = true
      return [.save]
    case .discardAndQuit:
      overlay = nil
      return [.quit]
    default:
      overlay = nil
      message = StatusMessage("not quitting; Ctrl-S saves the workspace")
      return []
    }
  }
}

extension Painter {
  func confirmQuit(_ buffer: inout ScreenBuffer) {
    let count = state.runningCount + state.queuedCount
    let text =
      (count == 1 ? "1 transfer is still running." : "\(count) transfers are still running.")
      + " Cancel \(count == 1 ? "it" : "them") and quit? (y/n)"
    dialog(&buffer, title: "Quit", [text, "Ctrl-C again quits"])
  }

  func unsavedChanges(_ buffer: inout ScreenBuffer) {
    let count = state.unsaved.count
    let names = state.unsaved.sorted().joined(separator: ", ")
    var what: [String] = []
    if count > 0 { what.append((count == 1 ? "1 request has unsaved changes: " : "\(count) requests have unsaved changes: ") + names) }
    if !state.unsavedSettings.isEmpty { what.append("unsaved: " + state.unsavedSettings.sorted().joined(separator: ", ")) }
    dialog(
      &buffer, title: "Unsaved changes",
      [
        what.joined(separator: "; "),
        "s save and quit · d discard and quit · Esc stay",
      ])
  }

  /// A box in the middle of the screen, lines ellipsized to fit.
  func dialog(_ buffer: inout ScreenBuffer, title: String, _ lines: [String]) {
    let width = min(buffer.width - 4, (lines.map(TextWidth.of).max() ?? 0) + 6)
    let rect = Rect(x: (buffer.width - width) / 2, y: buffer.height / 2 - 2, width: width, height: lines.count + 4)
    buffer.fill(rect)
    buffer.box(rect, title: title, style: theme.error, titleStyle: theme.error)
    for (i, line) in lines.enumerated() {
      buffer.putTruncated(line, x: rect.x + 3, y: rect.y + 2 + i, style: i == 0 ? .plain : theme.dim, width: width - 6)
    }
  }
}
