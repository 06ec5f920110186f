import Base
import Foundation
import RequestEngine
import TestSupport
import Testing

/// Nothing a server or a workspace file holds reaches the terminal raw: every
/// command's lines, messages and JSON go through the one escaping (`ControlEscaping`).
@Suite struct TerminalEscapingTests {
  /// A raw control character a terminal would act on: C0 but newline, DEL, C1, bidi controls.
  static func rawControls(_ text: String) -> [String] {
    text.unicodeScalars.filter { s in
      let v = s.value
      return (v < 0x20 && v != 0x0A) || (0x7F...0x9F).contains(v) || [0x061C, 0x200E, 0x200F, 0x2028, 0x2029].contains(v)
        || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }.map { "U+" + String($0.value, radix: 16) }
  }

  func expectSafe(_ result: ProcessResult, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    #expect(Self.rawControls(result.stdout) == [], "stdout: \(result.stdout)", sourceLocation: sourceLocation)
    #expect(Self.rawControls(result.stderr) == [], "stderr: \(result.stderr)", sourceLocation: sourceLocation)
  }

  func reqbench(_ args: [String], in folder: URL) throws -> ProcessResult {
    try runProcess(try reqbenchBinary, args, currentDirectory: folder)
  }

  @Test func requestNamesAndServerBytesAreEscapedInEveryCommand() throws {
    let (ws, folder) = try copyOfFixture("hardening/terminal-escapes.json")
    defer { try? FileManager.default.removeItem(at: folder) }
    let host = ["--var", "host=" + (try TestServer.fixture.baseURL)]
    let name = "n\u{1b}]0;NAME-TITLE\u{07}\u{9b}31m\u{202e}"

    // `run` of several targets: the name in the result lines; the body stays out.
    let lines = try reqbench(["run", ws, "capsrc", name, "cached\u{1b}[2J\u{2066}"] + host, in: folder)
    #expect(lines.status == 0, "\(lines.stderr)")
    expectSafe(lines)
    #expect(lines.stdout.contains(#"n\x1b]0;NAME-TITLE\x07\x9b31m\u202e"#))
    #expect(lines.stdout.contains(#"cached\x1b[2J\u2066"#))

    // One target: the status line on stderr is escaped; the body piped stays as the server sent it.
    let one = try reqbench(["run", ws, name] + host, in: folder)
    #expect(Self.rawControls(one.stderr) == [], "\(one.stderr)")
    #expect(one.stderr.hasPrefix(#"n\x1b]0;NAME-TITLE\x07\x9b31m\u202e: 200 OK"#))
    #expect(one.stdout.contains("\u{1b}]52;c;") && one.stdout.contains("\u{202e}"))

    // A failed capture shows the start of the body it ran on: escaped.
    let capture = try reqbench(["run", ws, "capchain"] + host, in: folder)
    #expect(capture.status == 1)
    expectSafe(capture)
    #expect(capture.stderr.contains(#"\x1b]52;c;"#) || capture.stdout.contains(#"\x1b]52;c;"#), "\(capture.stderr)")

    // history: the table and the JSON lines.
    let history = try reqbench(["history", ws], in: folder)
    #expect(history.status == 0)
    expectSafe(history)
    #expect(history.stdout.contains(#"n\x1b]0;NAME-TITLE\x07\x9b31m\u202e"#))
    let historyJSON = try reqbench(["history", ws, "--json"], in: folder)
    expectSafe(historyJSON)
    let names = try historyJSON.stdout.split(separator: "\n").map { try JSONParser.parse(String($0))["name"]?.stringValue }
    #expect(names.contains(name), "the JSON means the raw name: \(names)")

    // cache ls: the table.
    let cache = try reqbench(["cache", "ls", ws], in: folder)
    #expect(cache.status == 0)
    expectSafe(cache)
    #expect(cache.stdout.contains(#"cached\x1b[2J\u2066"#), "\(cache.stdout)")

    // A URL error names the URL as filled in: escaped on stderr and in --json.
    let badValue = ["--var", "v=a\u{1b}]0;URL\u{07}\u{9b}1m b"]
    let url = try reqbench(["run", ws, "badurl"] + host + badValue, in: folder)
    #expect(url.status == 2)
    expectSafe(url)
    #expect(url.stderr.contains(#"a\x1b]0;URL\x07\x9b1m b"#) && url.stderr.contains("contains a control character"), "\(url.stderr)")
    let urlJSON = try reqbench(["run", ws, "badurl", "--json"] + host + badValue, in: folder)
    expectSafe(urlJSON)
    let summary = try JSONParser.parse(String(urlJSON.stdout.split(separator: "\n").last ?? ""))
    let message = summary["results"]?.arrayValue?.first?["error"]?["message"]?.stringValue ?? ""
    #expect(message.contains("a\u{1b}]0;URL\u{07}\u{9b}1m b"), "the JSON means the raw text: \(message)")
  }

  /// `import` names what it imported: escaped. The name's control characters become spaces (the
  /// name rules); the warning that says so names the name as written, escaped.
  @Test func importMessagesAreEscaped() throws {
    let (ws, folder) = try workspaceFile(#"{"version": 1, "requests": []}"#)
    defer { try? FileManager.default.removeItem(at: folder) }
    let result = try reqbench(["import", "http", fixtureFile("hardening/terminal-escapes.http").path, "--into", ws], in: folder)
    #expect(result.status == 0, "\(result.stderr)")
    expectSafe(result)
    #expect(result.stderr.contains(#"imported imp ]0;TITLE  \u202e (GET http://127.0.0.1:1/x)"#), "\(result.stderr)")
    #expect(
      result.stderr.contains(#"the request named "imp\u001b]0;TITLE\u0007\x9b\u202e" is imported as "imp ]0;TITLE  \u202e""#),
      "\(result.stderr)")
  }
}
