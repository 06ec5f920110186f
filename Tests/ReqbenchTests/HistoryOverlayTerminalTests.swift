import Foundation
import TestSupport
import Testing

/// `H` in the real binary, in tmux: history recorded by a `run` in another process and by the
/// TUI itself, filtered as you type, shown in the viewer, sent again, and a user's slips (a
/// filter that matches nothing, Esc twice).
@Suite("TUI end to end: the history overlay (tmux)", .serialized)
struct HistoryOverlayTerminalTests {
  @Test func historyOfEveryRequestFromTheKeyboard() throws {
    let (file, folder) = try workspaceFile(
      #"""
      {"version": 1, "baseURL": "\#(try TestServer.fixture.baseURL)", "requests": [
        {"name": "users/list", "url": "/users"},
        {"name": "users/missing", "url": "/users/999"},
        {"name": "small", "url": "/files/small.json"}]}
      """#)
    defer { try? FileManager.default.removeItem(at: folder) }
    // History from another process first: a `run` of two of the requests.
    let run = try runProcess(try reqbenchBinary, ["run", file, "users/list", "users/missing"], timeout: 60)
    #expect(run.status == 1, "users/missing answers 404: \(run.stderr)")

    let session = try TmuxSession([try reqbenchBinary.path, file])
    try session.waitFor("users/")
    // One more from the TUI: `small`.
    try session.send("/")
    try session.type("small")
    try session.send("Enter")
    try session.waitFor("Requests /small")
    try session.send("Enter")
    try session.waitFor("✓ succeeded")

    // H: all three, newest first; the run's entries as well as the TUI's own.
    try session.send("H")
    var screen = try session.waitFor("History · 3")
    #expect(screen.contains("filter:"))
    let rows = lines(screen).filter { $0.contains("users/list") || $0.contains("users/missing") || $0.contains("small") }
    #expect(rows.first?.contains("small") == true, "newest first:\n\(screen)")
    #expect(screen.contains("404"), "\(screen)")

    // A slip: a filter nothing matches, then the right one.
    try session.type("zzzz")
    try session.waitFor("nothing in history matches")
    for _ in 0..<4 { try session.send("BSpace") }
    try session.type("404")
    screen = try session.waitFor("History · 1")
    #expect(screen.contains("users/missing"), "\(screen)")

    // Enter shows the exchange in the response pane.
    try session.send("Enter")
    screen = try session.waitFor("Response · users/missing · history")
    #expect(screen.contains("404"), "\(screen)")
    try session.waitForAbsence("History · ")

    // Back in: Tab to the list, s sends the entry again (a fourth entry).
    try session.send("H")
    try session.waitFor("History · 3")
    try session.type("users/list")
    try session.waitFor("History · 1")
    try session.send("Tab")
    try session.send("s")
    try session.waitForAbsence("History · ")
    try session.send("H")
    try session.waitFor("History · 4")
    // Esc clears the filter (nothing to clear here), Esc again closes.
    try session.send("Escape")
    try session.waitForAbsence("History · ")
    try session.send("q")
    try session.waitFor("[exited 0]")
  }

  func lines(_ screen: String) -> [String] { screen.split(separator: "\n").map(String.init) }
}
