import Formats
import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// `HARImporter` on a HAR 1.2 file in the shape Chrome's "Save all as HAR" writes
/// (`Tests/Fixtures/har/browser.har`: HTTP/2 pseudo-headers, client hints, cookies, a JSON login,
/// a form, a multipart upload with a file, a `data:` URL), and its errors.
@Suite("import har")
struct ImportHARTests {
  func browser(_ options: HARImporter.Options = HARImporter.Options()) throws -> ImportedRequests {
    try HARImporter.parse(Array(try Data(contentsOf: fixtureFile("har/browser.har"))), file: "browser.har", options: options)
  }

  func failure(_ text: String, _ options: HARImporter.Options = HARImporter.Options()) -> ImportError? {
    do {
      _ = try HARImporter.parse(Array(text.utf8), file: "s.har", options: options)
      Issue.record("expected the import to fail")
      return nil
    } catch {
      return error
    }
  }

  @Test func everyHTTPEntryIsARequestInOrder() throws {
    let imported = try browser()
    #expect(imported.templates.map(\.name) == ["get-app.example.test", "get-api-users", "post-api-login", "post-search", "post-api-upload"])
    #expect(imported.templates.map(\.method) == [.GET, .GET, .POST, .POST, .POST])
    #expect(imported.warnings.contains("browser.har: 1 entry is not http or https (data:, blob:, ws:…); left out"))
    let users = imported.templates[1]
    // The URL as the browser sent it, its query as written.
    #expect(users.url == "https://app.example.test/api/users?page=2&sort=name")
    #expect(users.query == JSONObject())
    #expect(users.headers["Authorization"] == "Bearer eyJhbGciOi")
    #expect(users.headers["Referer"] == "https://app.example.test/")
  }

  @Test func browserOnlyHeadersAndCookiesAreLeftOut() throws {
    let page = try browser().templates[0]
    let names = page.headers.fields.map { $0.name.lowercased() }
    #expect(names == ["accept", "upgrade-insecure-requests", "user-agent"])
    let login = try browser().templates[2]
    // Host, Connection, Content-Length out; the entry sent no Accept, so none is sent (an empty
    // value keeps curl's `*/*` off).
    #expect(login.headers.fields.map(\.name) == ["Content-Type", "Origin", "Accept"])
    #expect(login.headers["Accept"] == "")
    // --cookies keeps them.
    let withCookies = try browser(HARImporter.Options(cookies: true)).templates[0]
    #expect(withCookies.headers["Cookie"] == "session=abc123; theme=dark")
    #expect(withCookies.headers["sec-fetch-mode"] == nil)
  }

  @Test func bodiesByTheirTypes() throws {
    let imported = try browser()
    // The text as the browser sent it, its Content-Type where the browser wrote it.
    #expect(imported.templates[2].body == .text(#"{"user":"ada","password":"secret"}"#, contentType: nil))
    #expect(imported.templates[3].body == .text("q=swift+curl&n=10", contentType: nil))
    #expect(imported.templates[3].headers["Content-Type"] == "application/x-www-form-urlencoded")
    // Multipart from params: the value parts; the file part cannot come (no content in a HAR).
    #expect(imported.templates[4].body == .multipart([MultipartField(name: "title", value: "holiday")]))
    #expect(imported.templates[4].headers["Content-Type"] == nil)
    #expect(imported.warnings.contains { $0.contains("1 multipart file part left out") })
  }

  @Test func filterKeepsTheEntriesWhoseURLContainsIt() throws {
    let imported = try browser(HARImporter.Options(filter: "/api/"))
    #expect(imported.templates.map(\.name) == ["get-api-users", "post-api-login", "post-api-upload"])
    #expect(imported.warnings.contains("browser.har: 2 entries do not match --filter; left out"))
  }

  /// HARP, the HAR wrapped in a JavaScript call that Firebug's NetExport and HAR Viewer write,
  /// is read as the HAR inside; an error in it points into the file as written.
  @Test func aHARWrappedInAJavaScriptCallIsReadAsTheHARInside() throws {
    let har = #"{"log": {"version": "1.1", "entries": [{"request": {"method": "GET", "url": "http://a.test/x?y=1"}}]}}"#
    for wrapped in ["onInputData(\(har));\n", "\u{FEFF}  callback_testLoad1(\n\(har)\n)", "HAR.load(\(har))"] {
      let imported = try HARImporter.parse(Array(wrapped.utf8), file: "s.harp")
      #expect(imported.templates.map(\.url) == ["http://a.test/x?y=1"], "\(wrapped)")
    }
    #expect(failure("onInputData({\"log\": [1,});")?.description.hasPrefix("s.har:1:24: a HAR file is JSON") == true)
    // Not a call: left as it is, and refused as JSON.
    #expect(failure("onInputData {}")?.description.hasPrefix("s.har:1:1: a HAR file is JSON") == true)
    #expect(failure("f(")?.description.hasPrefix("s.har:1:1: a HAR file is JSON") == true)
  }

  @Test func errorsSayWhereInTheFile() throws {
    #expect(failure("{\"log\": [1,}")?.description.hasPrefix("s.har:1:12: a HAR file is JSON, and this is not") == true)
    #expect(failure("{\"entries\": []}")?.description.hasPrefix("s.har:1:1: this is not a HAR file (no \"log\" object)") == true)
    let noRequest = """
      {"log": {"version": "1.2",
        "entries": [
          {"request": {"method": "GET", "url": "http://a.test/"}},
          {"response": {}}
        ]}}
      """
    // One entry that cannot be read is left out, named and placed; the others are imported.
    let partly = try HARImporter.parse(Array(noRequest.utf8), file: "s.har")
    #expect(partly.templates.map(\.url) == ["http://a.test/"])
    #expect(partly.warnings == ["s.har:4:5: entry 2 has no \"request\" object; this entry is not imported"])
    let badMethod = """
      {"log": {"entries": [
        {"request": {"method": "BR EW", "url": "http://a.test/"}}]}}
      """
    #expect(failure(badMethod)?.description.hasPrefix("s.har:1:21: no entry could be imported (s.har:2:26: entry 1: \"BR EW\" is not a method") == true,
      "\(String(describing: failure(badMethod)))")
    let badHeaders = """
      {"log": {"entries": [{"request": {"url": "http://a.test/", "headers": {"a": "b"}}}]}}
      """
    #expect(failure(badHeaders)?.description.contains("(s.har:1:71: entry 1: \"headers\" should be a list") == true)
    let filtered = try #require(
      failure(#"{"log": {"entries": [{"request": {"url": "http://a.test/x"}}]}}"#, HARImporter.Options(filter: "/api/")))
    #expect(filtered.description == "s.har:1:21: no entry's URL contains \"/api/\" (of 1 entries); nothing was imported")
    #expect(failure(#"{"log": {"entries": []}}"#)?.message == "the HAR file has no entries; nothing was imported")
  }
}
