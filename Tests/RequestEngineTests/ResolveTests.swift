import Foundation
import RequestEngine
import TestSupport
import Testing

/// `resolve` (curl's `--resolve`, CURLOPT_RESOLVE): a name reaches loopback without the system's
/// resolver, so no test sends a DNS query off the machine.
@Suite struct ResolveTests {
  @Test func aMappedNameReachesTheAddressAndKeepsItsHost() throws {
    let port = try #require(URL(string: try TestServer.fixture.baseURL)?.port)
    var configuration = Agent.Configuration()
    configuration.resolve = [try HostMapping(parsing: "reqbench.invalid:\(port):127.0.0.1")]
    let agent = Agent(configuration: configuration)
    defer { agent.shutdown() }
    let result = agent.sendAndWait(Request(url: "http://reqbench.invalid:\(port)/headers"))
    #expect(result.state == .succeeded, "\(result.error?.message ?? "")")
    #expect(try result.json()["headers"]?["Host"] == .string("reqbench.invalid:\(port)"))
    // Without the mapping the same agent's other names are untouched: another port is not mapped.
    let other = agent.sendAndWait(Request(url: "http://127.0.0.1:\(port)/get"))
    #expect(other.state == .succeeded)
  }

  @Test func entriesAreCheckedAsCurlWritesThem() throws {
    let v6 = try HostMapping(parsing: "api.test:443:[::1],127.0.0.1")
    #expect(v6 == HostMapping(host: "api.test", port: 443, addresses: ["::1", "127.0.0.1"]))
    #expect(v6.curlEntry == "api.test:443:[::1],127.0.0.1")
    for bad in ["api.test:443", "api.test:0:127.0.0.1", "api.test:x:127.0.0.1", ":80:127.0.0.1", "a b:80:127.0.0.1",
      "api.test:80:localhost", "api.test:80:", "api.test:80:127.0.0.1\r\nX: 1"]
    {
      #expect(throws: HostMapping.ParseError.self, "\(bad)") { try HostMapping(parsing: bad) }
    }
    let error = try #require(throws: HostMapping.ParseError.self) { try HostMapping(parsing: "api.test:80:nowhere") }
    #expect(
      error.message == #""api.test:80:nowhere" has "nowhere", which is not an IP address; write it as HOST:PORT:ADDRESS, e.g. api.test:443:127.0.0.1"#)
  }
}
