import Formats
import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// Exported HTTPie commands, run by `sh` with Debian's HTTPie against httpbin's `/anything`,
/// compared field by field with what reqbench itself sends (the shapes of the curl export's
/// test: a query, a form, JSON with quotes and emoji, a text body, an empty PATCH, basic auth
/// and cookies, no User-Agent of its own), and a body of bytes that are no text.
@Suite("HTTPie export against httpbin")
struct ExportHTTPieServerTests {
  /// httpbin's echo of `request` sent by reqbench, and of its HTTPie export run by `sh`.
  func echoes(_ request: Request) throws -> (reqbench: JSONValue, httpie: JSONValue) {
    let agent = Agent()
    defer { agent.shutdown() }
    let result = agent.sendAndWait(request)
    let response = try #require(result.response, "reqbench: \(String(describing: result.error))")
    let sent = try JSONParser.parse(try response.body.bytes())
    let command = HTTPieExporter.command(for: request, revealSecrets: true)
    let run = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", command])
    #expect(run.status == 0, "http failed: \(run.stderr)\n\(command)")
    return (sent, try JSONParser.parse(run.stdout))
  }

  /// Method, URL, query, headers (but the codings each client accepts and HTTPie's
  /// `Connection`), form, JSON and raw data.
  @Test(arguments: ["get-query", "form-post", "json-post", "put-text", "patch-empty", "basic-auth", "no-user-agent"])
  func theExportSendsWhatReqbenchSends(_ name: String) throws {
    let request = try ExportCurlServerTests().workspace().prepare(requestNamed: name)
    let (reqbench, httpie) = try echoes(request)
    for key in ["method", "url", "args", "form", "json", "data", "files"] {
      #expect(reqbench[key] == httpie[key], "\(name): \(key) differs")
    }
    var mine = try #require(reqbench["headers"]?.objectValue)
    var theirs = try #require(httpie["headers"]?.objectValue)
    for header in ["Accept-Encoding", "Connection"] {
      mine[header] = nil
      theirs[header] = nil
    }
    // HTTPie's own `Content-Length: 0` on a DELETE without a body.
    if mine["Content-Length"] == nil, theirs["Content-Length"] == "0" { theirs["Content-Length"] = nil }
    #expect(mine.count == theirs.count && mine.keys.allSatisfy { mine[$0] == theirs[$0] }, "\(name): \(mine) against \(theirs)")
  }

  @Test func aBinaryBodyIsPipedIn() throws {
    let bytes: [UInt8] = [0x00, 0x01, 0xFF, 0x27, 0x25, 0x5C, 0x0A, 0x7F, 0xC3, 0xA9]
    let request = Request(
      method: .POST, url: try TestServer.httpbin.url("/anything/binary"),
      headers: ["User-Agent": "reqbench-export-test"],
      body: RequestBody(bytes: bytes, contentType: "application/octet-stream"))
    let command = HTTPieExporter.command(for: request)
    #expect(command.hasPrefix("printf '") && !command.contains("--ignore-stdin"), "\(command)")
    let (reqbench, httpie) = try echoes(request)
    for key in ["method", "data"] { #expect(reqbench[key] == httpie[key], "\(key) differs") }
    #expect(reqbench["headers"]?["Content-Type"] == httpie["headers"]?["Content-Type"])
  }

  /// Streamed bodies: a file from `< path`, a multipart body as `--multipart` items (httpbin
  /// parses both sides' parts).
  @Test func aFileBodyAndAMultipartBody() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("notes.txt")
    try "line one\nline two\n".write(to: file, atomically: true, encoding: .utf8)
    var upload = Request(
      method: .PUT, url: try TestServer.httpbin.url("/anything/upload"), headers: ["User-Agent": "reqbench-export-test"])
    upload.body = .file(file.path, contentType: "text/plain")
    let command = HTTPieExporter.command(for: upload)
    #expect(command.hasSuffix(" < '\(file.path)'") && !command.contains("--ignore-stdin"), "\(command)")
    var (reqbench, httpie) = try echoes(upload)
    for key in ["method", "data"] { #expect(reqbench[key] == httpie[key], "\(key) differs") }
    #expect(httpie["headers"]?["Content-Type"] == "text/plain")

    var form = Request(
      method: .POST, url: try TestServer.httpbin.url("/anything/form"), headers: ["User-Agent": "reqbench-export-test"])
    form.body = .multipart([.field("title", "notes"), .file("notes", path: file.path, contentType: "text/plain")])
    (reqbench, httpie) = try echoes(form)
    for key in ["method", "form", "files"] { #expect(reqbench[key] == httpie[key], "\(key) differs: \(httpie)") }
    #expect(httpie["files"]?["notes"] == "line one\nline two\n")
  }

  @Test func theTextOfACommand() throws {
    let request = Request(
      method: .POST, url: "http://127.0.0.1:9/users?page=2", headers: ["X-Empty": "", "Authorization": "Bearer tok"],
      body: RequestBody(bytes: Array(#"{"name":"Ada"}"#.utf8), contentType: "application/json"), secrets: ["tok"])
    #expect(
      HTTPieExporter.command(for: request) == """
        http --ignore-stdin --raw '{"name":"Ada"}' --follow --max-redirects 10 \\
          POST 'http://127.0.0.1:9/users?page=2' \\
          'X-Empty;' \\
          'Authorization:Bearer ••••' \\
          'User-Agent:reqbench/\(reqbenchVersion)' \\
          'Content-Type:application/json' \\
          'Accept:*/*'
        """)
    // Read back by the importer: the same request.
    let template = try #require(try HTTPieImporter.parse(HTTPieExporter.command(for: request, revealSecrets: true), file: "x").requests.first?.template)
    #expect(template.method == .POST && template.url == "http://127.0.0.1:9/users?page=2")
    // `X-Empty;` is an empty header, sent empty by HTTPie and by reqbench.
    #expect(template.headers["Authorization"] == "Bearer tok" && template.headers["X-Empty"] == "")
    #expect(template.body == .text(#"{"name":"Ada"}"#, contentType: nil) && template.headers["Content-Type"] == "application/json")
  }
}
