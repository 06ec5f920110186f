import Foundation
import RequestEngine
import TestSupport
import Testing

/// Engine scenario "App-level cache" and "HTTP cache layer", against the fixture's hit
/// counters.
@Suite("Response cache", .serialized)
struct CacheTests {
  let folder = scratchURL("rb-cache")

  func agent(appVersion: String = reqbenchVersion) -> Agent {
    Agent(configuration: .init(cache: ResponseCache(folder: folder, appVersion: appVersion)))
  }

  func request(_ path: String, _ policy: CachePolicy, method: HTTPMethod = .GET, body: RequestBody = .empty) throws -> Request {
    Request(name: "r", method: method, url: try fixture(path), body: body, cache: policy, dedup: false)
  }

  // Fresh hits are served without the network, with the stored status and headers.
  @Test func basicCache() throws {
    let agent = agent()
    let key = uniqueKey()
    let policy = CachePolicy(seconds: 60)
    let first = agent.sendAndWait(try request("/cache?key=\(key)&etag=v1", policy))
    #expect(first.state == .succeeded && !first.fromCache)
    #expect(first.cache == CacheOutcome(hit: false, reason: .absent, stored: true))
    let second = agent.sendAndWait(try request("/cache?key=\(key)&etag=v1", policy))
    #expect(second.fromCache)
    #expect(second.cache?.hit == true && second.cache?.reason == .fresh)
    #expect(second.response?.status == 200)
    #expect(second.response?.headers["ETag"] == "\"v1\"")
    #expect(try second.json()["hit"]?.intValue == 1)
    #expect(try hits(key) == 1)
    try agent.ageCachedEntry(of: try request("/cache?key=\(key)&etag=v1", policy), by: 61)  // its minute is over
    let third = agent.sendAndWait(try request("/cache?key=\(key)&etag=v1", policy))
    #expect(!third.fromCache)
    #expect(third.cache?.reason == .expired)
    #expect(try hits(key) == 2)
  }

  // A TTL of 0 turns caching off.
  @Test func zeroSecondsIsOff() throws {
    let agent = agent()
    let key = uniqueKey()
    for _ in 0..<2 { _ = agent.sendAndWait(try request("/cache?key=\(key)", CachePolicy(seconds: 0))) }
    #expect(try hits(key) == 2)
    #expect(ResponseCache(folder: folder).list().isEmpty)
  }

  // The key is canonical: query order, ignored fields, JSON key order; the base URL counts.
  @Test func canonicalKeys() throws {
    let agent = agent()
    let key = uniqueKey()
    let policy = CachePolicy(seconds: 60, ignore: ["ts"])
    _ = agent.sendAndWait(try request("/cache?key=\(key)&b=1&a=2&ts=1", policy))
    let reordered = agent.sendAndWait(try request("/cache?a=2&ts=99&key=\(key)&b=1", policy))
    #expect(reordered.fromCache)
    let bodyA = RequestBody.json(["b": 1, "a": ["y": 2, "x": 1], "ts": 5])
    let bodyB = RequestBody.json(["a": ["x": 1, "y": 2], "b": 1, "ts": 6])
    _ = agent.sendAndWait(try request("/cache?key=\(key)-post", policy, method: .POST, body: bodyA))
    #expect(agent.sendAndWait(try request("/cache?key=\(key)-post", policy, method: .POST, body: bodyB)).fromCache)
    let a = Request(url: "http://a.test/x", cache: policy)
    let b = Request(url: "http://b.test/x", cache: policy)
    #expect(CacheKey.key(for: a, policy: policy) != CacheKey.key(for: b, policy: policy))
    #expect(try hits(key) == 1)
  }

