import Foundation

/// A file of the project's test fixtures, `Tests/Fixtures/RELATIVE`.
public func fixtureFile(_ relative: String) -> URL {
  URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures").appendingPathComponent(relative)
}

/// A file of the test tree, `Tests/RELATIVE` (a helper script such as `Browser/capture_har.py`).
public func testsFile(_ relative: String) -> URL {
  URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent(relative)
}

/// A fixture file copied into a fresh temporary folder of its own (its state folder, downloads
/// and secrets go beside it); returns the copy's path and the folder.
public func copyOfFixture(_ relative: String, named name: String? = nil) throws -> (path: String, folder: URL) {
  let source = fixtureFile(relative)
  return try workspaceFile(
    String(decoding: try Data(contentsOf: source), as: UTF8.self), named: name ?? source.lastPathComponent)
}

/// A header injection from a server as a workspace: chain step 1's response echoes
/// `\r\nX-Injected: fromserver`, the chain captures it as `tok`, and step 2 (`/anything/next?key=KEY`,
/// counted by the fixture server under `key`) would put it in a header.
public func injectingChainWorkspace(key: String) throws -> String {
  #"""
  {"version": 1, "baseURL": "\#(try TestServer.fixture.baseURL)",
   "requests": [
     {"name": "cap1", "url": "/anything/cap?x=%0D%0AX-Injected:%20fromserver"},
     {"name": "cap2", "url": "/anything/next?key=\#(key)", "headers": {"X-Token": "{{tok}}"}}
   ],
   "chains": [{"name": "chain", "steps": [{"request": "cap1", "capture": {"tok": ".query.x"}}, {"request": "cap2"}]}]}
  """#
}
