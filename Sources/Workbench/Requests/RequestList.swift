import RequestEngine
import Workspace

/// A row of the request list: a folder heading, a request, the heading above batches and
/// chains, or a batch or chain.
public enum ListRow: Sendable, Equatable {
  /// A folder; `collapsed`: its requests are hidden (Enter, space, ← → fold and unfold it).
  case folder(path: String, depth: Int, collapsed: Bool)
  case request(name: String, depth: Int)
  /// The heading above batches and chains.
  case flowsHeading
  case flow(name: String, kind: FlowOutcome.Kind)
}

/// A row as the list's walk makes it: the row, the selectable item it is (the selection's index:
/// every row but the heading above batches and chains, in order), for a request its index in the
/// workspace, and for a folded folder how many requests it hides (its subfolders' included).
struct ListEntry: Sendable {
  var row: ListRow
  var item: Int?
  var request: Int?
  var hiddenRequests: Int?
}

/// Every row of the request list in order, and the row of each selectable item: made by one walk
/// each time what the rows show changes (the workspace, the filter, the folded folders; `AppState`
/// remakes it then), so a key that moves the selection and a frame that draws the list look rows
/// up instead of walking to them. Measured at 10,000 requests: walking to the selection for each
/// lookup made a frame near the list's end cost a whole walk several times over (see
/// `Benchmarks/tui`, the request list's frames).
struct ListIndex: Sendable {
  var entries: [ListEntry] = []
  /// The row of each selectable item, by item.
  var rowOfItem: [Int] = []

  init() {}

  init(_ state: AppState) {
    var walk = ListWalk(state)
    let requests = state.list.matches?.count ?? state.workspace.requests.count
    entries.reserveCapacity(requests + requests / 8)
    rowOfItem.reserveCapacity(requests + requests / 8)
    while let entry = walk.next() {
      if entry.item != nil { rowOfItem.append(entries.count) }
      entries.append(entry)
    }
  }
}

/// The request list's rows as one walk makes them: over the matching requests in file order,
/// opening a folder heading where the folder changes (and passing over the requests of a folded
/// folder, counting them), then the batches and chains. The matching requests' indices are kept
/// in `RequestListState.matches` (rebuilt only when the filter or the workspace changes).
struct ListWalk: IteratorProtocol {
  private let requests: [RequestTemplate]
  private let matches: [Int]?
  private let flows: [(name: String, kind: FlowOutcome.Kind)]
  /// The folded folders (none while a filter is typed: every match shows).
  private let collapsed: Set<String>
  private var position = 0
  private var openFolders: [Substring] = []
  /// The folder part of the last request's name (nil: it had none).
  private var openPath: Substring?
  /// The last request's folder is folded, or one of its parents is: its requests are passed over.
  private var hidden = false
  /// Folder headings still to give before the request at `position`, and that request; the
  /// first `given` of them were given.
  private var pending: [ListEntry] = []
  private var given = 0
  private var flowIndex = -1
  private var nextItem = 0

  init(_ state: AppState) {
    requests = state.workspace.requests
    matches = state.list.matches
    flows = state.visibleFlows
    collapsed = state.list.filter.isEmpty ? state.list.collapsed : []
  }

  private var count: Int { matches?.count ?? requests.count }

  private mutating func item() -> Int {
    defer { nextItem += 1 }
    return nextItem
  }

  mutating func next() -> ListEntry? {
    if given < pending.count {
      defer { given += 1 }
      return pending[given]
    }
    while position < count {
      let index = matches?[position] ?? position
      position += 1
      let name = requests[index].name
      // Found among the UTF-8 bytes, without breaking the name into characters (a third of a
      // 10,000-request list's start). Only a "/" carrying a combining mark reads differently.
      let folder = ListWalk.folder(of: name)
      // Most requests are in the folder of the one before: one comparison, no split, and the
      // request's row is given at once.
      if folder != openPath {
        if given == pending.count {
          pending.removeAll(keepingCapacity: true)
          given = 0
        }
        open(folder)
      }
      guard !hidden else { continue }
      let entry = ListEntry(row: .request(name: name, depth: openFolders.count), item: item(), request: index)
      guard given < pending.count else { return entry }
      pending.append(entry)
      defer { given += 1 }
      return pending[given]
    }
    // A folded folder's heading at the end of the list.
    if given < pending.count {
      defer { given += 1 }
      return pending[given]
    }
    guard !flows.isEmpty else { return nil }
    if flowIndex < 0 {
      flowIndex = 0
      return ListEntry(row: .flowsHeading)
    }
    guard flowIndex < flows.count else { return nil }
    defer { flowIndex += 1 }
    return ListEntry(row: .flow(name: flows[flowIndex].name, kind: flows[flowIndex].kind), item: item())
  }

  /// The folder part of a request's name (before its last `/`), found in its UTF-8 bytes.
  static func folder(of name: String) -> Substring? {
    let end = name.utf8.withContiguousStorageIfAvailable { bytes in
      bytes.lastIndex(of: UInt8(ascii: "/")).map { name.utf8.index(name.utf8.startIndex, offsetBy: $0) }
    }
    switch end {
    case .some(.some(let end)): return name[..<end]
    case .some(.none): return nil
    case .none: return name.utf8.lastIndex(of: UInt8(ascii: "/")).map { name[..<$0] }
    }
  }

