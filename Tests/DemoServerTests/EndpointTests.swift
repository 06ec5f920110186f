import Digest
import Foundation
import JSON
import Testing

@testable import DemoServer

func freshKey() -> String { "k-" + UUID().uuidString.prefix(8).lowercased() }

@Suite("Fixture endpoints")
struct EndpointTests {
  @Test func hitsLogAndStatsCountPerKey() throws {
    try withServer { server in
      let key = freshKey()
      #expect(try fetchJSON(server.port, "/hits?key=\(key)")["hits"] as? Int == 0)
      _ = try fetch(server.port, "/get?key=\(key)", headers: [("X-Test", "1")])
      _ = try fetch(server.port, "POST", "/anything?key=\(key)", body: Array("b".utf8))
      _ = try fetch(server.port, "/status/404?key=\(key)")
      _ = try fetch(server.port, "/get?key=other-\(key)")
      let hits = try fetchJSON(server.port, "/hits?key=\(key)")
      #expect(hits["key"] as? String == key)
      #expect(hits["hits"] as? Int == 3)  // /hits itself is not counted
      let log = try fetch(server.port, "/log?key=\(key)").jsonArray()
      #expect(log.count == 3)
      #expect(log.map { $0["method"] as? String } == ["GET", "POST", "GET"])
      #expect(log.map { $0["target"] as? String } == ["/get?key=\(key)", "/anything?key=\(key)", "/status/404?key=\(key)"])
      #expect((log[0]["headers"] as? [String: String])?["X-Test"] == "1")
      #expect(log.allSatisfy { $0["completed"] as? Bool == true })
      for entry in log {
        let start = try #require(entry["start"] as? Double)
        let end = try #require(entry["end"] as? Double)
        #expect(start > 1_600_000_000_000 && end >= start)
      }
      let stats = try fetchJSON(server.port, "/stats?key=\(key)")
      #expect(stats["hits"] as? Int == 3)
      #expect(stats["inFlight"] as? Int == 0)
      #expect(stats["maxInFlight"] as? Int == 1)
      #expect(try fetch(server.port, "/hits").status == 400)
    }
  }

