import Foundation
import History
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// Real exchanges with the fixture server, recorded into a workspace's state folder, then listed
/// by the `reqbench history` binary.
@Suite("History end to end")
struct HistoryEndToEndTests {
  @Test func recordsRealExchangesAndTheCommandListsThem() throws {
    let root = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: root) }
    let workspaceURL = root.appendingPathComponent("api.json")
    try """
    {
      "version": 1,
      "name": "api",
      "baseURL": "\(try TestServer.fixture.baseURL)",
      "requests": [
        {"name": "users/get", "url": "/users/1"},
        {"name": "broken", "url": "/status/500"},
        {"name": "download", "url": "/bytes/2000000"},
        {"name": "down", "url": "http://127.0.0.1:1/x"},
        {"name": "login", "url": "/redirect-to", "query": {"url": "/next?token={{token}}"},
         "headers": {"Authorization": "Bearer {{token}}"}, "followRedirects": false,
         "validate": {"status": [200, 399]}}
      ]
    }
    """.write(to: workspaceURL, atomically: true, encoding: .utf8)
    let workspace = try Workspace.load(from: workspaceURL)
    let token = "tok-" + uniqueKey("s3cret")

    let state = StateFolder.url(forWorkspace: workspaceURL, override: nil)
    #expect(state.path == root.appendingPathComponent(".reqbench/api").path)
    let store = HistoryStore(stateFolder: state)
    // Bodies above 1 MB spill to a file, as a large download does with the default 16 MB.
    let agent = Agent(configuration: Agent.Configuration(memoryBodyLimit: 1 << 20))
    defer { agent.shutdown() }
    var results: [String: ExchangeResult] = [:]
    for template in workspace.requests {
      var request = try workspace.prepare(template, variables: ["token": token])
      request.secrets = [token]
      let result = agent.sendAndWait(request)
      try store.record(result, name: template.name)
      results[template.name] = result
    }

    let entries = try store.entries()
    #expect(entries.map(\.name) == ["login", "down", "download", "broken", "users/get"])
    let download = try #require(try store.entries(for: "download").first)
    let spilled = try #require(results["download"]?.response?.body)
    guard case .file = spilled else {
      Issue.record("the download did not spill to a file")
      return
    }
    #expect(download.bytes == 2_000_000)
    #expect(try store.body(of: download) == spilled.bytes())
    let login = try #require(try store.entries(for: "login").first)
    #expect(login.status == 302)
    #expect(login.responseHeaders["Location"] == "/next?token=••••")
    #expect(login.requestHeaders["Authorization"] == "Bearer ••••")
    #expect(try store.entries(for: "down").first?.error?.kind == .transport)

    expectNoFileHolds([token], under: state)

    // The command, reading the state folder beside the workspace.
    let table = try runProcess(try reqbenchBinary, ["history", workspaceURL.path])
    #expect(table.status == 0, "\(table.stderr)")
    let lines = table.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 6)
    #expect(lines.first?.hasPrefix("TIME") == true)
    let names = lines.dropFirst().map {
      $0.split(separator: " ", omittingEmptySubsequences: true)[1]
    }
    #expect(names == ["login", "down", "download", "broken", "users/get"])
    #expect(lines[2].contains(" ---  ") && lines[2].contains("  cannot connect"))
    #expect(lines[3].contains("1.9 MB") && lines[3].hasSuffix("  ok"))
    #expect(lines[4].contains(" 500 ") && lines[4].hasSuffix("status 500 is outside 200-299"))

    let json = try runProcess(
      try reqbenchBinary, ["history", workspaceURL.path, "--json", "--limit", "3"])
    #expect(json.status == 0)
    let objects = try json.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
    #expect(objects.compactMap { $0["name"]?.stringValue } == ["login", "down", "download"])
    #expect(objects[0]["url"]?.stringValue?.hasSuffix("token%3D••••") == true)
    #expect(objects[2]["bytes"]?.intValue == 2_000_000)

    let one = try runProcess(try reqbenchBinary, ["history", workspaceURL.path, "users/get"])
    #expect(one.status == 0)
    #expect(one.stdout.split(separator: "\n").count == 2)
  }
}
