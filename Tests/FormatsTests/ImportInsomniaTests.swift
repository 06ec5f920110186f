import Formats
import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// Insomnia exports (`Tests/Fixtures/insomnia`, written for these tests): the same collection as
/// a v4 export (JSON) and a v5 collection file (YAML) import to the same requests.
@Suite("Insomnia import")
struct ImportInsomniaTests {
  func imported(_ file: String) throws -> ImportedRequests {
    try ImportFormat.insomnia.parse(Array(try Data(contentsOf: fixtureFile("insomnia/" + file))), file: file)
  }

  @Test(arguments: ["shop-v4.json", "shop-v5.yaml"])
  func anExportBecomesRequestsInFoldersVariablesAndEnvironments(_ file: String) throws {
    let imported = try imported(file)
    let t = imported.templates
    #expect(t.map(\.name) == ["Log in", "Users/Get user", "Users/Create user", "Search"])
    #expect(
      imported.variables == [
        Variable(name: "base_url", value: "http://127.0.0.1:8080"), Variable(name: "admin.user", value: "ada"),
        Variable(name: "page", value: "2"),
      ])
    #expect(imported.environments == [Environment(name: "Local", variables: [Variable(name: "base_url", value: "http://localhost:3000")])])

    // The URL as written, the enabled parameters after it; headers in order, disabled ones off.
    #expect(t[1].url == "{{base_url}}/users/1?expand=roles&page={{page}}")
    #expect(t[1].headers.fields.map(\.name) == ["Accept", "X-Off"])
    #expect(t[1].switchedOff.headers == ["x-off"])
    // A folder's auth goes to its requests without one of their own.
    #expect(t[1].auth == .basic(user: "{{admin.user}}", password: "{{password}}"))
    #expect(t[2].auth == .bearer("{{token}}"))
    // Text bodies as written, `mimeType` their type; `{{` that opens no variable is text.
    #expect(t[2].body == .text("{\n\t\"name\": \"Ada\",\n\t\"note\": \"{{'{{'}} not closed\"\n}", contentType: "application/json"))
    #expect(t[0].body == .form(JSONObject([("user", "ada"), ("password", "p&ss word")])))
    #expect(t[3].body == .text("{\"query\":\"query { items { id } }\"}", contentType: nil))
    #expect(t[3].headers == ["Content-Type": "application/json", "X-Api-Key": "{{apiKey}}"])
    // A template tag cannot be filled in: that request is left out, named in a warning.
    #expect(imported.warnings.contains { $0.contains("request \"Chained\": {% response 'body'") && $0.hasSuffix("the others are") })
  }

  @Test func aFolderExportWithoutAWorkspaceAndBracketedNames() throws {
    let text = #"""
      {"_type": "export", "__export_format": 2, "resources": [
        {"_id": "__GRP_1__", "_type": "request_group", "parentId": "__WORKSPACE_ID__", "name": "Folder"},
        {"_id": "__REQ_1__", "_type": "request", "parentId": "__GRP_1__", "name": "One", "method": "GET",
         "url": "{{_['global-base']}}/one"}]}
      """#
    let imported = try InsomniaImporter.parse(Array(text.utf8), file: "folder.json")
    #expect(imported.templates.map(\.name) == ["Folder/One"])
    #expect(imported.templates.first?.url == "{{global-base}}/one")
    #expect(throws: ImportError.self) {
      try InsomniaImporter.parse(Array(#"{"_type": "export", "__export_format": 1, "items": []}"#.utf8), file: "old.json")
    }
  }

  @Test func theTwoVersionsImportTheSameRequests() throws {
    #expect(try imported("shop-v4.json").templates == imported("shop-v5.yaml").templates)
  }

  @Test func anExportOnTheWireAsInsomniaSendsIt() throws {
    let server = try RecordingServer()
    defer { server.stop() }
    var workspace = Workspace(name: "shop")
    workspace.variables = [Variable(name: "base_url", value: server.baseURL), Variable(name: "token", value: "T")]
    _ = try workspace.addImported(try imported("shop-v4.json"))
    let agent = Agent()
    defer { agent.shutdown() }
    let result = agent.sendAndWait(try workspace.prepare(requestNamed: "Users/Create user"))
    #expect(result.error == nil)
    let sent = try #require(server.waitFor(1).first)
    #expect(sent.requestLine == "POST /users HTTP/1.1")
    let ignored: Set<String> = ["host", "user-agent", "accept-encoding", "content-length", "accept"]
    #expect(
      sent.headers.filter { !ignored.contains($0.name.lowercased()) }.map(\.description)
        == ["X-Trace: t-1", "Authorization: Bearer T", "Content-Type: application/json"])
    #expect(String(decoding: sent.body, as: UTF8.self) == "{\n\t\"name\": \"Ada\",\n\t\"note\": \"{{ not closed\"\n}")
  }
}
