import Digest
import Foundation
@testable import RequestEngine
import TestSupport
import Testing

/// A partial download belongs to its target, whatever host, port or signed query its URL now
/// has, and a 206 for another resource is never appended. Part of the serialized download suite.
extension DownloadTests {
  /// The files in the scratch's download state folder.
  func stateFiles(_ scratch: Scratch) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: scratch.store.directory)) ?? []).sorted()
  }

  // `--demo` picks a new port every start, `--var host=…` changes the host, a signed URL gets a
  // freshly signed query string. The partial data is the target's and resumes against any of them.
  @Test func aDownloadResumesWhateverItsHostPortOrQueryNowSay() throws {
    let scratch = Scratch()
    let first = try fixture("/bytes/4000000?seed=dl-host&rate=8000000&sig=first")
    // The same server by another name (curl resolves `localhost` to loopback itself) and with
    // another query.
    let second = first.replacingOccurrences(of: "127.0.0.1", with: "localhost")
      .replacingOccurrences(of: "sig=first", with: "sig=second")
    #expect(second != first)
    let target = scratch.target()
    let agent = scratch.agent()
    let partial = try cancelPartWay(agent, download(first, to: target), at: 0.4)
    #expect(partial.download?.resumable == true)
    #expect(stateFiles(scratch).count == 2)
    let resumed = agent.sendAndWait(download(second, to: target))
    #expect(resumed.state == .succeeded, "\(resumed.error?.message ?? "")")
    #expect(resumed.response?.status == 206)
    #expect(resumed.download?.resumedFrom == partial.download?.bytes)
    #expect(resumed.download?.restartReason == nil)
    #expect(try digest(ofFile: target) == (try expectedDigest(try fixture("/bytes/4000000?seed=dl-host"))))
    // Nothing is left behind: no partial file of the first URL.
    #expect(stateFiles(scratch) == [])
  }

  // The validator is what protects a resume from another resource: a new URL that serves other
  // bytes answers If-Range with a 200, which restarts with its reason.
  @Test func anotherResourceBehindTheNewURLRestartsWithItsReason() throws {
    let scratch = Scratch()
    let target = scratch.target()
    let agent = scratch.agent()
    _ = try cancelPartWay(agent, download(try fixture("/bytes/3000000?seed=one&rate=6000000"), to: target), at: 0.3)
    let other = try fixture("/bytes/3000000?seed=two")
    let result = agent.sendAndWait(download(other, to: target))
    #expect(result.state == .succeeded)
    #expect(result.download?.restartReason == .resourceChanged)
    #expect(result.download?.resumedFrom == 0)
    #expect(try digest(ofFile: target) == (try expectedDigest(other)))
    #expect(stateFiles(scratch) == [])
  }

  // A server that ignores If-Range and answers 206 with the changed resource's
  // validator and bytes. Appending them would splice two versions into one file.
  @Test(arguments: ["", "&etag=weak"])
  func aServerIgnoringIfRangeNeverSplicesTheFile(validator: String) throws {
    let scratch = Scratch()
    let key = uniqueKey()
    let url = try fixture("/bytes/3000000?seed=splice&rate=6000000&change_after=1&ifrange=ignore&key=\(key)\(validator)")
    let target = scratch.target()
    let agent = scratch.agent()
    let partial = try cancelPartWay(agent, download(url, to: target), at: 0.4)
    #expect((partial.download?.bytes ?? 0) > 0)
    let second = agent.sendAndWait(download(url, to: target))
    #expect(second.state == .succeeded, "\(second.error?.message ?? "")")
    #expect(second.download?.restartReason == .resourceChanged)
    #expect(second.download?.resumedFrom == 0)
    // The file is the new version, whole; later hits of the key serve it too.
    let newContent = try expectedDigest(url.replacingOccurrences(of: "&rate=6000000", with: ""))
    #expect(try digest(ofFile: target) == newContent)
    #expect(newContent != (try expectedDigest(try fixture("/bytes/3000000?seed=splice\(validator)"))))
  }

  /// Writes resume state of the first format (keyed by method, URL and target) as an earlier
  /// reqbench left it.
  func seedLegacyPartial(_ scratch: Scratch, url: String, target: String, bytes: [UInt8], total: Int64, age: Double = 0)
    throws -> String
  {
    let head = Agent().sendAndWait(Request(method: .HEAD, url: url))
    let headers = try #require(head.response).headers
    let key = SHA256.hex(Array("GET\n\(url)\n\(target)".utf8))
    try scratch.store.ensureDirectory()
    try Data(bytes).write(to: URL(fileURLWithPath: scratch.store.partPath(key)))
    var sidecar = DownloadStore.Sidecar(
      label: "dl", method: "GET", url: url, target: target, validators: Validators(headers: headers),
      totalLength: total, recordedBytes: Int64(bytes.count), updated: Date().timeIntervalSince1970 - age)
    sidecar.version = 1
    try scratch.store.save(sidecar, key: key)
    return key
  }

  // State written before downloads were keyed by target is adopted (the newest per target) and
  // the rest removed: nothing is orphaned by the upgrade.
  @Test func stateOfTheFirstFormatIsAdoptedOnce() throws {
    let scratch = Scratch()
    let url = try fixture("/bytes/200000?seed=legacy")
    let content = try #require(Agent().sendAndWait(Request(url: url)).response).body.bytes()
    let target = scratch.target()
    let older = try seedLegacyPartial(
      scratch, url: url + "&port=old", target: target, bytes: Array(content.prefix(1000)), total: 200_000, age: 60)
    let newer = try seedLegacyPartial(scratch, url: url, target: target, bytes: Array(content.prefix(50_000)), total: 200_000)
    #expect(older != newer)
    // A listing adopts it: the TUI shows it as interrupted, under the target's key.
    let pending = scratch.store.pending()
    #expect(pending.map(\.bytesOnDisk) == [50_000])
    let key = scratch.store.key(method: .GET, target: target)
    #expect(stateFiles(scratch) == [key + ".json", key + ".part"])
    let result = scratch.agent().sendAndWait(download(url, to: target, sha256: SHA256.hex(content)))
    #expect(result.state == .succeeded, "\(result.error?.message ?? "")")
    #expect(result.download?.resumedFrom == 50_000)
    #expect(stateFiles(scratch) == [])
  }

  // Without a listing first (`run`), the download itself adopts the legacy state of its target.
  @Test func aDownloadAdoptsLegacyStateOfItsTarget() throws {
    let scratch = Scratch()
    let url = try fixture("/bytes/200000?seed=legacy2")
    let content = try #require(Agent().sendAndWait(Request(url: url)).response).body.bytes()
    let target = scratch.target()
    _ = try seedLegacyPartial(scratch, url: url + "&old=1", target: target, bytes: Array(content.prefix(70_000)), total: 200_000)
    // Another target's legacy state is left for its own download.
    let elsewhere = try seedLegacyPartial(
      scratch, url: url, target: scratch.target("other.bin"), bytes: Array(content.prefix(10)), total: 200_000)
    let result = scratch.agent().sendAndWait(download(url, to: target))
    #expect(result.download?.resumedFrom == 70_000)
    #expect(try digest(ofFile: target) == SHA256.hex(content))
    #expect(stateFiles(scratch) == [elsewhere + ".json", elsewhere + ".part"])
  }

  // The key is the target relative to the state folder: a project moved with its state keeps
  // its partial downloads.
  @Test func keysAreRelativeToTheStateFolder() {
    #expect(DownloadStore.relativePath("/p/downloads/big.bin", from: "/p/.reqbench/demo/downloads") == "../../../downloads/big.bin")
    #expect(DownloadStore.relativePath("/p/x.bin", from: "/p") == "x.bin")
    let here = DownloadStore(directory: "/a/proj/.reqbench/w/downloads")
    let moved = DownloadStore(directory: "/b/elsewhere/proj/.reqbench/w/downloads")
    #expect(
      here.key(method: .GET, target: "/a/proj/downloads/f.bin")
        == moved.key(method: .GET, target: "/b/elsewhere/proj/downloads/f.bin"))
    #expect(here.key(method: .GET, target: "/a/proj/downloads/f.bin") != here.key(method: .GET, target: "/a/proj/downloads/g.bin"))
  }
}

extension DownloadTests {
  // One target, one partial file: a second download into it from another URL, while the first
  // runs, is refused (never interleaved); the first completes.
  @Test func anotherURLIntoARunningTargetIsRefused() throws {
    let scratch = Scratch()
    let target = scratch.target()
    let agent = scratch.agent()
    let recorder = EventRecorder(agent)
    let url = try fixture("/bytes/2000000?seed=one-target&rate=4000000")
    let first = agent.send(download(url, to: target))
    #expect(recorder.wait { $0.contains { if case .progress(first, _) = $0 { true } else { false } } })
    let second = agent.sendAndWait(download(url + "&sig=other", to: target))
    #expect(second.state == .failed)
    #expect(second.error?.message.contains("another reqbench is downloading to \(target)") == true, "\(second.error?.message ?? "")")
    #expect(recorder.waitForFinished(count: 2))
    #expect(recorder.finished.first { $0.id == first }?.state == .succeeded)
    #expect(try digest(ofFile: target) == (try expectedDigest(try fixture("/bytes/2000000?seed=one-target"))))
  }
}
