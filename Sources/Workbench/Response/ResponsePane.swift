import Base
import Foundation
import RequestEngine
import Workspace

/// What the response viewer shows and how.
public struct ViewerState: Sendable {
  public enum Tab: Int, CaseIterable, Sendable {
    /// `request`: what curl sent (`SentRequestView.swift`); `events`: a stream's events
    /// (`EventsTab.swift`), a tab only while the exchange shown is a stream.
    case body, events, headers, timing, request
    public var title: String {
      switch self {
      case .body: "Body"
      case .events: "Events"
      case .headers: "Headers"
      case .timing: "Timing"
      case .request: "Request"
      }
    }

    /// The tab `by` places after this one (before it, when negative), round the end; Events
    /// counts only for a stream.
    func moved(by offset: Int, events: Bool) -> Tab {
      let tabs = Tab.allCases.filter { events || $0 != .events }
      let current = tabs.firstIndex(of: self) ?? 0
      return tabs[((current + offset) % tabs.count + tabs.count) % tabs.count]
    }
  }

  public var exchange: ExchangeID?
  public var tab: Tab = .body
  public var scroll = 0
  public var wrap = false
  public var search: String?
  /// Line of the current search match.
  public var matchLine: Int?
  /// A search still going through a big body, a slice per `searchContinue`.
  public var searching: BodyDocument.SearchCursor?
  /// A jq filter running in the background: its result is shown only while this is set to its
  /// expression (Esc, another exchange or another filter drop it).
  public var filterRunning: String?
  /// The active jq filter and its output (shown instead of the body).
  public var filter: String?
  public var filtered: BodyDocument?
  /// The jq output shown, as text (what `w` writes while a filter is shown).
  public var filteredText: String?
  /// A batch or chain run picked in the queue (its id): shown instead of an exchange.
  public var flow: String?
  /// The document of the exchange's body, built when first shown.
  public var document: BodyDocument?
  /// An earlier response from history shown instead of the live exchange.
  public var history: HistoryView?
  /// The Events tab of a stream.
  public var events = EventsState()

  /// Another response is shown: at its top, with no search match, search or jq filter of the
  /// one before.
  mutating func startOver() {
    scroll = 0
    matchLine = nil
    searching = nil
    filter = nil
    filtered = nil
    filteredText = nil
    filterRunning = nil
    events = EventsState()
  }
}

/// The response viewer: what it shows, its keys, scrolling, search and history.
extension AppState {
  /// `writeBody` found its file there: `y` writes over it, any other key keeps it.
  mutating func bodyFileExists(_ path: String) {
    guard case .writeBody(let id, let target, let output, let events, _)? = pendingWrite else { return }
    pendingWrite = nil
    ask(.overwrite(.writeBody(id, path: target, jqOutput: output, events: events, overwrite: true)))
    message = StatusMessage("\(path) exists: overwrite? y/n")
  }

  mutating func bodyWritten(_ path: String, error: String?, madeFolder: String? = nil) {
    let events: Bool
    if case .writeBody(_, _, _, true, _)? = pendingWrite { events = true } else { events = false }
    pendingWrite = nil
    message = error.map { StatusMessage("cannot write \(path): \($0); choose another path", isError: true) }
      ?? StatusMessage(
        (events ? "events written to " : "body written to ") + path + (madeFolder.map { " (made the folder \($0))" } ?? ""))
  }

  /// A jq filter's output, shown instead of the body.
  mutating func filtered(_ expression: String, _ result: Result<String, FilterError>) {
    // A result nobody waits for any more (Esc, another exchange, another filter): dropped.
    guard viewer.filterRunning == expression else { return }
    viewer.filterRunning = nil
    switch result {
    case .success(let output):
      viewer.filter = expression
      viewer.filtered = BodyDocument(text: output)
      viewer.filteredText = output
      viewer.scroll = 0
      message = StatusMessage("jq \(expression) (Esc clears)")
    case .failure(let error):
      jqFailed(expression, error, label: "jq")
    }
  }

