import History
import Workbench
import Workspace

/// The history step of the TUI (`[` and `]`), shared by the TUI and its benchmark.
package enum HistoryStep {
  /// What `[` and `]` show: the entry of request `name` at `position` (0 the newest) with its
  /// bodies, read from the store (on the TUI's background queue; `reqbench-bench benchmark-history` times it).
  package static func shown(_ history: HistoryStore, name: String, position: Int) -> Msg {
    do {
      guard let (entry, count) = try history.entry(of: name, at: position) else {
        return .historyShown(nil, error: nil)
      }
      let body = entry.bodyKept ? try history.body(of: entry) : []
      let requestBody = try history.requestBody(of: entry)
      return .historyShown(
        HistoryView(entry: entry, body: body, requestBody: requestBody, position: position, count: count),
        error: nil)
    } catch {
      return .historyShown(nil, error: "\(error)")
    }
  }
}
