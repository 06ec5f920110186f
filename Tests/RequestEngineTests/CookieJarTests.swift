import Foundation
import RequestEngine
import TestSupport
import Testing

/// The cookie jar: libcurl's cookie engine through one share per jar, against
/// httpbin's `/cookies/set`, `/cookies` and `/cookies/delete`, two host names for the domain rule
/// and `Max-Age` for expiry. What goes where is curl's; these tests check that the engine hands
/// curl the jar on every transfer (redirect hops included), never on others, and that the jar can
/// be read and edited while transfers run.
@Suite("Cookie jar")
struct CookieJarTests {
  /// `localhost` mapped to the loopback address (curl's `--resolve`), so no resolver is asked.
  func makeAgent(maxConcurrent: Int = 8) throws -> Agent {
    var configuration = Agent.Configuration(maxConcurrent: maxConcurrent)
    configuration.resolve = [try HostMapping(parsing: "localhost:\(try httpbinPort()):127.0.0.1")]
    return Agent(configuration: configuration)
  }

  func httpbinPort() throws -> Int {
    try #require(URLComponents(string: try httpbin("/"))?.port)
  }

  func request(_ path: String, jar: CookieJar?, host: String = "127.0.0.1") throws -> Request {
    var request = Request(url: "http://\(host):\(try httpbinPort())\(path)")
    request.cookieJar = jar
    return request
  }

  /// httpbin's `/cookies` answer: the cookies the request carried.
  func cookiesSeen(_ result: ExchangeResult) throws -> [String: String] {
    let object = try #require(try result.json()["cookies"]?.objectValue)
    var seen: [String: String] = [:]
    for (name, value) in object.members { seen[name] = value.stringValue }
    return seen
  }

  @Test func aSetCookieOnARedirectIsStoredAndSentOnTheNextHopAndLaterRequests() throws {
    let agent = try makeAgent()
    defer { agent.shutdown() }
    let jar = CookieJar()
    // 302 with Set-Cookie to /cookies: the hop after the redirect already sends it.
    let login = agent.sendAndWait(try request("/cookies/set?session=abc123&theme=dark", jar: jar))
    #expect(login.state == .succeeded, "\(login.error?.message ?? "")")
    #expect(login.response?.redirectCount == 1)
    #expect(try cookiesSeen(login) == ["session": "abc123", "theme": "dark"])
    #expect(jar.cookies.map(\.name) == ["session", "theme"])
    #expect(jar.cookies.allSatisfy { $0.host == "127.0.0.1" && $0.path == "/" && $0.isSession })
    #expect(jar.generation >= 1)

    let next = agent.sendAndWait(try request("/cookies", jar: jar))
    #expect(try cookiesSeen(next) == ["session": "abc123", "theme": "dark"])
    #expect(next.sent?.cookieNames.sorted() == ["session", "theme"])

    let deleted = agent.sendAndWait(try request("/cookies/delete?session", jar: jar))
    #expect(try cookiesSeen(deleted) == ["theme": "dark"])
    #expect(jar.cookies.map(\.name) == ["theme"])
  }

  @Test func aRequestWithoutAJarSendsNoneEvenOnAHandleAJarUsedBefore() throws {
    // One transfer at a time: the second request gets the pooled handle of the first.
    let agent = try makeAgent(maxConcurrent: 1)
    defer { agent.shutdown() }
    let jar = CookieJar()
    _ = agent.sendAndWait(try request("/cookies/set?session=abc", jar: jar))
    let without = agent.sendAndWait(try request("/cookies", jar: nil))
    #expect(try cookiesSeen(without) == [:])
    #expect(without.sent?.cookieNames == [])
    // And a response's Set-Cookie without a jar is not stored anywhere.
    _ = agent.sendAndWait(try request("/cookies/set?other=1", jar: nil))
    #expect(jar.cookies.map(\.name) == ["session"])
  }

