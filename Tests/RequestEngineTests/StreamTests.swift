import Foundation
import RequestEngine
import TestSupport
import Testing

/// Streamed responses through the agent: events as they arrive from a real SSE server
/// no one here wrote (sse-starlette under uvicorn) and from the fixture's byte-level streams
/// (`/sse/ticker`, `/sse/chat`, `/ndjson`): recognition, bounded memory, idle timeouts between
/// bytes, reconnect with `Last-Event-ID`, cancel mid-stream.
@Suite("Streams")
struct StreamTests {
  static func sse(_ path: String) throws -> String { try TestServer.sse.url(path) }

  static func events(_ result: ExchangeResult) -> [StreamEvent] { result.stream.map { Array($0.kept) } ?? [] }

  static func streamEvents(_ events: [AgentEvent]) -> [StreamEvent] {
    events.flatMap { event -> [StreamEvent] in
      if case .streamEvents(_, let batch) = event { batch } else { [] }
    }
  }

  @Test func sseStarletteEventsArriveAsEventsWithTheirIDs() throws {
    let agent = Agent()
    defer { agent.shutdown() }
    let recorder = EventRecorder(agent)
    let result = agent.sendAndWait(Request(url: try Self.sse("/events?count=5&interval=0.05")))
    #expect(result.state == .succeeded, "\(result.error?.message ?? "")")
    let streamed = Self.streamEvents(recorder.all)
    #expect(streamed.map(\.data) == (1...5).map { "{\"tick\": \($0)}" })
    #expect(streamed.map(\.id) == (1...5).map { String($0) })
    #expect(streamed.map(\.type) == Array(repeating: "tick", count: 5))
    #expect(streamed.map(\.index) == Array(0..<5))
    #expect(Self.events(result).map(\.data) == streamed.map(\.data))
    #expect(result.stream?.format == .sse)
    #expect(result.stream?.total == 5)
    #expect(result.stream?.lastEventID == "5")
    // Every stream event comes before the end, in order.
    let kinds = recorder.all.map { event -> String in
      switch event {
      case .streamEvents(_, let batch): String(repeating: "e", count: batch.count)
      case .finished: "f"
      default: ""
      }
    }.joined()
    #expect(kinds == "eeeeef")
    // The whole stream is still the body.
    #expect(result.text.contains("data: {\"tick\": 5}\r\n"))
  }

  @Test func multiLineDataAndTypesFromSSEStarlette() throws {
    let agent = Agent()
    defer { agent.shutdown() }
    let result = agent.sendAndWait(Request(url: try Self.sse("/multiline")))
    let events = Self.events(result)
    #expect(events.map(\.data) == ["line one\nline two\nline three", "typed"])
    #expect(events.map(\.type) == ["message", "update"])
    #expect(events.map(\.id) == [nil, "42"])
  }

  @Test func aPOSTChatStreamTokenByToken() throws {
    let agent = Agent()
    defer { agent.shutdown() }
    for url in [try Self.sse("/chat"), try fixture("/sse/chat?interval=0.01")] {
      let result = agent.sendAndWait(
        Request(method: .POST, url: url, body: .json(.object(JSONObject([("prompt", .string("hi"))])))))
      let events = Self.events(result)
      #expect(events.count > 5, "\(url)")
      #expect(events.last?.data == "[DONE]")
      let tokens = try events.dropLast().map { event -> String in
        let value = try JSONParser.parse(Array(event.data.utf8))
        guard case .array(let choices)? = value["choices"], case .string(let token)? = choices.first?["delta"]?["content"]
        else { return "?" }
        return token
      }
      #expect(tokens.joined().hasPrefix("You said: hi."), "\(url): \(tokens)")
    }
  }

