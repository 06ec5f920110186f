import Foundation
import JSON
import RequestEngine
import TestSupport
import Testing

/// The cookie jar in the TUI, as a user meets them: the real binary in tmux against httpbin's
/// `/cookies/set` and `/cookies`, the jar file in the state folder, and a `reqbench cookies rm` in
/// another process while the TUI runs.
@Suite("TUI end to end: the cookie jar (tmux)", .serialized)
struct TUICookiesTests {
  @Test func aLoginsCookieIsKeptShownSentAndDeleted() throws {
    let httpbin = try TestServer.httpbin.url("")
    let (path, folder) = try workspaceFile(
      #"""
      {"version": 1, "baseURL": "\#(httpbin)",
       "requests": [
         {"name": "login", "url": "/cookies/set?session=abc%31%32%33"},
         {"name": "whoami", "url": "/cookies"}
       ]}
      """#)
    defer { try? FileManager.default.removeItem(at: folder) }
    let jar = folder.appendingPathComponent(".reqbench/w/cookies/workspace.txt")
    let session = try TmuxSession([try reqbenchBinary.path, path])
    try session.waitFor("1 Requests")
    // A first look at the jar: empty, and it says where cookies come from.
    try session.send("K")
    try session.waitFor("no cookies: a response's Set-Cookie lands here")
    try session.send("Escape")
    try session.waitForAbsence("Cookies ·")

    // The login's Set-Cookie (on its 302) lands in the jar and its file.
    try session.send("Enter")
    try session.waitFor("✓ succeeded")
    try session.send("K")
    var screen = try session.waitFor("Cookies · the workspace (no environment)")
    screen = try session.waitFor("1 cookie ·")
    #expect(screen.contains("session") && screen.contains("••••") && !screen.contains("abc123"), "\(screen)")
    try session.send("r")
    try session.waitFor("abc123")
    try session.send("r")
    try session.waitForAbsence("abc123")
    try session.send("Escape")
    #expect(try waitForFile(jar) { $0.contains("\tsession\tabc123") })

    // The next request sends it: its queue row and its Request tab say so.
    try session.send("j", "Enter")
    try waitForSucceeded(session, 2)
    screen = try session.waitFor("cookie session")
    try session.waitFor(#""session": "abc123""#)

    // Another process removes it from the file: the TUI's next send goes without it.
    let removed = try runProcess(try reqbenchBinary, ["cookies", "rm", path, "session"], currentDirectory: folder)
    #expect(removed.status == 0, "\(removed.stderr)")
    try session.send("Enter")
    try waitForSucceeded(session, 3)
    try session.waitFor(#""cookies": {}"#)
    try session.send("K")
    try session.waitFor("no cookies: a response's Set-Cookie lands here")
    try session.send("Escape")

    // Log in again, and delete it with d in the overlay: gone from the jar and the file.
    try session.send("k", "Enter")
    try waitForSucceeded(session, 4)
    try session.send("K")
    try session.waitFor("1 cookie ·")
    try session.send("d")
    try session.waitFor("deleted the cookie session of 127.0.0.1")
    try session.waitFor("no cookies: a response's Set-Cookie lands here")
    try session.send("Escape")
    #expect(try waitForFile(jar) { !$0.contains("session") })

    // D twice clears what a new login set; the file is written at once and again at quit.
    try session.send("Enter")
    try waitForSucceeded(session, 5)
    try session.send("K")
    try session.waitFor("1 cookie ·")
    try session.send("D")
    try session.waitFor("D again clears")
    try session.send("D")
    try session.waitFor("cleared 1 cookie of the workspace")
    try session.send("Escape")
    try session.quit()
    let text = try String(contentsOf: jar, encoding: .utf8)
    #expect(text.hasPrefix("# Netscape HTTP Cookie File") && !text.contains("session"), "\(text)")
  }

  /// `reqbench WS --no-cookies`: the overlay says the jar is off, sends keep nothing.
  @Test func noCookiesSendsAndKeepsNone() throws {
    let httpbin = try TestServer.httpbin.url("")
    let (path, folder) = try workspaceFile(
      #"{"version": 1, "baseURL": "\#(httpbin)", "requests": [{"name": "login", "url": "/cookies/set?session=x"}]}"#)
    defer { try? FileManager.default.removeItem(at: folder) }
    let session = try TmuxSession([try reqbenchBinary.path, path, "--no-cookies"])
    try session.waitFor("1 Requests")
    try session.send("Enter")
    try waitForSucceeded(session, 1)
    try session.waitFor(#""cookies": {}"#)  // the redirect to /cookies went without it
    try session.send("K")
    try session.waitFor("cookies are off (--no-cookies)")
    try session.send("Escape")
    try session.quit()
    #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent(".reqbench/w/cookies").path))
  }

  /// An environment renamed in the TUI keeps its cookies: sent with before the save (its jar
  /// still under the old name), moved to the new name by Ctrl-S, and sent with after it.
  @Test func aRenamedEnvironmentKeepsItsCookies() throws {
    let httpbin = try TestServer.httpbin.url("")
    let (path, folder) = try workspaceFile(
      #"""
      {"version": 1, "baseURL": "\#(httpbin)",
       "environments": {"dev": {"who": "ada"}}, "environment": "dev",
       "requests": [
         {"name": "login", "url": "/cookies/set?session={{who}}"},
         {"name": "whoami", "url": "/cookies"}
       ]}
      """#)
    defer { try? FileManager.default.removeItem(at: folder) }
    let jars = folder.appendingPathComponent(".reqbench/w/cookies")
    let session = try TmuxSession([try reqbenchBinary.path, path])
    try session.waitFor("1 Requests")
    try session.send("Enter")
    try waitForSucceeded(session, 1)
    #expect(try waitForFile(jars.appendingPathComponent("env-dev.txt")) { $0.contains("\tsession\tada") })

    // v, r: a name that cannot be one first, then staging.
    try session.send("v", "r")
    try session.waitFor("rename environment dev to")
    try session.type("my env")
    try session.send("Enter")
    try session.waitFor("cannot name an environment")
    try session.send("C-u")
    try session.type("staging")
    try session.send("Enter")
    try session.waitFor("environment dev renamed staging")
    try session.send("Escape")
    try session.waitFor("env staging")
    try session.send("j", "Enter")
    try waitForSucceeded(session, 2)
    try session.waitFor(#""session": "ada""#)
    #expect(FileManager.default.fileExists(atPath: jars.appendingPathComponent("env-dev.txt").path), "not saved yet")

    try session.send("C-s")
    try session.waitFor("saved \(path)")
    let saved = try JSONParser.parse(Array(try String(contentsOfFile: path, encoding: .utf8).utf8))
    #expect(saved["environment"]?.stringValue == "staging")
    #expect(saved["environments"]?["staging"]?["who"]?.stringValue == "ada" && saved["environments"]?["dev"] == nil)
    #expect(try waitForFile(jars.appendingPathComponent("env-staging.txt")) { $0.contains("\tsession\tada") })
    #expect(!FileManager.default.fileExists(atPath: jars.appendingPathComponent("env-dev.txt").path))
    try session.send("Enter")
    try waitForSucceeded(session, 3)
    try session.quit()
    // The next process finds it under the new name.
    let whoami = try runProcess(try reqbenchBinary, ["run", path, "whoami"], currentDirectory: folder)
    #expect(whoami.status == 0 && whoami.stdout.contains(#""session": "ada""#), "\(whoami.stdout)\(whoami.stderr)")
  }

  /// Waits (up to 10 s) until the queue shows `count` exchanges that succeeded.
  func waitForSucceeded(_ session: TmuxSession, _ count: Int) throws {
    var screen = ""
    for _ in 0..<200 {
      screen = try session.screen()
      if screen.components(separatedBy: "✓ succeeded").count - 1 >= count { return }
      usleep(50_000)
    }
    Issue.record("fewer than \(count) exchanges succeeded; the screen was:\n\(screen)")
  }

  /// Waits (up to 5 s) until the file exists and `check` holds for its text.
  func waitForFile(_ url: URL, _ check: (String) -> Bool) throws -> Bool {
    for _ in 0..<100 {
      if let text = try? String(contentsOf: url, encoding: .utf8), check(text) { return true }
      usleep(50_000)
    }
    return false
  }
}
