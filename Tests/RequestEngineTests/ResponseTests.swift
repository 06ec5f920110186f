import Foundation
import RequestEngine
import TestSupport
import Testing

@Suite("Responses, redirects, errors")
struct ResponseTests {
  let agent = Agent()

  @Test func recordsStatusHeadersTimingAndVersion() throws {
    let result = agent.sendAndWait(Request(url: try nginx("/1k.bin")))
    let response = try #require(result.response)
    #expect(result.state == .succeeded)
    #expect(response.status == 200)
    #expect(response.httpVersion == "HTTP/1.1")
    #expect(response.body.count == 1024)
    #expect(response.headers["ETag"] != nil)
    let t = response.timing
    #expect(t.dns <= t.connect && t.connect <= t.firstByte && t.firstByte <= t.total)
    #expect(t.total > 0)
    #expect(result.duration > 0)
    #expect(result.attempts == 1)
  }

  // Redirects are followed; the final URL and the count are reported.
  @Test func followsRedirectsAndCountsThem() throws {
    let result = agent.sendAndWait(Request(url: try httpbin("/redirect/3")))
    #expect(result.state == .succeeded)
    #expect(result.response?.redirectCount == 3)
    #expect(result.response?.effectiveURL == (try httpbin("/get")))
  }

  // The fixture's /redirect/N makes N hops, as httpbin's does.
  @Test func fixtureRedirectsMakeNHops() throws {
    let result = agent.sendAndWait(Request(url: try fixture("/redirect/3")))
    #expect(result.state == .succeeded)
    #expect(result.response?.redirectCount == 3)
    #expect(result.response?.effectiveURL == (try fixture("/get")))
  }

  // The default limit is 10 redirects: ten are followed, the eleventh fails.
  @Test func defaultRedirectLimitIsTen() throws {
    let ten = agent.sendAndWait(Request(url: try httpbin("/redirect/10")))
    #expect(ten.state == .succeeded, "\(ten.error?.message ?? "")")
    #expect(ten.response?.redirectCount == 10)
    let eleven = agent.sendAndWait(Request(url: try httpbin("/redirect/11")))
    #expect(eleven.state == .failed)
    #expect(eleven.error?.transport == .tooManyRedirects)
    #expect(eleven.error?.message.hasPrefix("too many redirects") == true)
  }

  @Test func tooManyRedirects() throws {
    let result = agent.sendAndWait(Request(url: try httpbin("/redirect/3"), maxRedirects: 2))
    #expect(result.state == .failed)
    #expect(result.error?.kind == .transport)
    #expect(result.error?.transport == .tooManyRedirects)
    #expect(result.error?.message.hasPrefix("too many redirects") == true)
  }

  /// curl's message quotes the host name; with a secret in it, the `retrying` reason and the
  /// result's error (what the CLI, the TUI and history show) have it masked. `*.localhost`
  /// resolves to the loopback address inside curl (no DNS) and port 1 is closed.
  @Test func errorsHaveTheRequestsSecretsMasked() throws {
    let agent = Agent()
    defer { agent.shutdown() }
    let recorder = EventRecorder(agent)
    let secret = "s3cret" + uniqueKey().lowercased()
    let result = agent.sendAndWait(
      Request(
        url: "http://zz\(secret)zz.localhost:1/x", retry: RetryPolicy(max: 1, baseDelay: 0),
        secrets: [secret]))
    #expect(result.state == .failed)
    #expect(result.error?.transport == .cannotConnect)
    #expect(result.error?.message.contains("zz••••zz.localhost") == true, "\(String(describing: result.error))")
    let reasons = recorder.all.compactMap { if case .retrying(_, _, _, let reason) = $0 { reason } else { nil } }
    #expect(reasons.count == 1)
    #expect(reasons.first?.message.contains("zz••••zz.localhost") == true)
    #expect(!(reasons + [result.error].compactMap { $0 }).contains { $0.message.contains(secret) })
    // The request itself is not changed: it is what was sent.
    #expect(result.request.url.contains(secret))
  }

  // A redirect not followed is delivered, and is a success (as curl
  // without -L) unless the request's own `validate.status` says otherwise.
  @Test func notFollowingDeliversTheRedirect() throws {
    let result = agent.sendAndWait(Request(url: try fixture("/redirect/2"), followRedirects: false))
    #expect(result.state == .succeeded)
    #expect(result.response?.status == 302)
    #expect(result.response?.headers["Location"] == "/redirect/1")
    let allowed = agent.sendAndWait(
      Request(url: try fixture("/redirect/1"), validation: Validation(status: [200...399]), followRedirects: false))
    #expect(allowed.state == .succeeded)
  }

  // The body stays available on a status failure.
  @Test func statusFailureKeepsTheBody() throws {
    let result = agent.sendAndWait(Request(url: try fixture("/status/500")))
    #expect(result.state == .failed)
    #expect(result.error?.message == "status 500 is outside 200-299")
    #expect(result.text == "status 500")
  }

  @Test func jsonShapeFailureAgainstARealServer() throws {
    let validation = Validation(json: try JSONShape(["id": "number", "name": "number"]))
    let result = agent.sendAndWait(Request(url: try fixture("/users/1"), validation: validation))
    #expect(result.state == .failed)
    #expect(result.error?.kind == .validation)
    #expect(result.error?.message == "$.name: expected number, got string")
  }

  @Test func tlsIsVerifiedByDefault() throws {
    let result = agent.sendAndWait(Request(url: try TestServer.nginxTLS.url("/1k.bin")))
    #expect(result.state == .failed)
    #expect(result.error?.transport == .certificateNotTrusted)
    #expect(result.error?.message.hasPrefix("certificate not trusted") == true)
  }

