import Base
import Foundation
import RequestEngine
import Synchronization
import Workspace

/// Every finished exchange of a workspace, kept in one SQLite database in its state folder
/// (`STATE/history.sqlite`, see `HistoryDatabase`), bounded per request and in total size,
/// oldest dropped first. Safe to use from several threads, and from several processes on one
/// state folder at once (the TUI open and a `run` in another terminal): each read sees what any
/// of them committed before it.
///
/// ```swift
/// let state = StateFolder.url(forWorkspace: workspaceURL, override: nil)
/// let history = HistoryStore(stateFolder: state)
/// history.recordInBackground(result, name: "get-user")   // returns at once
/// history.waitForBackgroundRecords()                     // the last commit
/// let latest = try history.entries(for: "get-user").first
/// let body = try latest.map { try history.body(of: $0) }
/// ```
///
/// Recording happens on one writer thread (`HistoryWriter`): whatever queued while the last
/// commit ran goes in one transaction, so `run` never waits for the disk except at its exit,
/// for the last commit. Secrets are masked before anything is written (`HistoryRecord`).
///
/// Reading never trusts the file: a row whose values are damaged is skipped and counted
/// (`HistoryResults.damaged`), a database that is not one is set aside and a new one started,
/// and every error is a `FileError` naming the file. An old file history (`STATE/history/`) is
/// moved in on first use (`HistoryMigration`).
public final class HistoryStore: @unchecked Sendable {
  /// How much history is kept.
  public struct Limits: Sendable, Equatable {
    /// Entries kept per request name; the oldest are dropped beyond it. 0 records nothing.
    public var perRequest: Int
    /// Bytes over all requests (bodies and metadata); the oldest entries are dropped beyond it.
    public var totalBytes: Int
    /// Response bodies up to this size are kept in the database, larger ones in a file each.
    public var inlineBodyLimit: Int

    public init(perRequest: Int = 50, totalBytes: Int = 200 << 20, inlineBodyLimit: Int = 1 << 20) {
      self.perRequest = max(0, perRequest)
      self.totalBytes = max(0, totalBytes)
      self.inlineBodyLimit = max(0, inlineBodyLimit)
    }
  }

  /// Where a store's files are.
  public struct Paths: Sendable {
    /// The state folder.
    public var stateFolder: String
    /// `STATE/history.sqlite`.
    public var database: String
    /// `STATE/history-bodies`: response bodies above the inline limit, `KEY.body`.
    public var bodies: String
    /// `STATE/history`: the file history of earlier versions, moved into the database.
    public var legacyFolder: String
    /// Body files without a row, and temporary files, younger than this are left alone: they
    /// may belong to a write in progress in another process.
    var strayFileGrace: TimeInterval
    /// How long, in all, a commit (or a read) waits for another process's lock
    /// (`HistoryDatabase.busyTimeoutMilliseconds`; shorter in tests).
    var lockWait: Int32

    static let bodySuffix = ".body"

    init(stateFolder: URL, strayFileGrace: TimeInterval, lockWait: Int32 = HistoryDatabase.busyTimeoutMilliseconds) {
      let root = stateFolder.standardizedFileURL.path
      self.stateFolder = root
      database = root + "/history.sqlite"
      bodies = StateFolder.historyBodies(in: stateFolder.standardizedFileURL).path
      legacyFolder = StateFolder.history(in: stateFolder.standardizedFileURL).path
      self.strayFileGrace = strayFileGrace
      self.lockWait = lockWait
    }

    /// `STATE/history-bodies/KEY.body`; nil when KEY is not a name reqbench makes
    /// (`StateFiles.path`): the key of a damaged row never becomes a path.
    func bodyFile(_ key: String) -> String? { StateFiles.path(key, in: bodies, suffix: Self.bodySuffix) }

    /// Removes the body file of the entry KEY (nothing for an invalid key).
    func removeBodyFile(_ key: String) {
      if let path = bodyFile(key) { unlink(path) }
    }

    /// `10 s`: how long a lock is waited for, as messages say it.
    var waitText: String {
      lockWait >= 1000 ? "\(lockWait / 1000) s" : "\(lockWait) ms"
    }

    /// A SQLite failure as the error the store's callers get: the database file and what went
    /// wrong.
    func error(_ error: SQLiteError) -> FileError {
      var message = error.message
      if error.isForeign {
        message = "the history database is \(error.message)"
      } else if error.isDamage {
        message = "the history database is damaged: \(error.message)"
      }
      if error.isLocked {
        message = "the history database stayed locked for \(waitText) "
          + "by another process (another reqbench, or a program with a transaction open on it, such as sqlite3): "
          + error.message
      }
      return FileError(path: database, message: message, reason: error.message)
    }
  }

