import Base
import Foundation
import RequestEngine
import Workspace

/// The Events tab of a streamed response (SSE, NDJSON): one event a row, the selected one's data
/// below. Events are named by their `index` in the stream (it counts on across reconnects and
/// stays when older events are dropped from the log), never by their place in the log.
public struct EventsState: Sendable {
  /// Where the list is: on the tail, selecting each new event as it comes, or held on one event
  /// (the user moved, searched or scrolled up) with the first row shown.
  public enum Place: Sendable, Equatable {
    case following
    case held(selected: Int, top: Int)
  }

  public var place: Place = .following
  /// jq over each event's data (`|`): the expression and the outputs so far.
  public var jq: EventsJQ?
  /// The selected event's document, made once per event (`EventsView.swift`).
  public let memo = EventDetailMemo()

  public var isFollowing: Bool { place == .following }
}

/// jq run over each event of a stream, a range of events at a time through the viewer's one jq
/// mechanism (`Command.filter` with `events`, `Msg.eventsFiltered` back): the events there when
/// it was asked, then those that came since. One run at a time: the events that come while one
/// runs go into the next, asked for when it answers (or at the next event).
public struct EventsJQ: Sendable {
  public var expression: String
  /// Each filtered event's outputs (compact JSON, one a line), or jq's error for it, by index.
  public var outputs: [Int: Result<String, FilterError>] = [:]
  /// Events from here on have not been asked for yet.
  public var next: Int
  /// The events asked of the runtime and not answered yet.
  public var running: Range<Int>?
  /// The first answer came: the expression compiles and the outputs are shown.
  public var shown = false
}

/// The outputs of jq over some events of a stream (the answer to `Command.filter` with `events`).
public struct EventsFiltered: Sendable, Equatable {
  public var events: Range<Int>
  public var outputs: [Int: Result<String, FilterError>]
  public init(events: Range<Int>, outputs: [Int: Result<String, FilterError>]) {
    self.events = events
    self.outputs = outputs
  }
}

extension AppState {
  /// The stream of the exchange the viewer shows live (nil for another response, one from
  /// history or a run).
  var shownStream: StreamLog? {
    guard viewer.history == nil, viewer.flow == nil else { return nil }
    return shownExchange?.stream
  }

  /// The tab drawn: Events only for a stream (another response shows its body instead).
  var shownTab: ViewerState.Tab {
    viewer.tab == .events && shownStream == nil ? .body : viewer.tab
  }

  /// Rows of the Events tab: the list's and the detail's (the column titles and the detail's
  /// title line take one each); a short pane has the list only.
  var eventRows: (list: Int, detail: Int) {
    let height = layout.contentHeight(of: .response)
    guard height >= 6 else { return (max(1, height), 0) }
    let list = (height - 2) * 3 / 5
    return (list, height - 2 - list)
  }

  /// The selected event's place in the log (the last one while following); nil with none kept.
  func selectedEventPosition(_ log: StreamLog) -> Int? {
    let kept = log.kept
    guard !kept.isEmpty else { return nil }
    switch viewer.events.place {
    case .following: return kept.count - 1
    case .held(let selected, _): return Self.position(of: selected, in: log)
    }
  }

  /// The place in the log of event `index`, or of the nearest one kept.
  static func position(of index: Int, in log: StreamLog) -> Int {
    let kept = log.kept
    guard let first = kept.first?.index else { return 0 }
    let guess = index - first
    if guess >= 0, guess < kept.count, kept[kept.startIndex + guess].index == index { return guess }
    // Indexes are consecutive in a log; a gap (none is expected) falls back to a search.
    let found = kept.firstIndex { $0.index >= index }.map { $0 - kept.startIndex }
    return min(max(0, found ?? kept.count - 1), kept.count - 1)
  }