  // Invalidation reasons, and damaged entries are misses, never crashes.
  @Test func invalidation() throws {
    let key = uniqueKey()
    let path = "/cache?key=\(key)"
    _ = agent().sendAndWait(try request(path, CachePolicy(seconds: 60, version: 1, sensitive: "ada")))
    let version = agent().sendAndWait(try request(path, CachePolicy(seconds: 60, version: 2, sensitive: "ada")))
    #expect(version.cache?.reason == .versionMismatch)
    let user = agent().sendAndWait(try request(path, CachePolicy(seconds: 60, version: 2, sensitive: "bob")))
    #expect(user.cache?.reason == .sensitiveMismatch)
    let none = agent().sendAndWait(try request(path, CachePolicy(seconds: 60, version: 2)))
    #expect(none.cache?.reason == .sensitiveMismatch)
    let app = agent(appVersion: "9.9.9").sendAndWait(try request(path, CachePolicy(seconds: 60, version: 2)))
    #expect(app.cache?.reason == .appVersionMismatch)
    // Truncate the metadata, then the body: each is an `invalid` miss.
    let metadata = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(".json") })
    let file = folder.appendingPathComponent(metadata)
    let text = try Data(contentsOf: file)
    try text.prefix(text.count / 2).write(to: file)
    let truncated = agent(appVersion: "9.9.9").sendAndWait(try request(path, CachePolicy(seconds: 60, version: 2)))
    #expect(truncated.cache?.reason == .invalid)
    #expect(truncated.state == .succeeded)
    // Damage every body (a damaged entry's old body may still lie about until the sweep).
    for body in try FileManager.default.contentsOfDirectory(atPath: folder.path) where body.hasSuffix(".body") {
      try Data("garbage".utf8).write(to: folder.appendingPathComponent(body))
    }
    let damaged = agent(appVersion: "9.9.9").sendAndWait(try request(path, CachePolicy(seconds: 60, version: 2)))
    #expect(damaged.cache?.reason == .invalid)
  }

  // Only validated successes are stored; no-store never.
  @Test func onlyStorableSuccessesAreStored() throws {
    let agent = agent()
    let key = uniqueKey()
    let policy = CachePolicy(seconds: 60)
    for path in ["/status/500?key=\(key)", "/cache?key=\(key)&no_store=1"] {
      _ = agent.sendAndWait(try request(path, policy))
      #expect(!agent.sendAndWait(try request(path, policy)).fromCache, "\(path)")
    }
    var shaped = try request("/cache?key=\(key)-v", policy)
    shaped.validation = Validation(json: try JSONShape(["hit": "string"]))
    _ = agent.sendAndWait(shaped)
    #expect(agent.sendAndWait(shaped).cache?.reason == .absent)
    #expect(ResponseCache(folder: folder).list().isEmpty)
  }

  // `networkOnly` uses the network although a fresh entry exists, and refreshes it.
  @Test func networkOnlyRefreshes() throws {
    let agent = agent()
    let key = uniqueKey()
    _ = agent.sendAndWait(try request("/cache?key=\(key)", CachePolicy(seconds: 60)))
    let refreshed = agent.sendAndWait(try request("/cache?key=\(key)", CachePolicy(seconds: 60, mode: .networkOnly)))
    #expect(!refreshed.fromCache && refreshed.cache?.reason == .bypassed && refreshed.cache?.stored == true)
    let hit = agent.sendAndWait(try request("/cache?key=\(key)", CachePolicy(seconds: 60)))
    #expect(hit.fromCache)
    #expect(try hit.json()["hit"]?.intValue == 2)
  }

  // `cacheThenNetwork` delivers twice; staleIfError serves an expired entry when the network fails.
  @Test func cacheThenNetworkAndStaleIfError() throws {
    let agent = agent()
    let recorder = EventRecorder(agent)
    let key = uniqueKey()
    let policy = CachePolicy(seconds: 60, ignore: ["fail_first", "key"], mode: .cacheThenNetwork)
    _ = agent.sendAndWait(try request("/flaky?key=\(key)&fail_first=0", policy))
    let fresh = agent.sendAndWait(try request("/flaky?key=\(key)&fail_first=0", policy))
    let deliveries = recorder.all.filter {
      if case .delivered(let r) = $0 { return r.id == fresh.id }
      return false
    }
    #expect(deliveries.count == 1)
    #expect(!fresh.fromCache && fresh.state == .succeeded)
    // The network fails now (another key, failing): the cached delivery, then the failure.
    let failing = agent.sendAndWait(try request("/flaky?key=\(key)-down&fail_first=9", policy))
    #expect(failing.state == .failed)
    let early = recorder.all.compactMap { event -> ExchangeResult? in
      if case .delivered(let r) = event, r.id == failing.id { return r }
      return nil
    }
    #expect(early.count == 1 && early.first?.fromCache == true, "the cached delivery comes before the failure")
    #expect(failing.cache?.reason == .bypassed, "the network's answer is cacheThenNetwork's refresh")
    try agent.ageCachedEntry(of: try request("/flaky?key=\(key)-down&fail_first=9", policy), by: 61)  // expired
    var stale = policy
    stale.mode = .staleIfError
    let served = agent.sendAndWait(try request("/flaky?key=\(key)-down&fail_first=9", stale))
    #expect(served.state == .succeeded && served.fromCache)
    #expect(served.cache?.stale == true && served.cache?.reason == .expired)
  }

  // A request sent from the first one's completion is a hit; hits have full events.
  @Test func aRequestFromTheCompletionIsAHitWithEvents() throws {
    let agent = agent()
    let recorder = EventRecorder(agent)
    let key = uniqueKey()
    let second = LockedBox<ExchangeResult?>(nil)
    let done = DispatchSemaphore(value: 0)
    let req = try request("/cache?key=\(key)", CachePolicy(seconds: 60))
    agent.send(req) { _ in
      agent.send(req) { result in
        second.set(result)
        done.signal()
      }
    }
    #expect(done.wait(timeout: .now() + 30) == .success, "the second send never finished")
    let result = try #require(second.get())
    #expect(result.fromCache)
    let kinds = recorder.all.filter { $0.exchangeID == result.id }.map { "\($0)".prefix(while: { $0 != "(" }) }
    #expect(kinds == ["queued", "started", "headers", "finished"])
  }

  // An expired entry with validators is revalidated; a 304 serves and renews it.
  @Test(arguments: ["etag=v1", "lm=Wed,%2021%20Oct%202015%2007:28:00%20GMT"])
  func revalidation(validator: String) throws {
    let agent = agent()
    let key = uniqueKey()
    let policy = CachePolicy(seconds: 60, revalidate: true)
    let first = agent.sendAndWait(try request("/cache?key=\(key)&\(validator)", policy))
    try agent.ageCachedEntry(of: try request("/cache?key=\(key)&\(validator)", policy), by: 61)  // expired
    let revalidated = agent.sendAndWait(try request("/cache?key=\(key)&\(validator)", policy))
    #expect(revalidated.state == .succeeded && revalidated.fromCache)
    #expect(revalidated.cache?.revalidated == true)
    #expect(revalidated.response?.status == 200)
    #expect(try revalidated.json() == first.json())
    #expect(try hits(key) == 2)
    let renewed = agent.sendAndWait(try request("/cache?key=\(key)&\(validator)", policy))
    #expect(renewed.fromCache && renewed.cache?.reason == .fresh)
    #expect(try hits(key) == 2)
  }

  // A vary header keeps separate entries.
  @Test func varyKeepsSeparateEntries() throws {
    let agent = agent()
    let key = uniqueKey()
    let policy = CachePolicy(seconds: 60, vary: ["Accept-Language"])
    var en = try request("/cache?key=\(key)&vary=Accept-Language", policy)
    en.headers["Accept-Language"] = "en"
    var fr = en
    fr.headers["Accept-Language"] = "fr"
    _ = agent.sendAndWait(en)
    #expect(!agent.sendAndWait(fr).fromCache)
    #expect(agent.sendAndWait(en).fromCache)
    #expect(try agent.sendAndWait(fr).json()["vary"] == "fr")
  }

  // A write killed between the body and the metadata leaves the old entry.
  @Test func aHalfWrittenEntryLeavesTheOldOne() throws {
    let agent = agent()
    let key = uniqueKey()
    let req = try request("/cache?key=\(key)", CachePolicy(seconds: 60))
    _ = agent.sendAndWait(req)
    let metadata = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(".json") })
    let cacheKey = String(metadata.dropLast(5))
    // The body of a newer generation, whose metadata was never written.
    try Data("{\"hit\": 99}".utf8).write(to: folder.appendingPathComponent("\(cacheKey).deadbeef.body"))
    let fresh = ResponseCache(folder: folder)
    guard case .fresh(let entry) = fresh.lookup(req, policy: CachePolicy(seconds: 60)) else {
      Issue.record("expected the old entry")
      return
    }
    #expect(String(decoding: entry.body, as: UTF8.self).contains("\"hit\": 1"))
    fresh.sweep()  // strays of dead writes are not entries
    #expect(fresh.list().count == 1)
  }

  @Test func clearAndList() throws {
    let agent = agent()
    let key = uniqueKey()
    var a = try request("/cache?key=\(key)-a", CachePolicy(seconds: 60))
    a.name = "a"
    var b = try request("/cache?key=\(key)-b", CachePolicy(seconds: 60))
    b.name = "b"
    _ = agent.sendAndWait(a)
    _ = agent.sendAndWait(b)
    let cache = ResponseCache(folder: folder)
    #expect(Set(cache.list().map(\.name)) == ["a", "b"])
    #expect(cache.clear(name: "a") == 1)
    #expect(cache.list().map(\.name) == ["b"])
    #expect(cache.clear() == 1)
  }
}

