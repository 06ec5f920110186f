import Digest
import Foundation
import RequestEngine
import TestSupport
import Testing

/// A download resumes across `--demo` starts, as a user meets it: `reqbench --demo`, start `files/big`, quit with `q` `y` at about
/// 90%, reopen `--demo` (the embedded demo server gets another port), `r` on the interrupted row:
/// it resumes from the bytes on disk, and no partial file is left behind.
@Suite("TUI end to end: a download resumes across --demo starts (tmux)", .serialized)
struct TUIResumeTests {
  /// A copy of the demo workspace in a fresh folder (so its state and downloads go there), with
  /// `files/big` made smaller and slower to fit a test: 6 MB at 1 MB/s (over a second left at 80%, for
  /// `q` `y` on a loaded machine).
  func demoFolder() throws -> URL {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    var text = try String(contentsOf: root.appendingPathComponent("workspaces/demo.json"), encoding: .utf8)
    let big = "/bytes/52428800?seed=demo&rate=8000000"
    #expect(text.contains(big), "the demo's files/big changed: update this test")
    text = text.replacingOccurrences(of: big, with: "/bytes/6000000?seed=demo&rate=1000000")
    let (_, folder) = try workspaceFile(text, named: "demo.json")
    let workspaces = folder.appendingPathComponent("workspaces")
    try FileManager.default.createDirectory(at: workspaces, withIntermediateDirectories: true)
    try FileManager.default.moveItem(
      at: folder.appendingPathComponent("demo.json"), to: workspaces.appendingPathComponent("demo.json"))
    return folder
  }

  /// `demo server at http://127.0.0.1:PORT` from the status bar.
  func demoPort(_ screen: String) -> String? {
    guard let range = screen.range(of: #"demo server at http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) else {
      return nil
    }
    return String(screen[range].split(separator: ":").last ?? "")
  }

  /// The largest `NN%` on the screen.
  func percent(_ screen: String) -> Int {
    var best = 0
    var rest = screen[...]
    while let range = rest.range(of: #"[0-9]+%"#, options: .regularExpression) {
      best = max(best, Int(rest[range].dropLast()) ?? 0)
      rest = rest[range.upperBound...]
    }
    return best
  }

  @Test func quitAtNinetyPercentReopenDemoAndResume() throws {
    let folder = try demoFolder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let command = ["/usr/bin/env", "-C", folder.path, try reqbenchBinary.path, "--demo"]
    let first = try TmuxSession(command)
    var screen = try first.waitFor("demo server at")
    let firstPort = demoPort(screen)
    try first.send("/")
    try first.type("files/big")
    try first.send("Enter", "j")
    try first.waitFor("2 Editor · files/big")
    try first.send("Enter")
    try first.waitFor("▶ running")
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline, percent(try first.screen()) < 80 { usleep(50_000) }
    screen = try first.screen()
    #expect((80..<100).contains(percent(screen)), "\(screen)")
    try first.send("q")
    try first.waitFor("still running")
    try first.send("y")
    try first.waitFor("[exited 0]")
    let downloads = folder.appendingPathComponent("workspaces/.reqbench/demo/downloads").path
    #expect(((try? FileManager.default.contentsOfDirectory(atPath: downloads)) ?? []).count == 2)

    let second = try TmuxSession(command)
    screen = try second.waitFor("demo server at")
    #expect(demoPort(screen) != nil && demoPort(screen) != firstPort, "the demo server's port should change")
    try second.waitFor("resumable")
    try second.send("4", "g")
    try second.waitFor("interrupted in an earlier run")
    try second.send("r")
    try second.waitFor("resuming files/big from")
    screen = try second.waitFor("✓ succeeded", timeout: 20)
    #expect(screen.contains("resumed from"), "\(screen)")
    #expect(screen.contains("206"), "\(screen)")
    let file = folder.appendingPathComponent("workspaces/downloads/big.bin")
    let expected = Agent().sendAndWait(Request(url: try TestServer.fixture.url("/bytes/6000000?seed=demo")))
    #expect(
      SHA256.hex(Array((try? Data(contentsOf: file)) ?? Data()))
        == SHA256.hex(try #require(expected.response).body.bytes()))
    // The downloaded file follows the umask, as curl's do (the state files stay 0600).
    // The umask read, not set (setting it would race the tests running beside this one).
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    let mask = try #require(
      status.split(separator: "\n").first { $0.hasPrefix("Umask:") }
        .flatMap { Int($0.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8) })
    let mode = (try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int) ?? 0
    #expect(mode == 0o666 & ~mask, "mode \(String(mode, radix: 8))")
    // The partial file was the target's: nothing is left in the state folder.
    #expect(((try? FileManager.default.contentsOfDirectory(atPath: downloads)) ?? []) == [])
    try second.quit()
  }
}
