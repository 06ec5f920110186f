import Foundation
import Testing

@testable import RequestEngine
@testable import History
@testable import Workspace
import WorkspaceTestSupport

/// `HistoryQuery` against a store: words through the search index, filters, their parsing.
@Suite("History search")
struct HistorySearchTests {
  let root: URL
  var folder: URL { root.appendingPathComponent("state") }
  let start = Date(timeIntervalSince1970: 1_796_000_000)

  init() throws {
    root = try makeTemporaryDirectory()
  }

  /// Five exchanges of four requests, a second apart (exchange ids 1…5, the newest 5).
  func recorded() throws -> HistoryStore {
    let store = HistoryStore(stateFolder: folder)
    try store.record(
      historyExchange(id: 1, url: "http://127.0.0.1:8080/users/1", finishedAt: start + 1), name: "users/get")
    try store.record(
      historyExchange(
        id: 2, url: "http://127.0.0.1:8080/status/500", state: .failed, status: 500,
        body: .memory(Array("internal trouble".utf8)), error: .status(500, accepted: Validation()),
        finishedAt: start + 2),
      name: "broken")
    try store.record(
      historyExchange(
        id: 3, url: "http://127.0.0.1:1/x", state: .failed, status: nil,
        error: ExchangeError(kind: .transport, message: "cannot connect: Connection refused"),
        finishedAt: start + 3),
      name: "down")
    try store.record(
      historyExchange(
        id: 4, url: "http://127.0.0.1:8080/orders?page=2", method: .POST,
        requestBody: .text("{\"note\": \"needle in the request\"}"), status: 404,
        responseHeaders: ["Content-Type": "text/plain", "X-Request-Id": "abc-123-xyz"],
        body: .memory(Array("no such order: haystack".utf8)), finishedAt: start + 4),
      name: "users/orders")
    try store.record(
      historyExchange(id: 5, url: "http://127.0.0.1:8080/users/2", state: .cancelled, status: nil, error: .cancelled, finishedAt: start + 5),
      name: "users/get")
    return store
  }

  func ids(_ store: HistoryStore, _ query: HistoryQuery) throws -> [UInt64] {
    try store.entries(matching: query).entries.map(\.exchangeID.rawValue)
  }

  func search(_ store: HistoryStore, _ text: String, body: Bool = false) throws -> [UInt64] {
    var query = HistoryQuery(text: text)
    query.includeBodies = body
    return try ids(store, query)
  }

