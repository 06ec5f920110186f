import Foundation
import Workspace

/// The full-text index of the history (`search`, FTS5) and how a `HistoryQuery` becomes SQL.
///
/// Recording never indexes: the index is filled after the fact, a chunk of new rows per
/// transaction, by the writer thread once it has been idle for a second and by a search before
/// it runs (`catchUp`). Rows that are not indexed yet (when the index could not be brought up to
/// date, e.g. a state folder that is read-only) are still found, by a scan.
enum HistorySearchIndex {
  /// Rows indexed per transaction.
  static let chunk = 2000

  /// Indexes up to `chunk` rows newer than the index; true when more are left.
  static func indexChunk(_ db: SQLiteConnection) throws(SQLiteError) -> Bool {
    try db.transaction(immediate: true) { () throws(SQLiteError) -> Bool in
      let newest = try db.integer("SELECT max(id) FROM entries") ?? 0
      // The bookmark can be no further than the largest id ever given; one that is gone, not a
      // number or beyond it (another program's edit) starts the index again.
      let given = try db.integer("SELECT seq FROM sqlite_sequence WHERE name = 'entries'") ?? 0
      guard let indexed = try db.integer("SELECT indexed FROM search_state"), indexed >= 0,
        indexed <= max(newest, given)
      else {
        try clear(db)
        return newest > 0
      }
      guard newest > indexed else { return false }
      // Only up to the newest row: ids only grow (AUTOINCREMENT), so every later row is above.
      let upTo = min(newest, indexed + Int64(chunk))
      try db.statement(
        "INSERT INTO search (rowid, name, method, url, status, error, headers) SELECT e.id, "
          + HistoryDatabase.searchColumns(of: "e") + " FROM entries e WHERE e.id > ? AND e.id <= ?"
      ).run([.integer(indexed), .integer(upTo)])
      try db.statement("UPDATE search_state SET indexed = ?").run([.integer(upTo)])
      return upTo < newest
    }
  }

  /// Indexes everything new. False when it could not (another process held the lock past the
  /// busy timeout, a read-only folder): the search then scans the rows not indexed.
  static func catchUp(_ db: SQLiteConnection) -> Bool {
    for _ in 0..<10_000 {
      do throws(SQLiteError) {
        if !(try indexChunk(db)) { return true }
      } catch {
        if error.isDamage, (try? rebuild(db)) == nil { try? abandon(db) }
        return false
      }
    }
    return false
  }

  /// Empties the index (after FTS5 reported it damaged); it is filled again from the rows.
  static func rebuild(_ db: SQLiteConnection) throws(SQLiteError) {
    try db.transaction(immediate: true) { () throws(SQLiteError) in try clear(db) }
  }

  /// Sets the index aside when it cannot even be emptied (FTS5 cannot open its own tables): its
  /// bookmark goes back to 0, so deleting a row no longer touches it and a search scans the rows.
  static func abandon(_ db: SQLiteConnection) throws(SQLiteError) {
    try db.execute("INSERT OR REPLACE INTO search_state (one, indexed) VALUES (1, 0)")
  }

  /// `rebuild` inside the caller's transaction.
  private static func clear(_ db: SQLiteConnection) throws(SQLiteError) {
    try db.execute("INSERT INTO search(search) VALUES ('delete-all')")
    try db.execute("INSERT OR REPLACE INTO search_state (one, indexed) VALUES (1, 0)")
  }

  // MARK: - Queries

  /// A word the index finds in at most this many rows drives its search: those rows are looked
  /// up and sorted, instead of walking every entry newest first until `limit` have matched
  /// (which, for a word in 10 of 100,000 entries, reads all 100,000). A word in more rows than
  /// this is cheaper the other way: matches are dense, the walk stops early.
  static let fewMatches = 1000

  /// Which of `query`'s words drives its search (its index in `query.words`): the one the index
  /// finds in the fewest rows, if that is at most `fewMatches`; nil when none does, when bodies
  /// are searched too (a body can match any row), or when the index cannot answer.
  static func drivingWord(
    _ query: HistoryQuery, in db: SQLiteConnection, fewMatches: Int = fewMatches
  ) -> Int? {
    guard !query.includeBodies else { return nil }
    var best: (index: Int, count: Int64)?
    for (index, word) in query.words.enumerated() where isIndexed(word) {
      // Counted only up to one past the bound: a common word is not counted to the end.
      guard
        let count = try? db.integer(
          "SELECT count(*) FROM (SELECT rowid FROM search WHERE search MATCH ? LIMIT ?)",
          [.text(matchExpression(word)), .integer(fewMatches + 1)]),
        count <= fewMatches, count < best?.count ?? .max
      else { continue }
      best = (index, count)
    }
    return best?.index
  }

  /// Whether the index has words for `word` (punctuation alone has none: it is scanned for).
  private static func isIndexed(_ word: String) -> Bool {
    word.contains(where: { $0.isLetter || $0.isNumber })
  }

