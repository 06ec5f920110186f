import Foundation
import TestSupport
import Testing

@testable import RequestEngine
@testable import Workspace

#if canImport(Glibc)
  import Glibc
#endif

/// A process recording history is killed with SIGKILL at random moments; every entry left must be
/// whole. The child is this same test binary running this same test with
/// `REQBENCH_HISTORY_CRASH_CHILD` set: it then records into that folder until it is killed.
@Suite("History crash safety")
struct HistoryCrashTests {
  static let childVariable = "REQBENCH_HISTORY_CRASH_CHILD"
  static let limits = HistoryStore.Limits(
    perRequest: 4, totalBytes: 6 << 20, inlineBodyLimit: 64 << 10)

  @Test func entriesSurviveKill9AtAnyMoment() throws {
    if let folder = ProcessInfo.processInfo.environment[Self.childVariable] {
      Self.recordUntilKilled(into: URL(fileURLWithPath: folder))
    }
    let root = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    let folder = root.appendingPathComponent("history")
    for round in 0..<20 {
      // The first round waits for some history to exist; later ones kill at random moments.
      let killed = try killChildTest(
        suite: "HistoryCrashTests", environment: [Self.childVariable: folder.path],
        when: { round > 0 || historyFiles(folder).contains { $0.hasSuffix(".entry") } },
        pause: round == 0 ? 200_000...200_000 : 150_000...900_000)
      #expect(killed, "round \(round): the child was killed")

      // Every entry file on disk is whole: a store that reads them drops none.
      let entryFiles = historyFiles(folder).filter {
        $0.hasSuffix(".entry") && !($0.split(separator: "/").last ?? "").hasPrefix(".")
      }
      let listed = HistoryStore(folder: folder, limits: Self.limits).entries()
      #expect(listed.count == entryFiles.count, "round \(round): an entry file was not whole")
    }

    // Stray files of interrupted writes are cleaned up, never listed; every body reads back.
    let store = HistoryStore(folder: folder, limits: Self.limits, strayFileGrace: 0)
    let entries = store.entries()
    #expect(!entries.isEmpty, "the child recorded something")
    let files = historyFiles(folder)
    #expect(!files.contains { $0.contains(".tmp-") }, "temporary files are removed")
    let ids = Set(entries.map(\.id))
    for file in files {
      let name = String(file.split(separator: "/").last ?? "")
      let id = name.replacingOccurrences(of: ".entry", with: "")
        .replacingOccurrences(of: ".body", with: "")
      #expect(ids.contains(id), "\(file) belongs to no entry")
    }
    for entry in entries {
      #expect(try store.body(of: entry) == historyPattern(entry.bytes), "\(entry.id)")
    }
    try store.record(historyExchange(), name: "after")
    #expect(store.entries(for: "after").count == 1)
  }

  /// The child: small, separate and spilled bodies into three requests, pruning as it goes.
  static func recordUntilKilled(into folder: URL) -> Never {
    let store = HistoryStore(folder: folder, limits: limits)
    // Spilled bodies beside the history, so the parent removes the ones a kill leaves behind.
    let spillFolder = folder.deletingLastPathComponent().appendingPathComponent("spill")
    try? FileManager.default.createDirectory(at: spillFolder, withIntermediateDirectories: true)
    let spilled = historyPattern(1_500_000)
    let separate = historyPattern(300_000)
    let small = historyPattern(5000)
    var i: UInt64 = 0
    while true {
      i += 1
      let body: ResponseBody
      switch i % 4 {
      case 0: body = (try? historySpilledBody(spilled, in: spillFolder)) ?? .empty
      case 1: body = .memory(separate)
      default: body = .memory(Array(small.prefix(Int(i % 5000))))
      }
      try? store.record(historyExchange(id: i, body: body), name: "r\(i % 3)")
      usleep(1000)  // leave some of the CPU to the tests running beside this one
    }
  }
}
