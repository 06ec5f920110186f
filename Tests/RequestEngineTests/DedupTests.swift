import Foundation
import RequestEngine
import TestSupport
import Testing

/// Engine scenario "Deduplication (XP semantics, made safe)".
@Suite("De-duplication", .serialized)
struct DedupTests {
  // Five identical GETs: one request on the wire, five results, byte-identical bodies.
  @Test func identicalGETsShareOneTransfer() throws {
    let agent = Agent()
    let recorder = EventRecorder(agent)
    let key = uniqueKey()
    let url = try fixture("/delay/0.3?key=\(key)")
    let ids = (0..<5).map { _ in agent.send(Request(url: url)) }
    #expect(recorder.waitForFinished(count: 5))
    #expect(try hits(key) == 1)
    let results = recorder.finished
    #expect(Set(results.map(\.id)) == Set(ids))
    #expect(results.allSatisfy { $0.state == .succeeded })
    #expect(Set(results.map { $0.text }).count == 1)
    #expect(results.filter(\.deduplicated).count == 4)
  }

  @Test func cancellingOneWaiterKeepsTheTransferForTheOthers() throws {
    let agent = Agent()
    let recorder = EventRecorder(agent)
    let key = uniqueKey()
    let url = try fixture("/delay/0.5?key=\(key)")
    let ids = (0..<3).map { _ in agent.send(Request(url: url)) }
    #expect(recorder.wait { $0.contains { if case .started(ids[0], _) = $0 { true } else { false } } })
    agent.cancel(ids[0])  // the one whose transfer it is
    agent.cancel(ids[2])
    #expect(recorder.waitForFinished(count: 3))
    let byID = Dictionary(uniqueKeysWithValues: recorder.finished.map { ($0.id, $0) })
    #expect(byID[ids[0]]?.state == .cancelled)
    #expect(byID[ids[2]]?.state == .cancelled)
    #expect(byID[ids[1]]?.state == .succeeded)
    #expect(try hits(key) == 1)
    let log = try #require(try fixtureJSON("/log?key=\(key)").arrayValue)
    #expect(log.first?["completed"] == true)
  }

  @Test func cancellingEveryWaiterAbortsOnTheWire() throws {
    let agent = Agent()
    let recorder = EventRecorder(agent)
    let key = uniqueKey()
    let url = try fixture("/delay/2?key=\(key)")
    let ids = (0..<3).map { _ in agent.send(Request(url: url)) }
    // The request is at the server (a `started` event says only that curl has it).
    #expect(try fixtureEventually("/stats?key=\(key)") { $0["maxInFlight"]?.intValue == 1 })
    for id in ids { agent.cancel(id) }
    #expect(recorder.waitForFinished(count: 3, timeout: 1))
    #expect(recorder.finished.allSatisfy { $0.state == .cancelled })
    // The server logs the request when its connection ends.
    #expect(try fixtureEventually("/log?key=\(key)") { ($0.arrayValue?.count ?? 0) > 0 })
    let log = try #require(try fixtureJSON("/log?key=\(key)").arrayValue)
    #expect(log.count == 1)
    #expect(log.first?["completed"] == false)
  }

  // A failure reaches every waiter once: a status failure, and a connection lost mid-body.
  @Test(arguments: ["/delay/0.2?key=KEY", "/bytes/200000?rate=400000&close_at=50&key=KEY"])
  func aFailureReachesEveryWaiterOnce(path: String) throws {
    let agent = Agent()
    let recorder = EventRecorder(agent)
    let key = uniqueKey()
    let url = try fixture(path.replacingOccurrences(of: "KEY", with: key))
    for _ in 0..<3 { agent.send(Request(url: url, validation: Validation(status: [201...201]))) }
    // One end each is AgentCore's promise (AgentCorePropertyTests); this is that the shared
    // failure reaches them, judged as it should be.
    #expect(recorder.waitForFinished(count: 3))
    let finished = recorder.finished
    #expect(finished.count == 3)
    #expect(Set(finished.map(\.id)).count == 3)
    let kind: ExchangeError.Kind = path.hasPrefix("/delay") ? .status : .transport
    #expect(finished.allSatisfy { $0.state == .failed && $0.error?.kind == kind })
    #expect(finished.filter(\.deduplicated).count == 2)
    #expect(try hits(key) == 1, "no waiter re-sends after the shared failure")
  }

  // An opt-in debounce window: the same request again within it is refused with
  // `throttled` without the network (also a POST, the double submit it guards against). That it
  // is sent again once the window is over is AgentCore's (AgentCoreTests, on a virtual clock).
  @Test func aThrottleWindowRefusesRepeats() throws {
    let agent = Agent()
    let key = uniqueKey()
    var post = Request(method: .POST, url: try fixture("/anything?key=\(key)"), body: .json(["a": 1]))
    post.throttle = 0.5
    #expect(agent.sendAndWait(post).state == .succeeded)
    let again = agent.sendAndWait(post)
    #expect(again.state == .failed && again.error?.kind == .throttled)
    #expect(again.error?.message.contains("throttle 0.5 s") == true)
    var other = post
    other.body = .json(["a": 2])
    #expect(agent.sendAndWait(other).state == .succeeded, "another body is another request")
    #expect(try hits(key) == 2)
  }

  // POST is never merged; dedup can be turned off.
  @Test func postsAndOptedOutRequestsAreNotMerged() throws {
    let agent = Agent()
    let recorder = EventRecorder(agent)
    let key = uniqueKey()
    for _ in 0..<3 { agent.send(Request(method: .POST, url: try fixture("/delay/0.2?key=\(key)"))) }
    for _ in 0..<2 { agent.send(Request(url: try fixture("/delay/0.2?key=\(key)-off"), dedup: false)) }
    #expect(recorder.waitForFinished(count: 5))
    #expect(try hits(key) == 3)
    #expect(try hits(key + "-off") == 2)
  }

  @Test func eachWaiterIsJudgedByItsOwnValidators() throws {
    let agent = Agent()
    let recorder = EventRecorder(agent)
    let url = try fixture("/delay/0.2?key=\(uniqueKey())")
    let plain = agent.send(Request(url: url))
    let strict = agent.send(Request(url: url, validation: Validation(json: try JSONShape(["method": "number"]))))
    #expect(recorder.waitForFinished(count: 2))
    let byID = Dictionary(uniqueKeysWithValues: recorder.finished.map { ($0.id, $0) })
    #expect(byID[plain]?.state == .succeeded)
    #expect(byID[strict]?.state == .failed)
    #expect(byID[strict]?.error?.message == "$.method: expected number, got string")
  }

  @Test func differentHeadersAreDifferentRequests() throws {
    let agent = Agent()
    let recorder = EventRecorder(agent)
    let key = uniqueKey()
    let url = try fixture("/delay/0.2?key=\(key)")
    agent.send(Request(url: url, headers: ["Accept-Language": "en"]))
    agent.send(Request(url: url, headers: ["Accept-Language": "fr"]))
    #expect(recorder.waitForFinished(count: 2))
    #expect(try hits(key) == 2)
  }
}
