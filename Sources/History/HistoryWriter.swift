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

/// The one thread that writes a store's history database. Entries queue up (`submit`); the
/// thread inserts them in chunks as they come, into one open transaction, and commits it on the
/// clock (`gatherInterval` after its first entry, or at `gatherCount` entries, or at once when
/// someone waits): few commits, and a caller that waits (`run` at its exit) waits only for the
/// last chunk and the COMMIT, not for a whole commit's inserts. Each chunk prunes in the same
/// transaction: per request beyond `perRequest`, then the oldest overall while above
/// `totalBytes`. Bodies above the inline limit are written to their files before the chunk that
/// adds their rows; the files of pruned entries are removed after the commit. When a chunk or
/// the commit fails, the transaction is rolled back and its entries are stored again in one
/// transaction of their own (`store`), which sets a damaged database aside and tells each
/// entry's caller when they cannot be written.
///
/// A database another process holds locked is waited for at most `Paths.lockWait` (10 s) in
/// all, however many statements wait (opening it, BEGIN, the retry in a transaction
/// of its own): the first wait that fails starts the budget, which a commit that succeeds
/// renews. Then the entries are kept, in memory, for the next commit (a second later, or with
/// the next entries: the TUI goes on), unless a caller waits for them (`run` at its exit,
/// `close`): then they are dropped, each caller told so and why (`HistoryWriter+Failures`).
///
/// Between commits, while entries gather or nothing is queued, it does the background work: the
/// checkpoint of the WAL (see below), the migration of an old file history (a chunk per
/// transaction), the sweep of body files no row refers to, and, after a second without new
/// entries, filling the search index. `close` finishes what is queued (never the background
/// work) and ends the thread.
///
/// Checkpoints are the writer's, not SQLite's automatic one inside the commit that crosses 1,000
/// pages (which `run` would wait for at its exit): when the thread first opens the database, while
/// the first entries gather (what earlier processes left in the WAL), and after a commit that left
/// more than `checkpointBytes` in it, once a second has gone by without entries (begun right
/// after a process's last commit, a checkpoint of megabytes, fsyncs included, held up its exit by
/// 8-10 ms). A WAL past `longWALBytes` is checkpointed at once, before the next entries go in
/// (a run of many thousands has no second to spare), and closing checkpoints one first: a
/// process that ends leaves the next one a shorter WAL, so it stays bounded whatever the
/// processes do.
final class HistoryWriter: @unchecked Sendable {
  struct Job {
    var result: ExchangeResult
    var name: String
    var failed: (@Sendable (FileError) -> Void)?
  }

  let paths: HistoryStore.Paths
  let limits: HistoryStore.Limits

  let condition = NSCondition()
  private var queue: [Job] = []
  private var submitted = 0
  private var finished = 0
  var closing = false
  private var started = false
  private var threadDone = false
  /// When the search index may be filled: a second after the last commit.
  private var indexAt: Date?
  /// When the open transaction (or what has queued, when none is open) is committed at the
  /// latest: `gatherInterval` after its first entry.
  private var commitAt: Date?
  /// Callers waiting in `waitForCommits`: what is queued is committed at once.
  var waiters = 0
  private var migration: HistoryMigration.State = .unknown
  private var swept = false
  /// Set while `finishMigration` waits: the migration runs before anything else.
  private var migrationWanted = false
  /// Notices for the user (a damaged database set aside, a migration done), taken by the store.
  private var notices: [String] = []

  /// The thread's connection (only the thread touches it).
  var connection: SQLiteConnection?
  /// The file the connection opened (`HistoryFiles.identity`).
  private var connectionIdentity: HistoryFiles.Identity?
  /// What the prune looked at once on this connection.
  var pruneChecks = HistoryPruning.Checks()
  /// A checkpoint is due (at the first open, and after a commit that left the WAL long), and
  /// whether it goes before anything else (the WAL is past `longWALBytes`).
  private var checkpointWanted = true
  private var checkpointUrgent = false
  /// The transaction the thread has open, with what it holds (only the thread touches it); a
  /// rolled-back one that waits for a locked database (`hold`) too.
  var transaction: Transaction?
  /// When the database was first found locked, since the write lock was last taken: the start
  /// of the wait budget; and when it was last found locked (only the thread touches them).
  var lockedSince: Date?
  var lastLocked: Date?
  /// When the current attempt to reach the database began, and whether it failed on a lock.
  var attemptStarted = Date()
  var attemptLocked = false