  @Test func eventsArriveWhileTheStreamRuns() throws {
    let agent = Agent()
    defer { agent.shutdown() }
    let recorder = EventRecorder(agent)
    let result = agent.sendAndWait(Request(url: try fixture("/sse/ticker?count=4&interval=0.3")))
    #expect(result.state == .succeeded)
    let timed = recorder.timed.flatMap { item -> [(Double, StreamEvent)] in
      if case .streamEvents(_, let batch) = item.event { batch.map { (item.time, $0) } } else { [] }
    }
    #expect(timed.count == 4)
    let finishedAt = recorder.timed.first { if case .finished = $0.event { true } else { false } }?.time ?? 0
    // The first event was handed out about 0.9 s before the end, not with it.
    #expect(finishedAt - (timed.first?.0 ?? finishedAt) > 0.6)
    // Each event carries when it arrived, from the exchange's start.
    let seconds = timed.map(\.1.seconds)
    #expect(seconds == seconds.sorted())
    #expect((seconds.last ?? 0) - (seconds.first ?? 0) > 0.6)
  }

  @Test(arguments: ["cr", "crlf", "lf"]) func lineEndsAndABOMFromTheFixture(_ eol: String) throws {
    let agent = Agent()
    defer { agent.shutdown() }
    let result = agent.sendAndWait(Request(url: try fixture("/sse/ticker?count=3&interval=0&eol=\(eol)&bom=1&retry=1500")))
    #expect(Self.events(result).map(\.data) == (1...3).map { "{\"tick\":\($0)}" })
    #expect(Self.events(result).map(\.id) == ["1", "2", "3"])
  }

  @Test func ndjsonAndForcedLines() throws {
    let agent = Agent()
    defer { agent.shutdown() }
    let feed = agent.sendAndWait(Request(url: try fixture("/ndjson?count=3&interval=0.05")))
    #expect(feed.stream?.format == .ndjson)
    #expect(Self.events(feed).map(\.data).first == #"{"n":1,"level":"info","message":"line 1"}"#)
    #expect(Self.events(feed).count == 3)
    // The fixture's /trickle is text/plain: a stream only when the request says so.
    var plain = Request(url: try fixture("/text"))
    #expect(agent.sendAndWait(plain).stream == nil)
    plain.stream = .lines
    let lines = agent.sendAndWait(plain)
    #expect(lines.stream?.format == .lines)
    #expect((lines.stream?.total ?? 0) >= 1)
  }

  @Test func aOneMegabyteEvent() throws {
    let agent = Agent()
    defer { agent.shutdown() }
    let result = agent.sendAndWait(Request(url: try fixture("/sse/ticker?count=2&interval=0&size=1048576")))
    let events = Self.events(result)
    #expect(events.count == 2)
    #expect(events.map { $0.data.utf8.count } == [1_048_576 + 19, 1_048_576 + 19])
    #expect(events.allSatisfy { !$0.truncated })
  }

  /// 100,000 events: the agent keeps the last ones within its budget, counts them all, and the
  /// body (spilled to its file) holds the whole stream.
  @Test func aHundredThousandEventsStayWithinTheBudget() throws {
    var configuration = Agent.Configuration()
    configuration.streamMaxEvents = 1_000
    configuration.streamMaxBytes = 64 << 10
    configuration.memoryBodyLimit = 1 << 20
    let agent = Agent(configuration: configuration)
    defer { agent.shutdown() }
    let result = agent.sendAndWait(Request(url: try fixture("/sse/ticker?count=100000&interval=0")))
    #expect(result.state == .succeeded, "\(result.error?.message ?? "")")
    let stream = try #require(result.stream)
    #expect(stream.total == 100_000)
    #expect(stream.kept.count <= 1_000)
    #expect(stream.keptBytes <= 64 << 10)
    #expect(stream.kept.last?.data == "{\"tick\":100000}")
    #expect(stream.kept.last?.index == 99_999)
    guard case .file(let file)? = result.response?.body else {
      Issue.record("the body was not spilled")
      return
    }
    #expect(file.size == stream.totalBytes)
  }

