import Foundation
import RequestEngine
import TestSupport
import Testing

/// HAR as a browser writes it: Debian's headless Chromium opens a page on the fixture server and
/// sends what a web app sends (`Tests/Browser/capture_har.py` drives it over the DevTools
/// protocol and writes what the Network domain reported as a HAR 1.2 file). That file is read by
/// haralyzer (PyPI), imported by `reqbench import har`, run against the fixture (which echoes what
/// it received), and what `export har` and the history's `--har` write of the same requests is read
/// back by haralyzer and compared with the browser's entries.
@Suite("a HAR captured from Chromium")
struct ChromiumHARTests {
  var python: URL {
    get throws {
      URL(fileURLWithPath: try #require(
        ProcessInfo.processInfo.environment["REQBENCH_TEST_PYTHON"],
        "REQBENCH_TEST_PYTHON is not set: run the tests with `bash .ci/test`, which installs haralyzer"))
    }
  }

  /// `METHOD URL CONTENT-TYPE BODY` per entry of a HAR file, as haralyzer reads it. A form body
  /// is shown decoded (`q=swift curl&lang=en`): the browser writes a space as `+` (the WHATWG
  /// form serializer), reqbench as `%20` (as Alamofire does), and servers read both the same.
  func entries(of har: URL, only filter: String = "") throws -> [String] {
    let script = """
      import sys
      from urllib.parse import parse_qsl
      from haralyzer import HarParser, HarEntry
      for e in HarParser.from_file(sys.argv[1]).har_data["entries"]:
          entry = HarEntry(e)
          if sys.argv[2] not in entry.request.url:
              continue
          post = e["request"].get("postData") or {}
          kind = (entry.request.get_header_value("Content-Type") or "-").split(";")[0]
          text = post.get("text", "-")
          if kind == "application/x-www-form-urlencoded":
              text = "&".join(k + "=" + v for k, v in parse_qsl(text, keep_blank_values=True))
          print(entry.request.method, entry.request.url, kind, text, sep="\\t")
      """
    let result = try runProcess(try python, ["-c", script, har.path, filter])
    #expect(result.status == 0, "haralyzer: \(result.stderr)")
    return result.stdout.split(separator: "\n").map(String.init)
  }

  @Test func importsRunsAndExportsWhatChromiumRecorded() throws {
    let folder = scratchURL("rb-chromium")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let captured = folder.appendingPathComponent("chromium.har")
    let capture = try runProcess(
      try python,
      [testsFile("Browser/capture_har.py").path,
       "--page", try TestServer.fixture.url("/anything/app"),
       "--cross", try TestServer.nginxTLS.url("/1k.bin"), "--out", captured.path],
      timeout: 90)
    #expect(capture.status == 0, "capture_har.py: \(capture.stderr) (install Debian's chromium: `bash .ci/test` does)")
    let text = try String(contentsOf: captured, encoding: .utf8)

    // What only a browser sends is in the capture: client hints, fetch metadata, its user agent,
    // the cookie the page set, and HTTP/2's pseudo-headers on the TLS request.
    for browserOnly in ["sec-ch-ua", "Sec-Fetch-Mode", "HeadlessChrome", "session=abc123", ":authority", "http/2.0"] {
      #expect(text.contains(browserOnly), "\(browserOnly) is not in Chromium's HAR")
    }
    let fixture = try TestServer.fixture.baseURL
    let api = try entries(of: captured, only: "/anything/api/")
    #expect(api == [
      "GET\t\(fixture)/anything/api/users?page=2&sort=name\t-\t-",
      "POST\t\(fixture)/anything/api/login\tapplication/json\t{\"user\":\"ada\",\"password\":\"secret\"}",
      "POST\t\(fixture)/anything/api/search\tapplication/x-www-form-urlencoded\tq=swift curl&lang=en",
      "PUT\t\(fixture)/anything/api/items/7\ttext/plain\trenamed",
      "DELETE\t\(fixture)/anything/api/items/7\t-\t-",
    ], "\(api)")

    // Imported: the API calls only, without the browser's own headers or its cookies.
    let ws = folder.appendingPathComponent("app.json").path
    let imported = try runProcess(try reqbenchBinary, ["import", "har", captured.path, "--into", ws, "--filter", "/anything/api/", "--name", "app"])
    #expect(imported.status == 0, "\(imported.stderr)")
    #expect(imported.stderr.contains("imported app/get-anything-api-users (GET "), "\(imported.stderr)")
    let workspace = try String(contentsOfFile: ws, encoding: .utf8)
    for leftOut in ["sec-ch-ua", "Sec-Fetch", ":authority", "session=abc123", "Accept-Encoding", "Content-Length", "\"Host\"", "\"Connection\""] {
      #expect(!workspace.contains(leftOut), "\(leftOut) was imported")
    }

    // Run against the fixture, which echoes what it received: the same requests as the browser's.
    let names = ["app/get-anything-api-users", "app/post-anything-api-login", "app/post-anything-api-search",
                 "app/put-api-items-7", "app/delete-api-items-7"]  // the last three path segments
    var echoes: [String: JSONValue] = [:]
    for name in names {
      let run = try runProcess(try reqbenchBinary, ["run", ws, name])
      #expect(run.status == 0, "\(name): \(run.stderr)")
      echoes[name] = try JSONParser.parse(run.stdout)
    }
    let users = try #require(echoes["app/get-anything-api-users"])
    #expect(users["method"]?.stringValue == "GET")
    #expect(users["headers"]?["Authorization"]?.stringValue?.hasPrefix("Bearer eyJhbGciOiJIUzI1NiJ9.") == true, "\(users)")
    #expect(users["headers"]?["Cookie"] == nil)
    #expect(users["headers"]?["User-Agent"]?.stringValue?.contains("HeadlessChrome") == true, "the browser's User-Agent is kept")
    #expect(users["query"]?["page"]?.stringValue == "2" && users["query"]?["sort"]?.stringValue == "name", "\(users)")
    let login = try #require(echoes["app/post-anything-api-login"])
    #expect(try JSONParser.parse(login["body"]?.stringValue ?? "") == JSONValue.object(JSONObject([("user", "ada"), ("password", "secret")])))
    #expect(echoes["app/post-anything-api-search"]?["body"]?.stringValue == "q=swift+curl&lang=en")  // the browser's bytes
    #expect(echoes["app/put-api-items-7"]?["body"]?.stringValue == "renamed")
    #expect(echoes["app/delete-api-items-7"]?["method"]?.stringValue == "DELETE")

    // `export har` and the history's HAR of the same requests: read by haralyzer, the same
    // methods, URLs, content types and bodies as the browser's entries.
    let exported = try runProcess(try reqbenchBinary, ["export", "har", ws] + names)
    #expect(exported.status == 0, "\(exported.stderr)")
    let exportFile = folder.appendingPathComponent("export.har")
    try exported.stdout.write(to: exportFile, atomically: true, encoding: .utf8)
    #expect(try entries(of: exportFile) == api)
    let history = try runProcess(try reqbenchBinary, ["history", ws, "--har"])
    #expect(history.status == 0, "\(history.stderr)")
    let historyFile = folder.appendingPathComponent("history.har")
    try history.stdout.write(to: historyFile, atomically: true, encoding: .utf8)
    #expect(try entries(of: historyFile) == api)

    // With --cookies the browser's session cookie comes along.
    let jar = try runProcess(try reqbenchBinary, ["import", "har", captured.path, "--into", ws, "--filter", "/api/users", "--cookies", "--name", "jar"])  // one entry: named "jar"
    #expect(jar.status == 0, "\(jar.stderr)")
    let withCookie = try runProcess(try reqbenchBinary, ["run", ws, "jar", "--no-history"])
    #expect(withCookie.stdout.contains("session=abc123"), "\(withCookie.stdout)")
  }
}
