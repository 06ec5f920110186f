import Flows
import Formats
import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// The `.http` files of `Tests/Fixtures/http-editors` (written in the styles of JetBrains HTTP
/// Client, VS Code REST Client, httpyac, kulala.nvim and rest.nvim), imported and sent to the
/// byte-recording server: each request's request line, headers in order and body bytes are what
/// the file declares (`NAME.expected`), but for the headers reqbench adds itself (Host,
/// User-Agent, Accept-Encoding, Content-Length, and Accept when the file sets none).
@Suite(".http corpus against the recording server")
struct ImportHTTPFileCorpusTests {
  struct Expected {
    var name: String
    var requestLine: String
    var headers: [String]
    var body: String
  }

  /// `=== name`, the request line, headers, a blank line, the body (see the fixtures' README).
  static func expected(_ text: String) -> [Expected] {
    var out: [Expected] = []
    for chunk in text.components(separatedBy: "=== ").dropFirst() {
      var lines = chunk.components(separatedBy: "\n")
      let name = lines.removeFirst()
      let requestLine = lines.removeFirst()
      let blank = lines.firstIndex(of: "") ?? lines.count
      let headers = Array(lines[..<blank])
      var body = lines.dropFirst(blank + 1).joined(separator: "\n")
      if body.hasSuffix("\n") { body.removeLast() }
      out.append(Expected(name: name, requestLine: requestLine, headers: headers, body: body))
    }
    return out
  }

  /// The values a chain's earlier steps would capture, and the process environment.
  static let captured = [
    "login.body.token": "T0K3N", "login.headers.ETag": "\"v1\"", "CREATE_USER.body.id": "42", "name": "Ada",
  ]

  @Test(arguments: ["jetbrains", "vscode-restclient", "httpyac", "kulala", "rest-nvim"])
  func eachRequestSendsWhatTheFileDeclares(_ file: String) throws {
    let folder = fixtureFile("http-editors")
    let text = try String(contentsOf: folder.appendingPathComponent(file + ".http"), encoding: .utf8)
    let expected = Self.expected(try String(contentsOf: folder.appendingPathComponent(file + ".expected"), encoding: .utf8))
    let imported = try HTTPFileImporter.parse(text, file: file + ".http", readFile: ImportFile.reader(in: folder))
    #expect(imported.templates.map(\.name) == expected.map(\.name))

    let server = try RecordingServer()
    defer { server.stop() }
    var workspace = Workspace(name: file)
    workspace.variables = [Variable(name: "host", value: server.baseURL)]
    _ = try workspace.addImported(imported)
    let sources = VariableSources(captured: Self.captured, processEnvironment: ["REQBENCH_TRACE": "trace-7"])
    let agent = Agent()
    defer { agent.shutdown() }
    for (index, declared) in expected.enumerated() {
      let template = try #require(workspace.request(named: declared.name))
      let result = agent.sendAndWait(try workspace.prepare(template, sources: sources))
      #expect(result.error == nil, "\(file): \(declared.name): \(String(describing: result.error))")
      guard let sent = server.waitFor(index + 1).last, server.requests.count == index + 1 else {
        Issue.record("\(file): \(declared.name) did not arrive")
        continue
      }
      #expect(sent.requestLine == declared.requestLine, "\(file): \(declared.name)")
      var ignored: Set<String> = ["host", "user-agent", "accept-encoding", "content-length"]
      if !declared.headers.contains(where: { $0.lowercased().hasPrefix("accept:") }) { ignored.insert("accept") }
      let headers = sent.headers.filter { !ignored.contains($0.name.lowercased()) }.map(\.description)
      #expect(headers == declared.headers, "\(file): \(declared.name)")
      #expect(String(decoding: sent.body, as: UTF8.self) == declared.body, "\(file): \(declared.name)")
    }
  }

  /// A request that uses another's response (`{{login.response.body.$.token}}`) runs as the chain
  /// the import makes: the fixture server's `/me` answers only with the token its login gave.
  @Test func aRequestVariableChainLogsInAndUsesTheToken() throws {
    let text = """
      @base = \(try TestServer.fixture.baseURL)

      ### Log in
      # @name login
      POST {{base}}/auth/login
      Content-Type: application/json

      {"user": "ada", "password": "lovelace"}

      ### Me
      GET {{base}}/me
      Authorization: Bearer {{login.response.body.$.token}}
      """
    var workspace = Workspace(name: "chain")
    let report = try workspace.addImported(try HTTPFileImporter.parse(text, file: "chain.http"))
    #expect(report.chainsAdded == ["Me-chain"])
    let runner = FlowRunner(agent: Agent(), workspace: workspace, sources: VariableSources(processEnvironment: [:]))
    let done = DispatchSemaphore(value: 0)
    let box = LockedBox<FlowOutcome?>(nil)
    runner.start("Me-chain", fromStep: 1, captured: [], events: { _ in }) { outcome in
      box.mutate { $0 = outcome }
      done.signal()
    }
    #expect(done.wait(timeout: .now() + 60) == .success)
    let outcome = try #require(box.get())
    #expect(outcome.state == .succeeded, "\(outcome.message ?? "")")
    #expect(outcome.steps.map { $0.exchange?.response?.status } == [200, 200])
  }
}
