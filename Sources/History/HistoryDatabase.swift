import CSQLite
import Foundation
import RequestEngine
import Workspace

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The history database, `STATE/history.sqlite`: its schema, the migrations that bring an older
/// file up to it, and how a connection to it is opened.
///
/// ## Schema (version 4, in `PRAGMA user_version`)
///
/// - `entries`: one row per exchange, metadata in columns (see `HistoryRow` for each). `id` is
///   `AUTOINCREMENT`, so ids only grow (the search index relies on it); `key` is the entry's
///   public id (`20261130T014636.123456Z-42-9f3a61c0`, also what names a body file), unique, so
///   recording the same entry twice (the migration, run again) keeps one.
/// - `bodies`: the request body and the response body (when kept inline, up to 1 MB) of an
///   entry, apart from the metadata so listing never reads them. Larger response bodies are
///   files, `STATE/history-bodies/KEY.body`, written before the row that refers to them.
/// - `totals`: one row with the number of entries and the bytes they take, so pruning by size
///   never sums the table.
/// - `entries.sent_head` (version 2): the request head as curl sent it (`HistoryEntry.sentHead`).
/// - `names` (version 2): each request name with its number of entries, so pruning per request
///   reads one small table instead of every request's entries (which grew with the history: the
///   cost of a run rose with every run before it).
/// - Both counts are the writer's: up once per commit for the entries it added
///   (`HistoryWriter.insert`), down once per request or commit for the entries a prune dropped
///   (`HistoryPruning`, which also drops their bodies and their words in the search index).
///   Versions 1 and 2 kept them with triggers; a trigger program run for every row took about
///   40% of the time of recording an entry (version 3 dropped the insert triggers) and most of
///   the time of dropping one (version 4 dropped the rest).
/// - `search`: an FTS5 index (contentless, `unicode61` words) over name, method, URL, status,
///   error and response headers. It is filled after the fact (`search_state.indexed` is the last
///   id in it): recording never pays for it, and a search first indexes what is new.
///
/// Indexes: by name and time (a request's history, `[`, pruning per request), by time (every
/// request, `--since`, pruning by size) and by status (`--status`).
///
/// ## Connections
///
/// WAL journal (readers never wait for the writer, and a `kill -9` loses at most the last
/// uncommitted transaction), `synchronous=NORMAL` (commits are not fsynced one by one; a power
/// loss may lose the last moments but leaves the file consistent), a busy timeout so several
/// processes on one state folder take turns. Closing does not checkpoint: the history writer
/// checkpoints the WAL itself, once idle (`HistoryWriter`: at the first open, past 1,000 pages,
/// and before closing past 4,000), never inside a commit that `run` waits for.
enum HistoryDatabase {
  /// The schema this build writes, `PRAGMA user_version`.
  static let schemaVersion = 4
  /// The page size of a new database (see `open`).
  static let pageSize = 16_384
  /// How long a connection waits for another process's lock.
  static let busyTimeoutMilliseconds: Int32 = 10_000

