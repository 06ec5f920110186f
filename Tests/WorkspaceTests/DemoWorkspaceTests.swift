import Foundation
import RequestEngine
import Sessions
import Testing
import Workspace
import WorkspaceTestSupport

/// `workspaces/demo.json`, the workspace shipped for the embedded demo server.
@Suite struct DemoWorkspaceTests {
  let file = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("workspaces/demo.json")

  /// What `reqbench --demo` gives the demo: the demo server's OAuth 2.0 client secret.
  func demoSources(_ overrides: [String: String] = [:]) -> VariableSources {
    VariableSources(overrides: overrides, processEnvironment: ["REQBENCH_SECRET_DEMO_CLIENT": "demo-secret"])
  }

  @Test func loads() throws {
    let demo = try Workspace.load(from: file)
    #expect(demo.name == "demo")
    #expect(demo.baseURL == "{{host}}")
    #expect(demo.variables.value(of: "host") == "http://127.0.0.1:8080")
    #expect(demo.requests.count >= 10)
  }

  @Test func preparesEveryRequestAgainstAnotherHost() throws {
    let demo = try Workspace.load(from: file)
    for template in demo.requests {
      let request = try demo.prepare(template, sources: demoSources(["host": "http://127.0.0.1:9999"]))
      #expect(request.url.hasPrefix("http://127.0.0.1:9999/"), "\(template.name): \(request.url)")
    }
  }

  @Test func coversTheDemoEndpoints() throws {
    let demo = try Workspace.load(from: file)
    let prepared = try demo.requests.map { try demo.prepare($0, sources: demoSources()) }
    let endpoints = Set(prepared.map { "\($0.method.rawValue) \($0.url)" })
    for expected in [
      "GET http://127.0.0.1:8080/users", "GET http://127.0.0.1:8080/users/1",
      "POST http://127.0.0.1:8080/users", "DELETE http://127.0.0.1:8080/users/2",
      "POST http://127.0.0.1:8080/auth/login", "GET http://127.0.0.1:8080/me",
      "GET http://127.0.0.1:8080/slow", "GET http://127.0.0.1:8080/trickle",
      "GET http://127.0.0.1:8080/flaky-demo", "GET http://127.0.0.1:8080/users/99",
      "GET http://127.0.0.1:8080/files/small.json", "HEAD http://127.0.0.1:8080/files/big.bin",
      "GET http://127.0.0.1:8080/sse/ticker?interval=0.5", "POST http://127.0.0.1:8080/sse/chat",
      "GET http://127.0.0.1:8080/ndjson?count=20&interval=0.5",
      "GET http://127.0.0.1:8080/oauth/report",
    ] {
      #expect(endpoints.contains(expected), "missing \(expected)")
    }
    let me = try #require(prepared.first { $0.url.hasSuffix("/me") })
    #expect(me.headers["Authorization"] == "Bearer paste-a-token")
    let login = try #require(prepared.first { $0.url.hasSuffix("/auth/login") })
    #expect(text(login.body.bytes) == #"{"user":"ada","password":"lovelace"}"#)
    #expect(prepared.first { $0.url.hasSuffix("/trickle") }?.timeouts.idle == 5)
    #expect(prepared.first { $0.url.hasSuffix("/flaky-demo") }?.retry?.max == 2)
    #expect(prepared.first { $0.url.hasSuffix("/users/1") }?.validation.json != nil)
    // The ticker runs until it is ended (no idle timeout) and reconnects after a drop.
    let ticker = try #require(prepared.first { $0.url.contains("/sse/ticker") })
    #expect(ticker.timeouts.idle == 0)
    #expect(ticker.reconnect)
    // OAuth 2.0: a client credentials token from the demo server's own token endpoint.
    var sources = demoSources()
    sources.oauth2 = OAuth2Tokens(stateFolder: nil)
    let report = try #require(demo.requests.first { $0.name == "oauth2-report" })
    let client = try #require(try demo.prepare(report, sources: sources).oauth2Client)
    #expect(client.tokenURL == "http://127.0.0.1:8080/oauth/token")
    #expect(client.clientId == "demo" && client.label == "oauth2 › oauth2-report")
    #expect(client.clientSecret == "demo-secret")
  }

  @Test func isWrittenTheWayTheAppWritesIt() throws {
    let bytes = try [UInt8](Data(contentsOf: file))
    #expect(text(try Workspace.parse(bytes, file: "demo.json").encoded()) == text(bytes))
  }
}
