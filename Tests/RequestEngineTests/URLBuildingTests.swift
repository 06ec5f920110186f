import RequestEngine
import Testing

@Suite("URL building")
struct URLBuildingTests {
  // A relative URL against a base: YTK's vectors and the RFC 3986 traps.
  @Test(arguments: [
    ("http://www.example.com", "get", "http://www.example.com/get"),
    ("http://www.example.com/", "get", "http://www.example.com/get"),
    ("http://www.example.com", "get/val/", "http://www.example.com/get/val/"),
    ("https://www.example.com", "httpEndpoint", "https://www.example.com/httpEndpoint"),
    ("", "http://www.example.com", "http://www.example.com/"),
    ("http://www.something.com", "https://www.example.com", "https://www.example.com/"),
    ("http://example.com/v1", "foo", "http://example.com/foo"),
    ("http://example.com/v1/", "foo", "http://example.com/v1/foo"),
    ("http://example.com/v1/", "/foo", "http://example.com/foo"),
    ("http://example.com/a/b/c", "../foo", "http://example.com/a/foo"),
    ("http://example.com/a/b/", "./x/./y/../z", "http://example.com/a/b/x/z"),
    ("http://example.com/v1/", "?q=1", "http://example.com/v1/?q=1"),
    ("http://example.com:8080/v1/", "//other.test/p", "http://other.test/p"),
    ("HTTP://Example.com/a", "b#frag", "http://Example.com/b"),
  ])
  func resolves(base: String, reference: String, expected: String) throws {
    #expect(try URLResolver.resolve(reference, against: base) == expected)
  }

  @Test func relativeWithoutBaseIsATypedError() {
    #expect(throws: URLError.self) { try URLResolver.resolve("get", against: "") }
    #expect(throws: URLError.self) { try URLResolver.resolve("get", against: nil) }
  }

  @Test func rejectsOtherSchemesAndSpaces() {
    #expect(throws: URLError.self) { try URLResolver.resolve("ftp://x.test/a", against: nil) }
    #expect(throws: URLError.self) { try URLResolver.resolve("http://x.test/a b", against: nil) }
    #expect(throws: URLError.self) { try URLResolver.resolve("http:///nohost", against: nil) }
  }

  // Encoding of values, arrays, objects, null and bools.
  @Test func encodesQueryLikeAlamofire() {
    let query = QueryEncoder.encode([
      ("a", "x y"), ("arr", [1, 2]), ("b", 2), ("d", ["k": "v"]), ("n", nil),
    ])
    #expect(query == "a=x%20y&arr%5B%5D=1&arr%5B%5D=2&b=2&d%5Bk%5D=v&n")
    #expect(QueryEncoder.encode([("v", "a+b&c=d/e?f")]) == "v=a%2Bb%26c%3Dd/e?f")
    #expect(QueryEncoder.encode([("v", "中")]) == "v=%E4%B8%AD")
    #expect(QueryEncoder.encode([("t", true), ("f", false)]) == "t=1&f=0")
  }

  @Test func appendsToAnExistingQueryWithAmpersand() {
    #expect(URLResolver.appendQuery("version=1.0", to: "http://h.test/get") == "http://h.test/get?version=1.0")
    #expect(URLResolver.appendQuery("version=1.0", to: "http://h.test/get?a=1") == "http://h.test/get?a=1&version=1.0")
    #expect(URLResolver.appendQuery("", to: "http://h.test/get?a=1") == "http://h.test/get?a=1")
  }

  @Test func hostKeyMakesDefaultPortsExplicit() {
    #expect(URLResolver.hostKey(of: "http://A.test/x") == "http://a.test:80")
    #expect(URLResolver.hostKey(of: "https://a.test/x") == "https://a.test:443")
    #expect(URLResolver.hostKey(of: "http://u:p@127.0.0.1:81/x") == "http://127.0.0.1:81")
    #expect(URLResolver.hostKey(of: "http://[::1]:81/x") == "http://[::1]:81")
    // The one-pass path (a plain URL) and the general one (anything to lower-case, no "//",
    // a scheme in capitals) agree.
    for (url, key) in [
      ("http://127.0.0.1:8080/1k.bin?x=1#f", "http://127.0.0.1:8080"), ("https://a.test?q", "https://a.test:443"),
      ("https://a.test#f", "https://a.test:443"), ("http://a@b@c.test/", "http://c.test:80"),
      ("http://[::1]/x", "http://[::1]:80"), ("http://", "http://:80"), ("HTTPS://A.Test/", "https://a.test:443"),
      ("h2c+x.y-z://h.test/", "h2c+x.y-z://h.test:80"), ("http://bücher.test/", "http://bücher.test:80"),
      ("/relative/path", "http://:80"), ("mailto:a@b.test", "mailto://:80"),
    ] {
      #expect(URLResolver.hostKey(of: url) == key, "\(url)")
    }
    #expect(URLResolver.hostKey(of: "http://[::1]/x") == "http://[::1]:80")
    #expect(URLResolver.hostKey(of: "https://user@Host.test") == "https://host.test:443")
  }

  // Only `.` and `..` segments are rewritten; dots inside names are left alone (the fast path).
  @Test func dotSegments() {
    #expect(URLResolver.removeDotSegments("/1k.bin") == "/1k.bin")
    #expect(URLResolver.removeDotSegments("/a/...b/.c/d.") == "/a/...b/.c/d.")
    #expect(URLResolver.removeDotSegments("/a/./b/../c") == "/a/c")
    #expect(URLResolver.removeDotSegments("/a/b/..") == "/a/")
    #expect(URLResolver.removeDotSegments("/a/.") == "/a/")
    #expect(URLResolver.removeDotSegments("a//b") == "a//b")
  }
}