  /// Each migration brings the schema from its index to the next version: `migrations[0]` makes
  /// an empty database version 1. Append new ones; never change a released one.
  static let migrations: [String] = [
    """
    CREATE TABLE entries (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      key TEXT NOT NULL UNIQUE,
      name TEXT NOT NULL,
      exchange INTEGER NOT NULL,
      state TEXT NOT NULL,
      queued_at REAL NOT NULL,
      started_at REAL,
      finished_at REAL NOT NULL,
      attempts INTEGER NOT NULL,
      from_cache INTEGER NOT NULL,
      deduplicated INTEGER NOT NULL,
      method TEXT NOT NULL,
      url TEXT NOT NULL,
      request_headers TEXT NOT NULL,
      request_content_type TEXT,
      request_body_bytes INTEGER NOT NULL,
      status INTEGER,
      http_version TEXT,
      response_headers TEXT,
      effective_url TEXT,
      redirect_count INTEGER,
      dns REAL, connect REAL, tls REAL, first_byte REAL, total REAL,
      bytes_sent INTEGER,
      bytes INTEGER NOT NULL,
      body_storage TEXT NOT NULL,
      stored_body_bytes INTEGER NOT NULL,
      error_kind TEXT,
      error_message TEXT,
      error_status INTEGER,
      error_path TEXT,
      stored_bytes INTEGER NOT NULL
    );
    CREATE INDEX entries_by_name ON entries(name, finished_at, id);
    CREATE INDEX entries_by_time ON entries(finished_at, id);
    CREATE INDEX entries_by_status ON entries(status, finished_at);
    CREATE TABLE bodies (
      id INTEGER PRIMARY KEY,
      request BLOB,
      response BLOB
    );
    CREATE TABLE totals (
      one INTEGER PRIMARY KEY CHECK (one = 1),
      entries INTEGER NOT NULL,
      bytes INTEGER NOT NULL
    );
    INSERT INTO totals VALUES (1, 0, 0);
    CREATE VIRTUAL TABLE search USING fts5(
      name, method, url, status, error, headers, content='', tokenize='unicode61'
    );
    CREATE TABLE search_state (
      one INTEGER PRIMARY KEY CHECK (one = 1),
      indexed INTEGER NOT NULL
    );
    INSERT INTO search_state VALUES (1, 0);
    CREATE TRIGGER entries_added AFTER INSERT ON entries BEGIN
      UPDATE totals SET entries = entries + 1, bytes = bytes + new.stored_bytes;
    END;
    CREATE TRIGGER entries_removed AFTER DELETE ON entries BEGIN
      UPDATE totals SET entries = entries - 1, bytes = bytes - old.stored_bytes;
      DELETE FROM bodies WHERE id = old.id;
    END;
    CREATE TRIGGER entries_unindexed AFTER DELETE ON entries
    WHEN old.id <= (SELECT indexed FROM search_state) BEGIN
      INSERT INTO search(search, rowid, name, method, url, status, error, headers)
      VALUES ('delete', old.id, \(HistoryDatabase.searchColumns(of: "old")));
    END;
    """,
    """
    CREATE TABLE names (
      name TEXT PRIMARY KEY,
      entries INTEGER NOT NULL
    ) WITHOUT ROWID;
    INSERT INTO names SELECT name, count(*) FROM entries GROUP BY name;
    ALTER TABLE entries ADD COLUMN sent_head TEXT;
    CREATE TRIGGER names_added AFTER INSERT ON entries BEGIN
      INSERT INTO names VALUES (new.name, 1) ON CONFLICT (name) DO UPDATE SET entries = entries + 1;
    END;
    CREATE TRIGGER names_removed AFTER DELETE ON entries BEGIN
      UPDATE names SET entries = entries - 1 WHERE name = old.name;
    END;
    """,
    // Version 3: the counts of added entries are the writer's, once per commit (`countAdded`).
    """
    DROP TRIGGER entries_added;
    DROP TRIGGER names_added;
    """,
    // Version 4: so is what goes with a dropped entry (`HistoryPruning`).
    """
    DROP TRIGGER entries_removed;
    DROP TRIGGER names_removed;
    DROP TRIGGER entries_unindexed;
    """,
  ]

  /// Adds what one commit inserted to the counts in `totals` and `names` (`HistoryPruning`
  /// takes off what it drops): one statement for the totals and one or two per request name, not
  /// a trigger program per row. Returns the requests the commit took over `perRequest`, for the
  /// prune: each count is added by an UPDATE that applies only within the bound, and `changes`
  /// says whether it did, so no count is read back.
  static func countAdded(
    entries: Int, bytes: Int, perName: [String: Int], perRequest: Int, in db: SQLiteConnection
  ) throws(SQLiteError) -> [String] {
    guard entries > 0 else { return [] }
    try db.statement("UPDATE totals SET entries = entries + ?1, bytes = bytes + ?2")
      .run([.integer(Int64(entries)), .integer(Int64(bytes))])
    let within = try db.statement(
      "UPDATE names SET entries = entries + ?2 WHERE name = ?1 AND entries + ?2 <= ?3")
    let beyond = try db.statement("UPDATE names SET entries = entries + ?2 WHERE name = ?1")
    let first = try db.statement("INSERT INTO names VALUES (?1, ?2)")
    var over: [String] = []
    for (key, count) in perName {
      let name = SQLiteValue.text(key)
      let added = SQLiteValue.integer(Int64(count))
      try within.run([name, added, .integer(Int64(perRequest))])
      if db.changes == 1 { continue }
      try beyond.run([name, added])
      if db.changes == 1 {
        over.append(key)
      } else {
        try first.run([name, added])
        if count > perRequest { over.append(key) }
      }
    }
    return over
  }

