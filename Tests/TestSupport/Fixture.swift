import Foundation
import RequestEngine

/// GETs a fixture JSON endpoint (`/hits`, `/stats`, `/log`) through a plain agent.
public func fixtureJSON(_ path: String) throws -> JSONValue {
  let agent = Agent()
  defer { agent.shutdown() }
  let result = agent.sendAndWait(Request(url: try TestServer.fixture.url(path), dedup: false))
  guard let body = try result.response?.body.bytes() else { throw FixtureUnavailable(path: path) }
  return try JSONParser.parse(body)
}

/// Asks a fixture JSON endpoint every 20 ms until `condition` holds of its answer, for at most
/// `timeout` seconds; returns whether it held (for what the server saw, not a sleep's guess).
public func fixtureEventually(_ path: String, timeout: Double = 5, _ condition: (JSONValue) -> Bool) throws -> Bool {
  let deadline = Date().addingTimeInterval(timeout)
  while true {
    if condition(try fixtureJSON(path)) { return true }
    if Date() >= deadline { return false }
    usleep(20_000)
  }
}

/// How many requests the fixture counted under `key`.
public func hits(_ key: String) throws -> Int {
  guard let count = try fixtureJSON("/hits?key=\(key)")["hits"]?.intValue else {
    throw FixtureUnavailable(path: "/hits?key=\(key)")
  }
  return count
}

public struct FixtureUnavailable: Error, CustomStringConvertible {
  public var path: String
  public var description: String { "the fixture server gave no JSON for \(path)" }
}

/// Checks `condition` every 20 ms until it holds, for at most `timeout` seconds; returns whether
/// it held (the caller expects it, saying what it waited for).
public func eventually(timeout: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
  let deadline = Date().addingTimeInterval(timeout)
  while true {
    if try condition() { return true }
    if Date() >= deadline { return false }
    usleep(20_000)
  }
}

/// The bytes in the download state folder of the workspace file at `path`
/// (`.reqbench/NAME/downloads` beside it: partial downloads and their resume state); 0 while
/// there is none.
public func downloadStateBytes(ofWorkspace path: String) -> Int {
  let url = URL(fileURLWithPath: path)
  let folder = url.deletingLastPathComponent().appendingPathComponent(".reqbench")
    .appendingPathComponent(url.deletingPathExtension().lastPathComponent).appendingPathComponent("downloads")
  let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
  return names.reduce(0) { total, name in
    let size = (try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)[.size]) as? NSNumber
    return total + (size?.intValue ?? 0)
  }
}

/// Ends the lifetime of every response cache entry in `cacheFolder` (a state folder's `cache`):
/// each metadata file's `expiresAt` becomes its `createdAt`, so the next lookup finds the entry
/// expired without the test sleeping through its lifetime. Returns how many entries it changed.
public func expireCacheEntries(in cacheFolder: URL) throws -> Int {
  let pattern = try NSRegularExpression(pattern: #""(createdAt|expiresAt)"\s*:\s*([-0-9.eE+]+)"#)
  var changed = 0
  for name in try FileManager.default.contentsOfDirectory(atPath: cacheFolder.path) where name.hasSuffix(".json") && !name.hasPrefix(".") {
    let file = cacheFolder.appendingPathComponent(name)
    let text = try String(contentsOf: file, encoding: .utf8)
    let matches = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
    var values: [String: (range: NSRange, value: String)] = [:]
    for match in matches {
      guard let key = Range(match.range(at: 1), in: text), let value = Range(match.range(at: 2), in: text) else { continue }
      values[String(text[key])] = (match.range(at: 2), String(text[value]))
    }
    guard let created = values["createdAt"], let expires = values["expiresAt"] else { continue }
    let rewritten = (text as NSString).replacingCharacters(in: expires.range, with: created.value)
    try rewritten.write(to: file, atomically: true, encoding: .utf8)
    changed += 1
  }
  return changed
}
