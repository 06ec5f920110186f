import Foundation
import RequestEngine
import TestSupport
import Testing

@Suite("reqbench run: cache")
struct RunCacheTests {
  func workspace(_ requests: String) throws -> String { try fixtureWorkspace(requests, file: "c.json") }

  func summary(_ result: ProcessResult) throws -> JSONValue {
    try JSONParser.parse(String(try #require(result.stdout.split(separator: "\n").last)))
  }

  @Test func aSecondRunIsServedFromTheStateFolderCache() throws {
    let key = uniqueKey()
    let ws = try workspace(#"{"name": "c", "url": "/cache?key=\#(key)", "cache": {"seconds": 60}}"#)
    let first = try summary(try runProcess(try reqbenchBinary, ["run", ws, "c", "--json"]))
    let firstResult = first["results"]?.arrayValue?.first
    #expect(firstResult?["fromCache"] == false)
    #expect(firstResult?["cache"]?["hit"] == false)
    #expect(firstResult?["cache"]?["reason"] == "absent")
    let second = try summary(try runProcess(try reqbenchBinary, ["run", ws, "c", "--json"]))
    let result = second["results"]?.arrayValue?.first
    #expect(result?["fromCache"] == true)
    #expect(result?["cache"]?["hit"] == true)
    #expect(result?["cache"]?["reason"] == "fresh")
    #expect(result?["cache"]?["ageSeconds"]?.doubleValue != nil)
    #expect(try hits(key) == 1)
    let folder = URL(fileURLWithPath: ws).deletingLastPathComponent().appendingPathComponent(".reqbench/c/cache")
    #expect(FileManager.default.fileExists(atPath: folder.path))

    let list = try runProcess(try reqbenchBinary, ["cache", "ls", ws])
    let rows = list.stdout.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
    #expect(rows.first == ["NAME", "STATUS", "SIZE", "AGE", "FRESHNESS", "URL"])
    #expect(rows.count == 2 && rows[1].prefix(2) == ["c", "200"] && rows[1].contains("fresh"))
    let clear = try runProcess(try reqbenchBinary, ["cache", "clear", ws, "c"])
    #expect(clear.stderr.contains("removed 1 cached response"))
    let third = try summary(try runProcess(try reqbenchBinary, ["run", ws, "c", "--json"]))
    #expect(third["results"]?.arrayValue?.first?["fromCache"] == false)
  }

  @Test func cacheThenNetworkEmitsAFinishedEventPerDelivery() throws {
    let key = uniqueKey()
    let ws = try workspace(
      #"{"name": "c", "url": "/cache?key=\#(key)", "cache": {"seconds": 60, "mode": "cacheThenNetwork"}}"#)
    _ = try runProcess(try reqbenchBinary, ["run", ws, "c", "--json"])
    let result = try runProcess(try reqbenchBinary, ["run", ws, "c", "--json"])
    let finished = try result.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
      .filter { $0["event"] == "finished" }
    #expect(finished.map { $0["fromCache"] } == [true, false])
    #expect(try summary(result)["results"]?.arrayValue?.first?["fromCache"] == false)
    #expect(try hits(key) == 2)
  }

  // Offline mode, namespaces from a variable, a throttle window and a negative TTL, end to end.
  @Test func cacheOnlyNamespacesAndThrottleFromTheWorkspace() throws {
    let key = uniqueKey()
    let ws = try workspace(
      #"{"name": "c", "url": "/cache?key=\#(key)", "cache": {"seconds": 60, "namespace": "{{user}}"}},"#
        + #"{"name": "offline", "url": "/cache?key=\#(key)-off", "cache": {"seconds": 60, "mode": "cacheOnly"}},"#
        + #"{"name": "twice", "method": "POST", "url": "/anything?key=\#(key)-post", "throttle": 30}"#)
    let offline = try runProcess(try reqbenchBinary, ["run", ws, "offline", "--json"])
    #expect(offline.status == 1)
    let error = try summary(offline)["results"]?.arrayValue?.first?["error"]
    #expect(error?["kind"] == "notCached")
    #expect(error?["message"]?.stringValue?.contains("never uses the network") == true)
    #expect(try hits("\(key)-off") == 0)

    for user in ["ada", "bob", "ada"] {
      _ = try runProcess(try reqbenchBinary, ["run", ws, "c", "--var", "user=\(user)"])
    }
    #expect(try hits(key) == 2, "ada's entry served ada's second run; bob had his own")
    let listed = try runProcess(try reqbenchBinary, ["cache", "ls", ws, "--namespace", "bob"])
    #expect(listed.stdout.split(separator: "\n").count == 2, "a header and bob's entry")
    #expect(listed.stdout.contains("NAMESPACE"))
    let cleared = try runProcess(try reqbenchBinary, ["cache", "clear", ws, "--namespace", "ada"])
    #expect(cleared.stderr.contains("removed 1 cached response"))
    #expect(try runProcess(try reqbenchBinary, ["cache", "ls", ws]).stdout.split(separator: "\n").count == 2)

    // Two targets naming the same request in one run: the second is refused.
    let twice = try runProcess(try reqbenchBinary, ["run", ws, "twice", "twice", "--json"])
    let kinds = try summary(twice)["results"]?.arrayValue?.map { $0["error"]?["kind"] ?? .null }
    #expect(kinds?.contains("throttled") == true)
    #expect(try hits("\(key)-post") == 1)

    let negative = try workspace(#"{"name": "c", "url": "/x", "cache": {"seconds": -1}}"#)
    let refused = try runProcess(try reqbenchBinary, ["run", negative, "c"])
    #expect(refused.status == 2)
    #expect(refused.stderr.contains("cache.seconds") && refused.stderr.contains("must be 0 or more"))
  }

  // The plain output says where a success came from: from the cache, stale (and why), shared.
  @Test func plainLinesSayWhenAResponseCameFromTheCache() throws {
    let key = uniqueKey()
    let cache = #""cache": {"seconds": 60, "ignore": ["key", "fail_first"], "mode": "staleIfError"}"#
    let ws = try workspace(
      #"{"name": "ok", "url": "/flaky?key=\#(key)&fail_first=0", \#(cache)},"#
        + #"{"name": "down", "url": "/flaky?key=\#(key)-down&fail_first=9", \#(cache)},"#
        + #"{"name": "fresh", "url": "/cache?key=\#(key)", "cache": {"seconds": 60}}"#)
    _ = try runProcess(try reqbenchBinary, ["run", ws, "ok"])
    // Its minute is over (ended on disk, not slept through).
    let folder = URL(fileURLWithPath: ws).deletingLastPathComponent()
    #expect(try expireCacheEntries(in: folder.appendingPathComponent(".reqbench/c/cache")) == 1)
    let stale = try runProcess(try reqbenchBinary, ["run", ws, "down"])
    #expect(stale.status == 0)
    // The age is whole seconds since the first run stored it: 0 or 1 here, by the machine's speed.
    #expect(
      stale.stderr.contains("(stale from cache, 0 s old: the network failed: status 503")
        || stale.stderr.contains("(stale from cache, 1 s old: the network failed: status 503"), "\(stale.stderr)")
    let json = try summary(try runProcess(try reqbenchBinary, ["run", ws, "down", "--json"]))
    #expect(json["results"]?.arrayValue?.first?["cache"]?["staleBecause"]?.stringValue?.hasPrefix("status 503") == true)
    _ = try runProcess(try reqbenchBinary, ["run", ws, "fresh"])
    let hit = try runProcess(try reqbenchBinary, ["run", ws, "fresh"])
    #expect(hit.stderr.contains("fresh: 200 OK, ") && hit.stderr.contains(" (from cache, 0 s old)"), "\(hit.stderr)")
    let lines = try runProcess(try reqbenchBinary, ["run", ws, "fresh", "ok"])
    #expect(lines.stdout.contains("from cache, 0 s old"), "\(lines.stdout)")
  }

  @Test func cacheUsageErrors() throws {
    let ws = try workspace(#"{"name": "c", "url": "/x"}"#)
    #expect(try runProcess(try reqbenchBinary, ["cache", "ls", ws, "nope"]).status == 2)
    #expect(try runProcess(try reqbenchBinary, ["cache", "frob", ws]).status == 2)
    let bad = try workspace(#"{"name": "c", "url": "/x", "cache": {"seconds": 60, "mode": "sometimes"}}"#)
    let result = try runProcess(try reqbenchBinary, ["run", bad, "c"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("unknown mode \"sometimes\""))
  }
}
