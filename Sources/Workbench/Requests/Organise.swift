import RequestEngine
import Workspace

/// What `u` puts back, until the next save: the last delete or the last folder rename.
enum UndoableEdit: Sendable {
  /// A deleted request (and the batch and chain references that went with it); whether it had
  /// unsaved edits.
  case delete(RequestDeletion, wasUnsaved: Bool)
  /// A folder renamed from `old` to `new`: each request's names, and those of them that had
  /// unsaved edits before.
  case folderRename(old: String, new: String, moved: [(old: String, new: String)], wasUnsaved: Set<String>)
}

/// Organising the request list: `D` duplicates (`name-2`), `R` renames or moves (folders by `/`;
/// batches and chains that name it follow; on a folder row, every request in the folder moves),
/// `d` deletes after `y/n` and `u` undoes the last delete or folder rename until the next save;
/// space marks requests, and `b`/`B` make a batch or a chain of the marked ones in marking order.
/// Each is an operation on the workspace model (`Workspace+Editing.swift`), so a save writes only
/// what was done.
extension AppState {
  mutating func duplicateSelected() {
    guard let name = selectedRequest?.name else { return noRequestSelected() }
    do {
      let copy = try workspace.duplicateRequest(named: name)
      unsaved.insert(copy.name)
      list.filter = ""
      selectRequest(named: copy.name)
      message = StatusMessage("duplicated \(name) as \(copy.name) (unsaved; R renames it)")
    } catch {
      message = StatusMessage("not duplicated: \(error.message)", isError: true)
    }
  }

  mutating func startRename() {
    guard let name = selectedRequest?.name else { return noRequestSelected() }
    prompt = Prompt(purpose: .renameRequest(name), label: "rename \(name) to (folders with /)", input: LineEdit(name))
  }

  /// The rename prompt's answer; a refused name keeps the prompt open with why.
  mutating func renameRequest(_ old: String, _ input: LineEdit) {
    let new = input.text
    guard new != old else {
      message = StatusMessage("\(old): name unchanged")
      return
    }
    let references = workspace.references(to: old).count
    do {
      try workspace.renameRequest(old, to: new)
    } catch {
      prompt = Prompt(
        purpose: .renameRequest(old), label: "rename \(old) to (folders with /)", input: input, error: error.message)
      return
    }
    requestRenamed(old, to: new)
    message = StatusMessage(
      "renamed \(old) to \(new)" + (references > 0 ? "; \(references) batch and chain references follow" : "")
        + " (unsaved)")
  }

  mutating func askDelete() {
    guard let name = selectedRequest?.name else { return noRequestSelected() }
    ask(.delete(request: name))
    let references = workspace.references(to: name).count
    message = StatusMessage(
      "delete \(name)" + (references > 0 ? " and its \(references) batch and chain references" : "") + "? y/n")
  }

  /// The answer to `delete NAME? y/n`: `y` deletes (kept for `u`), any other key keeps it.
  mutating func answerDelete(_ name: String, _ key: Key) {
    guard Keymap.action(for: key, in: .confirmDelete) == .deleteNow else {
      message = StatusMessage("kept \(name)")
      return
    }
    let position = list.selection
    let references: Int
    do {
      let deletion = try workspace.deleteRequest(named: name)
      lastUndo = .delete(deletion, wasUnsaved: unsaved.contains(name))
      references = deletion.references.count
    } catch {
      message = StatusMessage("not deleted: \(error.message)", isError: true)
      return
    }
    unsaved.insert(name)
    marked.removeAll { $0 == name }
    selectRequest(min(position, max(0, selectableCount - 1)))
    message = StatusMessage(
      "deleted \(name)" + (references > 0 ? " and its \(references) batch and chain references" : "")
        + "; u undoes it until the next save")
  }

  /// `u`: undoes the last delete or folder rename (kept until a save).
  mutating func undo() {
    switch lastUndo {
    case nil:
      message = StatusMessage("nothing to undo (u undoes the last delete or folder rename until a save)")
    case .delete(let deletion, let wasUnsaved)?:
      do {
        try workspace.restore(deletion)
      } catch {
        message = StatusMessage("not undone: \(error.message)", isError: true)
        return
      }
      lastUndo = nil
      let name = deletion.request.name
      if !wasUnsaved { unsaved.remove(name) }
      list.filter = ""
      selectRequest(named: name)
      message = StatusMessage("restored \(name)")
    case .folderRename(let old, let new, let moved, let wasUnsaved)?:
      // Each request back to its own name: requests that were in `new` before stay there.
      let back = moved.map { (old: $0.new, new: $0.old) }
      do {
        try workspace.renameRequests(back)
      } catch {
        message = StatusMessage("not undone: \(error.message)", isError: true)
        return
      }
      lastUndo = nil
      folderRenamed(back, from: new, to: old)
      for pair in moved where !wasUnsaved.contains(pair.old) { unsaved.remove(pair.old) }
      message = StatusMessage("renamed the folder \(new)/ back to \(old)/")
    }
  }

