import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// What the runtime found about the workspace file on disk (a `git pull`, an editor's save),
/// from the `FileWatcher` in its poll set and `WorkspaceFile`'s checks and saves.
public enum DiskEvent: Sendable {
  /// The file changed and was read again: this is what it holds now (`dropped`: the user asked
  /// to reload, giving up the edits made here).
  case reloaded(Workspace, dropped: Bool = false)
  /// The file changed but does not load (or cannot be read): what is shown stays.
  case unreadable(String)
  /// The file changed while edits are unsaved here: they are kept; a save asks.
  case conflict
  /// The file is gone: what is shown stays; a save writes it again.
  case deleted
  /// A save found another program's change and wrote nothing: ask what to do.
  case saveRefused
  /// The user's unsaved edits merged with another program's change (`WorkspaceFile.merge`):
  /// this is the result, not saved yet.
  case merged(Workspace)
  /// The merge was refused: why (both sides changed one value, named).
  case mergeFailed(String)
  /// After a change was said, the file holds again what was loaded (a change undone, a broken
  /// file put back): the notice goes.
  case asLoaded
}

/// What the status bar keeps saying about the file on disk until a save or a reload.
public enum DiskNotice: Sendable, Equatable {
  /// Another program changed it while edits here are unsaved.
  case changed
  /// It changed and does not load now: the reason.
  case unreadable(String)
  /// It was deleted.
  case deleted

  var label: String {
    switch self {
    case .changed: "changed on disk"
    case .unreadable: "file does not load"
    case .deleted: "file deleted"
    }
  }
}

/// The file changing on disk: with no unsaved edits the workspace is read again (the selection
/// kept by request name) and the status bar says so; with unsaved edits it says so at once and
/// the next Ctrl-S asks: merge (`WorkspaceFile.merge`: its changes and mine together, refused
/// where both changed one value), reload and drop my edits, overwrite, or cancel. Nothing here ever writes
/// over another program's change without that answer: the runtime's save refuses to
/// (`WorkspaceFile.save`) and comes back as `saveRefused`.
extension AppState {
  /// Edits here the file does not have: unsaved ones, or a field being typed.
  public var hasEditsInProgress: Bool { hasUnsavedEdits || editor.editing != nil }

  mutating func diskChanged(_ event: DiskEvent) {
    switch event {
    case .reloaded(let newWorkspace, let dropped):
      let lost = reload(newWorkspace)
      message = StatusMessage(
        (dropped ? "reloaded \(workspaceFile), your edits dropped" : "reloaded \(workspaceFile): it changed on disk") + lost)
    case .unreadable(let reason):
      disk = .unreadable(reason)
      // The reason first (it names the file and where it is broken): a narrow status bar cuts the end.
      message = StatusMessage(
        "changed on disk, does not load: \(reason); still showing what was loaded (fix the file; Ctrl-S asks before writing over it)",
        isError: true)
    case .conflict:
      disk = .changed
      message = StatusMessage(
        "\(workspaceFile) changed on disk; your unsaved edits are kept here: Ctrl-S asks whether to merge, reload (dropping them) or overwrite",
        isError: true)
    case .deleted:
      disk = .deleted
      message = StatusMessage("\(workspaceFile) was deleted on disk; still showing it (Ctrl-S writes it again)", isError: true)
    case .merged(let merged):
      let lost = reload(merged, keepingEdits: true)
      message = StatusMessage("merged: \(workspaceFile)'s changes and your unsaved edits together (Ctrl-S saves)\(lost)")
    case .mergeFailed(let reason):
      open(DiskConflictQuestion())
      message = StatusMessage("cannot merge: \(reason); r reloads (dropping your edits), o overwrites, Esc cancels", isError: true)
    case .saveRefused:
      if disk == nil { disk = .changed }
      quitAfterSave = false
      open(DiskConflictQuestion())
    case .asLoaded:
      guard disk != nil else { return }
      disk = nil
      message = StatusMessage("\(workspaceFile) holds what was loaded again")
    }
  }

  /// The file's new content in place of the workspace shown, keeping the selected request (or
  /// batch or chain) by name; returns what to tell when it is gone. `keepingEdits`: it is a
  /// merge that holds the unsaved edits, which stay unsaved.
  private mutating func reload(_ newWorkspace: Workspace, keepingEdits: Bool = false) -> String {
    let selectedName = selectedRequest?.name ?? selectedFlow?.name
    workspace = newWorkspace
    if !keepingEdits {
      unsaved = []
      unsavedSettings = []
      sources.renamedEnvironments = [:]  // the file names them as it did: their jars stay
    }
    // The file's choice, unless one made here is kept (then the file's is what it was).
    if !unsavedSettings.contains("environment") { savedEnvironment = newWorkspace.environment }
    isNewFile = false
    disk = nil
    editor.editing = nil
    // What referred to the content shown before: a delete's undo and its question go; marks
    // stay on the requests the file still has.
    lastUndo = nil
    if pendingDelete != nil { dropQuestion() }
    marked.removeAll { newWorkspace.request(named: $0) == nil }
    var kept = true
    if let selectedName {
      kept = selectRequest(named: selectedName) || selectFlow(named: selectedName)
    }
    clampSelections()
    return kept ? "" : " (\(selectedName ?? "") is no longer in it)"
  }
}

/// A save found the file changed by another program: merge, reload, overwrite or cancel?
struct DiskConflictQuestion: Overlay {
  static let id = OverlayID.diskConflict

  func keyContext(in app: AppState) -> KeyContext { .diskConflict }

  static func update(_ key: Key, _ app: inout AppState) -> [Command] {
    app.closeOverlay()
    switch Keymap.action(for: key, in: .diskConflict) {
    case .reloadFromDisk:
      app.message = StatusMessage("reloading \(app.workspaceFile)…")
      return [.reload]
    case .mergeWithDisk:
      app.message = StatusMessage("merging \(app.workspaceFile)…")
      return [.mergeWithDisk]
    case .overwrite:
      return [.saveOverwriting]
    default:
      app.message = StatusMessage("not saved; your edits are kept here and the file on disk as it is")
      return []
    }
  }

  func view(_ painter: Painter, _ buffer: inout ScreenBuffer) {
    let state = painter.state
    let count = state.unsaved.count + state.unsavedSettings.count
    let change =
      switch state.disk {
      case .unreadable(let reason): "was changed by another program and does not load (\(reason))"
      default: "was changed by another program since it was loaded"
      }
    // Two lines: the first two choices, then the last and cancelling.
    let (first, second) = footer(in: state).split(after: 2)
    painter.dialog(
      &buffer, title: "Changed on disk",
      [
        "\(state.workspaceFile) \(change); \(count) edit\(count == 1 ? "" : "s") here \(count == 1 ? "is" : "are") not saved.",
        first.text, second.text,
      ])
  }

  func footer(in app: AppState) -> Footer {
    var footer = Footer()
    footer.key(.mergeWithDisk, in: .diskConflict, "merge its changes and mine")
    footer.key(.reloadFromDisk, in: .diskConflict, "reload it and drop my edits")
    footer.key(.overwrite, in: .diskConflict, "overwrite it with mine")
    // Any other key cancels (the section's note): Esc is the one named.
    footer.text("Esc cancel")
    return footer
  }
}

extension OverlayID { public static let diskConflict = OverlayID("diskConflict") }
