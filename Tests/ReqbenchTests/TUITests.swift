import Foundation
import TestSupport
import Testing

@Suite("TUI end to end (tmux)", .serialized)
struct TUITests {
  @Test func sendWatchCancelHelpAndQuit() throws {
    let session = try TmuxSession([try reqbenchBinary.path, "--demo"])
    try session.waitFor("1 Requests")
    try session.waitFor("users/")

    // Send the selected request (users/list) and watch it succeed.
    try session.send("Enter")
    var screen = try session.waitFor("✓ succeeded")
    #expect(screen.contains("200 OK"))
    #expect(screen.contains("\"name\": \"Ada Lovelace\""))

    // Filter to the slow request, send it, cancel it while it runs.
    try session.send("/")
    try session.type("slow")
    try session.send("Enter")
    try session.waitFor("Requests /slow")
    try session.send("Enter")
    try session.waitFor("▶ running")
    try session.send("c")
    screen = try session.waitFor("⊘ cancelled")
    #expect(screen.contains("0 running"))

    // The keys overlay.
    try session.send("?")
    try session.waitFor("other keys close")
    try session.send("x")
    try session.waitForAbsence("other keys close")

    // Idle means idle: no CPU while nothing happens. The history writer has one piece of
    // delayed work (it fills the search index a second after the cancelled exchange was
    // recorded), so a quiet stretch must begin within a few seconds: what is left must be
    // nothing, not a loop.
    try session.expectIdle(settle: 4)

    // Quit: the process ends with status 0 and the shell's screen is back (no boxes left).
    try session.send("q")
    screen = try session.waitFor("[exited 0]")
    #expect(!screen.contains("1 Requests"))
  }

  @Test func tooSmallAndResize() throws {
    let session = try TmuxSession([try reqbenchBinary.path, "--demo"], width: 50, height: 12)
    try session.waitFor("terminal too small")
    try session.tmux(["resize-window", "-t", session.name, "-x", "100", "-y", "30"])
    try session.waitFor("1 Requests")
    try session.quit()
  }

  @Test func quittingWhileTransfersRunAsksFirst() throws {
    let session = try TmuxSession([try reqbenchBinary.path, "--demo"])
    try session.waitFor("users/")
    try session.send("/")
    try session.type("trickle")
    try session.send("Enter", "Enter")
    try session.waitFor("▶ running")
    try session.send("q")
    try session.waitFor("1 transfer is still running. Cancel it and quit? (y/n)")
    try session.send("y")
    try session.waitFor("[exited 0]")
  }

  @Test func sigtermRestoresTheTerminal() throws {
    let session = try TmuxSession([try reqbenchBinary.path, "--demo"])
    try session.waitFor("1 Requests")
    let pid = try #require(session.programPID)
    kill(pid, SIGTERM)
    let screen = try session.waitFor("[exited 143]")  // 128 + SIGTERM, as `run` ends
    #expect(!screen.contains("1 Requests"))
  }

  @Test func notATerminalSaysHowToScript() throws {
    let result = try runProcess(try reqbenchBinary, ["--demo"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("the TUI needs a terminal; use `reqbench run"))
  }
}

@Suite("TUI end to end: batches and chains", .serialized)
struct TUIFlowTests {
  @Test func runAChainAndSeeItsSteps() throws {
    let session = try TmuxSession([try reqbenchBinary.path, "--demo"])
    try session.waitFor("batches and chains")
    try session.send("G")  // the last item: the login-flow chain
    try session.waitFor("2 Editor · login-flow")
    try session.send("Enter")
    let screen = try session.waitFor("chain login-flow succeeded")
    #expect(screen.contains("⛓ login-flow"))
    #expect(screen.contains("step 3/3"))
    #expect(screen.contains("uid = 1"))
    #expect(screen.contains("login-flow 3/3 › users/get"))
    try session.quit()
  }
}

/// Batch and chain rows of the queue, against the fixture: `c` on a batch row cancels the batch,
/// `r` on a failed chain row resumes it from the failed step.
@Suite("TUI end to end: batch and chain rows in the queue", .serialized)
struct TUIQueueFlowTests {
  let key = uniqueKey()

