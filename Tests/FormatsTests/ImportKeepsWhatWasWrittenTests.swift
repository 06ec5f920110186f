import Formats
import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// HTTPie, HAR and Postman imports keep what the source sends as it sends it, and leave out one
/// item (an entry, a header, a variable) with a note rather than refuse the file.
@Suite("imports keep what was written")
struct ImportKeepsWhatWasWrittenTests {
  func har(_ entries: String) throws -> ImportedRequests {
    try HARImporter.parse(Array(#"{"log": {"version": "1.2", "entries": [\#(entries)]}}"#.utf8), file: "s.har")
  }

  func postman(_ items: String, extra: String = "") throws -> ImportedRequests {
    let text = #"{"info": {"name": "c", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"}, "item": [\#(items)]\#(extra)}"#
    return try PostmanImporter.parse(Array(text.utf8), file: "c.json")
  }

  // MARK: HTTPie

  @Test func emptyKeysMakeATopLevelArrayAsInHTTPie() throws {
    let r = try #require(try HTTPieImporter.parse("http :3000/x []:=1 []:=2 '[]=a'", file: "p").templates.first)
    #expect(r.body == .text(#"[1, 2, "a"]"#, contentType: nil))
  }

  @Test func theAuthOptionWinsOverAnAuthorizationItem() throws {
    let r = try #require(try HTTPieImporter.parse("http -a ada:pw :3000/me Authorization:Bearer-x", file: "p").templates.first)
    #expect(r.auth == .basic(user: "ada", password: "pw") && r.headers["Authorization"] == nil)
  }

  // MARK: HAR

  @Test func aHeaderThatIsNoTokenIsLeftOutAndTheOthersKept() throws {
    let imported = try har(#"""
      {"request": {"method": "GET", "url": "http://a.test/path", "headers": [
        {"name": "GET /path HTTP/1.1", "value": ""}, {"name": "Accept", "value": "text/html"}]}}
      """#)
    #expect(imported.templates.first?.headers == ["Accept": "text/html"])
    #expect(imported.warnings.contains {
      $0.hasPrefix("s.har:2:3: entry 1 (GET http://a.test/path): the header \"GET /path HTTP/1.1\" is not a header name")
    }, "\(imported.warnings)")
  }

  @Test func oneBadEntryIsNamedAndTheRestImported() throws {
    let imported = try har(#"""
      {"request": {"method": "GET", "url": "http://a.test/1"}},
      {"request": {"method": "BR EW", "url": "http://a.test/2"}},
      {"request": {"method": "GET", "url": "http://a.test/3"}}
      """#)
    #expect(imported.templates.map(\.url) == ["http://a.test/1", "http://a.test/3"])
    #expect(imported.warnings.count == 1 && imported.warnings[0].contains("entry 2: \"BR EW\" is not a method"))
  }

  /// Firefox and Insomnia write `postData` for a request without a body.
  @Test(arguments: [#"{"mimeType": "", "text": ""}"#, #"{"mimeType": ""}"#, #"{"mimeType": "text/plain", "params": []}"#])
  func anEmptyPostDataIsNoBodyAndNoContentType(_ postData: String) throws {
    let r = try #require(try har(#"{"request": {"method": "POST", "url": "http://a.test/x", "postData": \#(postData)}}"#).templates.first)
    #expect(r.body == nil && r.headers["Content-Type"] == nil)
  }

  @Test func theURLsQueryIsKeptAsWrittenNotItsQueryString() throws {
    let r = try #require(try har(#"""
      {"request": {"method": "GET", "url": "http://a.test/s?q=a+b&x=%2f&x=2",
       "queryString": [{"name": "q", "value": "a b"}, {"name": "x", "value": "/"}, {"name": "x", "value": "2"}]}}
      """#).templates.first)
    #expect(r.url == "http://a.test/s?q=a+b&x=%2f&x=2" && r.query.isEmpty)
  }

  // MARK: Postman

  @Test func anItemWithoutANameIsNamedFromItsMethodAndURL() throws {
    let imported = try postman(#"{"request": {"method": "PURGE", "url": "http://a.test/cache/img"}}, {"name": "", "request": {"method": "POSTMAN", "url": "http://a.test/x"}}"#)
    #expect(imported.templates.map(\.name) == ["purge-cache-img", "postman-x"])
    #expect(imported.templates.map(\.method.rawValue) == ["PURGE", "POSTMAN"])
  }

  @Test func aBodyPostmanPrunesIsNotImportedUnlessPruningIsOff() throws {
    let body = #""body": {"mode": "raw", "raw": "{\"q\": 1}", "options": {"raw": {"language": "json"}}}"#
    let imported = try postman(
      #"{"name": "g", "request": {"method": "GET", "url": "http://a.test/s", \#(body)}},"#
        + #"{"name": "k", "request": {"method": "GET", "url": "http://a.test/s", \#(body)}, "protocolProfileBehavior": {"disableBodyPruning": true}},"#
        + #"{"name": "u", "request": {"method": "UNLOCK", "url": "http://a.test/s", \#(body)}}"#)
    #expect(imported.templates.map { $0.body == nil } == [true, false, true])
    #expect(imported.templates[1].body == .text(#"{"q": 1}"#, contentType: "application/json"))
    #expect(imported.warnings.filter { $0.contains("Postman does not send the body") }.count == 2)
  }

  @Test func anEmptyFormSendsNoBody() throws {
    let imported = try postman(
      #"{"name": "f", "request": {"method": "POST", "url": "http://a.test/x", "body": {"mode": "formdata", "formdata": []}}},"#
        + #"{"name": "u", "request": {"method": "POST", "url": "http://a.test/x", "body": {"mode": "urlencoded", "urlencoded": [{"key": "a", "value": "1", "disabled": true}]}}}"#)
    #expect(imported.templates.map(\.body) == [nil, nil])
  }

  @Test func dynamicAndOddVariablesAreKeptAsTextAndNoted() throws {
    let imported = try postman(
      #"{"name": "d", "request": {"method": "POST", "url": "http://a.test/{{$guid}}?t={{$timestamp}}", "#
        + #""header": [{"key": "X-N", "value": "{{a/b}} {{a{{b}}}}"}], "body": {"mode": "raw", "raw": "{{$randomInt}}"}}}"#,
      extra: #", "variable": [{"key": "a/b", "value": "1"}, {"key": "b", "value": "{{other}}"}]"#)
    let r = try #require(imported.templates.first)
    var ws = try workspace(#"{"version": 1, "requests": []}"#)
    try ws.addRequest(r)
    ws.variables = [Variable(name: "b", value: "B")]
    let request = try ws.prepare(requestNamed: "d")
    // Sent as text (the query encoded as the engine encodes a query).
    #expect(request.url.hasPrefix("http://a.test/{{$guid}}?t=") && request.url.contains("timestamp"), "\(request.url)")
    #expect(request.headers["X-N"] == "{{a/b}} {{aB}}")
    #expect(String(decoding: request.body.bytes, as: UTF8.self) == "{{$randomInt}}")
    #expect(imported.variables == [Variable(name: "b", value: "{{other}}")])
    #expect(imported.warnings.contains { $0.contains("{{$guid}}, {{$timestamp}}, {{$randomInt}} are kept as written and not filled in yet") }, "\(imported.warnings)")
    #expect(imported.warnings.contains { $0.contains("the variable \"a/b\" is not imported") })
  }

  @Test func aV1CollectionIsRefusedNamingTheConverter() throws {
    do {
      _ = try PostmanImporter.parse(Array(#"{"id": "1", "name": "old", "order": ["r"], "requests": [{"id": "r"}]}"#.utf8), file: "v1.json")
      Issue.record("no error")
    } catch {
      #expect(error.message.contains("format v1") && error.message.contains("postman-collection-transformer"))
    }
  }

  @Test(arguments: ["utf-16le", "utf-16be", "utf-8"])
  func anEnvironmentWithAByteOrderMarkIsRead(_ encoding: String) throws {
    let text = #"{"name": "Stagé", "values": [{"key": "host", "value": "a.test", "enabled": true}]}"#
    let bytes: [UInt8] =
      switch encoding {
      case "utf-16le": [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
      case "utf-16be": [0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
      default: [0xEF, 0xBB, 0xBF] + Array(text.utf8)
      }
    let imported = try PostmanImporter.parse(bytes, file: "env.json")
    #expect(imported.environments == [Environment(name: "Stagé", variables: [Variable(name: "host", value: "a.test")])])
  }
}
