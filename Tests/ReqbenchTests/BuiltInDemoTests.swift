import CommandLineSupport
import Foundation
import TestSupport
import Testing

/// `reqbench --demo` works wherever the binary is installed: the demo workspace is built in and
/// written to a folder of its own when no `workspaces/demo.json` is found.
@Suite("the built-in demo", .serialized)
struct BuiltInDemoTests {
  var root: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  }

  @Test func theBuiltInFilesAreTheRepositorysDemo() throws {
    let json = try Data(contentsOf: root.appendingPathComponent("workspaces/demo.json"))
    #expect(
      Array(BuiltInDemo.workspaceText.utf8) == Array(json),
      "Sources/CommandLineSupport/DemoWorkspaceText.swift differs from workspaces/demo.json: put the file's text between its quotes")
    let folder = scratchURL("rb-builtin-demo")
    defer { try? FileManager.default.removeItem(at: folder) }
    let installed = try BuiltInDemo.install(in: folder)
    #expect(installed.written && !installed.temporary)
    for name in ["demo.json", "data/photo.png", "data/blob.bin"] {
      let written = try Data(contentsOf: folder.appendingPathComponent(name))
      let committed = try Data(contentsOf: root.appendingPathComponent("workspaces/" + name))
      #expect(written == committed, "\(name) differs from workspaces/\(name)")
    }
    // A demo already there is opened as it is: the user's edits are kept.
    try #"{"version": 1, "requests": []}"#.write(to: installed.workspace, atomically: true, encoding: .utf8)
    let again = try BuiltInDemo.install(in: folder)
    #expect(!again.written)
    #expect(try String(contentsOf: again.workspace, encoding: .utf8) == #"{"version": 1, "requests": []}"#)
  }

  @Test func theStateFolderFollowsXDG() {
    #expect(BuiltInDemo.stateFolder(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"])?.path == "/s/reqbench/demo")
    #expect(BuiltInDemo.stateFolder(environment: ["XDG_STATE_HOME": "", "HOME": "/h"])?.path == "/h/.local/state/reqbench/demo")
    #expect(BuiltInDemo.stateFolder(environment: ["XDG_STATE_HOME": "relative"])?.path == nil)
  }

  /// The installed binary, run in another folder: the demo is written to the state folder, sends
  /// to the embedded server, and is found there the next time; without a state folder it lives in
  /// a temporary folder that is gone when the TUI quits.
  @Test func anInstalledBinaryOpensTheDemoFromAnyFolder() throws {
    let place = scratchURL("rb-installed")
    let bin = place.appendingPathComponent("bin")
    let home = place.appendingPathComponent("home")
    let elsewhere = place.appendingPathComponent("elsewhere")
    for folder in [bin, home, elsewhere] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
    defer { try? FileManager.default.removeItem(at: place) }
    let binary = bin.appendingPathComponent("reqbench")
    try FileManager.default.copyItem(at: try reqbenchBinary, to: binary)
    let command = ["/usr/bin/env", "-C", elsewhere.path, binary.path, "--demo"]

    let first = try TmuxSession(command, width: 220, height: 35, environment: ["HOME": home.path, "XDG_STATE_HOME": ""])
    let demo = home.appendingPathComponent(".local/state/reqbench/demo")
    try first.waitFor("wrote the built-in demo to \(demo.path)/demo.json")
    try first.send("Enter")
    try first.waitFor("✓ succeeded")
    try first.quit()
    #expect(FileManager.default.fileExists(atPath: demo.appendingPathComponent("data/blob.bin").path))

    let second = try TmuxSession(command, width: 220, height: 35, environment: ["HOME": home.path, "XDG_STATE_HOME": ""])
    try second.waitFor("opened the built-in demo in \(demo.path)/demo.json")
    try second.quit()

    // No state folder can be made (HOME is a file): a temporary one, removed at the end.
    let notAFolder = place.appendingPathComponent("home-file")
    try Data().write(to: notAFolder)
    let third = try TmuxSession(command, width: 220, height: 35, environment: ["HOME": notAFolder.path, "XDG_STATE_HOME": ""])
    let screen = try third.waitFor("(removed when reqbench quits)")
    let line = try #require(screen.split(separator: "\n").last { $0.contains("opened the built-in demo in") })
    let path = try #require(line.split(separator: " ").first { $0.hasPrefix("/") && $0.hasSuffix("demo.json") })
    #expect(FileManager.default.fileExists(atPath: String(path)))
    try third.send("Enter")
    try third.waitFor("✓ succeeded")
    try third.quit()
    #expect(!FileManager.default.fileExists(atPath: String(path)), "the temporary demo outlived the process")
  }
}
