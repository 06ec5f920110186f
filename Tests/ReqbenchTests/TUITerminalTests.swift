import Foundation
import TerminalUI
import TestSupport
import Testing

/// What the real binary leaves on a real terminal (tmux): wide characters, colours, the tty
/// settings, and the committed screenshots.
@Suite("TUI end to end: the terminal (tmux)", .serialized)
struct TUITerminalTests {
  /// A workspace of `names` (GET requests to nowhere), in a fresh folder.
  func workspace(_ names: [String]) throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rb-tui-term-" + uniqueKey())
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let file = dir.appendingPathComponent("ws.json").path
    let requests = names.map { #"{"name": "\#($0)", "url": "http://127.0.0.1:9/x"}"# }.joined(separator: ", ")
    try #"{"version": 1, "requests": [\#(requests)]}"#.write(toFile: file, atomically: true, encoding: .utf8)
    return file
  }

  /// The column of every `│` on a line, counted as the terminal does (wide characters 2).
  func borderColumns(_ line: String) -> [Int] {
    var columns: [Int] = []
    var x = 0
    for c in line {
      if c == "│" { columns.append(x) }
      x += TextWidth.of(c)
    }
    return columns
  }

  @Test func emojiWithSkinTonesAndJoinersKeepTheBordersInPlace() throws {
    let names = ["thumbs 👍🏽 up", "family 👨‍👩‍👧 here", "flag 🇫🇷 fr", "日本語 api", "plain"]
    let session = try TmuxSession([try reqbenchBinary.path, try workspace(names)], width: 100, height: 30)
    let screen = try session.waitFor("plain")
    let lines = screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let plain = try #require(lines.first { $0.contains("GET    plain") })
    let expected = borderColumns(plain)
    #expect(expected.count >= 3, "the plain row: \(plain)")
    for name in ["thumbs", "family", "flag", "日本語"] {
      let line = try #require(lines.first { $0.contains("GET    " + name) }, "no row for \(name) in\n\(screen)")
      #expect(borderColumns(line) == expected, "\(name): \(line)")
    }
    // The selected row is drawn again after a move, and the editor title shows the name.
    try session.send("j")
    let moved = try session.waitFor("Editor · family")
    let title = try #require(moved.split(separator: "\n").first.map(String.init))
    #expect(TextWidth.of(title) == 100, "\(title)")
    #expect(title.hasSuffix("┐"))
    try session.send("j")
    let flag = try session.waitFor("Editor · flag FR fr")
    #expect(flag.split(separator: "\n").first.map { TextWidth.of(String($0)) } == 100)
    try session.send("q")
    try session.waitFor("[exited 0]")
  }
}