  /// The chunks inserted since the last commit.
  struct Transaction {
    /// The records in it, and beside them (same index) whom to tell if they cannot be stored.
    var records: [HistoryRecord] = []
    var failures: [(@Sendable (FileError) -> Void)?] = []
    /// The jobs it accounts for (with those whose body file could not be written).
    var jobs = 0
    /// Keys of pruned entries whose body files go once it commits.
    var pruned: [String] = []
    /// BEGIN has run (not before a chunk has a record to insert).
    var begun = false
    /// A chunk failed and the transaction was rolled back: the records are stored anew at the
    /// commit (`store`).
    var rolledBack = false
  }

  /// How long after the last commit the idle work (a checkpoint, the search index) begins.
  static let indexDelay: TimeInterval = 1
  /// The WAL's size after which the thread checkpoints once idle: SQLite's own default (1,000
  /// pages of 4 KB; a database made since has pages of 16 KB, `HistoryDatabase.pageSize`).
  static let checkpointBytes = 4 << 20
  /// The WAL's size beyond which the thread checkpoints before it inserts more, and closing
  /// checkpoints before the thread ends.
  static let longWALBytes = 16 << 20
  /// How long a transaction stays open after its first entry, and how many entries it takes
  /// before it commits. Each commit writes every page it changed to the WAL, the same tree pages
  /// again and again when a commit is made per engine pass: a run of 1,000 commits a handful of
  /// times.
  static let gatherInterval: TimeInterval = 0.02
  static let gatherCount = 250
  /// How many queued entries wake the thread to insert them. Inserted as they come, a run's
  /// entries are in the open transaction by the time it ends, and its exit waits for the last
  /// chunk and the COMMIT (1,000 GETs: 1-4 ms, where a whole commit's inserts took 3-25 ms).
  static let chunkCount = 50

  init(paths: HistoryStore.Paths, limits: HistoryStore.Limits) {
    self.paths = paths
    self.limits = limits
  }

  // MARK: - The callers' side

  func submit(_ jobs: [Job]) {
    guard !jobs.isEmpty else { return }
    condition.lock()
    let first = commitAt == nil
    if first { commitAt = Date().addingTimeInterval(Self.gatherInterval) }
    let before = queue.count
    queue.append(contentsOf: jobs)
    submitted += jobs.count
    startIfNeeded()
    // The thread is woken for the first entries of a transaction (it learns when to commit
    // them) and when a chunk has gathered; in between it sleeps until `commitAt`. Woken for
    // every engine pass's entries, it took a core from the engine and `run` hundreds of times a
    // run (1,000 GETs: 9 ms of wall time).
    let wake = first || (before < Self.chunkCount && queue.count >= Self.chunkCount)
    condition.unlock()
    if wake { condition.broadcast() }
  }

  /// Waits until everything submitted so far is committed (or has failed).
  func waitForCommits() {
    condition.lock()
    let target = submitted
    waiters += 1
    condition.broadcast()
    while finished < target && !threadDone { condition.wait() }
    waiters -= 1
    condition.unlock()
  }

  /// Starts the thread (for the background work alone: a migration) unless it runs.
  func startBackgroundWork() {
    condition.lock()
    if !closing { startIfNeeded() }
    condition.broadcast()
    condition.unlock()
  }

  /// Runs the migration of an old file history to its end (if there is one), waiting for it.
  func finishMigration() {
    condition.lock()
    guard migration != .done, !closing else {
      condition.unlock()
      return
    }
    migrationWanted = true
    startIfNeeded()
    condition.broadcast()
    while migration != .done && !threadDone { condition.wait() }
    migrationWanted = false
    condition.unlock()
  }

  /// Finishes the queued entries and ends the thread (the background work stops where it is:
  /// the next process goes on with it).
  func close() {
    condition.lock()
    closing = true
    condition.broadcast()
    while started && !threadDone { condition.wait() }
    condition.unlock()
  }

