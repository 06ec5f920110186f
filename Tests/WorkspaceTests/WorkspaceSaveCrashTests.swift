import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// A process saving a workspace over and over is killed with SIGKILL at random moments: the file
/// left is always one whole version, old or new, never a mix. The child is this test binary
/// running this test with `REQBENCH_SAVE_CRASH_CHILD` set.
@Suite("Workspace save crash safety")
struct WorkspaceSaveCrashTests {
  static let childVariable = "REQBENCH_SAVE_CRASH_CHILD"

  /// Two versions of the workspace, different in size so a torn write would show.
  static func version(_ n: Int) -> Workspace {
    var workspace = Workspace(name: "crash", baseURL: "http://127.0.0.1:1/")
    for i in 0..<(n % 2 == 0 ? 40 : 400) {
      workspace.requests.append(RequestTemplate(name: "v\(n % 2)-r\(i)", url: "/r/\(i)?filler=\(String(repeating: "x", count: 64))"))
    }
    return workspace
  }

  @Test func aSaveKilledAtAnyMomentLeavesOneWholeVersion() throws {
    if let path = ProcessInfo.processInfo.environment[Self.childVariable] {
      Self.saveUntilKilled(URL(fileURLWithPath: path))
    }
    let dir = scratchURL("rb-save-crash")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("crash.json")
    try Self.version(0).save(to: file)
    let versions = [Self.version(0).requests.map(\.name), Self.version(1).requests.map(\.name)]

    for round in 0..<20 {
      // A save replaces the file with one written just then (a later modification time): the
      // child is killed only after one of its saves in this round has completed, at a random
      // moment of the ones that follow.
      let before = try Self.modified(file)
      let killed = try killChildTest(
        suite: "WorkspaceSaveCrashTests", environment: [Self.childVariable: file.path],
        when: { (try? Self.modified(file)).map { $0 > before } ?? false }, pause: 100_000...400_000)
      #expect(killed, "round \(round): the child was killed")
      #expect(try Self.modified(file) > before, "round \(round): the child saved the workspace")
      let loaded = try Workspace.load(from: file)
      #expect(versions.contains(loaded.requests.map(\.name)), "round \(round): a torn workspace")
    }
  }

  /// The modification time of the file `file` names now, in nanoseconds.
  static func modified(_ file: URL) throws -> Int {
    var info = stat()
    try #require(stat(file.path, &info) == 0, "stat \(file.path): errno \(errno)")
    return info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec
  }

  static func saveUntilKilled(_ file: URL) -> Never {
    var n = 0
    while true {
      n += 1
      try? version(n).save(to: file)
    }
  }
}
