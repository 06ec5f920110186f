import Foundation
import RequestEngine
import TestSupport
import Testing

/// The engine's cache scenarios beyond the basics (CacheTests): the server's own
/// Cache-Control and Vary, the offline policies, shared and namespaced entries, downloads, a
/// clock set back, key sharing, and housekeeping: the
/// size limit's least-recently-used order across processes, and the sweep.
@Suite("Response cache: policies, namespaces, housekeeping", .serialized)
struct CacheModesTests {
  let folder = scratchURL("rb-cache-modes")

  func agent(_ cache: ResponseCache? = nil) -> Agent {
    Agent(configuration: .init(cache: cache ?? ResponseCache(folder: folder)))
  }

  func request(_ path: String, _ policy: CachePolicy, name: String = "r") throws -> Request {
    Request(name: name, url: try fixture(path), cache: policy, dedup: false)
  }

  // The response's own `Vary` is honoured without being declared in the policy.
  @Test func theServersVaryIsHonoured() throws {
    let agent = agent()
    let key = uniqueKey()
    var en = try request("/cache?key=\(key)&vary=Accept-Language", CachePolicy(seconds: 60))
    en.headers["Accept-Language"] = "en"
    var fr = en
    fr.headers["Accept-Language"] = "fr"
    _ = agent.sendAndWait(en)
    #expect(agent.sendAndWait(en).fromCache)
    let other = agent.sendAndWait(fr)
    #expect(!other.fromCache && other.cache?.reason == .varyMismatch)
    #expect(try other.json()["vary"] == "fr")
    #expect(try hits(key) == 2)
  }

  // `no-cache` is stored and revalidated before every use, whether or not the policy asks
  // for revalidation; without a validator it is not stored at all. (`no-store`: CacheTests.)
  @Test(arguments: [true, false]) func noCacheIsAlwaysRevalidated(policyRevalidates: Bool) throws {
    let agent = agent()
    let key = uniqueKey()
    let policy = CachePolicy(seconds: 60, revalidate: policyRevalidates)
    _ = agent.sendAndWait(try request("/cache?key=\(key)&etag=v1&no_cache=1", policy))
    let second = agent.sendAndWait(try request("/cache?key=\(key)&etag=v1&no_cache=1", policy))
    #expect(second.fromCache && second.cache?.revalidated == true)
    #expect(second.cache?.reason == .noCache)
    #expect(try hits(key) == 2, "the 304 was asked for")
    let listed = ResponseCache(folder: folder).list().first
    #expect(listed?.mustRevalidate == true)
    // No validator: nothing to revalidate with, so nothing is stored.
    _ = agent.sendAndWait(try request("/cache?key=\(key)-plain&no_cache=1", policy))
    #expect(agent.sendAndWait(try request("/cache?key=\(key)-plain&no_cache=1", policy)).cache?.reason == .absent)
  }

