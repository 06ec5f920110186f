import Foundation
import RequestEngine
import TestSupport
import Testing

/// The engine's hardening through the real binary: header injection from `--var`, the body cap's
/// message, the ETA of a 9e18 Content-Length on a terminal (run and TUI), SIGTERM and SIGHUP like
/// SIGINT, stale temporaries swept at start.
@Suite("Hardening, end to end", .serialized)
struct HardeningCommandTests {
  func folder(of ws: String) -> String { (ws as NSString).deletingLastPathComponent }

  // A CR and LF given with `--var` never become a header (the fixture once received
  // `X-Injected: var`).
  @Test func aCRLFFromTheCommandLineIsAUsageError() throws {
    let key = uniqueKey("inject")
    let ws = try fixtureWorkspace(#"{"name": "h", "url": "/anything/h?key=\#(key)", "headers": {"X-K": "{{v}}"}}"#)
    let result = try runProcess(try reqbenchBinary, ["run", ws, "h", "--no-history", "--var", "v=z\r\nX-Injected: var"])
    #expect(result.status == 2, "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "h: failed: \(ws):1:141: " + #"header "X-K": {{v}} (from --var v) contains CR (\r); CR, LF and NUL are not allowed"#),
      "\(result.stderr)")
    #expect(try hits(key) == 0)
  }

