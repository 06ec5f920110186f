import RequestEngine
import Workspace

/// Organising the request list: `D` duplicates (`name-2`), `R` renames or moves (folders by `/`;
/// batches and chains that name it follow), `d` deletes after `y/n` and `u` undoes the last
/// delete until the next save; space marks requests, and `b`/`B` make a batch or a chain of the
/// marked ones in marking order. Each is an operation on the workspace model
/// (`Workspace+Editing.swift`), so a save writes only what was done.
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
    pendingDelete = name
    let references = workspace.references(to: name).count
    message = StatusMessage(
      "delete \(name)" + (references > 0 ? " and its \(references) batch and chain references" : "") + "? y/n")
  }

  /// The answer to `delete NAME? y/n`: `y` deletes (kept for `u`), any other key keeps it.
  mutating func answerDelete(_ key: Key) {
    guard let name = pendingDelete else { return }
    pendingDelete = nil
    guard Keymap.action(for: key, in: .confirmDelete) == .deleteNow else {
      message = StatusMessage("kept \(name)")
      return
    }
    let position = list.selection
    do {
      let deletion = try workspace.deleteRequest(named: name)
      lastDeletion = (deletion, wasUnsaved: unsaved.contains(name))
    } catch {
      message = StatusMessage("not deleted: \(error.message)", isError: true)
      return
    }
    unsaved.insert(name)
    marked.removeAll { $0 == name }
    selectRequest(min(position, max(0, selectableCount - 1)))
    let references = lastDeletion?.deletion.references.count ?? 0
    message = StatusMessage(
      "deleted \(name)" + (references > 0 ? " and its \(references) batch and chain references" : "")
        + "; u undoes it until the next save")
  }

  mutating func undoDelete() {
    guard let (deletion, wasUnsaved) = lastDeletion else {
      message = StatusMessage("nothing to undo (u undoes the last delete until a save)")
      return
    }
    do {
      try workspace.restore(deletion)
    } catch {
      message = StatusMessage("not undone: \(error.message)", isError: true)
      return
    }
    lastDeletion = nil
    let name = deletion.request.name
    if !wasUnsaved { unsaved.remove(name) }
    list.filter = ""
    selectRequest(named: name)
    message = StatusMessage("restored \(name)")
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
