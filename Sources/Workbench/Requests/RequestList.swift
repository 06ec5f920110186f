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

extension AppState {
  /// The requests that match the filter, in file order (what selection indexes).
  public var visibleRequests: [RequestTemplate] {
    let filter = list.filter.lowercased()
    return workspace.requests.filter { filter.isEmpty || $0.name.lowercased().contains(filter) }
  }

  /// The list as drawn: a heading for each folder (names with `/`) before its first request.
  public var listRows: [ListRow] {
    var rows: [ListRow] = []
    var openFolders: [String] = []
    for request in visibleRequests {
      let parts = request.name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
      let folders = Array(parts.dropLast())
      var common = 0
      while common < min(folders.count, openFolders.count) && folders[common] == openFolders[common] {
        common += 1
      }
      for depth in common..<folders.count {
        rows.append(.folder(path: folders[0...depth].joined(separator: "/"), depth: depth))
      }
      openFolders = folders
      rows.append(.request(name: request.name, depth: folders.count))
    }
    let flows = visibleFlows
    if !flows.isEmpty {
      rows.append(.flowsHeading)
      rows += flows.map { .flow(name: $0.name, kind: $0.kind) }
    }
    return rows
  }

  /// Batches and chains that match the filter, batches first; selectable after the requests.
  public var visibleFlows: [(name: String, kind: FlowOutcome.Kind)] {
    let filter = list.filter.lowercased()
    let all = workspace.batches.map { (name: $0.name, kind: FlowOutcome.Kind.batch) }
      + workspace.chains.map { (name: $0.name, kind: FlowOutcome.Kind.chain) }
    return all.filter { filter.isEmpty || $0.name.lowercased().contains(filter) }
  }

  /// Requests, then batches and chains: what the selection moves over.
  public var selectableCount: Int { visibleRequests.count + visibleFlows.count }

  /// The selected batch or chain, when the selection is past the requests.
  public var selectedFlow: (name: String, kind: FlowOutcome.Kind)? {
    let index = list.selection - visibleRequests.count
    let flows = visibleFlows
    return flows.indices.contains(index) ? flows[index] : nil
  }

  public var selectedRequest: RequestTemplate? {
    let visible = visibleRequests
    guard visible.indices.contains(list.selection) else { return nil }
    return visible[list.selection]
  }

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
