import Foundation
import TestSupport
import Testing

/// Idle means idle: the TUI with nothing to do sleeps until a key, a signal or an event comes.
/// Counted as the kernel counts it, the context switches of every thread of the process over a
/// few seconds (`/proc/PID/task/*/status`): a timer anywhere in the process (libdispatch's
/// worker-pool monitor, which its global queues start, fires every second for the rest of the
/// process's life) shows as switches. The real binary in tmux, against the fixture server.
@Suite("TUI end to end: idle is idle (tmux)", .serialized)
struct TUIIdleTests {
  /// The process's context switches, all threads together, and how many threads there are.
  func switches(_ pid: Int32) throws -> (count: Int, threads: Int) {
    let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
    var total = 0
    var read = 0
    for task in tasks {
      // A thread can end between the listing and the read: it switches no more.
      guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { continue }
      for line in status.split(separator: "\n") where line.contains("ctxt_switches:") {
        total += Int(line.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "") ?? 0
      }
      read += 1
    }
    try #require(read > 0, "no thread of \(pid) could be read")
    return (total, read)
  }

  func pid(_ session: TmuxSession) throws -> Int32 {
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline {
      if let pid = session.programPID { return pid }
      usleep(50_000)
    }
    return try #require(session.programPID, "the TUI did not start")
  }

  /// How many times the process was switched in over `seconds` of doing nothing.
  func idleSwitches(_ pid: Int32, over seconds: UInt32) throws -> Int {
    let before = try switches(pid)
    sleep(seconds)
    let after = try switches(pid)
    return after.count - before.count
  }

  @Test func nothingRunsWhileNothingHappens() throws {
    let (path, folder) = try workspaceFile(
      #"""
      {"version": 1, "baseURL": "\#(try TestServer.fixture.baseURL)",
       "requests": [
         {"name": "login", "url": "/cookies/set?session=s1"},
         {"name": "get", "url": "/get"}
       ]}
      """#)
    defer { try? FileManager.default.removeItem(at: folder) }
    let session = try TmuxSession([try reqbenchBinary.path, path])
    try session.waitFor("GET    get")
    let pid = try pid(session)

    // Just opened: the start-up work (reading the workspace, the history's first look) is done
    // within a second; then nothing.
    usleep(1_000_000)
    let opened = try idleSwitches(pid, over: 4)
    #expect(opened <= 1, "\(opened) context switches in 4 idle seconds after opening")

    // After work of every kind that hands something to a background thread: an exchange (the
    // history writer), a cookie set (the jar's delayed save), a cancelled one, the history
    // overlay (read in the background). Once that is written, nothing again.
    try session.send("Enter")
    try session.waitFor("✓ succeeded")
    try session.send("j")
    try session.send("Enter")
    try session.waitFor("sent get")
    try session.waitForAbsence("1 running")
    try session.send("H")
    try session.waitFor("History · 2")
    try session.send("Escape")
    try session.waitForAbsence("History · 2")
    // The jar's delayed save and the history's search index come within about two seconds.
    usleep(3_000_000)
    let afterWork = try idleSwitches(pid, over: 4)
    #expect(afterWork <= 1, "\(afterWork) context switches in 4 idle seconds after sending")

    try session.send("q")
    try session.waitFor("[exited 0]")
  }
}
