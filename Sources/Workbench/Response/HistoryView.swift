import Foundation
import History
import RequestEngine
import Workspace

/// An earlier response of a request, from the workspace's history, shown in the viewer in place
/// of the live exchange (`[` older, `]` newer, Esc back).
public struct HistoryView: Sendable {
  public var entry: HistoryEntry
  /// The recorded exchange rebuilt for the viewer (the request as recorded, secrets masked).
  public var result: ExchangeResult
  /// 0 is the newest entry.
  public var position: Int
  public var count: Int
  /// The request body as recorded (secrets masked), for sending it again.
  public var requestBody: [UInt8]

  public init(entry: HistoryEntry, body: [UInt8], requestBody: [UInt8] = [], position: Int, count: Int) {
    self.entry = entry
    self.requestBody = requestBody
    self.position = position
    self.count = count
    let request = Request(name: entry.name, method: entry.method, url: entry.url, headers: entry.requestHeaders)
    let response = entry.status.map {
      Response(
        status: $0, httpVersion: entry.httpVersion ?? "HTTP", headers: entry.responseHeaders, body: .memory(body),
        effectiveURL: entry.effectiveURL ?? entry.url, redirectCount: entry.redirectCount,
        timing: entry.timing ?? Timing(), bytesSent: entry.bytesSent)
    }
    result = ExchangeResult(
      id: entry.exchangeID, request: request, state: entry.state, response: response, error: entry.error,
      attempts: entry.attempts, queuedAt: entry.queuedAt, startedAt: entry.startedAt, finishedAt: entry.date,
      fromCache: entry.fromCache, deduplicated: entry.deduplicated)
  }
}
