import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// The workspace side of issue "Resumable downloads and streamed uploads": `download`, multipart
/// and file bodies, paths kept inside the workspace's folder.
@Suite struct StreamsAndDownloadsTests {
  let text = """
    {
      "version": 1,
      "baseURL": "http://127.0.0.1:9/",
      "requests": [
        {"name": "big", "url": "files/big%20file.bin?sig=1", "download": {"to": "downloads/", "sha256": "ABCDEF0123456789abcdef0123456789ABCDEF0123456789abcdef0123456789"}},
        {"name": "named", "url": "files/x", "download": {"to": "out/{{name}}.bin", "trustLength": true}},
        {"name": "up", "method": "POST", "url": "upload", "x-kept": 1,
         "body": {"multipart": [{"name": "note", "value": "hi {{name}}"}, {"name": "photo", "file": "data/p.png", "type": "image/png", "filename": "p.png"}]}},
        {"name": "put", "method": "PUT", "url": "blobs/1", "body": {"file": "data/blob.bin", "contentType": "application/x-blob"}}
      ],
      "variables": {"name": "ada"}
    }
    """

  func workspace(in folder: URL? = nil) throws -> Workspace {
    var workspace = try Workspace.parse(Array(text.utf8), file: "w.json")
    workspace.folder = folder
    return workspace
  }

  @Test func readsAndWritesTheNewKeys() throws {
    let workspace = try workspace()
    let big = try #require(workspace.request(named: "big"))
    #expect(big.download == DownloadTemplate(to: "downloads/", sha256: "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789"))
    #expect(workspace.request(named: "named")?.download?.trustLength == true)
    #expect(
      workspace.request(named: "up")?.body
        == .multipart([
          MultipartField(name: "note", value: "hi {{name}}"),
          MultipartField(name: "photo", file: "data/p.png", type: "image/png", filename: "p.png"),
        ]))
    #expect(workspace.request(named: "put")?.body == .file("data/blob.bin", contentType: "application/x-blob"))
    // Unchanged requests are written back as they were; edited ones keep unknown keys.
    var edited = workspace
    edited.requests[2].body = .multipart([MultipartField(name: "only", file: "data/q.bin")])
    edited.requests[0].download?.sha256 = nil
    let reread = try Workspace.parse(edited.encoded(), file: "w.json")
    #expect(reread.requests[2].body == .multipart([MultipartField(name: "only", file: "data/q.bin")]))
    #expect(reread.requests[0].download == DownloadTemplate(to: "downloads/"))
    #expect(String(decoding: edited.encoded(), as: UTF8.self).contains("\"x-kept\": 1"))
  }

  @Test func preparesPathsInsideTheWorkspaceFolder() throws {
    let folder = scratchURL("rb-ws")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let workspace = try workspace(in: folder)
    // A folder target takes the URL's last path component, percent-decoded.
    let big = try workspace.prepare(requestNamed: "big")
    #expect(big.download?.path == folder.path + "/downloads/big file.bin")
    #expect(big.download?.sha256?.hasPrefix("abcdef") == true)
    #expect(try workspace.prepare(requestNamed: "named").download?.path == folder.path + "/out/ada.bin")
    let up = try workspace.prepare(requestNamed: "up")
    #expect(
      up.body.stream
        == .multipart([
          .field("note", "hi ada"),
          .file("photo", path: folder.path + "/data/p.png", filename: "p.png", contentType: "image/png"),
        ]))
    let put = try workspace.prepare(requestNamed: "put")
    #expect(put.body.stream == .file(path: folder.path + "/data/blob.bin"))
    #expect(put.body.contentType == "application/x-blob")
  }

  @Test func fileNamesFromURLs() {
    #expect(WorkspacePaths.fileName(from: "http://h/a/b%20c.tar.gz?x=1#f") == "b c.tar.gz")
    #expect(WorkspacePaths.fileName(from: "http://h/a/dir/") == "dir")
    #expect(WorkspacePaths.fileName(from: "http://h/") == "download")
    #expect(WorkspacePaths.fileName(from: "http://h/a/..") == "download")
    #expect(WorkspacePaths.fileName(from: "http://h/a/%2E%2E") == "download")
    #expect(WorkspacePaths.fileName(from: "http://h/a/x%2Fy") == "download")
  }

  @Test func pathsThatLeaveTheFolderAreRefusedWhereTheyAreWritten() throws {
    let cases: [(String, String)] = [
      (#"{"name": "a", "url": "/x", "download": {"to": "../a"}}"#, "requests[0].download.to: \"../a\" leaves the workspace's folder"),
      (#"{"name": "a", "url": "/x", "download": {"to": "/tmp/a"}}"#, "requests[0].download.to: \"/tmp/a\" is absolute"),
      (#"{"name": "a", "url": "/x", "download": {"to": "~/a"}}"#, "requests[0].download.to: \"~/a\" is absolute"),
      (#"{"name": "a", "method": "PUT", "url": "/x", "body": {"file": "a/../../etc/passwd"}}"#, "requests[0].body.file: \"a/../../etc/passwd\" leaves"),
      (#"{"name": "a", "method": "POST", "url": "/x", "body": {"multipart": [{"name": "f", "file": "/etc/passwd"}]}}"#, "requests[0].body.multipart[0].file: \"/etc/passwd\" is absolute"),
      (#"{"name": "a", "method": "POST", "url": "/x", "body": {"multipart": [{"name": "f"}]}}"#, "requests[0].body.multipart[0]: a part has either \"value\" (text) or \"file\" (a path), not neither"),
      (#"{"name": "a", "method": "POST", "url": "/x", "body": {"multipart": [{"name": "f", "value": "v", "file": "x"}]}}"#, "not both"),
      (#"{"name": "a", "url": "/x", "download": {"to": "a", "sha256": "abc"}}"#, "requests[0].download.sha256: a sha256 is 64 hexadecimal digits"),
      (#"{"name": "a", "method": "POST", "url": "/x", "download": {"to": "a"}}"#, "requests[0].download: a download needs GET"),
      (#"{"name": "a", "url": "/x", "download": {"to": "a", "resume": true}}"#, "requests[0].download.resume: unknown download setting"),
    ]
    for (request, message) in cases {
      let error = try #require(loadError(#"{"version": 1, "requests": ["# + request + "]}"))
      #expect(error.description.contains(message), "\(error.description)")
    }
  }

  @Test func aVariableThatLeadsOutsideIsRefusedWhenPrepared() throws {
    let workspace = try Workspace.parse(
      Array(#"{"version": 1, "requests": [{"name": "a", "url": "http://h/x", "download": {"to": "out/{{f}}"}}]}"#.utf8),
      file: "w.json")
    let error = try #require(throws: PrepareError.self) {
      try workspace.prepare(requestNamed: "a", variables: ["f": "../../x"])
    }
    #expect(error.description.contains("download.to: \"out/../../x\" leaves the workspace's folder"), "\(error.description)")
  }
}