  @Test func statsSeeConcurrentRequests() throws {
    try withServer { server in
      let key = freshKey()
      let connections = try (0..<3).map { _ in try RawConnection(port: server.port) }
      for connection in connections { try connection.sendRequest("GET", "/delay/1?key=\(key)") }
      var inFlight = 0
      for _ in 0..<40 where inFlight < 3 {
        inFlight = try fetchJSON(server.port, "/stats?key=\(key)")["inFlight"] as? Int ?? 0
        if inFlight < 3 { Thread.sleep(forTimeInterval: 0.02) }
      }
      #expect(inFlight == 3)
      for connection in connections { #expect(try connection.readResponse().status == 200) }
      let after = try fetchJSON(server.port, "/stats?key=\(key)")
      #expect(after["hits"] as? Int == 3)
      #expect(after["maxInFlight"] as? Int == 3)
      #expect(after["inFlight"] as? Int == 0)
    }
  }

  @Test func droppedRequestsAreLoggedIncomplete() throws {
    try withServer { server in
      let key = freshKey()
      _ = try fetch(server.port, "/bytes/10000?close_at=10&key=\(key)")
      do {
        let connection = try RawConnection(port: server.port)
        try connection.sendRequest("GET", "/delay/10?key=\(key)")
        // The server has read the request (it is logged) before the client goes.
        #expect(try logEntries(server.port, key: key) { $0.count == 2 }.count == 2)
      }  // the client goes away mid-delay
      let log = try logEntries(server.port, key: key) { $0.count == 2 && $0[1]["end"] as? Double != nil }
      #expect(log.count == 2)
      #expect(log.map { $0["completed"] as? Bool } == [false, false])
      #expect(log[1]["end"] as? Double != nil)
      #expect(try fetchJSON(server.port, "/stats?key=\(key)")["inFlight"] as? Int == 0)
    }
  }

  @Test func flakyFailsFirstThenEchoes() throws {
    try withServer { server in
      let key = freshKey()
      let path = "/flaky?key=\(key)&fail_first=2&code=502"
      let first = try fetch(server.port, path)
      #expect(first.status == 502)
      #expect(first.text == "flaky failure 1")
      #expect(try fetch(server.port, path).text == "flaky failure 2")
      let third = try fetch(server.port, path)
      #expect(third.status == 200)
      #expect(try third.json()["path"] as? String == "/flaky")
    }
  }

  @Test func statusCodes() throws {
    try withServer { server in
      let error = try fetch(server.port, "/status/500")
      #expect(error.status == 500)
      #expect(error.text == "status 500")
      #expect(error.header("Content-Type")?.hasPrefix("text/plain") == true)
      let noContent = try fetch(server.port, "/status/204")
      #expect(noContent.status == 204)
      #expect(noContent.header("Content-Length") == nil)
      #expect(try fetch(server.port, "/status/abc").status == 400)
    }
  }

  @Test func redirects() throws {
    try withServer { server in
      let three = try fetch(server.port, "/redirect/3")
      #expect(three.status == 302)
      #expect(three.header("Location") == "/redirect/2")
      #expect(try fetch(server.port, "/redirect/1").header("Location") == "/get")
      #expect(try fetch(server.port, "/redirect/0").status == 400)
      let to = try fetch(server.port, "/redirect-to?url=https%3A%2F%2Fexample.com%2Fx%3Fa%3D1&status=307")
      #expect(to.status == 307)
      #expect(to.header("Location") == "https://example.com/x?a=1")
      #expect(try fetch(server.port, "/redirect-to?url=/get").status == 302)
    }
  }

  @Test func basicAndBearerAuth() throws {
    try withServer { server in
      let good = Data("ada:secret".utf8).base64EncodedString()
      let ok = try fetch(server.port, "/basic-auth/ada/secret", headers: [("Authorization", "Basic \(good)")])
      #expect(ok.status == 200)
      #expect(try ok.json()["user"] as? String == "ada")
      #expect(try ok.json()["authenticated"] as? Bool == true)
      let wrong = try fetch(server.port, "/basic-auth/ada/other", headers: [("Authorization", "Basic \(good)")])
      #expect(wrong.status == 401)
      #expect(wrong.header("WWW-Authenticate") == #"Basic realm="fixture""#)
      #expect(try fetch(server.port, "/basic-auth/ada/secret", headers: [("Authorization", "Basic !!!")]).status == 401)
      let bearer = try fetch(server.port, "/bearer", headers: [("Authorization", "Bearer abc")])
      #expect(try bearer.json()["token"] as? String == "abc")
      #expect(try fetch(server.port, "/bearer").status == 401)
    }
  }

  @Test func dripAndStall() throws {
    try withServer { server in
      let start = Date()
      let drip = try fetch(server.port, "/drip?bytes=3&interval=0.1&delay=0.1")
      #expect(drip.text == "***")
      #expect(drip.header("Content-Length") == "3")
      #expect(elapsed(since: start) >= 0.28)
      let connection = try RawConnection(port: server.port, timeout: 1)
      try connection.sendRequest("GET", "/stall?after=5")
      let head = try connection.readHead()
      #expect(head.header("Content-Length") == "1000000")
      #expect(try connection.readBytes(5) == Array("*****".utf8))
      #expect(throws: RawClientError.self) { try connection.readBytes(1) }  // nothing more arrives
    }
  }

  @Test func contentEndpoints() throws {
    try withServer { server in
      let latin1 = try fetch(server.port, "/text?charset=iso-8859-1")
      #expect(latin1.body == [0x63, 0x61, 0x66, 0xE9])
      #expect(latin1.header("Content-Type") == "text/plain; charset=iso-8859-1")
      #expect(try fetch(server.port, "/text").text == "café")
      let invalid = try fetch(server.port, "/json-invalid")
      #expect(invalid.text == #"{"a": 1,"#)
      #expect(invalid.header("Content-Type") == "application/json")
      let empty = try fetch(server.port, "/empty")
      #expect(empty.status == 200 && empty.body.isEmpty && empty.header("Content-Length") == "0")
      #expect(try fetch(server.port, "/space").text == " ")
      let escape = try fetch(server.port, "/escape").text
      #expect(escape.contains("\u{1b}[31mred\u{1b}[0m") && escape.contains("\u{07}") && escape.contains("\u{1b}]0;title\u{07}"))
      #expect(try fetch(server.port, "/html").header("Content-Type")?.hasPrefix("text/html") == true)
      #expect(try fetch(server.port, "/xml").text.hasPrefix("<?xml"))
      let cookies = try fetch(server.port, "/cookies/set?a=1&b=two")
      #expect(cookies.headers.filter { $0.name == "Set-Cookie" }.map(\.value) == ["a=1; Path=/", "b=two; Path=/"])
      let echoed = try fetch(server.port, "/cookies", headers: [("Cookie", "a=1; b=two")]).json()
      #expect(echoed["cookies"] as? [String: String] == ["a": "1", "b": "two"])
      let headers = try fetch(server.port, "/headers", headers: [("X-One", "1")]).json()
      #expect((headers["headers"] as? [String: String])?["X-One"] == "1")
    }
  }
}

@Suite("Demo users API")
struct DemoAPITests {
  @Test func loginThenMe() throws {
    try withServer { server in
      #expect(try fetch(server.port, "/me").status == 401)
      let wrong = try fetch(
        server.port, "POST", "/auth/login", headers: [("Content-Type", "application/json")],
        body: Array(#"{"user": "ada", "password": "nope"}"#.utf8))
      #expect(wrong.status == 401)
      #expect(try wrong.json()["error"] as? String != nil)
      let login = try fetch(
        server.port, "POST", "/auth/login", headers: [("Content-Type", "application/json")],
        body: Array(#"{"user": "ada", "password": "lovelace"}"#.utf8))
      #expect(login.status == 200)
      let json = try login.json()
      let token = try #require(json["token"] as? String)
      #expect(token.count >= 16)
      #expect((json["user"] as? [String: Any])?["name"] as? String == "Ada Lovelace")
      let me = try fetch(server.port, "/me", headers: [("Authorization", "Bearer \(token)")])
      #expect(me.status == 200)
      #expect(try me.json()["id"] as? Int == 1)
      #expect(try fetch(server.port, "/me", headers: [("Authorization", "Bearer forged")]).status == 401)
    }
  }

  /// The demo's OAuth 2.0: a client credentials token (client by Basic or in the form), the
  /// report it opens, and RFC 6749 §5.2's errors.
  @Test func oauthTokenThenReport() throws {
    try withServer { server in
      let form = [("Content-Type", "application/x-www-form-urlencoded")]
      #expect(try fetch(server.port, "/oauth/report").status == 401)
      let basic = "Basic " + Data("demo:demo-secret".utf8).base64EncodedString()
      let token = try fetch(
        server.port, "POST", "/oauth/token", headers: form + [("Authorization", basic)],
        body: Array("grant_type=client_credentials&scope=read+write".utf8))
      #expect(token.status == 200)
      let json = try token.json()
      let access = try #require(json["access_token"] as? String)
      #expect(json["token_type"] as? String == "Bearer" && json["expires_in"] as? Int == 3600)
      #expect(json["scope"] as? String == "read write")
      let report = try fetch(server.port, "/oauth/report", headers: [("Authorization", "Bearer \(access)")])
      #expect(report.status == 200)
      #expect(try report.json()["client"] as? String == "demo")
      #expect(try fetch(server.port, "/oauth/report", headers: [("Authorization", "Bearer forged")]).status == 401)
      // The client in the form; a wrong secret; another grant.
      let inBody = try fetch(
        server.port, "POST", "/oauth/token", headers: form,
        body: Array("grant_type=client_credentials&client_id=demo&client_secret=demo-secret".utf8))
      #expect(try inBody.json()["scope"] as? String == "read")
      // An audience is kept in the token and shown in the report.
      let audience = try fetch(
        server.port, "POST", "/oauth/token", headers: form + [("Authorization", basic)],
        body: Array("grant_type=client_credentials&audience=https%3A%2F%2Fapi.example%2F".utf8))
      let aud = try #require(try audience.json()["access_token"] as? String)
      let audReport = try fetch(server.port, "/oauth/report", headers: [("Authorization", "Bearer \(aud)")])
      #expect(try audReport.json()["audience"] as? String == "https://api.example/")
      #expect(try report.json()["audience"] == nil)
      let wrong = try fetch(
        server.port, "POST", "/oauth/token", headers: form,
        body: Array("grant_type=client_credentials&client_id=demo&client_secret=nope".utf8))
      #expect(wrong.status == 401)
      #expect(try wrong.json()["error"] as? String == "invalid_client")
      let password = try fetch(
        server.port, "POST", "/oauth/token", headers: form + [("Authorization", basic)],
        body: Array("grant_type=password&username=ada&password=lovelace".utf8))
      #expect(password.status == 400)
      #expect(try password.json()["error"] as? String == "unsupported_grant_type")
    }
  }

  @Test func usersCRUD() throws {
    try withServer { server in
      let list = try fetch(server.port, "/users").jsonArray()
      #expect(list.count == 5)
      #expect(Set(list[0].keys) == ["id", "name", "email", "role"])
      let missing = try fetch(server.port, "/users/9")
      #expect(missing.status == 404)
      #expect(try missing.json()["error"] as? String == "no user 9")
      let created = try fetch(server.port, "POST", "/users", body: Array(#"{"name": "Katherine Johnson"}"#.utf8))
      #expect(created.status == 201)
      let id = try #require(try created.json()["id"] as? Int)
      #expect(id == 6)
      #expect(try fetchJSON(server.port, "/users/\(id)")["name"] as? String == "Katherine Johnson")
      let patched = try fetch(server.port, "PATCH", "/users/\(id)", body: Array(#"{"role": "admin"}"#.utf8))
      #expect(patched.status == 204)
      #expect(try fetchJSON(server.port, "/users/\(id)")["role"] as? String == "admin")
      #expect(try fetch(server.port, "PUT", "/users/\(id)", body: Array(#"{"name": "K. Johnson"}"#.utf8)).status == 204)
      #expect(try fetchJSON(server.port, "/users/\(id)")["name"] as? String == "K. Johnson")
      #expect(try fetch(server.port, "DELETE", "/users/\(id)").status == 204)
      #expect(try fetch(server.port, "/users/\(id)").status == 404)
      #expect(try fetch(server.port, "POST", "/users", body: Array("{nope".utf8)).status == 400)
      #expect(try fetch(server.port, "POST", "/users", body: Array(#"{"email": "x"}"#.utf8)).status == 400)
      #expect(try fetch(server.port, "DELETE", "/users").status == 405)
    }
  }

  @Test func indexFlakyDemoAndFiles() throws {
    try withServer { server in
      let index = try fetchJSON(server.port, "/")
      #expect((index["endpoints"] as? [Any])?.isEmpty == false)
      #expect(try fetch(server.port, "/flaky-demo").status == 503)
      #expect(try fetch(server.port, "/flaky-demo").status == 200)
      #expect(try fetch(server.port, "/flaky-demo").status == 503)
      #expect(try fetchJSON(server.port, "/files/small.json")["name"] as? String == "small.json")
      let big = try fetch(server.port, "HEAD", "/files/big.bin")
      #expect(big.header("Content-Length") == "52428800")
      let part = try fetch(server.port, "/files/big.bin?size=100", headers: [("Range", "bytes=90-")])
      #expect(part.status == 206)
      #expect(part.body.count == 10)
    }
  }
}

@Suite("Building blocks")
struct UnitTests {
  @Test func sha256KnownVectors() {
    #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
    #expect(SHA256.hex(long) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    // Incremental updates in odd pieces give the same digest.
    var hasher = SHA256()
    let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
    var offset = 0
    for size in [1, 63, 64, 65, 1000, 99_999] + Array(repeating: 100_000, count: 10) where offset < million.count {
      let end = min(million.count, offset + size)
      hasher.update(Array(million[offset..<end]))
      offset = end
    }
    hasher.update(Array(million[offset...]))
    #expect(hexString(hasher.finalize()) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
  }

  // The server writes the project's one JSON value (the JSON target): what it builds reads back
  // through the project's parser, members in order, numbers as written, NaN as null.
  @Test func theServersAnswersReadBackThroughTheProjectsParser() throws {
    let value = JSONValue.obj([
      "a": .array([.int(1), .double(-2.5), .bool(true), .null, .string("x\"é😀\n\u{1}")]), "b": .obj([:]),
      "c": .array([]), "nan": .double(.nan),
    ])
    let pretty = value.serialized()
    #expect(pretty.last == 0x0a)
    let back = try JSONParser.parse(pretty)
    #expect(back["a"] == .array([.number(1), .number("-2.5"), .bool(true), .null, .string("x\"é😀\n\u{1}")]))
    #expect(back.objectValue?.keys == ["a", "b", "c", "nan"])
    #expect(back["nan"] == .null)
    #expect(try JSONParser.parse(value.compact()) == back)
    #expect(!value.compact().contains(0x0a))
  }

  @Test func rangeParsing() {
    #expect(ByteRange(header: "bytes=0-", size: 10) == .partial(start: 0, end: 9))
    #expect(ByteRange(header: "bytes=2-4", size: 10) == .partial(start: 2, end: 4))
    #expect(ByteRange(header: "bytes=-3", size: 10) == .partial(start: 7, end: 9))
    #expect(ByteRange(header: "bytes=-30", size: 10) == .partial(start: 0, end: 9))
    #expect(ByteRange(header: "bytes=10-", size: 10) == .unsatisfiable)
    #expect(ByteRange(header: "bytes=0-", size: 0) == .unsatisfiable)
    #expect(ByteRange(header: "bytes=5-2", size: 10) == .full)
    #expect(ByteRange(header: "bytes=a-b", size: 10) == .full)
    #expect(ByteRange(header: "bytes=99999999999999999999-", size: 10) == .unsatisfiable)
  }

  @Test func percentDecoding() {
    #expect(percentDecode("a%20b+c", plusAsSpace: true) == "a b c")
    #expect(percentDecode("100%", plusAsSpace: false) == "100%")
    #expect(percentDecode("%zz%4", plusAsSpace: false) == "%zz%4")
    #expect(percentDecode("%C3%A9", plusAsSpace: false) == "é")
  }
}
