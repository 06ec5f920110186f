import Foundation
import RequestEngine
import Workspace

/// One recorded exchange: the request as it was sent (secrets masked), how it ended, and the
/// response's status, headers, timing and size. Bodies are not part of it: read them on demand
/// with `HistoryStore.body(of:)` and `HistoryStore.requestBody(of:)`, so listing a long history
/// never loads one.
///
/// ```swift
/// for entry in store.entries(for: "get-user").prefix(5) {
///   print(entry.date, entry.status ?? 0, entry.bytes)
/// }
/// ```
public struct HistoryEntry: Sendable, Equatable, Identifiable {
  /// Unique and sortable: the UTC time the exchange finished, its exchange id and a random
  /// suffix (`20261130T014636.123456Z-42-9f3a61c0`). Also the name of its body file, if any.
  public var id: String
  /// The workspace request's name (`users/get`).
  public var name: String
  /// The exchange's id in the process that sent it.
  public var exchangeID: ExchangeID
  /// When the exchange finished.
  public var date: Date
  public var queuedAt: Date
  /// Nil when the exchange never started (cancelled while queued).
  public var startedAt: Date?

  // The request, as sent, every secret replaced by `••••`.
  public var method: HTTPMethod
  public var url: String
  public var requestHeaders: HTTPHeaders
  /// The request body's content type (it travels beside the body, not in `requestHeaders`).
  public var requestContentType: String?
  /// The request body's size; read it with `HistoryStore.requestBody(of:)`.
  public var requestBodyBytes: Int

  /// `.succeeded`, `.failed` or `.cancelled`.
  public var state: ExchangeState
  /// Nil when the server never answered (transport failure, cancelled before the response).
  public var status: Int?
  public var httpVersion: String?
  /// As received, except that any secret of the request found in a value is masked.
  public var responseHeaders: HTTPHeaders
  /// The URL of the last request after redirects (secrets masked).
  public var effectiveURL: String?
  public var redirectCount: Int
  public var timing: Timing?
  public var bytesSent: Int64
  /// The response body's size as received (what is shown to users).
  public var bytes: Int
  /// The response body's size as stored, which `HistoryStore.body(of:)` returns: the body with
  /// the request's secrets masked, so it differs from `bytes` when the server echoed a secret.
  /// Equal to `bytes` otherwise; 0 when the body was not kept.
  public var storedBodyBytes: Int
  /// False when the body was not stored because it alone is larger than the history may hold.
  public var bodyKept: Bool
  /// Why the exchange did not succeed (kind, message, status, JSON path; secrets masked).
  public var error: ExchangeError?
  public var attempts: Int
  public var fromCache: Bool
  public var deduplicated: Bool
  /// Bytes this entry takes on disk, bodies included.
  public var storedBytes: Int

  /// Where the entry is stored: its row in the history database and where its response body is.
  var storage: Storage

  /// The request head as curl put it on the wire (`ExchangeResult.sent`): the request line and
  /// every header curl wrote, `Host`, `User-Agent`, `Content-Length` and the cookies included,
  /// secrets masked. Nil when nothing was sent (a cache hit, a failure to connect) and for
  /// entries recorded before reqbench kept it.
  public var sentHead: String? = nil

  /// The header fields as curl sent them when known (`sentHead`), else the request's own.
  public var sentHeaders: HTTPHeaders {
    sentHead.map { SentRequest(head: $0, body: .none).headers } ?? requestHeaders
  }

  /// `HTTP/1.1` or `HTTP/2` from the sent request line; nil when nothing was sent.
  public var sentHTTPVersion: String? {
    guard let head = sentHead else { return nil }
    let line = head.prefix { !$0.isNewline }
    guard let space = line.lastIndex(of: " "), line[line.index(after: space)...].hasPrefix("HTTP/") else { return nil }
    return String(line[line.index(after: space)...])
  }

  struct Storage: Sendable, Equatable {
    /// The row's `id` in `entries` (and `bodies`).
    var row: Int64
    var responseBody: ResponseBodyStorage
  }

  /// Where the response body is.
  enum ResponseBodyStorage: String, Sendable, Equatable {
    /// In the database, beside the request body (up to `HistoryStore.Limits.inlineBodyLimit`).
    case inline
    /// In `STATE/history-bodies/KEY.body`, where KEY is the entry's `id`.
    case file
    /// Not stored (larger than the whole history may hold).
    case dropped
  }

  /// Wall time from the first start to the end, in milliseconds (0 if it never started).
  public var durationMs: Double {
    startedAt.map { max(0, date.timeIntervalSince($0) * 1000) } ?? 0
  }

  /// Newest first: by date, then by id.
  static func newerFirst(_ a: HistoryEntry, _ b: HistoryEntry) -> Bool {
    a.date != b.date ? a.date > b.date : a.id > b.id
  }
}
