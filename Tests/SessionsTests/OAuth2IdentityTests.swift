import Foundation
import RequestEngine
import TestSupport
import Sessions
import Testing
import Workspace
import WorkspaceTestSupport

/// Requests whose OAuth 2.0 blocks are different credentials are different users: sent at once
/// to one URL they are never merged (de-duplication), and each gets the answer to its own token
/// (the tests' authorization server, `Tests/OAuthServer/oauth_server.py`).
@Suite(.serialized) struct OAuth2IdentityTests {
  func block(client: String, scope: String) -> String {
    #"{"grant": "clientCredentials", "tokenURL": "/token", "clientId": "\#(client)", "clientSecret": "{{secret.\#(client)}}", "scope": "\#(scope)"}"#
  }

  func workspace(_ blocks: [(name: String, block: String)]) throws -> Workspace {
    let requests = blocks.map { #"{"name": "\#($0.name)", "url": "api/me", "auth": {"oauth2": \#($0.block)}}"# }
    return try WorkspaceTestSupport.workspace(
      #"{"version": 1, "baseURL": "\#(try TestServer.oauth.baseURL)/", "requests": [\#(requests.joined(separator: ", "))]}"#)
  }

  @Test func eachOAuth2IdentityGetsItsOwnAnswer() throws {
    let ws = try workspace([
      ("svc/me", block(client: "svc", scope: "read")), ("cli/me", block(client: "cli", scope: "read")),
      ("svc-write/me", block(client: "svc", scope: "write")), ("svc-again/me", block(client: "svc", scope: "read")),
    ])
    var sources = VariableSources(processEnvironment: ["REQBENCH_SECRET_SVC": "svc-secret", "REQBENCH_SECRET_CLI": "cli-secret"])
    sources.oauth2 = OAuth2Tokens(stateFolder: nil)
    let agent = Agent()
    defer { agent.shutdown() }
    let results = LockedBox<[String: ExchangeResult]>([:])
    let done = DispatchSemaphore(value: 0)
    for template in ws.requests {
      agent.send(try ws.prepare(template, sources: sources)) { result in
        results.mutate { $0[template.name] = result }
        done.signal()
      }
    }
    for _ in ws.requests { #expect(done.wait(timeout: .now() + 30) == .success) }
    let byName = results.get()
    func answer(_ name: String) throws -> (client: String?, scope: String?) {
      let json = try JSONParser.parse(try #require(byName[name]?.response).body.bytes())
      return (json["client"]?.stringValue, json["scope"]?.stringValue)
    }
    #expect(try answer("svc/me") == ("svc", "read"))
    #expect(try answer("cli/me") == ("cli", "read"))
    #expect(try answer("svc-write/me") == ("svc", "write"))
    #expect(try answer("svc-again/me") == ("svc", "read"))
    #expect(byName["cli/me"]?.deduplicated == false)
    #expect(byName["svc-write/me"]?.deduplicated == false)
    #expect(byName["svc-again/me"]?.deduplicated == true, "the same block is the same user: one transfer")
  }
}
