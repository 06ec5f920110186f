import Foundation
import RequestEngine
import Workspace

/// The request list's own state.
public struct RequestListState: Sendable {
  /// The name filter typed after `/` (the list shows the requests, batches and chains whose name
  /// contains it).
  public var filter = ""
  /// The selected item: an index into the matching requests, then the matching batches and chains.
  public var selection = 0
  /// The first row shown (folder headings count as rows).
  public var scroll = 0
  /// The folded folders' paths (`users`, `users/admin`), kept for the session.
  public var collapsed: Set<String> = []
  /// The indices (in the workspace) of the requests that match the filter; nil without a filter.
  /// Kept by `AppState` as the filter and the workspace change.
  var matches: [Int]?
  /// Every row, remade as the workspace, the filter or the folded folders change.
  var index = ListIndex()
}

/// The request list: its keys, selection and sending.
extension AppState {
  mutating func handleRequests(_ action: Action) -> [Command] {
    if let index = move(action, list.selection, count: selectableCount, page: layout.contentHeight(of: .requests)) {
      selectRequest(index)
      return []
    }
    // What applies whatever is selected (a request, a batch or chain, nothing).
    switch action {
    case .newRequest:
      startNewRequest()
      return []
    case .undo:
      undo()
      return []
    case .filterRequests:
      prompt = Prompt(purpose: .filterRequests, label: "filter requests", input: LineEdit(list.filter, selected: true))
      return []
    case .clearFilter:
      if !list.filter.isEmpty { clearRequestFilter() }
      return []
    default:
      break
    }
    switch selectedEntry?.row {
    case .flow(let name, _)?: return handleFlow(action, name)
    case .folder(let path, _, _)?: return handleFolder(action, path)
    default: break
    }
    switch action {
    case .send:
      return sendSelected()
    case .sendIgnoringCache:
      return sendSelected(ignoringCache: true)
    case .cancelRequest:
      guard let name = selectedRequest?.name else { return [] }
      let running = exchanges.filter { $0.name == name && !$0.state.isTerminal }
      if running.isEmpty { message = StatusMessage("\(name) has nothing running") }
      return running.map { .cancel($0.id) }
    case .editBody:
      return editBody()
    case .editRequest:
      focus = .editor
      return []
    case .duplicateRequest: duplicateSelected()
    case .renameRequest: startRename()
    case .deleteRequest: askDelete()
    case .toggleMark: toggleMark()
    case .batchFromMarked: startFlowFromMarked(.batch)
    case .chainFromMarked: startFlowFromMarked(.chain)
    case .collapseFolder: foldFolderOfSelected()
    default:
      break
    }
    return []
  }

  /// A selected batch or chain: run it, cancel its runs, resume a chain that failed or was
  /// cancelled (from the failed step, with the values captured so far).
  private mutating func handleFlow(_ action: Action, _ name: String) -> [Command] {
    switch action {
    case .runFlow:
      message = StatusMessage("running \(name)")
      return [.runFlow(name: name, fromStep: 1, captured: [:])]
    case .cancelFlow:
      let running = flows.filter { $0.name == name && !$0.state.isTerminal }
      if running.isEmpty { message = StatusMessage("\(name) is not running") }
      return running.map { .cancelFlow(run: $0.run) }
    case .resumeChain:
      return resume(flows.first(where: { $0.name == name }), name)
    default:
      return []
    }
  }

  mutating func selectRequest(_ index: Int) {
    list.selection = index
    let height = layout.contentHeight(of: .requests)
    // Keep the selected row (folders add rows above it) in view.
    let row = listRow(ofItem: index) ?? 0
    if row < list.scroll { list.scroll = row }
    if row >= list.scroll + height { list.scroll = row - height + 1 }
    editor.field = min(editor.field, max(0, (selectedRequest?.editorFields.count ?? 1) - 1))
  }

  mutating func sendSelected(ignoringCache: Bool = false) -> [Command] {
    guard let prepared = preparedSelection() else {
      message = StatusMessage("no request selected; add requests to \(workspaceFile)", isError: true)
      return []
    }
    switch prepared {
    case .success(var request):
      following = request.name
      historyWanted = nil
      if ignoringCache, request.cache != nil {
        request.cache?.mode = .networkOnly  // the network, and the cached response refreshed
        message = StatusMessage("sent \(request.name), ignoring the cache")
      } else {
        message = StatusMessage("sent \(request.name)")
      }
      return [.send(request)]
    case .failure(let error):
      message = StatusMessage(error.advisingTUI(error.description), isError: true)
      return []
    }
  }

  /// Clears the request filter keeping the selected request (or folder, batch or chain) selected, in
  /// view, in the whole list.
  mutating func clearRequestFilter() {
    let selected = selectedEntry?.row
    list.filter = ""
    let kept: Bool
    switch selected {
    case .request(let name, _)?: kept = selectRequest(named: name)
    case .flow(let name, _)?: kept = selectFlow(named: name)
    case .folder(let path, _, _)?: kept = selectFolder(path)
    default: kept = false
    }
    if !kept { selectRequest(0) }
  }
}
