import Formats
import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// The names an import gives follow the rules the TUI and the editing operations apply
/// (`Workspace.problem(withName:)`): one rule, `ImportedRequests.followNameRules`, for every
/// importer whose names come from the input. A renamed request is named in the import's report.
@Suite struct ImportNameRulesTests {
  /// A Postman collection whose item and folder names hold a terminal escape, a BEL, `..`,
  /// `.`, empty folders, a tab, a `/` at either end and a name that is only ` / `.
  @Test func postmanItemNamesAreMadeToFollowTheNameRules() throws {
    let bytes = Array(try Data(contentsOf: fixtureFile("postman/names.postman_collection.json")))
    let imported = try ImportFormat.postman.parse(bytes, file: "names.json")
    #expect(imported.templates.map(\.name) == [
      "a/]0;P/0/get-x", "a/]0;P/0/kept", "b/c/get-bc", "get-dots", "tab here", "ok", "e/f", "plain/name",
    ])
    let renamed = imported.warnings.filter { $0.contains("is imported as") }
    #expect(renamed.count == 7)
    #expect(renamed.first == #"names.json: the request named "a/\u001b]0;P\u0007/../0//" is imported as "a/]0;P/0/get-x" (a name holds no control characters, no empty, . or .. folder and no / at either end)"#)
    #expect(renamed.contains { $0.contains(#""b//c/" is imported as "b/c/get-bc""#) })
    // None of the report's text holds a control character (a terminal would act on it).
    #expect(!imported.warnings.joined().unicodeScalars.contains { $0.properties.generalCategory == .control })

    // Into a workspace: every name passes the rules, saved and read back.
    var ws = Workspace(name: "w")
    let report = try ws.addImported(imported)
    #expect(report.added.map(\.name) == imported.templates.map(\.name))
    let reread = try Workspace.parse(ws.encoded(), file: "w.json")
    #expect(reread.requests.count == 8)
    for request in reread.requests { #expect(Workspace.problem(withName: request.name) == nil, "\(request.name)") }
  }

  /// The other importers whose names come from the input go through the same rule: an OpenAPI
  /// operation's tag and id, an `.http` request's `# @name`, a curl command pasted with a name
  /// a caller gave (`addImported` applies the rule too), and a paste in the TUI (`RequestText`).
  @Test func everyImporterNamesFollowTheSameRule() throws {
    let spec = """
      openapi: 3.0.0
      info: {title: t, version: "1"}
      paths:
        /a:
          get: {operationId: "x\\u001by", tags: [".."], responses: {"200": {description: ok}}}
        /b:
          get: {tags: ["p//q/.."], responses: {"200": {description: ok}}}
      """
    let openapi = try ImportFormat.openapi.parse(Array(spec.utf8), file: "spec.yaml")
    #expect(openapi.templates.map(\.name) == ["x y", "p/q/get-b"])

    let http = try ImportFormat.http.parse(
      Array("# @name a//b/\nGET http://127.0.0.1:9/h\n\n###\n# @name ./c\u{7}\nGET http://127.0.0.1:9/i\n".utf8), file: "r.http")
    #expect(http.templates.map(\.name) == ["a/b/get-h", "c"])

    let pasted = try RequestText.drafts(from: "# @name ../up/\u{1B}[2J\nGET http://127.0.0.1:9/p\n", source: "paste")
    #expect(pasted.imported.templates.map(\.name) == ["up/[2J"])
    #expect(pasted.imported.warnings.contains { $0.hasPrefix("paste: the request named ") })

    // A caller's own ImportedRequests (an importer used directly) meet the rule in addImported.
    var direct = try CurlImporter.parse("curl http://127.0.0.1:9/d", file: "-")
    direct.requests[0].template.name = "x//\u{7}"
    var ws = Workspace(name: "w")
    let report = try ws.addImported(direct)
    #expect(report.added.map(\.name) == ["x/get-d"])
    #expect(report.warnings.contains { $0.contains(#""x//\u0007" is imported as "x/get-d""#) })
    // A name given for the import must follow the rules itself.
    #expect(throws: WorkspaceEditError("a folder or name cannot be . or .. (\"../x\")")) {
      try ws.addImported(try CurlImporter.parse("curl http://127.0.0.1:9/e", file: "-"), name: "../x")
    }
  }
}
