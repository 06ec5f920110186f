import Foundation
import RequestEngine
import TerminalUI
import Testing

@testable import Workbench

/// The viewer's Events tab of a stream: `update` driven by keys and the agent's
/// stream events, and `view` snapshots at 160×45 and 80×24.
@Suite struct EventsTabTests {
  static let id = ExchangeID(rawValue: 1)
  static let ticker = Request(name: "streams/ticker", url: "http://127.0.0.1:8080/sse/ticker")

  static func tick(_ index: Int) -> StreamEvent {
    StreamEvent(
      format: .sse, index: index, type: "tick", id: String(index + 1),
      data: #"{"tick":\#(index + 1),"time":"2026-12-03T07:00:\#(String(index % 60).leftPadded(2))Z","price":\#(100 + index % 7)}"#,
      size: 78, seconds: 0.25 + Double(index) * 0.5)
  }

  /// The demo workspace with a running ticker shown in the viewer (focus on it) and `count` events.
  static func streaming(_ count: Int, width: Int = 160, height: Int = 45) throws -> AppState {
    var state = try demoState(width: width, height: height)
    var headers = HTTPHeaders()
    headers["Content-Type"] = "text/event-stream"
    send(
      &state, .tick(epoch), .agent(.queued(id, ticker)), .agent(.started(id, attempt: 1)),
      .agent(.headers(id, status: 200, headers: headers)))
    _ = keys(&state, "4")
    send(&state, .key(.enter))
    addEvents(&state, 0..<count)
    send(&state, .tick(epoch.addingTimeInterval(Double(count) * 0.5)))
    return state
  }

  static func addEvents(_ state: inout AppState, _ range: Range<Int>) {
    for index in range { send(&state, .agent(.streamEvents(id, [tick(index)]))) }
  }

  func line(_ state: AppState, containing text: String) -> String {
    screenText(state).split(separator: "\n").map(String.init).first { $0.contains(text) } ?? ""
  }

  @Test func aStreamOpensOnItsEventsAndFollowsTheTail() throws {
    var state = try Self.streaming(3)
    #expect(state.focus == .response)
    #expect(state.keyContext == .events)
    #expect(line(state, containing: "[Events]").contains("3 events"), "\(line(state, containing: "[Events]"))")
    #expect(line(state, containing: "[Events]").contains("following"))
    #expect(line(state, containing: "▸").contains(#"{"tick":3,"#), "\(line(state, containing: "▸"))")
    // The detail: the selected event pretty-printed.
    #expect(line(state, containing: "── event 2").contains("tick · id 3 · 78 B · at 1.250 s"))
    #expect(screenText(state).contains(#""price": 102"#))
    // A new event is selected as it comes.
    Self.addEvents(&state, 3..<4)
    #expect(line(state, containing: "▸").contains(#"{"tick":4,"#))
  }

  @Test func movingUpHoldsTheListAndFFollowsAgain() throws {
    var state = try Self.streaming(40)
    _ = keys(&state, "k")
    #expect(state.viewer.events.place == .held(selected: 38, top: state.viewer.events.heldTop ?? -1))
    #expect(line(state, containing: "▸").contains(#"{"tick":39,"#))
    Self.addEvents(&state, 40..<45)
    // Held: the new events do not move the selection or the list.
    #expect(line(state, containing: "▸").contains(#"{"tick":39,"#))
    #expect(line(state, containing: "[Events]").contains("45 events"))
    #expect(line(state, containing: "[Events]").contains("held · F follows"))
    _ = keys(&state, "g")
    #expect(line(state, containing: "▸").contains(#"{"tick":1,"#))
    _ = keys(&state, "F")
    #expect(state.viewer.events.place == .following)
    #expect(line(state, containing: "▸").contains(#"{"tick":45,"#))
    // G goes to the last event without following.
    _ = keys(&state, "kG")
    #expect(!state.viewer.events.isFollowing)
    #expect(line(state, containing: "▸").contains(#"{"tick":45,"#))
  }

  @Test func searchFindsEventsByTheirData() throws {
    var state = try Self.streaming(30)
    _ = keys(&state, "/")
    #expect(state.prompt?.label == "search events")
    _ = keys(&state, "\"tick\":1")
    send(&state, .key(.enter))
    // From the last event round to the first: tick 1, then 10…19.
    #expect(state.viewer.events.place.selected == 0)
    #expect(state.message?.text == "/\"tick\":1: event 0 (match 1 of 11)")
    _ = keys(&state, "n")
    #expect(state.viewer.events.place.selected == 9)
    _ = keys(&state, "N")
    #expect(state.viewer.events.place.selected == 0)
    _ = keys(&state, "/")
    _ = keys(&state, "nowhere")
    send(&state, .key(.enter))
    #expect(state.message?.isError == true)
  }

