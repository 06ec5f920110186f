import Foundation
import RequestEngine
import TestSupport
import Testing

/// A new user's whole first minute, in one run of the real binary in tmux: from a file that does
/// not exist, a request made with `n` and one pasted as Chrome's "Copy as cURL" (nothing sent by
/// the paste), both sent, the file given environments by another program (reloaded), `v` to the
/// other host and the next send going there, then D, R, d and u, a save, quit, reopen, and the
/// file's diff is exactly what was done.
@Suite("TUI end to end: from nothing to an organised workspace (tmux)", .serialized)
struct TUIFromNothingTests {
  @Test func fromAMissingFileToAnOrganisedWorkspaceWhoseDiffIsWhatWasDone() throws {
    let second = try SecondServer()
    let fixture = try TestServer.fixture.baseURL
    let (file, _) = try missingWorkspaceFile()
    let typedKey = uniqueKey("typed")
    let pastedKey = uniqueKey("pasted")
    let session = try TmuxSession([try reqbenchBinary.path, file])
    try session.waitFor("new workspace \(file), not saved yet")

    // n with METHOD URL, then the name (the suggestion is selected: typing replaces it).
    try session.newRequest("GET {{host}}/get?key=\(typedKey)")
    try session.type("probe/first")
    try session.send("Enter")
    try session.waitFor("added probe/first")

    // Chrome's "Copy as cURL", several lines, pasted the bracketed way: a request, nothing sent.
    try session.send("1")
    try session.paste(
      """
      curl '\(fixture)/get?key=\(pastedKey)' \\
        -H 'accept: application/json' \\
        -H 'user-agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
      """, bracketed: true)
    try session.waitFor("added get-get")
    usleep(300_000)
    #expect(try hits(pastedKey) == 0, "the paste sent nothing")
    try session.send("C-s")
    try session.waitFor("created \(file)")

    // Another program (a git pull) gives the file two environments: reloaded, nothing unsaved.
    let created = try String(contentsOfFile: file, encoding: .utf8)
    let environments =
      #"  "environment": "one",\#n  "environments": {"one": {"host": "\#(fixture)"}, "two": {"host": "\#(second.baseURL)"}},\#n"#
    #expect(created.hasPrefix("{\n"), "\(created)")
    let pulled = "{\n" + environments + created.dropFirst(2)
    let temporary = file + ".pull"
    try pulled.write(toFile: temporary, atomically: false, encoding: .utf8)
    #expect(rename(temporary, file) == 0)
    try session.waitFor("it changed on disk")
    try session.waitFor("env one")

    // Send both: the typed one to environment one's host, the pasted one as pasted.
    // The paste opened get-get in the editor: 1 back to the list, whose first row is the folder.
    try session.send("1", "g", "j")
    try session.waitFor("Editor · probe/first")
    try session.send("Enter")
    try session.waitFor("✓ succeeded")
    try session.send("1", "G")
    try session.waitFor("Editor · get-get")
    try session.send("Enter")
    try session.waitFor("sent get-get")
    try waitUntil { try hits(pastedKey) == 1 }
    #expect(try hits(typedKey) == 1 && hits(pastedKey) == 1)

    // v: the other environment; the next send of probe/first goes to the other host.
    try session.send("v")
    try session.waitFor("Environments")
    try session.send("j", "Enter")
    try session.waitFor("environment two: sends use it from now on")
    try session.send("1", "g", "j")
    try session.waitFor("Editor · probe/first")
    try session.send("Enter")
    try session.waitFor("sent probe/first")
    try waitUntil { try hits(second.baseURL, typedKey) == 1 }
    #expect(try hits(second.baseURL, typedKey) == 1, "the next send went to the other host")
    #expect(try hits(typedKey) == 1)

    // D, R, then d and u (a delete undone), then save and quit.
    try session.send("1", "D")
    try session.waitFor("duplicated probe/first as probe/first-2")
    try session.send("R")
    try session.waitFor("rename probe/first-2 to")
    try session.send("C-u")
    try session.type("probe/copy")
    try session.send("Enter")
    try session.waitFor("renamed probe/first-2 to probe/copy")
    try session.send("G", "d")
    try session.waitFor("delete get-get? y/n")
    try session.send("y")
    try session.waitFor("u undoes it until the next save")
    try session.send("u")
    try session.waitFor("restored get-get")
    try session.send("C-s")
    try session.waitFor("saved \(file)")
    try session.quit()

    // Reopened: all there, the environment chosen is the file's.
    let again = try TmuxSession([try reqbenchBinary.path, file])
    let reopened = try again.waitFor("probe/")
    #expect(reopened.contains("copy") && reopened.contains("get-get") && reopened.contains("env two"), "\(reopened)")
    try again.quit()

    // The file's diff from what was pulled: the environment key changed and the copy added, no
    // other line touched.
    let saved = try String(contentsOfFile: file, encoding: .utf8)
    let before = pulled.split(separator: "\n", omittingEmptySubsequences: false)
    let after = saved.split(separator: "\n", omittingEmptySubsequences: false)
    let difference = after.difference(from: before)
    let removed = difference.removals.map { change -> Substring in
      if case .remove(_, let line, _) = change { return line }
      return ""
    }
    let inserted = difference.insertions.map { change -> Substring in
      if case .insert(_, let line, _) = change { return line }
      return ""
    }
    #expect(removed == [#"  "environment": "one","#], "\(saved)")
    #expect(inserted.contains(#"  "environment": "two","#), "\(saved)")
    #expect(inserted.contains { $0.contains(#""name": "probe/copy""#) }, "\(saved)")
    // Every other line added is a line of probe/first's (the copy is its duplicate).
    for line in inserted where !line.contains("environment") && !line.contains("probe/copy") {
      #expect(before.contains(line), "a line that is not the copy's: \(line)\n\(saved)")
    }
  }

  /// Polls `done` every 0.1 s for at most 10 s (a server counts a request when it has answered).
  func waitUntil(_ done: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(10)
    while try !done() && Date() < deadline { usleep(100_000) }
  }
}
