import Foundation
import RequestEngine
import TestSupport
import Testing

@Suite("Agent: cancellation, limits, priorities, retries", .serialized)
struct AgentSchedulingTests {
  // Cancels racing the completion of a 2 KB response: exactly one terminal event each.
  @Test func thousandCancelRacesNeverGiveTwoTerminalEvents() throws {
    let agent = Agent(configuration: .init(maxConcurrent: 16, maxPerHost: 16))
    defer { agent.shutdown() }
    let recorder = EventRecorder(agent)
    let url = try fixture("/bytes/2048")
    var ids: [ExchangeID] = []
    for i in 0..<1000 {
      let id = agent.send(Request(url: url, dedup: false))
      ids.append(id)
      if i % 4 != 0 {
        usleep(UInt32.random(in: 0...2000))
        agent.cancel(id)
      }
      if i % 50 == 49 { #expect(recorder.waitForFinished(count: i + 1, timeout: 20)) }
    }
    #expect(recorder.waitForFinished(count: 1000, timeout: 30))
    usleep(100_000)  // anything late would show up now
    var terminal: [ExchangeID: Int] = [:]
    for result in recorder.finished { terminal[result.id, default: 0] += 1 }
    #expect(terminal.count == 1000)
    #expect(terminal.values.allSatisfy { $0 == 1 })
    let states = Set(recorder.finished.map(\.state))
    #expect(states.isSubset(of: [.succeeded, .cancelled]))
    #expect(recorder.finished.contains { $0.state == .succeeded })
    #expect(recorder.finished.contains { $0.state == .cancelled })
    #expect(agent.activeCounts == (0, 0))
  }

  // Cancel all with 200 in flight, then 50 new requests succeed.
  @Test func cancelAllWithTwoHundredInFlight() throws {
    let agent = Agent(configuration: .init(maxConcurrent: 200, maxPerHost: 200))
    defer { agent.shutdown() }
    let recorder = EventRecorder(agent)
    let key = uniqueKey()
    for _ in 0..<200 { agent.send(Request(url: try fixture("/delay/10?key=\(key)"), dedup: false)) }
    #expect(recorder.wait(timeout: 10) { events in events.filter { if case .started = $0 { true } else { false } }.count == 200 })
    let start = Date()
    agent.cancelAll()
    // The answers come after 10 s: all 200 ending well before that were cancelled (a bound with
    // room for a loaded machine, not a speed measurement).
    #expect(recorder.waitForFinished(count: 200, timeout: 5))
    #expect(Date().timeIntervalSince(start) < 5)
    #expect(recorder.finished.allSatisfy { $0.state == .cancelled && $0.error?.kind == .cancelled })
    for _ in 0..<50 { agent.send(Request(url: try fixture("/get"))) }
    #expect(recorder.waitForFinished(count: 250, timeout: 10))
    #expect(recorder.finished.suffix(50).allSatisfy { $0.state == .succeeded })
  }

  // Which exchange starts when (priority, first come first served, the global and group
  // limits, cancels of queued exchanges, groups) is AgentCore's, proven without a network by
  // AgentCoreTests and AgentCorePropertyTests; these prove that the transfers on the wire
  // follow it.

  // Per-host limit: the server never sees more than maxPerHost at once; another host is not held up.
  @Test func perHostLimitIsHonoured() throws {
    let agent = Agent(configuration: .init(maxConcurrent: 8, maxPerHost: 2))
    defer { agent.shutdown() }
    let recorder = EventRecorder(agent)
    let key = uniqueKey()
    for _ in 0..<8 { agent.send(Request(url: try fixture("/delay/0.3?key=\(key)"), dedup: false)) }
    let other = agent.send(Request(url: try httpbin("/get")))
    #expect(recorder.waitForFinished(count: 9, timeout: 20))
    let stats = try fixtureJSON("/stats?key=\(key)")
    #expect(stats["maxInFlight"]?.intValue == 2)
    #expect(stats["hits"]?.intValue == 8)
    // The other host's request finished before the fixture's queue drained.
    let otherIndex = recorder.finished.firstIndex { $0.id == other }
    #expect((otherIndex ?? 99) < 4)
  }

  // Retries at t≈0, +0.5 s, +1.0 s, then success.
  @Test func retryTimingFollowsTheBackoff() throws {
    let agent = Agent()
    defer { agent.shutdown() }
    let recorder = EventRecorder(agent)
    let key = uniqueKey()
    let result = agent.sendAndWait(
      Request(url: try fixture("/flaky?key=\(key)&fail_first=2&code=503"), retry: RetryPolicy()))
    #expect(result.state == .succeeded)
    #expect(result.attempts == 3)
    let retrying = recorder.all.filter { if case .retrying = $0 { true } else { false } }
    #expect(retrying.count == 2)
    let log = try #require(try fixtureJSON("/log?key=\(key)").arrayValue)
    let starts = log.compactMap { $0["start"]?.doubleValue }
    #expect(starts.count == 3)
    if starts.count == 3 {
      let gap1 = (starts[1] - starts[0]) / 1000
      let gap2 = (starts[2] - starts[1]) / 1000
      #expect(abs(gap1 - 0.5) < 0.25, "first retry after \(gap1) s")
      #expect(abs(gap2 - 1.0) < 0.25, "second retry after \(gap2) s")
    }
  }

  @Test func retriesGiveUpAfterTheLimit() throws {
    let agent = Agent()
    defer { agent.shutdown() }
    let key = uniqueKey()
    let result = agent.sendAndWait(
      Request(url: try fixture("/flaky?key=\(key)&fail_first=3&code=503"), retry: RetryPolicy(baseDelay: 0.05)))
    #expect(result.state == .failed)
    #expect(result.response?.status == 503)
    #expect(result.attempts == 3)
    #expect(try hits(key) == 3)
  }

  // POST is not retried by default.
  @Test func postIsNotRetried() throws {
    let agent = Agent()
    defer { agent.shutdown() }
    let key = uniqueKey()
    let result = agent.sendAndWait(
      Request(method: .POST, url: try fixture("/flaky?key=\(key)&fail_first=1&code=503"), retry: RetryPolicy()))
    #expect(result.state == .failed)
    #expect(try hits(key) == 1)
  }

  // Connection refused is retried; 404 is not.
  @Test func retryClassesOfErrors() throws {
    let agent = Agent()
    defer { agent.shutdown() }
    let refused = agent.sendAndWait(Request(url: "http://127.0.0.1:1/", retry: RetryPolicy(baseDelay: 0.01)))
    #expect(refused.attempts == 3)
    let key = uniqueKey()
    let notFound = agent.sendAndWait(
      Request(url: try fixture("/status/404?key=\(key)"), retry: RetryPolicy(baseDelay: 0.01)))
    #expect(notFound.attempts == 1)
  }

  // Cancelling during back-off ends the exchange at once, with no further attempt.
  @Test func cancelDuringBackoff() throws {
    let agent = Agent()
    defer { agent.shutdown() }
    let recorder = EventRecorder(agent)
    let key = uniqueKey()
    let id = agent.send(
      Request(url: try fixture("/flaky?key=\(key)&fail_first=5&code=503"), retry: RetryPolicy(baseDelay: 2)))
    #expect(recorder.wait { $0.contains { if case .retrying = $0 { true } else { false } } })
    agent.cancel(id)
    #expect(recorder.waitForFinished(count: 1, timeout: 1))
    #expect(recorder.finished.first?.state == .cancelled)
    // No attempt after the cancel is AgentCore's (a retry wait cancelled ends there, AgentCoreTests);
    // here, the one request the server saw.
    #expect(try hits(key) == 1)
  }

  // A paused transfer holds still on the wire (curl_easy_pause): no bytes come, its slot stays
  // taken (the next exchange does not start), and it goes on where it was.
  @Test func aPausedTransferHoldsStillAndGoesOn() throws {
    let agent = Agent(configuration: .init(maxConcurrent: 1, progressInterval: 0.01))
    defer { agent.shutdown() }
    let recorder = EventRecorder(agent)
    let slow = agent.send(Request(url: try fixture("/bytes/400000?rate=400000"), dedup: false))
    let next = agent.send(Request(url: try fixture("/get"), dedup: false))
    func downloaded(_ events: [AgentEvent]) -> Int64 {
      events.reduce(0) { if case .progress(slow, let p) = $1 { max($0, p.downloaded) } else { $0 } }
    }
    func downloaded() -> Int64 { downloaded(recorder.all) }
    #expect(recorder.wait { downloaded($0) > 0 })
    agent.pause(slow)
    #expect(recorder.wait { $0.contains { if case .paused(slow) = $0 { true } else { false } } })
    let atPause = downloaded()
    usleep(500_000)  // going on, 200 KB would come meanwhile
    #expect(downloaded() - atPause < 65_536, "\(downloaded() - atPause) bytes came while paused")
    #expect(!recorder.started().contains(next))
    #expect(agent.activeCounts == (queued: 1, running: 1))
    agent.resume(slow)
    #expect(recorder.waitForFinished(count: 2))
    let results = Dictionary(uniqueKeysWithValues: recorder.finished.map { ($0.id, $0) })
    #expect(results[slow]?.state == .succeeded)
    #expect(results[slow]?.response?.body.count == 400_000)
    #expect(results[next]?.state == .succeeded)
    #expect(recorder.started() == [slow, next])
  }

  // Many sequential exchanges, unique ids, the registry ends empty.
  @Test func idsAreUniqueAndTheRegistryEmpties() throws {
    let agent = Agent(configuration: .init(maxConcurrent: 16, maxPerHost: 16))
    defer { agent.shutdown() }
    let recorder = EventRecorder(agent)
    var ids = Set<ExchangeID>()
    for i in 0..<500 {
      ids.insert(agent.send(Request(name: "r\(i)", url: try nginx("/1k.bin"), dedup: false)))
    }
    #expect(recorder.waitForFinished(count: 500, timeout: 30))
    #expect(ids.count == 500)
    #expect(recorder.finished.allSatisfy { $0.state == .succeeded && $0.response?.body.count == 1024 })
    #expect(Set(recorder.finished.map(\.id)) == ids)
    #expect(agent.activeCounts == (0, 0))
  }
}

@Suite("Agent: group limits")
struct GroupLimitTests {
  @Test func aGroupLimitCapsItsRequestsOnly() throws {
    let agent = Agent(configuration: .init(maxConcurrent: 8, maxPerHost: 8))
    defer { agent.shutdown() }
    let recorder = EventRecorder(agent)
    let key = uniqueKey()
    let limit = GroupLimit(name: "batch", max: 2)
    for _ in 0..<6 {
      var request = Request(url: try fixture("/delay/0.2?key=\(key)"), dedup: false)
      request.limit = limit
      agent.send(request)
    }
    for _ in 0..<3 { agent.send(Request(url: try fixture("/delay/0.2?key=\(key)-free"), dedup: false)) }
    #expect(recorder.waitForFinished(count: 9, timeout: 10))
    #expect(try fixtureJSON("/stats?key=\(key)")["maxInFlight"]?.intValue == 2)
    #expect(try fixtureJSON("/stats?key=\(key)-free")["maxInFlight"]?.intValue == 3)
  }
}
