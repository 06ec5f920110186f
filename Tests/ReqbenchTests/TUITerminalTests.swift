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
    let dir = scratchURL("rb-tui-term")
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
    try session.quit()
  }
}

/// `E`: `$EDITOR` runs on the real terminal (tmux) and can read it.
@Suite("TUI end to end: $EDITOR on the terminal (tmux)", .serialized)
struct TUIEditorTests {
  /// A workspace with one POST request whose JSON body names Grace Hopper, in a fresh folder.
  func workspace() throws -> (file: String, dir: URL) {
    let (file, dir) = try workspaceFile(
      #"{"version": 1, "requests": [{"name": "create", "method": "POST", "url": "http://127.0.0.1:9/x", "body": {"json": {"name": "Grace Hopper"}}}]}"#,
      named: "ws.json")
    return (file, dir)
  }

  /// An editor that reads the terminal: a script that asks for a line on stdin (the terminal)
  /// and writes it as the body. In a process group that is not the terminal's foreground one,
  /// its read fails (EIO) at once.
  @Test func anEditorReadingTheTerminalGetsItsInput() throws {
    let (file, dir) = try workspace()
    let script = dir.appendingPathComponent("ask.sh").path
    try """
      #!/bin/sh
      printf 'new name? '
      IFS= read -r line || exit 3
      printf '{"name": "%s"}\n' "$line" > "$1"
      """.write(toFile: script, atomically: true, encoding: .utf8)
    chmod(script, 0o755)
    let session = try TmuxSession([try reqbenchBinary.path, file], environment: ["EDITOR": script, "VISUAL": ""])
    try session.waitFor("Editor · create")
    try session.send("E")
    let asking = try session.waitFor("new name?")
    #expect(!asking.contains("Requests"), "curses mode was left:\n\(asking)")
    try session.type("Alan Turing")
    try session.send("Enter")
    let back = try session.waitFor("body updated")
    #expect(back.contains("1 Requests"), "the screen is restored:\n\(back)")
    #expect(back.contains("Alan Turing"))
    #expect(!back.contains("Grace Hopper"))
    try keysStillWorkThenQuit(session)
  }

  /// Waits until the editor has drawn its first screen in full, its last line said (vi's
  /// `"FILE" 3L, 31B`, nano's `[ Read 3 lines ]`): it has read the file and reads keys next.
  func waitForTheEditorsFirstScreen(_ session: TmuxSession) throws {
    let ready = { (screen: String) in
      screen.range(of: #"" [0-9]+L, [0-9]+B"#, options: .regularExpression) != nil || screen.contains("[ Read ")
    }
    let screen = try session.screen(when: ready)
    #expect(ready(screen), "the editor's first screen:\n\(screen)")
  }

  /// The real `vi` (`.ci` installs vim-tiny): it queries the terminal and reads keys from it.
  @Test func viEditsTheBody() throws {
    let vi = try #require(
      ["/usr/bin/vi", "/usr/bin/vim.tiny", "/usr/bin/vim"].first { FileManager.default.isExecutableFile(atPath: $0) },
      "no vi on this machine: bash .ci/test installs vim-tiny")
    let (file, _) = try workspace()
    let session = try TmuxSession([try reqbenchBinary.path, file], environment: ["EDITOR": vi, "VISUAL": ""])
    try session.waitFor("Editor · create")
    try session.send("E")
    try session.waitFor("\"name\": \"Grace Hopper\"")
    try waitForTheEditorsFirstScreen(session)
    try session.type(":%s/Grace Hopper/Alan Turing/")
    try session.send("Enter")
    try session.type(":wq")
    try session.send("Enter")
    let back = try session.waitFor("body updated")
    #expect(back.contains("1 Requests"), "the screen is restored:\n\(back)")
    #expect(back.contains("Alan Turing"))
    #expect(!back.contains("Vim: Error reading input"))
    try keysStillWorkThenQuit(session)
  }

