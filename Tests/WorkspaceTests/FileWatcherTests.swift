import Foundation
import Testing
import Workspace
import WorkspaceTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// `FileWatcher` on real files: an edit by rename (as editors and git save) and in place are
/// seen, other files in the folder are not, and an idle watcher's descriptor stays unreadable.
@Suite struct FileWatcherTests {
  /// Whether the descriptor becomes readable within `milliseconds` (one bounded poll).
  func readable(_ watcher: FileWatcher, within milliseconds: Int32) -> Bool {
    var entry = pollfd(fd: watcher.fileDescriptor, events: Int16(POLLIN), revents: 0)
    return poll(&entry, 1, milliseconds) == 1 && entry.revents & Int16(POLLIN) != 0
  }

  func write(_ text: String, to url: URL) throws { try Data(text.utf8).write(to: url) }

  @Test func anEditByRenameIsSeenAndTheDecisionFollows() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("api.json")
    try write(#"{"version": 1}"#, to: url)
    var file = WorkspaceFile(url)
    _ = try file.load()
    let watcher = try FileWatcher(watching: url)
    #expect(!readable(watcher, within: 50), "nothing happened: nothing to read")

    // An editor's save: write a temporary file beside it, rename it over.
    let temporary = directory.appendingPathComponent(".api.json.swp")
    try write(#"{"version": 1, "requests": []}"#, to: temporary)
    #expect(rename(temporary.path, url.path) == 0)
    #expect(readable(watcher, within: 2000))
    #expect(watcher.drain())
    #expect(!readable(watcher, within: 50), "drained")
    #expect(file.checkDisk(hasUnsavedEdits: false) == .reload)
    #expect(file.checkDisk(hasUnsavedEdits: true) == .conflict)
  }

  @Test func anEditInPlaceIsSeen() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("api.json")
    try write(#"{"version": 1}"#, to: url)
    var file = WorkspaceFile(url)
    _ = try file.load()
    let watcher = try FileWatcher(watching: url)
    let handle = try FileHandle(forWritingTo: url)
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("\n".utf8))
    try handle.close()
    #expect(readable(watcher, within: 2000))
    #expect(watcher.drain())
    #expect(file.checkDisk(hasUnsavedEdits: false) == .reload)
  }

  @Test func otherFilesAndTheAppsOwnSaveNeedNoReload() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let url = directory.appendingPathComponent("api.json")
    var file = WorkspaceFile(url)
    var workspace = try file.load()
    let watcher = try FileWatcher(watching: url)
    // Another file in the folder: drained, not about ours.
    try write("x", to: directory.appendingPathComponent("notes.txt"))
    #expect(readable(watcher, within: 2000))
    #expect(!watcher.drain())

    // The app's own save (a temporary file renamed over): about the file, but unchanged.
    try workspace.addRequest(RequestTemplate(name: "a", url: "/a"))
    try file.save(workspace)
    #expect(readable(watcher, within: 2000))
    #expect(watcher.drain())
    #expect(file.checkDisk(hasUnsavedEdits: false) == .unchanged)

    // Deleted, then created again by someone else.
    try FileManager.default.removeItem(at: url)
    #expect(readable(watcher, within: 2000))
    #expect(watcher.drain())
    #expect(file.checkDisk(hasUnsavedEdits: false) == .deleted)
  }

  @Test func theEventParserReadsNamesAndFolderEvents() {
    func event(mask: UInt32, name: String, padded: Int) -> [UInt8] {
      var bytes: [UInt8] = []
      for value in [UInt32(1), mask, 0, UInt32(padded)] {
        bytes += (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) }
      }
      return bytes + Array(name.utf8) + Array(repeating: 0, count: padded - name.utf8.count)
    }
    let ours = Array("api.json".utf8)
    let other = event(mask: UInt32(IN_CLOSE_WRITE), name: "api.json.bak", padded: 16)
    let tmp = event(mask: UInt32(IN_CREATE), name: ".api.json.tmp-1f", padded: 32)
    let mine = event(mask: UInt32(IN_MOVED_TO), name: "api.json", padded: 16)
    let gone = event(mask: UInt32(IN_DELETE_SELF), name: "", padded: 0)
    #expect(!FileWatcherTests.parse(other + tmp, ours))
    #expect(FileWatcherTests.parse(other + mine + tmp, ours))
    #expect(FileWatcherTests.parse(gone, ours))
  }

  static func parse(_ bytes: [UInt8], _ name: [UInt8]) -> Bool {
    FileWatcher.events(in: bytes[...], concern: name)
  }

  @Test func aFolderThatDoesNotExistIsAnError() {
    #expect(throws: FileError.self) {
      try FileWatcher(watching: URL(fileURLWithPath: "/nonexistent-reqbench-folder/api.json"))
    }
  }
}
