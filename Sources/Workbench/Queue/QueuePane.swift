import Foundation
import RequestEngine
import Workspace

/// The queue pane's own state (the exchanges and runs it lists are the app's: `exchanges`, `flows`).
public struct QueueState: Sendable {
  /// The selected exchange (an index into `exchanges`), when no run line is selected.
  public var selection = 0
  /// The first exchange shown.
  public var scroll = 0
  /// The selected line of the batch and chain section; nil when an exchange is selected.
  public var flowSelection: QueueFlowItem?
  /// Runs whose members (batches) or steps (chains) are listed under their row.
  public var expandedFlows: Set<String> = []
}

/// The queue pane: keys over its exchanges (the batch and chain section is in QueueFlows.swift),
/// re-sending, and the downloads an earlier session left.
extension AppState {
  var selectedExchange: ExchangeRow? {
    exchanges.indices.contains(queue.selection) ? exchanges[queue.selection] : nil
  }

  mutating func handleQueue(_ action: Action) -> [Command] {
    // One list: the batch and chain section, then the exchanges.
    let items = queueFlowItems
    let current = queue.flowSelection.flatMap { items.firstIndex(of: $0) } ?? (items.count + queue.selection)
    if let index = move(action, current, count: items.count + exchanges.count, page: layout.contentHeight(of: .queue)) {
      if index < items.count {
        selectQueueFlow(items[index])
      } else {
        selectQueueRow(index - items.count)
      }
      return []
    }
    if let item = queue.flowSelection { return handleQueueFlow(action, item) }
    if action == .whereIsFilter {
      message = StatusMessage("/ filters the request list (1) and searches the response (3); the queue has no filter")
      return []
    }
    guard let row = selectedExchange else { return [] }
    switch action {
    case .cancelExchange:
      guard !row.state.isTerminal else {
        message = StatusMessage("\(row.name) already \(row.state.rawValue)")
        return []
      }
      return [.cancel(row.id)]
    case .resend:
      return resend(row)
    case .view:
      show(row.id)
      focus = .response
      return []
    default:
      return []
    }
  }

  /// Selects an exchange row, scrolls the queue to keep it in view and shows it in the viewer.
  mutating func selectQueueRow(_ index: Int) {
    guard exchanges.indices.contains(index) else { return }
    queue.flowSelection = nil
    queue.selection = index
    let height = queueExchangeLines
    if queue.selection < queue.scroll { queue.scroll = queue.selection }
    if queue.selection >= queue.scroll + height { queue.scroll = queue.selection - height + 1 }
    show(exchanges[index].id)
  }

  /// Sends the request of an exchange again (as it is in the workspace now).
  mutating func resend(_ row: ExchangeRow?) -> [Command] {
    guard let row else { return [] }
    let commands = resend(named: row.name)
    if !commands.isEmpty, let download = row.result?.download, download.resumable {
      let resuming = StatusMessage(
        "resuming \(row.name) from \(Formatting.bytes(Int(download.bytes)))"
          + (download.percent.map { " (\(Int($0))%)" } ?? ""))
      message = resuming
      awaiting = .exchange(name: row.name, message: resuming)
    }
    return commands
  }

  /// Downloads an earlier session left unfinished (the agent's resume state): listed in the
  /// queue as cancelled and resumable, oldest last; `r` resumes one. Only those whose request is
  /// still in the workspace.
  public mutating func restorePendingDownloads(_ pending: [PendingDownload]) {
    for (i, download) in pending.enumerated() where workspace.request(named: download.label) != nil {
      // Ids from the top of the range: the agent counts up from 1.
      let id = ExchangeID(rawValue: UInt64.max - UInt64(i))
      let method = HTTPMethod(rawValue: download.method) ?? .GET
      let outcome = DownloadOutcome(
        file: download.target, bytes: download.bytesOnDisk, totalBytes: download.totalBytes, resumedFrom: 0,
        restartReason: nil, resumable: true, complete: false)
      var row = ExchangeRow(id: id, name: download.label, method: method, url: download.url, state: .cancelled)
      row.downloadTarget = download.target
      row.result = ExchangeResult(
        id: id, request: Request(name: download.label, method: method, url: download.url), state: .cancelled,
        response: nil, error: ExchangeError(kind: .cancelled, message: "interrupted in an earlier session"),
        attempts: 0, queuedAt: download.updated, startedAt: nil, finishedAt: download.updated, download: outcome)
      exchanges.append(row)
    }
  }

  mutating func resend(named name: String) -> [Command] {
    guard let template = workspace.request(named: name) else {
      message = StatusMessage("\(name) is no longer in the workspace", isError: true)
      return []
    }
    do {
      let request = try workspace.prepare(template, sources: sources)
      following = request.name
      historyWanted = nil  // the new exchange takes the viewer, not a history entry on its way
      message = StatusMessage("sent \(request.name) again")
      return [.send(request)]
    } catch {
      message = StatusMessage(error.description, isError: true)
      return []
    }
  }
}
