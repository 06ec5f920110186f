/// Folders in the request list fold and unfold, as lazygit's and gitui's trees do: Enter or space
/// on a folder row folds or unfolds it, → unfolds it (on an open one: goes to its first row), ←
/// folds it (on a folded one: goes to its parent folder), and ← on a request folds the folder it
/// is in and selects that folder; R renames or moves it (`Organise.swift`). What is folded is kept for the session
/// (`RequestListState.collapsed`); while a filter is typed every match shows.
extension AppState {
  mutating func handleFolder(_ action: Action, _ path: String) -> [Command] {
    let folded = list.collapsed.contains(path)
    switch action {
    case .toggleFolder:
      setFolded(path, !folded)
    case .expandFolder:
      if folded {
        setFolded(path, false)
      } else if list.selection + 1 < selectableCount {
        selectRequest(list.selection + 1)
      }
    case .collapseFolder:
      if !folded {
        setFolded(path, true)
      } else if let parent = ListRow.folder(of: path) {
        selectFolder(parent)
      }
    case .renameFolder:
      startRenameFolder(path)
    default:
      break
    }
    return []
  }

  /// ← on a request: folds the folder it is in and selects the folder.
  mutating func foldFolderOfSelected() {
    guard let name = selectedRequest?.name, let folder = ListRow.folder(of: name) else { return }
    setFolded(folder, true)
    selectFolder(folder)
  }

  private mutating func setFolded(_ path: String, _ folded: Bool) {
    guard list.filter.isEmpty else {
      message = StatusMessage("every match shows while filtering: Esc clears the filter, then folders fold")
      return
    }
    if folded {
      list.collapsed.insert(path)
    } else {
      list.collapsed.remove(path)
    }
    // The folder's row stays where it was: the rows below it moved, keep them in view.
    selectRequest(list.selection)
  }

  /// Selects the folder row of `path`; false when no row shows it.
  @discardableResult
  mutating func selectFolder(_ path: String) -> Bool {
    guard let found = firstListEntry(where: { $0.row.folderPath == path }), let item = found.entry.item else { return false }
    selectRequest(item)
    return true
  }

  /// Selects the request named `name`, unfolding the folders it is in; false when no row shows
  /// it (the filter hides it).
  @discardableResult
  public mutating func selectRequest(named name: String) -> Bool {
    var folder = ListRow.folder(of: name)
    while let path = folder {
      list.collapsed.remove(path)
      folder = ListRow.folder(of: path)
    }
    let requests = workspace.requests
    guard let found = firstListEntry(where: { $0.request.map { requests[$0].name == name } ?? false }),
      let item = found.entry.item
    else { return false }
    selectRequest(item)
    return true
  }

  /// Selects the batch or chain named `name`; false when the filter hides it.
  @discardableResult
  public mutating func selectFlow(named name: String) -> Bool {
    guard let found = firstListEntry(where: { $0.row.flowName == name }), let item = found.entry.item else { return false }
    selectRequest(item)
    return true
  }
}

extension ListRow {
  /// The folder a request or folder is in: `users/admin` for `users/admin/get`, nil at the top.
  static func folder(of name: String) -> String? {
    name.lastIndex(of: "/").map { String(name[..<$0]) }
  }

  var folderPath: String? {
    guard case .folder(let path, _, _) = self else { return nil }
    return path
  }

  var flowName: String? {
    guard case .flow(let name, _) = self else { return nil }
    return name
  }
}
