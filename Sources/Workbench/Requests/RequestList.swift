import RequestEngine
import Workspace

/// A row of the request list: a folder heading or a request.
public enum ListRow: Sendable, Equatable {
  case folder(path: String, depth: Int)
  case request(name: String, depth: Int)
  /// The heading above batches and chains.
  case flowsHeading
  case flow(name: String, kind: FlowOutcome.Kind)
}

/// A row as the list's walk makes it: the row, the selectable item it is (the selection's index:
/// requests first, then batches and chains) and, for a request, its index in the workspace.
struct ListEntry {
  var row: ListRow
  var item: Int?
  var request: Int?
}

/// The request list's rows, made lazily: a walk over the matching requests in file order that
/// opens a folder heading where the folder changes, then the batches and chains. Nothing is built
/// for rows past the last one asked for, so the first screen of a 10,000-request workspace costs
/// what the first screen of a small one does; the matching requests' indices are kept in
/// `RequestListState.matches` (rebuilt only when the filter or the workspace changes).
struct ListWalk: IteratorProtocol {
  private let requests: [RequestTemplate]
  private let matches: [Int]?
  private let flows: [(name: String, kind: FlowOutcome.Kind)]
  private var position = 0
  private var openFolders: [Substring] = []
  /// The folder part of the last request's name (nil: it had none).
  private var openPath: Substring?
  /// Folder headings still to give before the request at `position`.
  private var pending: [ListEntry] = []
  private var flowIndex = -1

  init(_ state: AppState) {
    requests = state.workspace.requests
    matches = state.list.matches
    flows = state.visibleFlows
  }

  private var count: Int { matches?.count ?? requests.count }

  mutating func next() -> ListEntry? {
    if !pending.isEmpty { return pending.removeFirst() }
    if position < count {
      let index = matches?[position] ?? position
      let name = requests[index].name
      let folder = name.lastIndex(of: "/").map { name[..<$0] }
      // Most requests are in the folder of the one before: one comparison, no split.
      if folder != openPath {
        let parts = folder.map { $0.split(separator: "/", omittingEmptySubsequences: false) } ?? []
        var common = 0
        while common < min(parts.count, openFolders.count) && parts[common] == openFolders[common] { common += 1 }
        for depth in common..<parts.count {
          pending.append(ListEntry(row: .folder(path: parts[0...depth].joined(separator: "/"), depth: depth)))
        }
        openFolders = parts
        openPath = folder
      }
      pending.append(ListEntry(row: .request(name: name, depth: openFolders.count), item: position, request: index))
      position += 1
      return pending.removeFirst()
    }
    guard !flows.isEmpty else { return nil }
    if flowIndex < 0 {
      flowIndex = 0
      return ListEntry(row: .flowsHeading)
    }
    guard flowIndex < flows.count else { return nil }
    defer { flowIndex += 1 }
    return ListEntry(row: .flow(name: flows[flowIndex].name, kind: flows[flowIndex].kind), item: count + flowIndex)
  }
}

extension AppState {
  /// Recomputes which requests match the filter: after the filter or the workspace changed.
  mutating func refreshMatches() {
    let filter = list.filter.lowercased()
    list.matches =
      filter.isEmpty ? nil : workspace.requests.indices.filter { workspace.requests[$0].name.lowercased().contains(filter) }
  }

  /// How many requests match the filter.
  var visibleRequestCount: Int { list.matches?.count ?? workspace.requests.count }

  /// The `position`th request that matches the filter, and its index in the workspace.
  func visibleRequest(_ position: Int) -> (template: RequestTemplate, index: Int)? {
    guard position >= 0, position < visibleRequestCount else { return nil }
    let index = list.matches?[position] ?? position
    return (workspace.requests[index], index)
  }

  /// The requests that match the filter, in file order (what selection indexes).
  public var visibleRequests: [RequestTemplate] {
    guard let matches = list.matches else { return workspace.requests }
    return matches.map { workspace.requests[$0] }
  }

  /// The list as drawn, every row: a heading for each folder (names with `/`) before its first
  /// request, then batches and chains. The view and the keys walk only as far as they need.
  public var listRows: [ListRow] {
    var walk = ListWalk(self)
    var rows: [ListRow] = []
    while let entry = walk.next() { rows.append(entry.row) }
    return rows
  }

  /// The rows from `start`, at most `count` of them.
  func listEntries(from start: Int, count: Int) -> [ListEntry] {
    var walk = ListWalk(self)
    var entries: [ListEntry] = []
    var row = 0
    while entries.count < count, let entry = walk.next() {
      if row >= start { entries.append(entry) }
      row += 1
    }
    return entries
  }

  /// The row of a selectable item (nil: no such item).
  func listRow(ofItem item: Int) -> Int? {
    var walk = ListWalk(self)
    var row = 0
    while let entry = walk.next() {
      if entry.item == item { return row }
      row += 1
    }
    return nil
  }

  /// Batches and chains that match the filter, batches first; selectable after the requests.
  public var visibleFlows: [(name: String, kind: FlowOutcome.Kind)] {
    let filter = list.filter.lowercased()
    let all = workspace.batches.map { (name: $0.name, kind: FlowOutcome.Kind.batch) }
      + workspace.chains.map { (name: $0.name, kind: FlowOutcome.Kind.chain) }
    return filter.isEmpty ? all : all.filter { $0.name.lowercased().contains(filter) }
  }

  /// Requests, then batches and chains: what the selection moves over.
  public var selectableCount: Int { visibleRequestCount + visibleFlows.count }

  /// The selected batch or chain, when the selection is past the requests.
  public var selectedFlow: (name: String, kind: FlowOutcome.Kind)? {
    let index = list.selection - visibleRequestCount
    guard index >= 0 else { return nil }
    let flows = visibleFlows
    return flows.indices.contains(index) ? flows[index] : nil
  }

  public var selectedRequest: RequestTemplate? { visibleRequest(list.selection)?.template }

  /// The selected request prepared with the current variables; an error message when it cannot be.
  public func preparedSelection() -> Result<Request, PrepareError>? {
    guard let template = selectedRequest else { return nil }
    do {
      return .success(try workspace.prepare(template, sources: sources))
    } catch {
      return .failure(error)
    }
  }
}
