import Foundation
import TestSupport
import Testing

/// SIGTERM, SIGHUP and SIGINT end the TUI through `Signals.Interruption`, as they end `run`: the
/// terminal restored, transfers cancelled and recorded, the cookie jar written, exit status
/// 128 + the signal; while `$EDITOR` runs, once it ends. The real binary in tmux, against the
/// fixture server.
@Suite("TUI end to end: termination signals (tmux)", .serialized)
struct TUISignalsTests {
  func workspace() throws -> (path: String, folder: URL) {
    try workspaceFile(
      #"""
      {"version": 1, "baseURL": "\#(try TestServer.fixture.baseURL)",
       "requests": [
         {"name": "login", "url": "/cookies/set?session=s1"},
         {"name": "slow", "url": "/trickle"}
       ]}
      """#)
  }

  /// The pane's program, once it runs.
  func pid(_ session: TmuxSession) throws -> Int32 {
    for _ in 0..<100 {
      if let pid = session.programPID { return pid }
      usleep(50_000)
    }
    return try #require(session.programPID)
  }

  @Test(arguments: [SIGTERM, SIGHUP, SIGINT])
  func aSignalWhileIdleRestoresTheTerminalAndKeepsTheJar(_ signal: Int32) throws {
    let (path, folder) = try workspace()
    defer { try? FileManager.default.removeItem(at: folder) }
    let session = try TmuxSession([try reqbenchBinary.path, path])
    try session.waitFor("1 Requests")
    try session.send("Enter")
    try session.waitFor("✓ succeeded")
    kill(try pid(session), signal)
    let screen = try session.waitFor("[exited \(128 + signal)]")
    #expect(!screen.contains("1 Requests"), "the TUI's screen is gone: \(screen)")
    let jar = try String(contentsOf: folder.appendingPathComponent(".reqbench/w/cookies/workspace.txt"), encoding: .utf8)
    #expect(jar.contains("\tsession\ts1"))
  }

  @Test func sigtermWhileARequestRunsCancelsAndRecordsIt() throws {
    let (path, folder) = try workspace()
    defer { try? FileManager.default.removeItem(at: folder) }
    let session = try TmuxSession([try reqbenchBinary.path, path])
    try session.waitFor("1 Requests")
    try session.send("j", "Enter")
    try session.waitFor("▶ running")
    kill(try pid(session), SIGTERM)
    let screen = try session.waitFor("[exited 143]")
    #expect(!screen.contains("▶ running"))
    let history = try runProcess(try reqbenchBinary, ["history", path])
    #expect(history.stdout.contains("slow") && history.stdout.contains("cancelled"), "\(history.stdout)")
  }

  @Test func sigtermWhileTheEditorRunsQuitsOnceItEnds() throws {
    let (path, folder) = try workspace()
    defer { try? FileManager.default.removeItem(at: folder) }
    let editor = folder.appendingPathComponent("slow-editor.sh").path
    try "#!/bin/sh\nsleep 1\nprintf 'edited' > \"$1\"\n".write(toFile: editor, atomically: true, encoding: .utf8)
    chmod(editor, 0o755)
    let session = try TmuxSession([try reqbenchBinary.path, path], environment: ["EDITOR": editor, "VISUAL": ""])
    try session.waitFor("1 Requests")
    let program = try pid(session)
    try session.send("E")
    // The editor runs (the TUI's screen is left while it does): a child of the program.
    var children = ""
    for _ in 0..<100 where children.isEmpty {
      children = (try? String(contentsOfFile: "/proc/\(program)/task/\(program)/children", encoding: .utf8)) ?? ""
      usleep(20_000)
    }
    let child = try #require(children.split(separator: " ").first.map(String.init), "the editor started")
    // The body file the editor was handed: `sh -c EDITOR "$1" sh FILE`.
    let argv = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(child)/cmdline"))).map {
      String(decoding: $0, as: UTF8.self).split(separator: "\0").map(String.init)
    } ?? []
    let body = try #require(argv.last { $0.contains("reqbench-body-") }, "\(argv)")
    kill(program, SIGTERM)
    let screen = try session.waitFor("[exited 143]", timeout: 15)
    #expect(!screen.contains("1 Requests"))
    #expect(!FileManager.default.fileExists(atPath: body), "the body file does not outlive the process")
  }
}