  @Test func insecureSkipsVerificationAndHTTP2IsNegotiated() throws {
    let result = agent.sendAndWait(Request(url: try TestServer.nginxTLS.url("/1k.bin"), insecure: true))
    #expect(result.state == .succeeded)
    #expect(result.response?.httpVersion == "HTTP/2")
    #expect(result.response?.body.count == 1024)
    let t = try #require(result.response?.timing)
    #expect(t.connect <= t.tls && t.tls <= t.firstByte && t.firstByte <= t.total)
    #expect(t.tls > 0)
  }

  @Test func cannotConnectSaysSo() {
    let result = agent.sendAndWait(Request(url: "http://127.0.0.1:1/x"))
    #expect(result.state == .failed)
    #expect(result.error?.transport == .cannotConnect)
    #expect(result.error?.message.hasPrefix("cannot connect") == true)
    #expect(result.response == nil)
  }

  @Test func connectionDroppedMidBodyIsConnectionLost() throws {
    let result = agent.sendAndWait(Request(url: try fixture("/bytes/100000?close_at=30")))
    #expect(result.state == .failed)
    #expect(result.error?.transport == .connectionLost)
  }

  @Test func largeBodiesSpillToATemporaryFile() throws {
    let small = Agent(configuration: .init(memoryBodyLimit: 1 << 20))
    defer { small.shutdown() }
    let result = small.sendAndWait(Request(url: try nginx("/10m.bin")))
    let body = try #require(result.response?.body)
    guard case .file(let file) = body else {
      Issue.record("expected a spilled body")
      return
    }
    #expect(file.size == 10_485_760)
    #expect(try body.bytes().count == 10_485_760)
    #expect(body.prefix(10).count == 10)
  }

  /// A body of unknown length past 1 MB kept in memory (it gets room up to the memory limit at
  /// once, not by doubling) comes out whole: the same bytes as the same body spilled to a file.
  @Test func largeChunkedBodiesInMemoryAreWhole() throws {
    let url = try fixture("/bytes/3000001?chunked=1&seed=5")
    let kept = agent.sendAndWait(Request(url: url))
    let keptBody = try #require(kept.response?.body)
    guard case .memory(let bytes) = keptBody else {
      Issue.record("expected a body in memory (the limit is 16 MB)")
      return
    }
    #expect(kept.response?.headers["Content-Length"] == nil)
    #expect(bytes.count == 3_000_001)
    let small = Agent(configuration: .init(memoryBodyLimit: 1 << 20))
    defer { small.shutdown() }
    let spilled = try #require(small.sendAndWait(Request(url: url)).response?.body)
    guard case .file = spilled else {
      Issue.record("expected a spilled body")
      return
    }
    #expect(try spilled.bytes() == bytes)
  }

  @Test func eventsArriveInOrder() throws {
    let recorder = EventRecorder(agent)
    let id = agent.send(Request(url: try fixture("/bytes/200000")))
    #expect(recorder.waitForFinished(count: 1))
    let kinds = recorder.all.filter { $0.exchangeID == id }.map { event -> String in
      switch event {
      case .queued: "queued"
      case .joined: "joined"
      case .started: "started"
      case .headers: "headers"
      case .progress: "progress"
      case .retrying: "retrying"
      case .delivered: "delivered"
      case .streamEvents: "stream"
      case .reconnecting: "reconnecting"
      case .paused: "paused"
      case .resumed: "resumed"
      case .finished: "finished"
      }
    }
    #expect(Array(kinds.prefix(3)) == ["queued", "started", "headers"])
    #expect(kinds.last == "finished")
    #expect(kinds.filter { $0 == "finished" }.count == 1)
  }
}

@Suite("Timeouts", .serialized)
struct TimeoutTests {
  let agent = Agent()

  // Idle semantics: a trickle of one byte every 2 s survives a 5 s idle timeout, for about
  // 10 s in all: twice the idle window, so a timeout counted from the start would have cut it.
  @Test func trickleSurvivesIdleTimeout() throws {
    let start = Date()
    let result = agent.sendAndWait(
      Request(url: try fixture("/drip?bytes=6&interval=2"), timeouts: Timeouts(idle: 5)))
    let elapsed = Date().timeIntervalSince(start)
    #expect(result.state == .succeeded, "\(result.error?.message ?? "")")
    #expect(result.text == "******")
    #expect(elapsed > 9, "the trickle lasted only \(elapsed) s")
  }

  // Silence longer than the idle timeout fails with "timed out".
  @Test func silenceFailsWithTimedOut() throws {
    let start = Date()
    let result = agent.sendAndWait(Request(url: try fixture("/delay/5"), timeouts: Timeouts(idle: 1)))
    let elapsed = Date().timeIntervalSince(start)
    #expect(result.state == .failed)
    #expect(result.error?.transport == .timedOut)
    #expect(result.error?.message == "timed out: no data for 1 s")
    #expect(elapsed >= 0.9 && elapsed < 3)
  }

  @Test func stallMidBodyFailsAfterTheIdleWindow() throws {
    let result = agent.sendAndWait(Request(url: try fixture("/stall?after=1000"), timeouts: Timeouts(idle: 1)))
    #expect(result.error?.transport == .timedOut)
  }

  // A total deadline cuts even a steady trickle.
  @Test func deadlineBoundsTheWholeExchange() throws {
    let start = Date()
    let result = agent.sendAndWait(
      Request(url: try fixture("/drip?bytes=10&interval=0.5"), timeouts: Timeouts(idle: 5, deadline: 2)))
    let elapsed = Date().timeIntervalSince(start)
    #expect(result.state == .failed)
    #expect(result.error?.transport == .timedOut)
    #expect(abs(elapsed - 2) < 0.6)
  }
}
