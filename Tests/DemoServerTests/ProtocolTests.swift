import Foundation
import Testing

@testable import DemoServer

/// Runs `body` against a fresh server on a free port, stopped afterwards.
func withServer<T>(_ body: (DemoServer) throws -> T) throws -> T {
  let server = try DemoServer(port: 0)
  server.start()
  defer { server.stop() }
  return try body(server)
}

@Suite("HTTP/1.1 protocol")
struct ProtocolTests {
  @Test func echoReportsTheRequest() throws {
    try withServer { server in
      let body = Array("hello".utf8)
      let response = try fetch(
        server.port, "POST", "/anything/a%20b?x=1&y=a%20b&x=2&plus=c+d",
        headers: [("X-Dup", "one"), ("Content-Type", "text/plain"), ("x-dup", "two")], body: body)
      #expect(response.status == 200)
      #expect(response.header("Content-Type") == "application/json")
      #expect(response.header("Content-Length") == String(response.body.count))
      let echo = try response.json()
      #expect(echo["method"] as? String == "POST")
      #expect(echo["path"] as? String == "/anything/a%20b")
      #expect(echo["target"] as? String == "/anything/a%20b?x=1&y=a%20b&x=2&plus=c+d")
      #expect(echo["rawQuery"] as? String == "x=1&y=a%20b&x=2&plus=c+d")
      #expect(echo["query"] as? [String: String] == ["x": "2", "y": "a b", "plus": "c d"])
      let headers = try #require(echo["headers"] as? [String: String])
      #expect(headers["X-Dup"] == "one, two")
      #expect(headers["x-dup"] == nil)
      #expect(headers["Content-Type"] == "text/plain")
      #expect(echo["body"] as? String == "hello")
      #expect(echo["bodyLength"] as? Int == 5)
      #expect(echo["bodySha256"] as? String == "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824")
    }
  }

  @Test func getEchoesAndBodyIsLossyUTF8() throws {
    try withServer { server in
      let echo = try fetch(server.port, "PUT", "/get", body: [0x61, 0xff, 0x62]).json()
      #expect(echo["body"] as? String == "a\u{FFFD}b")
      #expect(echo["bodyLength"] as? Int == 3)
    }
  }

  @Test func absoluteFormTargetAsAProxy() throws {
    try withServer { server in
      let echo = try fetchJSON(server.port, "http://reqbench.invalid/anything/p?q=1")
      #expect(echo["target"] as? String == "http://reqbench.invalid/anything/p?q=1")
      #expect(echo["path"] as? String == "/anything/p")
      #expect(echo["query"] as? [String: String] == ["q": "1"])
    }
  }

