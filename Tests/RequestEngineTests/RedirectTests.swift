import Digest
import Foundation
import RequestEngine
import TestSupport
import Testing

/// Redirects: the engine follows them itself (`Redirect`), so a server can send
/// reqbench only to http and https, and a header that carries a secret never reaches another
/// origin. Against the fixture server, httpbin and a loopback listener that stands for an FTP
/// server.
@Suite("Redirects")
struct RedirectTests {
  let agent = Agent()

  /// The fixture's `/redirect-to` pointing at `url`, with `status`.
  func redirect(to url: String, status: Int = 302) throws -> String {
    try fixture("/redirect-to?url=\(QueryEncoder.encodeComponent(url))&status=\(status)")
  }

  @Test func aRedirectToFTPIsRefusedAndTheListenerGetsNothing() throws {
    defer { agent.shutdown() }
    let listener = try LoopbackListener()
    let result = agent.sendAndWait(Request(url: try redirect(to: "ftp://127.0.0.1:\(listener.port)/file")))
    #expect(result.state == .failed)
    #expect(result.error?.transport == .redirectRefused)
    #expect(
      result.error?.message
        == "redirect refused: status 302 points to ftp://127.0.0.1:\(listener.port)/file; only http and https redirects are followed")
    #expect(result.response?.status == 302)
    #expect(listener.connections() == 0)
  }

  @Test(arguments: ["file:///etc/passwd", "gopher://127.0.0.1:1/x", "dict://127.0.0.1:1/x", "javascript:alert(1)"])
  func otherSchemesAreRefusedToo(_ location: String) throws {
    defer { agent.shutdown() }
    let result = agent.sendAndWait(Request(url: try redirect(to: location, status: 301)))
    #expect(result.error?.transport == .redirectRefused, "\(result.error?.message ?? "no error")")
  }

  /// The secret rides in a custom header, a bearer token and a cookie; only the plain header
  /// reaches the other origin (httpbin, another port).
  @Test func headersWithSecretsStayBehindOnACrossOriginRedirect() throws {
    defer { agent.shutdown() }
    let secret = "s3cr3t-\(uniqueKey())"
    var request = Request(url: try redirect(to: try httpbin("/headers")))
    request.headers["X-Api-Key"] = secret
    request.headers["X-Signed"] = "v1:\(secret):sig"
    request.headers["Authorization"] = "Bearer plain-token"
    request.headers["Cookie"] = "session=plain"
    request.headers["X-Plain"] = "visible"
    request.secrets = [secret]
    let result = agent.sendAndWait(request)
    #expect(result.state == .succeeded, "\(result.error?.message ?? "")")
    #expect(result.response?.redirectCount == 1)
    #expect(result.response?.effectiveURL == (try httpbin("/headers")))
    let headers = try #require(try result.json()["headers"]?.objectValue)
    #expect(headers["X-Plain"] == .string("visible"))
    for dropped in ["X-Api-Key", "X-Signed", "Authorization", "Cookie"] {
      #expect(headers[dropped] == nil, "\(dropped) reached the other origin")
    }
    #expect(!result.text.contains(secret))
  }

  /// The same server under another name (mapped to loopback with `resolve`) is another origin too.
  @Test func anotherHostOnTheSameServerIsAnotherOrigin() throws {
    let port = try #require(URL(string: try TestServer.fixture.baseURL)?.port)
    var configuration = Agent.Configuration()
    configuration.resolve = [try HostMapping(parsing: "other.invalid:\(port):127.0.0.1")]
    let agent = Agent(configuration: configuration)
    defer { agent.shutdown() }
    var request = Request(url: try redirect(to: "http://other.invalid:\(port)/headers", status: 307))
    request.headers["X-Api-Key"] = "k-secret"
    request.secrets = ["k-secret"]
    let result = agent.sendAndWait(request)
    #expect(result.state == .succeeded, "\(result.error?.message ?? "")")
    let headers = try #require(try result.json()["headers"]?.objectValue)
    #expect(headers["Host"] == .string("other.invalid:\(port)"))
    #expect(headers["X-Api-Key"] == nil)
  }

  @Test func aSameOriginRedirectKeepsEveryHeader() throws {
    defer { agent.shutdown() }
    var request = Request(url: try redirect(to: "/headers"))
    request.headers["X-Api-Key"] = "k-secret"
    request.headers["Authorization"] = "Bearer k-secret"
    request.secrets = ["k-secret"]
    let result = agent.sendAndWait(request)
    let headers = try #require(try result.json()["headers"]?.objectValue)
    #expect(headers["X-Api-Key"] == .string("k-secret"))
    #expect(headers["Authorization"] == .string("Bearer k-secret"))
    #expect(result.response?.redirectCount == 1)
  }

  /// 307 and 308 repeat the method and the body; 303 (and 301/302 after a POST) become a GET
  /// without the body, as curl and browsers do.
  @Test(arguments: [(307, "POST", true), (308, "POST", true), (303, "GET", false), (302, "GET", false), (301, "GET", false)])
  func theMethodAfterARedirect(_ status: Int, _ method: String, _ keepsBody: Bool) throws {
    defer { agent.shutdown() }
    let request = Request(
      method: .POST, url: try redirect(to: "/anything", status: status), body: .json(["n": 1]))
    let result = agent.sendAndWait(request)
    #expect(result.state == .succeeded, "\(result.error?.message ?? "")")
    let echo = try result.json()
    #expect(echo["method"] == .string(method))
    let body = echo["body"]?.stringValue ?? ""
    #expect(body.contains("\"n\"") == keepsBody, "body \(body)")
  }

  @Test func aStreamedBodyIsSentAgainOn307() throws {
    defer { agent.shutdown() }
    let file = scratchURL("rb-redirect").appendingPathExtension("bin")
    try Data(repeating: 0x61, count: 300_000).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let result = agent.sendAndWait(
      Request(method: .PUT, url: try redirect(to: "/anything", status: 307), body: .file(file.path)))
    #expect(result.state == .succeeded, "\(result.error?.message ?? "")")
    #expect(try result.json()["bodyLength"]?.intValue == 300_000)
    #expect(try result.json()["method"] == "PUT")
  }

  /// Each hop gets what is left of the deadline: quick hops fit, and the times add up.
  @Test func quickHopsFitInADeadline() throws {
    defer { agent.shutdown() }
    let result = agent.sendAndWait(Request(url: try fixture("/redirect/3"), timeouts: Timeouts(idle: 5, deadline: 10)))
    #expect(result.state == .succeeded)
    #expect(result.response?.redirectCount == 3)
    #expect((result.response?.timing.total ?? 0) > 0)
  }

  /// A download follows the redirect to its resource (the target gets the resource's bytes, not
  /// the 302's), and a redirect to ftp:// leaves the target alone.
  @Test func aDownloadFollowsARedirect() throws {
    let root = scratchURL("reqbench-redirect-dl").path
    try FileManager.default.createDirectory(atPath: root + "/out", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: root) }
    let agent = Agent(configuration: Agent.Configuration(downloads: DownloadStore(directory: root + "/state")))
    defer { agent.shutdown() }
    let direct = self.agent.sendAndWait(Request(url: try fixture("/bytes/300000")))
    let expected = SHA256.hex(try #require(direct.response).body.bytes())
    let target = root + "/out/file.bin"
    let result = agent.sendAndWait(
      Request(url: try redirect(to: "/bytes/300000", status: 307), download: DownloadTarget(path: target)))
    #expect(result.state == .succeeded, "\(result.error?.message ?? "")")
    #expect(result.response?.redirectCount == 1)
    #expect(result.download?.bytes == 300_000)
    #expect(SHA256.hex(Array(try Data(contentsOf: URL(fileURLWithPath: target)))) == expected)
    self.agent.shutdown()

    let listener = try LoopbackListener()
    let refused = agent.sendAndWait(
      Request(url: try redirect(to: "ftp://127.0.0.1:\(listener.port)/f"), download: DownloadTarget(path: root + "/out/ftp.bin")))
    #expect(refused.error?.transport == .redirectRefused)
    #expect(!FileManager.default.fileExists(atPath: root + "/out/ftp.bin"))
    #expect(listener.connections() == 0)
  }
}

