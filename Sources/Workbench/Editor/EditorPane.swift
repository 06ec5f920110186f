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
  /// What `editing` edits when it is not the selected field itself: the path of a file body,
  /// asked on the body's line when `file` is chosen.
  public var editingKind: EditorField.Kind?
  /// The list open under the selected field (the body's or the auth's type).
  public var choosing: ChoiceList?
  /// A body `$EDITOR` left that was refused (not valid JSON), by request name: the next `E` on
  /// that request opens it again instead of the body as it was, so nothing typed is lost.
  public var refusedBodies: [String: String] = [:]
  /// Chain captures run over their steps' last responses, by exchange and capture source.
  public var capturePreviews: [CapturePreviewKey: CapturePreview] = [:]

  /// The request shown is `name`: a different one than the position belongs to starts at the top.
  mutating func follow(_ name: String?) {
    guard name != request else { return }
    request = name
    field = 0
    scroll = 0
    editing = nil
    editingKind = nil
    choosing = nil
  }

  /// Requests renamed (all at once: a new name may be another's old one): the position and a
  /// refused body go with them.
  mutating func requestsRenamed(_ renames: [String: String]) {
    if let name = request, let new = renames[name] { request = new }
    let moved = refusedBodies.keys.filter { renames[$0] != nil }
    let texts = moved.map { refusedBodies.removeValue(forKey: $0) }
    for (old, text) in zip(moved, texts) { refusedBodies[renames[old] ?? old] = text }
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
        let edited = try template.applyingBody(text)
        guard take(edited, replacing: template) else { return }
        editor.refusedBodies[template.name] = nil
        message = StatusMessage(
          template.body == nil && edited.body?.bodyKind == .json
            ? "body updated: JSON, so a json body (sent as application/json); Ctrl-S saves the workspace"
            : "body updated; Ctrl-S saves the workspace")
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
    // Another request right after making one (the editor has the focus then), or from the
    // getting-started lines of an empty workspace.
    if action == .newRequest {
      startNewRequest()
      return []
    }
    guard let template = selectedRequest else { return [] }
    let fields = template.editorFields
    if let index = move(action, editor.field, count: fields.count, page: layout.contentHeight(of: .editor)) {
      selectField(index)
      return []
    }
    switch action {
    case .sendIgnoringCache:
      return sendSelected(ignoringCache: true)
    case .editField:
      guard fields.indices.contains(editor.field) else { return [] }
      let field = fields[editor.field]
      switch field.edit {
      case .inPlace: editor.editing = LineEdit(field.value)
      case .choice(let purpose): openChoice(purpose, for: template)
      }
      return []
    case .toggleField:
      guard fields.indices.contains(editor.field) else { return [] }
      toggle(fields[editor.field], in: template)
      return []
    case .editBody:
      return editBody()
    case .send:
      return sendSelected()
    default:
      return []
    }
  }

  /// Selects the editor's field `index`, scrolled into view (below the resolved request line).
  mutating func selectField(_ index: Int) {
    editor.field = index
    let height = max(1, layout.contentHeight(of: .editor) - 1)
    if editor.field < editor.scroll { editor.scroll = editor.field }
    if editor.field >= editor.scroll + height { editor.scroll = editor.field - height + 1 }
  }

  mutating func handleEditing(_ key: Key) -> [Command] {
    if selectedFlow != nil { return handleFlowEditing(key) }
    guard var edit = editor.editing, let template = selectedRequest else {
      editor.editing = nil
      return []
    }
    switch Keymap.action(for: key, in: .editing) {
    case .save:
      // The edit is kept as Enter keeps it, then saved; an edit that cannot be kept stays open
      // with its reason, and a password asked next is typed before the save.
      let commands = handleEditing(.enter)
      return editor.editing == nil ? commands + [.save] : commands
    case .cancelEdit:
      editor.editing = nil
      editor.editingKind = nil
      message = StatusMessage("edit cancelled")
    case .keepEdit:
      let fields = template.editorFields
      guard let kind = editor.editingKind ?? (fields.indices.contains(editor.field) ? fields[editor.field].kind : nil) else {
        editor.editing = nil
        return []
      }
      let label = fields.first { $0.kind == kind }?.label.trimmingCharacters(in: .whitespaces).lowercased() ?? "file"
      let typed: RequestTemplate
      do {
        typed = try template.applying(edit.text, to: kind)
      } catch {
        message = StatusMessage(error.message + " (Esc cancels)", isError: true)
        return []
      }
      let (edited, writes, moved) = movingTypedCredential(kind, before: template, edited: typed)
      do {
        try replace(template, with: edited)
      } catch {
        message = StatusMessage(error.message + " (Esc cancels)", isError: true)
        return []
      }
      editor.editing = nil
      editor.editingKind = nil
      // A user typed for a new basic or digest auth: its password next.
      let next = edited.editorFields
      if kind == .authUser, let password = next.firstIndex(where: { $0.kind == .authPassword }), next[password].value.isEmpty {
        selectField(password)
        editor.editing = LineEdit("")
        message = StatusMessage("changed user; now the password ({{secret.NAME}} works; Esc leaves it empty)")
        return []
      }
      let secrets = moved.isEmpty ? "" : "; its credential went to the secrets file: " + moved.joined(separator: ", ")
      message = StatusMessage(
        edited.name != template.name
          ? "renamed \(template.name) to \(edited.name)\(referencesNote(to: edited.name)); Ctrl-S saves"
          : "changed \(label)\(secrets); Ctrl-S saves")
      return writes
    default:
      if edit.apply(key) { editor.editing = edit }
    }
    return []
  }

  /// Space on a header or query parameter: switches it off (kept in the editor and the file,
  /// not sent) or back on.
  private mutating func toggle(_ field: EditorField, in template: RequestTemplate) {
    var changed = template
    let what: String
    switch field.kind {
    case .header(let i) where template.headers.fields.indices.contains(i):
      let name = template.headers.fields[i].name
      changed.setEnabled(!template.isEnabled(header: name), header: name)
      what = "header \(name)"
    case .query(let i) where template.query.members.indices.contains(i):
      let key = template.query.members[i].key
      changed.setEnabled(!template.isEnabled(query: key), query: key)
      what = "query parameter \(key)"
    default:
      message = StatusMessage("space switches a header or a query parameter off and on; this line is neither")
      return
    }
    guard take(changed, replacing: template) else { return }
    message = StatusMessage(
      field.enabled ? "\(what) off: kept, not sent (space turns it on)" : "\(what) on: sent again")
  }

  /// `; the 2 batch and chain steps naming it follow` when batches or chains name the request.
  private func referencesNote(to name: String) -> String {
    let count = workspace.references(to: name).count
    return count == 0
      ? "" : count == 1 ? "; the batch or chain step naming it follows" : "; the \(count) batch and chain steps naming it follow"
  }

  /// Puts an edited template in place of the old one through the workspace model (a new name is
  /// a rename: checked, batches and chains follow, and so does everything kept by the name) and
  /// marks it unsaved.
  mutating func replace(_ old: RequestTemplate, with new: RequestTemplate) throws(WorkspaceEditError) {
    try workspace.update(new, named: old.name)
    if new.name != old.name { requestRenamed(old.name, to: new.name) }
    unsaved.insert(new.name)
  }

  /// `replace`, a refusal said in the status bar (false then).
  mutating func take(_ new: RequestTemplate, replacing old: RequestTemplate) -> Bool {
    do {
      try replace(old, with: new)
      return true
    } catch {
      message = StatusMessage(error.message, isError: true)
      return false
    }
  }

  /// Everything the TUI keeps by a request's name follows its rename (the editor's Name field,
  /// `R`): the unsaved mark (a rename is an edit), a mark for a batch or chain, the editor's
  /// position (so the editor stays where it was), a refused body, the viewer's follow, and the
  /// selection (the filter cleared when the new name no longer matches it).
  mutating func requestRenamed(_ old: String, to new: String) {
    namesFollow([(old: old, new: new)])
    if !visibleRequests.contains(where: { $0.name == new }) { list.filter = "" }
    selectRequest(named: new)
  }

  /// What the TUI keeps by request name follows renames made at once (`R` on a request or a
  /// folder, its undo): the unsaved marks, the marks for a batch or chain, the editor's position
  /// and refused bodies, the viewer's follow.
  mutating func namesFollow(_ pairs: [(old: String, new: String)]) {
    let renames = Dictionary(pairs.map { ($0.old, $0.new) }, uniquingKeysWith: { first, _ in first })
    unsaved.subtract(pairs.map(\.old))
    // A rename is an edit: every renamed request is unsaved now.
    unsaved.formUnion(pairs.map(\.new))
    marked = marked.map { renames[$0] ?? $0 }
    editor.requestsRenamed(renames)
    if let name = following, let new = renames[name] { following = new }
  }
}
