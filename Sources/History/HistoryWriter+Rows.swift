import Foundation
import Workspace

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// What the history writer puts on disk for its records, apart from when it does it
/// (`HistoryWriter`): a large body's file before its row, the rows and the prune in the
/// transaction the caller has open (the migration adds its chunks the same way), and the sweep
/// of body files no row refers to.
extension HistoryWriter {
  /// Writes a body above the inline limit to `KEY.body` (atomically, fsynced: the row that
  /// refers to it comes after), or links a spilled one there, and fixes the stored size when
  /// masking changed it.
  func writeBodyFile(_ record: inout HistoryRecord) throws(FileError) {
    // Only for a body that has a file (a URL is costly to make for every entry recorded).
    func target() throws(FileError) -> URL {
      try StateFolder.makeFolder(URL(fileURLWithPath: paths.bodies, isDirectory: true))
      guard let file = paths.bodyFile(record.entry.id) else {
        throw FileError(path: paths.bodies, message: "\(record.entry.id): not a history key", reason: "invalid key")
      }
      return URL(fileURLWithPath: file)
    }
    switch record.responseBody {
    case .none, .inline: return
    case .file(let bytes):
      try AtomicFile.write(bytes, to: target(), permissions: HistoryFiles.fileMode, links: .refuse)
    case .spilled(let file, let masker):
      let target = try target()
      // Nothing to mask: the spilled file itself becomes the body file (a stream's megabytes
      // are not written a second time at the end of the exchange).
      if masker.isEmpty, try HistoryFiles.link(file, to: target, permissions: HistoryFiles.fileMode) { return }
      let written = try HistoryFiles.copy(
        from: file.path, to: target, permissions: HistoryFiles.fileMode, masking: masker)
      record.entry.storedBodyBytes = written
      record.entry.storedBytes = HistoryRecord.storedBytes(of: record.entry)
    }
  }

  /// Inserts the records and prunes, in one transaction; returns the keys of pruned entries
  /// whose bodies are files.
  static func insert(
    _ records: [HistoryRecord], into db: SQLiteConnection, limits: HistoryStore.Limits,
    pruneChecks: inout HistoryPruning.Checks
  ) throws(SQLiteError) -> [String] {
    try db.transaction(immediate: true) { () throws(SQLiteError) -> [String] in
      try add(records[...], into: db, limits: limits, pruneChecks: &pruneChecks)
    }
  }

  /// Inserts the records and prunes, in the transaction the caller has open.
  static func add(
    _ records: ArraySlice<HistoryRecord>, into db: SQLiteConnection, limits: HistoryStore.Limits,
    pruneChecks: inout HistoryPruning.Checks
  ) throws(SQLiteError) -> [String] {
    let insertEntry = try db.statement(HistoryRow.insert)
    let insertBodies = try db.statement("INSERT INTO bodies (id, request, response) VALUES (?, ?, ?)")
    var added = 0
    var addedBytes = 0
    var perName: [String: Int] = [:]
    for record in records {
      try insertEntry.run { (row: inout SQLiteBinder) throws(SQLiteError) in try HistoryRow.bind(record.entry, into: &row) }
      guard db.changes == 1 else { continue }  // already there (a migration run again)
      added += 1
      addedBytes += record.entry.storedBytes
      perName[record.entry.name, default: 0] += 1
      let row = db.lastInsertRowID
      var response: SQLiteValue = .null
      if case .inline(let bytes) = record.responseBody { response = .blob(bytes) }
      if !record.requestBody.isEmpty || response != .null {
        try insertBodies.run([
          .integer(row), record.requestBody.isEmpty ? .null : .blob(record.requestBody), response,
        ])
      }
    }
    let over = try HistoryDatabase.countAdded(
      entries: added, bytes: addedBytes, perName: perName, perRequest: limits.perRequest, in: db)
    return try HistoryPruning.prune(in: db, limits: limits, over: over, checks: &pruneChecks)
  }

  /// Removes body files no row refers to (left by a crash between a file and its row, or after a
  /// prune) and temporary files of interrupted writes, once they are older than
  /// `strayFileGrace` (younger ones may belong to a write in progress in another process).
  static func sweepBodyFiles(paths: HistoryStore.Paths, db: SQLiteConnection) throws(SQLiteError) {
    let names = HistoryFiles.list(paths.bodies)
    guard !names.isEmpty else { return }
    let now = Date().timeIntervalSince1970
    let exists = try db.statement("SELECT 1 FROM entries WHERE key = ?")
    for name in names {
      let path = paths.bodies + "/" + name
      guard let file = HistoryFiles.regularFile(path), now - file.modified >= paths.strayFileGrace else {
        continue
      }
      if HistoryFiles.isTemporary(name) {
        unlink(path)
      } else if name.hasSuffix(HistoryStore.Paths.bodySuffix) {
        let key = String(name.dropLast(HistoryStore.Paths.bodySuffix.count))
        if try exists.firstRow([.text(key)], { _ in true }) == nil { unlink(path) }
      }
    }
  }

  // MARK: - Background work (`HistoryWriter.nextWork` says when)

  /// One chunk of the migration; `.done` when there is nothing (more) to migrate.
  func migrateStep(_ state: HistoryMigration.State) -> HistoryMigration.State {
    guard FileManager.default.fileExists(atPath: paths.legacyFolder) else { return .done }
    do throws(FileError) {
      let db = try database()
      let step = try HistoryMigration.step(state: state, paths: paths, into: db, limits: limits)
      if case .done = step.state, let report = step.report { notice(report) }
      return step.state
    } catch {
      notice("cannot move the old history into \(paths.database): \(error.description)")
      return .done
    }
  }

  func sweepBodyFiles() {
    guard !HistoryFiles.list(paths.bodies).isEmpty, let db = try? database() else { return }
    try? Self.sweepBodyFiles(paths: paths, db: db)
  }

  /// Indexes a chunk of new entries for search; true when there are more.
  func indexStep() -> Bool {
    guard let db = try? database() else { return false }
    return (try? HistorySearchIndex.indexChunk(db)) ?? false
  }
}
