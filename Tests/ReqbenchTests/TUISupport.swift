import Foundation
import RequestEngine
import TestSupport
import Testing

// What the tmux suites (TUITests, TUIDefectsTests, TUIExploreTests, TUIEnvironmentTests,
// TUIClipboardAndDiskTests, TUIFromNothingTests…) share: the session, pasting into it, quitting
// it, a workspace file that does not exist yet, a second fixture server and its counters.

/// Drives the real binary in tmux as a person would: `tmux new-session -d -x 160 -y 45`,
/// `send-keys`, `capture-pane -p`.
final class TmuxSession {
  let name = "rb-" + uniqueKey()

  /// Runs `command` in a shell that reports its exit status on screen afterwards
  /// (`[exited 0]`), so tests can see how the program ended and that the terminal was restored.
  init(_ command: [String], width: Int = 160, height: Int = 45, environment: [String: String] = [:]) throws {
    let environment = environment.merging(["LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"]) { mine, _ in mine }
    let env = environment.map { "\($0.key)=\(shellQuote($0.value))" }.joined(separator: " ")
    // The test runner may set NO_COLOR (the tmux server passes its environment on): a session
    // has colours unless the test asks for NO_COLOR.
    let unset = environment["NO_COLOR"] == nil ? "-u NO_COLOR " : ""
    let line = "env \(unset)\(env) " + command.map(shellQuote).joined(separator: " ")
    // The private server exits with its last session; a session started while it is going away
    // can be lost with it. Start again until the session is there.
    var problem = ""
    for _ in 0..<20 {
      let started = try run([
        "new-session", "-d", "-s", name, "-x", "\(width)", "-y", "\(height)",
        "sh -c \(shellQuote(line + "; echo \"[exited $?]\"; sleep 600"))",
      ])
      if try run(["has-session", "-t", name]).status == 0 { return }
      problem = started.stderr
      usleep(100_000)
    }
    Issue.record("tmux could not start the session: \(problem)")
  }

  deinit { _ = try? tmux(["kill-session", "-t", name]) }

  /// A tmux server of this test process's own (`-L`): the first session starts it, as in CI, and
  /// a developer's own server can neither be disturbed nor hide a problem with starting one.
  static let socket = "reqbench-tests-\(getpid())"

  /// tmux with UTF-8 forced (`-u`) and a UTF-8 locale, whatever the environment says: the TUI's
  /// glyphs must come back from `capture-pane` as they were drawn.
  @discardableResult
  func tmux(_ args: [String]) throws -> String { try run(args).stdout }

  func run(_ args: [String]) throws -> ProcessResult {
    try runProcess(
      URL(fileURLWithPath: "/usr/bin/tmux"), ["-u", "-L", Self.socket] + args,
      environment: ["LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"])
  }

  func send(_ keys: String...) throws { try tmux(["send-keys", "-t", name] + keys) }

  func type(_ text: String) throws { try tmux(["send-keys", "-t", name, "-l", text]) }

  func screen() throws -> String { try tmux(["capture-pane", "-p", "-t", name]) }

  /// Waits until the screen contains `text` (the app redraws within 1/30 s of a change).
  @discardableResult
  func waitFor(_ text: String, timeout: Double = 10) throws -> String {
    let deadline = Date().addingTimeInterval(timeout)
    var last = ""
    while Date() < deadline {
      last = try screen()
      if last.contains(text) {
        // The screen as a whole frame: a capture can fall between two parts of one frame's
        // drawing, so the rest of the screen is read again once the frame is surely out.
        usleep(80_000)
        let settled = try screen()
        if settled.contains(text) { return settled }
      }
      usleep(50_000)
    }
    Issue.record("timed out waiting for \"\(text)\"; the screen was:\n\(last)")
    return last
  }

  /// Returns once every key sent before has been handled: keys are handled in order, so the keys
  /// overlay (`?`) opening and then closing again (on `x`, which it swallows) comes after them.
  func waitForKeysHandled() throws {
    try send("?")
    let overlay = { (screen: String) in screen.contains("other keys close") || screen.contains("any key closes") }
    let shown = try screen(when: overlay)
    guard overlay(shown) else {
      Issue.record("the keys overlay did not open; the screen was:\n\(shown)")
      return
    }
    try send("x")
    let closed = try screen { !overlay($0) }
    if overlay(closed) { Issue.record("the keys overlay did not close; the screen was:\n\(closed)") }
    usleep(80_000)  // the frame that closed it is out in full (as in `waitFor`)
  }

  /// Waits until `holds` is true of the screen (read every 50 ms, at most `timeout` seconds) and
  /// returns that screen, or the last one read: the caller checks it, saying what it expected.
  func screen(when holds: (String) -> Bool, timeout: Double = 10) throws -> String {
    let deadline = Date().addingTimeInterval(timeout)
    var last = try screen()
    while !holds(last) && Date() < deadline {
      usleep(50_000)
      last = try screen()
    }
    return last
  }

  /// The program's pid: the child of the pane's shell.
  var programPID: Int32? {
    guard let shell = Int32((try? tmux(["list-panes", "-t", name, "-F", "#{pane_pid}"]))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""),
      let children = try? String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
    else { return nil }
    return children.split(separator: " ").first.flatMap { Int32($0) }
  }

  /// Waits until the screen no longer contains `text`.
  func waitForAbsence(_ text: String, timeout: Double = 5) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if try !screen().contains(text) { return }
      usleep(50_000)
    }
    Issue.record("\"\(text)\" is still on the screen")
  }
}

