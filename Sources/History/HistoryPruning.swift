import Workspace

/// Keeping the history within its bounds (`HistoryStore.Limits`): after each commit's inserts,
/// in the same transaction, the oldest entries of each request beyond `perRequest`, then the
/// oldest overall while the stored bytes are above `totalBytes`.
///
/// A history used every day sits at its bound: every entry recorded drops one. The entries to
/// drop are read a request at a time (walking its index from the newest), then deleted by id, and
/// what the schema keeps beside them (their bodies, their words in the search index, the counts
/// in `names` and `totals`) is brought along here, the counts once per request or per commit:
/// per-row triggers did it before (schema version 4 dropped them), and their programs made
/// dropping an entry cost about three times inserting one.
enum HistoryPruning {
  /// What a connection has looked at once, so that a history at its bound is not looked at
  /// whole at every commit.
  struct Checks {
    /// The totals were summed again from the rows (before the connection's first prune by size).
    var totalsRecounted = false
    /// Every request's count was compared with the bound (at the connection's first commit:
    /// the bound may have been lowered since the last). After that, only the requests a commit
    /// added to can have gone over it.
    var everyRequestLooked = false
  }

  /// Drops what is beyond the bounds after a commit that added entries, `over` being the requests
  /// it took over `perRequest` (`HistoryDatabase.countAdded`); returns the keys of dropped
  /// entries whose bodies are files
  /// (`STATE/history-bodies/KEY.body`), for the caller to unlink after the commit.
  ///
  /// The counts in `names` and `totals` are the writer's; a count another program damaged never
  /// empties the history: a request's prune keeps its newest `perRequest` entries whatever its
  /// count says, and a count that was wrong is counted again; the totals are summed again when
  /// they are impossible, and before the first prune by size of a connection (`Checks`), so a
  /// history at its bound does not sum the table at every commit.
  static func prune(
    in db: SQLiteConnection, limits: HistoryStore.Limits, over counted: [String], checks: inout Checks
  ) throws(SQLiteError) -> [String] {
    var removal = try Removal(db)
    var over: [String] = []
    if checks.everyRequestLooked {
      over = counted
    } else {
      try db.statement("SELECT name FROM names WHERE entries > ?").forEachRow([.integer(limits.perRequest)]) { row in
        if let name = row.text(0) { over.append(name) }
      }
      checks.everyRequestLooked = true
    }
    let keep = SQLiteValue.integer(limits.perRequest)
    for name in over {
      let dropped = try removal.remove(
        "SELECT \(Removal.columns) FROM entries WHERE name = ?1 ORDER BY finished_at DESC, id DESC LIMIT -1 OFFSET ?2",
        [.text(name), keep], countingNames: false)
      if dropped > 0 {
        // What is left is exactly the newest `perRequest`.
        try db.statement("UPDATE names SET entries = ?2 WHERE name = ?1").run([.text(name), keep])
      } else {
        // The count said more than there are: counted again.
        try db.statement("UPDATE names SET entries = (SELECT count(*) FROM entries WHERE name = ?1) WHERE name = ?1")
          .run([.text(name)])
      }
    }
    try removal.settleTotals()

    let limit = Int64(limits.totalBytes)
    let total = try db.integer("SELECT bytes FROM totals")
    let impossible = total.map { $0 < 0 } ?? true
    guard impossible || total.map({ $0 > limit }) == true else { return removal.files }
    if impossible || !checks.totalsRecounted {
      try db.execute(
        """
        INSERT OR REPLACE INTO totals (one, entries, bytes)
          SELECT 1, count(*), total(CASE WHEN typeof(stored_bytes) = 'integer'
            AND stored_bytes BETWEEN 0 AND 1099511627776 THEN stored_bytes ELSE 0 END) FROM entries
        """)
      checks.totalsRecounted = true
    }
    guard let bytes = try db.integer("SELECT bytes FROM totals"), bytes > limit else { return removal.files }
    // How many of the oldest entries take the total under the bound, then those in one go.
    var excess = bytes - limit
    var count: Int64 = 0
    let oldest = try db.statement("SELECT stored_bytes FROM entries ORDER BY finished_at, id")
    while excess > 0, try oldest.step() {
      excess -= max(0, oldest.int64(0) ?? 0)
      count += 1
    }
    oldest.reset()
    _ = try removal.remove(
      "SELECT \(Removal.columns) FROM entries ORDER BY finished_at, id LIMIT ?1", [.integer(count)], countingNames: true)
    try removal.settleTotals()
    return removal.files
  }

  /// Deletes entries chosen by a query of their ids, with their bodies and their words in the
  /// search index, and counts what went; `settleTotals` writes the counts.
  private struct Removal {
    let db: SQLiteConnection
    /// The last row in the search index: words of rows up to it are taken out.
    let indexed: Int64
    var files: [String] = []
    var entries: Int64 = 0
    var bytes: Int64 = 0
    /// Entries dropped per request, when the caller does not set the request's count itself.
    var perName: [String: Int64] = [:]
    /// What a selection of entries to remove gives, in this order.
    static let columns = "id, key, body_storage, stored_bytes, name"

    init(_ db: SQLiteConnection) throws(SQLiteError) {
      self.db = db
      indexed = try db.integer("SELECT indexed FROM search_state") ?? 0
    }

    /// Deletes the entries `selection` (a SELECT of `Removal.columns` with `values`) gives;
    /// returns how many. The rows are read first, then deleted one by one by id: a DELETE of a
    /// subquery's rows, or one with RETURNING, builds a temporary b-tree at every run, which cost
    /// more than the deletes.
    mutating func remove(_ selection: String, _ values: [SQLiteValue], countingNames: Bool) throws(SQLiteError) -> Int {
      var doomed: [Int64] = []
      try db.statement(selection).forEachRow(values) { row in
        guard let id = row.int64(0) else { return }
        doomed.append(id)
        if row.text(2) == HistoryEntry.ResponseBodyStorage.file.rawValue, let key = row.text(1) { files.append(key) }
        bytes += max(0, row.int64(3) ?? 0)
        if countingNames, let name = row.text(4) { perName[name, default: 0] += 1 }
      }
      // A contentless index forgets a row only when told the words it indexed.
      let unindex = try db.statement(
        "INSERT INTO search (search, rowid, name, method, url, status, error, headers) SELECT 'delete', e.id, "
          + HistoryDatabase.searchColumns(of: "e") + " FROM entries e WHERE e.id = ?")
      let deleteEntry = try db.statement("DELETE FROM entries WHERE id = ?")
      let deleteBodies = try db.statement("DELETE FROM bodies WHERE id = ?")
      for id in doomed {
        if id <= indexed { try unindex.run([.integer(id)]) }
        try deleteEntry.run([.integer(id)])
        try deleteBodies.run([.integer(id)])
      }
      entries += Int64(doomed.count)
      return doomed.count
    }

    /// Takes what was removed since the last call off `totals` (and `names`, for removals that
    /// counted them).
    mutating func settleTotals() throws(SQLiteError) {
      if entries > 0 {
        try db.statement("UPDATE totals SET entries = entries - ?1, bytes = bytes - ?2")
          .run([.integer(entries), .integer(bytes)])
      }
      let name = try db.statement("UPDATE names SET entries = max(0, entries - ?2) WHERE name = ?1")
      for (key, count) in perName { try name.run([.text(key), .integer(count)]) }
      entries = 0
      bytes = 0
      perName = [:]
    }
  }
}
