import Foundation
@testable import RequestEngine
import TestSupport
import Testing
@testable import History
@testable import Workspace
import WorkspaceTestSupport

/// Where history keeps bodies: inline up to the limit, in files beyond it (copied, masked, or
/// linked when the agent spilled them nameless), read whole or in slices, never by a listing.
@Suite("History store: bodies")
struct HistoryBodyTests {
  let root: URL
  /// The state folder: `history.sqlite` and `history-bodies/` go in it.
  var folder: URL { root.appendingPathComponent("state") }

  init() throws {
    root = try makeTemporaryDirectory()
  }

  @Test func bodiesAreReadOnDemandWholeOrInSlices() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(stateFolder: folder)
    let body = historyPattern(5000)
    try store.record(historyExchange(requestBody: .text("hello"), body: .memory(body)), name: "bytes")
    let entry = try #require(try store.entries().first)
    #expect(try store.body(of: entry) == body)
    #expect(try store.body(of: entry, range: 100..<200) == Array(body[100..<200]))
    #expect(try store.body(of: entry, range: 4990..<9000) == Array(body[4990...]))
    #expect(try text(store.requestBody(of: entry)) == "hello")

    let again = try store.request(of: entry)
    #expect(again.method == .GET)
    #expect(again.url == entry.url)
    #expect(again.headers == entry.requestHeaders)
    #expect(again.body == .text("hello"))
  }

  @Test func bodiesAboveTheInlineLimitGoToTheirOwnFile() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(stateFolder: folder)
    let small = historyPattern(1 << 20)
    let large = historyPattern((1 << 20) + 1)
    try store.record(historyExchange(id: 1, body: .memory(small)), name: "small")
    try store.record(historyExchange(id: 2, body: .memory(large)), name: "large")

    let largeEntry = try #require(try store.entries(for: "large").first)
    let smallEntry = try #require(try store.entries(for: "small").first)
    #expect(historyFiles(folder.appendingPathComponent("history-bodies")) == [largeEntry.id + ".body"])
    #expect(try store.body(of: largeEntry) == large)
    #expect(try store.body(of: smallEntry) == small)
    #expect(try store.body(of: largeEntry, range: (1 << 20)..<((1 << 20) + 5)) == Array(large[(1 << 20)...]))
  }

  @Test func aSpilledBodyIsCopiedAndStaysWithTheResult() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(stateFolder: folder)
    let bytes = historyPattern(3 << 20)
    let body = try historySpilledBody(bytes)
    guard case .file(let spilled) = body else {
      Issue.record("a 3 MB body was not spilled to a file: \(body)")
      return
    }
    try store.record(historyExchange(body: body), name: "download")
    #expect(FileManager.default.fileExists(atPath: spilled.path), "the result still owns its file")
    let entry = try #require(try store.entries().first)
    #expect(entry.bytes == bytes.count)
    #expect(try store.body(of: entry) == bytes)
    #expect(
      try store.body(of: entry, range: (2 << 20)..<((2 << 20) + 10))
        == Array(bytes[(2 << 20)..<((2 << 20) + 10)]))
  }

  /// A spilled body the agent made nameless (`O_TMPFILE`, beside the history) with nothing to
  /// mask becomes the entry's body file by a link: the same file, not a copy, whole, and kept
  /// after the result lets go of it. With a secret to mask it is copied (masked) instead.
  @Test func aNamelessSpilledBodyIsLinkedNotCopied() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let bytes = historyPattern((2 << 20) + 17)
    func nameless(_ content: [UInt8]) throws -> SpilledFile {
      let fd = try #require(SpilledFile.createAnonymous(in: folder.path))
      #expect(content.withUnsafeBytes { SpilledFile.writeAll(fd, $0) })
      return SpilledFile(descriptor: fd, size: content.count)
    }
    func inode(_ path: String) -> ino_t? {
      var info = stat()
      return stat(path, &info) == 0 ? info.st_ino : nil
    }
    let store = HistoryStore(stateFolder: folder)
    var spilled: SpilledFile? = try nameless(bytes)
    try store.record(historyExchange(body: .file(spilled!)), name: "stream")
    let entry = try #require(try store.entries().first)
    let bodyFile = folder.appendingPathComponent("history-bodies/\(entry.id).body").path
    #expect(inode(bodyFile) != nil && inode(bodyFile) == inode(spilled!.path), "linked, not copied")
    spilled = nil  // the result lets go of its file: the history's name keeps it
    #expect(try store.body(of: entry) == bytes)
    #expect(historyFiles(folder).filter { !$0.hasPrefix("history") && $0 != ".gitignore" }.isEmpty, "no other file made")

    let secret = "linked-s3cr3t"
    let withSecret = try nameless(bytes + Array(secret.utf8))
    try store.record(historyExchange(id: 2, secrets: [secret], body: .file(withSecret)), name: "masked")
    let masked = try #require(try store.entries(for: "masked").first)
    let maskedFile = folder.appendingPathComponent("history-bodies/\(masked.id).body").path
    #expect(inode(maskedFile) != inode(withSecret.path))
    #expect(try store.body(of: masked) == bytes + Array("••••".utf8))
    expectNoFileHolds([secret], under: folder)
  }

  /// A spilled body (above the agent's memory limit) is masked as it is copied in 1 MB chunks,
  /// a secret split across two chunks included; the entry records the stored size.
  @Test func aSpilledBodyIsMaskedAsItIsCopied() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let secret = "spilled-s3cr3t"
    let mask = Array("••••".utf8)
    let head = historyPattern((1 << 20) - 5)
    let middle = historyPattern(300_000)
    let received = head + Array(secret.utf8) + middle + Array(secret.utf8)
    let store = HistoryStore(stateFolder: folder)
    try store.record(historyExchange(secrets: [secret], body: try historySpilledBody(received)), name: "download")
    expectNoFileHolds([secret], under: folder)
    let expected = head + mask + middle + mask
    let entry = try #require(try HistoryStore(stateFolder: folder).entries(for: "download").first)
    #expect(entry.bytes == received.count)
    #expect(entry.storedBodyBytes == expected.count)
    #expect(try store.body(of: entry) == expected)
  }

  @Test func theMaskerFindsSecretsAcrossChunks() {
    let secrets = ["abc", "abcdef", "xy"]
    let text = Array("--abcdef-abc-xabxy-abcde".utf8)
    let whole = SecretMasker.masked(text, secrets: secrets)
    #expect(String(decoding: whole, as: UTF8.self) == "--••••-••••-xab••••-••••de")
    for size in 1...text.count {
      var masker = SecretMasker(secrets: secrets)
      var out: [UInt8] = []
      for start in stride(from: 0, to: text.count, by: size) {
        out += masker.feed(text[start..<min(start + size, text.count)])
      }
      out += masker.finish()
      #expect(out == whole, "chunks of \(size)")
    }
    #expect(SecretMasker.masked(text, secrets: []) == text)
  }

  @Test func listingNeverReadsABodyFile() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let limits = HistoryStore.Limits(inlineBodyLimit: 10)
    try HistoryStore(stateFolder: folder, limits: limits).record(
      historyExchange(body: .memory(historyPattern(2000))), name: "large")
    let bodyFile = try #require(historyFiles(folder).first { $0.hasSuffix(".body") })
    // Make it a 64 GB body (a sparse file: no disk used). Reading it would take minutes and
    // exhaust memory; listing it must only look at the row.
    let huge = 64 << 30
    try historyDatabase(folder).execute("UPDATE entries SET bytes = \(huge), stored_body_bytes = \(huge)")
    let handle = try FileHandle(forWritingTo: folder.appendingPathComponent(bodyFile))
    try handle.truncate(atOffset: UInt64(huge))
    try handle.close()

    let started = Date()
    let store = HistoryStore(stateFolder: folder, limits: limits)
    let listed = try #require(try store.entries().first)
    #expect(Date().timeIntervalSince(started) < 2)
    #expect(listed.bytes == huge)
    #expect(try store.body(of: listed, range: 0..<3) == [0, 1, 2])
    #expect(try store.body(of: listed, range: (huge - 2)..<(huge + 5)) == [0, 0])
  }

  @Test func aBodyLargerThanTheWholeHistoryIsNotKept() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(stateFolder: folder, limits: .init(totalBytes: 100_000))
    try store.record(historyExchange(body: .memory(historyPattern(200_000))), name: "huge")
    let entry = try #require(try store.entries().first)
    #expect(!entry.bodyKept)
    #expect(entry.bytes == 200_000)
    #expect(!historyFiles(folder).contains { $0.hasSuffix(".body") })
    #expect(throws: FileError.self) { try store.body(of: entry) }
    #expect(try HistoryStore(stateFolder: folder).entries().first?.bodyKept == false)
  }

}
