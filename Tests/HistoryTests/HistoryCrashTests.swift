import Foundation
import TestSupport
import Testing

@testable import RequestEngine
@testable import History
@testable import Workspace
import WorkspaceTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// The real binary recording history while it is killed, and two of them recording into one
/// state folder at once.
@Suite("History crash safety", .serialized)
struct HistoryCrashTests {
  /// A workspace of `count` GETs of nginx's 1 KiB file (and a few 1.5 MB bodies from the fixture
  /// server, which go to body files), its history bounded to `perRequest` entries per request.
  func workspace(in folder: URL, prefix: String = "get", count: Int, large: Int = 0, perRequest: Int = 3) throws -> URL {
    var requests: [String] = []
    for i in 0..<count {
      requests.append(#"{"name": "\#(prefix)-\#(i)", "url": "\#(try TestServer.nginx.url("/1k.bin"))", "dedup": false}"#)
    }
    for i in 0..<large {
      requests.append(#"{"name": "\#(prefix)-large-\#(i)", "url": "\#(try TestServer.fixture.url("/bytes/1500000"))", "dedup": false}"#)
    }
    let url = folder.appendingPathComponent("\(prefix).json")
    try """
    {"version": 1, "agent": {"maxConcurrent": 16, "maxPerHost": 16},
     "history": {"perRequest": \(perRequest), "maxMB": 500},
     "requests": [\(requests.joined(separator: ",\n"))]}
    """.write(to: url, atomically: true, encoding: .utf8)
    return url
  }

  /// Starts `reqbench run WS --all --state-dir STATE`, its output discarded.
  func startRun(_ workspace: URL, state: URL) throws -> Process {
    let process = Process()
    process.executableURL = try reqbenchBinary
    process.arguments = ["run", workspace.path, "--all", "--concurrency", "16", "--state-dir", state.path]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
  }

  /// Waits for `process` to end, at most `seconds`: one still running then is killed (SIGKILL),
  /// reaped, and the test fails. True when it ended by itself.
  @discardableResult
  func finish(_ process: Process, within seconds: Double, _ what: String) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning && Date() < deadline { usleep(5_000) }
    guard process.isRunning else {
      process.waitUntilExit()
      return true
    }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
    Issue.record("\(what) was still running after \(seconds) s: killed")
    return false
  }

  /// Kills `process` (SIGKILL) and reaps it; a killed process ends at once, so the wait is short.
  func killAndReap(_ process: Process) {
    kill(process.processIdentifier, SIGKILL)
    finish(process, within: 10, "a run killed with SIGKILL")
  }

  /// The check after each kill, in SQL so 30 rounds stay quick: the database opens,
  /// `PRAGMA integrity_check` says ok, the totals agree with the rows, every row reads back as an
  /// entry, every inline body is nginx's file and every body file is there with its size.
  /// Returns the number of entries.
  @discardableResult
  func expectIntact(_ state: URL, nginxBody: [UInt8], round: Int) throws -> Int {
    // Killed before its first commit: there may be no database yet (or an empty file).
    guard FileManager.default.fileExists(atPath: state.path + "/history.sqlite") else { return 0 }
    let db = try historyDatabase(state)
    let check = try db.statement("PRAGMA integrity_check")
    #expect(try check.step() && check.text(0) == "ok", "round \(round): integrity_check")
    check.reset()
    let count = try db.integer("SELECT count(*) FROM entries") ?? -1
    #expect(count == (try db.integer("SELECT entries FROM totals")), "round \(round): the totals agree with the rows")
    var unreadable = 0
    try db.statement("SELECT \(HistoryRow.selectColumns) FROM entries e").forEachRow { row in
      if HistoryRow.entry(from: row) == nil { unreadable += 1 }
    }
    #expect(unreadable == 0, "round \(round): rows that are not whole entries")
    let wrongBodies = try db.integer(
      """
      SELECT count(*) FROM entries e LEFT JOIN bodies b ON b.id = e.id
      WHERE e.body_storage = 'inline' AND (b.response IS NULL OR b.response != ?
        OR e.stored_body_bytes != length(b.response))
      """, [.blob(nginxBody)])
    #expect(wrongBodies == 0, "round \(round): inline bodies that are not nginx's 1 KiB file")
    try db.statement("SELECT key, stored_body_bytes FROM entries WHERE body_storage = 'file'").forEachRow { row in
      let key = row.text(0) ?? ""
      let size = HistoryFiles.regularFile(state.path + "/history-bodies/" + key + ".body")?.size
      #expect(size == 1_500_000 && row.int(1) == 1_500_000, "round \(round): the body file of \(key)")
    }
    return Int(count)
  }

  /// The whole check through the store: every entry and both its bodies read back whole.
  @discardableResult
  func expectWhole(_ state: URL, nginxBody: [UInt8], round: Int) throws -> Int {
    guard FileManager.default.fileExists(atPath: state.path + "/history.sqlite") else { return 0 }
    try expectIntact(state, nginxBody: nginxBody, round: round)
    let store = HistoryStore(stateFolder: state)
    let results = try store.entries(matching: HistoryQuery())
    #expect(results.damaged == 0, "round \(round)")
    for entry in results.entries {
      let body = try store.body(of: entry)
      #expect(body.count == entry.storedBodyBytes, "round \(round): \(entry.name)")
      if entry.name.contains("large") {
        #expect(body.count == 1_500_000, "round \(round): \(entry.name)")
      } else {
        #expect(body == nginxBody, "round \(round): \(entry.name)")
      }
    }
    return results.entries.count
  }

  /// `kill -9` at a random moment of a run of 1,000 exchanges, 30 times into one state folder:
  /// the database always opens, passes `integrity_check`, and every entry is whole. Every wait is
  /// bounded (a run that hangs is killed and fails the test) and every child is reaped.
  @Test(.timeLimit(.minutes(2)))
  func killedDuringARunOfAThousandExchanges() throws {
    let root = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    let nginxRoot = try #require(
      ProcessInfo.processInfo.environment["REQBENCH_NGINX_ROOT"], "nginx is not running: use .ci/test")
    let nginxBody = try Array(Data(contentsOf: URL(fileURLWithPath: nginxRoot + "/1k.bin")))
    let ws = try workspace(in: root, count: 1000, large: 4, perRequest: 2)
    let state = root.appendingPathComponent("state")
    var random = SplitMix(seed: 0x5EED_1234)
    // How long a whole run takes on this machine now (debug build, shared cores): the kills fall
    // anywhere from the start to its end (before the first commit, amid the commits, one per
    // 20 ms of exchanges). The time to the first commit alone was used before: measured under a
    // moment of load, it made a window longer than the later, quicker runs, most of which then
    // ended before their kill (7 of 30 killed running, once in CI).
    let begun = Date()
    let probe = try startRun(ws, state: state)
    while probe.isRunning && Date().timeIntervalSince(begun) < 30 { usleep(20_000) }
    let runTime = Date().timeIntervalSince(begun)
    killAndReap(probe)
    let window = UInt64(min(5, max(0.2, runTime)) * 1_000_000)
    var killedMidway = 0
    var entries = 0
    for round in 0..<30 {
      let process = try startRun(ws, state: state)
      // Anywhere from the start to the end: before the first commit, amid the commits, at the end.
      usleep(UInt32(10_000 + random.next() % window))
      if process.isRunning { killedMidway += 1 }
      killAndReap(process)
      entries = max(entries, try expectIntact(state, nginxBody: nginxBody, round: round))
    }
    entries = max(entries, try expectWhole(state, nginxBody: nginxBody, round: 30))
    #expect(killedMidway >= 10, "most rounds were killed while running (\(killedMidway) of 30)")
    #expect(entries > 100, "the runs recorded (at most \(entries) entries kept)")
    // What a kill left between a body file and its row is swept (no grace here).
    let store = HistoryStore(stateFolder: state, limits: HistoryStore.Limits(), strayFileGrace: 0)
    try store.sweepStrayFiles()
    let keys = Set(try store.entries().map { $0.id + ".body" })
    for file in historyFiles(state.appendingPathComponent("history-bodies")) {
      #expect(keys.contains(file), "\(file) belongs to no entry")
    }
  }

  /// Two processes recording into one state folder at the same moment lose nothing.
  @Test(.timeLimit(.minutes(1)))
  func twoProcessesRecordingAtOnceLoseNothing() throws {
    let root = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    let state = root.appendingPathComponent("state")
    let a = try workspace(in: root, prefix: "a", count: 500)
    let b = try workspace(in: root, prefix: "b", count: 500)
    let first = try startRun(a, state: state)
    let second = try startRun(b, state: state)
    let firstEnded = finish(first, within: 30, "the first run")
    let secondEnded = finish(second, within: 30, "the second run")
    try #require(firstEnded && secondEnded)
    #expect(first.terminationStatus == 0 && second.terminationStatus == 0)
    let names = try HistoryStore(stateFolder: state).entries().map(\.name)
    #expect(names.count == 1000)
    #expect(Set(names) == Set((0..<500).flatMap { ["a-\($0)", "b-\($0)"] }))
  }
}