  /// A jq program that failed (the body's, or the Events tab's at its start): the expression
  /// comes back in its prompt with the error above it, to be corrected instead of typed again
  /// (as `n` keeps a text it cannot read); said on the status line when another prompt or an
  /// overlay is open.
  mutating func jqFailed(_ expression: String, _ error: FilterError, label: String) {
    let text = Formatting.jqError(error.message)
    if case .none = modal {
      prompt = Prompt(purpose: .filterBody, label: label, input: LineEdit(expression), error: text)
    } else {
      message = StatusMessage(text, isError: true)
    }
  }

  /// An earlier response from history, shown instead of the live exchange.
  mutating func historyShown(_ view: HistoryView?, error: String?) -> [Command] {
    let opening = historyOpening
    historyOpening = nil
    if view != nil || error == nil {
      // A late answer (the viewer moved on: a send, another exchange) or one for an earlier key.
      guard historyWanted != nil else { return [] }
      historyWanted = nil
    }
    if let error {
      message = StatusMessage("history: \(error)", isError: true)
    } else if let view {
      // The first step back: the newest entry may be the response already shown (recorded when it
      // ended); then the one before it.
      if opening == nil, viewer.history == nil, view.position == 0, let live = shownExchange?.result,
        view.entry.exchangeID == live.id, abs(view.entry.date.timeIntervalSince(live.finishedAt)) < 1
      {
        guard view.count > 1 else {
          message = StatusMessage("no older response in history")
          return []
        }
        return requestHistory(view.entry.name, position: 1)
      }
      viewer.history = view
      viewer.startOver()
      let response = view.result.response
      viewer.document = response.map { BodyDocument(body: $0.body, mediaType: $0.mediaType) }
      message = StatusMessage("history \(view.position + 1)/\(view.count): [ older · ] newer · Esc back")
      if let opening { return followUp(opening, view) }
    } else {
      message = StatusMessage(
        viewer.history == nil ? "no history for this request yet" : "no older response in history")
    }
    return []
  }

  var shownExchange: ExchangeRow? {
    viewer.exchange.flatMap { id in exchanges.first { $0.id == id } }
  }

  /// Shows an exchange in the viewer, building its body document once it has one.
  mutating func show(_ id: ExchangeID) {
    let changed = viewer.exchange != id || viewer.history != nil
    if changed { historyWanted = nil }
    viewer.history = nil
    viewer.flow = nil
    viewer.exchange = id
    if changed {
      viewer.startOver()
      // A stream opens on its events; another response on its body.
      if viewer.tab == .body, shownExchange?.stream != nil { viewer.tab = .events }
    }
    if let response = shownExchange?.result?.response {
      if changed || viewer.document == nil {
        // A spilled body is mapped, not read: opening it costs the same whatever its size.
        viewer.document = BodyDocument(body: response.body, mediaType: response.mediaType)
      }
    } else {
      viewer.document = nil
    }
  }

  /// The body lines the viewer shows at once: its height, less the line saying a body called
  /// JSON is not.
  var bodyRows: Int {
    let document = viewer.filtered ?? viewer.document
    return max(1, layout.contentHeight(of: .response) - (document?.invalidJSON == nil ? 0 : 1))
  }