  // The values of headers a response varies on are stored as digests: an Authorization the
  // server varies on never reaches the metadata.
  @Test func varyValuesAreStoredAsDigests() throws {
    let agent = agent()
    let key = uniqueKey()
    var request = try request("/cache?key=\(key)&vary=Authorization", CachePolicy(seconds: 60))
    request.headers["Authorization"] = "Bearer SuperSecret123"
    request.secrets = ["SuperSecret123"]
    _ = agent.sendAndWait(request)
    #expect(agent.sendAndWait(request).fromCache)
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".json") {
      let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
      #expect(!text.contains("SuperSecret123"))
    }
  }

  // A hit is served with the stored status, headers, final URL and redirect count, and has
  // its own start time; only the final response is stored, under the request's URL.
  @Test func aRedirectedResponseIsCachedUnderTheRequestURL() throws {
    let agent = agent()
    let key = uniqueKey()
    let policy = CachePolicy(seconds: 60)
    let first = agent.sendAndWait(try request("/redirect/2?key=\(key)", policy))
    #expect(first.response?.redirectCount == 2)
    let hit = agent.sendAndWait(try request("/redirect/2?key=\(key)", policy))
    #expect(hit.fromCache)
    #expect(hit.response?.redirectCount == 2)
    #expect(hit.response?.effectiveURL == first.response?.effectiveURL)
    #expect(hit.response?.effectiveURL != hit.request.url)
    #expect(hit.startedAt != nil && hit.duration < 1)
    #expect(ResponseCache(folder: folder).list().count == 1)
  }

  // A 304 renews the entry with the 304's headers merged in.
  @Test func aRevalidationMergesTheHeadersOfThe304() throws {
    let agent = agent()
    let key = uniqueKey()
    let policy = CachePolicy(seconds: 60, ignore: ["max_age"], revalidate: true)
    _ = agent.sendAndWait(try request("/cache?key=\(key)&etag=v1", policy))
    try agent.ageCachedEntry(of: try request("/cache?key=\(key)&etag=v1", policy), by: 61)  // expired
    // The 304 carries a Cache-Control the first response did not have.
    let renewed = agent.sendAndWait(try request("/cache?key=\(key)&etag=v1&max_age=77", policy))
    #expect(renewed.cache?.revalidated == true)
    #expect(renewed.response?.headers["Cache-Control"] == "max-age=77")
    #expect(renewed.response?.headers["ETag"] == "\"v1\"")
  }

  // The background sweep never loses an entry stored while it runs, and never leaves metadata
  // without its body: entries long expired are swept while the same keys are stored again.
  @Test func theSweepIsSafeAgainstStoresOfTheSameKeys() throws {
    let requests = try (0..<60).map { try request("/cache?key=\(uniqueKey())", CachePolicy(seconds: 60), name: "r\($0)") }
    let writer = ResponseCache(folder: folder)
    let responses = requests.map { _ in Response(status: 200, body: .memory(Array("{}".utf8))) }
    for round in 0..<5 {
      // Every entry expired long ago...
      for (request, response) in zip(requests, responses) {
        writer.store(response, for: request, policy: CachePolicy(seconds: 60), now: Date().addingTimeInterval(-10 * 86_400))
      }
      // ...is swept by another cache object (another process) while this one stores them again.
      let sweeper = ResponseCache(folder: folder)
      let done = DispatchSemaphore(value: 0)
      DispatchQueue.global().async {
        sweeper.sweep()
        done.signal()
      }
      for (request, response) in zip(requests, responses) {
        writer.store(response, for: request, policy: CachePolicy(seconds: 60))
      }
      done.wait()
      let reader = ResponseCache(folder: folder)
      for request in requests {
        guard case .fresh = reader.lookup(request, policy: CachePolicy(seconds: 60)) else {
          Issue.record("round \(round): \(request.name) lost: \(reader.lookup(request, policy: CachePolicy(seconds: 60)))")
          return
        }
      }
    }
  }

  // A cache object answering from memory still sees what other processes did on disk: a
  // `reqbench cache clear`, a refresh.
  @Test func aMemoryHitSeesAClearByAnotherProcess() throws {
    let cache = ResponseCache(folder: folder)
    let request = try request("/cache?key=\(uniqueKey())", CachePolicy(seconds: 60))
    _ = agent(cache).sendAndWait(request)
    guard case .fresh = cache.lookup(request, policy: CachePolicy(seconds: 60)) else {
      Issue.record("expected a hit")
      return
    }
    #expect(ResponseCache(folder: folder).clear() == 1)
    guard case .miss(.absent) = cache.lookup(request, policy: CachePolicy(seconds: 60)) else {
      Issue.record("the entry another process cleared is gone here too")
      return
    }
  }

  // The offline policy returnCacheDataElseLoad serves even an expired entry, marked stale.
  @Test func anyCacheElseNetworkServesAnExpiredEntry() throws {
    let agent = agent()
    let key = uniqueKey()
    let policy = CachePolicy(seconds: 60, mode: .anyCacheElseNetwork)
    let first = agent.sendAndWait(try request("/cache?key=\(key)", policy))
    #expect(!first.fromCache && first.cache?.reason == .absent)
    try agent.ageCachedEntry(of: try request("/cache?key=\(key)", policy), by: 61)  // expired
    let stale = agent.sendAndWait(try request("/cache?key=\(key)", policy))
    #expect(stale.state == .succeeded && stale.fromCache)
    #expect(stale.cache?.stale == true && stale.cache?.reason == .expired)
    #expect(try hits(key) == 1)
  }

  // The offline policy returnCacheDataDontLoad (cache only): no entry is a `notCached` failure, never the network.
  @Test func cacheOnlyNeverUsesTheNetwork() throws {
    let agent = agent()
    let key = uniqueKey()
    let offline = CachePolicy(seconds: 60, mode: .cacheOnly)
    let missing = agent.sendAndWait(try request("/cache?key=\(key)", offline))
    #expect(missing.state == .failed && missing.error?.kind == .notCached)
    #expect(missing.error?.message.contains("absent") == true)
    #expect(missing.cache?.reason == .absent)
    #expect(try hits(key) == 0)
    _ = agent.sendAndWait(try request("/cache?key=\(key)", CachePolicy(seconds: 60)))
    #expect(agent.sendAndWait(try request("/cache?key=\(key)", offline)).cache?.reason == .fresh)
    try agent.ageCachedEntry(of: try request("/cache?key=\(key)", offline), by: 61)  // expired
    let expired = agent.sendAndWait(try request("/cache?key=\(key)", offline))
    #expect(expired.state == .succeeded && expired.fromCache && expired.cache?.stale == true)
    #expect(try hits(key) == 1)
  }

  // `saveResponseData(from: A, into: B)` makes B a hit holding A's body.
  @Test func aSavedResponseMakesAnotherRequestAHit() throws {
    let cache = ResponseCache(folder: folder)
    let agent = agent(cache)
    let key = uniqueKey()
    let policy = CachePolicy(seconds: 60)
    let a = try request("/cache?key=\(key)-a", policy, name: "a")
    let b = try request("/cache?key=\(key)-b", policy, name: "b")
    let fetched = agent.sendAndWait(a)
    let saved = try #require(cache.saveResponseData(from: a, policy: policy, into: b, policy: policy))
    #expect(saved.name == "b")
    let hit = agent.sendAndWait(b)
    #expect(hit.fromCache && hit.cache?.reason == .fresh)
    #expect(try hit.json() == fetched.json())
    #expect(try hits("\(key)-b") == 0)
    #expect(cache.saveResponseData(from: try request("/cache?key=\(key)-none", policy), policy: policy, into: b, policy: policy) == nil)
  }

  // A namespace per user: X's entries are invisible to Y; clearing X leaves Y's.
  @Test func namespacesKeepUsersApart() throws {
    let cache = ResponseCache(folder: folder)
    let agent = agent(cache)
    let key = uniqueKey()
    let x = CachePolicy(seconds: 60, namespace: "user-x")
    let y = CachePolicy(seconds: 60, namespace: "user-y")
    _ = agent.sendAndWait(try request("/cache?key=\(key)", x))
    let other = agent.sendAndWait(try request("/cache?key=\(key)", y))
    #expect(!other.fromCache && other.cache?.reason == .absent)
    #expect(agent.sendAndWait(try request("/cache?key=\(key)", x)).fromCache)
    #expect(agent.sendAndWait(try request("/cache?key=\(key)", y)).fromCache)
    #expect(try hits(key) == 2)
    #expect(cache.clear(namespace: "user-x") == 1)
    #expect(!agent.sendAndWait(try request("/cache?key=\(key)", x)).fromCache)
    #expect(agent.sendAndWait(try request("/cache?key=\(key)", y)).fromCache)
    // The namespace is stored as a digest only.
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".json") {
      let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
      #expect(!text.contains("user-x") && !text.contains("user-y"))
    }
  }

  // Downloads never enter the cache, even with a policy.
  @Test func downloadsAreNeverCached() throws {
    let cache = ResponseCache(folder: folder)
    let downloads = scratchURL("rb-cache-dl")
    defer { try? FileManager.default.removeItem(at: downloads) }
    let agent = Agent(configuration: .init(cache: cache, downloads: DownloadStore(directory: downloads.appendingPathComponent("state").path)))
    let key = uniqueKey()
    for round in 0..<2 {
      var request = try request("/bytes/4096?key=\(key)", CachePolicy(seconds: 60))
      request.download = DownloadTarget(path: downloads.appendingPathComponent("file-\(round)").path)
      let result = agent.sendAndWait(request)
      #expect(result.state == .succeeded && !result.fromCache)
    }
    #expect(try hits(key) == 2)
    #expect(cache.list().isEmpty)
  }

  // An entry created "in the future" (the clock was set back 1 h) is not fresh.
  @Test func aClockSetBackMakesTheEntryExpired() throws {
    let cache = ResponseCache(folder: folder)
    let req = try request("/cache?key=\(uniqueKey())", CachePolicy(seconds: 86_400))
    _ = agent(cache).sendAndWait(req)
    guard case .fresh = cache.lookup(req, policy: CachePolicy(seconds: 86_400)) else {
      Issue.record("expected a fresh entry now")
      return
    }
    guard case .expired = cache.lookup(req, policy: CachePolicy(seconds: 86_400), now: Date().addingTimeInterval(-3600)) else {
      Issue.record("expected an expired entry an hour ago")
      return
    }
  }

  // An ignored form field and the order of the fields are left out of the key; the
  // credential is not: another user's Authorization is another key.
  @Test func keysLeaveOutWhatDoesNotMatterButKeepTheUser() throws {
    let policy = CachePolicy(seconds: 60, ignore: ["nonce"])
    var a = Request(method: .POST, url: "http://a.test/x", body: .form([("q", "1"), ("nonce", "1")]), cache: policy)
    a.headers["Authorization"] = "Bearer one"
    var b = Request(method: .POST, url: "http://a.test/x", body: .form([("nonce", "2"), ("q", "1")]), cache: policy)
    b.headers["Authorization"] = "Bearer one"
    #expect(CacheKey.key(for: a, policy: policy) == CacheKey.key(for: b, policy: policy))
    b.headers["Authorization"] = "Bearer two"
    #expect(CacheKey.key(for: a, policy: policy) != CacheKey.key(for: b, policy: policy))
    var c = a
    c.body = .form([("q", "2")])
    #expect(CacheKey.key(for: a, policy: policy) != CacheKey.key(for: c, policy: policy))
    // The credential is in the key only as a keyed digest.
    let inputs = CacheKey.inputs(for: a, policy: policy, digestKey: [1, 2, 3])
    #expect(!inputs.contains("Bearer one") && inputs.contains("identity "))
  }

  // The size limit evicts the least recently *used* entry, also across processes: a hit renews
  // the body file's modification time, which a new cache object's index goes by.
  @Test func theSizeLimitEvictsTheLeastRecentlyUsedAcrossProcesses() throws {
    let key = uniqueKey()
    let policy = CachePolicy(seconds: 60)
    let a = try request("/bytes/3000?key=\(key)-a", policy, name: "a")
    let b = try request("/bytes/3000?key=\(key)-b", policy, name: "b")
    let c = try request("/bytes/3000?key=\(key)-c", policy, name: "c")
    let first = agent(ResponseCache(folder: folder, sizeLimit: 7000))
    _ = first.sendAndWait(a)
    usleep(20_000)
    _ = first.sendAndWait(b)
    usleep(20_000)
    // Another process uses a: b is now the least recently used.
    #expect(agent(ResponseCache(folder: folder, sizeLimit: 7000)).sendAndWait(a).fromCache)
    usleep(20_000)
    let third = ResponseCache(folder: folder, sizeLimit: 7000)
    _ = agent(third).sendAndWait(c)
    #expect(Set(third.list().map(\.name)) == ["a", "c"])
  }

  // Entries long expired, bodies no metadata names and temporary files of killed writes are
  // swept, in the background, after the first store of a process.
  @Test func theFirstStoreSweepsTheFolder() throws {
    let key = uniqueKey()
    let old = try request("/cache?key=\(key)-old", CachePolicy(seconds: 60), name: "old")
    let storing = agent(ResponseCache(folder: folder, sweepAfter: 0))
    _ = storing.sendAndWait(old)
    storing.configuration.cache?.waitForSweep()  // its own sweep (after its first store) is over
    try storing.ageCachedEntry(of: old, by: 3600)  // expired an hour ago
    let stray = folder.appendingPathComponent("0000.deadbeef.body")
    let temporary = folder.appendingPathComponent(".0000.json.tmp-1234")
    let young = folder.appendingPathComponent(".0001.json.tmp-5678")
    for file in [stray, temporary, young] { try Data("x".utf8).write(to: file) }
    let anHourAgo = Date().addingTimeInterval(-3600)
    for file in [stray, temporary] {
      try FileManager.default.setAttributes([.modificationDate: anHourAgo], ofItemAtPath: file.path)
    }
    let cache = ResponseCache(folder: folder, sweepAfter: 0)
    #expect(cache.list().map(\.name) == ["old"], "nothing is swept before a store")
    _ = agent(cache).sendAndWait(try request("/cache?key=\(key)-new", CachePolicy(seconds: 60), name: "new"))
    let swept = (0..<100).contains { _ in
      usleep(20_000)
      return cache.list().map(\.name) == ["new"] && !FileManager.default.fileExists(atPath: stray.path)
    }
    #expect(swept, "the expired entry and the stray body were swept")
    #expect(!FileManager.default.fileExists(atPath: temporary.path))
    #expect(FileManager.default.fileExists(atPath: young.path), "a young temporary file may be a write in progress")
  }

  // The sweep starts with the command (`sweepIfDue`) and the agent's shutdown
  // lets it finish, so a short `run` no longer cuts it off (orphans had grown to 887 MB); a
  // sweep that completed is not repeated for an hour.
  @Test func aSweepAtStartIsNotCutOffByAShortRun() throws {
    let stray = folder.appendingPathComponent("0000.deadbeef.body")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data("x".utf8).write(to: stray)
    let anHourAgo = Date().addingTimeInterval(-3600)
    try FileManager.default.setAttributes([.modificationDate: anHourAgo], ofItemAtPath: stray.path)
    let cache = ResponseCache(folder: folder)
    let shortRun = Agent(configuration: .init(cache: cache))
    cache.sweepIfDue()
    shortRun.shutdown()  // nothing was stored: only the start-up sweep ran
    #expect(!FileManager.default.fileExists(atPath: stray.path))
    #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(".swept").path))

    try Data("x".utf8).write(to: stray)
    try FileManager.default.setAttributes([.modificationDate: anHourAgo], ofItemAtPath: stray.path)
    let next = ResponseCache(folder: folder)
    next.sweepIfDue()
    next.waitForSweep()
    #expect(FileManager.default.fileExists(atPath: stray.path), "swept less than an hour ago: not again")
    let later = ResponseCache(folder: folder)
    later.sweepIfDue(now: Date().addingTimeInterval(7200))
    later.waitForSweep()
    #expect(!FileManager.default.fileExists(atPath: stray.path))
  }

  // A damaged entry is removed at lookup (docs/cache.md: "a miss with reason invalid and is removed").
  @Test func aDamagedEntryIsRemovedAtLookup() throws {
    let cache = ResponseCache(folder: folder)
    let req = try request("/cache?key=\(uniqueKey())", CachePolicy(seconds: 60))
    _ = agent(cache).sendAndWait(req)
    let metadata = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.path).first { $0.hasSuffix(".json") })
    try Data("{\"format\": 1, \"tru".utf8).write(to: folder.appendingPathComponent(metadata))
    let fresh = ResponseCache(folder: folder)
    guard case .miss(.invalid) = fresh.lookup(req, policy: CachePolicy(seconds: 60)) else {
      Issue.record("expected an invalid miss")
      return
    }
    // Its metadata is gone at once; its body is left to the sweep (it could belong to a write
    // in progress in another process).
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }.isEmpty)
    guard case .miss(.absent) = fresh.lookup(req, policy: CachePolicy(seconds: 60)) else {
      Issue.record("expected the entry gone")
      return
    }
  }

  // The memory LRU in front of the disk: an entry in memory answers without reading its files;
  // the least recently used leaves memory when the limit is reached.
  @Test func theMemoryLRUKeepsTheRecentlyUsed() throws {
    let key = uniqueKey()
    let policy = CachePolicy(seconds: 60)
    let cache = ResponseCache(folder: folder, memoryLimit: 16_000)
    let agent = agent(cache)
    let requests = try (0..<6).map { try request("/bytes/3000?key=\(key)-\($0)", policy, name: "r\($0)") }
    _ = agent.sendAndWait(requests[0])
    _ = agent.sendAndWait(requests[1])
    // An entry in memory answers without reading its body file.
    let before = try readByThisThread()
    guard case .fresh = cache.lookup(requests[0], policy: policy) else {
      Issue.record("expected a hit")
      return
    }
    #expect(try readByThisThread() - before < 3000, "a memory hit reads no body")
    // r0 was used last; four more entries push r1, the least recently used, out (5 × 3000 B fit).
    for request in requests[2...] { _ = agent.sendAndWait(request) }
    let r0 = try readByThisThread()
    guard case .fresh = cache.lookup(requests[0], policy: policy) else {
      Issue.record("r0 is still cached")
      return
    }
    #expect(try readByThisThread() - r0 < 3000, "r0 was used recently and stays in memory")
    let r1 = try readByThisThread()
    guard case .fresh = cache.lookup(requests[1], policy: policy) else {
      Issue.record("r1 is still cached on disk")
      return
    }
    #expect(try readByThisThread() - r1 >= 3000, "r1 left memory: its body is read from disk")
  }

  /// Bytes this thread has read through system calls so far (`rchar` of /proc/thread-self/io).
  func readByThisThread() throws -> Int {
    let io = try String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
    let line = try #require(io.split(separator: "\n").first { $0.hasPrefix("rchar:") })
    return try #require(Int(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)))
  }
}