  /// Neither `$VISUAL` nor `$EDITOR`: the system's editor, `/usr/bin/editor` (Debian's
  /// alternative, which vim-tiny provides on CI), by its path: with no `vi` on the PATH, the old
  /// default said "vi: command not found".
  @Test func withoutVisualOrEditorTheSystemEditorRuns() throws {
    let editor = try #require(
      try? FileManager.default.destinationOfSymbolicLink(atPath: "/usr/bin/editor"),
      "no /usr/bin/editor on this machine: bash .ci/test installs vim-tiny, which provides it")
    let target = URL(fileURLWithPath: editor).resolvingSymlinksInPath().lastPathComponent
    let (file, _) = try workspace()
    let session = try TmuxSession(
      [try reqbenchBinary.path, file], environment: ["EDITOR": "", "VISUAL": "", "PATH": "/nonexistent"])
    try session.waitFor("Editor · create")
    try session.send("E")
    let editing = try session.waitFor("\"name\": \"Grace Hopper\"")
    #expect(!editing.contains("command not found"), "\(editing)")
    try waitForTheEditorsFirstScreen(session)
    if target.hasPrefix("nano") {
      try session.send("C-x")
    } else {
      try session.send("Escape")
      try session.type(":q!")
      try session.send("Enter")
    }
    let back = try session.waitFor("body unchanged")
    #expect(back.contains("1 Requests") && !back.contains("$EDITOR failed"), "\(back)")
    try keysStillWorkThenQuit(session)
  }

  /// After the editor: keys work as before (the mouse and keys were taken back, no stray input
  /// was left), and quitting discards the unsaved body.
  func keysStillWorkThenQuit(_ session: TmuxSession) throws {
    try session.send("?")
    try session.waitFor("other keys close")
    try session.send("x")
    try session.waitForAbsence("other keys close")
    try session.send("q")
    try session.send("d")
    try session.waitFor("[exited 0]")
  }

  @Test func aFailingEditorIsReported() throws {
    let (file, _) = try workspace()
    let session = try TmuxSession([try reqbenchBinary.path, file], environment: ["EDITOR": "false", "VISUAL": ""])
    try session.waitFor("Editor · create")
    try session.send("E")
    let screen = try session.waitFor("$EDITOR failed")
    #expect(screen.contains("false exited with status 1"))
    #expect(screen.contains("1 Requests"))
    try session.quit()
  }
}

/// SGR colour parameters in `capture-pane -e` output: 30–37/40–47 are the eight basic colours,
/// 90–97/100–107 the bright ones, 38/48 extended (`38;5;n`). 39/49 (default) are not colours.
func colourCodes(_ screen: String) -> [String] {
  var codes: [String] = []
  var rest = screen[...]
  while let start = rest.range(of: "\u{1b}[") {
    rest = rest[start.upperBound...]
    guard let end = rest.firstIndex(where: { $0.isLetter }) else { break }
    if rest[end] == "m" {
      let params = rest[..<end].split(separator: ";", omittingEmptySubsequences: false).map(String.init)
      var i = 0
      while i < params.count {
        guard let n = Int(params[i]) else {
          i += 1
          continue
        }
        if n == 38 || n == 48 {
          codes.append(params[i...].prefix(params.count > i + 1 && params[i + 1] == "2" ? 5 : 3).joined(separator: ";"))
          i += params.count > i + 1 && params[i + 1] == "2" ? 5 : 3
          continue
        }
        if (30...37).contains(n) || (40...47).contains(n) || (90...97).contains(n) || (100...107).contains(n) {
          codes.append(String(n))
        }
        i += 1
      }
    }
    rest = rest[rest.index(after: end)...]
  }
  return codes
}

extension TmuxSession {
  /// The screen with its attributes as escape sequences.
  func screenWithEscapes() throws -> String { try tmux(["capture-pane", "-p", "-e", "-t", name]) }
}

@Suite("TUI end to end: colours, the tty, screenshots", .serialized)
struct TUIColourAndTTYTests {
  @Test func noColorLeavesNoColours() throws {
    let session = try TmuxSession(
      [try reqbenchBinary.path, "--demo"], environment: ["NO_COLOR": "1", "TERM": "xterm-256color"])
    try session.waitFor("users/")
    try session.send("Enter")
    try session.waitFor("✓ succeeded")
    let screen = try session.screenWithEscapes()
    #expect(colourCodes(screen) == [], "colours with NO_COLOR set")
    #expect(screen.contains("\u{1b}["))  // attributes are still there (reverse, bold…)
    try session.quit()
  }

  @Test func eightColourTerminalsGetTheEightBasicColours() throws {
    let basic = Set((30...37).map(String.init) + (40...47).map(String.init))
    let eight = try TmuxSession([try reqbenchBinary.path, "--demo"], environment: ["TERM": "xterm"])
    try eight.waitFor("users/")
    try eight.send("Enter")
    try eight.waitFor("✓ succeeded")
    let raw = try eight.screenWithEscapes()
    let codes = colourCodes(raw)
    #expect(!codes.isEmpty, "no colours: \(raw.prefix(200).debugDescription)")
    #expect(codes.allSatisfy(basic.contains), "not basic: \(Set(codes).subtracting(basic))")
    try eight.quit()
    // The same screen on a 256-colour terminal uses more (the bright grey of borders and hints).
    let many = try TmuxSession([try reqbenchBinary.path, "--demo"], environment: ["TERM": "xterm-256color"])
    try many.waitFor("users/")
    #expect(!colourCodes(try many.screenWithEscapes()).allSatisfy(basic.contains))
    try many.quit()
  }

  @Test func ctrlCRestoresTheTerminalSettings() throws {
    let dir = scratchURL("rb-tty")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let before = dir.appendingPathComponent("before").path
    let after = dir.appendingPathComponent("after").path
    let script = "stty -a > \(shellQuote(before)); \(shellQuote(try reqbenchBinary.path)) --demo; stty -a > \(shellQuote(after))"
    let session = try TmuxSession(["sh", "-c", script])
    try session.waitFor("1 Requests")
    try session.send("C-c")
    try session.waitFor("[exited 0]")
    let saved = try String(contentsOfFile: before, encoding: .utf8)
    let restored = try String(contentsOfFile: after, encoding: .utf8)
    #expect(saved.contains("icanon") && saved.contains("echo"))
    #expect(restored == saved)
  }