  func takeNotices() -> [String] {
    condition.lock()
    defer { condition.unlock() }
    let taken = notices
    notices = []
    return taken
  }

  /// Call with the lock held.
  private func startIfNeeded() {
    guard !started else { return }
    started = true
    let thread = Thread { [self] in
      ThreadName.setCurrent("rb-history")
      run()
    }
    thread.start()
  }

  // MARK: - The thread

  private enum Work {
    case insert([Job])
    case commit
    case migrate(HistoryMigration.State)
    case sweep
    case index
    case checkpoint
    case stop
  }

  private func run() {
    while true {
      switch nextWork() {
      case .insert(let jobs):
        insert(jobs)
      case .commit:
        let jobs = commit()
        let walBytes = connection?.bytesInWAL ?? 0
        let held = transaction != nil
        condition.lock()
        finished += jobs
        if held {
          // Kept for a locked database: tried again a little later, or with the next entries.
          commitAt = Date().addingTimeInterval(Self.lockRetryDelay)
        } else {
          commitAt = queue.isEmpty ? nil : Date().addingTimeInterval(Self.gatherInterval)
        }
        if walBytes > Self.checkpointBytes { checkpointWanted = true }
        if walBytes > Self.longWALBytes { checkpointUrgent = true }
        indexAt = Date().addingTimeInterval(Self.indexDelay)
        condition.broadcast()
        condition.unlock()
      case .migrate(let current):
        let state = migrateStep(current)
        condition.lock()
        migration = state
        condition.broadcast()
        condition.unlock()
      case .sweep:
        sweepBodyFiles()
        condition.lock()
        swept = true
        condition.unlock()
      case .checkpoint:
        // Only a database that is there: nothing recorded (perRequest 0) creates none.
        if connection != nil || FileManager.default.fileExists(atPath: paths.database) {
          try? database().checkpoint()
        }
        condition.lock()
        checkpointWanted = false
        checkpointUrgent = false
        condition.unlock()
      case .index:
        let more = indexStep()
        condition.lock()
        indexAt = more ? Date() : nil
        condition.unlock()
      case .stop:
        if let connection, connection.bytesInWAL > Self.longWALBytes {
          try? connection.checkpoint()
        }
        connection = nil
        condition.lock()
        threadDone = true
        condition.broadcast()
        condition.unlock()
        return
      }
    }
  }

  /// What to do next, waiting (without a timer unless the index is due) when there is nothing.
  /// The background work waits for the open transaction to commit: it uses the connection too.
  private func nextWork() -> Work {
    condition.lock()
    defer { condition.unlock() }
    while true {
      let inTransaction = transaction?.jobs ?? 0
      if migrationWanted && migration != .done {
        return transaction == nil ? .migrate(migration) : .commit
      }
      if checkpointUrgent && transaction == nil { return .checkpoint }
      let urgent = waiters > 0 || closing
      let commitDue = commitAt.map { $0 <= Date() } ?? false
      if !queue.isEmpty
        && (urgent || commitDue || queue.count >= Self.chunkCount
          || inTransaction + queue.count >= Self.gatherCount)
      {
        let jobs = queue
        queue = []
        return .insert(jobs)
      }
      if transaction != nil && (urgent || commitDue || inTransaction >= Self.gatherCount) { return .commit }
      if closing { return .stop }
      // The first open's checkpoint (what earlier processes left in the WAL), while the first
      // entries gather.
      if checkpointWanted && connection == nil && transaction == nil { return .checkpoint }
      if let due = commitAt {
        _ = condition.wait(until: due)
        continue
      }
      if migration != .done { return .migrate(migration) }
      if !swept { return .sweep }
      // A second after the last commit: the checkpoint a long WAL wants, then the search index.
      if let due = indexAt {
        if due <= Date() { return checkpointWanted ? .checkpoint : .index }
        _ = condition.wait(until: due)
      } else {
        condition.wait()
      }
    }
  }

