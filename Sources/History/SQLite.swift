import CSQLite
import Workspace

/// What a SQLite call reported: its result code and message (`database is locked`).
struct SQLiteError: Error, Sendable, CustomStringConvertible {
  /// The extended result code (`SQLITE_BUSY`, `SQLITE_CORRUPT`, …).
  var code: Int32
  var message: String
  /// A database, but not one of reqbench's history (`HistoryDatabase.checkSchema`).
  var isForeign = false

  init(code: Int32, message: String, isForeign: Bool = false) {
    self.code = code
    self.message = message
    self.isForeign = isForeign
  }

  /// The primary result code, without the extended bits.
  var primary: Int32 { code & 0xFF }
  /// The file is not a database, is damaged, or is another program's database: set it aside
  /// and start anew.
  var isDamage: Bool { isForeign || primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB }
  /// Another connection (another process) held the lock for longer than the busy timeout.
  var isLocked: Bool { primary == SQLITE_BUSY || primary == SQLITE_LOCKED }
  var description: String { message }
}

/// One connection to a SQLite database, used by one thread at a time (the history's writer
/// thread has its own; readers share one under a lock). Statements are prepared once per SQL
/// text and reused.
///
/// ```swift
/// let db = try SQLiteConnection(path: "STATE/history.sqlite", create: true)
/// let insert = try db.statement("INSERT INTO t(a, b) VALUES (?, ?)")
/// try insert.run([.text("x"), .integer(1)])
/// ```
final class SQLiteConnection {
  let path: String
  private let handle: OpaquePointer
  private var statements: [String: SQLiteStatement] = [:]
  /// Frames in the WAL after this connection's last commit, once `takeOverCheckpoints` ran.
  private var walFrames: UnsafeMutablePointer<Int32>?
  /// The database's page size (a WAL frame holds one page), read by `takeOverCheckpoints`.
  private var pageSize = 4096

  /// Opens (with `create`, creates) the database at `path`. `readOnly` opens it for reading only.
  /// A database file that is a symbolic link is refused (`SQLITE_OPEN_NOFOLLOW`): it is in the
  /// state folder, which is never read or written through one.
  init(path: String, create: Bool, readOnly: Bool = false) throws(SQLiteError) {
    _ = Self.configured
    self.path = path
    var db: OpaquePointer?
    var flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
    if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
    flags |= SQLITE_OPEN_NOFOLLOW
    // One thread at a time uses a connection (the callers lock): no mutex of SQLite's own.
    flags |= SQLITE_OPEN_NOMUTEX
    let status = sqlite3_open_v2(path, &db, flags, nil)
    guard let db else { throw SQLiteError(code: status, message: "out of memory opening \(path)") }
    guard status == SQLITE_OK else {
      let error = SQLiteError(code: status, message: String(cString: sqlite3_errmsg(db)))
      sqlite3_close_v2(db)
      throw error
    }
    handle = db
    sqlite3_extended_result_codes(db, 1)
  }

  /// SQLite's process-wide settings, made once before the first connection opens.
  private static let configured: Void = { _ = rb_sqlite3_configure() }()

  deinit {
    statements.removeAll()
    sqlite3_close_v2(handle)
    walFrames?.deallocate()
  }

  /// Turns off SQLite's automatic checkpoint for this connection's commits (which runs inside
  /// the commit that crosses 1,000 pages, so whoever waits for that commit waits for the copy
  /// and its fsyncs too); the owner calls `checkpoint` when nobody waits, `framesInWAL` saying
  /// how far the WAL has grown.
  func takeOverCheckpoints() {
    guard walFrames == nil else { return }
    let frames = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
    frames.initialize(to: 0)
    walFrames = frames
    rb_sqlite3_count_wal_frames(handle, frames)
    if let size = try? integer("PRAGMA page_size"), size > 0 { pageSize = Int(size) }
  }

  /// Frames in the WAL after the last commit (0 when not known, or just checkpointed).
  var framesInWAL: Int { Int(walFrames?.pointee ?? 0) }

  /// The pages those frames hold, in bytes.
  var bytesInWAL: Int { framesInWAL * pageSize }

