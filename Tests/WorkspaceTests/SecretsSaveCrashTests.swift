import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// A process saving a secrets file over and over is killed with SIGKILL at random moments: the
/// file left is always one whole version with mode 0600, the `.gitignore` already lists it and
/// its temporary files, and the next save removes a temporary file the killed write left. The
/// child is this test binary running this test with `REQBENCH_SECRETS_CRASH_CHILD` set.
@Suite("Secrets save crash safety")
struct SecretsSaveCrashTests {
  static let childVariable = "REQBENCH_SECRETS_CRASH_CHILD"

  /// Two versions, different in size so a torn write would show.
  static func value(_ n: Int) -> String {
    String(repeating: n % 2 == 0 ? "a" : "b", count: n % 2 == 0 ? 100 : 100_000)
  }

  @Test func aSaveKilledAtAnyMomentLeavesOneWholeVersion() throws {
    if let path = ProcessInfo.processInfo.environment[Self.childVariable] {
      Self.saveUntilKilled(URL(fileURLWithPath: path))
    }
    let dir = scratchURL("rb-secrets-crash")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let workspace = dir.appendingPathComponent("api.json")
    let file = SecretsFile.url(forWorkspace: workspace)

    for round in 0..<10 {
      let killed = try killChildTest(
        suite: "SecretsSaveCrashTests", environment: [Self.childVariable: workspace.path],
        when: { FileManager.default.fileExists(atPath: file.path) }, pause: 50_000...300_000)
      #expect(killed, "round \(round): the child was killed")
      let loaded = try SecretsFile.load(forWorkspace: workspace)
      #expect([Self.value(0), Self.value(1)].contains(loaded.value(of: "token") ?? ""), "round \(round): a torn file")
      let mode = (try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber)?.intValue
      #expect(mode == 0o600)
      let ignore = try String(contentsOf: dir.appendingPathComponent(".gitignore"), encoding: .utf8)
        .split(separator: "\n").map(String.init)
      #expect(ignore.contains("api.secrets.json") && ignore.contains(".*.secrets.json.tmp-*"))
    }
    // A killed write's temporary file (made here too, in case no kill hit a write) is removed by
    // the next save.
    try Data("half".utf8).write(to: dir.appendingPathComponent(".api.secrets.json.tmp-dead"))
    var secrets = try SecretsFile.load(forWorkspace: workspace)
    secrets.set("token", "new")
    try secrets.save()
    let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
    #expect(names.sorted() == [".gitignore", "api.secrets.json"], "\(names)")
  }

  static func saveUntilKilled(_ workspace: URL) -> Never {
    var n = 0
    var secrets = SecretsFile(url: SecretsFile.url(forWorkspace: workspace))
    while true {
      n += 1
      secrets.set("token", value(n))
      try? secrets.save()
    }
  }
}