  /// The connection, opened (and the database created) on first use, waiting for another
  /// process's lock only as long as the budget has left (`lockBudget`). A damaged or foreign
  /// database is set aside and a new one started. Each call begins an attempt.
  func database() throws(FileError) -> SQLiteConnection {
    attemptStarted = Date()
    attemptLocked = false
    // A database another process set aside since is not written on: the file at the path is.
    if connection != nil, HistoryFiles.identity(paths.database) != connectionIdentity {
      connection = nil
      pruneChecks = HistoryPruning.Checks()
    }
    if let connection {
      connection.setBusyTimeout(milliseconds: lockBudget())
      return connection
    }
    try StateFolder.make(URL(fileURLWithPath: paths.stateFolder, isDirectory: true))
    do throws(SQLiteError) {
      let opened = try Self.openCreating(paths.database, busyTimeout: lockBudget()) { notice in self.notice(notice) }
      opened.takeOverCheckpoints()
      connection = opened
      connectionIdentity = HistoryFiles.identity(paths.database)
      return opened
    } catch {
      noteLocked(error)
      throw paths.error(error)
    }
  }

  /// Opens (creating) the database at `path`; a damaged or foreign file is set aside first
  /// (`notice` says so).
  static func openCreating(
    _ path: String, busyTimeout: Int32 = HistoryDatabase.busyTimeoutMilliseconds, notice: (String) -> Void
  ) throws(SQLiteError) -> SQLiteConnection {
    do {
      if case .ready(let db) = try HistoryDatabase.open(path: path, create: true, busyTimeout: busyTimeout) { return db }
    } catch where error.isDamage {
      let aside = HistoryDatabase.setAside(path: path)
      notice(HistoryDatabase.setAsideNotice(path: path, error: error, aside: aside))
    }
    guard case .ready(let db) = try HistoryDatabase.open(path: path, create: true, busyTimeout: busyTimeout) else {
      throw SQLiteError(code: SQLITE_CANTOPEN, message: "cannot create \(path)")
    }
    return db
  }

  func notice(_ text: String) {
    condition.lock()
    notices.append(text)
    condition.unlock()
  }

  // MARK: - Committing

  /// Inserts a chunk of entries into the open transaction (beginning one).
  private func insert(_ jobs: [Job]) {
    // Taken out, so that its arrays are not shared and grow in place (not copied per chunk).
    var open = transaction.take() ?? Transaction()
    defer { transaction = open }
    open.jobs += jobs.count
    guard limits.perRequest > 0 else { return }
    let first = open.records.count
    // The records, and beside them (same index) whom to tell when they cannot be written: two
    // arrays appended to once, so no record is copied on its way to the insert.
    open.records.reserveCapacity(first + jobs.count)
    open.failures.reserveCapacity(first + jobs.count)
    for job in jobs {
      var record = HistoryRecord(job.result, name: job.name, limits: limits)
      do throws(FileError) {
        try writeBodyFile(&record)
        open.records.append(record)
        open.failures.append(job.failed)
      } catch {
        job.failed?(error)
      }
    }
    guard open.records.count > first, !open.rolledBack else { return }
    do {
      // The connection is checked (`database`) only between transactions.
      let db: SQLiteConnection
      if open.begun, let connection {
        db = connection
      } else {
        db = try database()
        do throws(SQLiteError) {
          try db.execute("BEGIN IMMEDIATE")
        } catch {
          noteLocked(error)
          throw error
        }
        lockedSince = nil
        open.begun = true
      }
      do throws(SQLiteError) {
        open.pruned += try Self.add(open.records[first...], into: db, limits: limits, pruneChecks: &pruneChecks)
      } catch {
        try? db.execute("ROLLBACK")
        throw error
      }
    } catch {
      open.rolledBack = true
      pruneChecks = HistoryPruning.Checks()  // what it looked at was rolled back with it
    }
  }

  /// Commits the open transaction; returns the number of jobs it accounted for (0 when they
  /// are kept for a locked database: `transaction` holds them again).
  private func commit() -> Int {
    guard let open = transaction else { return 0 }
    transaction = nil
    if open.begun, !open.rolledBack, let db = connection {
      do throws(SQLiteError) {
        try db.execute("COMMIT")
        lockedSince = nil
        for key in open.pruned { paths.removeBodyFile(key) }
        return open.jobs
      } catch {
        noteLocked(error)
        try? db.execute("ROLLBACK")
        pruneChecks = HistoryPruning.Checks()
      }
    }
    return store(open)
  }
}