  func workspace() throws -> String {
    try workspaceFile(
      """
      {"version": 1, "baseURL": "\(try TestServer.fixture.baseURL)", "requests": [
        {"name": "ok", "url": "/get?key=\(key)-ok", "dedup": false},
        {"name": "slow", "url": "/delay/8?key=\(key)-slow", "dedup": false},
        {"name": "first", "url": "/get?key=\(key)-first"},
        {"name": "flaky", "url": "/flaky?fail_first=1&code=500&key=\(key)-flaky"},
        {"name": "last", "url": "/get?key=\(key)-last"}
       ],
       "batches": [{"name": "slowpoke", "members": ["ok", "slow"], "policy": "allSettled"}],
       "chains": [{"name": "breaks", "steps": [{"request": "first"}, {"request": "flaky"}, {"request": "last"}]}]}
      """, named: "flows.json"
    ).path
  }

  @Test func cancelABatchFromItsRow() throws {
    let session = try TmuxSession([try reqbenchBinary.path, try workspace()])
    try session.waitFor("batches and chains")
    try session.send("G", "k")  // the batch, above the chain
    try session.waitFor("2 Editor · slowpoke")
    try session.send("Enter")
    try session.waitFor("✓ succeeded   200    GET    slowpoke › ok")
    try session.waitFor("▶ running     ▸ ⧉ slowpoke")
    // The queue: its first line is the batch's row; the viewer shows the batch.
    try session.send("4", "g")
    try session.waitFor("3 Response · slowpoke")
    // Expanded: a row per member.
    try session.send("Right")
    var screen = try session.waitFor("▾ ⧉ slowpoke")
    #expect(screen.contains("    ✓ succeeded  ok"))
    #expect(screen.contains("    ▶ running    slow"))
    try session.send("c")
    screen = try session.waitFor("⊘ cancelled   ▾ ⧉ slowpoke")
    #expect(screen.contains("1/2  ✓1 ✗0 ⊘1") || screen.contains("2/2  ✓1 ✗0 ⊘1"))
    #expect(screen.contains("    ⊘ cancelled  slow"))
    #expect(screen.contains("batch slowpoke cancelled"))
    #expect(!screen.contains("cancelled: cancelled"))
    #expect(try hits("\(key)-slow") == 1)
    try session.quit()
  }

