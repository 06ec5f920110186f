import Foundation
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

/// `WorkspaceFile`: a missing file is a new workspace, saves never write over another program's
/// change, and `FileChange.decide` tells what to do when the file moves.
@Suite struct WorkspaceFileTests {
  func write(_ text: String, to url: URL) throws {
    try Data(text.utf8).write(to: url)
  }

  func contents(_ url: URL) throws -> String {
    String(decoding: try Data(contentsOf: url), as: UTF8.self)
  }

  @Test func aMissingFileIsANewEmptyWorkspaceThatTheFirstSaveCreates() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    // Its folder may be missing too: the first save creates it.
    let url = directory.appendingPathComponent("apis/new-api.json")
    var file = WorkspaceFile(url)
    var workspace = try file.load()
    #expect(file.isNew)
    #expect(workspace.name == "new-api")
    #expect(workspace.requests.isEmpty)
    #expect(workspace.folder?.path == directory.appendingPathComponent("apis").standardizedFileURL.path)
    #expect(!FileManager.default.fileExists(atPath: url.path), "opening creates nothing")
    #expect(file.checkDisk(hasUnsavedEdits: false) == .unchanged)

    try workspace.addRequest(RequestTemplate(name: "get-users", url: "http://127.0.0.1:1/users"))
    try file.save(workspace)
    #expect(!file.isNew)
    #expect(
      try contents(url) == """
        {
          "version": 1,
          "name": "new-api",
          "requests": [
            {
              "name": "get-users",
              "method": "GET",
              "url": "http://127.0.0.1:1/users"
            }
          ]
        }

        """)
    #expect(try directoryListing(url.deletingLastPathComponent()) == ["new-api.json"], "no temporary file left")
    #expect(file.checkDisk(hasUnsavedEdits: true) == .unchanged, "our own save is not a change")
    // Saved again after another edit: no conflict with itself.
    workspace.requests[0].url = "http://127.0.0.1:1/people"
    try file.save(workspace)
    #expect(try WorkspaceFile(url).reloaded().requests[0].url == "http://127.0.0.1:1/people")
  }

  @Test func aFileCreatedByAnotherProgramBeforeTheFirstSaveIsAConflict() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("w.json")
    var file = WorkspaceFile(url)
    let workspace = try file.load()
    try write(#"{"version": 1, "requests": []}"#, to: url)
    #expect(file.checkDisk(hasUnsavedEdits: false) == .reload)
    #expect(file.checkDisk(hasUnsavedEdits: true) == .conflict)
    #expect(throws: WorkspaceSaveError.changedOnDisk(path: url.relativePath)) { try file.save(workspace) }
    #expect(try contents(url) == #"{"version": 1, "requests": []}"#)
  }

  @Test func aSaveNeverWritesOverAnotherProgramsChange() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("w.json")
    let original = #"{"version": 1, "requests": [{"name": "a", "url": "/a"}]}"# + "\n"
    try write(original, to: url)
    var file = WorkspaceFile(url)
    var workspace = try file.load()
    #expect(!file.isNew)
    try workspace.renameRequest("a", to: "b")

    // Edited in place (same inode, new content).
    let theirs = #"{"version": 1, "requests": [{"name": "a", "url": "/theirs"}]}"# + "\n"
    let handle = try FileHandle(forWritingTo: url)
    try handle.truncate(atOffset: 0)
    try handle.write(contentsOf: Data(theirs.utf8))
    try handle.close()
    #expect(file.checkDisk(hasUnsavedEdits: true) == .conflict)
    #expect(throws: WorkspaceSaveError.changedOnDisk(path: url.relativePath)) { try file.save(workspace) }
    #expect(try contents(url) == theirs, "their change is on disk, untouched")
    #expect(
      WorkspaceSaveError.changedOnDisk(path: "w.json").description
        == "w.json: changed on disk since it was loaded; reload it (dropping these edits) or overwrite it")

    // Overwrite, as the user chose.
    try file.save(workspace, overwrite: true)
    #expect(try contents(url) == #"{"version": 1, "requests": [{"name": "b", "url": "/a"}]}"# + "\n")
    #expect(file.checkDisk(hasUnsavedEdits: true) == .unchanged)

    // Reload and drop the edits, as the user chose instead.
    try write(theirs, to: url)
    workspace = try file.load()
    #expect(workspace.requests[0].url == "/theirs")
    #expect(file.checkDisk(hasUnsavedEdits: false) == .unchanged)
  }

  /// Merge: the edits here on top of another program's change, laid out as the file on disk is;
  /// the next save writes both. Where both changed one value, nothing changes and it is named.
  @Test func aMergeKeepsBothSidesChangesAndRefusesWhereBothChangedOneValue() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("w.json")
    try write(
      """
      {
        "version": 1,
        "environments": {"dev": {"host": "a"}},
        "requests": [
          {"name": "a", "url": "/a"},
          {"name": "b", "url": "/b"}
        ]
      }

      """, to: url)
    var file = WorkspaceFile(url)
    var workspace = try file.load()
    // Here: a's URL edited, a request c added after a, the environment chosen.
    try workspace.modifyRequest(named: "a") { $0.url = "/a-mine" }
    try workspace.addRequest(RequestTemplate(name: "c", url: "/c"), placement: .after("a"))
    try workspace.selectEnvironment("dev")
    // There (laid out on one line each): b's URL edited, a variable added to dev.
    let theirs = """
      {"version": 1, "environments": {"dev": {"host": "a", "port": "8080"}},
       "requests": [{"name": "a", "url": "/a"}, {"name": "b", "url": "/b-theirs"}]}

      """
    try write(theirs, to: url)
    #expect(file.checkDisk(hasUnsavedEdits: true) == .conflict)
    let merged = try file.merge(workspace)
    #expect(merged.requests.map(\.name) == ["a", "c", "b"])
    #expect(merged.requests.map(\.url) == ["/a-mine", "/c", "/b-theirs"])
    #expect(merged.environment == "dev")
    #expect(merged.environments.first?.variables.map(\.name) == ["host", "port"])
    #expect(try contents(url) == theirs, "a merge writes nothing")
    // The save writes both, in the file's own layout, without asking again.
    try file.save(merged)
    let saved = try contents(url)
    #expect(saved.hasPrefix(#"{"version": 1, "environments": {"dev": {"host": "a", "port": "8080"}},"#), "\(saved)")
    #expect(saved.contains(#"{"name": "b", "url": "/b-theirs"}"#) && saved.contains(#""url": "/a-mine""#))
    #expect(saved.contains(#""environment": "dev""#))

    // Both change b's URL: refused, naming it; the file stays as it is and a save still asks.
    var mine = try file.load()
    try mine.modifyRequest(named: "b") { $0.url = "/b-mine" }
    try write(saved.replacingOccurrences(of: "/b-theirs", with: "/b-again"), to: url)
    #expect(throws: WorkspaceMergeError.conflicts(["requests[b].url"])) { try file.merge(mine) }
    #expect(throws: WorkspaceSaveError.changedOnDisk(path: url.relativePath)) { try file.save(mine) }
    #expect(WorkspaceMergeError.conflicts(["requests[b].url"]).description == "both changed requests[b].url")
    // A file that is gone or broken: nothing to merge with.
    try write("{ broken", to: url)
    #expect {
      try file.merge(mine)
    } throws: { error in
      guard case .unreadable(let reason) = error as? WorkspaceMergeError else { return false }
      return reason.hasSuffix("w.json:1:3: unexpected character 'b'; expected a key in double quotes")
    }
    try FileManager.default.removeItem(at: url)
    #expect(throws: WorkspaceMergeError.deleted) { try file.merge(mine) }
  }

  @Test func touchingOrRewritingTheSameContentIsNoChange() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("w.json")
    let original = #"{"version": 1}"#
    try write(original, to: url)
    var file = WorkspaceFile(url)
    _ = try file.load()
    guard case .present(let before) = file.loaded else {
      Issue.record("loaded an existing file as \(file.loaded)")
      return
    }
    // A new file (another inode) with the same bytes, renamed over it: unchanged, remembered.
    let other = directory.appendingPathComponent("other.json")
    try write(original, to: other)
    #expect(rename(other.path, url.path) == 0)
    #expect(file.checkDisk(hasUnsavedEdits: true) == .unchanged)
    guard case .present(let after) = file.loaded else {
      Issue.record("after the rename the file is \(file.loaded)")
      return
    }
    #expect(after.inode != before.inode)
    #expect(after.content == before.content)
  }

  @Test func aDeletedFileIsSaidAndASaveWritesItAgain() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("w.json")
    try write(#"{"version": 1}"#, to: url)
    var file = WorkspaceFile(url)
    let workspace = try file.load()
    try FileManager.default.removeItem(at: url)
    #expect(file.checkDisk(hasUnsavedEdits: false) == .deleted)
    #expect(file.checkDisk(hasUnsavedEdits: true) == .deleted)
    try file.save(workspace)
    #expect(try contents(url) == #"{"version": 1}"#)
  }

  @Test func anUnreadableOrBrokenFileIsAnErrorAndNeverOverwritten() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let folder = directory.appendingPathComponent("folder.json")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    var file = WorkspaceFile(folder)
    let error = try #require(throws: WorkspaceError.self) { try file.load() }
    #expect(error.description == "\(folder.relativePath): cannot read the workspace: Is a directory")

    let url = directory.appendingPathComponent("w.json")
    try write(#"{"version": 1}"#, to: url)
    var loaded = WorkspaceFile(url)
    let workspace = try loaded.load()
    // Someone breaks the file: a reload fails (the workspace shown stays), a save asks.
    try write(#"{"version": 1,"#, to: url)
    #expect(loaded.checkDisk(hasUnsavedEdits: false) == .reload)
    #expect(throws: WorkspaceError.self) { try loaded.load() }
    #expect(throws: WorkspaceSaveError.changedOnDisk(path: url.relativePath)) { try loaded.save(workspace) }
    #expect(try contents(url) == #"{"version": 1,"#)
  }

  /// The decision alone, for every pair of states.
  @Test func theDecisionTable() {
    let a = FileStamp(device: 1, inode: 10, size: 3, modified: 100, statusChanged: 100, content: [1, 2, 3])
    var touched = a
    touched.modified = 200
    touched.statusChanged = 200
    var replaced = a
    replaced.inode = 11
    var edited = a
    edited.content = [9, 9, 9]
    var grown = a
    grown.size = 4
    let cases: [(DiskState, DiskState, Bool, FileChange)] = [
      (.missing, .missing, false, .unchanged), (.missing, .missing, true, .unchanged),
      (.present(a), .present(a), true, .unchanged), (.present(a), .present(touched), true, .unchanged),
      (.present(a), .present(replaced), true, .unchanged),
      (.present(a), .present(edited), false, .reload), (.present(a), .present(edited), true, .conflict),
      (.present(a), .present(grown), false, .reload), (.present(a), .present(grown), true, .conflict),
      (.missing, .present(a), false, .reload), (.missing, .present(a), true, .conflict),
      (.present(a), .missing, false, .deleted), (.present(a), .missing, true, .deleted),
      (.present(a), .unreadable("Permission denied"), false, .reload),
      (.present(a), .unreadable("Permission denied"), true, .conflict),
      (.unreadable("Permission denied"), .unreadable("Permission denied"), true, .unchanged),
      (.unreadable("Permission denied"), .present(a), false, .reload),
    ]
    for (loaded, now, unsaved, expected) in cases {
      #expect(
        FileChange.decide(loaded: loaded, now: now, hasUnsavedEdits: unsaved) == expected,
        "\(loaded) → \(now), unsaved edits: \(unsaved)")
    }
  }
}

extension WorkspaceFile {
  /// Loads a copy, for tests that only read.
  func reloaded() throws -> Workspace {
    var copy = self
    return try copy.load()
  }
}
