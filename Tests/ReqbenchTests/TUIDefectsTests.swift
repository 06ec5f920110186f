import Foundation
import TestSupport
import Testing

/// Screen defects a new user met, as they met them: the real binary in tmux.
@Suite("TUI end to end: defects a new user met (tmux)", .serialized)
struct TUIDefectsTests {
  func lines(_ screen: String) -> [String] { screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

  /// The lines of the queue pane (below its title).
  func queue(_ screen: String) -> [String] {
    let all = lines(screen)
    guard let title = all.firstIndex(where: { $0.contains("4 Queue") }) else { return [] }
    return Array(all[(title + 1)...])
  }

  /// A workspace on the fixture server with `requests` and `batches` (JSON arrays' contents).
  func workspace(_ requests: String, batches: String = "") throws -> String {
    try workspaceFile(
      #"{"version": 1, "baseURL": "\#(try TestServer.fixture.baseURL)", "requests": [\#(requests)], "batches": [\#(batches)]}"#,
      named: "w.json"
    ).path
  }

  /// Filters the request list to `name` and sends it.
  func send(_ session: TmuxSession, _ name: String) throws {
    try session.send("1", "/")
    try session.type(name)
    try session.send("Enter")
    try session.waitFor("Requests /\(name)")
    try session.send("Enter")
  }

  // `c` in the retry wait of `flaky` (its first call is a 503).
  @Test func aCancelDuringARetryWaitEndsCancelled() throws {
    let session = try TmuxSession([try reqbenchBinary.path, "--demo"])
    try session.waitFor("users/")
    try send(session, "flaky")
    try session.waitFor("retrying 2")
    try session.send("c")
    let screen = try session.waitFor("⊘ cancelled   503")
    let row = try #require(queue(screen).first { $0.contains("flaky") })
    #expect(!row.contains("retrying"), "\(row)")
    // The viewer: the 503 it had, never "before a response".
    try session.send("3", "l", "l")
    let timing = try session.waitFor("[Timing]")
    #expect(!timing.contains("cancelled before a response"), "\(timing)")
    #expect(timing.contains("503"), "\(timing)")
    try session.send("C-c", "y")
    try session.waitFor("[exited 0]")
  }

  // Cut text ends in `…`: the resolved URL at 80 columns and at 60×16, the queue's error column.
  @Test func cutTextIsMarked() throws {
    for (width, height) in [(80, 24), (60, 16)] {
      let session = try TmuxSession([try reqbenchBinary.path, "--demo"], width: width, height: height)
      try session.waitFor("users/")
      try session.send("/")
      try session.type("files/big")
      try session.send("Enter", "j")  // files/big-head, then files/big
      let screen = try session.waitFor("Editor · files/big ─")
      let resolved = try #require(lines(screen).first { $0.contains("→ GET http://127.0.0.1:") }, "\(screen)")
      #expect(resolved.contains("…│"), "\(width)×\(height): \(resolved)")
      try session.quit()
    }
    let file = try workspaceFile(
      #"{"version": 1, "requests": [{"name": "nowhere", "url": "http://127.0.0.1:9/a/rather/long/path/that/goes/on"}]}"#
    ).path
    let session = try TmuxSession([try reqbenchBinary.path, file])
    try session.waitFor("nowhere")
    try session.send("Enter")
    let screen = try session.waitFor("✗ failed")
    let row = try #require(queue(screen).first { $0.contains("nowhere") })
    #expect(row.contains("cannot connect") && row.contains("…"), "\(row)")
    try session.quit()
  }

  // A `cacheThenNetwork` request sent again shows the cache's answer at once, then the network's.
  @Test func theCachedDeliveryShowsThenTheFreshOne() throws {
    let file = try workspace(
      #"{"name": "slow-cached", "url": "/delay/1.5", "cache": {"seconds": 60, "mode": "cacheThenNetwork"}}"#)
    let session = try TmuxSession([try reqbenchBinary.path, file])
    try session.waitFor("slow-cached")
    try session.send("Enter")
    try session.waitFor("✓ succeeded")
    try session.send("Enter")
    var screen = try session.waitFor("▶ running")
    #expect(queue(screen).first { $0.contains("▶ running") }?.contains("cache") == true, "\(screen)")
    #expect(screen.contains("showing 200 OK from cache"), "\(screen)")
    screen = try session.waitFor("refreshed from the network")
    #expect(queue(screen).first?.contains("refreshed") == true || queue(screen).contains { $0.contains("refreshed") })
    #expect(!screen.contains("▶ running"))
    try session.quit()
  }

  // A body called JSON that is not says where; a cancelled batch's bar is not full; the
  // demo workspace found beside the binary is named at start.
  @Test func smallerOnes() throws {
    let file = try workspace(
      #"{"name": "broken", "url": "/json-invalid"}, {"name": "wait-a", "url": "/delay/20"}, {"name": "wait-b", "url": "/delay/20"}"#,
      batches: #"{"name": "waits", "members": ["wait-a", "wait-b", "broken"], "concurrency": 1}"#)
    let session = try TmuxSession([try reqbenchBinary.path, file])
    try session.waitFor("broken")
    try session.send("Enter")
    var screen = try session.waitFor("not valid JSON: line 1, column")
    #expect(screen.contains(#"{"a": 1,"#))
    try session.send("G")
    try session.waitFor("Editor · waits")
    try session.send("Enter")
    try session.waitFor("▶ running")
    try session.send("c")
    screen = try session.waitFor("⊘3")
    let row = try #require(queue(screen).first { $0.contains("⧉ waits") }, "\(screen)")
    #expect(row.contains("0/3") && row.contains("⊘"), "\(row)")
    #expect(!row.contains("████████████████"), "\(row)")
    try session.quit()

    // From another folder: the demo workspace is found beside the binary, and named.
    let elsewhere = scratchURL("rb-elsewhere")
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: elsewhere) }
    let demo = try TmuxSession(["sh", "-c", "cd \(shellQuote(elsewhere.path)) && exec \(shellQuote(try reqbenchBinary.path)) --demo"])
    screen = try demo.waitFor("opened /")
    #expect(screen.contains("workspaces/demo.json · demo server at http://127.0.0.1:"), "\(screen)")
    try demo.quit()
  }

  // The name `w` suggests is selected: typing a name replaces it.
  @Test func theWritePromptsNameIsReplacedByTyping() throws {
    let file = try workspace(#"{"name": "users/list", "url": "/users"}"#)
    let folder = URL(fileURLWithPath: file).deletingLastPathComponent()
    let session = try TmuxSession([try reqbenchBinary.path, file])
    try session.waitFor("users/")
    try session.send("Enter")
    try session.waitFor("✓ succeeded")
    try session.send("3", "w")
    try session.waitFor("write body to: users-list.json")
    try session.type("names.txt")
    try session.send("Enter")
    try session.waitFor("/names.txt")
    #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("names.txt").path))
    #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("users-list.jsonnames.txt").path))
    try session.quit()
  }

  // `E`, a trailing comma, save and quit: refused; the next `E` opens what was typed.
  @Test func aRefusedBodyReopensInTheEditor() throws {
    let (file, dir) = try workspaceFile(
      #"{"version": 1, "requests": [{"name": "users/create", "method": "POST", "url": "http://127.0.0.1:9/users", "body": {"json": {"name": "Grace Hopper"}}}]}"#)
    let script = dir.appendingPathComponent("edit.sh").path
    let seen = dir.appendingPathComponent("seen.txt").path
    // First run: a trailing comma. Second run: keeps what it was given, writes a valid body.
    try """
      #!/bin/sh
      if [ -f "\(dir.path)/once" ]; then
        cp "$1" "\(seen)"
        printf '{"name": "Grace Brewster Hopper"}' > "$1"
      else
        touch "\(dir.path)/once"
        printf '{"name": "Grace Hopper",}' > "$1"
      fi
      """.write(toFile: script, atomically: true, encoding: .utf8)
    chmod(script, 0o755)
    let session = try TmuxSession([try reqbenchBinary.path, file], environment: ["EDITOR": script, "VISUAL": ""])
    try session.waitFor("Editor · users/create")
    try session.send("E")
    try session.waitFor("E reopens your text")
    try session.send("E")
    let back = try session.waitFor("body updated")
    #expect(try String(contentsOfFile: seen, encoding: .utf8) == #"{"name": "Grace Hopper",}"#)
    #expect(back.contains("Grace Brewster Hopper"))
    try session.send("q", "d")
    try session.waitFor("[exited 0]")
  }

  // The editor scrolled to its last fields on one request; another shows its first ones.
  @Test func anotherRequestShowsItsFirstFields() throws {
    let session = try TmuxSession([try reqbenchBinary.path, "--demo"])
    try session.waitFor("users/")
    try session.send("2", "G")
    try session.waitFor("TLS        ")
    try session.send("1")
    // users/list, 5 more users/ requests, the auth/ folder row, login, me, then slow.
    for _ in 0..<9 { try session.send("j") }
    let screen = try session.waitFor("Editor · slow")
    #expect(screen.contains("Method     GET"), "\(screen)")
    #expect(screen.contains("URL        /slow"), "\(screen)")
    try session.quit()
  }

  // The queue scrolls as one list: no empty lines while lines remain, members in place.
  @Test func theQueueScrollsAsOneList() throws {
    let session = try TmuxSession([try reqbenchBinary.path, "--demo"])
    try session.waitFor("users/")
    for n in 1...10 {
      try session.send("Enter")
      try session.waitFor("4 Queue · \(n) ")
    }
    try session.send("4", "G")
    try session.waitForKeysHandled()
    var rows = queueRows(try session.screen())
    #expect(rows.count == 10 && rows.allSatisfy { $0.contains("users/list") }, "\(rows.joined(separator: "\n"))")
    // Six batch and chain runs (the list's last two entries), then G: no empty line.
    try session.send("1", "G")
    try session.waitFor("Editor · login-flow")
    for _ in 0..<3 {
      try session.send("Enter")
      try session.waitFor("chain login-flow succeeded")
      try session.send("k", "Enter")
      try session.waitFor("batch smoke ")
      try session.send("j")
    }
    try session.send("4", "G")
    try session.waitForKeysHandled()
    rows = queueRows(try session.screen())
    #expect(rows.count == 10 && !rows.contains(where: isEmpty), "\(rows.joined(separator: "\n"))")
    // The newest run at the top, expanded: its members right under it, the other runs below.
    try session.send("g", "Enter")
    let screen = try session.waitFor("▾ ⧉ smoke")
    rows = queueRows(screen)
    let batch = try #require(rows.firstIndex { $0.contains("▾ ⧉ smoke") }, "\(screen)")
    #expect(batch == 0)
    #expect(rows[1].contains("users/list") && rows[2].contains("users/get") && rows[3].contains("login-flow"), "\(screen)")
    #expect(rows[5].contains("⛓ login-flow"), "\(screen)")
    #expect(!rows.contains(where: isEmpty))
    try session.quit()
  }

  // The demo's flaky answers 503 with `Retry-After: 1`: the viewer says the wait it takes,
  // and the retry comes after it.
  @Test func aRetryWaitsAsTheServerSays() throws {
    let session = try TmuxSession([try reqbenchBinary.path, "--demo"])
    try session.waitFor("users/")
    try send(session, "flaky")
    try session.waitFor("retrying 2 in 1.00 s: status 503")
    let screen = try session.waitFor("✓ succeeded")
    let row = try #require(queue(screen).first { $0.contains("flaky") }, "\(screen)")
    #expect(row.contains("200"), "\(row)")
    // Its time (the wait included) is over the second the server asked for.
    let time = row.range(of: #"[0-9]+\.[0-9]+ s "#, options: .regularExpression).map { row[$0].dropLast(3) }
    #expect((time.flatMap { Double($0) } ?? 0) >= 1.0, "\(row)")
    try session.quit()
  }

  // A dedup waiter shows its primary's status and its `dedup` badge in its first frame.
  @Test func aDedupWaiterShowsStatusAndBadgeFromTheStart() throws {
    let session = try TmuxSession([try reqbenchBinary.path, "--demo"])
    try session.waitFor("users/")
    try send(session, "trickle")
    try session.waitFor("▶ running     200    GET    trickle")
    try session.send("Enter")
    // The first screen with two trickle rows (trickle takes about 4 s, so the primary is still going).
    let deadline = Date().addingTimeInterval(3)
    var rows: [String] = []
    while Date() < deadline, rows.count < 2 {
      rows = queueRows(try session.screen()).filter { $0.contains("trickle") }
      usleep(10_000)
    }
    #expect(rows.count == 2, "\(rows)")
    let waiter = try #require(rows.first, "\(rows)")
    #expect(waiter.contains("dedup") && waiter.contains("▶ running     200"), "\(waiter)")
    try session.waitFor("✓ succeeded   200    GET    trickle  dedup")
    try session.quit()
  }

  // `p` in the queue holds a transfer still on the wire, `p` again lets it finish.
  @Test func pInTheQueuePausesATransferAndLetsItGoOn() throws {
    let session = try TmuxSession([try reqbenchBinary.path, "--demo"])
    try session.waitFor("users/")
    try send(session, "trickle")  // 20 bytes at 5 bytes a second
    try session.waitFor("▶ running     200    GET    trickle")
    try session.send("4", "p")
    var screen = try session.waitFor("▶ paused      200    GET    trickle")
    #expect(screen.contains("trickle paused: p lets it go on"), "\(screen)")
    let size = { (screen: String) in
      self.queueRows(screen).first { $0.contains("trickle") }?.range(of: #"[0-9]+ B "#, options: .regularExpression)
        .map { String(screen[$0]) }
    }
    usleep(300_000)  // a byte in flight when the key was pressed may still land
    let held = size(try session.screen())
    usleep(1_200_000)  // going on, 6 bytes would come meanwhile
    screen = try session.screen()
    #expect(size(screen) == held, "\(screen)")
    #expect(queueRows(screen).first { $0.contains("trickle") }?.contains("paused") == true)
    try session.send("p")
    screen = try session.waitFor("✓ succeeded   200    GET    trickle", timeout: 15)
    #expect(queueRows(screen).first { $0.contains("trickle") }?.contains("20 B") == true, "\(screen)")
    try session.quit()
  }

  // A 3xx with followRedirects false is a success (curl without -L).
  @Test func aRedirectNotFollowedSucceeds() throws {
    let file = try workspace(#"{"name": "moved", "url": "/redirect-to?url=/get&status=302", "followRedirects": false}"#)
    let session = try TmuxSession([try reqbenchBinary.path, file])
    try session.waitFor("moved")
    try session.send("Enter")
    let screen = try session.waitFor("✓ succeeded   302")
    #expect(screen.contains("302 Found"), "\(screen)")
    #expect(!screen.contains("outside 200-299"), "\(screen)")
    try session.quit()
  }

  func queueRows(_ screen: String) -> [String] {
    let all = lines(screen)
    guard let header = all.firstIndex(where: { $0.contains("STATE       STATUS REQUEST") }) else { return [] }
    return Array(all[(header + 1)...].prefix { !$0.hasPrefix("└") })
  }

  func isEmpty(_ line: String) -> Bool { line.dropFirst().dropLast().allSatisfy { $0 == " " } }
}
