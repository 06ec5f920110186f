import Foundation
import Testing

@testable import RequestEngine
@testable import History
@testable import Workspace
import WorkspaceTestSupport

/// The file history of earlier versions (`STATE/history/NAME/ID.entry`, format version 1) moved
/// into the database: once, whole entries only, damaged ones counted, the old folder removed.
@Suite("History migration")
struct HistoryMigrationTests {
  let root: URL
  var state: URL { root.appendingPathComponent("state") }
  var legacy: URL { state.appendingPathComponent("history") }
  let start = Date(timeIntervalSince1970: 1_796_000_000)

  init() throws {
    root = try makeTemporaryDirectory()
  }

  /// Writes one entry as the file history did: a metadata line, the request body, the response
  /// body inline, or in `ID.body` beside it (`separate`).
  @discardableResult
  func writeLegacy(
    _ name: String, exchange: Int, requestBody: String = "", body: [UInt8], separate: Bool = false
  ) throws -> (id: String, file: URL) {
    let seconds = start.timeIntervalSince1970 + Double(exchange)
    let id = "20261130T0\(exchange)0000.000000Z-\(exchange)-0000abcd"
    let folder = legacy.appendingPathComponent(name.replacingOccurrences(of: "/", with: "%2F"))
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let stored = separate ? "file" : "inline"
    let line =
      #"{"version":1,"id":"\#(id)","name":"\#(name)","exchange":\#(exchange),"state":"succeeded","queuedAt":\#(seconds - 0.01),"startedAt":\#(seconds - 0.005),"finishedAt":\#(seconds),"attempts":1,"fromCache":false,"deduplicated":false,"request":{"method":"POST","url":"http://127.0.0.1:8080/\#(name)","headers":[["Accept","*/*"]],"contentType":"text/plain","bodyBytes":\#(requestBody.utf8.count)},"response":{"status":201,"httpVersion":"HTTP/1.1","headers":[["Content-Type","application/octet-stream"]],"effectiveURL":"http://127.0.0.1:8080/\#(name)","redirectCount":0,"timing":{"dns":0,"connect":0.0001,"tls":0,"firstByte":0.002,"total":0.003},"bytesSent":5,"body":{"bytes":\#(body.count),"stored":"\#(stored)","storedBytes":\#(body.count)}},"error":null}"#
    var file = Array(line.utf8) + [0x0A] + Array(requestBody.utf8)
    if separate {
      try Data(body).write(to: folder.appendingPathComponent(id + ".body"))
    } else {
      file += body
    }
    let url = folder.appendingPathComponent(id + ".entry")
    try Data(file).write(to: url)
    return (id, url)
  }

  @Test func movesWholeEntriesSkipsDamagedOnesAndRemovesTheFolder() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    try writeLegacy("users/get", exchange: 1, body: Array(#"{"id":1}"#.utf8))
    try writeLegacy("users/create", exchange: 2, requestBody: "name=Ada", body: Array("created".utf8))
    let large = historyPattern(2_000_000)
    try writeLegacy("files/big", exchange: 3, body: large, separate: true)
    // Damaged: cut short, not JSON, its body file gone, a time of 1e300.
    let cut = try writeLegacy("users/get", exchange: 4, body: Array("0123456789".utf8))
    try Data(try Data(contentsOf: cut.file).dropLast(3)).write(to: cut.file)
    try Data("garbage\n".utf8).write(to: legacy.appendingPathComponent("users%2Fget/x.entry"))
    let orphan = try writeLegacy("files/big", exchange: 5, body: large, separate: true)
    try FileManager.default.removeItem(at: orphan.file.deletingPathExtension().appendingPathExtension("body"))
    let far = try writeLegacy("far", exchange: 6, body: [])
    try String(contentsOf: far.file, encoding: .utf8).replacingOccurrences(of: #""finishedAt":1796000006.0"#, with: #""finishedAt":1e300"#)
      .replacingOccurrences(of: #""finishedAt":1796000006"#, with: #""finishedAt":1e300"#)
      .write(to: far.file, atomically: true, encoding: .utf8)
    try Data("half".utf8).write(to: legacy.appendingPathComponent("users%2Fget/.x.entry.tmp-1234"))

    let store = HistoryStore(stateFolder: state)
    store.finishMigration()
    #expect(store.takeNotices() == ["moved 3 history entries from \(legacy.path) into \(state.path)/history.sqlite (4 damaged skipped)"])
    #expect(!FileManager.default.fileExists(atPath: legacy.path), "the old folder is gone")
    let entries = try store.entries()
    #expect(entries.map(\.name) == ["files/big", "users/create", "users/get"])
    #expect(try store.body(of: entries[0]) == large)
    #expect(try text(store.requestBody(of: entries[1])) == "name=Ada")
    #expect(try text(store.body(of: entries[1])) == "created")
    #expect(entries[1].status == 201 && entries[1].method == .POST && entries[1].requestContentType == "text/plain")
    #expect(entries[2].id == "20261130T010000.000000Z-1-0000abcd", "ids are kept")
    #expect(try store.entries(matching: HistoryQuery(text: "create")).entries.count == 1, "searchable")
  }

  /// A migration cut off (the process ended, or crashed) and run again adds nothing twice.
  @Test func aSecondRunAddsOnlyWhatIsNew() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    try writeLegacy("a", exchange: 1, body: Array("one".utf8))
    try writeLegacy("b", exchange: 2, body: historyPattern(1_500_000), separate: true)
    let copy = root.appendingPathComponent("copy")
    try FileManager.default.copyItem(at: legacy, to: copy)
    HistoryStore(stateFolder: state).finishMigration()
    // The same files again (as if the removal had not happened), and one more.
    try FileManager.default.moveItem(at: copy, to: legacy)
    try writeLegacy("a", exchange: 3, body: Array("three".utf8))
    let store = HistoryStore(stateFolder: state)
    store.finishMigration()
    #expect(try store.entries().map(\.exchangeID.rawValue) == [3, 2, 1])
    #expect(try store.body(of: try #require(try store.entries(for: "b").first)) == historyPattern(1_500_000))
  }

  /// `run` and the TUI do not wait for it: it happens on the writer thread, between commits.
  @Test func inTheBackgroundBesideNewEntries() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    for i in 1...30 { try writeLegacy("old", exchange: i, body: Array("old \(i)".utf8)) }
    let store = HistoryStore(stateFolder: state, limits: .init(perRequest: 20))
    store.startMigration()
    try store.record(historyExchange(id: 99, finishedAt: start + 100), name: "new")
    store.finishMigration()
    #expect(try store.entries(for: "new").count == 1)
    #expect(try store.entries(for: "old").count == 20, "pruned to the workspace's bound")
  }
}