func shellQuote(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'" }

/// CPU time (user + system clock ticks) a process has used so far.
func cpuTicks(_ pid: Int32) -> Int? {
  guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
    let close = stat.lastIndex(of: ")")
  else { return nil }
  let fields = stat[stat.index(after: close)...].split(separator: " ")
  guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
  return user + system
}

extension TmuxSession {
  /// Idle means idle: the program uses at most one clock tick of CPU over `window` seconds. The
  /// windows are measured back to back, the last one starting at most `settle` seconds from now
  /// (work already under way, such as the history writer's delayed index fill, may end first);
  /// none quiet, or no program or CPU figure to read, fails the test.
  func expectIdle(window: Double = 2, settle: Double = 0, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
    let pid = try #require(programPID, "the program's pid", sourceLocation: sourceLocation)
    let start = Date()
    var used = 0
    repeat {
      let before = try #require(cpuTicks(pid), "the program's CPU time", sourceLocation: sourceLocation)
      usleep(useconds_t(window * 1_000_000))
      let after = try #require(cpuTicks(pid), "the program's CPU time", sourceLocation: sourceLocation)
      used = after - before
      if used <= 1 { return }
    } while Date().timeIntervalSince(start) <= settle
    Issue.record("used \(used) ticks in \(window) s while idle", sourceLocation: sourceLocation)
  }

  /// Pastes `text` as a terminal does: `tmux load-buffer` then `paste-buffer`, with `-p` the
  /// bracketed way when the program asked for it.
  func paste(_ text: String, bracketed: Bool) throws {
    let file = scratchURL("rb-paste")
    try text.write(to: file, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: file) }
    try tmux(["load-buffer", "-b", name, file.path])
    try tmux(["paste-buffer", "-d", "-b", name, "-t", name] + (bracketed ? ["-p"] : []))
  }
}

extension TmuxSession {
  /// `q`, then the shell's `[exited 0]`: the program quit and gave the terminal back.
  /// `n`, `text` typed at the new-request prompt and Enter: the screen once it asks for the name.
  @discardableResult
  func newRequest(_ text: String) throws -> String {
    try send("n")
    try waitFor("new request (METHOD URL, curl, http or .http)")
    try type(text)
    try send("Enter")
    return try waitFor("name (folders with /)")
  }

  func quit() throws {
    try send("q")
    try waitFor("[exited 0]")
  }
}

/// A path in a fresh folder where no file is yet.
func missingWorkspaceFile() throws -> (path: String, folder: URL) {
  let folder = scratchURL("rb-explore")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  return (folder.appendingPathComponent("api.json").path, folder)
}

/// A second fixture server (`reqbench demo-server --port 0`) beside the one `.ci/test` started.
final class SecondServer {
  let running: RunningReqbench
  let baseURL: String

  init() throws {
    running = try RunningReqbench(["demo-server", "--port", "0"])
    _ = running.read(until: { $0.contains("listening on ") && $0.hasSuffix("\n") }, timeout: 10)  // the line is checked below
    guard let line = running.output.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }) else {
      throw ServerUnavailable(what: "demo-server: \(running.output)")
    }
    baseURL = String(line.dropFirst("listening on ".count)).trimmingCharacters(in: CharacterSet(charactersIn: "/ "))
  }

  deinit {
    running.process.terminate()
    running.process.waitUntilExit()
  }
}

/// The requests a server counted under `key`.
func hits(_ baseURL: String, _ key: String) throws -> Int {
  let agent = Agent()
  defer { agent.shutdown() }
  let result = agent.sendAndWait(Request(url: baseURL + "/hits?key=\(key)", dedup: false))
  guard let body = try result.response?.body.bytes(), let count = try JSONParser.parse(body)["hits"]?.intValue else {
    throw ServerUnavailable(what: baseURL + "/hits?key=\(key)")
  }
  return count
}

struct ServerUnavailable: Error, CustomStringConvertible {
  var what: String
  var description: String { "no answer: \(what)" }
}
