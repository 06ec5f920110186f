import Foundation
import TestSupport
import Testing

@testable import RequestEngine
@testable import History
@testable import Workspace
import WorkspaceTestSupport

/// A history database someone else damaged: rows with impossible values, a file that is not a
/// database, bytes flipped anywhere. Reading never traps; damaged rows are skipped and counted;
/// a database that cannot be opened is set aside and a new one started.
@Suite("History damage")
struct HistoryDamageTests {
  let root: URL
  var folder: URL { root.appendingPathComponent("state") }
  var databasePath: String { folder.path + "/history.sqlite" }

  init() throws {
    root = try makeTemporaryDirectory()
  }

  /// A store with a mix of entries: small and file bodies, a failure, a cancel, a POST.
  func seeded(at state: URL) throws {
    let store = HistoryStore(stateFolder: state, limits: .init(inlineBodyLimit: 2000))
    let start = Date(timeIntervalSince1970: 1_796_000_000)
    var headers: HTTPHeaders = ["Content-Type": "application/json"]
    headers.add("Set-Cookie", "a=1; Path=/; HttpOnly")
    for i in 0..<8 {
      try store.record(
        historyExchange(
          id: UInt64(i + 1), url: "http://127.0.0.1:8080/items/\(i)?q=\(i)",
          method: i == 3 ? .POST : .GET, requestBody: i == 3 ? .text("{\"a\":1}") : .empty,
          state: i == 5 ? .failed : i == 6 ? .cancelled : .succeeded, status: i == 6 ? nil : 200 + i,
          responseHeaders: headers,
          body: .memory(i == 2 ? historyPattern(5000) : Array("{\"i\":\(i)}".utf8)),
          error: i == 5 ? ExchangeError(kind: .transport, message: "timed out") : nil,
          finishedAt: start + Double(i)),
        name: "r\(i % 3)")
    }
    store.close()
  }

  /// Everything a reader does with a history: list, search, filter, bodies, HAR. Returns the
  /// entries and damaged rows of the listing (nil when the database could not be read).
  @discardableResult
  func readEverything(_ state: URL) -> HistoryResults? {
    let store = HistoryStore(stateFolder: state)
    var queries = [HistoryQuery(), HistoryQuery(requests: .named("r1")), HistoryQuery(requests: .folder("r")), HistoryQuery(text: "items 200")]
    queries[3].includeBodies = true
    var listing: HistoryResults?
    for query in queries {
      guard let results = try? store.entries(matching: query) else { continue }
      if listing == nil { listing = results }
      for entry in results.entries {
        _ = try? store.body(of: entry)
        _ = try? store.body(of: entry, range: 3..<70)
        _ = try? store.requestBody(of: entry)
        _ = try? store.request(of: entry)
        _ = HARExport.timings(entry)
        _ = entry.durationMs
      }
      var har: [UInt8] = []
      HARExport.write(results.entries, from: store) { har += $0 }
      #expect(har.isEmpty || (try? JSONParser.parse(har)) != nil, "the HAR is JSON")
    }
    _ = try? store.entry(of: "r1", at: 0)
    _ = try? store.names()
    _ = try? store.totalBytes()
    return listing
  }