  @Test func keepAliveServesTwoRequestsOnOneConnection() throws {
    try withServer { server in
      let connection = try RawConnection(port: server.port)
      try connection.sendRequest("GET", "/get?n=1")
      let first = try connection.readResponse()
      #expect(first.status == 200)
      #expect(first.header("Connection") == nil)
      try connection.sendRequest("POST", "/anything?n=2", body: Array("xyz".utf8))
      let second = try connection.readResponse()
      #expect(try second.json()["bodyLength"] as? Int == 3)
      // Pipelined: two requests in one write, answered in order.
      try connection.send(
        "GET /status/201 HTTP/1.1\r\nHost: x\r\n\r\nGET /status/202 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
      #expect(try connection.readResponse().status == 201)
      let last = try connection.readResponse()
      #expect(last.status == 202)
      #expect(last.header("Connection") == "close")
      #expect(connection.isClosedByServer())
    }
  }

  @Test func http10ClosesUnlessKeepAlive() throws {
    try withServer { server in
      let connection = try RawConnection(port: server.port)
      try connection.send("GET /get HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
      let first = try connection.readResponse()
      #expect(first.header("Connection") == "keep-alive")
      try connection.send("GET /get HTTP/1.0\r\n\r\n")
      #expect(try connection.readResponse().status == 200)
      #expect(connection.isClosedByServer())
    }
  }

  @Test func expect100ContinueGetsAnInterimResponseBeforeTheBody() throws {
    try withServer { server in
      let connection = try RawConnection(port: server.port)
      try connection.send(
        "POST /anything HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
      let interim = try connection.readHead()
      #expect(interim.status == 100)
      try connection.send("body")
      let final = try connection.readResponse()
      #expect(final.status == 200)
      #expect(try final.json()["body"] as? String == "body")
    }
  }

  @Test func chunkedRequestBody() throws {
    try withServer { server in
      let connection = try RawConnection(port: server.port)
      try connection.send(
        "POST /anything HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
          + "5;ext=1\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nTrailer: x\r\n\r\n")
      let echo = try connection.readResponse().json()
      #expect(echo["body"] as? String == "hello world")
      #expect(echo["bodyLength"] as? Int == 11)
      // The connection stays usable after a chunked body.
      try connection.sendRequest("GET", "/status/200")
      #expect(try connection.readResponse().text == "status 200")
    }
  }

  @Test(arguments: [
    "GARBAGE\r\n\r\n",
    "GET / HTTP/1.1\r\n\r\n",  // no Host
    "GET  / HTTP/1.1\r\nHost: x\r\n\r\n",
    "GET / HTTP/1.1\r\nHost: x\r\nBad Name: y\r\n\r\n",
    "GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n",
    "GET nowhere HTTP/1.1\r\nHost: x\r\n\r\n",
    "POST /anything HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n",
    "POST /anything HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
    "POST /anything HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
    "POST /anything HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    "POST /anything HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n0\r\n\r\n",
    "GET /a\u{0}b HTTP/1.1\r\nHost: x\r\n\r\n",
    "GET / HTTP/1.1\r\nHost: x\r\nX: a\rb\r\n\r\n",
  ])
  func malformedRequestsGet400(request: String) throws {
    try withServer { server in
      let connection = try RawConnection(port: server.port)
      try connection.send(request)
      let response = try connection.readResponse()
      #expect(response.status == 400, "\(response.text)")
      #expect(response.header("Connection") == "close")
      #expect(connection.isClosedByServer())
      #expect(try fetch(server.port, "/status/200").status == 200)
    }
  }

  @Test func oversizedHeadAndOtherRefusals() throws {
    try withServer { server in
      let huge = try RawConnection(port: server.port)
      try huge.send("GET / HTTP/1.1\r\nHost: x\r\nX: \(String(repeating: "a", count: 70_000))\r\n\r\n")
      #expect(try huge.readResponse().status == 431)
      let http2 = try RawConnection(port: server.port)
      try http2.send("GET / HTTP/2.0\r\nHost: x\r\n\r\n")
      #expect(try http2.readResponse().status == 505)
      let expect = try RawConnection(port: server.port)
      try expect.send("GET / HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\n\r\n")
      #expect(try expect.readResponse().status == 417)
      #expect(try fetch(server.port, "/nope").status == 404)
    }
  }

  @Test func headerInjectionIsNeutralised() throws {
    try withServer { server in
      let response = try fetch(server.port, "/redirect-to?url=/x%0d%0aSet-Cookie:%20a=b&status=301")
      #expect(response.status == 301)
      #expect(response.header("Set-Cookie") == nil)
      #expect(response.header("Location") == "/x Set-Cookie: a=b")
    }
  }

  @Test func clientsThatDisconnectDoNotHurtTheServer() throws {
    try withServer { server in
      for _ in 0..<5 {
        let connection = try RawConnection(port: server.port)
        try connection.sendRequest("GET", "/bytes/50000000")
        _ = try connection.readBytes(1000)
      }  // closed with unread data: the server's sends fail with EPIPE/ECONNRESET
      let half = try RawConnection(port: server.port)
      try half.send("POST /anything HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc")
      let idle = try RawConnection(port: server.port)
      try idle.send("GET /delay/5 HTTP/1.1\r\nHost: x\r\n\r\n")
      _ = (half, idle)
      #expect(try fetch(server.port, "/status/200").status == 200)
    }
  }

  @Test func stopClosesTheListenerAndConnectionsPromptly() throws {
    let server = try DemoServer(port: 0)
    server.start()
    let port = server.port
    #expect(server.baseURL == "http://127.0.0.1:\(port)")
    let stalled = try RawConnection(port: port)
    try stalled.sendRequest("GET", "/stall?after=10")
    let head = try stalled.readHead()
    #expect(head.header("Content-Length") == "1000000")
    #expect(try stalled.readBytes(10).count == 10)
    let idle = try RawConnection(port: port)
    let started = Date()
    server.stop()
    #expect(elapsed(since: started) < 1)
    #expect(stalled.isClosedByServer())
    #expect(idle.isClosedByServer())
    #expect(throws: RawClientError.self) { try RawConnection(port: port) }
    server.stop()  // idempotent
  }

  @Test func aTakenPortIsAClearError() throws {
    try withServer { server in
      #expect(throws: DemoServerError.portInUse(server.port)) { try DemoServer(port: server.port) }
      let message = String(describing: DemoServerError.portInUse(server.port))
      #expect(message.contains("address already in use"))
      #expect(throws: DemoServerError.invalidPort(70000)) { try DemoServer(port: 70000) }
    }
  }

  @Test func headHasLengthButNoBody() throws {
    try withServer { server in
      let connection = try RawConnection(port: server.port)
      try connection.sendRequest("HEAD", "/bytes/1000")
      let head = try connection.readResponse(headOnly: true)
      #expect(head.status == 200)
      #expect(head.header("Content-Length") == "1000")
      try connection.sendRequest("GET", "/status/200")
      #expect(try connection.readResponse().text == "status 200")  // no stray body bytes in between
    }
  }
}
