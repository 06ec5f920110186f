import Foundation
@testable import RequestEngine
import TestSupport
import Testing
@testable import History
@testable import Workspace
import WorkspaceTestSupport

/// A finished exchange as the agent reports it, for recording without a server.
func historyExchange(
  id: UInt64 = 1, url: String = "http://127.0.0.1:8080/users/1", method: HTTPMethod = .GET,
  requestHeaders: HTTPHeaders = ["Accept": "application/json"], requestBody: RequestBody = .empty,
  secrets: [String] = [], state: ExchangeState = .succeeded, status: Int? = 200,
  responseHeaders: HTTPHeaders = ["Content-Type": "application/json"],
  body: ResponseBody = .memory(Array(#"{"id":1}"#.utf8)), error: ExchangeError? = nil,
  finishedAt: Date = Date(), duration: Double = 0.0031
) -> ExchangeResult {
  let request = Request(
    method: method, url: url, headers: requestHeaders, body: requestBody, secrets: secrets)
  let response = status.map {
    Response(
      status: $0, headers: responseHeaders, body: body, effectiveURL: url,
      timing: Timing(dns: 0.0001, connect: 0.0002, firstByte: 0.002, total: duration))
  }
  return ExchangeResult(
    id: ExchangeID(rawValue: id), request: request, state: state, response: response,
    error: error, attempts: 1, queuedAt: finishedAt.addingTimeInterval(-duration - 0.001),
    startedAt: finishedAt.addingTimeInterval(-duration), finishedAt: finishedAt,
    fromCache: false, deduplicated: false)
}

/// Every regular file under `folder`, as paths relative to it, sorted.
func historyFiles(_ folder: URL) -> [String] {
  let enumerator = FileManager.default.enumerator(atPath: folder.path)
  var files: [String] = []
  while let path = enumerator?.nextObject() as? String {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: folder.path + "/" + path, isDirectory: &isDirectory),
      !isDirectory.boolValue
    {
      files.append(path)
    }
  }
  return files.sorted()
}

/// Bytes of every file under `folder`.
func historyDiskUsage(_ folder: URL) -> Int {
  historyFiles(folder).reduce(0) { total, path in
    let size = try? FileManager.default.attributesOfItem(atPath: folder.path + "/" + path)[.size]
    return total + ((size as? NSNumber)?.intValue ?? 0)
  }
}

/// A spilled body as the agent makes it: a temporary file that goes away with the last reference.
func historySpilledBody(
  _ bytes: [UInt8], in directory: URL? = nil
) throws -> ResponseBody {
  let path = (directory?.appendingPathComponent("rb-spill-" + UUID().uuidString) ?? scratchURL("rb-spill")).path
  try Data(bytes).write(to: URL(fileURLWithPath: path))
  return .file(SpilledFile(path: path, size: bytes.count))
}

/// `count` bytes of a repeating pattern (never containing test secrets).
func historyPattern(_ count: Int) -> [UInt8] {
  (0..<count).map { UInt8(truncatingIfNeeded: $0 % 251) }
}

/// The database of a state folder opened directly, to look at (or damage) what the store wrote.
func historyDatabase(_ state: URL) throws -> SQLiteConnection {
  guard case .ready(let db) = try HistoryDatabase.open(path: state.path + "/history.sqlite", create: false)
  else { throw CancellationError() }
  return db
}

@Suite("History store")
struct HistoryStoreTests {
  let root: URL
  /// The state folder: `history.sqlite` and `history-bodies/` go in it.
  var folder: URL { root.appendingPathComponent("state") }

  init() throws {
    root = try makeTemporaryDirectory()
  }

  // MARK: - Recording and listing

  @Test func recordsAndListsNewestFirst() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(stateFolder: folder)
    let start = Date(timeIntervalSince1970: 1_796_000_000)
    try store.record(historyExchange(id: 1, finishedAt: start), name: "get-user")
    try store.record(
      historyExchange(
        id: 2, url: "http://127.0.0.1:8080/status/500", state: .failed, status: 500,
        body: .memory(Array("status 500".utf8)),
        error: .status(500, accepted: Validation()), finishedAt: start + 1),
      name: "broken")
    try store.record(historyExchange(id: 3, finishedAt: start + 2), name: "get-user")

    let all = try store.entries()
    #expect(all.map(\.name) == ["get-user", "broken", "get-user"])
    #expect(all.map(\.exchangeID.rawValue) == [3, 2, 1])
    #expect(try store.entries(for: "get-user").map(\.exchangeID.rawValue) == [3, 1])
    #expect(try store.entries(for: "nothing").isEmpty)
    #expect(try store.names() == ["broken", "get-user"])

    let newest = try #require(all.first)
    #expect(newest.method == .GET)
    #expect(newest.url == "http://127.0.0.1:8080/users/1")
    #expect(newest.requestHeaders["Accept"] == "application/json")
    #expect(newest.state == .succeeded)
    #expect(newest.status == 200)
    #expect(newest.responseHeaders["Content-Type"] == "application/json")
    #expect(newest.bytes == 8)
    #expect(newest.bodyKept)
    #expect(newest.timing?.firstByte == 0.002)
    #expect(abs(newest.durationMs - 3.1) < 0.01)
    #expect(abs(newest.date.timeIntervalSince(start + 2)) < 0.000_01)
    #expect(newest.error == nil)
    #expect(newest.id.hasPrefix("20261130T005322."), "the id starts with the UTC time it finished")

    let broken = all[1]
    #expect(broken.state == .failed)
    #expect(broken.error?.kind == .status)
    #expect(broken.error?.message == "status 500 is outside 200-299")
    #expect(try text(store.body(of: broken)) == "status 500")

    // One database in WAL mode, schema version 1, private to the user.
    let db = try historyDatabase(folder)
    #expect(try db.integer("PRAGMA user_version") == Int64(HistoryDatabase.schemaVersion))
    let mode = try db.statement("PRAGMA journal_mode")
    #expect(try mode.step() && mode.text(0) == "wal")
    mode.reset()
    let info = try FileManager.default.attributesOfItem(atPath: folder.path + "/history.sqlite")
    #expect((info[.posixPermissions] as? NSNumber)?.intValue == 0o600)
  }

  @Test func aNewStoreReadsBackWhatWasRecorded() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(stateFolder: folder)
    var headers: HTTPHeaders = ["Content-Type": "text/plain"]
    headers.add("Set-Cookie", "a=1")
    headers.add("Set-Cookie", "b=2")
    try store.record(
      historyExchange(
        id: 7, method: .POST, requestBody: .json(["name": "Ada"]), responseHeaders: headers),
      name: "users/create")
    try store.record(
      historyExchange(id: 8, state: .cancelled, status: nil, error: .cancelled), name: "users/create")

    let reopened = HistoryStore(stateFolder: folder)
    #expect(try reopened.entries() == store.entries())
    let created = try #require(try reopened.entries().last)
    // Repeated headers kept in order; cookie values are secrets in history (names kept).
    #expect(created.responseHeaders.values("Set-Cookie") == ["a=••••", "b=••••"])
    #expect(created.requestContentType == "application/json")
    #expect(try text(reopened.requestBody(of: created)) == #"{"name":"Ada"}"#)
    #expect(try reopened.totalBytes() == store.totalBytes())
    #expect(try reopened.totalBytes() > 0)
  }

  @Test func cancelledExchangesWithoutAResponseAreRecorded() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(stateFolder: folder)
    try store.record(historyExchange(id: 4, state: .cancelled, status: nil, error: .cancelled), name: "slow")
    let entry = try #require(try store.entries(for: "slow").first)
    #expect(entry.state == .cancelled)
    #expect(entry.status == nil)
    #expect(entry.bytes == 0)
    #expect(entry.error?.kind == .cancelled)
    #expect(try store.body(of: entry).isEmpty)
  }

  @Test func anyRequestNameIsKept() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(stateFolder: folder)
    let names = ["users/get", "../escape", ".hidden", "ünï cøde", "a%2Fb", String(repeating: "long/", count: 80), "", "x'); DROP TABLE entries; --"]
    for (i, name) in names.enumerated() {
      try store.record(historyExchange(id: UInt64(i + 1)), name: name)
    }
    #expect(Set(try HistoryStore(stateFolder: folder).entries().map(\.name)) == Set(names))
    for name in names { #expect(try store.entries(for: name).count == 1, "\(name)") }
  }

  @Test func theRequestAtAPositionAndTheCount() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(stateFolder: folder)
    let start = Date(timeIntervalSince1970: 1_796_000_000)
    for i in 1...4 { try store.record(historyExchange(id: UInt64(i), finishedAt: start + Double(i)), name: "r") }
    try store.record(historyExchange(id: 9, finishedAt: start + 9), name: "other")
    let first = try #require(try store.entry(of: "r", at: 0))
    #expect(first.entry.exchangeID.rawValue == 4 && first.count == 4)
    #expect(try store.entry(of: "r", at: 3)?.entry.exchangeID.rawValue == 1)
    #expect(try store.entry(of: "r", at: 4) == nil)
    #expect(try store.entry(of: "nobody", at: 0) == nil)
  }

  // MARK: - Bounds

  @Test func keepsTheNewestEntriesOfEachRequest() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(stateFolder: folder, limits: .init(perRequest: 3, inlineBodyLimit: 4))
    let start = Date(timeIntervalSince1970: 1_796_000_000)
    for i in 1...5 {
      try store.record(historyExchange(id: UInt64(i), finishedAt: start + Double(i)), name: "a")
    }
    for i in 6...7 {
      try store.record(historyExchange(id: UInt64(i), finishedAt: start + Double(i)), name: "b")
    }
    #expect(try store.entries(for: "a").map(\.exchangeID.rawValue) == [5, 4, 3])
    #expect(try store.entries(for: "b").map(\.exchangeID.rawValue) == [7, 6])
    // The pruned entries' body files went with them.
    #expect(historyFiles(folder.appendingPathComponent("history-bodies")).count == 5)
    let db = try historyDatabase(folder)
    #expect(try db.integer("SELECT count(*) FROM bodies") == 0)
    #expect(try db.integer("SELECT entries FROM totals") == 5)
  }

  @Test func keepsTheTotalSizeUnderItsLimitDroppingTheOldest() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let limits = HistoryStore.Limits(perRequest: 50, totalBytes: 20_000, inlineBodyLimit: 1000)
    let store = HistoryStore(stateFolder: folder, limits: limits)
    let start = Date(timeIntervalSince1970: 1_796_000_000)
    for i in 1...30 {
      let name = ["a", "b", "c"][i % 3]
      try store.record(
        historyExchange(id: UInt64(i), body: .memory(historyPattern(3000)), finishedAt: start + Double(i)),
        name: name)
      #expect(try store.totalBytes() <= limits.totalBytes)
    }
    let kept = try store.entries().map(\.exchangeID.rawValue)
    #expect(kept.count >= 4)
    #expect(kept == Array(((31 - UInt64(kept.count))...30).reversed()), "the newest survive")
    let keys = Set(try store.entries().map { $0.id + ".body" })
    #expect(Set(historyFiles(folder.appendingPathComponent("history-bodies"))) == keys)
    let db = try historyDatabase(folder)
    #expect(try db.integer("SELECT sum(stored_bytes) FROM entries") == db.integer("SELECT bytes FROM totals"))
  }

  /// A version 2 database (triggers counting every row in and out) opened by this build: brought
  /// to the current version without its triggers, its counts kept, and the writer's per-commit
  /// counts and the prune's agreeing with the rows after new entries and a prune.
  @Test func aVersion2HistoryKeepsItsCountsAfterItsTriggersGo() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let start = Date(timeIntervalSince1970: 1_796_000_000)
    do {  // the old connection closes at the end of this scope
      let old = try SQLiteConnection(path: folder.path + "/history.sqlite", create: true)
      try old.execute("PRAGMA journal_mode=WAL")
      try old.execute(HistoryDatabase.migrations[0])
      try old.execute(HistoryDatabase.migrations[1])
      try old.execute("PRAGMA user_version = 2")
      // Written as a version 2 build wrote them: the triggers count, nothing else does.
      let insert = try old.statement(HistoryRow.insert)
      for i in 1...3 {
        let record = HistoryRecord(
          historyExchange(id: UInt64(i), finishedAt: start + Double(i)), name: "a", limits: .init())
        try insert.run { (row: inout SQLiteBinder) throws(SQLiteError) in try HistoryRow.bind(record.entry, into: &row) }
      }
      #expect(try old.integer("SELECT entries FROM names WHERE name = 'a'") == 3)
    }

    let limits = HistoryStore.Limits(perRequest: 4)
    let store = HistoryStore(stateFolder: folder, limits: limits)
    for i in 4...6 {
      try store.record(historyExchange(id: UInt64(i), finishedAt: start + Double(i)), name: i == 6 ? "b" : "a")
    }
    let db = try historyDatabase(folder)
    #expect(try db.integer("PRAGMA user_version") == Int64(HistoryDatabase.schemaVersion))
    #expect(try db.integer("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'") == 0)
    // a: 5 recorded, 4 kept (the oldest pruned); b: 1.
    #expect(try store.entries(for: "a").map(\.exchangeID.rawValue) == [5, 4, 3, 2])
    #expect(try db.integer("SELECT entries FROM names WHERE name = 'a'") == 4)
    #expect(try db.integer("SELECT entries FROM names WHERE name = 'b'") == 1)
    #expect(try db.integer("SELECT entries FROM totals") == 5)
    #expect(try db.integer("SELECT sum(stored_bytes) FROM entries") == db.integer("SELECT bytes FROM totals"))
  }

  /// A bound lowered since the last process (the workspace's `history.perRequest`) applies to
  /// every request at the next commit, not only to those that commit adds to; later commits of
  /// the same process look only at the requests they add to.
  @Test func aLoweredBoundPrunesEveryRequestAtTheNextCommit() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let start = Date(timeIntervalSince1970: 1_796_000_000)
    let before = HistoryStore(stateFolder: folder, limits: .init(perRequest: 5))
    for i in 1...10 {
      try before.record(historyExchange(id: UInt64(i), finishedAt: start + Double(i)), name: i % 2 == 0 ? "a" : "b")
    }
    before.close()
    let after = HistoryStore(stateFolder: folder, limits: .init(perRequest: 2))
    try after.record(historyExchange(id: 11, finishedAt: start + 11), name: "c")
    #expect(try after.entries(for: "a").map(\.exchangeID.rawValue) == [10, 8])
    #expect(try after.entries(for: "b").map(\.exchangeID.rawValue) == [9, 7])
    for i in 12...14 {
      try after.record(historyExchange(id: UInt64(i), finishedAt: start + Double(i)), name: "a")
    }
    #expect(try after.entries(for: "a").map(\.exchangeID.rawValue) == [14, 13])
    #expect(try after.entries(for: "c").map(\.exchangeID.rawValue) == [11])
    let db = try historyDatabase(folder)
    #expect(try db.integer("SELECT entries FROM names WHERE name = 'a'") == 2)
    #expect(try db.integer("SELECT entries FROM totals") == 5)
  }

  /// After a connection's first commit, a commit prunes the requests it takes over the bound: one
  /// new request with more entries than the bound in that one commit, one known request crossing
  /// it, and not one that stays within it.
  @Test func aCommitPrunesTheRequestsItTakesOverTheBound() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let start = Date(timeIntervalSince1970: 1_796_000_000)
    let store = HistoryStore(stateFolder: folder, limits: .init(perRequest: 3))
    try store.record(historyExchange(id: 1, finishedAt: start + 1), name: "known")
    try store.record(historyExchange(id: 2, finishedAt: start + 2), name: "within")
    var batch: [(result: ExchangeResult, name: String)] = []
    for i in 3...7 { batch.append((historyExchange(id: UInt64(i), finishedAt: start + Double(i)), "new")) }
    for i in 8...10 { batch.append((historyExchange(id: UInt64(i), finishedAt: start + Double(i)), "known")) }
    batch.append((historyExchange(id: 11, finishedAt: start + 11), "within"))
    store.recordInBackground(batch)
    store.waitForBackgroundRecords()
    #expect(try store.entries(for: "new").map(\.exchangeID.rawValue) == [7, 6, 5])
    #expect(try store.entries(for: "known").map(\.exchangeID.rawValue) == [10, 9, 8])
    #expect(try store.entries(for: "within").map(\.exchangeID.rawValue) == [11, 2])
    let db = try historyDatabase(folder)
    for (name, count) in [("new", 3), ("known", 3), ("within", 2)] {
      #expect(try db.integer("SELECT entries FROM names WHERE name = ?", [.text(name)]) == Int64(count))
    }
    #expect(try db.integer("SELECT entries FROM totals") == 8)
  }

  @Test func aZeroPerRequestLimitRecordsNothing() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(stateFolder: folder, limits: .init(perRequest: 0))
    try store.record(historyExchange(), name: "a")
    #expect(try store.entries().isEmpty)
    #expect(!FileManager.default.fileExists(atPath: folder.path))
  }

  // MARK: - Secrets

  @Test func secretsNeverReachAFile() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let token = "tok-5up3r-s3cr3t"
    let password = "pa55-w0rd-xyz"
    var responseHeaders: HTTPHeaders = ["Content-Type": "application/json"]
    responseHeaders.add("Set-Cookie", "session=\(token); HttpOnly")
    responseHeaders.add("Location", "http://127.0.0.1:8080/next?token=\(token)")
    let store = HistoryStore(stateFolder: folder)
    try store.record(
      historyExchange(
        url: "http://127.0.0.1:8080/users?api_key=\(token)",
        requestHeaders: ["Authorization": "Bearer \(token)", "X-Password": password],
        requestBody: .json(["password": .string(password)]), secrets: [token, password],
        state: .failed, status: 401, responseHeaders: responseHeaders,
        body: .memory(Array(#"{"error":"denied \#(token)"}"#.utf8)),
        error: ExchangeError(kind: .status, message: "status 401 for token \(token)", status: 401)),
      name: "login")
    try store.record(
      historyExchange(
        id: 2, method: .PUT,
        requestBody: RequestBody(
          bytes: [0xFF, 0xFE] + Array(password.utf8) + [0x00], contentType: "application/octet-stream"),
        secrets: [password]),
      name: "upload")
    // Searching indexes what was stored: the index holds no secret either.
    _ = try store.entries(matching: HistoryQuery(text: "login"))
    expectNoFileHolds([token, password], under: folder)
    let login = try #require(try store.entries(for: "login").first)
    #expect(login.url == "http://127.0.0.1:8080/users?api_key=••••")
    #expect(login.requestHeaders["Authorization"] == "Bearer ••••")
    #expect(login.responseHeaders["Set-Cookie"] == "session=••••; HttpOnly")
    #expect(login.error?.message == "status 401 for token ••••")
    #expect(try text(store.requestBody(of: login)) == #"{"password":"••••"}"#)
  }

  @Test func anEchoedSecretIsMaskedInlineAndInAFile() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let secret = "echoed-s3cr3t-value"
    let limits = HistoryStore.Limits(inlineBodyLimit: 1000)
    let small = Array(#"{"headers":{"X-Token":"\#(secret)"}}"#.utf8)
    let large = historyPattern(600) + Array(secret.utf8) + historyPattern(600) + Array(secret.utf8)
    let store = HistoryStore(stateFolder: folder, limits: limits)
    let start = Date(timeIntervalSince1970: 1_796_000_000)
    try store.record(historyExchange(id: 1, secrets: [secret], body: .memory(small), finishedAt: start), name: "small")
    try store.record(historyExchange(id: 2, secrets: [secret], body: .memory(large), finishedAt: start + 1), name: "large")
    expectNoFileHolds([secret], under: folder)
    let reread = HistoryStore(stateFolder: folder, limits: limits)
    let smallEntry = try #require(try reread.entries(for: "small").first)
    let largeEntry = try #require(try reread.entries(for: "large").first)
    #expect(smallEntry.bytes == small.count)
    #expect(largeEntry.bytes == large.count)
    let maskedSmall = #"{"headers":{"X-Token":"••••"}}"#
    #expect(smallEntry.storedBodyBytes == maskedSmall.utf8.count)
    #expect(try text(reread.body(of: smallEntry)) == maskedSmall)
    let maskedLarge = historyPattern(600) + Array("••••".utf8) + historyPattern(600) + Array("••••".utf8)
    #expect(try reread.body(of: largeEntry) == maskedLarge)
    #expect(try reread.body(of: largeEntry, range: 600..<612) == Array("••••".utf8))
  }

  // MARK: - Several stores, threads and processes

  @Test func anotherStoreSeesNewEntriesTheNextTimeItAsks() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let writer = HistoryStore(stateFolder: folder)
    let reader = HistoryStore(stateFolder: folder)
    #expect(try reader.entries().isEmpty, "no database yet: an empty history, nothing created")
    #expect(!FileManager.default.fileExists(atPath: folder.path))
    try writer.record(historyExchange(id: 1), name: "r")
    #expect(try reader.entries().count == 1)
    try writer.record(historyExchange(id: 2), name: "r")
    #expect(try reader.entry(of: "r", at: 0)?.count == 2)
  }

  @Test func recordsFromManyThreadsAtOnce() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(stateFolder: folder, limits: .init(perRequest: 15))
    let failures = HistoryFailureCounter()
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for i in 0..<20 {
        do {
          try store.record(historyExchange(id: UInt64(thread * 100 + i)), name: "r\(thread % 4)")
          _ = try store.entries()
        } catch {
          failures.increment()
        }
      }
    }
    #expect(failures.value == 0)
    #expect(try store.entries().count == 4 * 15)
    #expect(try HistoryStore(stateFolder: folder).entries().count == 4 * 15)
  }

  @Test func recordsInTheBackgroundInOrder() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(stateFolder: folder, limits: .init(perRequest: 5))
    let failures = HistoryFailureCounter()
    let start = Date(timeIntervalSince1970: 1_796_000_000)
    for i in 1...8 {
      store.recordInBackground(
        historyExchange(id: UInt64(i), finishedAt: start + Double(i)), name: "r",
        failed: { _ in failures.increment() })
    }
    store.recordInBackground(
      (9...12).map { (historyExchange(id: UInt64($0), finishedAt: start + Double($0)), "s") },
      failed: { _ in failures.increment() })
    store.waitForBackgroundRecords()
    #expect(failures.value == 0)
    #expect(try store.entries(for: "r").map(\.exchangeID.rawValue) == [8, 7, 6, 5, 4])
    #expect(try store.entries(for: "s").count == 4)

    try Data("a file where the state folder should be".utf8).write(to: root.appendingPathComponent("blocked"))
    let blocked = HistoryStore(stateFolder: root.appendingPathComponent("blocked/state"))
    blocked.recordInBackground(historyExchange(), name: "r", failed: { _ in failures.increment() })
    blocked.waitForBackgroundRecords()
    #expect(failures.value == 1)
    #expect(throws: FileError.self) { try blocked.record(historyExchange(), name: "r") }
  }

  // MARK: - The state folder

  @Test func theStateFolderIsBesideTheWorkspace() {
    let file = URL(fileURLWithPath: "/srv/api/workspaces/demo.json")
    #expect(StateFolder.url(forWorkspace: file, override: nil).path == "/srv/api/workspaces/.reqbench/demo")
    #expect(
      StateFolder.url(forWorkspace: file, override: URL(fileURLWithPath: "/tmp/state")).path == "/tmp/state")
    #expect(StateFolder.history(in: URL(fileURLWithPath: "/tmp/state")).path == "/tmp/state/history")
    #expect(
      StateFolder.url(forWorkspace: URL(fileURLWithPath: "/a/b/../api.JSON"), override: nil).path
        == "/a/.reqbench/api")
    #expect(HistoryStore(stateFolder: URL(fileURLWithPath: "/tmp/state")).databaseURL.path == "/tmp/state/history.sqlite")
  }
}

/// Every file under `folder` (the database, its WAL, body files) is free of each secret.
func expectNoFileHolds(_ secrets: [String], under folder: URL, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
  for path in historyFiles(folder) {
    guard let bytes = try? Array(Data(contentsOf: folder.appendingPathComponent(path))) else { continue }
    for secret in secrets {
      #expect(bytes.firstRange(of: Array(secret.utf8)) == nil, "\(path) holds \(secret)", sourceLocation: sourceLocation)
    }
  }
}

final class HistoryFailureCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  func increment() { lock.withLock { count += 1 } }
  var value: Int { lock.withLock { count } }
}