  /// `R` on a folder row: asks the folder's new path (again with why, after a refusal).
  mutating func startRenameFolder(_ path: String, _ input: LineEdit? = nil, error: String? = nil) {
    prompt = Prompt(
      purpose: .renameFolder(path), label: "rename the folder \(path)/ to (every request in it moves)",
      input: input ?? LineEdit(path), error: error)
  }

  /// The folder rename prompt's answer: every request in the folder (subfolders too) moves in one
  /// step, which `u` undoes; a refused name keeps the prompt open with why.
  mutating func renameFolder(_ old: String, _ input: LineEdit) {
    var new = input.text
    while new.hasSuffix("/") { new.removeLast() }
    guard !new.isEmpty else { return startRenameFolder(old, input, error: "a folder needs a name (Esc keeps \(old)/)") }
    guard new != old else {
      message = StatusMessage("\(old)/: name unchanged")
      return
    }
    let before = unsaved
    let moved: [(old: String, new: String)]
    do {
      moved = try workspace.renameFolder(old, to: new)
    } catch {
      return startRenameFolder(old, input, error: error.message)
    }
    folderRenamed(moved, from: old, to: new)
    lastUndo = .folderRename(old: old, new: new, moved: moved, wasUnsaved: before.intersection(moved.map(\.old)))
    message = StatusMessage("moved \(moved.count) request\(moved.count == 1 ? "" : "s") from \(old)/ to \(new)/ (u undoes it)")
  }

  /// A folder's requests renamed (or renamed back): what the TUI keeps by name follows, the
  /// folded folders under the old path are folded under the new one, and the folder stays selected.
  private mutating func folderRenamed(_ moved: [(old: String, new: String)], from old: String, to new: String) {
    namesFollow(moved)
    let prefix = old + "/"
    list.collapsed = Set(
      list.collapsed.map { path in
        path == old ? new : path.hasPrefix(prefix) ? new + "/" + path.dropFirst(prefix.count) : path
      })
    if !selectFolder(new) {
      list.filter = ""
      selectFolder(new)
    }
  }

  /// Space: marks the selected request, or unmarks it; marks keep their order.
  mutating func toggleMark() {
    guard let name = selectedRequest?.name else { return noRequestSelected() }
    if marked.contains(name) {
      marked.removeAll { $0 == name }
    } else {
      marked.append(name)
    }
    message = StatusMessage(
      marked.isEmpty ? "no requests marked" : "marked \(marked.count): \(marked.joined(separator: ", ")) (b batch, B chain)")
  }

  /// `b`/`B`: asks the name of a batch or chain of the marked requests (the selected one when
  /// none is marked).
  mutating func startFlowFromMarked(_ kind: FlowOutcome.Kind) {
    let members = marked.isEmpty ? selectedRequest.map { [$0.name] } ?? [] : marked
    guard !members.isEmpty else { return noRequestSelected() }
    let word = kind == .batch ? "batch" : "chain"
    prompt = Prompt(
      purpose: .nameFlow(kind, members: members), label: "name of the \(word) of \(members.joined(separator: ", "))",
      input: LineEdit(workspace.uniqueName(word), selected: true))
  }

  mutating func makeFlow(_ kind: FlowOutcome.Kind, members: [String], _ input: LineEdit) {
    let name = input.text
    do {
      switch kind {
      case .chain: try workspace.makeChain(named: name, requests: members)
      default: try workspace.makeBatch(named: name, members: members)
      }
    } catch {
      prompt = Prompt(
        purpose: .nameFlow(kind, members: members), label: "name of the \(kind == .batch ? "batch" : "chain")",
        input: input, error: error.message)
      return
    }
    unsaved.insert(name)
    marked = []
    selectFlow(named: name)
    message = StatusMessage(
      "made the \(kind == .batch ? "batch" : "chain") \(name) of \(members.count) (unsaved; Enter runs it)")
  }

  private mutating func noRequestSelected() {
    message = StatusMessage("select a request first (n makes one)", isError: true)
  }
}