  public let paths: Paths
  public let limits: Limits
  private let writer: HistoryWriter

  private let readLock = NSLock()
  /// The readers' connection, opened on first read (nil until then, or while there is no
  /// database yet).
  private var reader: SQLiteConnection?
  /// The file the reader opened (`HistoryFiles.identity`).
  private var readerIdentity: HistoryFiles.Identity?
  private var readerNotices: [String] = []

  /// A store over the state folder `stateFolder` (`StateFolder.url(forWorkspace:override:)`).
  /// Nothing is read or created until the first call.
  public convenience init(stateFolder: URL, limits: Limits = Limits()) {
    self.init(stateFolder: stateFolder, limits: limits, strayFileGrace: 3600)
  }

  init(
    stateFolder: URL, limits: Limits, strayFileGrace: TimeInterval,
    lockWait: Int32 = HistoryDatabase.busyTimeoutMilliseconds
  ) {
    paths = Paths(stateFolder: stateFolder, strayFileGrace: strayFileGrace, lockWait: lockWait)
    self.limits = limits
    writer = HistoryWriter(paths: paths, limits: limits)
  }

  deinit {
    writer.close()
  }

  /// The database file, `STATE/history.sqlite`.
  public var databaseURL: URL { URL(fileURLWithPath: paths.database) }

  // MARK: - Recording

  /// Records a finished exchange of the request `name` and waits until it is committed; then
  /// the oldest entries of `name` beyond `Limits.perRequest` and the oldest overall while the
  /// history is larger than `Limits.totalBytes` are gone. Cancelled exchanges are recorded too.
  public func record(_ result: ExchangeResult, name: String) throws(FileError) {
    let failure = FailureBox()
    writer.submit([HistoryWriter.Job(result: result, name: name) { error in failure.set(error) }])
    writer.waitForCommits()
    if let error = failure.get() { throw error }
  }

  /// Queues a finished exchange for the writer thread and returns at once. `failed` is called on
  /// that thread when it cannot be recorded. The result (and so a spilled body's file) is kept
  /// until it is written.
  public func recordInBackground(
    _ result: ExchangeResult, name: String,
    failed: (@Sendable (FileError) -> Void)? = nil
  ) {
    writer.submit([HistoryWriter.Job(result: result, name: name, failed: failed)])
  }

  /// Queues several exchanges at once (an engine pass's), to be committed together.
  public func recordInBackground(
    _ results: [(result: ExchangeResult, name: String)],
    failed: (@Sendable (FileError) -> Void)? = nil
  ) {
    writer.submit(results.map { HistoryWriter.Job(result: $0.result, name: $0.name, failed: failed) })
  }

  /// Waits until every exchange queued so far is committed (or has failed): the last commit.
  public func waitForBackgroundRecords() {
    writer.waitForCommits()
  }

  /// Finishes what is queued and ends the writer thread (also done when the store goes away).
  public func close() {
    writer.close()
  }

  /// Removes body files without a row and stale temporary files now (the writer does it in the
  /// background once per process).
  func sweepStrayFiles() throws(FileError) {
    try read(or: ()) { db throws(SQLiteError) in try HistoryWriter.sweepBodyFiles(paths: paths, db: db) }
  }

  /// Starts the writer thread now: it opens the database and checkpoints what earlier processes
  /// left in the WAL (a copy and two fsyncs, tens of milliseconds on a slow disk) while the
  /// caller sends its first requests, instead of in front of the first commit, which `run`
  /// waits for at its end.
  public func prepareForRecording() {
    writer.startBackgroundWork()
  }

  /// Starts moving an old file history into the database in the background, if there is one.
  public func startMigration() {
    if FileManager.default.fileExists(atPath: paths.legacyFolder) { writer.startBackgroundWork() }
  }

  /// Moves an old file history into the database now, waiting until it is done.
  public func finishMigration() {
    guard FileManager.default.fileExists(atPath: paths.legacyFolder) else { return }
    writer.finishMigration()
  }

  /// What happened that the user should hear about, once: a damaged database set aside, an old
  /// history moved in.
  public func takeNotices() -> [String] {
    let own = readLock.withLock {
      let taken = readerNotices
      readerNotices = []
      return taken
    }
    return own + writer.takeNotices()
  }

  // MARK: - Reading