  /// A stream keeps at most 1 MB of its body in memory, whatever the memory limit (16 MB here):
  /// past that the body goes to its file, and the file holds every byte.
  @Test func aStreamPastOneMegabyteGoesToItsFile() throws {
    let agent = Agent()
    defer { agent.shutdown() }
    #expect(agent.configuration.memoryBodyLimit == 16 << 20)
    let result = agent.sendAndWait(Request(url: try fixture("/sse/ticker?count=30000&interval=0")))
    #expect(result.state == .succeeded, "\(result.error?.message ?? "")")
    let stream = try #require(result.stream)
    #expect(stream.totalBytes > 1 << 20)
    guard case .file(let file)? = result.response?.body else {
      Issue.record("the stream's body stayed in memory")
      return
    }
    #expect(file.size == stream.totalBytes)
    let bytes = try #require(try result.response?.body.bytes())
    #expect(bytes.starts(with: Array("event: tick\nid: 1\ndata: {\"tick\":1}\n\n".utf8)))
    #expect(String(decoding: bytes.suffix(40), as: UTF8.self).hasSuffix("data: {\"tick\":30000}\n\n"))
  }

  @Test(arguments: ["fixture", "sse-starlette"]) func aDropReconnectsWithLastEventID(_ server: String) throws {
    let agent = Agent()
    defer { agent.shutdown() }
    let recorder = EventRecorder(agent)
    var request = Request(
      url: server == "fixture"
        ? try fixture("/sse/ticker?count=6&interval=0&drop_after=2&retry=400")
        : try Self.sse("/events?count=6&end_after=2&retry=400"))
    request.reconnect = true
    let id = agent.send(request)
    let all6 = recorder.wait(timeout: 20) { Self.streamEvents($0).count >= 6 }
    agent.cancel(id)
    #expect(all6)
    #expect(recorder.waitForFinished(count: 1))
    let result = try #require(recorder.finished.first)
    // No event twice, none missing: each connection went on after the last id seen.
    let ids = Self.streamEvents(recorder.all).map(\.id)
    #expect(Array(ids.prefix(6)) == ["1", "2", "3", "4", "5", "6"])
    #expect(Self.streamEvents(recorder.all).map(\.index).prefix(6) == [0, 1, 2, 3, 4, 5])
    let reconnects = recorder.all.compactMap { if case .reconnecting(_, let count, let delay, _) = $0 { (count, delay) } else { nil } }
    #expect(reconnects.count >= 2)
    #expect(reconnects.first.map { $0.0 } == 1)
    #expect(reconnects.first.map { $0.1 } == 0.4)  // the server's retry: 400
    #expect(result.state == .cancelled)
    #expect((result.stream?.reconnects ?? 0) >= 2)
    #expect(result.stream?.lastEventID == "6")
    #expect(result.sent?.headers["Last-Event-ID"] != nil)
  }

  /// A fast stream's events come in `streamEvents` batches (those one write of the body
  /// completed), not one agent event each: none empty, every event once, in order.
  @Test func aFastStreamIsHandedOverInBatchesInOrder() throws {
    let agent = Agent()
    defer { agent.shutdown() }
    let recorder = EventRecorder(agent)
    let result = agent.sendAndWait(Request(url: try fixture("/sse/ticker?count=20000&interval=0")))
    #expect(result.state == .succeeded, "\(result.error?.message ?? "")")
    let batches = recorder.all.compactMap { if case .streamEvents(_, let batch) = $0 { batch } else { nil } }
    #expect(batches.allSatisfy { !$0.isEmpty })
    #expect(batches.count < 20_000 / 10, "\(batches.count) hand-overs")
    let streamed = batches.flatMap { $0 }
    #expect(streamed.map(\.index) == Array(0..<20_000))
    #expect(streamed.last?.data == "{\"tick\":20000}")
    #expect(result.stream?.total == 20_000)
  }

  @Test func theReconnectWaitHasAFloorAndBacksOffAfterEmptyDrops() {
    #expect(ReconnectDelay.seconds(asked: 0, emptyDrops: 1) == 0.25)
    #expect(ReconnectDelay.seconds(asked: 3, emptyDrops: 0) == 3)
    #expect((1...6).map { ReconnectDelay.seconds(asked: 0, emptyDrops: $0) } == [0.25, 0.5, 1, 2, 4, 8])
    #expect(ReconnectDelay.seconds(asked: 0, emptyDrops: 1000) == 30)
    // A server's longer retry is kept, backoff or not.
    #expect(ReconnectDelay.seconds(asked: 60, emptyDrops: 5) == 60)
    #expect(ReconnectDelay.seconds(asked: .infinity, emptyDrops: 1) == 0.25)
  }

