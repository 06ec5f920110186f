import Foundation
import Testing
import Workspace
import WorkspaceTestSupport

@Suite struct AtomicFileTests {
  @Test func writesANewFileAndLeavesNoTemporaryFiles() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let target = directory.appendingPathComponent("new.json")
    try AtomicFile.write(Array("hello\n".utf8), to: target)
    #expect(try String(contentsOf: target, encoding: .utf8) == "hello\n")
    #expect(try directoryListing(directory) == ["new.json"])
  }

  @Test func replacesAnExistingFileAndKeepsItsPermissions() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let target = directory.appendingPathComponent("secrets.json")
    try Data("old content that is longer".utf8).write(to: target)
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: target.path)
    let inodeBefore = try FileManager.default.attributesOfItem(atPath: target.path)[
      .systemFileNumber]

    try AtomicFile.write(Data("new".utf8), to: target)

    #expect(try String(contentsOf: target, encoding: .utf8) == "new")
    let attributes = try FileManager.default.attributesOfItem(atPath: target.path)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    #expect(
      (attributes[.systemFileNumber] as? NSNumber) != (inodeBefore as? NSNumber),
      "a new file was renamed over the old one")
    #expect(try directoryListing(directory) == ["secrets.json"])
  }

  @Test func setsExplicitPermissions() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let target = directory.appendingPathComponent("s.json")
    try AtomicFile.write([1, 2, 3], to: target, permissions: 0o600)
    let attributes = try FileManager.default.attributesOfItem(atPath: target.path)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    #expect(try Data(contentsOf: target) == Data([1, 2, 3]))
  }

  @Test func followsASymbolicLink() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let real = directory.appendingPathComponent("real.json")
    let link = directory.appendingPathComponent("link.json")
    try Data("old".utf8).write(to: real)
    try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "real.json")
    try AtomicFile.write(Array("new".utf8), to: link)
    #expect(try String(contentsOf: real, encoding: .utf8) == "new")
    #expect(
      try FileManager.default.destinationOfSymbolicLink(atPath: link.path) == "real.json",
      "the link stays a link")
  }

  @Test func aMissingDirectoryIsAnErrorThatNamesTheFile() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let target = directory.appendingPathComponent("missing/x.json")
    do {
      try AtomicFile.write([1], to: target)
      Issue.record("writing into a missing directory succeeded")
    } catch {
      #expect(error.path == target.path)
      #expect(error.reason == "No such file or directory")
      #expect(error.description.hasPrefix("\(target.path): cannot create a temporary file in "))
    }
    #expect(try directoryListing(directory).isEmpty)
  }

  @Test func saveReplacesTheWorkspaceFile() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("api.json")
    try Data(
      #"{"version": 1, "x-mine": [1, 2], "requests": [{"name": "a", "url": "http://h/"}]}"#.utf8
    )
    .write(to: file)

    var ws = try Workspace.load(from: file)
    #expect(ws.name == "api")
    ws.requests[0].timeout = 9
    try ws.save(to: file)

    let reread = try Workspace.load(from: file)
    #expect(reread.requests[0].timeout == 9)
    #expect(try Data(contentsOf: file) == Data(ws.encoded()))
    #expect(try json(String(contentsOf: file, encoding: .utf8))["x-mine"] == [1, 2])
    #expect(try directoryListing(directory) == ["api.json"])
  }

  @Test func aFileThatFailsToLoadIsLeftAlone() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("broken.json")
    let broken = Data("{\"version\": 1, \"requests\": [{\"name\": \"a\"}]".utf8)
    try broken.write(to: file)
    let modified = try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate]

    #expect(throws: WorkspaceError.self) { try Workspace.load(from: file) }

    #expect(try Data(contentsOf: file) == broken)
    #expect(
      try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate] as? Date
        == modified as? Date)
    #expect(try directoryListing(directory) == ["broken.json"])
  }
}
