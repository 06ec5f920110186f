import Foundation
import RequestEngine
import TerminalUI
import Testing
import Workbench

/// The Headers tab's name column fits the longest name, up to half the pane.
@Suite("view: the Headers tab's name column")
struct HeaderNameColumnTests {
  func headersScreen(_ names: [String], width: Int) throws -> [String] {
    var state = try demoState(width: width, height: 30)
    send(&state, .key(.enter))
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    let id = ExchangeID(rawValue: 1)
    var headers = HTTPHeaders()
    for name in names { headers.add(name, "true") }
    let response = Response(
      status: 200, httpVersion: "HTTP/1.1", headers: headers, body: .memory(Array("{}".utf8)),
      effectiveURL: request.url, redirectCount: 0, timing: Timing(total: 0.002), bytesSent: 0)
    let result = ExchangeResult(
      id: id, request: request, state: .succeeded, response: response, error: nil, attempts: 1,
      queuedAt: epoch, startedAt: epoch, finishedAt: epoch.addingTimeInterval(0.002))
    send(&state, .agent(.queued(id, request)), .agent(.started(id, attempt: 1)))
    send(&state, .agent(.headers(id, status: 200, headers: headers)), .agent(.finished(result)))
    _ = keys(&state, "3")
    send(&state, .key(.right))
    #expect(state.viewer.tab == .headers)
    var buffer = ScreenBuffer(width: width, height: 30)
    view(state, into: &buffer)
    return buffer.lines()
  }

  @Test func aLongNameIsShownWholeWhenThePaneHasRoom() throws {
    let lines = try headersScreen(["Access-Control-Allow-Credentials", "Vary"], width: 120)
    #expect(lines.contains { $0.contains(/Access-Control-Allow-Credentials: +true/) }, "\(lines.joined(separator: "\n"))")
    // Values line up after the longest name.
    let long = try #require(lines.first { $0.contains("Access-Control-Allow-Credentials:") })
    let short = try #require(lines.first { $0.contains("Vary:") })
    #expect(long.range(of: "true")?.lowerBound.utf16Offset(in: long) == short.range(of: "true")?.lowerBound.utf16Offset(in: short))
  }

  @Test func aNameLongerThanHalfThePaneIsCutWithAnEllipsis() throws {
    let name = "X-" + String(repeating: "Very-Long-Header-Name-", count: 4) + "End"
    let lines = try headersScreen([name], width: 120)
    let line = try #require(lines.first { $0.contains("X-Very-Long") }, "\(lines.joined(separator: "\n"))")
    #expect(line.contains("…"))
    #expect(!line.contains("End"))
    #expect(line.contains("true"))
  }
}
