import Foundation
import Workspace

/// What the history writer does when a transaction fails (`HistoryWriter`): its records stored
/// again in a transaction of their own, which sets a damaged database aside; for a database
/// another process holds locked, a wait of at most `Paths.lockWait` in all (10 s), then the
/// records kept for the next commit, or dropped with the reason when a caller waits for them.
extension HistoryWriter {
  /// How long after a commit kept for a locked database it is tried again.
  static let lockRetryDelay: TimeInterval = 1
  /// The most records kept for a locked database; the oldest beyond are dropped (each caller
  /// told why).
  static let heldLimit = 1_000

  /// Stores the records of a transaction that failed in one transaction of their own; returns
  /// the jobs accounted for (0 when kept for a locked database, `hold`).
  func store(_ open: Transaction) -> Int {
    guard !open.records.isEmpty else { return open.jobs }
    var pruned: [String] = []
    do throws(FileError) {
      pruned = try insert(open.records)
    } catch {
      let locked = attemptLocked
      condition.lock()
      let waited = waiters > 0 || closing
      condition.unlock()
      if locked && !waited {
        hold(open)
        return 0
      }
      drop(open.records[...], failures: open.failures[...], error: locked ? lockedError(open.records.count) : error)
      return open.jobs
    }
    lockedSince = nil
    for key in pruned { paths.removeBodyFile(key) }
    return open.jobs
  }

  /// Inserts the records and prunes, in one transaction; returns the keys of pruned entries
  /// whose bodies are files. On damage the search index is emptied first (pruning deletes from
  /// it; it is filled again from the rows) and the insert tried again; a database still damaged
  /// is set aside and the insert tried once more in a new one.
  func insert(_ records: [HistoryRecord]) throws(FileError) -> [String] {
    for attempt in 0..<3 {
      let db = try database()
      do throws(SQLiteError) {
        return try Self.insert(records, into: db, limits: limits, pruneChecks: &pruneChecks)
      } catch where error.isDamage && attempt == 0
        && ((try? HistorySearchIndex.rebuild(db)) != nil || (try? HistorySearchIndex.abandon(db)) != nil)
      {
        continue
      } catch where error.isDamage && attempt < 2 {
        connection = nil
        pruneChecks = HistoryPruning.Checks()
        let aside = HistoryDatabase.setAside(path: paths.database)
        notice(HistoryDatabase.setAsideNotice(path: paths.database, error: error, aside: aside))
      } catch {
        noteLocked(error)
        throw paths.error(error)
      }
    }
    return []
  }

  /// How long the next statement may wait for another process's lock: the whole budget, or
  /// what is left of it since the database was first found locked (0 once spent: a lock that is
  /// still held fails at once). A lock last met long ago (no attempt since: an idle TUI) was
  /// released meanwhile, as far as anyone knows: the budget is whole again.
  func lockBudget() -> Int32 {
    let budget = Double(paths.lockWait)
    if let last = lastLocked, Date().timeIntervalSince(last) > 2 * budget / 1000 + 2 * Self.lockRetryDelay {
      lockedSince = nil
      lastLocked = nil
    }
    guard let since = lockedSince else { return paths.lockWait }
    return Int32(max(0, min(budget, budget - Date().timeIntervalSince(since) * 1000)))
  }

  /// Notes that the current attempt failed on another process's lock: the budget started when
  /// the attempt did, unless it had already.
  func noteLocked(_ error: any Error) {
    guard let error = error as? SQLiteError, error.isLocked else { return }
    attemptLocked = true
    lastLocked = Date()
    if lockedSince == nil { lockedSince = attemptStarted }
  }

  /// Keeps what a transaction that met a locked database held, for the next commit (`commitAt`
  /// says when); beyond `heldLimit` records, the oldest are dropped.
  func hold(_ open: Transaction) {
    var held = open
    held.begun = false
    held.rolledBack = true
    held.pruned = []
    let excess = held.records.count - Self.heldLimit
    if excess > 0 {
      drop(held.records.prefix(excess), failures: held.failures.prefix(excess), error: lockedError(excess))
      held.records.removeFirst(excess)
      held.failures.removeFirst(excess)
    }
    transaction = held
  }

  /// Gives up records: their body files go, and their callers hear `error`.
  func drop(
    _ records: ArraySlice<HistoryRecord>, failures: ArraySlice<(@Sendable (FileError) -> Void)?>, error: FileError
  ) {
    for (record, failed) in zip(records, failures) {
      if record.entry.storage.responseBody == .file { paths.removeBodyFile(record.entry.id) }
      failed?(error)
    }
  }

  /// Why `count` entries were dropped: the database stayed locked.
  func lockedError(_ count: Int) -> FileError {
    FileError(
      path: paths.database,
      message: "stayed locked for \(paths.waitText) by another process "
        + "(another reqbench, or a program with a transaction open on it, such as sqlite3): "
        + "\(count) entr\(count == 1 ? "y" : "ies") not recorded",
      reason: "locked")
  }
}
