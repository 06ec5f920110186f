import Foundation

/// A file of the project's test fixtures, `Tests/Fixtures/RELATIVE`.
public func fixtureFile(_ relative: String) -> URL {
  URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures").appendingPathComponent(relative)
}

/// A fixture file copied into a fresh temporary folder of its own (its state folder, downloads
/// and secrets go beside it); returns the copy's path and the folder.
public func copyOfFixture(_ relative: String, named name: String? = nil) throws -> (path: String, folder: URL) {
  let source = fixtureFile(relative)
  return try workspaceFile(
    String(decoding: try Data(contentsOf: source), as: UTF8.self), named: name ?? source.lastPathComponent)
}