  // A stream that asks for `retry: 0` and ends before any event: a few connections, not
  // thousands, before its deadline (the floor, then the backoff).
  @Test func aStreamThatDropsAtOnceWithRetryZeroDoesNotStorm() throws {
    let agent = Agent()
    defer { agent.shutdown() }
    let recorder = EventRecorder(agent)
    let key = uniqueKey()
    var request = Request(url: try fixture("/sse/ticker?retry=0&empty=1&key=\(key)"))
    request.reconnect = true
    request.timeouts.deadline = 3
    let result = agent.sendAndWait(request)
    #expect(result.state == .failed || result.state == .succeeded)
    let delays = recorder.all.compactMap { if case .reconnecting(_, _, let delay, _) = $0 { delay } else { nil } }
    #expect(delays.first == 0.25)
    #expect(delays == delays.sorted(), "each wait at least the one before: \(delays)")
    // 0.25 + 0.5 + 1 s fit in 3 s, then 2 s more does not.
    let connections = try hits(key)
    #expect(connections <= 5 && connections >= 3, "connections: \(connections)")
  }

  @Test func withoutReconnectADropEndsTheExchange() throws {
    let agent = Agent()
    defer { agent.shutdown() }
    let result = agent.sendAndWait(Request(url: try fixture("/sse/ticker?count=6&interval=0&drop_after=2")))
    #expect(result.stream?.total == 2)
    #expect(result.state == .failed)
    #expect(result.stream?.reconnects == 0)
  }

  @Test func heartbeatsKeepAQuietStreamPastTheIdleTimeout() throws {
    let agent = Agent()
    defer { agent.shutdown() }
    // Events 1.5 s apart, a comment every 0.3 s, an idle timeout of 1 s: it lives.
    let kept = agent.sendAndWait(
      Request(url: try fixture("/sse/ticker?count=2&interval=1.5&heartbeat=0.3"), timeouts: Timeouts(idle: 1)))
    #expect(kept.state == .succeeded, "\(kept.error?.message ?? "")")
    #expect(kept.stream?.total == 2)
    // sse-starlette's own pings do the same.
    let pinged = agent.sendAndWait(
      Request(url: try Self.sse("/events?count=2&interval=1.5&ping=0.3"), timeouts: Timeouts(idle: 1)))
    #expect(pinged.state == .succeeded, "\(pinged.error?.message ?? "")")
    #expect(pinged.stream?.total == 2)
    // Without heartbeats the silence times out, and the event that came is kept.
    let silent = agent.sendAndWait(
      Request(url: try fixture("/sse/ticker?count=2&interval=1.5"), timeouts: Timeouts(idle: 1)))
    #expect(silent.state == .failed)
    #expect(silent.error?.transport == .timedOut)
    #expect(silent.stream?.total == 1)
    // An idle timeout of 0 is none.
    let unbounded = agent.sendAndWait(
      Request(url: try fixture("/sse/ticker?count=2&interval=1.2"), timeouts: Timeouts(idle: 0)))
    #expect(unbounded.state == .succeeded, "\(unbounded.error?.message ?? "")")
  }

  @Test func cancelMidStreamKeepsTheEventsAndTheResponse() throws {
    let agent = Agent()
    defer { agent.shutdown() }
    let recorder = EventRecorder(agent)
    let id = agent.send(Request(url: try fixture("/sse/ticker?interval=0.05")))
    #expect(recorder.wait { Self.streamEvents($0).count >= 3 })
    agent.cancel(id)
    #expect(recorder.waitForFinished(count: 1))
    let result = try #require(recorder.finished.first)
    #expect(result.state == .cancelled)
    #expect((result.stream?.total ?? 0) >= 3)
    #expect(result.response?.status == 200)
    #expect(result.text.contains("data: {\"tick\":1}"))
  }
}