  /// Moves into the folder of the next request (at `position - 1`): a heading for each folder
  /// not open before (none inside a folded one). A folded one's heading counts the requests it
  /// hides, and the walk goes on after them.
  private mutating func open(_ folder: Substring?) {
    let parts = folder.map { $0.split(separator: "/", omittingEmptySubsequences: false) } ?? []
    var common = 0
    while common < min(parts.count, openFolders.count) && parts[common] == openFolders[common] { common += 1 }
    hidden = false
    for depth in parts.indices {
      // Folders already open need their path only to know whether they are folded.
      guard depth >= common || !collapsed.isEmpty else { continue }
      let path = parts[0...depth].joined(separator: "/")
      let folded = collapsed.contains(path)
      if depth >= common {
        pending.append(
          ListEntry(
            row: .folder(path: path, depth: depth, collapsed: folded), item: item(),
            hiddenRequests: folded ? passFolded(path) : nil))
      }
      if folded {
        hidden = true
        break
      }
    }
    openFolders = parts
    openPath = folder
  }

  /// Passes over the requests of the folded folder `path` after the one that opened it while
  /// their names stay in it, and says how many it hides, that one included. The walk resumes
  /// after them; the next request is outside `path`, so its heading opens as it would have.
  private mutating func passFolded(_ path: String) -> Int {
    let prefix = path + "/"
    var hidden = 1
    while position < count, requests[matches?[position] ?? position].name.hasPrefix(prefix) {
      hidden += 1
      position += 1
    }
    return hidden
  }
}

extension AppState {
  /// After the workspace or the filter changed: which requests match, then the rows.
  mutating func refreshList() {
    let filter = list.filter.lowercased()
    list.matches =
      filter.isEmpty ? nil : workspace.requests.indices.filter { workspace.requests[$0].name.lowercased().contains(filter) }
    list.index = ListIndex(self)
  }

  /// The list as drawn, every row: a heading for each folder (names with `/`) before its first
  /// request (a folded folder's requests left out), then batches and chains.
  public var listRows: [ListRow] { list.index.entries.map(\.row) }

  /// The rows from `start`, at most `count` of them.
  func listEntries(from start: Int, count: Int) -> ArraySlice<ListEntry> {
    let entries = list.index.entries
    let lower = min(max(0, start), entries.count)
    return entries[lower..<min(entries.count, lower + max(0, count))]
  }

  /// The first row (and its number) that `matching` accepts.
  func firstListEntry(where matching: (ListEntry) -> Bool) -> (row: Int, entry: ListEntry)? {
    guard let row = list.index.entries.firstIndex(where: matching) else { return nil }
    return (row, list.index.entries[row])
  }

  /// The requests that match the filter, in file order (folded ones too).
  public var visibleRequests: [RequestTemplate] {
    guard let matches = list.matches else { return workspace.requests }
    return matches.map { workspace.requests[$0] }
  }

  /// The row of a selectable item (nil: no such item).
  func listRow(ofItem item: Int) -> Int? {
    list.index.rowOfItem.indices.contains(item) ? list.index.rowOfItem[item] : nil
  }

  /// The first request's item, not the folder row above it (0 when there is none): selected at
  /// the start and as a filter is typed.
  var firstRequestItem: Int { firstListEntry { $0.request != nil }?.entry.item ?? 0 }

  /// The selected row (nil: the list is empty).
  var selectedEntry: ListEntry? { listRow(ofItem: list.selection).map { list.index.entries[$0] } }

  /// How many rows can be selected (folders, requests not folded away, batches and chains).
  public var selectableCount: Int { list.index.rowOfItem.count }

  /// Batches and chains that match the filter, batches first; selectable after the requests.
  public var visibleFlows: [(name: String, kind: FlowOutcome.Kind)] {
    let filter = list.filter.lowercased()
    let all = workspace.batches.map { (name: $0.name, kind: FlowOutcome.Kind.batch) }
      + workspace.chains.map { (name: $0.name, kind: FlowOutcome.Kind.chain) }
    return filter.isEmpty ? all : all.filter { $0.name.lowercased().contains(filter) }
  }

  /// The selected batch or chain.
  public var selectedFlow: (name: String, kind: FlowOutcome.Kind)? {
    guard case .flow(let name, let kind)? = selectedEntry?.row else { return nil }
    return (name, kind)
  }

  /// The selected folder's path (`users`, `users/admin`).
  public var selectedFolder: String? {
    guard case .folder(let path, _, _)? = selectedEntry?.row else { return nil }
    return path
  }

  public var selectedRequest: RequestTemplate? { selectedEntry?.request.map { workspace.requests[$0] } }

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

extension PrepareError {
  /// `text` (the message, or the description) as the TUI says it: an undefined variable (not an
  /// `env.` one) is one `V` sets, where the command line's message says `--var` or the file.
  func advisingTUI(_ text: String) -> String {
    guard case .undefinedVariable(let name) = code, !name.hasPrefix("env."), let cut = text.firstIndex(of: ";")
    else { return text }
    return text[..<cut] + "; V sets it"
  }
}
