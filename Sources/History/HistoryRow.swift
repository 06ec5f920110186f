import Foundation
import RequestEngine
import Workspace

/// An entry as a row of the history database's `entries` table: the columns written, and the
/// checks that turn a row read back into a `HistoryEntry`. A row that fails a check (a damaged
/// file, another program's edit: `finished_at` 1e300, a negative size, an unknown state, a key
/// that is not one, `../../x`) is skipped and counted, never trusted and never a trap.
enum HistoryRow {
  /// The columns `entry(from:)` reads, in its order (`e` is the `entries` table).
  static let selectColumns = """
    e.id, e.key, e.name, e.exchange, e.state, e.queued_at, e.started_at, e.finished_at, e.attempts,
    e.from_cache, e.deduplicated, e.method, e.url, e.request_headers, e.request_content_type,
    e.request_body_bytes, e.status, e.http_version, e.response_headers, e.effective_url,
    e.redirect_count, e.dns, e.connect, e.tls, e.first_byte, e.total, e.bytes_sent, e.bytes,
    e.body_storage, e.stored_body_bytes, e.error_kind, e.error_message, e.error_status,
    e.error_path, e.stored_bytes, e.sent_head
    """

  /// The INSERT of `bind(_:into:)`.
  static let insert = """
    INSERT OR IGNORE INTO entries (key, name, exchange, state, queued_at, started_at, finished_at,
      attempts, from_cache, deduplicated, method, url, request_headers, request_content_type,
      request_body_bytes, status, http_version, response_headers, effective_url, redirect_count,
      dns, connect, tls, first_byte, total, bytes_sent, bytes, body_storage, stored_body_bytes,
      error_kind, error_message, error_status, error_path, stored_bytes, sent_head)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
      ?, ?, ?, ?, ?, ?)
    """

  /// Times outside 1970 … 9999 are damage (a formatted date of 1e300 seconds would trap).
  static let latestTime: Double = 253_402_300_799

  /// Binds the values of `insert` for `entry`, in its order.
  static func bind(_ entry: HistoryEntry, into row: inout SQLiteBinder) throws(SQLiteError) {
    let timing = entry.timing
    try row.text(entry.id)
    try row.text(entry.name)
    try row.integer(Int64(bitPattern: entry.exchangeID.rawValue))
    try row.text(entry.state.rawValue)
    try row.real(entry.queuedAt.timeIntervalSince1970)
    try row.real(entry.startedAt?.timeIntervalSince1970)
    try row.real(entry.date.timeIntervalSince1970)
    try row.integer(entry.attempts)
    try row.integer(entry.fromCache ? 1 : 0)
    try row.integer(entry.deduplicated ? 1 : 0)
    try row.text(entry.method.rawValue)
    try row.text(entry.url)
    row.text { appendHeaderText(entry.requestHeaders, to: &$0) }
    try row.text(entry.requestContentType)
    try row.integer(entry.requestBodyBytes)
    try row.integer(entry.status)
    try row.text(entry.httpVersion)
    if entry.status == nil {
      try row.text(nil)
    } else {
      row.text { appendHeaderText(entry.responseHeaders, to: &$0) }
    }
    try row.text(entry.effectiveURL)
    try row.integer(entry.redirectCount)
    try row.real(timing?.dns)
    try row.real(timing?.connect)
    try row.real(timing?.tls)
    try row.real(timing?.firstByte)
    try row.real(timing?.total)
    try row.integer(entry.bytesSent)
    try row.integer(entry.bytes)
    try row.text(entry.storage.responseBody.rawValue)
    try row.integer(entry.storedBodyBytes)
    try row.text(entry.error?.kind.rawValue)
    try row.text(entry.error?.message)
    try row.integer(entry.error?.status)
    try row.text(entry.error?.path)
    try row.integer(entry.storedBytes)
    try row.text(entry.sentHead)
  }

  /// Appends headers as stored and searched, one `Name: value` line each, to `text`: for every
  /// entry recorded, twice, straight into the row's bound bytes (`SQLiteBinder.text(writing:)`).
  static func appendHeaderText(_ headers: HTTPHeaders, to text: inout [UInt8]) {
    for (index, field) in headers.fields.enumerated() {
      if index > 0 { text.append(UInt8(ascii: "\n")) }
      text.append(contentsOf: field.name.utf8)
      text.append(UInt8(ascii: ":"))
      text.append(UInt8(ascii: " "))
      text.append(contentsOf: field.value.utf8)
    }
  }