  @Test func jqRunsOverEachEventThenOverTheNewOnes() throws {
    var state = try Self.streaming(5)
    _ = keys(&state, "|")
    #expect(state.prompt?.label == "jq each event")
    send(&state, .key(.ctrl("u")))
    _ = keys(&state, ".price")
    #expect(send(&state, .key(.enter)) == [.filter(expression: ".price", Self.id, events: 0..<5)])
    // Events that come while it runs wait for its answer: one run at a time.
    #expect(send(&state, .agent(.streamEvents(Self.id, [Self.tick(5)]))) == [])
    Self.addEvents(&state, 6..<8)
    let outputs = Dictionary(uniqueKeysWithValues: (0..<5).map { ($0, Result<String, FilterError>.success("\(100 + $0 % 7)\n")) })
    // The answer asks for the events that came meanwhile.
    #expect(
      send(&state, .eventsFiltered(expression: ".price", result: .success(EventsFiltered(events: 0..<5, outputs: outputs))))
        == [.filter(expression: ".price", Self.id, events: 5..<8)])
    #expect(line(state, containing: "SIZE").contains("JQ .price"))
    #expect(line(state, containing: " 2.250 s").contains("  104 "), "\(line(state, containing: " 2.250 s"))")
    // Events that came since show … until the next run answers.
    #expect(line(state, containing: "▸").contains("78 B  …"))
    // A jq error on one event is that event's, the others still show.
    send(
      &state,
      .eventsFiltered(
        expression: ".price",
        result: .success(EventsFiltered(events: 5..<8, outputs: [5: .success("105\n"), 6: .success("106\n"), 7: .failure(FilterError("boom"))]))))
    #expect(line(state, containing: "▸").contains("jq: boom"))
    // Quiet: no run is asked for without new events; the next event asks for itself.
    #expect(send(&state, .tick(epoch.addingTimeInterval(5))) == [])
    // w writes the outputs shown, one a line.
    _ = keys(&state, "w")
    #expect(state.prompt?.label == "write jq outputs to")
    #expect(state.prompt?.input.text == "streams-ticker.jq.ndjson")
    let written = send(&state, .key(.enter))
    #expect(written == [.writeBody(Self.id, path: "streams-ticker.jq.ndjson", jqOutput: "100\n101\n102\n103\n104\n105\n106\n")])
    // Esc clears the filter: the data again.
    send(&state, .key(.escape))
    #expect(state.viewer.events.jq == nil)
    #expect(line(state, containing: "SIZE").hasSuffix("DATA") || line(state, containing: "SIZE").contains("DATA"))
  }

  @Test func aProgramThatDoesNotCompileIsDroppedAndComesBackToBeCorrected() throws {
    var state = try Self.streaming(2)
    _ = keys(&state, "|")
    send(&state, .key(.ctrl("u")))
    _ = keys(&state, ".[")
    send(&state, .key(.enter))
    send(&state, .eventsFiltered(expression: ".[", result: .failure(FilterError("jq: error: syntax error, unexpected $end"))))
    #expect(state.viewer.events.jq == nil)
    #expect(state.prompt?.label == "jq each event" && state.prompt?.input.text == ".[")
    #expect(state.prompt?.error?.hasPrefix("jq: error: syntax error") == true)
  }

  @Test func writeAsksForANameThenWritesTheEvents() throws {
    var state = try Self.streaming(3)
    _ = keys(&state, "w")
    #expect(state.prompt?.label == "write events as NDJSON to")
    #expect(state.prompt?.input.text == "streams-ticker.events.ndjson")
    #expect(send(&state, .key(.enter)) == [.writeBody(Self.id, path: "streams-ticker.events.ndjson", events: true)])
    // The file is there: y writes over it.
    send(&state, .bodyFileExists(path: "/tmp/streams-ticker.events.ndjson"))
    #expect(keys(&state, "y") == [.writeBody(Self.id, path: "streams-ticker.events.ndjson", events: true, overwrite: true)])
    send(&state, .bodyWritten(path: "/tmp/streams-ticker.events.ndjson", error: nil))
    #expect(state.message?.text == "events written to /tmp/streams-ticker.events.ndjson")
  }

  @Test func cEndsTheStreamAndTheEventsStay() throws {
    var state = try Self.streaming(3)
    #expect(keys(&state, "c") == [.cancel(Self.id)])
    var log = StreamLog(format: .sse)
    for index in 0..<3 { log.append(Self.tick(index)) }
    var result = ExchangeResult(
      id: Self.id, request: Self.ticker, state: .cancelled, response: Response(status: 200), error: .cancelled,
      queuedAt: epoch, startedAt: epoch, finishedAt: epoch.addingTimeInterval(2))
    result.stream = log
    send(&state, .agent(.finished(result)))
    #expect(state.shownTab == .events)
    #expect(line(state, containing: "▸").contains(#"{"tick":3,"#))
    _ = keys(&state, "c")
    #expect(state.message?.text == "streams/ticker: the stream has ended (cancelled)")
  }

  @Test func otherResponsesHaveNoEventsTab() throws {
    var state = try demoState()
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    for msg in exchangeEvents(id: 1, request: request) { send(&state, msg) }
    _ = keys(&state, "4")
    send(&state, .key(.enter))
    #expect(!line(state, containing: "[Body]").contains("Events"))
    _ = keys(&state, "l")
    #expect(state.viewer.tab == .headers)
    _ = keys(&state, "h")
    #expect(state.viewer.tab == .body)
    #expect(state.keyContext == .response)
  }

  @Test(arguments: ViewSnapshotTests.sizes) func snapshots(width: Int, height: Int) throws {
    var state = try Self.streaming(24, width: width, height: height)
    try assertSnapshot(state, "events-\(width)x\(height)")
    _ = keys(&state, "kkk")
    try assertSnapshot(state, "events-held-\(width)x\(height)")
    _ = keys(&state, "F|")
    send(&state, .key(.ctrl("u")))
    _ = keys(&state, ".price")
    send(&state, .key(.enter))
    let outputs = Dictionary(uniqueKeysWithValues: (0..<24).map { ($0, Result<String, FilterError>.success("\(100 + $0 % 7)\n")) })
    send(&state, .eventsFiltered(expression: ".price", result: .success(EventsFiltered(events: 0..<24, outputs: outputs))))
    try assertSnapshot(state, "events-jq-\(width)x\(height)")
  }
}

extension EventsState.Place {
  var selected: Int? {
    if case .held(let selected, _) = self { return selected }
    return nil
  }
}

extension EventsState {
  var heldTop: Int? {
    if case .held(_, let top) = place { return top }
    return nil
  }
}
