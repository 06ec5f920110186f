import Foundation
import Testing

@testable import RequestEngine
@testable import Workspace

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
  _ bytes: [UInt8], in directory: URL = FileManager.default.temporaryDirectory
) throws -> ResponseBody {
  let path = directory.appendingPathComponent("rb-spill-" + UUID().uuidString).path
  try Data(bytes).write(to: URL(fileURLWithPath: path))
  return .file(SpilledFile(path: path, size: bytes.count))
}

/// `count` bytes of a repeating pattern (never containing test secrets).
func historyPattern(_ count: Int) -> [UInt8] {
  (0..<count).map { UInt8(truncatingIfNeeded: $0 % 251) }
}

@Suite("History store")
struct HistoryStoreTests {
  let root: URL
  var folder: URL { root.appendingPathComponent("history") }

  init() throws {
    root = try makeTemporaryDirectory()
  }

  // MARK: - Recording and listing

  @Test func recordsAndListsNewestFirst() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(folder: folder)
    let start = Date(timeIntervalSince1970: 1_796_000_000)
    try store.record(historyExchange(id: 1, finishedAt: start), name: "get-user")
    try store.record(
      historyExchange(
        id: 2, url: "http://127.0.0.1:8080/status/500", state: .failed, status: 500,
        body: .memory(Array("status 500".utf8)),
        error: .status(500, accepted: Validation()), finishedAt: start + 1),
      name: "broken")
    try store.record(historyExchange(id: 3, finishedAt: start + 2), name: "get-user")

