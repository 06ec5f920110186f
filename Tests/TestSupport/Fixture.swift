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
