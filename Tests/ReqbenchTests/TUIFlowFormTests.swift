import Foundation
import RequestEngine
import TestSupport
import Testing

/// A chain edited in the editor pane with the real binary in tmux: a capture with a broken jq
/// path refused, then one added to a step, saved (the file is checked: only the capture added).
@Suite("TUI end to end: a chain's form (tmux)", .serialized)
struct TUIFlowFormTests {
  @Test func addACaptureToAChainStepAndSave() throws {
    let folder = scratchURL("rb-flow-form")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("api.json").path
    let text = """
      {
        "version": 1,
        "name": "flows",
        "requests": [
          {"name": "login", "method": "POST", "url": "http://127.0.0.1:9/login"},
          {"name": "me", "method": "GET", "url": "http://127.0.0.1:9/me"}
        ],
        "chains": [
          {"name": "sign-in", "steps": [{"request": "login"}, {"request": "me"}]}
        ]
      }

      """
    try text.write(toFile: file, atomically: true, encoding: .utf8)

    let session = try TmuxSession([try reqbenchBinary.path, file])
    try session.waitFor("flows")
    // The chain (the list's last row), then the editor: its form and its keys.
    try session.send("G", "2")
    let form = try session.waitFor("Step 1      login")
    #expect(form.contains("+ add name = .jq.path"), "\(form)")
    #expect(form.contains("e edit · s run · d remove"), "\(form)")
    // Step 1's "+ add" capture line: On failure, Step 1, + Capture.
    try session.send("j", "j", "Enter")
    try session.type("token = .token[")
    try session.send("Enter")
    try session.waitFor("does not compile")
    try session.send("C-u")
    try session.type("token = .token")
    try session.send("Enter")
    let added = try session.waitFor("step 1 captures token")
    #expect(added.contains("token = .token"), "\(added)")
    #expect(added.contains("sign-in ●"), "\(added)")
    try session.send("C-s")
    try session.waitFor("saved \(file)")
    let saved = try String(contentsOfFile: file, encoding: .utf8)
    let json = try JSONParser.parse(Array(saved.utf8))
    let step = try #require(json["chains"]?.arrayValue?.first?["steps"]?.arrayValue?.first)
    #expect(step["capture"] == ["token": ".token"])
    // Format-preserving: the lines around the edit are as they were.
    #expect(saved.contains(#"{"name": "me", "method": "GET", "url": "http://127.0.0.1:9/me"}"#), "\(saved)")
    try session.quit()
  }
}
