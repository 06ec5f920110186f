import Foundation
import RequestEngine
import Workspace

/// The editor pane's own state.
public struct EditorState: Sendable {
  /// The request the position below belongs to: another request selected starts at its first
  /// fields (`follow`), not where the one before was scrolled to.
  public var request: String?
  /// The selected field of the selected request (`RequestTemplate.editorFields`).
  public var field = 0
  /// The first field shown below the resolved request line.
  public var scroll = 0
  /// The field being edited in place, while it is.
  public var editing: LineEdit?
  /// A body `$EDITOR` left that was refused (not valid JSON), by request name: the next `E` on
  /// that request opens it again instead of the body as it was, so nothing typed is lost.
  public var refusedBodies: [String: String] = [:]

  /// The request shown is `name`: a different one than the position belongs to starts at the top.
  mutating func follow(_ name: String?) {
    guard name != request else { return }
    request = name
    field = 0
    scroll = 0
  }
}

/// The editor pane: moving over the fields, editing one in place, the body in $EDITOR.
extension AppState {
  /// `$EDITOR` closed: the body it left replaces the request's (checked: a broken JSON body is
  /// refused with where it is broken).
  mutating func bodyEdited(_ text: String?, error: String?) {
    if let error {
      message = StatusMessage("$EDITOR failed: \(error); set EDITOR to your editor's command", isError: true)
    } else if let text, let template = selectedRequest {
      do {
        replace(template, with: try template.applyingBody(text))
        editor.refusedBodies[template.name] = nil
        message = StatusMessage("body updated; Ctrl-S saves the workspace")
      } catch {
        // Kept: the next E reopens the editor on it.
        editor.refusedBodies[template.name] = text
        message = StatusMessage(error.message + "; E reopens your text to fix it", isError: true)
      }
    } else if text == nil {
      if let name = selectedRequest?.name, editor.refusedBodies.removeValue(forKey: name) != nil {
        // The refused text reopened and left as it was: given up; the body is the one before.
        message = StatusMessage("refused text left unchanged and dropped; the body is as it was (E edits it)")
      } else {
        message = StatusMessage("body unchanged")
      }
    }
  }

  /// `E`: `$EDITOR` on the body, or on the text it left last time when that was refused.
  mutating func editBody() -> [Command] {
    guard let template = selectedRequest else { return [] }
    let (text, ext) = template.bodyEditorText
    return [.edit(text: editor.refusedBodies[template.name] ?? text, fileExtension: ext)]
  }

  mutating func handleEditor(_ action: Action) -> [Command] {
    guard let template = selectedRequest else { return [] }
    let fields = template.editorFields
    if let index = move(action, editor.field, count: fields.count, page: layout.contentHeight(of: .editor)) {
      editor.field = index
      let height = layout.contentHeight(of: .editor) - 1
      if editor.field < editor.scroll { editor.scroll = editor.field }
      if editor.field >= editor.scroll + height { editor.scroll = editor.field - height + 1 }
      return []
    }
    switch action {
    case .sendIgnoringCache:
      return sendSelected(ignoringCache: true)
    case .editField:
      guard fields.indices.contains(editor.field) else { return [] }
      let field = fields[editor.field]
      if field.editable {
        editor.editing = LineEdit(field.value)
        return []
      }
      return editBody()
    case .editBody:
      return editBody()
    case .send:
      return sendSelected()
    default:
      return []
    }
  }

  mutating func handleEditing(_ key: Key) -> [Command] {
    guard var edit = editor.editing, let template = selectedRequest else {
      editor.editing = nil
      return []
    }
    switch Keymap.action(for: key, in: .editing) {
    case .cancelEdit:
      editor.editing = nil
      message = StatusMessage("edit cancelled")
    case .keepEdit:
      let fields = template.editorFields
      guard fields.indices.contains(editor.field) else {
        editor.editing = nil
        return []
      }
      do {
        replace(template, with: try template.applying(edit.text, to: fields[editor.field].kind))
        editor.editing = nil
        message = StatusMessage("changed \(fields[editor.field].label.lowercased()); Ctrl-S saves")
      } catch {
        message = StatusMessage(error.message + " (Esc cancels)", isError: true)
      }
    default:
      if edit.apply(key) { editor.editing = edit }
    }
    return []
  }

  /// Puts an edited template in place of the old one and marks it unsaved.
  mutating func replace(_ old: RequestTemplate, with new: RequestTemplate) {
    guard let index = workspace.requests.firstIndex(where: { $0.name == old.name }) else { return }
    workspace.requests[index] = new
    unsaved.insert(new.name)
  }
}
