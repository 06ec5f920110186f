import Digest
import Foundation
import RequestEngine
import TestSupport
import Testing

/// `reqbench run` on downloads: the real binary, the fixture's deterministic `/bytes/{n}`.
@Suite("reqbench run: downloads and uploads")
struct DownloadCommandTests {
  /// A workspace in a fresh folder; returns the workspace file's path.
  func workspace(_ requests: String) throws -> String { try fixtureWorkspace(requests, file: "files.json") }

  func folder(of workspace: String) -> String { (workspace as NSString).deletingLastPathComponent }

  func summary(_ stdout: String) throws -> JSONValue {
    try JSONParser.parse(String(try #require(stdout.split(separator: "\n").last)))
  }

  func digest(ofFile path: String) throws -> String {
    SHA256.hex(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
  }

  func expectedDigest(_ path: String) throws -> String {
    let result = Agent().sendAndWait(Request(url: try TestServer.fixture.url(path)))
    return SHA256.hex(try #require(result.response).body.bytes())
  }

  @Test func aDownloadReportsItsFileInJSONAndOnStderr() throws {
    let ws = try workspace(
      #"{"name": "big", "url": "/bytes/300000?seed=cli", "download": {"to": "downloads/big.bin"}}"#)
    let result = try runProcess(try reqbenchBinary, ["run", ws, "big", "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    let first = try #require(try summary(result.stdout)["results"]?.arrayValue?.first)
    let file = folder(of: ws) + "/downloads/big.bin"
    #expect(first["file"]?.stringValue == file)
    #expect(first["bytes"]?.intValue == 300_000)
    #expect(first["resumedFrom"]?.intValue == 0)
    #expect(first["restartReason"] == .null)
    #expect(try digest(ofFile: file) == (try expectedDigest("/bytes/300000?seed=cli")))

    // Without --json: nothing on stdout, where it went on stderr.
    let plain = try runProcess(try reqbenchBinary, ["run", ws, "big"], currentDirectory: URL(fileURLWithPath: folder(of: ws)))
    #expect(plain.status == 0)
    #expect(plain.stdout.isEmpty)
    #expect(plain.stderr.hasPrefix("big: 200 OK, saved 293.0 KB to downloads/big.bin in "), "\(plain.stderr)")
  }

  // SIGKILL in the middle, run again: it resumes from the bytes actually on disk.
  @Test func killNineThenRunAgainResumes() throws {
    let ws = try workspace(
      #"{"name": "slow", "url": "/bytes/4000000?seed=kill&rate=4000000", "download": {"to": "slow.bin"}}"#)
    let running = try RunningReqbench(["run", ws, "slow", "--json"])
    // Read progress events until a third of the file is down, then kill -9.
    // (The last line may still be partial: a line that is not JSON yet is not the one.)
    let reached = running.read { output in
      output.split(separator: "\n").reversed().contains { line in
        guard let event = try? JSONParser.parse(String(line)) else { return false }
        return event["event"] == "progress" && (event["downloaded"]?.intValue ?? 0) > 1_300_000
      }
    }
    #expect(reached, "a third of the file was down: \(running.output.suffix(500))")
    kill(running.pid, SIGKILL)
    running.finish()
    #expect(running.process.terminationReason == .uncaughtSignal)
    #expect(!FileManager.default.fileExists(atPath: folder(of: ws) + "/slow.bin"))

    let again = try runProcess(try reqbenchBinary, ["run", ws, "slow", "--json"])
    #expect(again.status == 0, "\(again.stderr)")
    let first = try #require(try summary(again.stdout)["results"]?.arrayValue?.first)
    #expect((first["resumedFrom"]?.intValue ?? 0) > 1_000_000)
    #expect(try digest(ofFile: folder(of: ws) + "/slow.bin") == (try expectedDigest("/bytes/4000000?seed=kill")))
  }

  // Ctrl-C keeps the partial data and says how to go on; the next run resumes.
  @Test func interruptingSaysHowToResume() throws {
    let key = uniqueKey("interrupt")
    let ws = try workspace(
      #"{"name": "slow", "url": "/bytes/3000000?seed=int&rate=1000000&key=\#(key)", "download": {"to": "slow.bin"}}"#)
    let running = try RunningReqbench(["run", ws, "slow"])
    // Ctrl-C once the transfer runs (the handler is installed before anything is sent), not after
    // a fixed sleep: on a loaded machine the process may not have started by then. Bounded: 30 s.
    let deadline = Date().addingTimeInterval(30)
    while try hits(key) == 0, Date() < deadline { usleep(20_000) }
    #expect(try hits(key) == 1)
    // Some of the body is on disk (more than any resume state alone holds), so there is a part
    // to keep.
    #expect(eventually { downloadStateBytes(ofWorkspace: ws) > 65_536 }, "part of the body on disk")
    kill(running.pid, SIGINT)
    let stderr = running.finish().stderr
    #expect(running.process.terminationStatus == 130)
    #expect(stderr.contains("slow: cancelled at "), "\(stderr)")
    #expect(stderr.contains("kept); run it again to resume"))
    let again = try runProcess(try reqbenchBinary, ["run", ws, "slow"])
    #expect(again.status == 0)
    #expect(again.stderr.contains(", resumed from "), "\(again.stderr)")
  }

  // A folder target takes the URL's last path component; two downloads share the folder.
  @Test func twoDownloadsIntoOneFolder() throws {
    let ws = try workspace(
      #"{"name": "a", "url": "/bytes/70000?seed=a", "download": {"to": "in/"}},"#
        + #"{"name": "b", "url": "/files/big.bin?size=90000", "download": {"to": "in/"}}"#)
    let result = try runProcess(try reqbenchBinary, ["run", ws, "a", "b"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(try digest(ofFile: folder(of: ws) + "/in/70000") == (try expectedDigest("/bytes/70000?seed=a")))
    #expect(FileManager.default.fileExists(atPath: folder(of: ws) + "/in/big.bin"))
  }

  // Paths that leave the workspace's folder are refused where they are written.
  @Test func pathTraversalIsRefused() throws {
    let ws = try workspace(
      #"{"name": "evil", "url": "/bytes/10", "download": {"to": "../evil.bin"}}"#)
    let result = try runProcess(try reqbenchBinary, ["run", ws, "evil"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("files.json:1:"), "\(result.stderr)")
    #expect(result.stderr.contains("leaves the workspace's folder"))
    let absolute = try workspace(#"{"name": "up", "method": "PUT", "url": "/anything", "body": {"file": "/etc/passwd"}}"#)
    let refused = try runProcess(try reqbenchBinary, ["run", absolute, "up"])
    #expect(refused.status == 2)
    #expect(refused.stderr.contains("is absolute; paths are relative to the workspace's folder"), "\(refused.stderr)")
  }
}