  /// The entries `query` selects, newest first; metadata only, no body is read.
  public func entries(matching query: HistoryQuery) throws(FileError) -> HistoryResults {
    try read(or: HistoryResults()) { db throws(SQLiteError) in
      var indexed: Int64 = 0
      var driving: Int?
      if !query.words.isEmpty {
        _ = HistorySearchIndex.catchUp(db)
        indexed = try db.integer("SELECT indexed FROM search_state") ?? 0
        driving = HistorySearchIndex.drivingWord(query, in: db)
      }
      let (sql, values) = HistorySearchIndex.select(query, indexed: indexed, driving: driving)
      var results = HistoryResults()
      do throws(SQLiteError) {
        try Self.collect(db, sql, values, into: &results)
      } catch where error.isDamage && !query.words.isEmpty {
        results = HistoryResults()
        if (try? HistorySearchIndex.rebuild(db)) != nil, HistorySearchIndex.catchUp(db) {
          // A damaged search index: emptied, filled again from the rows, and asked again.
          try Self.collect(db, sql, values, into: &results)
        } else {
          // One that cannot even be emptied is set aside: the rows are scanned.
          try? HistorySearchIndex.abandon(db)
          let (scan, scanValues) = HistorySearchIndex.select(query, indexed: nil)
          try Self.collect(db, scan, scanValues, into: &results)
        }
      }
      return results
    }
  }

  /// The recorded exchanges of the request `name` (of every request when nil), newest first.
  public func entries(for name: String? = nil, limit: Int? = nil) throws(FileError) -> [HistoryEntry] {
    try entries(matching: HistoryQuery(requests: name.map { .named($0) } ?? .all, limit: limit)).entries
  }

  /// The entry of request `name` at `position` (0 the newest) and how many the request has, for
  /// stepping through them (`[` and `]` in the TUI); nil past the end.
  public func entry(of name: String, at position: Int) throws(FileError) -> (entry: HistoryEntry, count: Int)? {
    guard position >= 0 else { return nil }
    return try read(or: nil) { db throws(SQLiteError) -> (entry: HistoryEntry, count: Int)? in
      try db.transaction(immediate: false) { () throws(SQLiteError) -> (entry: HistoryEntry, count: Int)? in
        let count = try db.integer("SELECT count(*) FROM entries WHERE name = ?", [.text(name)]) ?? 0
        var results = HistoryResults()
        try Self.collect(
          db,
          "SELECT \(HistoryRow.selectColumns) FROM entries e WHERE e.name = ? "
            + "ORDER BY e.finished_at DESC, e.id DESC LIMIT 1 OFFSET ?",
          [.text(name), .integer(position)], into: &results)
        return results.entries.first.map { ($0, Int(count)) }
      }
    }
  }

  /// Where `entry` is among its request's entries (0 the newest), for `entry(of:at:)`.
  public func position(of entry: HistoryEntry) throws(FileError) -> Int {
    try read(or: 0) { db throws(SQLiteError) in
      Int(
        try db.integer(
          """
          SELECT count(*) FROM entries e, entries me WHERE me.id = ? AND e.name = me.name
            AND (e.finished_at > me.finished_at OR (e.finished_at = me.finished_at AND e.id > me.id))
          """, [.integer(entry.storage.row)]) ?? 0)
    }
  }

  /// The names that have history, sorted.
  public func names() throws(FileError) -> [String] {
    try read(or: []) { db throws(SQLiteError) in
      var names: [String] = []
      try db.statement("SELECT DISTINCT name FROM entries ORDER BY name").forEachRow { row in
        if let name = row.text(0) { names.append(name) }
      }
      return names
    }
  }

  /// Bytes the history counts against `Limits.totalBytes`.
  public func totalBytes() throws(FileError) -> Int {
    try read(or: 0) { db throws(SQLiteError) in
      Int(clamping: try db.integer("SELECT bytes FROM totals") ?? 0)
    }
  }

  /// The response body of `entry` as stored (`storedBodyBytes` long): as received, except that
  /// the request's secrets are masked. Empty when there was none; an error when it was not kept
  /// (`bodyKept` is false) or it is gone (the entry was dropped since).
  public func body(of entry: HistoryEntry) throws(FileError) -> [UInt8] {
    try body(of: entry, range: 0..<entry.storedBodyBytes)
  }

  /// A slice of the stored response body of `entry`, read without loading the rest (for paging a
  /// large body). The range is clamped to the body.
  public func body(of entry: HistoryEntry, range: Range<Int>) throws(FileError) -> [UInt8] {
    let lower = min(max(0, range.lowerBound), entry.storedBodyBytes)
    let upper = min(max(lower, range.upperBound), entry.storedBodyBytes)
    switch entry.storage.responseBody {
    case .dropped:
      throw FileError(
        path: paths.database,
        message: "the response body of \(entry.name) (\(entry.bytes) bytes) was not kept: "
          + "it is larger than the history may hold (\(limits.totalBytes) bytes)",
        reason: "not kept")
    case .inline:
      if upper == lower { return [] }
      let bytes = try blob(
        "SELECT substr(response, ?, ?) FROM bodies WHERE id = ?",
        [.integer(lower + 1), .integer(upper - lower), .integer(entry.storage.row)], of: entry)
      guard bytes.count == upper - lower else { throw gone(entry, "response body") }
      return bytes
    case .file:
      if upper == lower { return [] }
      guard let file = paths.bodyFile(entry.id) else { throw gone(entry, "response body") }
      return try HistoryFiles.read(file, offset: lower, count: upper - lower)
    }
  }

