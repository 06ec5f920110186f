import Foundation

/// How an exchange ended: exactly one per exchange.
///
/// Its fields (the request, the response, the head curl sent, ...) take about a kilobyte and are
/// kept behind one reference (`CopyOnWrite`): a result is copied at each step from the engine
/// thread to `run`, the TUI and the history writer.
public struct ExchangeResult: Sendable {
  private struct Fields: Sendable {
    var id: ExchangeID
    var request: Request
    var state: ExchangeState
    var response: Response?
    var error: ExchangeError?
    var attempts: Int
    var queuedAt: Date
    var startedAt: Date?
    var finishedAt: Date
    var fromCache: Bool
    var deduplicated: Bool
    var cache: CacheOutcome?
    var download: DownloadOutcome?
    var sent: SentRequest?
    var stream: StreamLog?
  }

  private var fields: CopyOnWrite<Fields>

  public var id: ExchangeID {
    _read { yield fields.value.id }
    _modify { yield &fields.value.id }
  }
  public var request: Request {
    _read { yield fields.value.request }
    _modify { yield &fields.value.request }
  }
  /// `.succeeded`, `.failed` or `.cancelled`.
  public var state: ExchangeState {
    _read { yield fields.value.state }
    _modify { yield &fields.value.state }
  }
  /// Present whenever the server answered, also on status and validation failures.
  public var response: Response? {
    _read { yield fields.value.response }
    _modify { yield &fields.value.response }
  }
  public var error: ExchangeError? {
    _read { yield fields.value.error }
    _modify { yield &fields.value.error }
  }
  /// Attempts made (1 without retries).
  public var attempts: Int {
    _read { yield fields.value.attempts }
    _modify { yield &fields.value.attempts }
  }
  public var queuedAt: Date {
    _read { yield fields.value.queuedAt }
    _modify { yield &fields.value.queuedAt }
  }
  public var startedAt: Date? {
    _read { yield fields.value.startedAt }
    _modify { yield &fields.value.startedAt }
  }
  public var finishedAt: Date {
    _read { yield fields.value.finishedAt }
    _modify { yield &fields.value.finishedAt }
  }
  public var fromCache: Bool {
    _read { yield fields.value.fromCache }
    _modify { yield &fields.value.fromCache }
  }
  public var deduplicated: Bool {
    _read { yield fields.value.deduplicated }
    _modify { yield &fields.value.deduplicated }
  }
  /// What the cache did for a request with a cache policy; nil without one.
  public var cache: CacheOutcome? {
    _read { yield fields.value.cache }
    _modify { yield &fields.value.cache }
  }
  /// What a download did with its file; nil for other requests.
  public var download: DownloadOutcome? {
    _read { yield fields.value.download }
    _modify { yield &fields.value.download }
  }
  /// The request as curl sent it (the last attempt's; secrets masked); nil when nothing was sent
  /// (a cache hit, a failure to connect, a cancel before the request went out).
  public var sent: SentRequest? {
    _read { yield fields.value.sent }
    _modify { yield &fields.value.sent }
  }
  /// A streamed response's events (the last ones kept, with counts); nil for other responses.
  public var stream: StreamLog? {
    _read { yield fields.value.stream }
    _modify { yield &fields.value.stream }
  }

  public init(
    id: ExchangeID, request: Request, state: ExchangeState, response: Response?, error: ExchangeError?,
    attempts: Int = 1, queuedAt: Date, startedAt: Date?, finishedAt: Date, fromCache: Bool = false,
    deduplicated: Bool = false, cache: CacheOutcome? = nil, download: DownloadOutcome? = nil,
    sent: SentRequest? = nil
  ) {
    fields = CopyOnWrite(
      Fields(
        id: id, request: request, state: state, response: response, error: error, attempts: attempts,
        queuedAt: queuedAt, startedAt: startedAt, finishedAt: finishedAt, fromCache: fromCache,
        deduplicated: deduplicated, cache: cache, download: download, sent: sent, stream: nil))
  }

  /// Wall time from the first start to the end, in seconds (0 if never started).
  public var duration: Double {
    startedAt.map { finishedAt.timeIntervalSince($0) } ?? 0
  }
}