  /// The indexed text of an entry row named `row` (`old`, or a table alias), in the order of
  /// the `search` table's columns. The index is filled and emptied with the same expressions,
  /// as a contentless FTS5 table needs.
  static func searchColumns(of row: String) -> String {
    "\(row).name, \(row).method, \(row).url, ifnull(\(row).status, ''), "
      + "ifnull(\(row).error_kind, '') || ' ' || ifnull(\(row).error_message, ''), "
      + "ifnull(\(row).response_headers, '')"
  }

  /// What opening found.
  enum Opened {
    case ready(SQLiteConnection)
    /// There is no database yet (only when not creating).
    case missing
  }

  /// Opens the database at `path` for this build: WAL, `synchronous=NORMAL`, the busy timeout
  /// (`busyTimeout` milliseconds, `busyTimeoutMilliseconds` unless the caller has less left),
  /// the schema created or migrated, then checked. `create` makes the file (mode 0600) when it
  /// is missing. A file written by a newer reqbench is an error; so is a damaged one
  /// (`SQLiteError.isDamage`), or a database of another program's (`isForeign`), which the caller
  /// may set aside (`setAside`). A link there is refused (`SQLiteConnection`).
  static func open(path: String, create: Bool, busyTimeout: Int32 = busyTimeoutMilliseconds) throws(SQLiteError) -> Opened {
    var info = stat()
    if lstat(path, &info) != 0 {
      guard create else { return .missing }
      // SQLite creates its files with 0644; history may hold personal data: 0600 (the WAL and
      // shared-memory files take the database file's mode).
      createPrivateFile(path)
    }
    let connection = try SQLiteConnection(path: path, create: create)
    connection.setBusyTimeout(milliseconds: busyTimeout)
    // The WAL is copied into the database by the history writer's own checkpoints (see
    // `HistoryWriter`), not when a connection closes: `run` does not wait for it at its exit.
    connection.skipCheckpointOnClose()
    // Another program's database is left as it is (not switched to WAL) and set aside.
    try checkForeign(connection)
    // The journal mode is kept in the file: only the first connection switches it.
    let journal = try connection.statement("PRAGMA journal_mode")
    let mode = try journal.step() ? journal.text(0) : nil
    journal.reset()
    if mode != "wal" {
      // A new database gets pages of 16 KB (a page size is fixed once there are pages, and in
      // WAL mode): a commit writes each page it changed as a frame of two writes, and most of
      // an entry is new rows (its response body a blob beside it), so four times fewer frames
      // and system calls for the same bytes. One made with 4 KB pages keeps them.
      if try connection.integer("PRAGMA page_count") == 0 {
        try connection.execute("PRAGMA page_size = \(pageSize)")
      }
      try connection.execute("PRAGMA journal_mode=WAL")
    }
    try connection.execute("PRAGMA synchronous=NORMAL")
    let version = try connection.integer("PRAGMA user_version") ?? 0
    try migrate(connection)
    // A migrated one is checked now; one of this version was, before.
    if version != schemaVersion { try checkSchema(connection) }
    return .ready(connection)
  }

  /// Throws a foreign-schema error when the file is another program's database: tables without
  /// a history schema version, or this version's number with other tables or columns
  /// (`checkSchema`). Before anything is changed in it.
  static func checkForeign(_ connection: SQLiteConnection) throws(SQLiteError) {
    let version = try connection.integer("PRAGMA user_version") ?? 0
    if version == 0, try hasTables(connection) {
      throw foreign("it has tables but no history schema version", path: connection.path)
    }
    if version == schemaVersion { try checkSchema(connection) }
  }

  private static func hasTables(_ connection: SQLiteConnection) throws(SQLiteError) -> Bool {
    (try connection.integer("SELECT count(*) FROM sqlite_master") ?? 0) > 0
  }

  /// Brings the schema up to `schemaVersion`, in one write transaction (another process doing
  /// the same waits, then finds it done). A database with tables but no version (another
  /// program's), or one a migration cannot apply to, is foreign.
  static func migrate(_ connection: SQLiteConnection) throws(SQLiteError) {
    let version = try connection.integer("PRAGMA user_version") ?? 0
    if version == schemaVersion { return }
    if version > schemaVersion { throw newer(version, path: connection.path) }
    try connection.transaction(immediate: true) { () throws(SQLiteError) in
      let current = try connection.integer("PRAGMA user_version") ?? 0
      if current > schemaVersion { throw newer(current, path: connection.path) }
      if current == 0, try hasTables(connection) {
        throw foreign("it has tables but no history schema version", path: connection.path)
      }
      for step in Int(current)..<schemaVersion {
        do throws(SQLiteError) {
          try connection.execute(migrations[step])
        } catch where error.primary == SQLITE_ERROR {
          throw foreign("schema version \(current) does not migrate: \(error.message)", path: connection.path)
        }
      }
      try connection.execute("PRAGMA user_version = \(schemaVersion)")
    }
  }

