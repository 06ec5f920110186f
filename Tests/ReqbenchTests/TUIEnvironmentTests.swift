import Foundation
import RequestEngine
import TestSupport
import Testing

/// Environments, variables and file watching, as a user meets them: the real binary
/// in tmux against real servers.
@Suite("TUI end to end: environments, variables, the file changing (tmux)", .serialized)
struct TUIEnvironmentTests {
  @Test func switchingTheEnvironmentSendsTheNextRequestToTheOtherHost() throws {
    let second = try SecondServer()
    let first = try TestServer.fixture.baseURL
    let key = uniqueKey("env")
    let (path, _) = try workspaceFile(
      #"""
      {
        "version": 1,
        "baseURL": "{{host}}",
        "environment": "one",
        "environments": {"one": {"host": "\#(first)"}, "two": {"host": "\#(second.baseURL)"}},
        "requests": [{"name": "who", "url": "/headers?key=\#(key)"}]
      }
      """#)
    let session = try TmuxSession([try reqbenchBinary.path, path])
    try session.waitFor("env one")
    try session.send("Enter")
    try session.waitFor("✓ succeeded")
    #expect(try hits(first, key) == 1 && hits(second.baseURL, key) == 0)

    // A new user's first tries: V shows where host comes from; Esc; then v, down, Enter.
    try session.send("V")
    var screen = try session.waitFor("Variables · who · environment one")
    #expect(screen.contains("environment one"), "\(screen)")
    try session.send("Escape")
    try session.waitForAbsence("Variables · who")
    try session.send("v")
    screen = try session.waitFor("Environments")
    #expect(screen.contains("● one"))
    try session.send("j", "Enter")
    screen = try session.waitFor("environment two: sends use it from now on")
    #expect(screen.contains("env two · 1 unsaved"), "\(screen)")
    #expect(screen.contains(second.baseURL + "/headers"), "the editor's resolved URL follows: \(screen)")
    try session.send("Enter")
    try session.waitFor("succeeded", timeout: 10)
    // (The first send's row says "succeeded" too: wait for the other host to count this one.)
    #expect(try eventually { try hits(second.baseURL, key) == 1 }, "the next send went to the other host")
    #expect(try hits(first, key) == 1)

    // Ctrl-S writes the choice as the environment key, and nothing else changes.
    let before = try String(contentsOfFile: path, encoding: .utf8)
    try session.send("C-s")
    try session.waitFor("saved")
    let after = try String(contentsOfFile: path, encoding: .utf8)
    #expect(after == before.replacingOccurrences(of: #""environment": "one""#, with: #""environment": "two""#))
    try session.quit()
  }

  @Test func aSecretSetInTheVariablesIsHiddenAndGoesToTheSecretsFile() throws {
    let (path, folder) = try workspaceFile(
      #"""
      {"version": 1, "baseURL": "\#(try TestServer.fixture.baseURL)",
       "requests": [{"name": "me", "url": "/headers", "headers": {"Authorization": "Bearer {{secret.token}}"}}]}
      """#)
    let session = try TmuxSession([try reqbenchBinary.path, path])
    try session.waitFor("1 Requests")
    try session.send("V")
    let screen = try session.waitFor("secret.token")
    #expect(screen.contains("undefined"))
    try session.send("Enter")
    try session.waitFor("secret.token (hidden")
    try session.type("hunter2")
    var typed = try session.waitFor("•••••••")
    #expect(!typed.contains("hunter2"))
    try session.send("Enter")
    typed = try session.waitFor("secret.token saved")
    #expect(!typed.contains("hunter2"))
    #expect(typed.contains("••••"))
    let secrets = try String(contentsOf: folder.appendingPathComponent("w.secrets.json"), encoding: .utf8)
    #expect(secrets.contains(#""token": "hunter2""#))
    #expect(!(try String(contentsOfFile: path, encoding: .utf8)).contains("hunter2"))
    try session.send("Escape", "q")
    try session.waitFor("[exited 0]")
  }
}