    let all = store.entries()
    #expect(all.map(\.name) == ["get-user", "broken", "get-user"])
    #expect(all.map(\.exchangeID.rawValue) == [3, 2, 1])
    #expect(store.entries(for: "get-user").map(\.exchangeID.rawValue) == [3, 1])
    #expect(store.entries(for: "nothing").isEmpty)
    #expect(store.names == ["broken", "get-user"])

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
  }

  @Test func aNewStoreReadsBackWhatWasRecorded() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(folder: folder)
    var headers: HTTPHeaders = ["Content-Type": "text/plain"]
    headers.add("Set-Cookie", "a=1")
    headers.add("Set-Cookie", "b=2")
    try store.record(
      historyExchange(
        id: 7, method: .POST, requestBody: .json(["name": "Ada"]), responseHeaders: headers),
      name: "users/create")
    try store.record(
      historyExchange(
        id: 8, state: .cancelled, status: nil, error: .cancelled), name: "users/create")

    let reopened = HistoryStore(folder: folder)
    #expect(reopened.entries() == store.entries())
    let created = try #require(reopened.entries().last)
    #expect(created.responseHeaders.values("Set-Cookie") == ["a=1", "b=2"])
    #expect(created.requestContentType == "application/json")
    #expect(try text(reopened.requestBody(of: created)) == #"{"name":"Ada"}"#)
    #expect(reopened.totalBytes == store.totalBytes)
    #expect(reopened.totalBytes == historyDiskUsage(folder))
  }

  @Test func cancelledExchangesWithoutAResponseAreRecorded() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(folder: folder)
    let queued = historyExchange(id: 4, state: .cancelled, status: nil, error: .cancelled)
    try store.record(queued, name: "slow")
    let entry = try #require(store.entries(for: "slow").first)
    #expect(entry.state == .cancelled)
    #expect(entry.status == nil)
    #expect(entry.bytes == 0)
    #expect(entry.error?.kind == .cancelled)
    #expect(try store.body(of: entry).isEmpty)
  }

  @Test func bodiesAreReadOnDemandWholeOrInSlices() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(folder: folder)
    let body = historyPattern(5000)
    try store.record(
      historyExchange(requestBody: .text("hello"), body: .memory(body)), name: "bytes")
    let entry = try #require(store.entries().first)
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

  @Test func requestNamesBecomeSafeFolderNames() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(folder: folder)
    let names = [
      "users/get", "../escape", ".hidden", "ünï cøde", "a%2Fb",
      String(repeating: "long/", count: 80),
      "",
    ]
    for (i, name) in names.enumerated() {
      try store.record(historyExchange(id: UInt64(i + 1)), name: name)
    }
    let folders = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    #expect(folders.count == names.count, "one folder per name: \(folders)")
    for name in folders {
      #expect(!name.hasPrefix("."))
      #expect(!name.contains("/"))
      #expect(name.utf8.count <= 120)
    }
    #expect(Set(HistoryStore(folder: folder).entries().map(\.name)) == Set(names))
    #expect(HistoryStore.folderName(for: "users/get") == "users%2Fget")
    #expect(HistoryStore.folderName(for: "get-user") == "get-user")
  }

  // MARK: - Large bodies

  @Test func bodiesAboveTheInlineLimitGoToTheirOwnFile() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(folder: folder)
    let small = historyPattern(1 << 20)
    let large = historyPattern((1 << 20) + 1)
    try store.record(historyExchange(id: 1, body: .memory(small)), name: "small")
    try store.record(historyExchange(id: 2, body: .memory(large)), name: "large")

    let files = historyFiles(folder)
    #expect(files.filter { $0.hasSuffix(".body") }.count == 1)
    #expect(files.contains { $0.hasPrefix("large/") && $0.hasSuffix(".body") })
    let largeEntry = try #require(store.entries(for: "large").first)
    let smallEntry = try #require(store.entries(for: "small").first)
    #expect(try store.body(of: largeEntry) == large)
    #expect(try store.body(of: smallEntry) == small)
    let entryFile = try #require(files.first { $0.hasPrefix("large/") && $0.hasSuffix(".entry") })
    let size = try FileManager.default.attributesOfItem(atPath: folder.path + "/" + entryFile)[
      .size]
    #expect(((size as? NSNumber)?.intValue ?? .max) < 4096, "the entry file holds no large body")
  }

  @Test func aSpilledBodyIsCopiedAndStaysWithTheResult() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(folder: folder)
    let bytes = historyPattern(3 << 20)
    let body = try historySpilledBody(bytes)
    guard case .file(let spilled) = body else { return }
    try store.record(historyExchange(body: body), name: "download")
    #expect(FileManager.default.fileExists(atPath: spilled.path), "the result still owns its file")
    let entry = try #require(store.entries().first)
    #expect(entry.bytes == bytes.count)
    #expect(try store.body(of: entry) == bytes)
    #expect(
      try store.body(of: entry, range: (2 << 20)..<((2 << 20) + 10))
        == Array(bytes[(2 << 20)..<((2 << 20) + 10)]))
  }

  /// A spilled body (above the agent's memory limit) is masked as it is copied in 1 MB chunks,
  /// a secret split across two chunks included; the entry records the stored size and survives
  /// the next scan.
  @Test func aSpilledBodyIsMaskedAsItIsCopied() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let secret = "spilled-s3cr3t"
    let mask = Array("••••".utf8)
    // One occurrence straddles the first 1 MB boundary, one is at the very end.
    let head = historyPattern((1 << 20) - 5)
    let middle = historyPattern(300_000)
    let received = head + Array(secret.utf8) + middle + Array(secret.utf8)
    let store = HistoryStore(folder: folder)
    try store.record(
      historyExchange(secrets: [secret], body: try historySpilledBody(received)), name: "download")

    for path in historyFiles(folder) {
      let bytes = try Array(Data(contentsOf: folder.appendingPathComponent(path)))
      #expect(bytes.firstRange(of: Array(secret.utf8)) == nil, "\(path) holds the secret")
    }
    let expected = head + mask + middle + mask
    let entry = try #require(HistoryStore(folder: folder).entries(for: "download").first)
    #expect(entry.bytes == received.count)
    #expect(entry.storedBodyBytes == expected.count)
    #expect(try store.body(of: entry) == expected)
    #expect(store.totalBytes == historyDiskUsage(folder))
  }

  @Test func theMaskerFindsSecretsAcrossChunks() {
    let secrets = ["abc", "abcdef", "xy"]
    let text = Array("--abcdef-abc-xabxy-abcde".utf8)
    let whole = SecretMasker.masked(text, secrets: secrets)
    #expect(String(decoding: whole, as: UTF8.self) == "--••••-••••-xab••••-••••de")
    // Every way of cutting the input into chunks gives the same bytes.
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
    try HistoryStore(folder: folder, limits: limits).record(
      historyExchange(body: .memory(historyPattern(2000))), name: "large")
    let entryFile = try #require(historyFiles(folder).first { $0.hasSuffix(".entry") })
    let bodyFile = try #require(historyFiles(folder).first { $0.hasSuffix(".body") })

    // Make it a 64 GB body (a sparse file: no disk used). Reading it would take minutes and
    // exhaust memory; listing it must only look at its size.
    let huge = 64 << 30
    let entryURL = folder.appendingPathComponent(entryFile)
    let entryText = try String(contentsOf: entryURL, encoding: .utf8)
    try entryText.replacingOccurrences(of: #""bytes":2000,"#, with: "\"bytes\":\(huge),")
      .replacingOccurrences(of: #""storedBytes":2000}"#, with: "\"storedBytes\":\(huge)}")
      .write(to: entryURL, atomically: false, encoding: .utf8)
    let handle = try FileHandle(forWritingTo: folder.appendingPathComponent(bodyFile))
    try handle.truncate(atOffset: UInt64(huge))
    try handle.close()

    let started = Date()
    let store = HistoryStore(folder: folder, limits: limits)
    let listed = try #require(store.entries().first)
    #expect(Date().timeIntervalSince(started) < 2)
    #expect(listed.bytes == huge)
    #expect(try store.body(of: listed, range: 0..<3) == [0, 1, 2])
    #expect(try store.body(of: listed, range: (huge - 2)..<(huge + 5)) == [0, 0])
  }

  @Test func aBodyLargerThanTheWholeHistoryIsNotKept() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(folder: folder, limits: .init(totalBytes: 100_000))
    try store.record(historyExchange(body: .memory(historyPattern(200_000))), name: "huge")
    let entry = try #require(store.entries().first)
    #expect(!entry.bodyKept)
    #expect(entry.bytes == 200_000)
    #expect(!historyFiles(folder).contains { $0.hasSuffix(".body") })
    #expect(throws: FileError.self) { try store.body(of: entry) }
    #expect(HistoryStore(folder: folder).entries().first?.bodyKept == false)
  }

  // MARK: - Bounds

  @Test func keepsTheNewestEntriesOfEachRequest() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(folder: folder, limits: .init(perRequest: 3))
    let start = Date(timeIntervalSince1970: 1_796_000_000)
    for i in 1...5 {
      try store.record(historyExchange(id: UInt64(i), finishedAt: start + Double(i)), name: "a")
    }
    for i in 6...7 {
      try store.record(historyExchange(id: UInt64(i), finishedAt: start + Double(i)), name: "b")
    }
    #expect(store.entries(for: "a").map(\.exchangeID.rawValue) == [5, 4, 3])
    #expect(store.entries(for: "b").map(\.exchangeID.rawValue) == [7, 6])
    #expect(historyFiles(folder).filter { $0.hasSuffix(".entry") }.count == 5)
    #expect(HistoryStore(folder: folder).entries() == store.entries())
  }

  @Test func keepsTheTotalSizeUnderItsLimitDroppingTheOldest() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let limits = HistoryStore.Limits(perRequest: 50, totalBytes: 20_000, inlineBodyLimit: 1000)
    let store = HistoryStore(folder: folder, limits: limits)
    let start = Date(timeIntervalSince1970: 1_796_000_000)
    for i in 1...30 {
      let name = ["a", "b", "c"][i % 3]
      try store.record(
        historyExchange(
          id: UInt64(i), body: .memory(historyPattern(3000)), finishedAt: start + Double(i)),
        name: name)
      #expect(store.totalBytes <= limits.totalBytes)
      #expect(historyDiskUsage(folder) == store.totalBytes)
    }
    let kept = store.entries().map(\.exchangeID.rawValue)
    #expect(kept.count >= 4)
    #expect(kept == Array(((31 - UInt64(kept.count))...30).reversed()), "the newest survive")
  }

  @Test func aZeroPerRequestLimitRecordsNothing() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(folder: folder, limits: .init(perRequest: 0))
    try store.record(historyExchange(), name: "a")
    #expect(store.entries().isEmpty)
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
    let store = HistoryStore(folder: folder)
    try store.record(
      historyExchange(
        url: "http://127.0.0.1:8080/users?api_key=\(token)",
        requestHeaders: ["Authorization": "Bearer \(token)", "X-Password": password],
        requestBody: .json(["password": .string(password)]), secrets: [token, password],
        state: .failed, status: 401, responseHeaders: responseHeaders,
        body: .memory(Array(#"{"error":"denied"}"#.utf8)),
        error: ExchangeError(kind: .status, message: "status 401 for token \(token)", status: 401)),
      name: "login")
    // A body that is not UTF-8 text, with the secret inside.
    try store.record(
      historyExchange(
        id: 2, method: .PUT,
        requestBody: RequestBody(
          bytes: [0xFF, 0xFE] + Array(password.utf8) + [0x00],
          contentType: "application/octet-stream"),
        secrets: [password]),
      name: "upload")

    for path in historyFiles(folder) {
      let bytes = try Array(Data(contentsOf: folder.appendingPathComponent(path)))
      for secret in [token, password] {
        #expect(
          bytes.firstRange(of: Array(secret.utf8)) == nil, "\(path) holds the secret \(secret)")
      }
    }
    let login = try #require(store.entries(for: "login").first)
    #expect(login.url == "http://127.0.0.1:8080/users?api_key=••••")
    #expect(login.requestHeaders["Authorization"] == "Bearer ••••")
    #expect(login.responseHeaders["Set-Cookie"] == "session=••••; HttpOnly")
    #expect(login.error?.message == "status 401 for token ••••")
    #expect(try text(store.requestBody(of: login)) == #"{"password":"••••"}"#)
  }

  /// A server echoing a secret back: the stored body is masked (so shorter or longer than the
  /// received one), and the entry, inline or with its body in a file of its own, survives the
  /// next scan of the folder.
  @Test func anEchoedSecretIsMaskedAndTheEntrySurvivesTheNextScan() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let secret = "echoed-s3cr3t-value"
    let limits = HistoryStore.Limits(inlineBodyLimit: 1000)
    let small = Array(#"{"headers":{"X-Token":"\#(secret)"}}"#.utf8)
    let large = historyPattern(600) + Array(secret.utf8) + historyPattern(600) + Array(secret.utf8)
    let store = HistoryStore(folder: folder, limits: limits)
    let start = Date(timeIntervalSince1970: 1_796_000_000)
    try store.record(
      historyExchange(id: 1, secrets: [secret], body: .memory(small), finishedAt: start), name: "small")
    try store.record(
      historyExchange(id: 2, secrets: [secret], body: .memory(large), finishedAt: start + 1),
      name: "large")

    for path in historyFiles(folder) {
      let bytes = try Array(Data(contentsOf: folder.appendingPathComponent(path)))
      #expect(bytes.firstRange(of: Array(secret.utf8)) == nil, "\(path) holds the secret")
    }
    #expect(historyFiles(folder).contains { $0.hasSuffix(".body") })

    // A second store reads the folder afresh, checking each entry against its files.
    let reread = HistoryStore(folder: folder, limits: limits)
    let smallEntry = try #require(reread.entries(for: "small").first)
    let largeEntry = try #require(reread.entries(for: "large").first)
    #expect(smallEntry.bytes == small.count)
    #expect(largeEntry.bytes == large.count)
    let maskedSmall = #"{"headers":{"X-Token":"••••"}}"#
    #expect(smallEntry.storedBodyBytes == maskedSmall.utf8.count)
    #expect(try text(reread.body(of: smallEntry)) == maskedSmall)
    let maskedLarge =
      historyPattern(600) + Array("••••".utf8) + historyPattern(600) + Array("••••".utf8)
    #expect(try reread.body(of: largeEntry) == maskedLarge)
    #expect(try reread.body(of: largeEntry, range: 600..<612) == Array("••••".utf8))
    #expect(reread.totalBytes == historyDiskUsage(folder))
    #expect(historyFiles(folder).count == 3)
  }

  // MARK: - Damage

  @Test func corruptAndTruncatedFilesAreIgnoredAndRemoved() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let limits = HistoryStore.Limits(inlineBodyLimit: 100)
    let store = HistoryStore(folder: folder, limits: limits)
    let start = Date(timeIntervalSince1970: 1_796_000_000)
    for i in 1...5 {
      try store.record(
        historyExchange(
          id: UInt64(i), body: .memory(historyPattern(i == 4 ? 500 : 50)),
          finishedAt: start + Double(i)),
        name: "r")
    }
    let entries = store.entries()
    let request = folder.appendingPathComponent("r")
    func entryFile(_ i: Int) -> URL { request.appendingPathComponent(entries[5 - i].id + ".entry") }

    // 1: cut in the middle of its metadata line; 2: its body cut short; 3: not JSON at all;
    // 4: its body file gone; 5: intact.
    let first = try Data(contentsOf: entryFile(1))
    try first.prefix(first.count / 3).write(to: entryFile(1))
    let second = try Data(contentsOf: entryFile(2))
    try second.dropLast(7).write(to: entryFile(2))
    try Data("garbage\n\u{0}\u{1}".utf8).write(to: entryFile(3))
    try FileManager.default.removeItem(atPath: entries[1].bodyPath)
    // Stray files: a temporary file of an interrupted write, an orphaned body, something else,
    // and an entry from a newer reqbench.
    let temporary = request.appendingPathComponent(".x.entry.tmp-1234abcd")
    let orphan = request.appendingPathComponent("20200101T000000.000000Z-1-00000000.body")
    let notes = request.appendingPathComponent("notes.txt")
    let newer = request.appendingPathComponent("20300101T000000.000000Z-1-00000000.entry")
    try Data("half".utf8).write(to: temporary)
    try Data("orphan".utf8).write(to: orphan)
    try Data("mine".utf8).write(to: notes)
    try Data(#"{"version":99,"id":"20300101T000000.000000Z-1-00000000"}"#.utf8 + [0x0A]).write(
      to: newer)

    let rebuilt = HistoryStore(folder: folder, limits: limits, strayFileGrace: 0)
    #expect(rebuilt.entries().map(\.exchangeID.rawValue) == [5])
    let left = Set(historyFiles(folder))
    #expect(
      left == [
        "r/\(entries[0].id).entry", "r/notes.txt", "r/20300101T000000.000000Z-1-00000000.entry",
      ])

    try rebuilt.record(historyExchange(id: 6, finishedAt: start + 6), name: "r")
    #expect(rebuilt.entries().map(\.exchangeID.rawValue) == [6, 5])
    #expect(HistoryStore(folder: folder).entries().map(\.exchangeID.rawValue) == [6, 5])
  }

  @Test func youngStrayFilesAreLeftForTheWriterThatMayOwnThem() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    try HistoryStore(folder: folder).record(historyExchange(), name: "r")
    let request = folder.appendingPathComponent("r")
    let temporary = request.appendingPathComponent(".x.entry.tmp-1234abcd")
    let orphan = request.appendingPathComponent("20200101T000000.000000Z-1-00000000.body")
    try Data("half".utf8).write(to: temporary)
    try Data("orphan".utf8).write(to: orphan)
    #expect(HistoryStore(folder: folder).entries().count == 1)
    #expect(FileManager.default.fileExists(atPath: temporary.path))
    #expect(FileManager.default.fileExists(atPath: orphan.path))
  }

  @Test func aMissingOrUnreadableFolderIsAnEmptyHistory() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    #expect(HistoryStore(folder: folder).entries().isEmpty)
    #expect(!FileManager.default.fileExists(atPath: folder.path), "listing creates nothing")
    try Data("not a folder".utf8).write(to: folder)
    let store = HistoryStore(folder: folder)
    #expect(store.entries().isEmpty)
    #expect(throws: FileError.self) { try store.record(historyExchange(), name: "r") }
  }

  // MARK: - Threads

  @Test func recordsFromManyThreadsAtOnce() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(folder: folder, limits: .init(perRequest: 15))
    let failures = HistoryFailureCounter()
    DispatchQueue.concurrentPerform(iterations: 8) { thread in
      for i in 0..<20 {
        do {
          try store.record(
            historyExchange(id: UInt64(thread * 100 + i)), name: "r\(thread % 4)")
        } catch {
          failures.increment()
        }
        _ = store.entries()
      }
    }
    #expect(failures.value == 0)
    #expect(store.entries().count == 4 * 15)
    #expect(HistoryStore(folder: folder).entries().count == 4 * 15)
    #expect(historyFiles(folder).count == 4 * 15)
  }

  @Test func recordsInTheBackgroundInOrder() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let store = HistoryStore(folder: folder, limits: .init(perRequest: 5))
    let failures = HistoryFailureCounter()
    let start = Date(timeIntervalSince1970: 1_796_000_000)
    for i in 1...8 {
      store.recordInBackground(
        historyExchange(id: UInt64(i), finishedAt: start + Double(i)), name: "r",
        failed: { _ in failures.increment() })
    }
    store.waitForBackgroundRecords()
    #expect(failures.value == 0)
    #expect(store.entries().map(\.exchangeID.rawValue) == [8, 7, 6, 5, 4])

    try Data("a file where the history folder should be".utf8).write(
      to: root.appendingPathComponent("blocked"))
    let blocked = HistoryStore(folder: root.appendingPathComponent("blocked/history"))
    blocked.recordInBackground(historyExchange(), name: "r", failed: { _ in failures.increment() })
    blocked.waitForBackgroundRecords()
    #expect(failures.value == 1)
  }

  // MARK: - The state folder

  @Test func theStateFolderIsBesideTheWorkspace() {
    let file = URL(fileURLWithPath: "/srv/api/workspaces/demo.json")
    #expect(
      StateFolder.url(forWorkspace: file, override: nil).path
        == "/srv/api/workspaces/.reqbench/demo")
    #expect(
      StateFolder.url(forWorkspace: file, override: URL(fileURLWithPath: "/tmp/state")).path
        == "/tmp/state")
    #expect(
      StateFolder.history(in: URL(fileURLWithPath: "/tmp/state")).path == "/tmp/state/history")
    #expect(
      StateFolder.url(forWorkspace: URL(fileURLWithPath: "/a/b/../api.JSON"), override: nil).path
        == "/a/.reqbench/api")
  }
}

final class HistoryFailureCounter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  func increment() { lock.withLock { count += 1 } }
  var value: Int { lock.withLock { count } }
}
