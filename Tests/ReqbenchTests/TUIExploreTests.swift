import Foundation
import TestSupport
import Testing

/// Issue 11, as a new user meets it: the real binary in tmux, from a file that does not exist to
/// requests made, pasted and organised, saved and read back.
@Suite("TUI end to end: exploring from nothing (tmux)", .serialized)
struct TUIExploreTests {
  /// A path in a fresh folder where no file is yet.
  func missingFile() throws -> (path: String, folder: URL) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rb-explore-" + uniqueKey())
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return (folder.appendingPathComponent("api.json").path, folder)
  }

  func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

  /// A missing file opens as a new workspace that says how to begin; `n` makes a request from
  /// `METHOD URL` (a mistake first: a bad name), the first Ctrl-S creates the file.
  @Test func startFromAMissingFileAndMakeARequestWithN() throws {
    let (file, folder) = try missingFile()
    let session = try TmuxSession([try reqbenchBinary.path, file])
    let start = try session.waitFor("new workspace")
    #expect(start.contains("new workspace \(file), not saved yet"), "\(start)")
    #expect(start.contains("No requests yet"), "\(start)")
    #expect(!FileManager.default.fileExists(atPath: file))

    try session.send("n")
    try session.waitFor("new request (METHOD URL, curl or .http)")
    try session.type("POST http://127.0.0.1:9/users")
    try session.send("Enter")
    let naming = try session.waitFor("name (folders with /)")
    #expect(naming.contains("post-users"), "the importer's name is suggested:\n\(naming)")
    // A mistake: an empty folder. The prompt says why and keeps the text.
    try session.type("users//create")
    try session.send("Enter")
    try session.waitFor("folder name cannot be empty")
    try session.send("C-u")
    try session.type("users/create")
    try session.send("Enter")
    let added = try session.waitFor("added users/create")
    #expect(added.contains("Editor · users/create"), "\(added)")
    #expect(added.contains("POST"), "\(added)")
    #expect(!FileManager.default.fileExists(atPath: file), "nothing is written before Ctrl-S")

    try session.send("C-s")
    try session.waitFor("created \(file)")
    let saved = try text(file)
    #expect(saved.contains(#""name": "users/create""#), "\(saved)")
    #expect(saved.contains(#""url": "http://127.0.0.1:9/users""#), "\(saved)")
    #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(".reqbench").path))
    try session.send("q")
    try session.waitFor("[exited 0]")

    // Reopened: the request is there and the file is no longer new.
    let again = try TmuxSession([try reqbenchBinary.path, file])
    let reopened = try again.waitFor("users/")
    #expect(!reopened.contains("not saved yet"), "\(reopened)")
    try again.send("q")
    try again.waitFor("[exited 0]")
  }
}
