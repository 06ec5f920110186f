import Foundation
@testable import RequestEngine
import TestSupport
import Testing
@testable import History
@testable import Workspace
import WorkspaceTestSupport

/// The history writer's timing: entries inserted chunk by chunk into one open transaction, and
/// the checkpoints of the WAL kept off a process's exit.
@Suite("History writer")
struct HistoryWriterTests {
  let root: URL
  var folder: URL { root.appendingPathComponent("state") }

  init() throws {
    root = try makeTemporaryDirectory()
  }

  /// Entries handed over a few at a time go into one open transaction chunk by chunk: a request
  /// that crosses its bound in a later chunk is pruned in the same transaction, the counts add
  /// up, and closing the store commits what is open.
  @Test func entriesInsertedChunkByChunkCommitWithinTheirBounds() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let start = Date(timeIntervalSince1970: 1_796_000_000)
    let store = HistoryStore(stateFolder: folder, limits: .init(perRequest: 30))
    let failures = HistoryFailureCounter()
    // 160 entries of 4 requests, 8 per hand-over: several chunks, each request 10 over the bound.
    for handOver in 0..<20 {
      store.recordInBackground(
        (0..<8).map { i in
          let n = handOver * 8 + i
          return (historyExchange(id: UInt64(n + 1), finishedAt: start + Double(n)), "r\(n % 4)")
        }, failed: { _ in failures.increment() })
    }
    store.waitForBackgroundRecords()
    #expect(failures.value == 0)
    for request in 0..<4 {
      let kept = try store.entries(for: "r\(request)").map(\.exchangeID.rawValue)
      #expect(kept == (0..<30).map { UInt64(160 - 4 * $0 - (3 - request)) })
    }
    let db = try historyDatabase(folder)
    #expect(try db.integer("SELECT entries FROM totals") == 120)
    #expect(try db.integer("SELECT sum(entries) FROM names") == 120)
    #expect(try db.integer("SELECT count(*) FROM entries") == 120)

    // Closing without waiting commits the open transaction.
    store.recordInBackground(
      (161...170).map { (historyExchange(id: UInt64($0), finishedAt: start + Double($0)), "late") },
      failed: { _ in failures.increment() })
    store.close()
    #expect(failures.value == 0)
    #expect(try HistoryStore(stateFolder: folder).entries(for: "late").count == 10)
  }

  /// A process that records megabytes and ends leaves its WAL to the next one, which copies it
  /// into the database when it first opens it; a process that stays checkpoints once idle.
  @Test func aLongWALIsCheckpointedByTheNextProcessOrOnceIdle() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let database = folder.appendingPathComponent("history.sqlite").path

    // 6 MB recorded, then closed at once: the bodies are in the WAL, not yet in the database.
    let first = HistoryStore(stateFolder: folder, limits: .init(perRequest: 1000))
    recordBigBodies(first, from: 1)
    first.close()
    #expect(fileSize(database + "-wal") > HistoryWriter.checkpointBytes)
    #expect(fileSize(database) < 1 << 20)

    // The next process copies them in when it opens the database.
    let second = HistoryStore(stateFolder: folder, limits: .init(perRequest: 1000))
    second.prepareForRecording()
    #expect(fileGrows(database, over: 5 << 20))

    // 6 MB more, and the store stays open: checkpointed about a second after the last commit.
    let before = fileSize(database)
    recordBigBodies(second, from: 31)
    #expect(fileSize(database) == before)
    #expect(fileGrows(database, over: before + (5 << 20)))
    #expect(try second.entries(for: "big").count == 60)
    second.close()
  }

  /// A WAL past `longWALBytes` is checkpointed before more entries go in, with no second to
  /// wait for (a run of many thousands never has one).
  @Test func aWALPastItsBoundIsCheckpointedBeforeMoreGoesIn() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let database = folder.appendingPathComponent("history.sqlite").path
    let store = HistoryStore(stateFolder: folder, limits: .init(perRequest: 1000))
    // Three hand-overs of 6 MB take the WAL past 16 MB; the fourth goes in after the checkpoint.
    for handOver in 0..<4 { recordBigBodies(store, from: 1 + 30 * handOver) }
    #expect(HistoryWriter.longWALBytes < 18 << 20)
    #expect(fileSize(database) > 15 << 20)
    #expect(try store.entries(for: "big").count == 120)
    store.close()
  }
}

private func fileSize(_ path: String) -> Int {
  ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? NSNumber)?.intValue ?? 0
}

/// Waits (up to 5 s) until the file at `path` holds more than `bytes`.
private func fileGrows(_ path: String, over bytes: Int) -> Bool {
  for _ in 0..<100 {
    if fileSize(path) > bytes { return true }
    Thread.sleep(forTimeInterval: 0.05)
  }
  return false
}

/// Records 30 entries of 200 KB bodies (6 MB) and waits for their commit.
private func recordBigBodies(_ store: HistoryStore, from first: Int) {
  let start = Date(timeIntervalSince1970: 1_796_000_000)
  let body = historyPattern(200_000)
  store.recordInBackground(
    (first..<first + 30).map {
      (historyExchange(id: UInt64($0), body: .memory(body), finishedAt: start + Double($0)), "big")
    })
  store.waitForBackgroundRecords()
}
