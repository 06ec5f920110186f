import Foundation
import RequestEngine
import TerminalUI
import Testing
import Workbench

/// Queue rows: a cancel during a retry wait ends the row with the engine's last response, a
/// dedup waiter shows its badge and status from its first events.
@Suite struct RetryAndDedupRowTests {
  func screen(_ state: AppState) -> String {
    var buffer = ScreenBuffer(width: state.width, height: state.height)
    view(state, into: &buffer)
    return buffer.text
  }

  /// The queue line of the request `name`.
  func queueLine(_ state: AppState, _ name: String) -> String {
    screen(state).split(separator: "\n").map(String.init).last { $0.contains(name) && $0.contains("GET") } ?? ""
  }

  @Test func aCancelDuringTheRetryWaitEndsTheRowWithTheLastResponse() throws {
    var state = try demoState()
    let request = Request(name: "flaky", url: "http://127.0.0.1:8080/flaky")
    let id = ExchangeID(rawValue: 1)
    var headers = HTTPHeaders()
    headers["Retry-After"] = "1"
    send(
      &state, .tick(epoch), .agent(.queued(id, request)), .agent(.started(id, attempt: 1)),
      .agent(.headers(id, status: 503, headers: headers)),
      .agent(.retrying(id, attempt: 2, delay: 1.0, reason: .status(503, accepted: Validation()))))
    #expect(state.exchanges[0].retryWait?.delay == 1.0)
    var line = queueLine(state, "flaky")
    #expect(line.contains("retrying 2"), "\(line)")
    #expect(line.contains("503"))

    // `c` within the wait: the exchange ends cancelled with the 503 it had.
    let response = Response(status: 503, headers: headers, body: .memory(Array("flaky failure 1".utf8)))
    let result = ExchangeResult(
      id: id, request: request, state: .cancelled, response: response, error: .cancelled, attempts: 1,
      queuedAt: epoch, startedAt: epoch, finishedAt: epoch.addingTimeInterval(0.5))
    send(&state, .agent(.finished(result)))
    let row = state.exchanges[0]
    #expect(row.state == .cancelled)
    #expect(row.retryWait == nil)
    #expect(row.status == 503)
    line = queueLine(state, "flaky")
    #expect(line.contains("cancelled"), "\(line)")
    #expect(!line.contains("retrying"), "\(line)")
    #expect(state.queuedCount == 0 && state.runningCount == 0)
  }

  @Test func aDedupWaiterShowsItsBadgeAndStatusFromTheStart() throws {
    var state = try demoState()
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    let primary = ExchangeID(rawValue: 1)
    let waiter = ExchangeID(rawValue: 2)
    send(
      &state, .agent(.queued(primary, request)), .agent(.started(primary, attempt: 1)),
      .agent(.headers(primary, status: 200, headers: [:])))
    send(
      &state, .agent(.queued(waiter, request)), .agent(.joined(waiter, primary: primary)),
      .agent(.started(waiter, attempt: 1)), .agent(.headers(waiter, status: 200, headers: [:])))
    let row = try #require(state.exchanges.first { $0.id == waiter })
    #expect(row.badges == ["dedup"])
    #expect(row.status == 200)
    #expect(state.exchanges.first { $0.id == primary }?.badges == [])
  }

  /// Twenty sends of one request are one transfer: `1 running`, and the row with the transfer says
  /// how many joined it. When that exchange is cancelled, one of the others carries the transfer.
  @Test func joinedSendsCountAsTheOneTransferTheyShare() throws {
    var state = try demoState()
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    let primary = ExchangeID(rawValue: 1)
    send(&state, .agent(.queued(primary, request)), .agent(.started(primary, attempt: 1)))
    for n in 2...20 {
      let waiter = ExchangeID(rawValue: UInt64(n))
      send(
        &state, .agent(.queued(waiter, request)), .agent(.joined(waiter, primary: primary)),
        .agent(.started(waiter, attempt: 1)))
    }
    #expect(state.exchanges.count == 20)
    #expect(state.runningCount == 1)
    var buffer = ScreenBuffer(width: 160, height: 45)
    view(state, into: &buffer)
    let lines = buffer.lines()
    #expect(lines.contains { $0.contains("· 1 running ·") }, "\(lines.suffix(2))")
    #expect(lines.filter { $0.contains("+19 joined") }.count == 1)

    // The first is cancelled: its transfer goes on for the others, still one.
    let cancelled = ExchangeResult(
      id: primary, request: request, state: .cancelled, response: nil, error: .cancelled, attempts: 1,
      queuedAt: epoch, startedAt: epoch, finishedAt: epoch.addingTimeInterval(0.1))
    send(&state, .agent(.finished(cancelled)))
    #expect(state.runningCount == 1)
  }
}