  @Test func wordsMatchTheSearchedFieldsNewestFirst() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = try recorded()
    #expect(try search(store, "users") == [5, 4, 1], "names and URLs")
    #expect(try search(store, "use") == [5, 4, 1], "the start of a word")
    #expect(try search(store, "USERS/2") == [5], "case and the order of the words")
    #expect(try search(store, "POST") == [4], "the method")
    #expect(try search(store, "404") == [4], "the status")
    #expect(try search(store, "refused") == [3], "the error")
    #expect(try search(store, "transport") == [3], "the error's kind")
    #expect(try search(store, "abc-123") == [4], "response headers")
    #expect(try search(store, "text/plain users") == [4], "every word must match")
    #expect(try search(store, "nothing-like-it").isEmpty)
    #expect(try search(store, "?page=2") == [4])
    // Punctuation alone has no words: found by a scan of the same fields.
    #expect(try search(store, "?") == [4])
    #expect(try search(store, "%").isEmpty, "LIKE's wildcards are literal")
  }

  @Test func bodiesAreSearchedOnlyWhenAsked() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = try recorded()
    #expect(try search(store, "haystack").isEmpty)
    #expect(try search(store, "haystack", body: true) == [4], "the response body")
    #expect(try search(store, "needle", body: true) == [4], "the request body")
    #expect(try search(store, "ystac", body: true) == [4], "bodies are searched anywhere")
    #expect(try search(store, "trouble users", body: true).isEmpty)
  }

  @Test func filtersByRequestStatusTimeAndFailure() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = try recorded()
    #expect(try ids(store, HistoryQuery(requests: .named("users/get"))) == [5, 1])
    #expect(try ids(store, HistoryQuery(requests: .folder("users/"))) == [5, 4, 1])
    #expect(try ids(store, HistoryQuery(requests: .folder("user/"))).isEmpty)
    var query = HistoryQuery()
    query.statuses = try HistoryQuery.statuses(parsing: "4xx,5xx")
    #expect(try ids(store, query) == [4, 2])
    query.statuses = try HistoryQuery.statuses(parsing: "none")
    #expect(try ids(store, query) == [5, 3])
    query.statuses = try HistoryQuery.statuses(parsing: "200-404")
    #expect(try ids(store, query) == [4, 1])
    query = HistoryQuery()
    query.failedOnly = true
    #expect(try ids(store, query) == [3, 2])
    query.since = start + 2.5
    #expect(try ids(store, query) == [3])
    query = HistoryQuery(limit: 2)
    #expect(try ids(store, query) == [5, 4])
  }

  /// The index is filled after the fact; entries recorded after a search, and entries pruned,
  /// keep it in step with the rows.
  @Test func theIndexFollowsNewAndPrunedEntries() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(stateFolder: folder, limits: .init(perRequest: 2))
    for i in 1...3 {
      try store.record(historyExchange(id: UInt64(i), url: "http://127.0.0.1:8080/v\(i)", finishedAt: start + Double(i)), name: "r")
      #expect(try search(store, "v\(i)") == [UInt64(i)])
    }
    #expect(try search(store, "v1").isEmpty, "pruned: gone from the index too")
    let db = try historyDatabase(folder)
    try db.execute("INSERT INTO search(search) VALUES ('integrity-check')")
    #expect(try db.integer("SELECT indexed FROM search_state") == db.integer("SELECT max(id) FROM entries"))

    // Rows the index has not caught up with (another process holds the lock, the folder is
    // read-only) are still found, by a scan.
    try db.execute("INSERT INTO search(search) VALUES ('delete-all'); UPDATE search_state SET indexed = 0")
    let (sql, values) = HistorySearchIndex.select(HistoryQuery(text: "v3"), indexed: 0)
    var found: [String] = []
    try db.statement(sql).forEachRow(values) { row in found.append(row.text(12) ?? "") }
    #expect(found == ["http://127.0.0.1:8080/v3"])
  }

  /// Entries dropped by the size bound (the oldest of every request) leave the index too, and
  /// the counts follow.
  @Test func entriesDroppedBySizeLeaveTheIndex() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let probe = root.appendingPathComponent("probe")
    try HistoryStore(stateFolder: probe).record(historyExchange(url: "http://127.0.0.1:8080/w0"), name: "p")
    let size = try historyDatabase(probe).integer("SELECT bytes FROM totals") ?? 0
    #expect(size > 0)
    // Room for two entries and a half.
    let store = HistoryStore(stateFolder: folder, limits: .init(perRequest: 100, totalBytes: Int(size * 5 / 2)))
    for i in 1...4 {
      try store.record(
        historyExchange(id: UInt64(i), url: "http://127.0.0.1:8080/w\(i)", finishedAt: start + Double(i)),
        name: i % 2 == 0 ? "even" : "odd")
      #expect(try search(store, "w\(i)") == [UInt64(i)])
    }
    #expect(try search(store, "w1").isEmpty && search(store, "w2").isEmpty, "dropped: gone from the index")
    #expect(try search(store, "w3") == [3] && search(store, "w4") == [4])
    let db = try historyDatabase(folder)
    try db.execute("INSERT INTO search(search) VALUES ('integrity-check')")
    #expect(try db.integer("SELECT entries FROM totals") == 2)
    #expect(try db.integer("SELECT sum(stored_bytes) FROM entries") == db.integer("SELECT bytes FROM totals"))
    #expect(try db.integer("SELECT sum(entries) FROM names") == 2)
    #expect(try db.integer("SELECT count(*) FROM bodies WHERE id NOT IN (SELECT id FROM entries)") == 0)
  }

  /// A word in few rows drives its search (those rows looked up, then sorted: a word in 10 of
  /// 100,000 entries no longer reads all of them); a word in many is tested entry by entry,
  /// newest first. Both select the same entries, with the index up to date, empty or behind.
  @Test func aRareWordDrivesTheSearchWithTheSameEntries() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = try recorded()
    #expect(try search(store, "users") == [5, 4, 1], "fills the index")
    let db = try historyDatabase(folder)
    #expect(HistorySearchIndex.drivingWord(HistoryQuery(text: "POST"), in: db, fewMatches: 2) == 0)
    #expect(HistorySearchIndex.drivingWord(HistoryQuery(text: "users"), in: db, fewMatches: 2) == nil, "in 3 rows")
    #expect(HistorySearchIndex.drivingWord(HistoryQuery(text: "users 404"), in: db, fewMatches: 2) == 1)
    #expect(HistorySearchIndex.drivingWord(HistoryQuery(text: "users 404"), in: db) == 1, "the fewest rows")
    #expect(HistorySearchIndex.drivingWord(HistoryQuery(text: "?"), in: db) == nil, "punctuation has no words")
    var bodies = HistoryQuery(text: "POST")
    bodies.includeBodies = true
    #expect(HistorySearchIndex.drivingWord(bodies, in: db) == nil, "a body may match any row")

    func urls(_ query: HistoryQuery, indexed: Int64, driving: Int?) throws -> [String] {
      let (sql, values) = HistorySearchIndex.select(query, indexed: indexed, driving: driving)
      var found: [String] = []
      try db.statement(sql).forEachRow(values) { row in found.append(row.text(12) ?? "") }
      return found
    }
    let newest = try db.integer("SELECT max(id) FROM entries") ?? 0
    #expect(newest == 5)
    for text in ["users", "use", "USERS/2", "POST", "404", "refused", "abc-123", "text/plain users", "?page=2", "nothing-like-it"] {
      var query = HistoryQuery(text: text)
      query.limit = 2
      for indexed in [newest, 2] {
        let tested = try urls(query, indexed: indexed, driving: nil)
        for driving in query.words.indices {
          #expect(try urls(query, indexed: indexed, driving: driving) == tested, "\(text), indexed up to \(indexed)")
        }
      }
    }
    // Rows not in the index yet are found by the driving word too (the scan beside the list).
    try db.execute("INSERT INTO search(search) VALUES ('delete-all'); UPDATE search_state SET indexed = 0")
    #expect(try urls(HistoryQuery(text: "users"), indexed: 0, driving: 0).count == 3)
  }

  @Test func theCommandLinesValues() throws {
    #expect(try HistoryQuery.statuses(parsing: "404") == [.code(404)])
    #expect(try HistoryQuery.statuses(parsing: "2xx, 5XX") == [.range(200...299), .range(500...599)])
    #expect(try HistoryQuery.statuses(parsing: "500-503,none") == [.range(500...503), .noResponse])
    for bad in ["", "2x", "6xx", "99", "1000", "abc", "500-400", "4xx,", "1e3"] {
      #expect(throws: HistoryQuery.ParseError.self, "\(bad)") { try HistoryQuery.statuses(parsing: bad) }
    }
    let now = Date(timeIntervalSince1970: 1_796_000_000)
    #expect(try HistoryQuery.date(parsing: "1h", now: now) == now - 3600)
    #expect(try HistoryQuery.date(parsing: "30m", now: now) == now - 1800)
    #expect(try HistoryQuery.date(parsing: "2d", now: now) == now - 172_800)
    #expect(try HistoryQuery.date(parsing: "1w", now: now) == now - 604_800)
    #expect(try HistoryQuery.date(parsing: "1.5h", now: now) == now - 5400)
    let day = try HistoryQuery.date(parsing: "2026-11-30", now: now)
    let noon = try HistoryQuery.date(parsing: "2026-11-30T12:00", now: now)
    #expect(noon.timeIntervalSince(day) == 43_200)
    #expect(try HistoryQuery.date(parsing: "2026-11-30 12:00:30", now: now) == noon + 30)
    for bad in ["", "h", "-1h", "1y", "2026-13-01", "2026-02-30", "2026-11-30T25:00", "30/11/2026", "1e999h"] {
      #expect(throws: HistoryQuery.ParseError.self, "\(bad)") { try HistoryQuery.date(parsing: bad, now: now) }
    }
  }
}