  @Test func twoJarsAreApart() throws {
    let agent = try makeAgent()
    defer { agent.shutdown() }
    let first = CookieJar()
    let second = CookieJar()
    _ = agent.sendAndWait(try request("/cookies/set?who=first", jar: first))
    _ = agent.sendAndWait(try request("/cookies/set?who=second", jar: second))
    #expect(try cookiesSeen(agent.sendAndWait(try request("/cookies", jar: first))) == ["who": "first"])
    #expect(try cookiesSeen(agent.sendAndWait(try request("/cookies", jar: second))) == ["who": "second"])
  }

  /// curl's host-only rule: a cookie 127.0.0.1 set goes to 127.0.0.1 only, not to localhost on
  /// the same port, and the other way round.
  @Test func aHostOnlyCookieGoesToItsHostOnly() throws {
    let agent = try makeAgent()
    defer { agent.shutdown() }
    let jar = CookieJar()
    _ = agent.sendAndWait(try request("/cookies/set?numeric=1", jar: jar))
    _ = agent.sendAndWait(try request("/cookies/set?named=2", jar: jar, host: "localhost"))
    #expect(try cookiesSeen(agent.sendAndWait(try request("/cookies", jar: jar))) == ["numeric": "1"])
    #expect(try cookiesSeen(agent.sendAndWait(try request("/cookies", jar: jar, host: "localhost"))) == ["named": "2"])
    #expect(Set(jar.cookies.map(\.host)) == ["127.0.0.1", "localhost"])
  }

  /// A path rule: a cookie for `/cookies/x` (httpbin's response-headers sets any header) is not
  /// sent to `/cookies`.
  @Test func aCookieWithAPathGoesBelowItOnly() throws {
    let agent = try makeAgent()
    defer { agent.shutdown() }
    let jar = CookieJar()
    let setter = "/response-headers?Set-Cookie=\(QueryEncoder.encodeComponent("deep=1; Path=/anything/deep"))"
    _ = agent.sendAndWait(try request(setter, jar: jar))
    #expect(jar.cookies.map(\.path) == ["/anything/deep"])
    let below = agent.sendAndWait(try request("/anything/deep/er", jar: jar))
    #expect(below.sent?.cookieNames == ["deep"])
    let elsewhere = agent.sendAndWait(try request("/anything/other", jar: jar))
    #expect(elsewhere.sent?.cookieNames == [])
  }

  /// `Max-Age=1`: sent at once, not after it passed.
  @Test func anExpiredCookieIsNotSent() throws {
    let agent = try makeAgent()
    defer { agent.shutdown() }
    let jar = CookieJar()
    let setter = "/response-headers?Set-Cookie=\(QueryEncoder.encodeComponent("brief=1; Max-Age=1"))"
    _ = agent.sendAndWait(try request(setter, jar: jar))
    let cookie = try #require(jar.cookies.first)
    #expect(!cookie.isSession)
    #expect(abs(Double(cookie.expires) - Date().timeIntervalSince1970) <= 2)
    #expect(try cookiesSeen(agent.sendAndWait(try request("/cookies", jar: jar))) == ["brief": "1"])
    Thread.sleep(forTimeInterval: 2.2)
    #expect(try cookiesSeen(agent.sendAndWait(try request("/cookies", jar: jar))) == [:])
  }

  /// Transfers running at once through one share while another thread reads and edits the jar:
  /// the share's locks keep curl's store whole (the ASan run of this suite checks the memory).
  @Test func manyTransfersAndAReaderShareOneJar() throws {
    let agent = try makeAgent(maxConcurrent: 8)
    defer { agent.shutdown() }
    let jar = CookieJar()
    let changes = LockedBox(0)
    jar.onChange { changes.mutate { $0 += 1 } }
    let count = 24
    let done = DispatchSemaphore(value: 0)
    for index in 0..<count {
      agent.send(try request("/cookies/set/k\(index)/v\(index)", jar: jar)) { _ in done.signal() }
    }
    var reads = 0
    let deadline = Date().addingTimeInterval(20)
    var finished = 0
    while finished < count, Date() < deadline {
      if done.wait(timeout: .now() + .milliseconds(5)) == .success { finished += 1 }
      _ = jar.cookies
      jar.add([Cookie(domain: "reader.test", name: "r", value: "\(reads)")])
      reads += 1
    }
    #expect(finished == count)
    let names = Set(jar.cookies.filter { $0.host == "127.0.0.1" }.map(\.name))
    #expect(names == Set((0..<count).map { "k\($0)" }))
    #expect(changes.get() >= count)
    #expect(jar.generation == UInt64(changes.get()))
  }