  /// The request body of `entry` as sent (secrets masked).
  public func requestBody(of entry: HistoryEntry) throws(FileError) -> [UInt8] {
    guard entry.requestBodyBytes > 0 else { return [] }
    let bytes = try blob("SELECT request FROM bodies WHERE id = ?", [.integer(entry.storage.row)], of: entry)
    guard bytes.count == entry.requestBodyBytes else { throw gone(entry, "request body") }
    return bytes
  }

  /// The request of `entry` as it was sent, to send again: method, URL, headers and body. Secrets
  /// are still masked (`••••`), so fill them in (or prepare the request anew from the workspace)
  /// before sending; timeouts, validation and retries are the defaults.
  public func request(of entry: HistoryEntry) throws(FileError) -> Request {
    let bytes = try requestBody(of: entry)
    let body =
      bytes.isEmpty && entry.requestContentType == nil
      ? RequestBody.empty : RequestBody(bytes: bytes, contentType: entry.requestContentType)
    return Request(
      name: entry.name, method: entry.method, url: entry.url, headers: entry.requestHeaders,
      body: body)
  }

  // MARK: - The readers' connection

  /// Runs `body` with the readers' connection; `missing` when there is no database yet.
  private func read<T>(or missing: T, _ body: (SQLiteConnection) throws(SQLiteError) -> T) throws(FileError) -> T {
    readLock.lock()
    defer { readLock.unlock() }
    guard let db = try openReader() else { return missing }
    do throws(SQLiteError) {
      return try body(db)
    } catch {
      throw paths.error(error)
    }
  }

  /// The readers' connection, opened on first use; nil while there is no database. Call with
  /// `readLock` held.
  private func openReader() throws(FileError) -> SQLiteConnection? {
    // A database set aside since (by this process's writer or another process) is not read on:
    // the file at the path now is.
    if reader != nil, HistoryFiles.identity(paths.database) != readerIdentity { reader = nil }
    if let reader { return reader }
    do throws(SQLiteError) {
      if case .ready(let db) = try HistoryDatabase.open(path: paths.database, create: false, busyTimeout: paths.lockWait) {
        reader = db
        readerIdentity = HistoryFiles.identity(paths.database)
      }
    } catch where error.isDamage {
      let aside = HistoryDatabase.setAside(path: paths.database)
      readerNotices.append(HistoryDatabase.setAsideNotice(path: paths.database, error: error, aside: aside))
    } catch {
      throw paths.error(error)
    }
    return reader
  }

  private func blob(_ sql: String, _ values: [SQLiteValue], of entry: HistoryEntry) throws(FileError) -> [UInt8] {
    let found: [UInt8]? = try read(or: nil) { db throws(SQLiteError) -> [UInt8]? in
      try db.statement(sql).firstRow(values) { $0.blob(0) }
    }
    guard let found else { throw gone(entry, "body") }
    return found
  }

  private func gone(_ entry: HistoryEntry, _ what: String) -> FileError {
    FileError(
      path: paths.database,
      message: "the \(what) of \(entry.name) (\(entry.id)) is gone or damaged", reason: "damaged")
  }

  private static func collect(
    _ db: SQLiteConnection, _ sql: String, _ values: [SQLiteValue], into results: inout HistoryResults
  ) throws(SQLiteError) {
    try db.statement(sql).forEachRow(values) { row in
      if let entry = HistoryRow.entry(from: row) {
        results.entries.append(entry)
      } else {
        results.damaged += 1
      }
    }
  }
}

/// What a history query found: the entries, and how many rows were skipped as damaged.
public struct HistoryResults: Sendable {
  public var entries: [HistoryEntry] = []
  /// Rows whose values could not be read (a damaged file, another program's edit).
  public var damaged = 0

  public init(entries: [HistoryEntry] = [], damaged: Int = 0) {
    self.entries = entries
    self.damaged = damaged
  }
}

/// The error of one synchronous `record`, set on the writer thread.
private final class FailureBox: Sendable {
  private let error = Mutex<FileError?>(nil)

  func set(_ error: FileError) { self.error.withLock { $0 = error } }
  func get() -> FileError? { error.withLock { $0 } }
}

extension HistorySettings {
  /// The history store's limits for these settings.
  public var limits: HistoryStore.Limits {
    HistoryStore.Limits(perRequest: perRequest, totalBytes: Int(saturating: (maxMB * 1_048_576).rounded()))
  }
}