  @Test func theCommittedScreenshotsAreCurrent() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let dir = scratchURL("rb-shots")
    defer { try? FileManager.default.removeItem(at: dir) }
    let result = try runProcess(
      try reqbenchBinary, ["screenshot", "all", "--dir", dir.path, "--workspace", root.appendingPathComponent("workspaces/demo.json").path])
    #expect(result.status == 0, "\(result.stderr)")
    let made = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
    let committed = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("screenshots").path).sorted()
    #expect(made == committed)
    for name in made {
      let new = try Data(contentsOf: dir.appendingPathComponent(name))
      let old = try Data(contentsOf: root.appendingPathComponent("screenshots/" + name))
      #expect(new == old, "screenshots/\(name) is out of date: .build/debug/reqbench screenshot all --dir screenshots")
    }
  }

  /// The README's key tables are the TUI's one key table: `reqbench keys --markdown` prints them.
  @Test func theREADMEKeyTablesAreTheKeyTable() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
    let begin = try #require(readme.range(of: "<!-- keys:begin -->\n"), "README.md has no <!-- keys:begin --> line")
    let end = try #require(readme.range(of: "<!-- keys:end -->"), "README.md has no <!-- keys:end --> line")
    let result = try runProcess(try reqbenchBinary, ["keys", "--markdown"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.contains("| Enter s r | send the selected request |"))
    #expect(
      String(readme[begin.upperBound..<end.lowerBound]) == result.stdout,
      "README.md's key tables differ from the key table: put the output of `.build/debug/reqbench keys --markdown` between its keys:begin and keys:end lines")
    let text = try runProcess(try reqbenchBinary, ["keys"])
    #expect(text.status == 0 && text.stdout.hasPrefix("Everywhere\n  Tab "))
  }

  @Test func screenshotHelpPrintsUsage() throws {
    let result = try runProcess(try reqbenchBinary, ["screenshot", "--help"])
    #expect(result.status == 0)
    #expect(result.stdout.contains("reqbench screenshot SCENARIO|all"))
    #expect(result.stdout.contains("--workspace FILE"))
    #expect(!result.stderr.contains("unknown option"))
  }
}

/// `w` on the real binary: the jq output shown is what is written, an existing file is asked
/// about, missing folders are made, and a path that cannot be written says why once.
@Suite("TUI end to end: writing bodies (tmux)", .serialized)
struct TUIWriteTests {
  @Test func writesTheJQOutputAsksBeforeOverwritingAndSaysWhyAWriteFailed() throws {
    let dir = scratchURL("rb-tui-write")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let file = dir.appendingPathComponent("ws.json").path
    try #"{"version": 1, "baseURL": "\#(try TestServer.fixture.baseURL)", "requests": [{"name": "users", "url": "/users"}]}"#
      .write(toFile: file, atomically: true, encoding: .utf8)
    let session = try TmuxSession([try reqbenchBinary.path, file])
    try session.waitFor("1 Requests")
    try session.send("Enter")
    try session.waitFor("✓ succeeded")
    try session.send("3")
    try session.send("|")
    try session.type(".[0].name")
    try session.send("Enter")
    try session.waitFor("jq .[0].name (Esc clears)")
    try session.send("w")
    try session.waitFor("write jq output to: users.jq.txt")
    try session.send("Enter")
    try session.waitFor("written to")
    let target = dir.appendingPathComponent("users.jq.txt").path
    #expect(try String(contentsOfFile: target, encoding: .utf8) == "\"Ada Lovelace\"\n")
    // Again: the file is there now.
    try session.send("w")
    try session.waitFor("write jq output to")
    try session.send("Enter")
    try session.waitFor("users.jq.txt exists: overwrite? y/n")
    try session.send("y")
    try session.waitFor("body written to")
    // Folders that do not exist are made, and the message says so.
    try session.send("w")
    try session.send("C-u")
    try session.type("out/orders/x.txt")
    try session.send("Enter")
    try session.waitFor("(made the folder")
    #expect(try String(contentsOfFile: dir.appendingPathComponent("out/orders/x.txt").path, encoding: .utf8) == "\"Ada Lovelace\"\n")
    // A path that cannot be written (under a file): the reason, once, and what to do.
    try session.send("w")
    try session.send("C-u")
    try session.type(file + "/x.txt")
    try session.send("Enter")
    let failed = try session.waitFor("choose another path")
    let line = try #require(failed.split(separator: "\n").last { $0.contains("cannot write") }).description
    #expect(line.components(separatedBy: "ws.json/x.txt").count == 2, "the path once: \(line)")
    #expect(line.contains("Not a directory"), "\(line)")
    try session.quit()
  }
}
