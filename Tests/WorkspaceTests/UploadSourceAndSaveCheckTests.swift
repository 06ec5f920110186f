import Foundation
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

/// What a workspace sends must be a file (a folder or a pipe would send
/// nothing or never end, a HEAD with a body would wait for a body that never comes), and a save
/// never writes a text the reader refuses. On real files in a temporary folder.
@Suite struct UploadSourceAndSaveCheckTests {
  /// `FOLDER/data/` (a folder), `FOLDER/data/blob.bin` (a file), `FOLDER/pipe` (a FIFO).
  struct Folder {
    let url: URL
    init() throws {
      url = try makeTemporaryDirectory()
      try FileManager.default.createDirectory(at: url.appendingPathComponent("data"), withIntermediateDirectories: true)
      try Data("blob".utf8).write(to: url.appendingPathComponent("data/blob.bin"))
      #expect(mkfifo(url.appendingPathComponent("pipe").path, 0o600) == 0)
    }
    func remove() { try? FileManager.default.removeItem(at: url) }
  }

  @Test func aFolderOrAPipeToUploadIsRefusedWhenPrepared() throws {
    let folder = try Folder()
    defer { folder.remove() }
    var workspace = try workspace(
      """
      {"version": 1, "baseURL": "http://127.0.0.1:9/", "variables": {"f": "data"}, "requests": [
       {"name": "dir", "method": "PUT", "url": "u", "body": {"file": "data/"}},
       {"name": "dir-var", "method": "PUT", "url": "u", "body": {"file": "{{f}}"}},
       {"name": "part", "method": "POST", "url": "u", "body": {"multipart": [{"name": "a", "value": "1"}, {"name": "f", "file": "data"}]}},
       {"name": "pipe", "method": "PUT", "url": "u", "body": {"file": "pipe"}},
       {"name": "file", "method": "PUT", "url": "u", "body": {"file": "{{f}}/blob.bin"}},
       {"name": "missing", "method": "PUT", "url": "u", "body": {"file": "data/later.bin"}}
      ]}
      """, file: "w.json")
    workspace.folder = folder.url
    let refused = [
      ("dir", #"body.file: "data/" is a folder; name a file to send"#),
      ("dir-var", #"body.file: "data" is a folder; name a file to send"#),
      ("part", #"body.multipart[1]: "data" is a folder; name a file to send"#),
      ("pipe", #"body.file: "pipe" is not a regular file; name a file to send"#),
    ]
    for (name, message) in refused {
      let error = try #require(prepareError(workspace, name))
      #expect(error.code == .invalidPath, "\(name)")
      #expect(error.description.contains(message), "\(name): \(error.description)")
    }
    let file = try workspace.prepare(requestNamed: "file")
    #expect(file.body.stream == .file(path: try realPath(folder.url.path) + "/data/blob.bin"))
    // A file that does not exist yet is the engine's to report when it is sent.
    #expect(try workspace.prepare(requestNamed: "missing").body.stream != nil)
  }

  @Test func aHEADWithABodyIsRefusedWhereItIsWritten() throws {
    let error = try #require(loadError(
      """
      {"version": 1, "requests": [
       {"name": "a", "method": "HEAD", "url": "http://127.0.0.1:9/", "body": {"text": "abc"}},
       {"name": "b", "method": "HEAD", "url": "http://127.0.0.1:9/", "body": {"file": "data/blob.bin"}},
       {"name": "c", "method": "HEAD", "url": "http://127.0.0.1:9/"}
      ]}
      """))
    #expect(error.problems.map(\.description) == [
      #"2:72: requests[0].body: a HEAD request has no body; remove "body" or use another method"#,
      #"3:72: requests[1].body: a HEAD request has no body; remove "body" or use another method"#,
    ])
  }

  /// A JSON value `depth` arrays deep.
  func nested(_ depth: Int) -> JSONValue {
    var value = JSONValue.array([])
    for _ in 1..<depth { value = .array([value]) }
    return value
  }

  /// A body the parser reads on its own (510 deep) sits 4 levels deeper in a workspace file,
  /// beyond the reader's 512: the save refuses it and writes nothing; the file stays as it was.
  @Test func aSaveNeverWritesWhatTheReaderRefuses() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    _ = try JSONParser.parse(JSONSerializer.compact(nested(510)))
    let url = folder.appendingPathComponent("w.json")
    let original = #"{"version": 1, "requests": [{"name": "a", "url": "http://127.0.0.1:9/"}]}"# + "\n"
    try original.write(to: url, atomically: true, encoding: .utf8)

    var file = WorkspaceFile(url)
    var workspace = try file.load()
    try workspace.addRequest(RequestTemplate(name: "deep", method: .POST, url: "http://127.0.0.1:9/", body: .json(nested(510))))
    let error = try #require(throws: WorkspaceSaveError.self) { try file.save(workspace) }
    guard case .wouldNotLoad(let reason) = error else {
      Issue.record("\(error)")
      return
    }
    #expect(reason.description.contains("nesting deeper than 512 levels"), "\(reason.description)")
    #expect(error.description.hasPrefix("nothing was written: the new text would not load again ("), "\(error.description)")
    // Workspace.save too, and to a new file: nothing created.
    let other = folder.appendingPathComponent("new.json")
    #expect(throws: WorkspaceSaveError.self) { try workspace.save(to: other) }
    #expect(try String(contentsOf: url, encoding: .utf8) == original)
    #expect(try directoryListing(folder) == ["w.json"])
    // One level less loads again, and is saved.
    workspace.requests[1].body = .json(nested(509))
    try file.save(workspace)
    var reread = WorkspaceFile(url)
    #expect(try reread.load().requests.count == 2)
  }
}

/// The real path of `path` (the temporary folder may be reached through a link).
private func realPath(_ path: String) throws -> String {
  guard let resolved = realpath(path, nil) else { throw CocoaError(.fileNoSuchFile) }
  defer { free(resolved) }
  return String(cString: resolved)
}

/// The cache's digest key is per state folder, random, 0600, kept.
@Suite struct CacheDigestKeyTests {
  @Test func theKeyIsMadeOnceKeptAndPrivate() throws {
    let state = try makeTemporaryDirectory().appendingPathComponent("state")
    defer { try? FileManager.default.removeItem(at: state.deletingLastPathComponent()) }
    let key = try StateFolder.cacheDigestKey(in: state)
    #expect(key.count == 32)
    #expect(try StateFolder.cacheDigestKey(in: state) == key)
    let file = state.appendingPathComponent("cache.key")
    let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
    #expect(mode == 0o600)
    // Another state folder has another key.
    let other = try StateFolder.cacheDigestKey(in: state.deletingLastPathComponent().appendingPathComponent("other"))
    #expect(other != key)
    // Damaged (another length): made again.
    try Data("short".utf8).write(to: file)
    let remade = try StateFolder.cacheDigestKey(in: state)
    #expect(remade.count == 32 && remade != key)
    // A link is never written through.
    let target = state.deletingLastPathComponent().appendingPathComponent("elsewhere.txt")
    try Data("keep me\n".utf8).write(to: target)
    try FileManager.default.removeItem(at: file)
    try FileManager.default.createSymbolicLink(at: file, withDestinationURL: target)
    #expect(throws: FileError.self) { try StateFolder.cacheDigestKey(in: state) }
    #expect(try String(contentsOf: target, encoding: .utf8) == "keep me\n")
  }
}
