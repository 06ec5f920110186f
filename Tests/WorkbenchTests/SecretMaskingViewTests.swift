import Foundation
import RequestEngine
import TerminalUI
import TestSupport
import Testing
import Workbench
import Workspace

/// A server that echoes the request's secret (httpbin's `/anything`, a response header) never
/// gets it onto the screen: the viewer masks the request's secrets in what it draws.
@Suite("secrets in the viewer")
struct SecretMaskingViewTests {
  @Test func anEchoedSecretIsMaskedInTheBodyAndHeaders() throws {
    let secret = "S3cr3t-" + uniqueKey()
    let httpbin = try TestServer.httpbin.baseURL
    let workspace = try Workspace.parse(
      Array(
        """
        {"version": 1, "baseURL": "\(httpbin)/",
         "requests": [{"name": "echo", "url": "response-headers", "query": {"X-Echo": "{{secret.token}}"},
                       "headers": {"Authorization": "Bearer {{secret.token}}"}}]}
        """.utf8), file: "echo.json")
    let sources = VariableSources(processEnvironment: [:], secrets: SecretsFile(values: [("token", secret)]))
    let request = try workspace.prepare(try #require(workspace.request(named: "echo")), sources: sources)
    let agent = Agent()
    defer { agent.shutdown() }
    let result = agent.sendAndWait(request)
    // The server did get and echo it.
    #expect(result.response?.headers["X-Echo"] == secret)
    #expect(String(decoding: try result.response?.body.bytes() ?? [], as: UTF8.self).contains(secret))

    var state = AppState(workspace: workspace, workspaceFile: "echo.json", sources: sources, width: 120, height: 40)
    send(&state, .agent(.queued(result.id, request)), .agent(.started(result.id, attempt: 1)))
    state.focus = .queue
    send(&state, .key(.enter))
    send(&state, .agent(.finished(result)))
    var buffer = ScreenBuffer(width: state.width, height: state.height)
    view(state, into: &buffer)
    #expect(buffer.text.contains("\"X-Echo\": \"••••\""), "\(buffer.text)")
    #expect(!buffer.text.contains(secret), "\(buffer.text)")

    send(&state, .key(.right))  // the headers tab
    buffer = ScreenBuffer(width: state.width, height: state.height)
    view(state, into: &buffer)
    #expect(buffer.text.contains("X-Echo"), "\(buffer.text)")
    #expect(!buffer.text.contains(secret), "\(buffer.text)")
    // What `w` writes is the body as received.
    let written = try state.exchanges.first?.result?.response?.body.bytes() ?? []
    #expect(String(decoding: written, as: UTF8.self).contains(secret))
  }
}
