import Formats
import Foundation
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

@Suite("Importing into a workspace")
struct ImportWorkspaceTests {
  func imported(_ names: [String], variables: [Variable] = [], warnings: [String] = [])
    -> ImportedRequests
  {
    ImportedRequests(
      requests: names.map {
        ImportedRequest(
          template: RequestTemplate(name: $0, url: "https://a.test/\($0)"), location: nil)
      },
      variables: variables, warnings: warnings)
  }

  @Test func takenNamesGetSuffixes() throws {
    var ws = try workspace(
      #"{"version": 1, "requests": [{"name": "get-x", "url": "/x"}, {"name": "get-x-2", "url": "/y"}]}"#
    )
    let report = try ws.addImported(imported(["get-x", "get-x", "new"]))
    #expect(report.added.map(\.name) == ["get-x-3", "get-x-4", "new"])
    #expect(ws.requests.map(\.name) == ["get-x", "get-x-2", "get-x-3", "get-x-4", "new"])
  }

  @Test func aNameNamesOneRequestAndPrefixesSeveral() throws {
    var one = Workspace(name: "w")
    #expect(try one.addImported(imported(["get-x"]), name: "login").added.map(\.name) == ["login"])
    var several = Workspace(name: "w")
    #expect(
      try several.addImported(imported(["get-x", "post-x"]), name: "auth").added.map(\.name)
        == ["auth/get-x", "auth/post-x"])
  }

  @Test func variablesAreAddedWithoutOverwriting() throws {
    var ws = try workspace(#"{"version": 1, "variables": {"host": "http://local", "id": 1}}"#)
    let report = try ws.addImported(
      imported(
        ["a"],
        variables: [
          Variable(name: "host", value: "https://remote"), Variable(name: "id", value: "1"),
          Variable(name: "token", value: "t"),
        ], warnings: ["from the importer"]))
    #expect(report.variablesAdded == [Variable(name: "token", value: "t")])
    #expect(
      report.warnings == [
        "from the importer",
        #"the workspace already defines the variable host as "http://local"; kept it (the import has "https://remote")"#,
      ])
    #expect(ws.variables.map(\.name) == ["host", "id", "token"])
    // The number stays a number in the file.
    #expect(
      try json(text(ws.encoded()))["variables"] == ["host": "http://local", "id": 1, "token": "t"])
  }

  @Test func everythingElseInTheFileStaysAsItWas() throws {
    let original = """
      {
        "$schema": "https://example.com/reqbench.schema.json",
        "version": 1,
        "x-owner": {"team": "api"},
        "requests": [
          {"name": "get", "method": "get", "url": "/a", "timeout": 30.0, "x-first": true}
        ],
        "trailing": null
      }
      """
    var ws = try workspace(original)
    let curl = try CurlImporter.parse(
      #"curl https://a.test/items -H 'Content-Type: application/json' -d '{"n": 1.50}'"#,
      file: "paste.sh")
    _ = try ws.addImported(curl)
    var expected = try json(original).objectValue ?? JSONObject()
    expected["requests"] = .array(
      (expected["requests"]?.arrayValue ?? []) + [
        try json(
          #"{"name": "post-items", "method": "POST", "url": "https://a.test/items", "body": {"text": "{\"n\": 1.50}", "contentType": "application/json"}, "compressed": false}"#
        )
      ])
    #expect(try json(text(ws.encoded())) == .object(expected))
    // And the file loads back to the same workspace.
    let reloaded = try workspace(text(ws.encoded()))
    #expect(try json(text(reloaded.encoded())) == json(text(ws.encoded())))
    // The JSON as written (its space, `1.50`), sent byte for byte.
    #expect(reloaded.request(named: "post-items")?.body == .text(#"{"n": 1.50}"#, contentType: "application/json"))
  }

  @Test func importedTemplatesSurviveASaveAndLoad() throws {
    let imported = try HTTPFileImporter.parse(
      """
      @host = https://api.test
      ### a
      # @no-redirect
      POST {{host}}/x?q=1
      Authorization: Basic u p
      Content-Type: text/csv

      a,b
      """, file: "api.http")
    var ws = Workspace(name: "w")
    _ = try ws.addImported(imported)
    let loaded = try workspace(text(ws.encoded()))
    #expect(loaded.requests.map(\.name) == ["a"])
    let a = try #require(loaded.request(named: "a"))
    let original = imported.templates[0]
    #expect(a.method == original.method && a.url == original.url && a.query == original.query)
    #expect(a.headers == original.headers && a.body == original.body && a.auth == original.auth)
    #expect(a.followRedirects == false)
    #expect(loaded.variables == [Variable(name: "host", value: "https://api.test")])
  }
}