  @Test func removingOneCookieAndClearingTheJar() throws {
    let jar = CookieJar()
    let added = jar.add([
      Cookie(domain: "127.0.0.1", name: "a", value: "1"),
      Cookie(domain: ".example.test", includeSubdomains: true, path: "/x", secure: true, httpOnly: true,
        expires: 4_102_444_800, name: "b", value: "2"),
    ])
    #expect(added == 2)
    let b = try #require(jar.cookies.first { $0.name == "b" })
    #expect(b.includeSubdomains && b.secure && b.httpOnly && b.expires == 4_102_444_800 && b.path == "/x")
    #expect(jar.remove { $0.name == "a" } == 1)
    #expect(jar.cookies.map(\.name) == ["b"])
    jar.removeAll()
    #expect(jar.cookies.isEmpty)
  }
}

@Suite("Cookie lines and masking")
struct CookieLineTests {
  @Test func netscapeLinesRoundTripAsCurlWritesThem() throws {
    let line = "#HttpOnly_.example.test\tTRUE\t/api\tTRUE\t4102444800\tsid\tv=1"
    let cookie = try #require(Cookie(netscapeLine: line))
    #expect(cookie.httpOnly && cookie.includeSubdomains && cookie.secure)
    #expect(cookie.host == "example.test" && cookie.path == "/api" && cookie.name == "sid" && cookie.value == "v=1")
    #expect(cookie.netscapeLine == line)
    #expect(Cookie(netscapeLine: "# Netscape HTTP Cookie File") == nil)
    #expect(Cookie(netscapeLine: "example.test\tFALSE\t/\tFALSE\tsoon\tn\tv") == nil)
    let parsed = Cookie.parseFile(Cookie.file([cookie]) + "garbage line\n\n")
    #expect(parsed.cookies == [cookie])
    #expect(parsed.rejected == 1)
  }

  @Test func cookieValuesAreMaskedNamesAndAttributesKept() {
    #expect(CookieMasking.cookieHeader("a=1; b=two") == "a=••••; b=••••")
    #expect(CookieMasking.setCookieHeader("sid=abc; Path=/; HttpOnly") == "sid=••••; Path=/; HttpOnly")
    let headers = CookieMasking.masked(["Set-Cookie": "sid=abc; Path=/", "X-Other": "abc"])
    #expect(headers["Set-Cookie"] == "sid=••••; Path=/")
    #expect(headers["X-Other"] == "abc")
    let head = "GET / HTTP/1.1\r\nHost: h\r\ncookie: a=1; b=2\r\nAccept: */*"
    #expect(CookieMasking.maskedHead(head) == "GET / HTTP/1.1\r\nHost: h\r\ncookie: a=••••; b=••••\r\nAccept: */*")
    #expect(CookieMasking.names(inCookieHeader: "a=1; b=2;c") == ["a", "b", "c"])
  }

  /// Only a line named `Cookie` (any case) is masked in a head: not a header whose name or value
  /// merely contains the word, and a head with none comes back as it was.
  @Test(arguments: [
    ("COOKIE: a=1\r\nHost: h", "COOKIE: a=••••\r\nHost: h"),
    ("GET / HTTP/1.1\r\nCookie: s=x", "GET / HTTP/1.1\r\nCookie: s=••••"),
    ("GET / HTTP/1.1\r\nX-Cookie: s=x\r\nAccept: cookie: y", "GET / HTTP/1.1\r\nX-Cookie: s=x\r\nAccept: cookie: y"),
    ("GET / HTTP/1.1\r\nCookies: s=x", "GET / HTTP/1.1\r\nCookies: s=x"),
    ("GET / HTTP/1.1\r\nCooki", "GET / HTTP/1.1\r\nCooki"),
  ])
  func onlyCookieLinesAreMaskedInAHead(head: String, masked: String) {
    #expect(CookieMasking.maskedHead(head) == masked)
  }
}
