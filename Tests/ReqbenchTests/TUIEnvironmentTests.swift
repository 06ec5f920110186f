import Foundation
import RequestEngine
import TestSupport
import Testing

/// Issue 11's environments, variables and file watching, as a user meets them: the real binary
/// in tmux against real servers.
@Suite("TUI end to end: environments, variables, the file changing (tmux)", .serialized)
struct TUIEnvironmentTests {
  /// A second fixture server (`reqbench demo-server --port 0`) beside the one `.ci/test` started.
  final class SecondServer {
    let running: RunningReqbench
    let baseURL: String

    init() throws {
      running = try RunningReqbench(["demo-server", "--port", "0"])
      running.read(until: { $0.contains("listening on ") && $0.hasSuffix("\n") }, timeout: 10)
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
    usleep(300_000)
    #expect(try hits(second.baseURL, key) == 1, "the next send went to the other host")
    #expect(try hits(first, key) == 1)

    // Ctrl-S writes the choice as the environment key, and nothing else changes.
    let before = try String(contentsOfFile: path, encoding: .utf8)
    try session.send("C-s")
    try session.waitFor("saved")
    let after = try String(contentsOfFile: path, encoding: .utf8)
    #expect(after == before.replacingOccurrences(of: #""environment": "one""#, with: #""environment": "two""#))
    try session.send("q")
    try session.waitFor("[exited 0]")
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

struct ServerUnavailable: Error, CustomStringConvertible {
  var what: String
  var description: String { "no answer: \(what)" }
}