  mutating func handleResponse(_ action: Action) -> [Command] {
    let page = bodyRows
    let document = viewer.filtered ?? viewer.document
    switch action {
    case .down: scrollViewer(by: 1)
    case .up: scrollViewer(by: -1)
    case .pageDown: scrollViewer(by: max(1, page - 1))
    case .pageUp: scrollViewer(by: -max(1, page - 1))
    case .first: viewer.scroll = 0
    case .last:
      if shownTab == .body, let document {
        viewer.scroll = max(0, document.totalLineCount() - page)
      } else if shownTab != .body {
        scrollViewer(by: 1 << 30)  // stops where the last page shows the last line
      }
    case .previousTab, .nextTab:
      viewer.tab = shownTab.moved(by: action == .nextTab ? 1 : -1, events: shownStream != nil)
      viewer.scroll = 0
    case .wrap:
      viewer.wrap.toggle()
      message = StatusMessage(viewer.wrap ? "wrapping long lines" : "not wrapping")
    case .search:
      prompt = Prompt(purpose: .search, label: "search", input: LineEdit(viewer.search ?? "", selected: true))
    case .nextMatch, .previousMatch:
      return findNext(forward: action == .nextMatch)
    case .jq:
      guard shownExchange?.result?.response != nil else {
        message = StatusMessage("no response to filter yet", isError: true)
        return []
      }
      prompt = Prompt(purpose: .filterBody, label: "jq", input: LineEdit(viewer.filter ?? ".", selected: true))
    case .back:
      if let cursor = viewer.searching {
        viewer.searching = nil
        message = StatusMessage("/\(cursor.query): search stopped")
      } else if let expression = viewer.filterRunning {
        viewer.filterRunning = nil  // its result will be ignored
        message = StatusMessage("jq \(expression): cancelled")
      } else if viewer.filter != nil {
        viewer.filter = nil
        viewer.filtered = nil
        viewer.filteredText = nil
        viewer.scroll = 0
      } else if viewer.history != nil {
        leaveHistory()
      }
    case .olderResponse:
      guard let name = viewer.history?.entry.name ?? shownExchange?.name ?? selectedRequest?.name else {
        return []
      }
      return requestHistory(name, position: viewer.history.map { $0.position + 1 } ?? 0)
    case .newerResponse:
      guard let history = viewer.history else { return [] }
      if history.position == 0 {
        leaveHistory()
        return []
      }
      return requestHistory(history.entry.name, position: history.position - 1)
    case .writeBody:
      guard let row = shownExchange, row.result?.response != nil else {
        message = StatusMessage("no response body to write yet", isError: true)
        return []
      }
      let name = row.name.replacingOccurrences(of: "/", with: "-")
      if viewer.filter != nil, viewer.filteredText != nil {
        // The jq output shown is what gets written.
        prompt = Prompt(purpose: .writeBody, label: "write jq output to", input: LineEdit("\(name).jq.txt", selected: true))
      } else {
        let ext = viewer.document?.kind == .json ? "json" : "txt"
        prompt = Prompt(purpose: .writeBody, label: "write body to", input: LineEdit("\(name).\(ext)", selected: true))
      }
    case .resend:
      if let history = viewer.history {
        return resend(history)
      }
      return resend(shownExchange)
    default:
      break
    }
    return []
  }

  /// Scrolls the viewer by `delta` lines, never past the end of what it shows. A lazy body is
  /// indexed only as far as the new position needs: while its end is unknown the scroll stops at
  /// the last line indexed, once known it stops where the last page shows the last line.
  mutating func scrollViewer(by delta: Int) {
    let page = layout.contentHeight(of: .response)
    let target = max(0, viewer.scroll + delta)
    let last: Int
    if let run = shownFlowRun {
      // A batch or chain run: its lines below the title.
      last = flowRunLines(run.name, run).count - page
      viewer.scroll = max(0, min(target, last))
      return
    }
    switch shownTab {
    case .events:
      if let log = shownStream { holdEvent(at: (selectedEventPosition(log) ?? 0) + delta, log) }
      return
    case .body:
      guard let document = viewer.filtered ?? viewer.document else {
        viewer.scroll = 0
        return
      }
      let rows = bodyRows
      let (count, exact) = document.lineCount(atLeast: target + rows)
      last = exact ? count - rows : count - 1
    case .headers:
      let response = viewer.history?.result.response ?? shownExchange?.result?.response
      last = (response?.headers.fields.count ?? 0) - page
    case .timing:
      last = 0
    case .request:
      last = (shownExchange.map(sentLines)?.count ?? viewer.history.map(AppState.recordedLines)?.count ?? 0) - page
    }
    viewer.scroll = min(target, max(0, last))
  }

