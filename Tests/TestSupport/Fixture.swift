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
