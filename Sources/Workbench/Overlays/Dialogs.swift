import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// `q` while transfers run: cancel them and quit? (Then, with edits unsaved, `UnsavedChangesQuestion`.)
struct QuitQuestion: Overlay {
  static let id = OverlayID.confirmQuit

  func keyContext(in app: AppState) -> KeyContext { .confirmQuit }

  static func update(_ key: Key, _ app: inout AppState) -> [Command] {
    switch Keymap.action(for: key, in: .confirmQuit) {
    case .cancelAndQuit where app.hasUnsavedEdits:
      app.open(UnsavedChangesQuestion())
      return [.cancelAll]
    case .cancelAndQuit, .quitNow:
      app.closeOverlay()
      return [.cancelAll, .quit]
    default:
      app.closeOverlay()
      app.message = StatusMessage("not quitting; C cancels every transfer")
      return []
    }
  }

  func view(_ painter: Painter, _ buffer: inout ScreenBuffer) {
    let count = painter.state.runningCount + painter.state.queuedCount
    let text =
      (count == 1 ? "1 transfer is still running." : "\(count) transfers are still running.")
      + " Cancel \(count == 1 ? "it" : "them") and quit? ("
      + Keymap.keyName(.cancelAndQuit, in: .confirmQuit) + "/n)"
    painter.dialog(&buffer, title: "Quit", [text, footer(in: painter.state).text])
  }

  func footer(in app: AppState) -> Footer {
    var footer = Footer()
    footer.key(.quitNow, in: .confirmQuit, "again quits")
    return footer
  }
}

/// Quitting with edits not saved: save, discard or stay?
struct UnsavedChangesQuestion: Overlay {
  static let id = OverlayID.unsavedChanges

  func keyContext(in app: AppState) -> KeyContext { .unsavedChanges }

  static func update(_ key: Key, _ app: inout AppState) -> [Command] {
    app.closeOverlay()
    switch Keymap.action(for: key, in: .unsavedChanges) {
    case .saveAndQuit:
      app.quitAfterSave = true
      return [.save]
    case .discardAndQuit:
      return [.quit]
    default:
      app.message = StatusMessage("not quitting; Ctrl-S saves the workspace")
      return []
    }
  }

  func view(_ painter: Painter, _ buffer: inout ScreenBuffer) {
    let state = painter.state
    let count = state.unsaved.count
    let names = state.unsaved.sorted().joined(separator: ", ")
    var what: [String] = []
    // Batches and chains edited in the editor's form are kept by name with the requests.
    let flows = state.unsaved.filter { state.workspace.batch(named: $0) != nil || state.workspace.chain(named: $0) != nil }
    let noun = flows.isEmpty ? (count == 1 ? "request" : "requests") : flows.count == count ? (count == 1 ? "batch or chain" : "batches and chains") : "requests, batches and chains"
    if count > 0 { what.append("\(count) \(noun) \(count == 1 ? "has" : "have") unsaved changes: " + names) }
    if !state.unsavedSettings.isEmpty { what.append("unsaved: " + state.unsavedSettings.sorted().joined(separator: ", ")) }
    painter.dialog(&buffer, title: "Unsaved changes", [what.joined(separator: "; "), footer(in: state).text])
  }

  func footer(in app: AppState) -> Footer {
    var footer = Footer()
    footer.key(.saveAndQuit, in: .unsavedChanges, "save and quit")
    footer.key(.discardAndQuit, in: .unsavedChanges, "discard and quit")
    // Any other key stays (the section's note): Esc is the one named.
    footer.text("Esc stay")
    return footer
  }
}

extension OverlayID {
  public static let confirmQuit = OverlayID("confirmQuit")
  public static let unsavedChanges = OverlayID("unsavedChanges")
}

extension Painter {

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