  /// Copies what the WAL holds into the database as far as readers allow (`PASSIVE`: it waits
  /// for no one); the next writer then starts the WAL over.
  func checkpoint() throws(SQLiteError) {
    try execute("PRAGMA wal_checkpoint(PASSIVE)")
    walFrames?.pointee = 0
  }

  /// Closing leaves the WAL for a later checkpoint (`rb_sqlite3_no_checkpoint_on_close`).
  func skipCheckpointOnClose() {
    _ = rb_sqlite3_no_checkpoint_on_close(handle)
  }

  /// Waits up to `milliseconds` for another connection's lock before failing with SQLITE_BUSY.
  func setBusyTimeout(milliseconds: Int32) {
    sqlite3_busy_timeout(handle, milliseconds)
  }

  /// Runs SQL that returns no rows (several statements separated by `;` are allowed).
  func execute(_ sql: String) throws(SQLiteError) {
    var message: UnsafeMutablePointer<CChar>?
    let status = sqlite3_exec(handle, sql, nil, nil, &message)
    if status != SQLITE_OK {
      let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(status))
      sqlite3_free(message)
      throw SQLiteError(code: sqlite3_extended_errcode(handle), message: text)
    }
  }

  /// The prepared statement for `sql`, reset and with its bindings cleared.
  func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
    if let cached = statements[sql] {
      cached.reset()
      return cached
    }
    var raw: OpaquePointer?
    let status = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
    guard status == SQLITE_OK, let raw else { throw lastError(status) }
    let statement = SQLiteStatement(raw, connection: self)
    statements[sql] = statement
    return statement
  }

  /// The first column of the first row of `sql` as an integer (nil when there is no row or
  /// it is not an integer).
  func integer(_ sql: String, _ values: [SQLiteValue] = []) throws(SQLiteError) -> Int64? {
    try statement(sql).firstRow(values) { $0.int64(0) } ?? nil
  }

  /// Runs `body` in a transaction: `BEGIN IMMEDIATE` (the write lock at once, waiting for it
  /// up to the busy timeout) or a deferred `BEGIN` for reading; commits when it returns, rolls
  /// back when it throws.
  func transaction<T>(immediate: Bool, _ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
    try execute(immediate ? "BEGIN IMMEDIATE" : "BEGIN")
    let value: T
    do {
      value = try body()
    } catch {
      try? execute("ROLLBACK")
      throw error
    }
    do {
      try execute("COMMIT")
    } catch {
      try? execute("ROLLBACK")
      throw error
    }
    return value
  }

  /// Rows changed by the last INSERT, UPDATE or DELETE.
  var changes: Int { Int(sqlite3_changes64(handle)) }

  var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

  func lastError(_ status: Int32) -> SQLiteError {
    let code = sqlite3_extended_errcode(handle)
    return SQLiteError(code: code == SQLITE_OK ? status : code, message: String(cString: sqlite3_errmsg(handle)))
  }
}

/// A value to bind to a statement's `?`.
enum SQLiteValue: Sendable, Equatable {
  case null
  case integer(Int64)
  case real(Double)
  case text(String)
  case blob([UInt8])

  static func integer(_ value: Int) -> SQLiteValue { .integer(Int64(value)) }
  static func optional(_ value: Int?) -> SQLiteValue { value.map { .integer(Int64($0)) } ?? .null }
  static func optional(_ value: Double?) -> SQLiteValue { value.map { .real($0) } ?? .null }
  static func optional(_ value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }
}

/// Binds a statement's parameters one after the other, for every run or query of a
/// `SQLiteStatement` (a row written per exchange: `run(binding:)`, each value in its own type);
/// nil binds NULL.
///
/// Texts and blobs are copied one after the other into one buffer of the statement's, reused from
/// row to row, and bound once all are there without SQLite copying them again (`SQLITE_STATIC`):
/// SQLite's own copy of each text was a memory allocation per column per row recorded.
struct SQLiteBinder {
  /// Where the bytes of a text or blob parameter are in `bytes`.
  fileprivate struct Span {
    var index: Int32
    var offset: Int
    var count: Int
    var isBlob: Bool
  }

  fileprivate let statement: SQLiteStatement
  private var index: Int32 = 1
  fileprivate var bytes: [UInt8]
  fileprivate var spans: [Span]

