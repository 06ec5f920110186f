import Foundation
import TestSupport
import Testing

@testable import RequestEngine
@testable import History
@testable import Workspace
import WorkspaceTestSupport

/// The history's files against what another program (a cloned repository, a tool holding the
/// database) left: a key that is a path, a link for `history-bodies/`, a second damaged
/// database, a database of another schema, a lock held by another process.
@Suite("History, state files")
struct HistoryStateFilesTests {
  let root: URL
  var state: URL { root.appendingPathComponent("state") }
  var database: String { state.path + "/history.sqlite" }

  init() throws {
    root = try makeTemporaryDirectory()
  }

  /// Names in the state folder, sorted.
  func names() throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: state.path).sorted()
  }

  /// A key is a name, never a path: a row whose key holds `/`, `..` or a NUL (which ends the
  /// path before `.body`) is damaged, skipped and counted; no reader opens the file it would
  /// name, and pruning it removes no file.
  @Test func aKeyThatIsAPathIsADamagedRowNeverReadNorRemoved() throws {
    let limits = HistoryStore.Limits(perRequest: 1, inlineBodyLimit: 100)
    let store = HistoryStore(stateFolder: state, limits: limits)
    try store.record(historyExchange(id: 1, body: .memory(historyPattern(500))), name: "big")
    try store.record(historyExchange(id: 2, body: .memory(historyPattern(500))), name: "other")
    store.close()
    // What the keys below name, from `state/history-bodies/`.
    let victim = root.appendingPathComponent("victim")
    let victimBody = root.appendingPathComponent("victim.body")
    try "VICTIM\n".write(to: victim, atomically: false, encoding: .utf8)
    try "VICTIM-BODY\n".write(to: victimBody, atomically: false, encoding: .utf8)
    let db = try historyDatabase(state)
    let craft = try db.statement("UPDATE entries SET key = ?1, stored_body_bytes = ?2, bytes = ?2 WHERE exchange = ?3")
    try craft.run([.text("../../victim\u{0}"), .integer(7), .integer(1)])
    try craft.run([.text("../../victim"), .integer(12), .integer(2)])

    let reader = HistoryStore(stateFolder: state, limits: limits)
    let results = try reader.entries(matching: HistoryQuery())
    #expect(results.damaged == 2)
    #expect(results.entries.isEmpty)
    var har: [UInt8] = []
    HARExport.write(results.entries, from: reader) { har += $0 }
    #expect(!String(decoding: har, as: UTF8.self).contains("VICTIM"))

    // The next entries of both requests prune the crafted rows (one entry per request).
    try reader.record(historyExchange(id: 3, body: .memory(historyPattern(500))), name: "big")
    try reader.record(historyExchange(id: 4, body: .memory(historyPattern(500))), name: "other")
    try reader.sweepStrayFiles()
    reader.close()
    #expect(try String(contentsOf: victim, encoding: .utf8) == "VICTIM\n")
    #expect(try String(contentsOf: victimBody, encoding: .utf8) == "VICTIM-BODY\n")
    #expect(try HistoryStore(stateFolder: state).entries().map(\.exchangeID.rawValue).sorted() == [3, 4])
  }

  /// `history-bodies` that is a symbolic link is never written through, and its sweep never
  /// removes what is where it points.
  @Test func historyBodiesThatIsALinkIsNeverWrittenThroughNorSwept() throws {
    let elsewhere = root.appendingPathComponent("elsewhere")
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
    let old = elsewhere.appendingPathComponent("20200101T000000.000000Z-1-00000000.body")
    try "kept".write(to: old, atomically: false, encoding: .utf8)
    try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-86_400)], ofItemAtPath: old.path)
    let store = HistoryStore(stateFolder: state, limits: HistoryStore.Limits(inlineBodyLimit: 100), strayFileGrace: 0)
    try store.record(historyExchange(id: 1), name: "small")
    try FileManager.default.createSymbolicLink(at: state.appendingPathComponent("history-bodies"), withDestinationURL: elsewhere)
    #expect {
      try store.record(historyExchange(id: 2, body: .memory(historyPattern(500))), name: "big")
    } throws: { error in
      (error as? FileError)?.message.contains("is a symbolic link") == true
    }
    try store.sweepStrayFiles()
    store.close()
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path) == [old.lastPathComponent])
  }

  /// Each damaged database is kept under a name of its own, with its WAL: a second one never
  /// replaces the first.
  @Test func aSecondDamagedDatabaseKeepsTheFirstAndItsWAL() throws {
    try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
    for (round, garbage) in ["FIRST-DAMAGED", "SECOND-DAMAGED-PADDING"].enumerated() {
      for suffix in ["", "-wal", "-shm"] { unlink(database + suffix) }
      try Data(garbage.utf8).write(to: URL(fileURLWithPath: database))
      try Data("WAL-\(round)".utf8).write(to: URL(fileURLWithPath: database + "-wal"))
      let store = HistoryStore(stateFolder: state)
      #expect(try store.entries().isEmpty)
      let notice = store.takeNotices().first ?? ""
      #expect(notice.contains("was damaged") && notice.contains("history.sqlite.damaged-"), "\(notice)")
      try store.record(historyExchange(id: UInt64(round + 1)), name: "after")
      store.close()
    }
    let asides = try names().filter { $0.hasPrefix("history.sqlite.damaged-") }
    let databases = asides.filter { !$0.hasSuffix("-wal") }
    #expect(databases.count == 2, "\(asides)")
    let kept = try databases.map { try String(contentsOfFile: state.path + "/" + $0, encoding: .utf8) }
    #expect(Set(kept) == ["FIRST-DAMAGED", "SECOND-DAMAGED-PADDING"])
    for name in databases {
      let content = try String(contentsOfFile: state.path + "/" + name, encoding: .utf8)
      let wal = try String(contentsOfFile: state.path + "/" + name + "-wal", encoding: .utf8)
      #expect(wal == (content == "FIRST-DAMAGED" ? "WAL-0" : "WAL-1"), "\(name): its own WAL")
    }
    #expect(try HistoryStore(stateFolder: state).entries().map(\.name) == ["after"])
  }

  /// A valid SQLite file that is not a reqbench history (other tables, a `history` table of
  /// other columns, reqbench's version number on another program's table) is set aside like a
  /// damaged one, saying so, and a new history starts: by a reader or by the writer, whichever
  /// opens it first.
  @Test(arguments: [
    "CREATE TABLE entries(x); PRAGMA user_version = 4",
    "CREATE TABLE history(id INTEGER PRIMARY KEY, url TEXT, status INTEGER)",
    "CREATE TABLE history(id INTEGER PRIMARY KEY, url TEXT); PRAGMA user_version = 4",
  ])
  func aDatabaseOfAnotherSchemaIsSetAsideSayingSo(schema: String) throws {
    for readerFirst in [true, false] {
      try? FileManager.default.removeItem(at: state)
      try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
      let foreign = try SQLiteConnection(path: database, create: true)
      try foreign.execute(schema)
      let store = HistoryStore(stateFolder: state)
      if readerFirst { #expect(try store.entries().isEmpty) }
      try store.record(historyExchange(), name: "after")
      let notice = store.takeNotices().joined(separator: "\n")
      #expect(notice.contains("history.sqlite is not a reqbench history database ("), "\(notice)")
      #expect(notice.contains("moved to \(database).damaged-") && notice.contains("a new history starts"), "\(notice)")
      #expect(try store.entries().map(\.name) == ["after"])
      store.close()
      let aside = try #require(try names().first { $0.hasPrefix("history.sqlite.damaged-") && !$0.hasSuffix("-wal") })
      let kept = try SQLiteConnection(path: state.path + "/" + aside, create: false)
      #expect(try kept.integer("SELECT count(*) FROM sqlite_master WHERE name IN ('entries', 'history')") == 1, "kept as it was")
    }
  }

  /// A history with one entry (`before`), then another connection that holds it locked (as
  /// `sqlite3` or Python's `sqlite3` do with an exclusive transaction open) until it commits.
  func lockedDatabase() throws -> SQLiteConnection {
    let store = HistoryStore(stateFolder: state)
    try store.record(historyExchange(id: 1), name: "before")
    store.close()
    let holder = try SQLiteConnection(path: database, create: false)
    try holder.execute("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; SELECT count(*) FROM entries;")
    return holder
  }

  /// A database another process holds locked is waited for (here 300 ms instead of 10 s), then
  /// the entry waits in memory for the next commit, which records it once the lock is gone.
  @Test func aLockedDatabaseKeepsTheEntryForTheNextCommit() throws {
    var holder: SQLiteConnection? = try lockedDatabase()
    let store = HistoryStore(stateFolder: state, limits: HistoryStore.Limits(), strayFileGrace: 3600, lockWait: 300)
    let failures = LockedBox<[String]>([])
    store.recordInBackground(historyExchange(id: 2), name: "kept") { error in failures.mutate { $0.append(error.message) } }
    // Past the wait and the first retry: not dropped.
    usleep(1_600_000)
    #expect(failures.get().isEmpty, "\(failures.get())")
    // The other process ends its transaction and goes.
    try holder?.execute("COMMIT")
    holder = nil
    // Bounded: the next retry comes a second later.
    let deadline = Date().addingTimeInterval(10)
    let reader = HistoryStore(stateFolder: state)
    var names: [String] = []
    while Date() < deadline {
      names = (try? reader.entries().map(\.name)) ?? []
      if names.contains("kept") { break }
      usleep(100_000)
    }
    #expect(names.sorted() == ["before", "kept"])
    store.close()
    #expect(failures.get().isEmpty, "\(failures.get())")
  }

  /// A caller that waits for the entry (`run` at its exit, a synchronous record) waits the
  /// lock's time once, then hears that the entry was dropped and why.
  @Test func aLockedDatabaseThatACallerWaitsForDropsTheEntrySayingWhy() throws {
    let holder = try lockedDatabase()
    let store = HistoryStore(stateFolder: state, limits: HistoryStore.Limits(), strayFileGrace: 3600, lockWait: 300)
    let started = Date()
    #expect {
      try store.record(historyExchange(id: 2, body: .memory(historyPattern(5000))), name: "dropped")
    } throws: { error in
      let message = (error as? FileError)?.message ?? ""
      return message.contains("stayed locked for 300 ms by another process (another reqbench, or a program")
        && message.contains("1 entry not recorded")
    }
    #expect(Date().timeIntervalSince(started) < 3, "one wait of the lock's time, not one per statement")
    try holder.execute("ROLLBACK")
    store.close()
  }
}