  // The workspace's maxBodyMB, and a message that says what to do.
  @Test func theBodyCapSaysWhatToDo() throws {
    let (ws, _) = try workspaceFile(
      #"""
      {"version": 1, "baseURL": "\#(try TestServer.fixture.baseURL)", "maxBodyMB": 2,
       "requests": [{"name": "endless", "url": "/hostile/endless", "deadline": 20}]}
      """#)
    let result = try runProcess(try reqbenchBinary, ["run", ws, "endless", "--no-history"], timeout: 60)
    #expect(result.status == 1)
    #expect(result.stderr.contains("endless: failed: body over 2 MB: stopped; raise maxBodyMB or use download"), "\(result.stderr)")
    #expect(result.stdout.utf8.count <= 2 << 20)
  }

  /// A download of `/hostile/huge-length` (Content-Length 9000000000000000000, a byte every 0.3 s).
  func hugeLengthWorkspace() throws -> String {
    try workspaceFile(
      #"""
      {"version": 1, "baseURL": "\#(try TestServer.fixture.baseURL)",
       "requests": [{"name": "d", "url": "/hostile/huge-length?bytes=10&every=0.3", "download": {"to": "huge.bin"}, "deadline": 20}]}
      """#
    ).path
  }

  // On a terminal the live line's ETA of a 9e18-byte download trapped (exit 132).
  @Test func aHugeContentLengthOnATerminal() throws {
    let session = try TmuxSession([try reqbenchBinary.path, "run", try hugeLengthWorkspace(), "d"])
    let live = try session.waitFor("ETA ", timeout: 15)
    #expect(live.contains(" d") || live.contains("over 1000000 d"), "\(live)")
    let screen = try session.waitFor("[exited", timeout: 30)
    #expect(screen.contains("[exited 1]"), "the download fails when the server drops it, and nothing traps:\n\(screen)")
  }

  // The TUI's queue shows the same ETA and lives on.
  @Test func aHugeContentLengthInTheTUI() throws {
    let session = try TmuxSession([try reqbenchBinary.path, try hugeLengthWorkspace()])
    try session.waitFor("1 Requests")
    try session.send("Enter")
    try session.waitFor("ETA ", timeout: 15)
    let screen = try session.waitFor("✗ failed", timeout: 30)
    #expect(!screen.contains("[exited"), "\(screen)")
    try session.send("q")
    try session.waitFor("[exited 0]")
  }

  // SIGTERM and SIGHUP end `run` as Ctrl-C does: exchanges cancelled cleanly, the
  // partial download kept (resumable), history written, 128 + the signal.
  @Test(arguments: [SIGTERM, SIGHUP])
  func terminationSignalsAreHandledLikeInterrupt(signal: Int32) throws {
    let status = 128 + signal
    let key = uniqueKey("term")
    let ws = try fixtureWorkspace(
      #"{"name": "slow", "url": "/bytes/3000000?seed=term&rate=2000000&key=\#(key)", "download": {"to": "slow.bin"}}"#)
    let running = try RunningReqbench(["run", ws, "slow"])
    // Once the transfer runs, not after a fixed sleep: a signal before anything is sent ends the
    // command at once, with nothing to keep. Bounded: 30 s.
    let deadline = Date().addingTimeInterval(30)
    while try hits(key) == 0, Date() < deadline { usleep(20_000) }
    #expect(try hits(key) == 1)
    // Some of the body is on disk (more than any resume state alone holds), so there is a part
    // to keep.
    #expect(eventually { downloadStateBytes(ofWorkspace: ws) > 65_536 }, "part of the body on disk")
    kill(running.pid, signal)
    let stderr = running.finish().stderr
    #expect(running.process.terminationStatus == status, "\(stderr)")
    #expect(stderr.contains("slow: cancelled at "), "\(stderr)")
    #expect(stderr.contains("kept); run it again to resume"))
    let again = try runProcess(try reqbenchBinary, ["run", ws, "slow"])
    #expect(again.status == 0)
    #expect(again.stderr.contains(", resumed from "), "\(again.stderr)")
  }

  // What killed writes left is swept when a command starts: old `.NAME.tmp-HEX` beside
  // the workspace and in its state folder, old spill files of an older reqbench; young ones may
  // be writes in progress and stay.
  @Test func staleTemporariesAreSweptAtStart() throws {
    let ws = try fixtureWorkspace(#"{"name": "ok", "url": "/get"}"#)
    let dir = folder(of: ws)
    let state = dir + "/.reqbench/w"
    try FileManager.default.createDirectory(atPath: state + "/history/ok", withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: state + "/cache", withIntermediateDirectories: true)
    let old = [
      dir + "/.w.json.tmp-1a2b", dir + "/.w.secrets.json.tmp-3c4d", state + "/history/ok/.x.entry.tmp-5e6f",
      state + "/cache/.k.json.tmp-7a8b", state + "/.chain.json.tmp-9c0d",
    ]
    let young = [dir + "/.w.json.tmp-ffff", state + "/cache/.k2.json.tmp-eeee"]
    let unrelated = dir + "/.notes.txt.tmp-1"
    let tenMinutesAgo = Date().addingTimeInterval(-900)
    for path in old + young + [unrelated] { try Data("x".utf8).write(to: URL(fileURLWithPath: path)) }
    for path in old + [unrelated] {
      try FileManager.default.setAttributes([.modificationDate: tenMinutesAgo], ofItemAtPath: path)
    }
    let result = try runProcess(try reqbenchBinary, ["run", ws, "ok"])
    #expect(result.status == 0, "\(result.stderr)")
    for path in old { #expect(!FileManager.default.fileExists(atPath: path), "\(path) was left") }
    for path in young + [unrelated] { #expect(FileManager.default.fileExists(atPath: path), "\(path) was removed") }

    // The folders are read again only once the last whole sweep (`STATE/.swept`) is ten minutes
    // old: an old temporary left after this run stays through the next one, then goes.
    let stamp = state + "/.swept"
    #expect(FileManager.default.fileExists(atPath: stamp))
    let later = dir + "/.w.json.tmp-abcd"
    try Data("x".utf8).write(to: URL(fileURLWithPath: later))
    try FileManager.default.setAttributes([.modificationDate: tenMinutesAgo], ofItemAtPath: later)
    let soon = try runProcess(try reqbenchBinary, ["run", ws, "ok"])
    #expect(soon.status == 0, "\(soon.stderr)")
    #expect(FileManager.default.fileExists(atPath: later), "swept again within ten minutes")
    try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-601)], ofItemAtPath: stamp)
    let due = try runProcess(try reqbenchBinary, ["run", ws, "ok"])
    #expect(due.status == 0, "\(due.stderr)")
    #expect(!FileManager.default.fileExists(atPath: later), "not swept once due")
  }
}