  static func headers(fromText text: String) -> HTTPHeaders {
    var headers = HTTPHeaders()
    for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
      if let colon = line.firstRange(of: ": ") {
        headers.add(String(line[..<colon.lowerBound]), String(line[colon.upperBound...]))
      } else {
        headers.add(String(line), "")
      }
    }
    return headers
  }

  /// The entry in the current row of `row` (selected with `selectColumns`), or nil when a value
  /// is damaged.
  static func entry(from row: SQLiteStatement) -> HistoryEntry? {
    func time(_ column: Int32) -> Date? {
      guard let seconds = row.double(column), seconds >= 0, seconds <= latestTime else { return nil }
      return Date(timeIntervalSince1970: seconds)
    }
    func count(_ column: Int32) -> Int? {
      guard let n = row.int(column), n >= 0 else { return nil }
      return n
    }
    func duration(_ column: Int32) -> Double {
      guard let x = row.double(column), x >= 0, x < 1e9 else { return 0 }
      return x
    }
    // The key names the entry's body file (`history-bodies/KEY.body`): one with `/`, `..`, NUL or
    // anything else a key never holds is damage, never a path.
    guard let id = row.int64(0), let key = row.text(1), StateFiles.isValidName(key), let name = row.text(2),
      let exchange = row.int64(3),
      let state = row.text(4).flatMap(ExchangeState.init(rawValue:)), state.isTerminal,
      let queuedAt = time(5), let finishedAt = time(7),
      let attempts = count(8), attempts <= 1_000_000,
      let method = row.text(11).flatMap(HTTPMethod.init(rawValue:)), let url = row.text(12),
      let requestHeaders = row.text(13).map(headers(fromText:)),
      let requestBodyBytes = count(15), let bytes = count(27),
      let storage = row.text(28).flatMap(HistoryEntry.ResponseBodyStorage.init(rawValue:)),
      let storedBodyBytes = count(29), let storedBytes = count(34)
    else { return nil }
    var startedAt: Date?
    if !row.isNull(6) {
      guard let started = time(6) else { return nil }
      startedAt = started
    }
    var contentType: String?
    if !row.isNull(14) {
      guard let text = row.text(14) else { return nil }
      contentType = text
    }
    var status: Int?
    if !row.isNull(16) {
      guard let code = row.int(16), (0...999).contains(code) else { return nil }
      status = code
    }
    var timing: Timing?
    if status != nil, !row.isNull(25) {
      timing = Timing(
        dns: duration(21), connect: duration(22), tls: duration(23), firstByte: duration(24),
        total: duration(25))
    }
    var error: ExchangeError?
    if !row.isNull(30) {
      guard let kind = row.text(30).flatMap(ExchangeError.Kind.init(rawValue:)) else { return nil }
      let errorStatus = row.int(32).flatMap { (0...999).contains($0) ? $0 : nil }
      error = ExchangeError(
        kind: kind, message: row.text(31) ?? "", status: errorStatus, path: row.text(33))
    }
    var entry = HistoryEntry(
      id: key, name: name, exchangeID: ExchangeID(rawValue: UInt64(bitPattern: exchange)),
      date: finishedAt, queuedAt: queuedAt, startedAt: startedAt, method: method, url: url,
      requestHeaders: requestHeaders, requestContentType: contentType,
      requestBodyBytes: requestBodyBytes, state: state, status: status,
      httpVersion: status == nil ? nil : row.text(17),
      responseHeaders: status == nil ? HTTPHeaders() : headers(fromText: row.text(18) ?? ""),
      effectiveURL: status == nil ? nil : row.text(19),
      redirectCount: min(count(20) ?? 0, 1_000_000), timing: timing,
      bytesSent: row.int64(26).map { max(0, $0) } ?? 0, bytes: bytes,
      storedBodyBytes: storage == .dropped ? 0 : storedBodyBytes, bodyKept: storage != .dropped,
      error: error, attempts: attempts, fromCache: row.int64(9).map { $0 != 0 } ?? false,
      deduplicated: row.int64(10).map { $0 != 0 } ?? false, storedBytes: storedBytes,
      storage: HistoryEntry.Storage(row: id, responseBody: storage))
    entry.sentHead = row.text(35)
    return entry
  }
}