  @Test func resumeAFailedChainFromItsRow() throws {
    let session = try TmuxSession([try reqbenchBinary.path, try workspace()])
    try session.waitFor("batches and chains")
    try session.send("G")
    try session.waitFor("2 Editor · breaks")
    try session.send("Enter")
    // Waits for the row itself: a capture can come between two parts of one frame's drawing.
    var screen = try session.waitFor("step 2/3  ✓ ✗ …")
    #expect(screen.contains("chain breaks failed"))
    try session.send("4", "g")
    try session.waitFor("3 Response · breaks")
    try session.send("r")
    screen = try session.waitFor("✓ succeeded   ▸ ⛓ breaks  step 3/3  ✓ ✓ ✓")
    // The viewer follows the resumed run.
    #expect(screen.contains("✓ chain breaks succeeded"), "\(screen)")
    // The resumed run's row: step 1 from the earlier run, steps 2 and 3 now.
    #expect(screen.contains("✗ failed      ▸ ⛓ breaks  step 2/3  ✓ ✗ …"))
    #expect(try hits("\(key)-first") == 1)  // not sent again
    #expect(try hits("\(key)-flaky") == 2)
    #expect(try hits("\(key)-last") == 1)
    try session.quit()
  }
}

/// A failed capture in the TUI, against the fixture: the step's exchange row shows it failed, the
/// viewer shows the capture, why, and the body it ran on, pretty-printed over several lines.
@Suite("TUI end to end: a failed capture", .serialized)
struct TUICaptureTests {
  @Test func aFailedCaptureIsReadable() throws {
    let key = uniqueKey()
    let file = try workspaceFile(
      """
      {"version": 1, "baseURL": "\(try TestServer.fixture.baseURL)", "requests": [
        {"name": "login", "method": "POST", "url": "/auth/login?key=\(key)", "body": {"json": {"user": "ada", "password": "lovelace"}}},
        {"name": "after", "url": "/get?key=\(key)-after"}
       ],
       "chains": [{"name": "badcap", "steps": [{"request": "login", "capture": {"token": ".nope"}}, {"request": "after"}]}]}
      """, named: "cap.json"
    ).path
    let session = try TmuxSession([try reqbenchBinary.path, file])
    try session.waitFor("batches and chains")
    try session.send("G")
    try session.waitFor("2 Editor · badcap")
    try session.send("Enter")
    var screen = try session.waitFor("chain badcap failed")
    #expect(screen.contains("✗ failed      200    POST   badcap 1/2 › login  capture failed: token ← .nope"), "\(screen)")
    #expect(!screen.contains("✓ succeeded   200    POST   badcap"))
    try session.send("4", "g")
    screen = try session.waitFor("3 Response · badcap")
    #expect(screen.contains("✗ 1. login  200  capture failed"), "\(screen)")
    #expect(screen.contains("capture token ← .nope"))
    #expect(screen.contains("found nothing"))
    #expect(screen.contains("the body it ran on (200, "))
    #expect(screen.contains("\"token\": \""))
    #expect(!screen.contains("\\n"))
    #expect(screen.contains("✗ chain badcap failed: step 1 (login) failed: capture token ← .nope: found nothing"))
    #expect(try hits("\(key)-after") == 0)
    try session.quit()
  }
}

@Suite("TUI end to end: downloads (tmux)", .serialized)
struct TUIDownloadTests {
  /// A workspace with one slow download from the fixture, in a fresh folder.
  func workspace() throws -> (file: String, folder: String) {
    let (file, dir) = try workspaceFile(
      """
      {"version": 1, "baseURL": "\(try TestServer.fixture.baseURL)", "requests": [
        {"name": "big", "url": "/bytes/6000000?seed=tui&rate=2000000", "download": {"to": "out/big.bin"}}
      ]}
      """, named: "dl.json")
    return (file, dir.path)
  }

  @Test func cancelQuitReopenAndResume() throws {
    let ws = try workspace()
    let session = try TmuxSession([try reqbenchBinary.path, ws.file])
    try session.waitFor("1 Requests")
    try session.send("Enter")
    try session.waitFor("▶ running")
    try session.waitFor("/s  ETA ")  // the queue shows speed and ETA
    try session.send("4")
    try session.send("c")
    var screen = try session.waitFor("⊘ cancelled")
    #expect(screen.contains("resumable"))
    #expect(screen.contains("press r to resume"))
    try session.quit()
    // (The finished session stays until the test ends: the private tmux server lives on.)

    // A new session finds the partial download and offers to resume it.
    let reopened = try TmuxSession([try reqbenchBinary.path, ws.file])
    try reopened.waitFor("resumable")
    try reopened.send("4")
    try reopened.send("g")
    screen = try reopened.waitFor("interrupted in an earlier run")
    #expect(screen.contains("press r to resume"))
    try reopened.send("r")
    try reopened.waitFor("resuming big from")
    screen = try reopened.waitFor("✓ succeeded", timeout: 15)
    #expect(screen.contains("saved to " + ws.folder + "/out/big.bin"))
    #expect(screen.contains("resumed from"))
    let size = (try? FileManager.default.attributesOfItem(atPath: ws.folder + "/out/big.bin")[.size] as? Int) ?? 0
    #expect(size == 6_000_000)
  }
}
