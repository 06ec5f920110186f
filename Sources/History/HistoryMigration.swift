import Foundation
import Workspace

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Moves the file history of earlier versions (`STATE/history/`, `LegacyHistory`) into the
/// database, on the writer thread, a chunk of entries per transaction between commits of new
/// ones. Idempotent: an entry keeps its id (`key`, unique), so a migration cut off by the end of
/// the process (or a crash) and run again by the next one adds nothing twice. Large bodies are
/// hard-linked into `history-bodies/` (copied where links are not possible) before their rows.
/// Damaged entries are skipped and counted. When every entry is in, the old folder is removed.
enum HistoryMigration {
  enum State: Equatable {
    /// Not looked at yet in this process.
    case unknown
    /// Entries are left.
    case inProgress(remaining: [String], moved: Int, skipped: Int)
    case done
  }

  /// Entries per transaction.
  static let chunk = 500

  /// What one step did: the new state, and at the end what to tell the user.
  struct Step {
    var state: State
    var report: String?
  }

  /// One chunk: lists the entry files the first time, moves the next `chunk` of them.
  static func step(
    state: State, paths: HistoryStore.Paths, into db: SQLiteConnection, limits: HistoryStore.Limits
  ) throws(FileError) -> Step {
    var remaining: [String]
    var moved = 0
    var skipped = 0
    switch state {
    case .done: return Step(state: .done)
    case .unknown:
      remaining = LegacyHistory.entryFiles(in: paths.legacyFolder)
    case .inProgress(let files, let movedSoFar, let skippedSoFar):
      remaining = files
      moved = movedSoFar
      skipped = skippedSoFar
    }
    let batch = remaining.suffix(chunk)
    remaining.removeLast(batch.count)

    var records: [HistoryRecord] = []
    for path in batch {
      guard let legacy = LegacyHistory.read(path) else {
        skipped += 1
        continue
      }
      let body: HistoryRecord.Body
      switch legacy.responseBody {
      case .none: body = .none
      case .inline(let bytes):
        body = bytes.count > limits.inlineBodyLimit ? .file(bytes) : .inline(bytes)
      case .file(let source):
        do throws(FileError) {
          // `LegacyHistory.read` checked the id: a key reqbench makes.
          guard let target = paths.bodyFile(legacy.entry.id) else {
            throw FileError(path: source, message: "not a history key", reason: "invalid key")
          }
          try StateFolder.makeFolder(URL(fileURLWithPath: paths.bodies, isDirectory: true))
          try linkOrCopy(source, to: target)
        } catch {
          skipped += 1
          continue
        }
        body = .none
      }
      var entry = legacy.entry
      if case .file = body { entry.storage.responseBody = .file }
      if case .inline = body { entry.storage.responseBody = .inline }
      records.append(HistoryRecord(entry: entry, requestBody: legacy.requestBody, responseBody: body))
      moved += 1
    }
    for record in records {
      if case .file(let bytes) = record.responseBody, let file = paths.bodyFile(record.entry.id) {
        try StateFolder.makeFolder(URL(fileURLWithPath: paths.bodies, isDirectory: true))
        try AtomicFile.write(bytes, to: URL(fileURLWithPath: file), permissions: HistoryFiles.fileMode, links: .refuse)
      }
    }
    let pruned: [String]
    do throws(SQLiteError) {
      var checks = HistoryPruning.Checks()
      pruned = try HistoryWriter.insert(records, into: db, limits: limits, pruneChecks: &checks)
    } catch {
      throw paths.error(error)
    }
    for key in pruned { paths.removeBodyFile(key) }

    guard remaining.isEmpty else {
      return Step(state: .inProgress(remaining: remaining, moved: moved, skipped: skipped))
    }
    // Every entry is in: the old folder goes (what a crash leaves of it is moved again, idly).
    try? FileManager.default.removeItem(atPath: paths.legacyFolder)
    var report = "moved \(moved) history entr\(moved == 1 ? "y" : "ies") from \(paths.legacyFolder) into \(paths.database)"
    if skipped > 0 { report += " (\(skipped) damaged skipped)" }
    return Step(state: .done, report: report)
  }

  /// A hard link of `source` at `target` (a copy when the file system refuses links); a target
  /// already there from an earlier, cut-off migration is kept when it has the same size.
  private static func linkOrCopy(_ source: String, to target: String) throws(FileError) {
    if link(source, target) == 0 { return }
    if errno == EEXIST, let existing = HistoryFiles.regularFile(target),
      existing.size == HistoryFiles.regularFile(source)?.size
    {
      return
    }
    try HistoryFiles.copy(from: source, to: URL(fileURLWithPath: target), permissions: HistoryFiles.fileMode)
  }
}