  @Test func rowsWithImpossibleValuesAreSkippedAndCounted() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    try seeded(at: folder)
    let db = try historyDatabase(folder)
    // Eight rows; six damaged in six ways, one with odd but harmless values, one intact.
    try db.execute(
      """
      UPDATE entries SET finished_at = 1e300 WHERE exchange = 1;
      UPDATE entries SET state = 'exploded' WHERE exchange = 2;
      UPDATE entries SET bytes = -5 WHERE exchange = 3;
      UPDATE entries SET method = 'BR EW' WHERE exchange = 4;
      UPDATE entries SET status = 70000 WHERE exchange = 5;
      UPDATE entries SET started_at = 'yesterday' WHERE exchange = 6;
      UPDATE entries SET dns = 1e308, total = -4, redirect_count = -1, response_headers = 'garbage',
        error_status = 99999, bytes_sent = -7 WHERE exchange = 8;
      """)
    let results = try HistoryStore(stateFolder: folder).entries(matching: HistoryQuery())
    #expect(results.damaged == 6)
    #expect(results.entries.map(\.exchangeID.rawValue) == [8, 7])
    let odd = results.entries[0]
    #expect(odd.timing?.dns == 0 && odd.timing?.total == 0 && odd.redirectCount == 0 && odd.bytesSent == 0)
    #expect(odd.responseHeaders.fields.count == 1)
    readEverything(folder)
  }

  @Test func aFileThatIsNotADatabaseIsSetAsideAndANewHistoryStarts() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let garbage = Data(repeating: 0x41, count: 10_000)
    try garbage.write(to: URL(fileURLWithPath: databasePath))
    let store = HistoryStore(stateFolder: folder)
    #expect(try store.entries().isEmpty)
    #expect(store.takeNotices().first?.contains("was damaged") == true)
    let aside = try #require(
      try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasPrefix("history.sqlite.damaged-") })
    #expect(try Data(contentsOf: folder.appendingPathComponent(aside)) == garbage, "kept for a look, not lost")
    try store.record(historyExchange(), name: "after")
    #expect(try HistoryStore(stateFolder: folder).entries().map(\.name) == ["after"])
  }

  @Test func aBodyFileThatIsGoneIsAnErrorNotATrap() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    try seeded(at: folder)
    let store = HistoryStore(stateFolder: folder)
    let large = try #require(try store.entries().first { $0.bytes == 5000 })
    try FileManager.default.removeItem(atPath: try #require(store.paths.bodyFile(large.id)))
    #expect(throws: FileError.self) { try store.body(of: large) }
    try historyDatabase(folder).execute("DELETE FROM bodies")
    let small = try #require(try store.entries().first { $0.bytes > 0 && $0.bytes < 100 })
    #expect(throws: FileError.self) { try store.body(of: small) }
  }

  @Test func aDatabaseFromANewerReqbenchIsRefusedWithAClearError() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    try seeded(at: folder)
    try historyDatabase(folder).execute("PRAGMA user_version = 99")
    let store = HistoryStore(stateFolder: folder)
    #expect {
      try store.entries()
    } throws: { error in
      (error as? FileError)?.message.contains("written by a newer reqbench (history schema 99") == true
    }
    #expect(throws: FileError.self) { try store.record(historyExchange(), name: "r") }
  }

  /// A seeded mutation loop over the values of the rows: each round one column of one row gets
  /// a value of another kind or out of range, and everything a reader does must not trap.
  @Test func mutatedValuesNeverTrap() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let pristine = root.appendingPathComponent("pristine")
    try seeded(at: pristine)
    let columns = [
      "key", "name", "exchange", "state", "queued_at", "started_at", "finished_at", "attempts",
      "from_cache", "method", "url", "request_headers", "request_content_type",
      "request_body_bytes", "status", "http_version", "response_headers", "effective_url",
      "redirect_count", "dns", "connect", "tls", "first_byte", "total", "bytes_sent", "bytes",
      "body_storage", "stored_body_bytes", "error_kind", "error_message", "error_status",
      "error_path", "stored_bytes",
    ]
    let values = [
      "NULL", "1e300", "-1e300", "-1", "0", "9223372036854775807", "-9223372036854775808",
      "'text'", "x'FF00FE'", "''", "1.5", "4e18", "'inline'", "'file'", "'dropped'", "'failed'",
      "'GET'", "253402300800", "x''", "'\u{202E}\u{1B}[31m'",
    ]
    var random = SplitMix(seed: 0xDA4A_6E00)
    for round in 0..<200 {
      let state = root.appendingPathComponent("round")
      try? FileManager.default.removeItem(at: state)
      try FileManager.default.copyItem(at: pristine, to: state)
      let db = try historyDatabase(state)
      for _ in 0..<(1 + random.next() % 3) {
        let column = columns[Int(random.next() % UInt64(columns.count))]
        let value = values[Int(random.next() % UInt64(values.count))]
        let row = 1 + random.next() % 8
        // A constraint may refuse the value (NOT NULL, UNIQUE): that is no damage to read.
        try? db.execute("UPDATE entries SET \(column) = \(value) WHERE id = \(row)")
        if random.next() % 4 == 0 {
          try? db.execute("UPDATE bodies SET response = \(value) WHERE id = \(row)")
        }
      }
      let results = readEverything(state)
      #expect(results.map { $0.entries.count + $0.damaged } == 8, "round \(round): every row listed or counted")
    }
  }

  /// The same for the file's bytes: flipped bytes anywhere, a file cut short. SQLite reports
  /// them (`SQLITE_CORRUPT`), the store passes that on as an error or sets the file aside.
  @Test func mutatedFileBytesNeverTrap() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let pristine = root.appendingPathComponent("pristine")
    try seeded(at: pristine)
    try historyDatabase(pristine).execute("PRAGMA wal_checkpoint(TRUNCATE)")
    let original = try Array(Data(contentsOf: pristine.appendingPathComponent("history.sqlite")))
    var random = SplitMix(seed: 0xF11E_B17E)
    for round in 0..<150 {
      let state = root.appendingPathComponent("round")
      try? FileManager.default.removeItem(at: state)
      try FileManager.default.copyItem(at: pristine, to: state)
      var bytes = original
      if round % 10 == 9 {
        bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
      } else {
        for _ in 0..<(1 + random.next() % 16) {
          let at = Int(random.next() % UInt64(bytes.count))
          bytes[at] = UInt8(truncatingIfNeeded: random.next())
        }
      }
      try Data(bytes).write(to: state.appendingPathComponent("history.sqlite"))
      readEverything(state)
      // Recording still works afterwards, in this file or a new one.
      let store = HistoryStore(stateFolder: state)
      store.recordInBackground(historyExchange(id: 99), name: "after")
      store.close()
    }
  }

  /// What the fuzz loop below damages: the counts the writer keeps, the search index and its
  /// bookmark, the WAL and shared-memory files, the body files. Each takes the state folder, the
  /// open database and the loop's random numbers.
  enum Damage: CaseIterable {
    case totals, names, searchBookmark, searchIndex, wal, sharedMemory, bodyFile

    /// Whether what the search finds can no longer be checked against the rows: a damaged index
    /// that still parses may name other rows (they are real entries all the same).
    var blursSearch: Bool { self == .searchIndex }
    /// Whether entries recorded before may be lost: SQLite drops WAL frames that fail their
    /// checksums, as after a crash.
    var losesEntries: Bool { self == .wal || self == .sharedMemory }
  }

  func apply(_ damage: Damage, to state: URL, random: inout SplitMix) throws {
    func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
    let odd = ["-1", "-9223372036854775808", "9223372036854775807", "1e300", "'many'", "x'00FF'", "NULL"]
    switch damage {
    case .totals:
      let db = try historyDatabase(state)
      if random.next() % 4 == 0 {
        try db.execute("DELETE FROM totals")
      } else {
        // A NOT NULL column refuses NULL: that is no damage.
        try? db.execute("UPDATE totals SET \(pick(["entries", "bytes"])) = \(pick(odd))")
      }
    case .names:
      let db = try historyDatabase(state)
      if random.next() % 4 == 0 {
        try db.execute("DELETE FROM names WHERE name = '\(pick(["r0", "r1", "r2"]))'")
      } else {
        try? db.execute("UPDATE names SET entries = \(pick(odd + ["0", "2", "1000"])) WHERE name = '\(pick(["r0", "r1", "r2"]))'")
      }
    case .searchBookmark:
      let db = try historyDatabase(state)
      if random.next() % 4 == 0 {
        try db.execute("DELETE FROM search_state")
      } else {
        try? db.execute("UPDATE search_state SET indexed = \(pick(odd + ["0", "3", "100"]))")
      }
    case .searchIndex:
      let db = try historyDatabase(state)
      let blocks = try db.integer("SELECT count(*) FROM search_data") ?? 0
      let row = Int64(random.next() % UInt64(max(1, blocks)))
      let change = pick([
        "UPDATE search_data SET block = randomblob(\(random.next() % 64)) WHERE rowid IN (SELECT rowid FROM search_data LIMIT 1 OFFSET \(row))",
        "UPDATE search_data SET block = substr(block, 1, length(block) / 2) WHERE rowid IN (SELECT rowid FROM search_data LIMIT 1 OFFSET \(row))",
        "DELETE FROM search_data WHERE rowid IN (SELECT rowid FROM search_data LIMIT 1 OFFSET \(row))",
        "DELETE FROM search_idx",
        "UPDATE search_idx SET pgno = pgno + 7",
      ])
      try? db.execute(change)
    case .wal, .sharedMemory:
      let file = state.path + "/history.sqlite" + (damage == .wal ? "-wal" : "-shm")
      guard var bytes = try? Array(Data(contentsOf: URL(fileURLWithPath: file))), !bytes.isEmpty else { return }
      if random.next() % 5 == 0 {
        bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
      } else {
        for _ in 0..<(1 + random.next() % 8) {
          bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
        }
      }
      try Data(bytes).write(to: URL(fileURLWithPath: file))
    case .bodyFile:
      let folder = state.appendingPathComponent("history-bodies")
      guard let name = historyFiles(folder).first else { return }
      let file = folder.appendingPathComponent(name)
      switch random.next() % 4 {
      case 0: try FileManager.default.removeItem(at: file)
      case 1: try Data(historyPattern(Int(random.next() % 9000))).write(to: file)
      case 2:
        try FileManager.default.removeItem(at: file)
        try FileManager.default.createDirectory(at: file, withIntermediateDirectories: false)
      default: try Data().write(to: file)
      }
    }
  }

  /// The fuzz target of the history reader: a seeded, bounded loop damaging what the store keeps
  /// beside the rows (one to three damages a round). Every reader goes on without a trap; the
  /// damage is ignored or rebuilt: a search still finds every entry (the index's bookmark
  /// checked, a damaged index rebuilt or the rows scanned), the counts that drive pruning are
  /// counted again before they drop anything, and recording goes on with nothing lost.
  @Test func damagedBookkeepingIsIgnoredOrRebuilt() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let pristine = root.appendingPathComponent("pristine")
    try seeded(at: pristine)
    // The index filled (a search does it), and everything still in the WAL to damage.
    _ = try HistoryStore(stateFolder: pristine).entries(matching: HistoryQuery(text: "items"))
    var random = SplitMix(seed: 0xB00C_4EE9)
    // Three entries per request, as seeded: the next one of r1 drops its oldest (through the
    // counts in `names`, and its words taken out of the index).
    let limits = HistoryStore.Limits(perRequest: 3, inlineBodyLimit: 2000)
    for round in 0..<120 {
      let state = root.appendingPathComponent("round")
      try? FileManager.default.removeItem(at: state)
      try FileManager.default.copyItem(at: pristine, to: state)
      var damages: [Damage] = []
      for _ in 0..<(1 + random.next() % 3) {
        let damage = Damage.allCases[Int(random.next() % UInt64(Damage.allCases.count))]
        damages.append(damage)
        try apply(damage, to: state, random: &random)
      }
      let context = "round \(round): \(damages)"
      readEverything(state)

      let store = HistoryStore(stateFolder: state, limits: limits)
      let before = try store.entries(matching: HistoryQuery())
      #expect(before.damaged == 0, "\(context): no row was damaged")
      if !damages.contains(where: \.losesEntries) {
        #expect(before.entries.count == 8, "\(context): nothing lost")
      }
      try store.record(
        historyExchange(
          id: 100, url: "http://127.0.0.1:8080/items/new", finishedAt: Date(timeIntervalSince1970: 1_796_000_100)),
        name: "r1")
      let after = try store.entries(matching: HistoryQuery())
      #expect(after.entries.first?.exchangeID.rawValue == 100, "\(context): the new entry is there")
      // A search index SQLite cannot repair may still make the writer set the whole database
      // aside (a notice says so) and start a new history: known, listed in docs/state-on-disk.md.
      if damages.contains(.searchIndex), after.entries.count == 1,
        store.takeNotices().contains(where: { $0.contains("was damaged") })
      {
        store.close()
        continue
      }
      let r1Before = before.entries.filter { $0.name == "r1" }.count
      let r1After = after.entries.filter { $0.name == "r1" }.count
      // A wrong count in `names` may keep one more, never drop more.
      #expect(r1After == min(3, r1Before + 1) || damages.contains(.names) && r1After == r1Before + 1, "\(context): r1 pruned to its bound")
      #expect(after.entries.count - r1After == before.entries.count - r1Before, "\(context): nothing else dropped")
      let found = try store.entries(matching: HistoryQuery(text: "items"))
      let listed = Set(after.entries.map(\.id))
      #expect(Set(found.entries.map(\.id)).isSubset(of: listed), "\(context): the search finds entries only")
      if !damages.contains(where: \.blursSearch) {
        #expect(Set(found.entries.map(\.id)) == listed, "\(context): the search finds every entry")
      }
      store.close()
      // Impossible totals are counted again before they could drive a prune.
      let bytes = try historyDatabase(state).integer("SELECT bytes FROM totals")
      #expect(bytes.map { $0 >= 0 && $0 <= Int64(limits.totalBytes) } == true, "\(context): totals \(String(describing: bytes))")
    }
  }
}
