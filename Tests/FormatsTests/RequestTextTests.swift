import Formats
import Foundation
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

/// `RequestText.drafts`: what the `n` prompt and a paste into the request list read, through the
/// importers `reqbench import` uses.
@Suite struct RequestTextTests {
  /// Chrome 124's "Copy as cURL (bash)" of a JSON POST: one header a line, `--data-raw`.
  let chrome = #"""
    curl 'https://api.example.com/v1/users?page=2&per_page=20' \
      -H 'accept: application/json, text/plain, */*' \
      -H 'accept-language: en-US,en;q=0.9,fr;q=0.8' \
      -H 'authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig' \
      -H 'cache-control: no-cache' \
      -H 'content-type: application/json' \
      -H 'cookie: session=abc123; theme=dark' \
      -H 'origin: https://app.example.com' \
      -H 'pragma: no-cache' \
      -H 'priority: u=1, i' \
      -H 'referer: https://app.example.com/users' \
      -H 'sec-ch-ua: "Chromium";v="124", "Google Chrome";v="124", "Not-A.Brand";v="99"' \
      -H 'sec-ch-ua-mobile: ?0' \
      -H 'sec-ch-ua-platform: "macOS"' \
      -H 'sec-fetch-dest: empty' \
      -H 'sec-fetch-mode: cors' \
      -H 'sec-fetch-site: same-site' \
      -H 'user-agent: Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36' \
      --data-raw $'{"name":"Ada Lovelace","email":"ada@example.com","bio":"It\'s \u00e9t\u00e9","roles":["admin"]}'
    """#

  /// Firefox 125's "Copy as cURL (POSIX)" of a form POST: `--compressed` and `-X` first,
  /// `Accept-Encoding` and the connection headers included.
  let firefox = #"""
    curl 'https://shop.example.com/api/cart/items' \
      --compressed \
      -X POST \
      -H 'User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0' \
      -H 'Accept: application/json, text/javascript, */*; q=0.01' \
      -H 'Accept-Language: en-US,en;q=0.5' \
      -H 'Accept-Encoding: gzip, deflate, br' \
      -H 'Content-Type: application/x-www-form-urlencoded; charset=UTF-8' \
      -H 'X-Requested-With: XMLHttpRequest' \
      -H 'Origin: https://shop.example.com' \
      -H 'Connection: keep-alive' \
      -H 'Referer: https://shop.example.com/cart' \
      -H 'Cookie: cart=42; sid=xyz' \
      -H 'Sec-Fetch-Dest: empty' \
      -H 'Sec-Fetch-Mode: cors' \
      -H 'Sec-Fetch-Site: same-origin' \
      -H 'TE: trailers' \
      --data-raw 'item=42&qty=2&note=gift%20wrap'
    """#

  func drafts(_ text: String) throws -> RequestText.Drafts {
    try RequestText.drafts(from: text, readFile: { path throws(FileError) in
      throw FileError(path: path, message: "no files in this test", reason: "no files")
    })
  }

  func error(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> String? {
    do {
      let read = try drafts(text)
      Issue.record("read \(read.imported.templates.map(\.name))", sourceLocation: sourceLocation)
      return nil
    } catch {
      return "\(error)"
    }
  }

  /// The drafts added to a workspace load back from its saved text.
  func roundTrip(_ drafts: RequestText.Drafts) throws -> Workspace {
    var ws = try workspace(#"{"version": 1, "baseURL": "http://127.0.0.1:1/", "requests": []}"#)
    _ = try ws.addImported(drafts.imported)
    return try workspace(text(ws.encoded()))
  }

  @Test func chromeCopyAsCurl() throws {
    let read = try drafts(chrome)
    #expect(read.kind == .curl)
    let template = try #require(read.imported.templates.first)
    #expect(read.imported.templates.count == 1)
    #expect(template.name == "post-v1-users")
    #expect(template.method == .POST)
    #expect(template.url == "https://api.example.com/v1/users")
    #expect(template.query == JSONObject([("page", "2"), ("per_page", "20")]))
    // `$'…\u00e9…'` is é to the shell: compact JSON, which a JSON body sends as it is; its
    // Content-Type stays where it is among the headers.
    #expect(
      template.body
        == .json(["name": "Ada Lovelace", "email": "ada@example.com", "bio": "It's été", "roles": ["admin"]]))
    #expect(template.headers["content-type"] == "application/json")
    #expect(template.headers["sec-ch-ua"] == #""Chromium";v="124", "Google Chrome";v="124", "Not-A.Brand";v="99""#)
    #expect(template.headers["cookie"] == "session=abc123; theme=dark")
    #expect(template.headers.count == 17)
    #expect(try roundTrip(read).requests[0] .headers.count == 17)
  }

  @Test func firefoxCopyAsCurl() throws {
    let read = try drafts(firefox)
    #expect(read.kind == .curl)
    let template = try #require(read.imported.templates.first)
    #expect(template.name == "post-api-cart-items")
    #expect(template.method == .POST)
    #expect(template.url == "https://shop.example.com/api/cart/items")
    #expect(template.body == .text("item=42&qty=2&note=gift%20wrap", contentType: "application/x-www-form-urlencoded; charset=UTF-8")
      || template.body == .form(JSONObject([("item", "42"), ("qty", "2"), ("note", "gift wrap")])))
    #expect(template.headers["Accept-Encoding"] == "gzip, deflate, br", "sent as written, decoded as with --compressed")
    #expect(template.compressed)
    #expect(template.headers["TE"] == "trailers")
    #expect(template.headers["User-Agent"]?.hasSuffix("Firefox/125.0") == true)
    #expect(try roundTrip(read).request(named: "post-api-cart-items")?.method == .POST)
  }

  @Test func severalCurlCommandsAndAPrompt() throws {
    let read = try drafts("$ curl https://a.test/one\ncurl -X DELETE https://a.test/two/2\n")
    #expect(read.kind == .curl)
    #expect(read.imported.templates.map(\.name) == ["get-one", "delete-two-2"])
  }

  @Test func httpBlocks() throws {
    let text = """
      @host = http://127.0.0.1:8080