/// A write killed between the body and the metadata, for real: a process storing one entry over and over, two versions of different sizes,
/// is killed with SIGKILL at random moments; the entry left is always one whole version, never
/// new data under old metadata, never invalid. The child is this test binary running this test
/// with `REQBENCH_CACHE_CRASH_CHILD` set.
@Suite("Response cache crash safety")
struct CacheCrashTests {
  static let childVariable = "REQBENCH_CACHE_CRASH_CHILD"
  static let request = Request(name: "crash", url: "http://127.0.0.1:1/crash", cache: policy)
  static let policy = CachePolicy(seconds: 3600)

  static func body(_ n: Int) -> [UInt8] { [UInt8](repeating: UInt8(ascii: n % 2 == 0 ? "a" : "b"), count: n % 2 == 0 ? 100_000 : 700_000) }

  @Test func aStoreKilledAtAnyMomentLeavesOneWholeEntry() throws {
    if let path = ProcessInfo.processInfo.environment[Self.childVariable] {
      Self.storeUntilKilled(URL(fileURLWithPath: path))
    }
    let folder = scratchURL("rb-cache-crash")
    defer { try? FileManager.default.removeItem(at: folder) }
    var seen = Set<UInt8>()
    for round in 0..<20 {
      // The first round waits for an entry to exist; later ones kill at random moments.
      let killed = try killChildTest(
        suite: "CacheCrashTests", environment: [Self.childVariable: folder.path],
        when: { round > 0 || ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).contains { $0.hasSuffix(".json") } },
        pause: 150_000...400_000)
      #expect(killed, "round \(round): the child was killed")
      switch ResponseCache(folder: folder).lookup(Self.request, policy: Self.policy) {
      case .fresh(let entry):
        #expect(entry.body == Self.body(0) || entry.body == Self.body(1), "round \(round): a torn body")
        if let first = entry.body.first { seen.insert(first) }
      case .expired:
        Issue.record("round \(round): an hour-long entry expired")
      case .miss(let reason):
        // Only before the child's first store ever completed.
        #expect(reason == .absent && seen.isEmpty, "round \(round): \(reason)")
      }
    }
    #expect(!seen.isEmpty, "the child stored entries before it was killed")
  }

  static func storeUntilKilled(_ folder: URL) -> Never {
    let cache = ResponseCache(folder: folder)
    var n = 0
    while true {
      n += 1
      cache.store(Response(status: 200, body: .memory(body(n))), for: request, policy: policy)
    }
  }
}
