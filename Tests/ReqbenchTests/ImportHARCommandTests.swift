import Foundation
import RequestEngine
import TestSupport
import Testing

/// `reqbench import har` through the real binary: a HAR as a browser saves it, pointed at the
/// fixture server, imported and then run; what the fixture received is checked.
@Suite("reqbench import har")
struct ImportHARCommandTests {
  /// `Tests/Fixtures/har/browser.har` with its URLs on the fixture server.
  func har(in folder: URL) throws -> String {
    let text = try String(contentsOf: fixtureFile("har/browser.har"), encoding: .utf8)
      .replacingOccurrences(of: "https://app.example.test", with: try TestServer.fixture.url("/anything"))
    let path = folder.appendingPathComponent("session.har").path
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test func importedEntriesRunWithoutTheBrowserOnlyHeaders() throws {
    let (ws, folder) = try workspaceFile(#"{"version": 1, "requests": []}"#, named: "ws.json")
    defer { try? FileManager.default.removeItem(at: folder) }
    let input = try har(in: folder)
    let imported = try runProcess(try reqbenchBinary, ["import", "har", input, "--into", ws, "--filter", "/api/", "--name", "app"])
    #expect(imported.status == 0, "\(imported.stderr)")
    #expect(imported.stderr.contains("imported app/get-anything-api-users (GET "))
    #expect(imported.stderr.contains("2 entries do not match --filter"))

    let run = try runProcess(try reqbenchBinary, ["run", ws, "app/post-anything-api-login", "--no-history"])
    #expect(run.status == 0, "\(run.stderr)")
    let echo = try JSONParser.parse(run.stdout)
    #expect(echo["method"]?.stringValue == "POST")
    #expect(try JSONParser.parse(echo["body"]?.stringValue ?? "") == JSONValue.object(JSONObject([("user", "ada"), ("password", "secret")])))
    let users = try runProcess(try reqbenchBinary, ["run", ws, "app/get-anything-api-users", "--no-history"])
    #expect(users.status == 0, "\(users.stderr)")
    let headers = users.stdout.lowercased()
    #expect(headers.contains("bearer eyjhbgcioi"))
    #expect(!headers.contains("sec-ch-ua") && !headers.contains(":authority"))
    #expect(try JSONParser.parse(users.stdout)["query"]?["page"] != nil || users.stdout.contains("page=2"))
  }

  @Test func cookiesStayOutUnlessAskedFor() throws {
    let (ws, folder) = try workspaceFile(#"{"version": 1, "requests": []}"#, named: "ws.json")
    defer { try? FileManager.default.removeItem(at: folder) }
    let input = try har(in: folder)
    #expect(try runProcess(try reqbenchBinary, ["import", "har", input, "--into", ws, "--name", "plain"]).status == 0)
    #expect(try runProcess(try reqbenchBinary, ["import", "har", input, "--into", ws, "--cookies", "--name", "jar"]).status == 0)
    // The --cookies import keeps them in the secrets file: the workspace says {{secret.cookie}}.
    let text = try String(contentsOfFile: ws, encoding: .utf8)
    #expect(!text.contains("session=abc123") && text.contains(#""cookie": "{{secret.cookie}}""#), "\(text)")
    let secrets = URL(fileURLWithPath: ws).deletingLastPathComponent().appendingPathComponent("ws.secrets.json")
    #expect(try String(contentsOf: secrets, encoding: .utf8).contains("session=abc123"))
    let plain = try runProcess(try reqbenchBinary, ["run", ws, "plain/get-anything", "--no-history"])
    #expect(plain.status == 0, "\(plain.stderr)")
    #expect(!plain.stdout.contains("session=abc123"))
    let jar = try runProcess(try reqbenchBinary, ["run", ws, "jar/get-anything", "--no-history"])
    #expect(jar.stdout.contains("session=abc123"))
  }

  /// `export har` writes what haralyzer (PyPI) reads, secrets masked, and `import har` reads it
  /// back into the same requests.
  @Test func exportHARReadsWithAHARLibraryAndImportsBack() throws {
    let text = """
      {"version": 1, "baseURL": "\(try TestServer.fixture.baseURL)",
       "requests": [
         {"name": "search", "url": "/anything/search", "query": {"q": "swift curl", "page": 2},
          "headers": {"Authorization": "Bearer {{secret.token}}", "X-Trace": "1"}},
         {"name": "create", "method": "POST", "url": "/anything/users", "body": {"json": {"name": "Ada"}}}
       ]}
      """
    let (ws, folder) = try workspaceFile(text, named: "api.json")
    defer { try? FileManager.default.removeItem(at: folder) }
    let secret = "s3cr3t-\(uniqueKey())"
    #expect(try runProcess(try reqbenchBinary, ["secrets", "set", ws, "token"], stdin: secret + "\n").status == 0)
    let exported = try runProcess(try reqbenchBinary, ["export", "har", ws, "search", "create"])
    #expect(exported.status == 0, "\(exported.stderr)")
    #expect(!exported.stdout.contains(secret))
    #expect(exported.stdout.contains("Bearer ••••"))
    let file = folder.appendingPathComponent("requests.har")
    try exported.stdout.write(to: file, atomically: true, encoding: .utf8)

    let python = try #require(
      ProcessInfo.processInfo.environment["REQBENCH_TEST_PYTHON"],
      "REQBENCH_TEST_PYTHON is not set: run the tests with `bash .ci/test`, which installs haralyzer")
    let script = """
      import sys
      from haralyzer import HarParser, HarEntry
      parser = HarParser.from_file(sys.argv[1])
      entries = [HarEntry(e) for e in parser.har_data["entries"]]
      for e in entries:
          print(e.request.method, e.request.url, e.request.get_header_value("Content-Type") or "-")
      """
    let checked = try runProcess(URL(fileURLWithPath: python), ["-c", script, file.path])
    #expect(checked.status == 0, "\(checked.stderr)")
    let base = try TestServer.fixture.baseURL
    #expect(checked.stdout == "GET \(base)/anything/search?q=swift%20curl&page=2 -\nPOST \(base)/anything/users application/json\n", "\(checked.stdout)")

    let back = folder.appendingPathComponent("back.json").path
    let imported = try runProcess(try reqbenchBinary, ["import", "har", file.path, "--into", back])
    #expect(imported.status == 0, "\(imported.stderr)")
    let run = try runProcess(try reqbenchBinary, ["run", back, "post-anything-users", "--no-history"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(try JSONParser.parse(try JSONParser.parse(run.stdout)["body"]?.stringValue ?? "") == JSONValue.object(JSONObject([("name", "Ada")])))
    let search = try runProcess(try reqbenchBinary, ["export", "curl", back, "get-anything-search"])
    #expect(search.stdout.contains("X-Trace: 1"))
    #expect(search.stdout.contains("q=swift%20curl&page=2"), "\(search.stdout)")
  }

  @Test func aBadHARWritesNothing() throws {
    let folder = scratchURL("rb-har")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let bad = folder.appendingPathComponent("bad.har")
    try #"{"log": {"entries": [{"request": {"url": 7}}]}}"#.write(to: bad, atomically: true, encoding: .utf8)
    let ws = folder.appendingPathComponent("new.json").path
    let result = try runProcess(try reqbenchBinary, ["import", "har", bad.path, "--into", ws])
    #expect(result.status == 2)
    #expect(result.stderr.contains("bad.har:1:42: entry 1: the request has no \"url\" string"), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: ws))
    let misuse = try runProcess(try reqbenchBinary, ["import", "curl", "-", "--into", ws, "--filter", "x"], stdin: "curl http://a.test\n")
    #expect(misuse.status == 2)
    #expect(misuse.stderr.contains("--filter and --cookies are for import har"))
  }
}