  /// The first row the list shows and the selected row, as places in the log.
  func eventWindow(_ log: StreamLog) -> (top: Int, selected: Int) {
    let count = log.kept.count
    let rows = eventRows.list
    switch viewer.events.place {
    case .following:
      return (max(0, count - rows), max(0, count - 1))
    case .held(let selected, let top):
      let position = Self.position(of: selected, in: log)
      var first = min(Self.position(of: top, in: log), max(0, count - rows))
      if position < first { first = position }
      if position >= first + rows { first = position - rows + 1 }
      return (max(0, first), position)
    }
  }

  /// Holds the list on the event at `position` (scrolled so it is in view).
  mutating func holdEvent(at position: Int, _ log: StreamLog) {
    let kept = log.kept
    guard !kept.isEmpty else { return }
    let target = min(max(0, position), kept.count - 1)
    let rows = eventRows.list
    var (top, _) = eventWindow(log)
    if target < top { top = target }
    if target >= top + rows { top = target - rows + 1 }
    viewer.events.place = .held(selected: kept[kept.startIndex + target].index, top: kept[kept.startIndex + top].index)
  }

  /// The keys of the Events tab.
  mutating func handleEvents(_ action: Action) -> [Command] {
    guard let log = shownStream, let row = shownExchange else { return handleResponse(action) }
    let current = selectedEventPosition(log) ?? 0
    let page = max(1, eventRows.list - 1)
    switch action {
    case .down: holdEvent(at: current + 1, log)
    case .up: holdEvent(at: current - 1, log)
    case .pageDown: holdEvent(at: current + page, log)
    case .pageUp: holdEvent(at: current - page, log)
    case .first: holdEvent(at: 0, log)
    case .last: holdEvent(at: log.kept.count - 1, log)
    case .follow:
      viewer.events.place = .following
      message = StatusMessage("following the tail: new events are selected as they come")
    case .search:
      prompt = Prompt(purpose: .search, label: "search events", input: LineEdit(viewer.search ?? "", selected: true))
    case .nextMatch, .previousMatch:
      findEvent(forward: action == .nextMatch)
    case .jq:
      prompt = Prompt(
        purpose: .filterBody, label: "jq each event", input: LineEdit(viewer.events.jq?.expression ?? ".", selected: true))
    case .writeBody:
      let name = row.name.replacingOccurrences(of: "/", with: "-")
      if viewer.events.jq?.shown == true {
        prompt = Prompt(purpose: .writeBody, label: "write jq outputs to", input: LineEdit("\(name).jq.ndjson", selected: true))
      } else {
        prompt = Prompt(
          purpose: .writeBody, label: "write events as NDJSON to", input: LineEdit("\(name).events.ndjson", selected: true))
      }
    case .cancelExchange:
      guard !row.state.isTerminal else {
        message = StatusMessage("\(row.name): the stream has ended (\(row.stateWord))")
        return []
      }
      message = StatusMessage("ending \(row.name): its events are kept")
      return [.cancel(row.id)]
    case .back:
      if let expression = viewer.filterRunning, viewer.events.jq?.shown != true {
        viewer.filterRunning = nil
        viewer.events.jq = nil
        message = StatusMessage("jq \(expression): cancelled")
      } else if viewer.events.jq != nil {
        viewer.filterRunning = nil
        viewer.events.jq = nil
        message = StatusMessage("jq cleared: the events' data")
      }
    default:
      return handleResponse(action)
    }
    return []
  }

  /// `/` then Enter, `n`, `N` in the Events tab: the next (or previous) event whose data holds
  /// the search text, case-insensitively, round the end once.
  mutating func findEvent(forward: Bool) {
    guard let query = viewer.search, !query.isEmpty, let log = shownStream else {
      message = StatusMessage("press / to search")
      return
    }
    let kept = log.kept
    let count = kept.count
    guard count > 0 else { return }
    let from = selectedEventPosition(log) ?? 0
    func matches(_ position: Int) -> Bool {
      kept[kept.startIndex + position].data.range(of: query, options: .caseInsensitive) != nil
    }
    for step in 1...count {
      let position = forward ? (from + step) % count : ((from - step) % count + count) % count
      guard matches(position) else { continue }
      holdEvent(at: position, log)
      let total = (0..<count).count(where: matches)
      let index = (0...position).count(where: matches)
      message = StatusMessage("/\(query): event \(kept[kept.startIndex + position].index) (match \(index) of \(total))")
      return
    }
    message = StatusMessage("/\(query): no event holds it", isError: true)
  }

