import Foundation
@testable import RequestEngine
import TestSupport
import Testing

/// What reaches the server: methods, bodies, headers, auth (fixture's /anything echo).
@Suite("Request formation")
struct RequestFormationTests {
  let agent = Agent()

  func echo(_ request: Request) throws -> JSONValue {
    let result = agent.sendAndWait(request)
    #expect(result.state == .succeeded, "\(result.error?.message ?? "")")
    return try result.json()
  }

  // Easy handles are reset and reused: nothing of one request (method, body, headers, auth,
  // user agent) carries over to the next on the same handle.
  @Test func aReusedHandleCarriesNothingOver() throws {
    let serial = Agent(configuration: .init(maxConcurrent: 1, maxPerHost: 1))
    defer { serial.shutdown() }
    var first = Request(
      method: .PATCH, url: try fixture("/anything/first"), headers: ["X-First": "1", "User-Agent": "custom/1"],
      body: .text("payload", contentType: "text/plain"), dedup: false)
    first.digest = DigestCredentials(user: "u", password: "p")
    #expect(serial.sendAndWait(first).state == .succeeded)
    let second = serial.sendAndWait(Request(url: try fixture("/anything/second"), dedup: false))
    #expect(second.state == .succeeded)
    let echo = try second.json()
    #expect(echo["method"] == "GET")
    #expect(echo["bodyLength"]?.intValue == 0)
    #expect(echo["headers"]?["X-First"] == nil)
    #expect(echo["headers"]?["Content-Type"] == nil)
    #expect(echo["headers"]?["Authorization"] == nil)
    #expect(echo["headers"]?["User-Agent"]?.stringValue?.hasPrefix("reqbench/") == true)
  }

  @Test func getWithQuery() throws {
    let url = URLResolver.appendQuery(QueryEncoder.encode([("q", "a b"), ("n", 1)]), to: try fixture("/anything/x?k=v"))
    let echo = try echo(Request(url: url))
    #expect(echo["method"] == "GET")
    #expect(echo["path"] == "/anything/x")
    #expect(echo["rawQuery"] == "k=v&q=a%20b&n=1")
    #expect(echo["bodyLength"]?.intValue == 0)
  }

  @Test func jsonBody() throws {
    let body: JSONValue = ["name": "Ada \"quoted\"\n😀", "n": 1]
    let echo = try echo(Request(method: .POST, url: try fixture("/anything"), body: .json(body)))
    #expect(echo["method"] == "POST")
    #expect(echo["headers"]?["Content-Type"] == "application/json")
    #expect(try JSONParser.parse(#require(echo["body"]?.stringValue)) == body)
    #expect(echo["headers"]?["Expect"] == nil)
  }

  @Test func formBody() throws {
    let echo = try echo(
      Request(method: .POST, url: try fixture("/anything"), body: .form([("a", "x y"), ("b", "1&2")])))
    #expect(echo["headers"]?["Content-Type"] == "application/x-www-form-urlencoded")
    #expect(echo["body"] == "a=x%20y&b=1%262")
  }

  @Test func textBodyWithItsContentType() throws {
    let echo = try echo(
      Request(method: .PUT, url: try fixture("/anything"), body: .text("<a/>", contentType: "application/xml")))
    #expect(echo["method"] == "PUT")
    #expect(echo["headers"]?["Content-Type"] == "application/xml")
    #expect(echo["body"] == "<a/>")
  }

  @Test func emptyPostSendsContentLengthZeroAndNoFormType() throws {
    let echo = try echo(Request(method: .POST, url: try fixture("/anything")))
    #expect(echo["headers"]?["Content-Length"] == "0")
    #expect(echo["headers"]?["Content-Type"] == nil)
  }

  @Test(arguments: [HTTPMethod.PATCH, .DELETE, .OPTIONS])
  func otherMethods(method: HTTPMethod) throws {
    let echo = try echo(Request(method: method, url: try fixture("/anything"), body: .text("x")))
    #expect(echo["method"]?.stringValue == method.rawValue)
    #expect(echo["body"] == "x")
  }

  // A body goes whatever the method (`curl -X GET -d …`, Elasticsearch's _search), and any token
  // is a method, sent as spelled; `sent` says what curl put on the wire, from its own count.
  @Test(arguments: ["GET", "PURGE", "wHat"])
  func aBodyIsSentWhateverTheMethod(name: String) throws {
    let method = try #require(HTTPMethod(rawValue: name))
    let result = agent.sendAndWait(
      Request(method: method, url: try fixture("/anything"), body: .json(["query": ["match_all": [:]]])))
    let echo = try result.json()
    #expect(echo["method"]?.stringValue == name)
    #expect(echo["body"] == #"{"query":{"match_all":{}}}"#)
    #expect(echo["headers"]?["Content-Length"] == "26")
    #expect(result.sent?.requestLine.hasPrefix(name + " /anything ") == true)
    #expect(result.sent?.body == .bytes(Array(#"{"query":{"match_all":{}}}"#.utf8), total: 26))
  }

