import Foundation
import Testing
@testable import History
@testable import Workspace
import WorkspaceTestSupport

/// `SQLiteStatement.run`'s binding: texts and blobs gathered in one buffer reused from row to
/// row and bound without SQLite copying them (`SQLITE_STATIC`), read back from a real database.
@Suite("SQLite binding")
struct SQLiteBindingTests {
  private func database() throws -> (SQLiteConnection, URL) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rb-sqlite-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let db = try SQLiteConnection(path: folder.path + "/t.sqlite", create: true)
    try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b BLOB, c INTEGER, d REAL)")
    return (db, folder)
  }

  private func rows(_ db: SQLiteConnection) throws -> [[String]] {
    var rows: [[String]] = []
    try db.statement("SELECT a, typeof(a), b, typeof(b), c, d FROM t ORDER BY id").forEachRow { row in
      rows.append([
        row.text(0) ?? "nil", row.text(1) ?? "", String(decoding: row.blob(2), as: UTF8.self), row.text(3) ?? "",
        row.int64(4).map(String.init) ?? "nil", row.double(5).map { String($0) } ?? "nil",
      ])
    }
    return rows
  }

  @Test func rowsBoundOneAfterTheOtherKeepTheirOwnBytes() throws {
    let (db, folder) = try database()
    defer { try? FileManager.default.removeItem(at: folder) }
    let insert = try db.statement("INSERT INTO t (a, b, c, d) VALUES (?, ?, ?, ?)")
    // A long row, then shorter ones: the buffer is reused and each row reads only its own bytes.
    let long = String(repeating: "héllo ", count: 2_000)
    try insert.run([.text(long), .blob(Array(long.utf8)), .integer(1), .real(0.5)])
    try insert.run([.text("short"), .blob([0x61, 0x62]), .integer(2), .null])
    // Empty text and an empty blob stay empty (a NULL pointer would bind NULL); nil binds NULL.
    try insert.run([.text(""), .blob([]), .null, .real(-1)])
    try insert.run { (row: inout SQLiteBinder) throws(SQLiteError) in
      row.text { $0.append(contentsOf: "writ".utf8); $0.append(contentsOf: "ten".utf8) }
      try row.blob(nil)
      try row.integer(Int64(4))
      try row.real(nil)
    }
    #expect(
      try rows(db) == [
        [long, "text", long, "blob", "1", "0.5"],
        ["short", "text", "ab", "blob", "2", "nil"],
        ["", "text", "", "blob", "nil", "-1.0"],
        ["written", "text", "", "null", "4", "nil"],
      ])
  }

  @Test func aFailedStepIsThrownAndTheStatementStaysUsable() throws {
    let (db, folder) = try database()
    defer { try? FileManager.default.removeItem(at: folder) }
    try db.execute("CREATE TABLE u (k TEXT UNIQUE)")
    let insert = try db.statement("INSERT INTO u (k) VALUES (?)")
    try insert.run([.text("x")])
    #expect(throws: SQLiteError.self) { try insert.run([.text("x")]) }
    try insert.run([.text("y")])
    #expect(try db.integer("SELECT count(*) FROM u") == 2)
  }
}
