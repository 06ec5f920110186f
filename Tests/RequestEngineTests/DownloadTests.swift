import Digest
import Foundation
@testable import RequestEngine
import TestSupport
import Testing

/// Engine scenario "Resumable downloads (the core of the engine)", against the fixture's
/// deterministic `/bytes/{n}` (validators, Range, faults) and nginx.
@Suite("Resumable downloads", .serialized)
struct DownloadTests {
  /// A scratch folder with a download state folder and a target folder inside.
  final class Scratch {
    let root: String
    let store: DownloadStore
    init() {
      root = scratchURL("reqbench-dl").path
      try? FileManager.default.createDirectory(atPath: root + "/out", withIntermediateDirectories: true)
      store = DownloadStore(directory: root + "/state")
    }
    deinit { try? FileManager.default.removeItem(atPath: root) }

    func agent() -> Agent {
      Agent(configuration: Agent.Configuration(progressInterval: 0.01, downloads: store))
    }
    func target(_ name: String = "file.bin") -> String { root + "/out/" + name }
  }

  /// The sha256 of what a plain GET of `url` returns (the fixture's content is deterministic).
  func expectedDigest(_ url: String) throws -> String {
    let result = Agent().sendAndWait(Request(url: url))
    #expect(result.state == .succeeded)
    return SHA256.hex(try #require(result.response).body.bytes())
  }

  func digest(ofFile path: String) throws -> String {
    SHA256.hex(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
  }

  func download(_ url: String, to target: String, sha256: String? = nil, retry: RetryPolicy? = nil) -> Request {
    Request(name: "dl", url: url, retry: retry, download: DownloadTarget(path: target, sha256: sha256))
  }

  /// Sends `request` and cancels it once its progress passes `fraction` of the total.
  func cancelPartWay(_ agent: Agent, _ request: Request, at fraction: Double) throws -> ExchangeResult {
    let recorder = EventRecorder(agent)
    let id = agent.send(request)
    let reached = recorder.wait(timeout: 20) { events in
      events.contains { event in
        guard case .progress(let eventID, let progress) = event, eventID == id, let total = progress.downloadTotal
        else { return false }
        return Double(progress.downloaded) >= Double(total) * fraction
      }
    }
    #expect(reached)
    agent.cancel(id)
    #expect(recorder.waitForFinished(count: 1))
    return try #require(recorder.finished.first)
  }

  func logEntries(_ key: String) throws -> [JSONValue] {
    try #require(try fixtureJSON("/log?key=\(key)").arrayValue)
  }

  // Cancel at ~40%, resume with Range + If-Range from the bytes on disk, absolute progress,
  // state removed on success, nothing at the target before the end.
  @Test func cancelThenResumeContinuesFromTheBytesOnDisk() throws {
    let scratch = Scratch()
    let key = uniqueKey()
    let size = 8_000_000
    let url = try fixture("/bytes/\(size)?seed=dl1&rate=16000000&key=\(key)")
    let expected = try expectedDigest(try fixture("/bytes/\(size)?seed=dl1"))
    let target = scratch.target()
    let agent = scratch.agent()

    let first = try cancelPartWay(agent, download(url, to: target), at: 0.4)
    #expect(first.state == .cancelled)
    let partial = try #require(first.download)
    #expect(partial.resumable)
    #expect(partial.bytes >= Int64(size) * 4 / 10 && partial.bytes < Int64(size))
    #expect(partial.totalBytes == Int64(size))
    #expect(!FileManager.default.fileExists(atPath: target))
    #expect(scratch.store.pending().first?.bytesOnDisk == partial.bytes)

    let recorder = EventRecorder(agent)
    let second = agent.sendAndWait(download(url, to: target))
    #expect(second.state == .succeeded, "\(second.error?.message ?? "")")
    let done = try #require(second.download)
    #expect(done.complete && done.resumedFrom == partial.bytes && done.restartReason == nil)
    #expect(done.bytes == Int64(size))
    #expect(try digest(ofFile: target) == expected)
    #expect(scratch.store.pending().isEmpty)
    #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.store.directory).isEmpty)

    let log = try logEntries(key)
    #expect(log.count == 2)
    #expect(log[1]["headers"]?["Range"] == .string("bytes=\(partial.bytes)-"))
    #expect(log[1]["headers"]?["If-Range"]?.stringValue?.hasPrefix("\"") == true)
    // Progress is absolute: from the bytes on disk, of the full length.
    let progress = recorder.all.compactMap { event -> TransferProgress? in
      if case .progress(second.id, let p) = event { p } else { nil }
    }
    #expect(!progress.isEmpty)
    #expect(progress.allSatisfy { $0.downloaded >= partial.bytes && $0.downloadTotal == Int64(size) })
  }

  // Cancel, then restart at once: the state was saved before the cancel was reported.
  @Test func restartingImmediatelyAfterACancelResumes() throws {
    let scratch = Scratch()
    let url = try fixture("/bytes/4000000?seed=dl16&rate=8000000")
    let target = scratch.target()
    let agent = scratch.agent()
    let first = try cancelPartWay(agent, download(url, to: target), at: 0.3)
    let second = agent.sendAndWait(download(url, to: target))
    #expect(second.state == .succeeded)
    #expect(second.download?.resumedFrom == first.download?.bytes)
    #expect(try digest(ofFile: target) == (try expectedDigest(try fixture("/bytes/4000000?seed=dl16"))))
  }

  // A server that ignores Range answers 200: truncate, restart from 0, say why.
  @Test func aServerIgnoringRangeRestartsFromZero() throws {
    let scratch = Scratch()
    let url = try fixture("/bytes/3000000?seed=dl2&range=off&rate=6000000")
    let target = scratch.target()
    let agent = scratch.agent()
    _ = try cancelPartWay(agent, download(url, to: target), at: 0.4)
    let second = agent.sendAndWait(download(url, to: target))
    #expect(second.state == .succeeded)
    #expect(second.download?.restartReason == .rangeNotSupported)
    #expect(second.download?.resumedFrom == 0)
    #expect(try digest(ofFile: target) == (try expectedDigest(try fixture("/bytes/3000000?seed=dl2"))))
  }

  // The resource changed between attempts: If-Range fails, 200, the new bytes only.
  @Test func aChangedResourceIsNeverSpliced() throws {
    let scratch = Scratch()
    let key = uniqueKey()
    // Version 1 of the content from the key's second hit on.
    let url = try fixture("/bytes/3000000?seed=dl3&rate=6000000&change_after=1&key=\(key)")
    let target = scratch.target()
    let agent = scratch.agent()
    _ = try cancelPartWay(agent, download(url, to: target), at: 0.4)
    let second = agent.sendAndWait(download(url, to: target))
    #expect(second.state == .succeeded)
    #expect(second.download?.restartReason == .resourceChanged)
    // The third hit is version 1 too: what the file must equal.
    let newContent = try expectedDigest(try fixture("/bytes/3000000?seed=dl3&change_after=1&key=\(key)"))
    #expect(try digest(ofFile: target) == newContent)
    #expect(newContent != (try expectedDigest(try fixture("/bytes/3000000?seed=dl3"))))
  }

  // A weak ETag resumes on Last-Modified; no validator at all restarts (`noValidator`).
  @Test func weakETagsUseLastModifiedAndNoValidatorRestarts() throws {
    let scratch = Scratch()
    let key = uniqueKey()
    let weak = try fixture("/bytes/2000000?seed=dl4&etag=weak&rate=4000000&key=\(key)")
    let agent = scratch.agent()
    _ = try cancelPartWay(agent, download(weak, to: scratch.target("weak.bin")), at: 0.3)
    let resumed = agent.sendAndWait(download(weak, to: scratch.target("weak.bin")))
    #expect(resumed.state == .succeeded)
    #expect((resumed.download?.resumedFrom ?? 0) > 0)
    let ifRange = try logEntries(key)[1]["headers"]?["If-Range"]?.stringValue
    #expect(ifRange?.hasSuffix("GMT") == true)

    let bare = try fixture("/bytes/2000000?seed=dl4&validators=none&rate=4000000")
    _ = try cancelPartWay(agent, download(bare, to: scratch.target("bare.bin")), at: 0.3)
    let restarted = agent.sendAndWait(download(bare, to: scratch.target("bare.bin")))
    #expect(restarted.state == .succeeded)
    #expect(restarted.download?.restartReason == .noValidator)
    #expect(restarted.download?.resumedFrom == 0)
    #expect(try digest(ofFile: scratch.target("bare.bin")) == (try expectedDigest(try fixture("/bytes/2000000?seed=dl4"))))
  }

  /// Puts `bytes` of `url`'s content on disk as partial data with the server's validators, as an
  /// earlier attempt would have left them.
  func seedPartial(_ scratch: Scratch, url: String, target: String, bytes: [UInt8], total: Int64) throws {
    let head = Agent().sendAndWait(Request(method: .HEAD, url: url))
    let headers = try #require(head.response).headers
    let key = scratch.store.key(method: .GET, target: target)
    try scratch.store.ensureDirectory()
    try Data(bytes).write(to: URL(fileURLWithPath: scratch.store.partPath(key)))
    try scratch.store.save(
      DownloadStore.Sidecar(
        label: "dl", method: "GET", url: url, target: target, validators: Validators(headers: headers),
        totalLength: total, recordedBytes: Int64(bytes.count), updated: Date().timeIntervalSince1970),
      key: key)
  }

  // 416 with the whole length on disk completes without downloading; more than the
  // length on disk restarts.
  @Test func rangeNotSatisfiableWithEverythingOnDiskCompletes() throws {
    let scratch = Scratch()
    let key = uniqueKey()
    let url = try fixture("/bytes/100000?seed=dl5&key=\(key)")
    let content = try #require(Agent().sendAndWait(Request(url: url)).response).body.bytes()
    let target = scratch.target()
    try seedPartial(scratch, url: url, target: target, bytes: content, total: 100_000)
    let result = scratch.agent().sendAndWait(download(url, to: target, sha256: SHA256.hex(content)))
    #expect(result.state == .succeeded, "\(result.error?.message ?? "")")
    #expect(result.response?.status == 416)
    #expect(result.download?.complete == true && result.download?.resumedFrom == 100_000)
    #expect(try digest(ofFile: target) == SHA256.hex(content))
    #expect(scratch.store.pending().isEmpty)

    let longer = scratch.target("longer.bin")
    try seedPartial(scratch, url: url, target: longer, bytes: content + [1, 2, 3], total: 100_003)
    let restarted = scratch.agent().sendAndWait(download(url, to: longer))
    #expect(restarted.state == .succeeded)
    #expect(restarted.download?.restartReason == .resourceChanged)
    #expect(try digest(ofFile: longer) == SHA256.hex(content))
  }

  // A 206 that starts elsewhere is never appended: restart from 0.
  @Test func aWrongContentRangeRestarts() throws {
    let scratch = Scratch()
    let url = try fixture("/bytes/2000000?seed=dl6&range=wrong&rate=4000000")
    let target = scratch.target()
    let agent = scratch.agent()
    _ = try cancelPartWay(agent, download(url, to: target), at: 0.3)
    let second = agent.sendAndWait(download(url, to: target))
    #expect(second.state == .succeeded, "\(second.error?.message ?? "")")
    #expect(second.download?.restartReason == .badContentRange)
    #expect(try digest(ofFile: target) == (try expectedDigest(try fixture("/bytes/2000000?seed=dl6"))))
  }

  // The server drops the connection at 30%: failed, resumable, partial kept; then resumes.
  @Test func aDroppedConnectionKeepsThePartialData() throws {
    let scratch = Scratch()
    let size: Int64 = 1_000_000
    let target = scratch.target()
    let agent = scratch.agent()
    let broken = agent.sendAndWait(download(try fixture("/bytes/\(size)?seed=dl7&close_at=30"), to: target))
    #expect(broken.state == .failed)
    #expect(broken.error?.transport == .connectionLost)
    #expect(broken.download?.resumable == true)
    #expect(broken.download?.bytes == size * 3 / 10)
    #expect(broken.download?.percent == 30)
    // The same URL again (without the fault it would be another key: use one that drops late).
    let brokenLate = agent.sendAndWait(download(try fixture("/bytes/\(size)?seed=dl7&close_at=30"), to: target))
    #expect(brokenLate.download?.resumedFrom == size * 3 / 10)
    #expect(brokenLate.download?.bytes == size * 3 / 10 + (size * 7 / 10) * 3 / 10)
  }

  // With a retry policy, dropped connections resume by themselves until the file is whole.
  @Test func retriesResumeAfterEachDrop() throws {
    let scratch = Scratch()
    let key = uniqueKey()
    let url = try fixture("/bytes/1500000?seed=dlr&close_every=350000&key=\(key)")
    let target = scratch.target()
    let retry = RetryPolicy(max: 8, baseDelay: 0.01)
    let result = scratch.agent().sendAndWait(download(url, to: target, retry: retry))
    #expect(result.state == .succeeded, "\(result.error?.message ?? "")")
    #expect(result.attempts == 5)
    #expect(try digest(ofFile: target) == (try expectedDigest(try fixture("/bytes/1500000?seed=dlr"))))
    let ranges = try logEntries(key).map { $0["headers"]?["Range"]?.stringValue }
    #expect(ranges == [nil, "bytes=350000-", "bytes=700000-", "bytes=1050000-", "bytes=1400000-"])
  }

  // Two URLs into one folder keep their own state; one target twice is joined.
  @Test func concurrentDownloadsIntoOneFolder() throws {
    let scratch = Scratch()
    let agent = scratch.agent()
    let recorder = EventRecorder(agent)
    let key = uniqueKey()
    let a = try fixture("/bytes/2000000?seed=a&rate=8000000")
    let b = try fixture("/bytes/2000000?seed=b&rate=8000000&key=\(key)")
    agent.send(download(a, to: scratch.target("a.bin")))
    agent.send(download(b, to: scratch.target("b.bin")))
    agent.send(download(b, to: scratch.target("b.bin")))
    #expect(recorder.waitForFinished(count: 3, timeout: 20))
    #expect(recorder.finished.allSatisfy { $0.state == .succeeded })
    #expect(recorder.finished.filter(\.deduplicated).count == 1)
    #expect(try hits(key) == 1)
    #expect(try digest(ofFile: scratch.target("a.bin")) == (try expectedDigest(try fixture("/bytes/2000000?seed=a"))))
    #expect(try digest(ofFile: scratch.target("b.bin")) == (try expectedDigest(try fixture("/bytes/2000000?seed=b"))))
  }

  // Two agents (say the TUI and `run` in another terminal) never write one partial file at once.
  @Test func anotherAgentDownloadingTheSameTargetIsRefused() throws {
    let scratch = Scratch()
    let url = try fixture("/bytes/3000000?seed=lock&rate=3000000")
    let first = scratch.agent()
    let recorder = EventRecorder(first)
    let id = first.send(download(url, to: scratch.target()))
    #expect(recorder.wait { $0.contains { if case .progress(id, _) = $0 { true } else { false } } })
    let second = scratch.agent().sendAndWait(download(url, to: scratch.target()))
    #expect(second.state == .failed)
    #expect(second.error?.message.contains("another reqbench is downloading to") == true, "\(second.error?.message ?? "")")
    first.cancel(id)
    #expect(recorder.waitForFinished(count: 1))
    // Once the first lets go, the second resumes what it left.
    let again = scratch.agent().sendAndWait(download(url, to: scratch.target()))
    #expect(again.state == .succeeded)
    #expect((again.download?.resumedFrom ?? 0) > 0)
  }

  // An existing target survives a failed download; a 404 leaves no file, keeps
  // its error body and no resume state.
  @Test func failuresNeverTouchTheTarget() throws {
    let scratch = Scratch()
    let target = scratch.target()
    try Data("precious".utf8).write(to: URL(fileURLWithPath: target))
    let agent = scratch.agent()
    let missing = agent.sendAndWait(download(try fixture("/status/404"), to: target))
    #expect(missing.state == .failed)
    #expect(missing.error?.kind == .status)
    #expect(missing.response?.status == 404)
    #expect(!(try #require(missing.response).body.bytes()).isEmpty)
    #expect(missing.download?.resumable == false)
    #expect(scratch.store.pending().isEmpty)
    let dropped = agent.sendAndWait(download(try fixture("/bytes/100000?close_at=50"), to: target))
    #expect(dropped.state == .failed)
    #expect(String(decoding: try Data(contentsOf: URL(fileURLWithPath: target)), as: UTF8.self) == "precious")

    let fresh = scratch.target("fresh.bin")
    let notFound = agent.sendAndWait(download(try fixture("/status/404"), to: fresh))
    #expect(notFound.state == .failed)
    #expect(!FileManager.default.fileExists(atPath: fresh))

    let replaced = agent.sendAndWait(download(try fixture("/bytes/1000?seed=r"), to: target))
    #expect(replaced.state == .succeeded)
    #expect(try digest(ofFile: target) == (try expectedDigest(try fixture("/bytes/1000?seed=r"))))
  }

  // No Accept-Encoding on downloads, so offsets refer to stored bytes.
  @Test func downloadsAskForTheStoredRepresentation() throws {
    let scratch = Scratch()
    let key = uniqueKey()
    let result = scratch.agent().sendAndWait(download(try fixture("/bytes/1000?key=\(key)"), to: scratch.target()))
    #expect(result.state == .succeeded)
    #expect(try logEntries(key).first?["headers"]?["Accept-Encoding"] == nil)
  }

  // Unreadable or orphaned state is ignored and rebuilt, never a crash.
  @Test func corruptStateRestartsFromZero() throws {
    let scratch = Scratch()
    let url = try fixture("/bytes/50000?seed=dl13")
    let target = scratch.target()
    try seedPartial(scratch, url: url, target: target, bytes: Array(repeating: 7, count: 1000), total: 50_000)
    let key = scratch.store.key(method: .GET, target: target)
    try Data("{not json".utf8).write(to: URL(fileURLWithPath: scratch.store.sidecarPath(key)))
    let result = scratch.agent().sendAndWait(download(url, to: target))
    #expect(result.state == .succeeded)
    #expect(result.download?.restartReason == .invalidState)
    #expect(try digest(ofFile: target) == (try expectedDigest(url)))
    // A partial file without a sidecar is garbage-collected by a listing.
    try Data([1, 2, 3]).write(to: URL(fileURLWithPath: scratch.store.partPath("orphan")))
    #expect(scratch.store.pending().isEmpty)
    #expect(!FileManager.default.fileExists(atPath: scratch.store.partPath("orphan")))
  }

  // Chunked (no length): indeterminate progress, the exact size at the end; resumes.
  @Test func chunkedDownloadsHaveNoTotalAndStillResume() throws {
    let scratch = Scratch()
    let url = try fixture("/bytes/2000000?seed=dl14&chunked=1&rate=4000000")
    let target = scratch.target()
    let agent = scratch.agent()
    let recorder = EventRecorder(agent)
    let id = agent.send(download(url, to: target))
    #expect(recorder.wait(timeout: 10) { events in
      events.contains { if case .progress(id, let p) = $0 { p.downloaded > 500_000 } else { false } }
    })
    agent.cancel(id)
    #expect(recorder.waitForFinished(count: 1))
    let early = recorder.all.compactMap { if case .progress(id, let p) = $0 { p } else { nil } }
    #expect(early.allSatisfy { $0.downloadTotal == nil })
    let second = agent.sendAndWait(download(url, to: target))
    #expect(second.state == .succeeded)
    #expect((second.download?.resumedFrom ?? 0) > 500_000)
    #expect(second.download?.bytes == 2_000_000)
    #expect(try digest(ofFile: target) == (try expectedDigest(try fixture("/bytes/2000000?seed=dl14"))))
  }