  // A GET without a body sends none, and `sent` says so.
  @Test func aGETWithoutABodySaysNoneWasSent() throws {
    let result = agent.sendAndWait(Request(url: try fixture("/anything")))
    #expect(try result.json()["bodyLength"] == 0)
    #expect(result.sent?.body == SentBody.none)
  }

  @Test func requestHeadersOverrideDefaultsAndEmptyRemoves() throws {
    let headers: HTTPHeaders = ["User-Agent": "mine/1", "x-a": "1", "X-A": "2", "Accept": ""]
    let echo = try echo(Request(url: try fixture("/anything"), headers: headers))
    #expect(echo["headers"]?["User-Agent"] == "mine/1")
    #expect(echo["headers"]?["X-A"] == "2")
    #expect(echo["headers"]?["x-a"] == nil)
    #expect(echo["headers"]?["Accept"] == nil)
  }

  @Test func defaultUserAgentNamesReqbench() throws {
    let echo = try echo(Request(url: try fixture("/anything")))
    #expect(echo["headers"]?["User-Agent"]?.stringValue?.hasPrefix("reqbench/") == true)
  }

  // Basic auth is sent up front: one request, no challenge round trip.
  @Test func basicAuthUpFront() throws {
    let key = uniqueKey()
    let token = Data("user:pass".utf8).base64EncodedString()
    let ok = agent.sendAndWait(
      Request(url: try fixture("/basic-auth/user/pass?key=\(key)"), headers: ["Authorization": "Basic \(token)"]))
    #expect(ok.state == .succeeded)
    #expect(try hits(key) == 1)
    let wrong = agent.sendAndWait(
      Request(url: try fixture("/basic-auth/user/other?key=\(key)"), headers: ["Authorization": "Basic \(token)"]))
    #expect(wrong.state == .failed)
    #expect(wrong.response?.status == 401)
    #expect(wrong.error?.kind == .status)
    #expect(try hits(key) == 2)
  }

  @Test func bearerAgainstHttpbin() throws {
    let ok = agent.sendAndWait(Request(url: try httpbin("/bearer"), headers: ["Authorization": "Bearer abc"]))
    #expect(ok.state == .succeeded)
    #expect(try ok.json()["token"] == "abc")
    let missing = agent.sendAndWait(Request(url: try httpbin("/bearer")))
    #expect(missing.response?.status == 401)
  }

  @Test func compressedResponsesAreDecoded() throws {
    let result = agent.sendAndWait(Request(url: try httpbin("/gzip")))
    #expect(result.state == .succeeded)
    #expect(try result.json()["gzipped"] == true)
  }

  // HEAD on a large resource completes at once with headers and no body.
  @Test func headHasHeadersAndNoBody() throws {
    let result = agent.sendAndWait(Request(method: .HEAD, url: try nginx("/10m.bin")))
    #expect(result.state == .succeeded)
    #expect(result.response?.headers["Content-Length"] == "10485760")
    #expect(result.response?.body.count == 0)
  }

  @Test func proxySettingsRouteThroughTheProxy() throws {
    let proxied = Agent(configuration: .init(proxy: ProxySettings(http: try TestServer.fixture.baseURL)))
    defer { proxied.shutdown() }
    // The fixture answers proxied requests itself, so nothing leaves the machine.
    let result = proxied.sendAndWait(Request(url: "http://reqbench.invalid/anything/p"))
    #expect(result.state == .succeeded)
    #expect(try result.json()["target"] == "http://reqbench.invalid/anything/p")

    let bypass = Agent(
      configuration: .init(proxy: ProxySettings(http: "http://127.0.0.1:1", noProxy: "127.0.0.1")))
    defer { bypass.shutdown() }
    #expect(bypass.sendAndWait(Request(url: try fixture("/anything"))).state == .succeeded)
  }

  @Test func proxyFromEnvironmentReadsBothCases() {
    let upper = ProxySettings.fromEnvironment(["HTTP_PROXY": "http://p:1", "NO_PROXY": "a.test"])
    #expect(upper == ProxySettings(http: "http://p:1", noProxy: "a.test"))
    let lower = ProxySettings.fromEnvironment(["https_proxy": "http://s:2", "HTTPS_PROXY": "http://x:3"])
    #expect(lower.https == "http://s:2")
  }

  /// The proxy is the one of the URL's scheme, its letters in either case.
  @Test func theProxyFollowsTheScheme() {
    let settings = ProxySettings(http: "http://h:1", https: "http://s:2")
    for (url, proxy) in [
      ("https://a.test/", "http://s:2"), ("HTTPS://a.test/", "http://s:2"), ("HttpS://a", "http://s:2"),
      ("http://a.test/", "http://h:1"), ("https", "http://h:1"), ("httpsx://a", "http://h:1"),
      ("https\u{1A}//a", "http://h:1"), ("", "http://h:1"),
    ] {
      #expect(settings.proxy(for: url) == proxy, "\(url)")
    }
  }
}