  /// `|` in the Events tab, Enter: jq over every event kept, then over those that come.
  mutating func startEventsFilter(_ expression: String) -> [Command] {
    guard let id = viewer.exchange, let log = shownStream else { return [] }
    let range = (log.kept.first?.index ?? log.total)..<log.total
    viewer.events.jq = EventsJQ(expression: expression, next: range.upperBound, running: range)
    viewer.filterRunning = expression
    message = StatusMessage("jq: running over \(range.count) events… (Esc cancels)")
    return [.filter(expression: expression, id, events: range)]
  }

  /// jq's outputs for some events: shown in their rows; a program that does not compile is
  /// dropped and comes back in the prompt with the error.
  mutating func eventsFiltered(_ expression: String, _ result: Result<EventsFiltered, FilterError>) -> [Command] {
    guard viewer.filterRunning == expression, var jq = viewer.events.jq, jq.expression == expression else { return [] }
    viewer.filterRunning = nil
    switch result {
    case .success(let answer):
      jq.outputs.merge(answer.outputs) { _, new in new }
      jq.running = nil
      // Outputs of events no longer kept go, now and then.
      if let first = shownStream?.kept.first?.index, jq.outputs.count > (shownStream?.maxEvents ?? 0) + 1024 {
        jq.outputs = jq.outputs.filter { $0.key >= first }
      }
      if !jq.shown { message = StatusMessage("jq \(expression) over each event (Esc clears)") }
      jq.shown = true
      viewer.events.jq = jq
      return followEventsFilter()
    case .failure(let error):
      viewer.events.jq = jq.shown ? jq : nil
      if jq.shown { viewer.events.jq?.running = nil }
      if jq.shown {
        message = StatusMessage(Formatting.jqError(error.message), isError: true)
      } else {
        jqFailed(expression, error, label: "jq each event")  // it does not compile
      }
      return []
    }
  }

  /// The events that came since jq last ran, asked for when no run is going: at an event of
  /// the stream, when a run answers, when the stream ends. However fast events come, one run is
  /// in flight at a time, and a quiet stream asks for none.
  mutating func followEventsFilter() -> [Command] {
    guard var jq = viewer.events.jq, jq.shown, jq.running == nil, viewer.filterRunning == nil,
      let id = viewer.exchange, let log = shownStream, log.total > jq.next
    else { return [] }
    let range = max(jq.next, log.kept.first?.index ?? jq.next)..<log.total
    jq.next = log.total
    jq.running = range
    viewer.events.jq = jq
    viewer.filterRunning = jq.expression
    return [.filter(expression: jq.expression, id, events: range)]
  }

  /// A stream event of the exchange shown: the viewer opens its Events tab at the first one.
  mutating func streamEventShown(_ id: ExchangeID, first: Bool) {
    guard first, viewer.exchange == id, viewer.history == nil, viewer.flow == nil, viewer.tab == .body else { return }
    viewer.tab = .events
  }
}

extension AppState {
  /// What `w` writes while jq's outputs are shown in the Events tab: each kept event's outputs,
  /// in order, one compact JSON text a line (NDJSON); nil when none is shown.
  var eventsJQText: String? {
    guard let jq = viewer.events.jq, jq.shown, let log = shownStream else { return nil }
    var text = ""
    for event in log.kept {
      guard case .success(let output)? = jq.outputs[event.index], !output.isEmpty else { continue }
      text += output.hasSuffix("\n") ? output : output + "\n"
    }
    return text
  }
}
