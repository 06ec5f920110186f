import RequestEngine
import Workspace

/// A row of the request list: a folder heading or a request.
public enum ListRow: Sendable, Equatable {
  case folder(path: String, depth: Int)
  case request(name: String, depth: Int)
}

extension AppState {
  /// The requests that match the filter, in file order (what selection indexes).
  public var visibleRequests: [RequestTemplate] {
    let filter = requestFilter.lowercased()
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
    return rows
  }

  public var selectedRequest: RequestTemplate? {
    let visible = visibleRequests
    guard visible.indices.contains(requestSelection) else { return nil }
    return visible[requestSelection]
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