  /// Asks for a history entry; only the answer to the latest ask is shown.
  mutating func requestHistory(_ name: String, position: Int) -> [Command] {
    historyWanted = HistoryRequest(name: name, position: position)
    return [.showHistory(name: name, position: position)]
  }

  private mutating func leaveHistory() {
    historyWanted = nil
    viewer.history = nil
    viewer.document = nil
    if let id = viewer.exchange {
      viewer.exchange = nil
      show(id)
    }
    message = StatusMessage("back to the live response")
  }

  /// Lines a search looks at per slice: a few milliseconds, so keys and frames go on meanwhile.
  public static let searchSlice = 20_000

  mutating func findNext(forward: Bool) -> [Command] {
    guard let query = viewer.search, !query.isEmpty, viewer.filtered ?? viewer.document != nil else {
      message = StatusMessage("press / to search")
      return []
    }
    let from = viewer.matchLine ?? (forward ? viewer.scroll - 1 : viewer.scroll)
    viewer.searching = BodyDocument.SearchCursor(query: query, from: from, forward: forward)
    return continueSearch()
  }

  /// The next slice of the search in progress.
  mutating func continueSearch() -> [Command] {
    guard let cursor = viewer.searching, let document = viewer.filtered ?? viewer.document else {
      viewer.searching = nil
      return []
    }
    switch document.search(cursor, budget: AppState.searchSlice) {
    case .found(let line):
      viewer.searching = nil
      viewer.matchLine = line
      let page = layout.contentHeight(of: .response)
      if line < viewer.scroll || line >= viewer.scroll + page { viewer.scroll = max(0, line - page / 3) }
      // Which match of how many, when the body is small enough to count them in one slice
      // (a big body's count would be a pass of its own: the line only).
      if let (index, total) = document.matchPosition(of: cursor.query, at: line, limit: AppState.searchSlice) {
        message = StatusMessage("/\(cursor.query): match \(index) of \(total), line \(line + 1)")
      } else {
        message = StatusMessage("/\(cursor.query): line \(line + 1)")
      }
    case .notFound:
      viewer.searching = nil
      viewer.matchLine = nil
      message = StatusMessage("/\(cursor.query): not found", isError: true)
    case .more(let next, let fraction):
      viewer.searching = next
      message = StatusMessage("/\(cursor.query): searching… \(Int(fraction * 100))% (Esc stops)")
      return [.continueSearch]
    }
    return []
  }

  /// Sends a request from history again as it was recorded (method, URL, headers, body), with
  /// the workspace request's other settings (timeouts, validation, TLS…) when it still exists.
  /// A recording holds secrets masked (`••••`): then the workspace's request is sent instead.
  mutating func resend(_ history: HistoryView) -> [Command] {
    let entry = history.entry
    let mask = Redaction.mask
    let masked =
      entry.url.contains(mask) || entry.requestHeaders.fields.contains { $0.value.contains(mask) }
      || String(decoding: history.requestBody, as: UTF8.self).contains(mask)
    if masked {
      let commands = resend(named: entry.name)
      if !commands.isEmpty {
        message = StatusMessage("the recorded request has masked secrets: sent \(entry.name) as the workspace has it")
      }
      return commands
    }
    var request: Request
    if let template = workspace.request(named: entry.name), let prepared = try? workspace.prepare(template, sources: sources) {
      request = prepared
    } else {
      request = Request(name: entry.name, url: entry.url)
    }
    request.method = entry.method
    request.url = entry.url
    request.headers = entry.requestHeaders
    request.body =
      history.requestBody.isEmpty && entry.requestContentType == nil
      ? .empty : RequestBody(bytes: history.requestBody, contentType: entry.requestContentType)
    request.download = nil
    following = request.name
    historyWanted = nil
    message = StatusMessage("sent \(entry.name) as recorded \(Painter.dateText(entry.date))")
    return [.send(request)]
  }
}
