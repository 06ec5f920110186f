import Base
import Foundation
import RequestEngine
import Workspace

/// A line of the queue: a batch or chain run's row (or, expanded, one of its members or steps),
/// or an exchange.
public enum QueueLine: Sendable, Hashable {
  case flow(QueueFlowItem)
  case exchange(ExchangeID)
}

/// The queue pane's own state (the exchanges and runs it lists are the app's: `exchanges`, `flows`).
/// Its lines are one sequence (`AppState.queueLines`: the runs, each expanded one with its members
/// or steps in place, then the exchanges), scrolled as one: the selection is always in view and
/// no line is left empty while lines remain below (`AppState.queueFirstLine`).
public struct QueueState: Sendable {
  /// The selected line, by what it shows (so rows arriving above it keep it selected); nil while
  /// the queue is empty.
  public var selected: QueueLine?
  /// The first line shown (below the column header), as last scrolled; drawn from
  /// `AppState.queueFirstLine`, which keeps the selection in view.
  public var scroll = 0
  /// Runs whose members (batches) or steps (chains) are listed under their row.
  public var expandedFlows: Set<String> = []

  /// The selected line of the batch and chain section; nil when an exchange (or nothing) is selected.
  public var flowSelection: QueueFlowItem? {
    if case .flow(let item)? = selected { item } else { nil }
  }
}

/// The queue pane: its one list of lines, keys over it (a run's own keys are in QueueFlows.swift),
/// re-sending, and the downloads an earlier session left.
extension AppState {
  var selectedExchange: ExchangeRow? {
    guard case .exchange(let id)? = queue.selected else { return nil }
    return exchanges.first { $0.id == id }
  }

  /// Every line of the queue, in order: the runs (expanded ones followed by their members or
  /// steps), then the exchanges, newest first.
  public var queueLines: [QueueLine] {
    queueFlowItems.map(QueueLine.flow) + exchanges.map { .exchange($0.id) }
  }

  /// The lines shown below the column header.
  var queueRows: Int { max(1, layout.contentHeight(of: .queue)) }

  /// The first line shown: where the queue was scrolled to, moved as little as keeps the
  /// selected line in view, and never so far that lines stay empty at the bottom while lines
  /// above are hidden.
  public func queueFirstLine(_ lines: [QueueLine]) -> Int {
    let rows = queueRows
    var first = min(queue.scroll, max(0, lines.count - rows))
    if let selected = queue.selected, let index = lines.firstIndex(of: selected) {
      if index < first { first = index }
      if index >= first + rows { first = index - rows + 1 }
    }
    return max(0, first)
  }

  /// Scrolls the queue (as little as needed) so the selected line is in view.
  mutating func keepQueueSelectionInView() {
    queue.scroll = queueFirstLine(queueLines)
  }

  mutating func handleQueue(_ action: Action) -> [Command] {
    let lines = queueLines
    // Nothing selected yet: moving starts from the first exchange, below the runs.
    let current = queue.selected.flatMap { lines.firstIndex(of: $0) } ?? queueFlowItems.count
    if let index = move(action, current, count: lines.count, page: queueRows) {
      selectQueueLine(lines[index])
      return []
    }
    if action == .tidyQueue {
      tidyQueue()
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
    case .pauseExchange:
      return pauseOrResume(row)
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

  /// `p`: pauses a queued or running exchange, or lets a paused one go on. The row says
  /// `paused` when the agent did it (`paused` event); one waiting to retry, or waiting for an
  /// identical request (dedup), is not paused, and the status bar says why.
  mutating func pauseOrResume(_ row: ExchangeRow) -> [Command] {
    if row.paused {
      message = StatusMessage("\(row.name) goes on")
      return [.resume(row.id)]
    }
    if row.state.isTerminal {
      message = StatusMessage("\(row.name) already \(row.state.rawValue)")
      return []
    }
    if row.joined {
      message = StatusMessage("\(row.name) waits for an identical request in flight (dedup): pause that one")
      return []
    }
    if row.retryWait != nil || row.reconnectWait != nil {
      message = StatusMessage("\(row.name) waits to connect again: c cancels it")
      return []
    }
    message = StatusMessage("\(row.name) paused: p lets it go on, c cancels it")
    return [.pause(row.id)]
  }

  /// `x`: removes the finished rows, runs included. What is running or queued stays, and so do
  /// the exchanges of a run still going (its members' and steps' lines show them) and the
  /// exchange the response pane shows (removed once another takes its place and `x` is pressed
  /// again). The selection stays on its line, or goes to the first line left.
  mutating func tidyQueue() {
    let going = Set(flows.filter { !$0.state.isTerminal }.map(\.run))
    let before = (flows: flows.count, exchanges: exchanges.count)
    flows.removeAll { $0.state.isTerminal }
    exchanges.removeAll { row in
      row.state.isTerminal && row.id != viewer.exchange && !(row.flowRun.map(going.contains) ?? false)
    }
    queue.expandedFlows.formIntersection(going)
    let removed = before.flows - flows.count + before.exchanges - exchanges.count
    let lines = queueLines
    if let selected = queue.selected, !lines.contains(selected) { queue.selected = lines.first }
    keepQueueSelectionInView()
    let kept = exchanges.contains { $0.state.isTerminal && $0.id == viewer.exchange }
    message = StatusMessage(
      removed == 0
        ? "nothing to tidy: every row is running or queued"
        : "removed \(removed) finished row\(removed == 1 ? "" : "s")" + (kept ? "; kept the one the response pane shows" : ""))
  }

  /// Selects a line, scrolls the queue to keep it in view and shows what it stands for in the
  /// viewer (an exchange, a run, a member's exchange).
  mutating func selectQueueLine(_ line: QueueLine) {
    switch line {
    case .flow(let item):
      selectQueueFlow(item)
    case .exchange(let id):
      queue.selected = line
      show(id)
    }
    keepQueueSelectionInView()
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
      if queue.selected == nil { queue.selected = .exchange(id) }
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