      ### users/get
      GET {{host}}/users/1
      Accept: application/json

      ###
      # @name users/create
      POST {{host}}/users
      Content-Type: application/json

      {"name": "Ada"}
      """
    let read = try drafts(text)
    #expect(read.kind == .http)
    #expect(read.imported.templates.map(\.name) == ["users/get", "users/create"])
    // The body as written (reqbench would write it without the space).
    #expect(read.imported.templates[1].body == .text(#"{"name": "Ada"}"#, contentType: "application/json"))
    #expect(read.imported.variables == [Variable(name: "host", value: "http://127.0.0.1:8080")])
    #expect(try roundTrip(read).requests.count == 2)
    // One request line with its version is an .http block too.
    #expect(try drafts("GET https://a.test/x HTTP/1.1").kind == .http)
    #expect(try drafts("GET https://a.test/x\nAccept: text/plain").imported.templates[0].headers == ["Accept": "text/plain"])
  }

  @Test func bareURLs() throws {
    let absolute = try drafts("  https://api.test/v1/users/1?verbose=1  \n")
    #expect(absolute.kind == .url)
    let template = try #require(absolute.imported.templates.first)
    #expect(template.method == .GET)
    #expect(template.url == "https://api.test/v1/users/1")
    #expect(template.query == JSONObject([("verbose", "1")]))
    #expect(template.name == "get-v1-users-1")
    // Relative to the workspace's baseURL, or templated.
    let relative = try drafts("users/7")
    #expect(relative.kind == .url)
    #expect(relative.imported.templates[0].url == "users/7")
    #expect(relative.imported.templates[0].name == "get-users-7")
    #expect(try roundTrip(relative).requests[0].url == "users/7")
    #expect(try drafts("{{host}}/health").imported.templates[0].name == "get-health")
  }

  @Test func methodAndURL() throws {
    let read = try drafts("GET {{baseURL}}users")
    #expect(read.kind == .methodAndURL)
    let template = try #require(read.imported.templates.first)
    #expect(template.method == .GET)
    #expect(template.url == "{{baseURL}}users")
    #expect(template.name == "get-users")
    let ws = try roundTrip(read)
    #expect(ws.requests[0].url == "{{baseURL}}users")
    let post = try drafts("post /users/1")
    #expect(post.kind == .methodAndURL)
    #expect(post.imported.templates[0].method == .POST)
    #expect(post.imported.templates[0].name == "post-users-1")
    #expect(try drafts("DELETE https://api.test/items/9").imported.templates[0].name == "delete-items-9")
  }

  @Test func errorsSayWhatAndWhere() throws {
    #expect(error("curl 'https://a.test/x' \\\n  --frob 1")?.hasPrefix("paste:2:3: ") == true)
    #expect(error("curl 'https://a.test/x")?.hasPrefix("paste:1:") == true)
    #expect(
      error("GET https://a.test/x\nnot a header")
        == #"paste:2:1: expected a header "Name: value" or a blank line before the body"#)
    // Any token is a method, sent as spelled (a capitalised word where a URL could stand).
    #expect(try drafts("PURGE https://a.test/x").imported.templates[0].method.rawValue == "PURGE")
    #expect(try drafts("purge https://a.test/x").imported.templates[0].method.rawValue == "PURGE")
    #expect(error("GET https://a.test/a b")?.hasPrefix("paste:1:22: unexpected text after the URL") == true)
    // A scheme typo is caught where it is typed, not at the first send.
    #expect(error("GET htps://a.test/x") == "paste:1:5: only http and https URLs can be imported, found htps:")
    #expect(error("ftp://a.test/x") == "paste:1:1: only http and https URLs can be imported, found ftp:")
    // A URL missing its colon is not taken for a version or a method: an error at its place.
    #expect(error("GET http//127.0.0.1:8080/get") == #"paste:1:5: "http//127.0.0.1…" is not a URL: did you mean http://?"#)
    #expect(error("POST http//127.0.0.1:8080/post HTTP/1.1")?.hasPrefix(#"paste:1:6: "http//127.0.0.1…" is not a URL"#) == true)
    #expect(error("GET https:/a.test/x") == #"paste:1:5: "https:/a.test/x" is not a URL: did you mean https://?"#)
    #expect(error("http//a.test/x") == #"paste:1:1: "http//a.test/x" is not a URL: did you mean http://?"#)
    #expect(try drafts("GET httpbin.test/get").imported.templates[0].url.hasSuffix("httpbin.test/get"))
    #expect(try drafts("GET https://a.test/x HTTP/2").imported.templates[0].url == "https://a.test/x")
    #expect(try drafts("GET {{proto}}://a.test/x").imported.templates[0].url == "{{proto}}://a.test/x")
    #expect(try drafts("GET HTTPS://a.test/x").imported.templates[0].url.lowercased() == "https://a.test/x")
    #expect(error("   \n") == "paste:1:1: there is nothing here; paste a curl command, an .http request or a URL")
    // A file the command reads at import goes through readFile (here: none can be read).
    #expect(error("curl https://a.test -d a=1 -d @body.json")?.contains("body.json") == true)
    // -d @file is read at import (curl drops its CR and LF); --data-binary @file is a file body.
    #expect(error("curl https://a.test -d @body.json")?.contains("body.json") == true)
    #expect(try drafts("curl https://a.test --data-binary @body.json").imported.templates[0].body == .file("body.json", contentType: "application/x-www-form-urlencoded"))
  }

  /// A JSON document is read by its importer, picked by its keys: a Postman collection or
  /// environment, a HAR, an OpenAPI description; other JSON says what a paste can be, malformed
  /// JSON where it breaks.
  @Test func jsonDocumentsGoToTheirImporter() throws {
    let environment = #"{"name": "Staging", "values": [{"key": "baseUrl", "value": "https://s.test"}]}"#
    #expect(RequestText.kind(of: "  " + environment) == .document(.postman))
    #expect(try drafts(environment).imported.environments.map(\.name) == ["Staging"])
    let collection = #"{"info": {"name": "c"}, "item": [{"name": "me", "request": {"url": "https://a.test/me"}}]}"#
    #expect(try drafts(collection).imported.templates.map(\.url) == ["https://a.test/me"])
    let har = """
      {"log": {"version": "1.2", "entries": [{"request": {"method": "DELETE", "url": "https://a.test/x/1",
        "headers": [], "queryString": [], "cookies": [], "httpVersion": "HTTP/1.1", "headersSize": -1, "bodySize": 0}}]}}
      """
    #expect(RequestText.kind(of: har) == .document(.har))
    #expect(try drafts(har).imported.templates.map(\.method) == [.DELETE])
    #expect(RequestText.kind(of: #"{"openapi": "3.1.0"}"#) == .document(.openapi))
    #expect(RequestText.kind(of: #"{"id": 1}"#) == .document(nil))
    #expect(error(#"{"id": 1}"#)?.hasPrefix("paste:1:1: this JSON is no request: paste a curl command") == true)
    #expect(error("{\n  \"id\": 1,\n}")?.hasPrefix("paste:3:1: this JSON is malformed") == true)
  }

  /// A scheme-less URL typed at `n`, read as curl and HTTPie read it.
  @Test func aSchemelessURLIsCompletedAsCurlAndHTTPieReadIt() {
    let always: [(String, String?)] = [
      (":3000/users", "http://localhost:3000/users"), (":3000", "http://localhost:3000"),
      (":/users?q=1", "http://localhost/users?q=1"), ("localhost:8080/x", "http://localhost:8080/x"),
      ("127.0.0.1:8080", "http://127.0.0.1:8080"), ("[::1]:8080/x", "http://[::1]:8080/x"),
      ("api.test:443/v1", "http://api.test:443/v1"),
      // Left as they are: a scheme, a path, a template, no host, a port that is not one.
      ("https://api.test/x", nil), ("/users", nil), ("{{host}}/users", nil), ("users", nil),
      ("users/list", nil), (":abc", nil), ("localhost:http/x", nil), ("", nil),
    ]
    for (url, expected) in always {
      #expect(RequestText.completedURL(url, hasBaseURL: false) == expected, "\(url)")
      #expect(RequestText.completedURL(url, hasBaseURL: true) == expected, "\(url), with a baseURL")
    }
    // Without a port, a host-like first segment is a relative URL when there is a baseURL.
    for (url, expected) in [
      ("example.com/api", "http://example.com/api"), ("localhost/x", "http://localhost/x"),
      ("[::1]/x", "http://[::1]/x"), ("10.0.0.2", "http://10.0.0.2"),
    ] {
      #expect(RequestText.completedURL(url, hasBaseURL: false) == expected, "\(url)")
      #expect(RequestText.completedURL(url, hasBaseURL: true) == nil, "\(url), with a baseURL")
    }
  }
}