  fileprivate init(statement: SQLiteStatement, bytes: [UInt8], spans: [Span]) {
    self.statement = statement
    self.bytes = bytes
    self.spans = spans
  }

  mutating func text(_ value: String?) throws(SQLiteError) {
    guard let value else { return try null() }
    let offset = bytes.count
    bytes.append(contentsOf: value.utf8)
    span(from: offset, isBlob: false)
  }

  /// A text parameter made by `write`, which appends its UTF-8 to the buffer it is given.
  mutating func text(writing write: (inout [UInt8]) -> Void) {
    let offset = bytes.count
    write(&bytes)
    span(from: offset, isBlob: false)
  }

  mutating func blob(_ value: [UInt8]?) throws(SQLiteError) {
    guard let value else { return try null() }
    let offset = bytes.count
    bytes.append(contentsOf: value)
    span(from: offset, isBlob: true)
  }

  mutating func integer(_ value: Int?) throws(SQLiteError) {
    if let value { try statement.bind(Int64(value), at: index) } else { try statement.bindNull(at: index) }
    index += 1
  }

  mutating func integer(_ value: Int64) throws(SQLiteError) {
    try statement.bind(value, at: index)
    index += 1
  }

  mutating func real(_ value: Double?) throws(SQLiteError) {
    if let value { try statement.bind(value, at: index) } else { try statement.bindNull(at: index) }
    index += 1
  }

  mutating func value(_ value: SQLiteValue) throws(SQLiteError) {
    switch value {
    case .null: try null()
    case .integer(let n): try integer(n)
    case .real(let x): try real(x)
    case .text(let text): try self.text(text)
    case .blob(let bytes): try blob(bytes)
    }
  }

  private mutating func null() throws(SQLiteError) {
    try statement.bindNull(at: index)
    index += 1
  }

  private mutating func span(from offset: Int, isBlob: Bool) {
    spans.append(Span(index: index, offset: offset, count: bytes.count - offset, isBlob: isBlob))
    index += 1
  }
}

/// A prepared statement of a `SQLiteConnection`. Column readers never trap on what a damaged
/// database holds: a value of another type than asked for, out of range or not finite is nil.
final class SQLiteStatement {
  private let handle: OpaquePointer
  private unowned let connection: SQLiteConnection
  /// The bytes `SQLiteBinder` gathers and where each parameter's are, kept from run to run.
  private var boundBytes: [UInt8] = []
  private var boundSpans: [SQLiteBinder.Span] = []

  fileprivate init(_ handle: OpaquePointer, connection: SQLiteConnection) {
    self.handle = handle
    self.connection = connection
  }

  deinit { sqlite3_finalize(handle) }

  func reset() {
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
  }

  // The binders of numbers and NULL, which `SQLiteBinder` calls as it goes.

  func bindNull(at index: Int32) throws(SQLiteError) {
    try check(sqlite3_bind_null(handle, index))
  }

  func bind(_ n: Int64, at index: Int32) throws(SQLiteError) {
    try check(sqlite3_bind_int64(handle, index, n))
  }

  func bind(_ x: Double, at index: Int32) throws(SQLiteError) {
    try check(sqlite3_bind_double(handle, index, x))
  }

  private func check(_ status: Int32) throws(SQLiteError) {
    guard status == SQLITE_OK else { throw connection.lastError(status) }
  }

  /// Steps once: true when a row is ready, false when done.
  func step() throws(SQLiteError) -> Bool {
    let status = sqlite3_step(handle)
    switch status {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default: throw connection.lastError(status)
    }
  }

  /// Binds `values`, steps to the end and resets: for statements that return no rows.
  func run(_ values: [SQLiteValue] = []) throws(SQLiteError) {
    try withBound(values) { () throws(SQLiteError) in while try step() {} }
  }

  /// Binds the parameters in order through `binder` (each with its own type: no array of
  /// `SQLiteValue`s made and taken apart, for a row written per exchange), steps to the end and
  /// resets.
  func run(binding bind: (inout SQLiteBinder) throws(SQLiteError) -> Void) throws(SQLiteError) {
    try withBound(bind) { () throws(SQLiteError) in while try step() {} }
  }

