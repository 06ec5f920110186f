import Foundation
import TestSupport
import Testing

/// The copy menu (`y`, OSC 52 into tmux's buffer with `set-clipboard on`), the Request
/// tab, and the workspace file changed by another program while the TUI has it open: the real
/// binary in tmux against the fixture server.
@Suite("TUI end to end: copy, the Request tab, the file changing on disk (tmux)", .serialized)
struct TUIClipboardAndDiskTests {
  /// Replaces the file as editors and `git` do: another file renamed over it.
  func replace(_ path: String, with text: String) throws {
    let temporary = path + ".tmp-" + uniqueKey()
    try text.write(toFile: temporary, atomically: false, encoding: .utf8)
    guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
  }

  func workspace(_ requests: String) throws -> String {
    #"{"version": 1, "baseURL": "\#(try TestServer.fixture.baseURL)", "requests": [\#(requests)]}"#
  }

  @Test func yCopiesTheRequestAsCurlIntoTmuxsBufferAndTheRequestTabShowsWhatWasSent() throws {
    let secret = "hunter2-" + uniqueKey()
    let (path, _) = try workspaceFile(
      try workspace(#"{"name": "who", "url": "/headers", "headers": {"Authorization": "Bearer {{secret.token}}"}}"#))
    let session = try TmuxSession([try reqbenchBinary.path, path], environment: ["REQBENCH_SECRET_TOKEN": secret])
    try session.tmux(["set-option", "-s", "set-clipboard", "on"])
    try session.waitFor("1 Requests")
    try session.send("Enter")
    try session.waitFor("✓ succeeded")
    // The Request tab: what curl wrote, the secret masked.
    try session.send("3", "h")
    var screen = try session.waitFor("[Request]")
    #expect(screen.contains("GET /headers HTTP/1.1"), "\(screen)")
    #expect(screen.contains("Host:") && screen.contains("User-Agent:") && screen.contains("reqbench/"), "\(screen)")
    #expect(screen.contains("Bearer ••••") && !screen.contains(secret), "\(screen)")

    // y, then c: curl with the URL resolved and the secret masked, in tmux's buffer.
    try session.send("y")
    screen = try session.waitFor("Copy · who")
    #expect(screen.contains("the request as curl"), "\(screen)")
    try session.send("c")
    screen = try session.waitFor("copied who as curl, secrets ••••")
    var buffer = try session.tmux(["show-buffer"])
    #expect(buffer.hasPrefix("curl '\(try TestServer.fixture.baseURL)/headers'"), "\(buffer)")
    #expect(buffer.contains("Authorization: Bearer ••••") && !buffer.contains(secret), "\(buffer)")
    #expect(screen.contains("\(buffer.utf8.count) bytes on the clipboard"), "\(screen)")

    // A header's value: j down to it, Enter.
    try session.send("y")
    try session.waitFor("Copy · who")
    try session.send("u")
    try session.waitFor("copied the URL of who")
    buffer = try session.tmux(["show-buffer"])
    #expect(buffer == "\(try TestServer.fixture.baseURL)/headers", "\(buffer)")

    // The body, as shown (the fixture echoes the headers: the secret masked there too).
    try session.send("y")
    try session.waitFor("Copy · who")
    try session.send("b")
    try session.waitFor("copied the response body")
    buffer = try session.tmux(["show-buffer"])
    #expect(buffer.contains("Authorization") && buffer.contains("••••") && !buffer.contains(secret), "\(buffer)")

    // Esc closes the menu and copies nothing.
    try session.send("y")
    try session.waitFor("Copy · who")
    try session.send("Escape")
    try session.waitForAbsence("Copy · who")
    #expect(try session.tmux(["show-buffer"]) == buffer)
    try session.quit()
  }

  @Test func anExternalEditWithNothingUnsavedIsReloadedKeepingTheSelection() throws {
    let (path, _) = try workspaceFile(
      try workspace(#"{"name": "alpha", "url": "/a"}, {"name": "beta", "url": "/b"}, {"name": "gamma", "url": "/c"}"#))
    let session = try TmuxSession([try reqbenchBinary.path, path])
    try session.waitFor("1 Requests")
    try session.send("j")
    try session.waitFor("Editor · beta")
    // An editor's save: a new file renamed over it, a request added before beta, beta changed.
    try replace(
      path,
      with: try workspace(
        #"{"name": "aardvark", "url": "/z"}, {"name": "alpha", "url": "/a"}, {"name": "beta", "url": "/b?from=disk"}, {"name": "gamma", "url": "/c"}"#
      ))
    var screen = try session.waitFor("it changed on disk")
    #expect(screen.contains("reloaded "), "\(screen)")
    #expect(screen.contains("aardvark"), "\(screen)")
    #expect(screen.contains("Editor · beta") && screen.contains("/b?from=disk"), "the selection kept by name: \(screen)")
    // Written in place (truncated and rewritten) the same.
    try session.send("j")
    try session.waitFor("Editor · gamma")
    try Data(try workspace(#"{"name": "alpha", "url": "/a"}, {"name": "gamma", "url": "/c?again=1"}"#).utf8)
      .write(to: URL(fileURLWithPath: path))
    screen = try session.waitFor("/c?again=1")
    #expect(screen.contains("Editor · gamma") && !screen.contains("aardvark"), "\(screen)")
    // A broken save is not loaded: where it is broken is said, what is shown stays; fixed, it is.
    let good = try String(contentsOfFile: path, encoding: .utf8)
    try replace(path, with: "{\"version\": 1, \"requests\": [")
    screen = try session.waitFor("does not load")
    #expect(screen.contains("file does not load") && screen.contains("Editor · gamma"), "\(screen)")
    #expect(screen.contains("w.json:1:"), "where: \(screen)")
    try replace(path, with: good)
    try session.waitFor("holds what was loaded again")
    // Deleted: still shown; put back, the notice goes.
    try FileManager.default.removeItem(atPath: path)
    screen = try session.waitFor("was deleted on disk")
    #expect(screen.contains("file deleted") && screen.contains("gamma"), "\(screen)")
    try replace(path, with: good)
    try session.waitFor("holds what was loaded again")
    // Idle means idle: the watch costs nothing while nothing changes.
    // (Reloading the put-back file may still be finishing when the notice shows.)
    try session.expectIdle(window: 1.5, settle: 1)
    try session.quit()
  }

  @Test func anExternalEditWithUnsavedEditsLosesNeither() throws {
    let (path, _) = try workspaceFile(try workspace(#"{"name": "alpha", "url": "/a"}, {"name": "beta", "url": "/b"}"#))
    let session = try TmuxSession([try reqbenchBinary.path, path])
    try session.waitFor("1 Requests")
    // An unsaved edit: alpha's URL.
    try session.send("2", "j", "j", "e")  // the URL, below the name and the method
    try session.type("?mine=1")
    try session.send("Enter")
    try session.waitFor("1 unsaved")
    // Another program changes beta meanwhile.
    let theirs = try workspace(#"{"name": "alpha", "url": "/a"}, {"name": "beta", "url": "/b?theirs=1"}"#)
    try replace(path, with: theirs)
    var screen = try session.waitFor("your unsaved edits are kept here")
    #expect(screen.contains("1 unsaved · changed on disk"), "\(screen)")
    #expect(screen.contains("/a?mine=1"), "the edit is still shown: \(screen)")
    // Ctrl-S asks; Esc keeps both.
    try session.send("C-s")
    screen = try session.waitFor("Changed on disk")
    #expect(screen.contains("m merge its changes and mine · r reload it and drop my edits"), "\(screen)")
    #expect(screen.contains("o overwrite it with mine · Esc cancel"), "\(screen)")
    try session.send("Escape")
    try session.waitFor("not saved; your edits are kept here")
    #expect(try String(contentsOfFile: path, encoding: .utf8) == theirs, "the other program's change is untouched")
    // q asks to save; saving asks again; o overwrites with mine.
    try session.send("q")
    try session.waitFor("Unsaved changes")
    try session.send("s")
    try session.waitFor("Changed on disk")
    try session.send("o")
    try session.waitFor("saved ")
    let saved = try String(contentsOfFile: path, encoding: .utf8)
    #expect(saved.contains("/a?mine=1") && !saved.contains("theirs"), "\(saved)")

    // Again, now r: the file's content wins, the edits are dropped only because asked.
    try session.send("e")  // the URL field of alpha again
    try session.send("C-u")
    try session.type("/a?second=1")
    try session.send("Enter")
    try session.waitFor("1 unsaved")
    let again = try workspace(#"{"name": "alpha", "url": "/a?disk=2"}, {"name": "beta", "url": "/b"}"#)
    try replace(path, with: again)
    try session.waitFor("changed on disk; your unsaved edits are kept here")
    try session.send("C-s")
    try session.waitFor("Changed on disk")
    try session.send("r")
    screen = try session.waitFor("your edits dropped")
    #expect(screen.contains("/a?disk=2") && !screen.contains("second=1"), "\(screen)")
    #expect(try String(contentsOfFile: path, encoding: .utf8) == again)
    try session.quit()
  }

  /// m: the other program's change and the edit here together, saved without asking again; where
  /// both changed one value, refused and named, both kept.
  @Test func mMergesAnExternalEditWithTheUnsavedOnes() throws {
    let (path, _) = try workspaceFile(try workspace(#"{"name": "alpha", "url": "/a"}, {"name": "beta", "url": "/b"}"#))
    let session = try TmuxSession([try reqbenchBinary.path, path])
    try session.waitFor("1 Requests")
    try session.send("2", "j", "j", "e")  // alpha's URL
    try session.type("?mine=1")
    try session.send("Enter")
    try session.waitFor("1 unsaved")
    try replace(path, with: try workspace(#"{"name": "alpha", "url": "/a"}, {"name": "beta", "url": "/b?theirs=1"}"#))
    try session.waitFor("your unsaved edits are kept here")
    try session.send("C-s")
    try session.waitFor("Changed on disk")
    try session.send("m")
    var screen = try session.waitFor("merged: ")
    #expect(screen.contains("your unsaved edits together (Ctrl-S saves)") && screen.contains("1 unsaved"), "\(screen)")
    try session.send("C-s")
    try session.waitFor("saved ")
    let saved = try String(contentsOfFile: path, encoding: .utf8)
    #expect(saved.contains(#""url": "/a?mine=1""#) && saved.contains(#""url": "/b?theirs=1""#), "\(saved)")

    // Both change alpha's URL: refused, named; the dialog stays, Esc keeps both.
    try session.send("e", "C-u")
    try session.type("/a?mine=2")
    try session.send("Enter")
    try session.waitFor("1 unsaved")
    let theirs = saved.replacingOccurrences(of: "/a?mine=1", with: "/a?theirs=2")
    try replace(path, with: theirs)
    try session.waitFor("your unsaved edits are kept here")
    try session.send("C-s")
    try session.waitFor("Changed on disk")
    try session.send("m")
    screen = try session.waitFor("cannot merge: both changed requests[alpha].url")
    #expect(screen.contains("Changed on disk"), "the question stays: \(screen)")
    try session.send("Escape")
    try session.waitFor("not saved; your edits are kept here")
    #expect(try String(contentsOfFile: path, encoding: .utf8) == theirs)
    try session.send("q")
    try session.waitFor("Unsaved changes")
    try session.send("d")
    try session.waitFor("[exited 0]")
    #expect(try String(contentsOfFile: path, encoding: .utf8) == theirs, "discarded: the file as the other program left it")
  }
}