  // A given sha256 is checked before the file appears; a mismatch discards the data.
  @Test func theChecksumIsCheckedBeforeTheFileAppears() throws {
    let scratch = Scratch()
    let url = try fixture("/bytes/300000?seed=sum")
    let good = try expectedDigest(url)
    let agent = scratch.agent()
    let wrong = agent.sendAndWait(download(url, to: scratch.target(), sha256: String(repeating: "0", count: 64)))
    #expect(wrong.state == .failed)
    #expect(wrong.error?.kind == .validation)
    #expect(wrong.error?.message.contains(good) == true)
    #expect(!FileManager.default.fileExists(atPath: scratch.target()))
    #expect(scratch.store.pending().isEmpty)
    let right = agent.sendAndWait(download(url, to: scratch.target(), sha256: good.uppercased()))
    #expect(right.state == .succeeded)
  }

  // A cancelled download resumes against nginx too: a real static file with nginx's strong ETag.
  @Test func resumesAgainstNginx() throws {
    let scratch = Scratch()
    let index = try JSONParser.parse(try #require(Agent().sendAndWait(Request(url: try nginx("/index.json"))).response).body.bytes())
    let file = try #require(index["files"]?.arrayValue?.first { $0["path"] == "/10m.bin" })
    let expected = try #require(file["sha256"]?.stringValue)
    let target = scratch.target()
    let agent = scratch.agent()
    // Slow the reader down so there is time to cancel: nginx sends as fast as loopback allows.
    let root = try #require(ProcessInfo.processInfo.environment["REQBENCH_NGINX_ROOT"])
    let partial = Array(try Data(contentsOf: URL(fileURLWithPath: root + "/10m.bin")).prefix(4_000_000))
    let url = try nginx("/10m.bin")
    try seedPartial(scratch, url: url, target: target, bytes: partial, total: 10_485_760)
    let result = agent.sendAndWait(download(url, to: target, sha256: expected))
    #expect(result.state == .succeeded, "\(result.error?.message ?? "")")
    #expect(result.response?.status == 206)
    #expect(result.download?.resumedFrom == 4_000_000)
    #expect(try digest(ofFile: target) == expected)
  }

  // The pure decision table (docs/engine-rules.md): 206/200/416 and their headers.
  @Test func theDecisionTable() {
    let stored = Validators(etag: "\"a\"", lastModified: nil)
    func decide(_ status: Int, _ headers: [(String, String)], offset: Int64 = 100) -> DownloadDecision {
      DownloadDecision.decide(status: status, headers: HTTPHeaders(headers), offset: offset, stored: stored)
    }
    let same = ("ETag", "\"a\"")
    #expect(decide(206, [same, ("Content-Range", "bytes 100-199/200")]) == .write(offset: 100, total: 200, restartReason: nil))
    #expect(decide(206, [same, ("Content-Range", "bytes 0-199/200")]) == .restart(.badContentRange))
    #expect(decide(206, [same, ("Content-Range", "bytes 100-199/*")]) == .write(offset: 100, total: nil, restartReason: nil))
    #expect(decide(206, [same]) == .restart(.badContentRange))
    // A 206 for another resource (a server that ignores If-Range) is never appended.
    #expect(decide(206, [("ETag", "\"b\""), ("Content-Range", "bytes 100-199/200")]) == .restart(.resourceChanged))
    #expect(decide(206, [("ETag", "W/\"a\""), ("Content-Range", "bytes 100-199/200")]) == .restart(.resourceChanged))
    #expect(decide(206, [("Content-Range", "bytes 100-199/200")]) == .restart(.resourceChanged))
    let dated = Validators(etag: "W/\"w\"", lastModified: "Wed, 01 Jan 2025 00:00:00 GMT")
    let range = ("Content-Range", "bytes 100-199/200")
    #expect(
      DownloadDecision.decide(
        status: 206, headers: HTTPHeaders([("Last-Modified", "Wed, 01 Jan 2025 00:00:00 GMT"), range]), offset: 100,
        stored: dated) == .write(offset: 100, total: 200, restartReason: nil))
    #expect(
      DownloadDecision.decide(
        status: 206, headers: HTTPHeaders([("ETag", "W/\"w\""), ("Last-Modified", "Thu, 02 Jan 2025 00:00:00 GMT"), range]),
        offset: 100, stored: dated) == .restart(.resourceChanged))
    // Resuming on trust (no validator stored): nothing to compare.
    #expect(
      DownloadDecision.decide(status: 206, headers: HTTPHeaders([range]), offset: 100, stored: Validators())
        == .write(offset: 100, total: 200, restartReason: nil))
    #expect(decide(200, [("ETag", "\"a\""), ("Content-Length", "200")]) == .write(offset: 0, total: 200, restartReason: .rangeNotSupported))
    #expect(decide(200, [("ETag", "\"b\"")]) == .write(offset: 0, total: nil, restartReason: .resourceChanged))
    #expect(decide(416, [("Content-Range", "bytes */100")]) == .alreadyComplete(total: 100))
    #expect(decide(416, [("Content-Range", "bytes */50")]) == .restart(.resourceChanged))
    #expect(decide(416, []) == .restart(.badContentRange))
    #expect(decide(503, []) == .failure)
    #expect(decide(200, [], offset: 0) == .write(offset: 0, total: nil, restartReason: nil))
    #expect(decide(404, [], offset: 0) == .failure)
    #expect(Validators(etag: "W/\"x\"", lastModified: "Mon").ifRange == "Mon")
    #expect(Validators(etag: "W/\"x\"", lastModified: nil).ifRange == nil)
  }
}