  /// Binds `values` and calls `row` for each row, then resets.
  func forEachRow(_ values: [SQLiteValue] = [], _ row: (SQLiteStatement) throws(SQLiteError) -> Void) throws(SQLiteError) {
    try withBound(values) { () throws(SQLiteError) in while try step() { try row(self) } }
  }

  /// Binds `values` and reads the first row with `read` (nil when there is none), then resets.
  func firstRow<T>(_ values: [SQLiteValue] = [], _ read: (SQLiteStatement) -> T) throws(SQLiteError) -> T? {
    try withBound(values) { () throws(SQLiteError) -> T? in try step() ? read(self) : nil }
  }

  private func withBound<T>(_ values: [SQLiteValue], _ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
    try withBound({ (binder: inout SQLiteBinder) throws(SQLiteError) in
      for value in values { try binder.value(value) }
    }, body)
  }

  /// Binds through `binder` and runs `body` while the texts and blobs it gathered are bound (their
  /// bytes stay put until then), then resets. Every statement is bound this way.
  private func withBound<T>(
    _ bind: (inout SQLiteBinder) throws(SQLiteError) -> Void, _ body: () throws(SQLiteError) -> T
  ) throws(SQLiteError) -> T {
    // The buffers move into the binder and back, so appending to them never copies them.
    boundBytes.removeAll(keepingCapacity: true)
    boundSpans.removeAll(keepingCapacity: true)
    var binder = SQLiteBinder(statement: self, bytes: boundBytes, spans: boundSpans)
    boundBytes = []
    boundSpans = []
    defer {
      // The reset clears the bindings: nothing points into the bytes after it.
      reset()
      boundBytes = binder.bytes
      boundSpans = binder.spans
    }
    try bind(&binder)
    let result: Result<T, SQLiteError> = binder.bytes.withUnsafeBytes { buffer in
      do throws(SQLiteError) {
        for span in binder.spans {
          let start = buffer.baseAddress.map { $0 + span.offset }
          let count = sqlite3_uint64(span.count)
          try check(
            span.isBlob
              ? rb_sqlite3_bind_blob(handle, span.index, start, count)
              : rb_sqlite3_bind_text(handle, span.index, start?.assumingMemoryBound(to: CChar.self), count))
        }
        return .success(try body())
      } catch {
        return .failure(error)
      }
    }
    return try result.get()
  }

  func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

  /// An integer column; a real with an integral value in range is accepted too.
  func int64(_ column: Int32) -> Int64? {
    switch sqlite3_column_type(handle, column) {
    case SQLITE_INTEGER: return sqlite3_column_int64(handle, column)
    case SQLITE_FLOAT:
      let x = sqlite3_column_double(handle, column)
      return Int64(exactly: x)
    default: return nil
    }
  }

  /// An integer column that fits an `Int`.
  func int(_ column: Int32) -> Int? { int64(column).flatMap { Int(exactly: $0) } }

  /// A finite number (integer or real) column.
  func double(_ column: Int32) -> Double? {
    switch sqlite3_column_type(handle, column) {
    case SQLITE_INTEGER, SQLITE_FLOAT:
      let x = sqlite3_column_double(handle, column)
      return x.isFinite ? x : nil
    default: return nil
    }
  }

  /// A text column (invalid UTF-8 repaired with U+FFFD); nil for NULL or a number.
  func text(_ column: Int32) -> String? {
    switch sqlite3_column_type(handle, column) {
    case SQLITE_TEXT, SQLITE_BLOB:
      let bytes = blob(column)
      return String(decoding: bytes, as: UTF8.self)
    default: return nil
    }
  }

  /// A blob (or text) column's bytes; empty for NULL.
  func blob(_ column: Int32) -> [UInt8] {
    guard sqlite3_column_type(handle, column) != SQLITE_NULL else { return [] }
    // The pointer first, then the size (SQLite's documented order).
    let pointer = sqlite3_column_blob(handle, column)
    let count = Int(sqlite3_column_bytes(handle, column))
    guard let pointer, count > 0 else { return [] }
    return Array(UnsafeRawBufferPointer(start: pointer, count: count))
  }

  /// A blob column's size without reading it.
  func byteCount(_ column: Int32) -> Int { Int(sqlite3_column_bytes(handle, column)) }
}
