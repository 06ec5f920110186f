import Foundation
import RequestEngine
import TerminalUI
import Testing
import Workbench

/// The queue row of a live stream: `stream · N events · R/s` from the agent's
/// stream events, `reconnect N` while it waits to connect again, the events kept when it ends.
@Suite struct StreamRowTests {
  func queueLine(_ state: AppState, _ name: String) -> String {
    screenText(state).split(separator: "\n").map(String.init).last { $0.contains(name) && $0.contains("GET") } ?? ""
  }

  func event(_ index: Int, at seconds: Double) -> StreamEvent {
    StreamEvent(format: .sse, index: index, type: "tick", id: String(index + 1), data: "{\"tick\":\(index + 1)}", size: 40, seconds: seconds)
  }

  @Test func theRowCountsEventsAndTheirRate() throws {
    var state = try demoState()
    let request = Request(name: "ticker", url: "http://127.0.0.1:8080/sse/ticker")
    let id = ExchangeID(rawValue: 1)
    send(&state, .tick(epoch), .agent(.queued(id, request)), .agent(.started(id, attempt: 1)),
      .agent(.headers(id, status: 200, headers: ["Content-Type": "text/event-stream"])))
    send(&state, .agent(.streamEvents(id, [event(0, at: 0.3)])))
    #expect(queueLine(state, "ticker").contains("stream · 1 event "), "\(queueLine(state, "ticker"))")
    #expect(!queueLine(state, "ticker").contains("/s"))
    // 142 events over 45.8 s: 3.1 a second.
    for index in 1..<142 {
      send(&state, .agent(.streamEvents(id, [event(index, at: Double(index + 1) * 45.8 / 142)])))
    }
    #expect(state.exchanges[0].stream?.total == 142)
    var line = queueLine(state, "ticker")
    #expect(line.contains("stream · 142 events · 3.1/s"), "\(line)")

    // A drop with reconnect: the row says so until the next connection starts.
    send(&state, .agent(.reconnecting(id, count: 2, delay: 3, reason: .transport(.connectionLost))))
    line = queueLine(state, "ticker")
    #expect(line.contains("reconnect 2"), "\(line)")
    #expect(line.contains("reconnected 2"), "\(line)")
    send(&state, .agent(.started(id, attempt: 2)))
    #expect(!queueLine(state, "ticker").contains("reconnect 2"))

    // Cancelled: the state is the row's, the events stay with it.
    var log = StreamLog(format: .sse)
    for index in 0..<142 { log.append(event(index, at: Double(index))) }
    var result = ExchangeResult(
      id: id, request: request, state: .cancelled, response: Response(status: 200), error: .cancelled,
      queuedAt: epoch, startedAt: epoch, finishedAt: epoch.addingTimeInterval(46))
    result.stream = log
    send(&state, .agent(.finished(result)))
    #expect(state.exchanges[0].state == .cancelled)
    #expect(state.exchanges[0].stream?.total == 142)
    line = queueLine(state, "ticker")
    #expect(line.contains("cancelled"), "\(line)")
    #expect(!line.contains("stream ·"), "\(line)")
  }
}