  /// The FTS5 query for `word`: as a word or the start of one.
  private static func matchExpression(_ word: String) -> String {
    "\"" + word.replacingOccurrences(of: "\"", with: "\"\"") + "\" *"
  }

  /// The SELECT of `query`'s entries, newest first, with its values. `indexed` is the last row
  /// in the index; nil when the index cannot be used at all (every row is scanned). `driving`
  /// is the word (`drivingWord`) whose few matching rows are looked up rather than tested
  /// against every entry; the entries selected are the same either way.
  static func select(
    _ query: HistoryQuery, indexed: Int64?, driving: Int? = nil
  ) -> (sql: String, values: [SQLiteValue]) {
    var conditions: [String] = []
    var values: [SQLiteValue] = []
    switch query.requests {
    case .all: break
    case .named(let name):
      conditions.append("e.name = ?")
      values.append(.text(name))
    case .folder(let folder):
      // Every name that starts with the folder: between it and the folder with its last
      // character's successor (an index range, not a scan).
      conditions.append("e.name >= ? AND e.name < ?")
      values += [.text(folder), .text(successor(of: folder))]
    }
    if !query.statuses.isEmpty {
      var any: [String] = []
      for status in query.statuses {
        switch status {
        case .code(let code):
          any.append("e.status = ?")
          values.append(.integer(code))
        case .range(let range):
          any.append("e.status BETWEEN ? AND ?")
          values += [.integer(range.lowerBound), .integer(range.upperBound)]
        case .noResponse:
          any.append("e.status IS NULL")
        }
      }
      conditions.append("(" + any.joined(separator: " OR ") + ")")
    }
    if let since = query.since {
      conditions.append("e.finished_at >= ?")
      values.append(.real(since.timeIntervalSince1970))
    }
    if query.failedOnly { conditions.append("e.state = 'failed'") }
    for (position, word) in query.words.enumerated() {
      var any: [String] = []
      let pattern = SQLiteValue.text(likePattern(word))
      if let indexed, isIndexed(word), position == driving, !query.includeBodies {
        // The same rows as below, as one list of ids SQLite looks up (a condition it can
        // drive the query by; the OR below it can only test row by row).
        any.append(
          "e.id IN (SELECT rowid FROM search WHERE search MATCH ? "
            + "UNION ALL SELECT e.id FROM entries e WHERE e.id > ? AND " + metaLike + ")")
        values.append(.text(matchExpression(word)))
        values.append(.integer(indexed))
        values += Array(repeating: pattern, count: metaLikeCount)
      } else if let indexed, isIndexed(word) {
        // As a word or the start of one, through the index; rows not indexed yet by a scan.
        any.append("e.id IN (SELECT rowid FROM search WHERE search MATCH ?)")
        values.append(.text(matchExpression(word)))
        any.append("(e.id > ? AND " + metaLike + ")")
        values.append(.integer(indexed))
        values += Array(repeating: pattern, count: metaLikeCount)
      } else {
        // Punctuation only (`/`, `{}`, `••••`): the index has no words for it; a scan.
        any.append(metaLike)
        values += Array(repeating: pattern, count: metaLikeCount)
      }
      if query.includeBodies {
        any.append(
          "EXISTS (SELECT 1 FROM bodies b WHERE b.id = e.id AND (CAST(b.request AS TEXT) LIKE ? "
            + "ESCAPE '\\' OR CAST(b.response AS TEXT) LIKE ? ESCAPE '\\'))")
        values += [pattern, pattern]
      }
      conditions.append("(" + any.joined(separator: " OR ") + ")")
    }
    var sql = "SELECT " + HistoryRow.selectColumns + " FROM entries e"
    if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
    sql += " ORDER BY e.finished_at DESC, e.id DESC"
    if let limit = query.limit {
      sql += " LIMIT ?"
      values.append(.integer(max(0, limit)))
    }
    return (sql, values)
  }

  /// The searched fields compared with a LIKE pattern (`metaLikeCount` of them).
  private static let metaLikeFields = [
    "e.name", "e.method", "e.url", "CAST(e.status AS TEXT)", "e.error_message", "e.response_headers",
  ]
  private static let metaLike =
    "(" + metaLikeFields.map { $0 + " LIKE ? ESCAPE '\\'" }.joined(separator: " OR ") + ")"
  private static let metaLikeCount = metaLikeFields.count

  /// `%word%` with LIKE's `%`, `_` and the escape character itself escaped.
  static func likePattern(_ word: String) -> String {
    var escaped = ""
    for character in word {
      if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
      escaped.append(character)
    }
    return "%" + escaped + "%"
  }

  /// The smallest string above every string that starts with `prefix`.
  static func successor(of prefix: String) -> String {
    var scalars = Array(prefix.unicodeScalars)
    while let last = scalars.popLast() {
      var value = last.value + 1
      if (0xD800...0xDFFF).contains(value) { value = 0xE000 }
      if let next = Unicode.Scalar(value) {
        scalars.append(next)
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
      }
    }
    return "\u{10FFFF}"
  }
}
