import Foundation
import RequestEngine
import TestSupport
import Testing

/// A stream's Events tab: the real binary in tmux against the fixture server's `/sse/ticker`, as
/// a user watches a stream: it follows the tail, `k` holds it, `F` follows again, `/` finds an
/// event, `|` runs jq over each event (and the new ones), `w` writes the events as NDJSON, `c`
/// ends the stream with its events kept.
@Suite("TUI end to end: a stream's Events tab (tmux)", .serialized)
struct TUIEventsTests {
  /// The selected row (`▸`) of the Events list: its event index.
  func selectedIndex(_ screen: String) -> Int? {
    guard let line = screen.split(separator: "\n").first(where: { $0.contains("││ ▸ ") }),
      let marker = line.range(of: "││ ▸ ")
    else { return nil }
    return Int(line[marker.upperBound...].drop(while: { $0 == " " }).prefix(while: \.isNumber))
  }

  /// The count in the tab line (`142 events`).
  func eventCount(_ screen: String) -> Int? {
    guard let line = screen.split(separator: "\n").first(where: { $0.contains("[Events]") }),
      let range = line.range(of: #"[0-9]+ events?"#, options: .regularExpression)
    else { return nil }
    return Int(line[range].prefix(while: \.isNumber))
  }

  /// The numbers the rows show in their last column (jq's outputs, `35 B  20`).
  func jqOutputs(_ screen: String) -> [Int] {
    screen.split(separator: "\n").compactMap { line in
      guard line.contains("││ "), let size = line.range(of: " B  ", options: .backwards) else { return nil }
      return Int(line[size.upperBound...].prefix { $0 != "│" }.trimmingCharacters(in: .whitespaces))
    }
  }

  /// Polls the screen (bounded) until `condition` holds.
  @discardableResult
  func waitUntil(_ session: TmuxSession, timeout: Double = 10, _ what: String, _ condition: (String) -> Bool) throws -> String {
    let deadline = Date().addingTimeInterval(timeout)
    var screen = ""
    while Date() < deadline {
      screen = try session.screen()
      if condition(screen) { return screen }
      usleep(50_000)
    }
    Issue.record("timed out waiting for \(what); the screen was:\n\(screen)")
    return screen
  }

  @Test func followHoldSearchJQWriteAndEndATicker() throws {
    let url = try TestServer.fixture.url("/sse/ticker?interval=0.1")
    let (path, folder) = try workspaceFile(
      #"{"version": 1, "requests": [{"name": "ticker", "url": "\#(url)", "timeout": 0}]}"#)
    defer { try? FileManager.default.removeItem(at: folder) }
    let session = try TmuxSession([try reqbenchBinary.path, path])
    try session.waitFor("1 Requests")
    try session.send("Enter")
    // The viewer opens the stream on its Events tab and follows it.
    var screen = try session.waitFor("[Events]")
    try session.send("3")
    screen = try waitUntil(session, "5 events") { (self.eventCount($0) ?? 0) >= 5 }
    #expect(screen.contains("following"), "\(screen)")
    #expect(screen.contains("TIME") && screen.contains("TYPE") && screen.contains("SIZE") && screen.contains("DATA"), "\(screen)")
    #expect(screen.contains(#"{"tick":"#), "\(screen)")
    #expect(screen.contains("── event "), "\(screen)")
    #expect(screen.contains(#""tick": "#), "the detail pretty-prints the JSON data: \(screen)")
    #expect(screen.contains("stream · "), "the queue row: \(screen)")
    // Following: the selection moves on with the tail.
    let first = try #require(selectedIndex(screen))
    screen = try waitUntil(session, "the selection to follow") { (self.selectedIndex($0) ?? 0) >= first + 3 }

    // k holds the list: new events come, the selection stays.
    try session.send("k")
    screen = try session.waitFor("held · F follows")
    let held = try #require(selectedIndex(screen))
    let countThen = eventCount(screen) ?? 0
    screen = try waitUntil(session, "more events") { (self.eventCount($0) ?? 0) >= countThen + 3 }
    #expect(selectedIndex(screen) == held, "\(screen)")
    try session.send("F")
    screen = try session.waitFor("following")
    screen = try waitUntil(session, "the selection back on the tail") { (self.selectedIndex($0) ?? 0) > held + 1 }

    // / finds the event whose data holds it.
    try session.send("/")
    try session.type(#""tick":2}"#)
    try session.send("Enter")
    screen = try session.waitFor(#"/"tick":2}: event 1 (match 1 of 1)"#)
    #expect(selectedIndex(screen) == 1, "\(screen)")

    // | runs jq over each event, then over the new ones as they come.
    try session.send("|", "C-u")
    try session.type(".tick * 10")
    try session.send("Enter")
    screen = try session.waitFor("JQ .tick * 10")
    screen = try waitUntil(session, "jq's outputs") { self.jqOutputs($0).contains(20) }
    try session.send("F")
    let jqCount = eventCount(try session.screen()) ?? 0
    screen = try waitUntil(session, "jq's output for new events") { (self.jqOutputs($0).max() ?? 0) >= (jqCount + 3) * 10 }
    // Esc clears it: the data again.
    try session.send("Escape")
    screen = try waitUntil(session, "DATA again") { $0.contains("  DATA") }

    // w writes the events kept as NDJSON, as run --json prints them.
    let out = folder.appendingPathComponent("ticker.ndjson").path
    try session.send("w")
    try session.waitFor("write events as NDJSON to")
    try session.send("C-u")
    try session.type(out)
    try session.send("Enter")
    try session.waitFor("events written to")
    let lines = try String(contentsOfFile: out, encoding: .utf8).split(separator: "\n")
    #expect(lines.count >= 5)
    let firstLine = try JSONParser.parse(Array(lines[0].utf8))
    #expect(firstLine["event"]?.stringValue == "stream")
    #expect(firstLine["name"]?.stringValue == "ticker")
    #expect(firstLine["type"]?.stringValue == "tick")
    #expect(firstLine["data"]?.stringValue == #"{"tick":1}"#)

    // c ends the stream: cancelled, its events kept and shown.
    try session.send("c")
    screen = try session.waitFor("⊘ cancelled")
    #expect(screen.contains("[Events]") && screen.contains(#"{"tick":"#), "\(screen)")
    let ended = eventCount(screen)
    usleep(500_000)
    #expect(eventCount(try session.screen()) == ended)
    // The stream ended, jq cleared: idle means idle (no redraw, no jq run, no tick).
    try session.expectIdle()
    try session.quit()
  }
}
