import Formats
import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// Runs `script` with `/bin/sh -c`.
private func sh(_ script: String) throws -> ProcessResult {
  try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script])
}

/// Exported curl commands, run by `sh`, against httpbin's `/anything`, compared field by field with
/// what reqbench itself sends; and the binary end to end: `import curl -` then `export curl`.
@Suite("curl export against httpbin")
struct ExportCurlServerTests {
  func workspace() throws -> Workspace {
    let base = try TestServer.httpbin.baseURL
    return try Workspace.parse(
      Array(
        #"""
        {"version": 1, "name": "shapes", "baseURL": "\#(base)/",
         "variables": {"ua": "reqbench-export-test"},
         "requests": [
          {"name": "get-query", "url": "anything/search",
           "query": {"q": "café & co", "page": 2, "tags": ["a", "b"], "empty": ""},
           "headers": {"User-Agent": "{{ua}}", "X-Trace": "it's \"quoted\" $HOME `x`", "Accept": "application/json"}},
          {"name": "form-post", "method": "POST", "url": "anything/login",
           "headers": {"User-Agent": "{{ua}}"},
           "body": {"form": {"user": "ada@example.com", "pass": "p&ss word=1", "n": 3}}},
          {"name": "json-post", "method": "POST", "url": "anything/items",
           "headers": {"User-Agent": "{{ua}}"},
           "body": {"json": {"text": "O'Brien said \"hi\"\nline2\ttab \\ end", "emoji": "😀🎉", "n": 1.5, "list": [true, null]}}},
          {"name": "put-text", "method": "PUT", "url": "anything/notes/1",
           "headers": {"User-Agent": "{{ua}}", "X-Empty": ""},
           "body": {"text": "# Title\n\n$HOME `date` 'q' \\ %s end\n", "contentType": "text/markdown"}},
          {"name": "patch-empty", "method": "PATCH", "url": "anything/flags",
           "headers": {"User-Agent": "{{ua}}"}},
          {"name": "basic-auth", "method": "DELETE", "url": "anything/private",
           "headers": {"User-Agent": "{{ua}}", "Cookie": "a=1; b=2"},
           "auth": {"basic": {"user": "ada", "password": "s3:cr et'"}}},
          {"name": "head", "method": "HEAD", "url": "anything/head", "headers": {"User-Agent": "{{ua}}"}},
          {"name": "no-user-agent", "url": "anything/plain", "headers": {"X-Trace": "1"}}
        ]}
        """#.utf8), file: "shapes.json")
  }

  /// httpbin's echo of `request` sent by reqbench, and of its curl export run by `sh`.
  func echoes(_ name: String) throws -> (reqbench: JSONValue, curl: JSONValue) {
    let request = try workspace().prepare(requestNamed: name)
    let agent = Agent()
    defer { agent.shutdown() }
    let result = agent.sendAndWait(request)
    let response = try #require(result.response, "reqbench: \(String(describing: result.error))")
    #expect(response.status == 200)
    let sent = try JSONParser.parse(try response.body.bytes())

    let command = CurlExporter.command(for: request, revealSecrets: true)
    let run = try sh(command)
    #expect(run.status == 0, "curl failed: \(run.stderr)\n\(command)")
    return (sent, try JSONParser.parse(run.stdout))
  }

  /// Method, URL, query arguments, headers, form, JSON and raw data, all but the client's address.
  func expectSame(_ name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws
  {
    let (reqbench, curl) = try echoes(name)
    for key in ["method", "url", "args", "headers", "form", "json", "data", "files"] {
      #expect(reqbench[key] == curl[key], "\(name): \(key) differs", sourceLocation: sourceLocation)
    }
  }

  @Test func getWithAQueryAndHeaders() throws {
    try expectSame("get-query")
    let (reqbench, _) = try echoes("get-query")
    #expect(reqbench["args"]?["q"] == "café & co")
    #expect(reqbench["headers"]?["X-Trace"] == #"it's "quoted" $HOME `x`"#)
  }

  @Test func formPost() throws {
    try expectSame("form-post")
    #expect(try echoes("form-post").curl["form"]?["pass"] == "p&ss word=1")
  }

  @Test func jsonPostWithQuotesNewlinesAndEmoji() throws {
    try expectSame("json-post")
    #expect(try echoes("json-post").curl["json"]?["emoji"] == "😀🎉")
  }

  @Test func putTextBody() throws {
    try expectSame("put-text")
    #expect(try echoes("put-text").curl["data"] == "# Title\n\n$HOME `date` 'q' \\ %s end\n")
  }

  @Test func patchWithAnEmptyBody() throws { try expectSame("patch-empty") }

  /// No User-Agent of its own: curl sends reqbench's (`-A`), not `curl/x.y`.
  @Test func withoutAUserAgentTheExportSendsReqbenchs() throws {
    try expectSame("no-user-agent")
    let (reqbench, curl) = try echoes("no-user-agent")
    #expect(reqbench["headers"]?["User-Agent"] == .string("reqbench/\(reqbenchVersion)"))
    #expect(curl["headers"]?["User-Agent"] == .string("reqbench/\(reqbenchVersion)"))
  }

  @Test func deleteWithBasicAuthAndCookies() throws {
    try expectSame("basic-auth")
    let (_, curl) = try echoes("basic-auth")
    #expect(
      curl["headers"]?["Authorization"]
        == .string("Basic " + Data("ada:s3:cr et'".utf8).base64EncodedString()))
  }

  @Test func binaryBody() throws {
    let bytes: [UInt8] = [0x00, 0x01, 0xFF, 0x27, 0x25, 0x5C, 0x0A, 0x7F, 0xC3, 0xA9]
    let request = Request(
      method: .POST, url: try TestServer.httpbin.url("/anything/binary"),
      headers: ["User-Agent": "reqbench-export-test"],
      body: RequestBody(bytes: bytes, contentType: "application/octet-stream"))
    let agent = Agent()
    defer { agent.shutdown() }
    let sent = try JSONParser.parse(try #require(agent.sendAndWait(request).response).body.bytes())
    let run = try sh(CurlExporter.command(for: request))
    #expect(run.status == 0, "\(run.stderr)")
    let curl = try JSONParser.parse(run.stdout)
    for key in ["method", "headers", "data"] { #expect(sent[key] == curl[key], "\(key) differs") }
  }

  @Test func head() throws {
    let request = try workspace().prepare(requestNamed: "head")
    let agent = Agent()
    defer { agent.shutdown() }
    let response = try #require(agent.sendAndWait(request).response)
    let run = try sh(CurlExporter.command(for: request))
    #expect(run.status == 0, "\(run.stderr)")
    let lines = run.stdout.split(separator: "\r\n").map(String.init)
    #expect(lines.first == "HTTP/1.1 \(response.status) OK")
    // httpbin echoes the method and headers in the body it does not send: equal lengths mean the
    // same method and headers.
    let length = lines.first { $0.lowercased().hasPrefix("content-length:") }
    #expect(
      length?.split(separator: ":").last?.trimmingCharacters(in: .whitespaces)
        == response.headers["Content-Length"])
  }

  // MARK: - Files: multipart parts and file bodies

  /// A multipart upload with text and file parts, and a PUT of a file: the files are real, in a
  /// workspace folder, and the exported command runs there. httpbin echoes multipart text parts in
  /// "form", file parts in "files", and a raw body in "data".
  @Test func multipartAndFileBodiesFromTheWorkspaceFolder() throws {
    let dir = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    try FileManager.default.createDirectory(
      at: dir.appendingPathComponent("files"), withIntermediateDirectories: true)
    let report = "report line 1\nsemi; colon, comma \"quoted\" 'single'\n"
    try report.write(to: dir.appendingPathComponent("files/report.txt"), atomically: true, encoding: .utf8)
    let blob = "PUT body é\n$HOME `date` \\ %s\n"
    try blob.write(to: dir.appendingPathComponent("files/blob.txt"), atomically: true, encoding: .utf8)
    let base = try TestServer.httpbin.baseURL
    let file = dir.appendingPathComponent("uploads.json")
    try #"""
      {"version": 1, "name": "uploads", "baseURL": "\#(base)/",
       "requests": [
        {"name": "upload", "method": "POST", "url": "anything/upload",
         "headers": {"User-Agent": "reqbench-export-test"},
         "body": {"multipart": [
           {"name": "note", "value": "héllo; world"},
           {"name": "at", "value": "@not-a-file"},
           {"name": "typed", "value": " <x; \"y\" ", "type": "text/plain"},
           {"name": "doc", "file": "files/report.txt", "type": "text/plain"},
           {"name": "renamed", "file": "files/report.txt", "filename": "other; name.txt"}
         ]}},
        {"name": "put-file", "method": "PUT", "url": "anything/blob",
         "headers": {"User-Agent": "reqbench-export-test"},
         "body": {"file": "files/blob.txt", "contentType": "text/plain; charset=utf-8"}}
      ]}
      """#.write(to: file, atomically: true, encoding: .utf8)
    let workspace = try Workspace.load(from: file)

    for name in ["upload", "put-file"] {
      let request = try workspace.prepare(requestNamed: name)
      let agent = Agent()
      defer { agent.shutdown() }
      let result = agent.sendAndWait(request)
      let response = try #require(result.response, "reqbench: \(String(describing: result.error))")
      #expect(response.status == 200)
      let sent = try JSONParser.parse(try response.body.bytes())
      let command = CurlExporter.command(for: request)
      let run = try sh("cd \(CurlExporter.quote(dir.path)) && " + command)
      #expect(run.status == 0, "curl failed: \(run.stderr)\n\(command)")
      #expect(!run.stderr.lowercased().contains("warning"), "curl warned: \(run.stderr)\n\(command)")
      let curl = try JSONParser.parse(run.stdout)
      for key in ["method", "url", "args", "form", "files", "data", "json"] {
        #expect(sent[key] == curl[key], "\(name): \(key) differs\n\(command)")
      }
      if name == "upload" {
        #expect(curl["form"]?["note"] == "héllo; world")
        #expect(curl["form"]?["at"] == "@not-a-file")
        #expect(curl["form"]?["typed"] == #" <x; "y" "#)
        #expect(curl["files"]?["doc"] == .string(report))
        #expect(curl["files"]?["renamed"] == .string(report))
        #expect(curl["headers"]?["Content-Type"]?.stringValue?.hasPrefix("multipart/form-data; boundary=") == true)
      } else {
        #expect(curl["method"] == "PUT")
        #expect(curl["data"] == .string(blob))
        #expect(sent["headers"]?["Content-Type"] == curl["headers"]?["Content-Type"])
      }
    }
  }

  // MARK: - The binary, end to end

  @Test func importFromStdinThenExportAndRunTheCommand() throws {
    let dir = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("e2e.json")
    let original = """
      {
        "version": 1,
        "name": "e2e",
        "x-team": {"owner": "api", "tags": ["a", "b"]},
        "variables": {"who": "Ada"},
        "requests": [
          {"name": "existing", "url": "http://example.test/", "x-note": "keep me"}
        ],
        "trailing": null
      }
      """
    try original.write(to: file, atomically: true, encoding: .utf8)

    let base = try TestServer.httpbin.baseURL
    let paste = """
      curl '\(base)/anything/e2e?x=1&y=caf%C3%A9' \\
        -H 'accept: application/json' \\
        -H 'content-type: application/json' \\
        -H 'X-Who: {{who}}' \\
        -H 'User-Agent: reqbench-e2e' \\
        --data-raw $'{"name":"O\\'Brien","n":1}' \\
        --compressed
      """
    let imported = try runProcess(
      try reqbenchBinary, ["import", "curl", "-", "--into", file.path, "--name", "create"],
      stdin: paste)
    #expect(imported.status == 0, "\(imported.stderr)")
    #expect(imported.stderr == "imported create (POST \(base)/anything/e2e)\n")
    #expect(imported.stdout.isEmpty)

    // Everything that was in the file is still there, as it was.
    let saved = try JSONParser.parse(Array(try Data(contentsOf: file)))
    let before = try JSONParser.parse(original)
    for key in ["version", "name", "x-team", "variables", "trailing"] {
      #expect(saved[key] == before[key])
    }
    let requests = try #require(saved["requests"]?.arrayValue)
    #expect(requests.count == 2)
    #expect(requests.first == before["requests"]?.arrayValue?.first)
    #expect(
      requests.last
        == (try JSONParser.parse(
          #"""
          {"name": "create", "method": "POST", "url": "\#(base)/anything/e2e",
           "query": {"x": "1", "y": "café"},
           "headers": {"accept": "application/json", "content-type": "application/json", "X-Who": "{{who}}", "User-Agent": "reqbench-e2e"},
           "body": {"json": {"name": "O'Brien", "n": 1}}}
          """#)))

    let exported = try runProcess(try reqbenchBinary, ["export", "curl", file.path, "create"])
    #expect(exported.status == 0, "\(exported.stderr)")
    let run = try sh(exported.stdout)
    #expect(run.status == 0, "\(run.stderr)")
    let echo = try JSONParser.parse(run.stdout)
    #expect(echo["method"] == "POST")
    #expect(echo["args"]?["x"] == "1" && echo["args"]?["y"] == "café")
    #expect(echo["json"]?["name"] == "O'Brien" && echo["json"]?["n"] == 1)
    #expect(echo["headers"]?["X-Who"] == "Ada")
    #expect(echo["headers"]?["Content-Type"] == "application/json")
  }
}