/// The pure rules of a hop.
@Suite struct RedirectRuleTests {
  let secret = "sek"
  var request: Request {
    var request = Request(
      method: .POST, url: "http://a.test/x", headers: ["X-Key": "sek", "Content-Type": "application/json", "X-Ok": "1"],
      body: .json(["a": 1]), secrets: ["sek"])
    request.digest = DigestCredentials(user: "u", password: "p")
    return request
  }

  @Test func originsCompareSchemeHostAndPort() {
    #expect(Redirect.sameOrigin("http://a.test/x", "http://A.test:80/y"))
    #expect(!Redirect.sameOrigin("http://a.test/x", "https://a.test/x"))
    #expect(!Redirect.sameOrigin("http://a.test/x", "http://a.test:8080/x"))
    #expect(!Redirect.sameOrigin("http://a.test/x", "http://b.test/x"))
    #expect(Redirect.sameOrigin("https://a.test/x", "https://u@a.test:443/x"))
  }

  @Test func crossOriginDropsSecretsCredentialsAndDigest() throws {
    var withAuth = request
    withAuth.headers["Authorization"] = "Basic x"
    withAuth.headers["Cookie"] = "c=1"
    withAuth.headers["Host"] = "a.test"
    let next = try Redirect.next(after: withAuth, status: 307, location: "http://b.test/y", hop: 1).get()
    #expect(next.url == "http://b.test/y")
    #expect(next.method == .POST)
    #expect(next.headers["X-Key"] == nil && next.headers["Authorization"] == nil && next.headers["Cookie"] == nil)
    #expect(next.headers["Host"] == nil)
    #expect(next.headers["X-Ok"] == "1" && next.headers["Content-Type"] == "application/json")
    #expect(next.digest == nil)
    #expect(next.body == withAuth.body)
  }

  @Test func sameOriginKeepsThem() throws {
    let next = try Redirect.next(after: request, status: 308, location: "http://a.test/z", hop: 1).get()
    #expect(next.headers["X-Key"] == "sek")
    #expect(next.digest != nil)
  }

  @Test func getConversions() throws {
    let see = try Redirect.next(after: request, status: 303, location: "http://a.test/z", hop: 1).get()
    #expect(see.method == .GET && see.body == .empty && see.headers["Content-Type"] == nil)
    var head = request
    head.method = .HEAD
    head.body = .empty
    #expect(try Redirect.next(after: head, status: 303, location: "http://a.test/z", hop: 1).get().method == .HEAD)
    var put = request
    put.method = .PUT
    #expect(try Redirect.next(after: put, status: 302, location: "http://a.test/z", hop: 1).get().method == .PUT)
  }

  @Test func limitsAndSchemes() {
    #expect(throws: ExchangeError.self) { try Redirect.next(after: request, status: 302, location: "ftp://a.test/", hop: 1).get() }
    var capped = request
    capped.maxRedirects = 2
    #expect(throws: ExchangeError.self) { try Redirect.next(after: capped, status: 302, location: "http://a.test/", hop: 3).get() }
    #expect((try? Redirect.next(after: capped, status: 302, location: "http://a.test/", hop: 2).get()) != nil)
  }
}