  /// What every reader and the writer use of the schema, prepared once (the statements stay in
  /// the connection's cache): a table or a column that is not there makes the database foreign,
  /// another program's (a file of the right version, with other tables or columns).
  static let schemaProbes = [
    "SELECT \(HistoryRow.selectColumns) FROM entries e LIMIT 0",
    "SELECT id, request, response FROM bodies LIMIT 0",
    "SELECT one, entries, bytes FROM totals LIMIT 0",
    "SELECT name, entries FROM names LIMIT 0",
    "SELECT one, indexed FROM search_state LIMIT 0",
  ]

  /// Throws a foreign-schema error (`SQLiteError.isForeign`) unless the tables and columns
  /// reqbench reads and writes are there. (The search index is not looked at: a damaged one is
  /// rebuilt or set aside, `HistorySearchIndex`.)
  static func checkSchema(_ connection: SQLiteConnection) throws(SQLiteError) {
    for probe in schemaProbes {
      do throws(SQLiteError) {
        _ = try connection.statement(probe)
      } catch where error.primary == SQLITE_ERROR {
        throw foreign(error.message, path: connection.path)
      }
    }
  }

  private static func newer(_ version: Int64, path: String) -> SQLiteError {
    SQLiteError(
      code: SQLITE_CANTOPEN,
      message: "\(path) was written by a newer reqbench (history schema \(version); this one knows "
        + "\(schemaVersion)): upgrade reqbench, or move the file away to start a new history")
  }

  private static func foreign(_ why: String, path: String) -> SQLiteError {
    SQLiteError(code: SQLITE_NOTADB, message: "not a reqbench history database (\(why))", isForeign: true)
  }

  /// Moves a damaged (or foreign) database aside, with its WAL (which holds its last commits), so
  /// a new history can start: to `PATH.damaged-20261130T014636Z` (`-2`, `-3`… when that name is
  /// taken), never over an earlier one. Linked to its new name, then unlinked, so a name that
  /// appeared meanwhile is never replaced. Returns where it went; nil when it could not be moved
  /// (another process moved it first).
  @discardableResult
  static func setAside(path: String, now: Date = Date()) -> String? {
    let base = path + ".damaged-" + timestamp(now)
    var moved: String?
    for attempt in 1...100 {
      let target = attempt == 1 ? base : base + "-\(attempt)"
      if link(path, target) == 0 {
        unlink(path)
        moved = target
        break
      }
      let code = errno
      if code == EEXIST { continue }
      if code == ENOENT { break }
      // A file system without hard links: renamed, to a name that is free.
      var info = stat()
      if lstat(target, &info) == 0 { continue }
      if rename(path, target) == 0 { moved = target }
      break
    }
    if let moved {
      if rename(path + "-wal", moved + "-wal") != 0 { unlink(path + "-wal") }
    } else {
      unlink(path + "-wal")
    }
    // The shared-memory index is rebuilt from the WAL by whoever opens the copy.
    unlink(path + "-shm")
    return moved
  }

  /// What the user is told when `path` was set aside because of `error` (`setAside` gave
  /// `aside`).
  static func setAsideNotice(path: String, error: SQLiteError, aside: String?) -> String {
    // A foreign one's message says what it is: `not a reqbench history database (…)`.
    let what = error.isForeign ? "is \(error.message)" : "was damaged (\(error.message))"
    let moved = aside.map { "moved to \($0)" } ?? "moved aside by another process"
    return "\(path) \(what): \(moved); a new history starts"
  }

  /// `20261130T014636Z` (UTC).
  static func timestamp(_ date: Date) -> String {
    var whole = time_t(max(0, min(date.timeIntervalSince1970, HistoryRow.latestTime)).rounded(.down))
    var parts = tm()
    gmtime_r(&whole, &parts)
    func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T"
      + "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
  }
}

/// Creates an empty file with mode 0600 unless it exists (never through a link).
private func createPrivateFile(_ path: String) {
  let fd = StateFiles.open(path, O_WRONLY | O_CREAT)
  if fd >= 0 { close(fd) }
}
