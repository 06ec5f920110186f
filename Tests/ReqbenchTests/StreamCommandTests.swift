import Foundation
import RequestEngine
import TestSupport
import Testing

/// `reqbench run` on streamed responses: each event printed as it arrives, the
/// `--json` line form, reconnects told on stderr, `"stream"` and `"reconnect"` in the workspace.
@Suite("Stream command")
struct StreamCommandTests {
  func workspace(_ requests: String) throws -> (path: String, folder: URL) {
    try workspaceFile(
      #"{"version": 1, "baseURL": "\#(try TestServer.fixture.baseURL)", "requests": [\#(requests)]}"#)
  }

  @Test func eventsArePrintedAsTheyArriveNotAtTheEnd() throws {
    let (path, folder) = try workspace(#"{"name": "ticker", "url": "/sse/ticker?count=3&interval=1"}"#)
    defer { try? FileManager.default.removeItem(at: folder) }
    let started = Date()
    let run = try RunningReqbench(["run", path, "ticker", "--no-history", "--state-dir", folder.path])
    // The first event is out about 2 s before the stream ends.
    #expect(run.read(until: { $0.contains("{\"tick\":1}\n") }, timeout: 10))
    let firstAfter = Date().timeIntervalSince(started)
    let (stdout, stderr) = run.finish()
    let total = Date().timeIntervalSince(started)
    #expect(total - firstAfter > 1.2, "first event after \(firstAfter) s, end after \(total) s")
    #expect(stdout == "{\"tick\":1}\n{\"tick\":2}\n{\"tick\":3}\n")
    #expect(stderr.contains("ticker: 200 OK"))
    #expect(run.process.terminationStatus == 0)
  }

  @Test func theJSONLineFormOfEachEvent() throws {
    let (path, folder) = try workspace(
      #"{"name": "chat", "method": "POST", "url": "/sse/chat?interval=0", "body": {"json": {"prompt": "hi"}}}"#)
    defer { try? FileManager.default.removeItem(at: folder) }
    let result = try runProcess(try reqbenchBinary, ["run", path, "chat", "--json", "--no-history", "--state-dir", folder.path])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = try result.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
    let events = lines.filter { $0["event"] == .string("stream") }
    #expect(events.count > 5)
    #expect(events.first?["name"] == .string("chat"))
    #expect(events.first?["index"]?.intValue == 0)
    #expect(events.first?["type"] == .string("message"))
    #expect(events.first?["eventId"] == .null)
    #expect(events.last?["data"] == .string("[DONE]"))
    #expect(events.allSatisfy { ($0["ms"]?.doubleValue ?? -1) >= 0 })
    let finished = try #require(lines.first { $0["event"] == .string("finished") })
    #expect(finished["stream"]?["format"] == .string("sse"))
    #expect(finished["stream"]?["events"]?.intValue == events.count)
  }

  /// A fast stream (the engine hands its events over in batches): every event a line of its
  /// own, once, in order, in the documented shape; plain `run` prints each event's data.
  @Test func aFastStreamPrintsEveryEventOnceInOrder() throws {
    let (path, folder) = try workspace(#"{"name": "ticker", "url": "/sse/ticker?count=5000&interval=0"}"#)
    defer { try? FileManager.default.removeItem(at: folder) }
    let json = try runProcess(try reqbenchBinary, ["run", path, "ticker", "--json", "--no-history", "--state-dir", folder.path])
    #expect(json.status == 0, "\(json.stderr)")
    let lines = json.stdout.split(separator: "\n").filter { $0.contains(#""event":"stream""#) }
    #expect(lines.count == 5000)
    #expect(
      lines.first?.hasPrefix(#"{"event":"stream","name":"ticker","id":1,"index":0,"type":"tick","eventId":"1","data":"{\"tick\":1}","ms":"#)
        == true, "\(lines.first ?? "")")
    let indexes = try lines.map { try JSONParser.parse(String($0))["index"]?.intValue ?? -1 }
    #expect(indexes == Array(0..<5000))
    let plain = try runProcess(try reqbenchBinary, ["run", path, "ticker", "--no-history", "--state-dir", folder.path])
    #expect(plain.status == 0, "\(plain.stderr)")
    #expect(plain.stdout == (1...5000).map { "{\"tick\":\($0)}\n" }.joined())
  }

  @Test func aForcedStreamAndReconnectFromTheWorkspace() throws {
    let (path, folder) = try workspace(#"""
      {"name": "lines", "url": "/text", "stream": "lines"},
      {"name": "drop", "url": "/sse/ticker?count=4&interval=0&drop_after=2&retry=400", "reconnect": true, "timeout": 0}
      """#)
    defer { try? FileManager.default.removeItem(at: folder) }
    let lines = try runProcess(try reqbenchBinary, ["run", path, "lines", "--json", "--no-history", "--state-dir", folder.path])
    #expect(lines.stdout.contains(#""event":"stream""#), "\(lines.stdout) \(lines.stderr)")
    let run = try RunningReqbench(["run", path, "drop", "--no-history", "--state-dir", folder.path])
    #expect(run.read(until: { $0.contains("{\"tick\":4}\n") }, timeout: 10))
    kill(run.pid, SIGINT)
    let (stdout, stderr) = run.finish()
    #expect(stdout.hasPrefix("{\"tick\":1}\n{\"tick\":2}\n{\"tick\":3}\n{\"tick\":4}\n"), "\(stdout)")
    #expect(stderr.contains("drop: connection lost: transfer closed with outstanding read data remaining; reconnect 1 in 0.4 s"), "\(stderr)")
  }

  // A stream that sends one event, asks for no wait and hangs up, over and over: reconnects at
  // most four a second (the floor), and stderr tells the first and then one line every 5 s with
  // how many came since, not a line each.
  @Test func aStreamThatDropsAtOnceIsToldOnALineEveryFewSeconds() throws {
    let (path, folder) = try workspace(
      #"{"name": "drop", "url": "/sse/ticker?retry=0&interval=0&drop_after=1", "reconnect": true, "deadline": 6}"#)
    defer { try? FileManager.default.removeItem(at: folder) }
    let run = try runProcess(try reqbenchBinary, ["run", path, "drop", "--no-history", "--state-dir", folder.path], timeout: 30)
    let lines = run.stderr.split(separator: "\n").filter { $0.contains("reconnect ") }
    let events = run.stdout.split(separator: "\n").count
    #expect(events >= 10 && events <= 26, "\(events) events in 6 s")
    #expect(lines.count == 2, "\(run.stderr)")
    #expect(lines.first?.contains("reconnect 1 in 0.3 s") == true, "\(run.stderr)")
    #expect(lines.last?.contains(" since the last line)") == true, "\(run.stderr)")
  }

  @Test func aChainCapturesFromTheLastEventAndFromTheEventAJQExpressionMatches() throws {
    let base = try TestServer.fixture.baseURL
    let (path, folder) = try workspaceFile(#"""
      {"version": 1, "baseURL": "\#(base)", "requests": [
        {"name": "chat", "method": "POST", "url": "/sse/chat?interval=0", "body": {"json": {"prompt": "hi"}}},
        {"name": "echo", "url": "/anything?id={{id}}&last={{last}}&token={{token}}"}
      ], "chains": [{"name": "flow", "steps": [
        {"request": "chat", "capture": {"id": "event:.id", "last": "event", "token": "event:.choices[0].delta.content"}},
        {"request": "echo"}
      ]}]}
      """#)
    defer { try? FileManager.default.removeItem(at: folder) }
    let result = try runProcess(try reqbenchBinary, ["run", path, "flow", "--no-history", "--state-dir", folder.path])
    #expect(result.status == 0, "\(result.stdout) \(result.stderr)")
    // The last event is `[DONE]` (not JSON): `.id` and the token come from the last event that has them.
    #expect(result.stdout.contains("captured id=chat-1 last=[DONE] token=them."), "\(result.stdout)")
  }

  @Test func badStreamFieldsAreRefusedWithTheirPlace() throws {
    let (path, folder) = try workspace(#"""
      {"name": "a", "url": "/x", "stream": "sse-ish"},
      {"name": "b", "url": "/x", "stream": "ndjson", "reconnect": true}
      """#)
    defer { try? FileManager.default.removeItem(at: folder) }
    let result = try runProcess(try reqbenchBinary, ["run", path, "a", "--no-history", "--state-dir", folder.path])
    #expect(result.status != 0)
    #expect(result.stderr.contains(#"requests[0].stream: must be "sse", "ndjson", "lines" or "json-seq", found "sse-ish""#), "\(result.stderr)")
    #expect(result.stderr.contains(#"requests[1].reconnect: only an SSE stream reconnects"#), "\(result.stderr)")
  }
}

/// `workspaces/streams.json`, the stream requests shipped for the demo server, run against the
/// fixture (the same server).
@Suite("Streams workspace")
struct StreamsWorkspaceTests {
  @Test func everyRequestStreamsFromTheDemoServer() throws {
    let file = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("workspaces/streams.json").path
    let state = scratchURL("streams-state")
    defer { try? FileManager.default.removeItem(at: state) }
    let host = try TestServer.fixture.baseURL
    for (name, expected) in [("streams/ticker", 3), ("streams/chat", 10), ("streams/feed", 20)] {
      let result = try runProcess(
        try reqbenchBinary,
        ["run", file, name, "--json", "--no-history", "--state-dir", state.path, "--var", "host=\(host)",
         "--var", "ticks=3", "--var", "interval=0"],
        timeout: 60)
      #expect(result.status == 0, "\(name): \(result.stderr)")
      let events = result.stdout.split(separator: "\n").filter { $0.contains(#""event":"stream""#) }
      #expect(events.count >= expected, "\(name): \(events.count) events")
    }
  }
}
