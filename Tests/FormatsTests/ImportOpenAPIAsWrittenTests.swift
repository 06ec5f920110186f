import Formats
import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// `OpenAPIImporter` keeps what a description says as it says it: text holding `{{` is sent as
/// text, a tag is one folder wherever its operations are in the file, `Accept` is what the
/// responses are, and what cannot be imported is left out alone, named, the rest imported
/// (`Tests/Fixtures/openapi/template-text.yaml`, `tags-apart.yaml`, `refused-items.yaml`,
/// written for these tests).
@Suite("import openapi: as written")
struct ImportOpenAPIAsWrittenTests {
  func fixture(_ name: String) throws -> ImportedRequests {
    try OpenAPIImporter.parse(Array(try Data(contentsOf: fixtureFile("openapi/\(name)"))), file: name)
  }

  /// The requests of `imported` in a workspace, as `import` adds them.
  func workspace(_ imported: ImportedRequests) throws -> Workspace {
    var workspace = Workspace(name: "w")
    _ = try workspace.addImported(imported)
    return try Workspace.parse(workspace.encoded(), file: "w.json")
  }

  // MARK: - Text with braces

  /// Handlebars in examples (a JSON body's values and keys, a form, a text body, query, header
  /// and path examples) and in descriptions: the import succeeds, and each request sends the
  /// text as the description wrote it, with no variable to fill in.
  @Test func examplesWithBracesAreSentAsWritten() throws {
    let mailer = try fixture("template-text.yaml")
    #expect(mailer.templates.map(\.name) == ["createVersion", "sendForm", "putNote"])
    #expect(mailer.variables.map(\.name) == ["baseURL", "templateId"])
    let workspace = try workspace(mailer)
    let create = try workspace.prepare(requestNamed: "createVersion")
    #expect(create.url == "https://mail.example.test/v3/templates/tpl-{{id}}/versions?preview=Hello%20%7B%7Bfirst_name%7D%7D")
    #expect(create.headers["X-Engine"] == "{{ engine }}")
    #expect(
      try JSONParser.parse(text(create.body.bytes))
        == JSONParser.parse(
          #"""
          {"subject": "Your order {{order.id}} has shipped",
           "html_content": "<p>{{{body}}}</p>{{#if footer}}<footer>{{footer}}</footer>{{/if}}",
           "{{custom_field}}": "left open {{"}
          """#))
    #expect(text(try workspace.prepare(requestNamed: "sendForm").body.bytes) == "greeting=Hi%20%7B%7Bname%7D%7D&%7B%7Bkey%7D%7D=value")
    #expect(text(try workspace.prepare(requestNamed: "putNote").body.bytes) == "Dear {{customer}},\n{{> signature}}")
  }

  /// The one way a workspace writes two braces as text (`{{'{{'}}`), which the import uses.
  @Test func bracesAreWrittenAsTheWorkspacesLiteral() throws {
    let note = try #require(try fixture("template-text.yaml").templates.last)
    #expect(note.body == .text("Dear {{'{{'}}customer}},\n{{'{{'}}> signature}}", contentType: "text/plain"))
  }

  // MARK: - Folders

  /// The operations of a tag are together in its folder, the folders in the order of their
  /// first operation; a nested tag's folder is inside its parent's; untagged ones together.
  @Test func aTagsOperationsMakeOneFolderWhereverTheyAre() throws {
    #expect(
      try fixture("tags-apart.yaml").templates.map(\.name) == [
        "alpha/listA", "alpha/getA", "alpha/archiveA", "beta/listB", "beta/deleteB", "health", "version",
        "admin/users/listUsers", "admin/users/deleteUser", "admin/getSettings",
      ])
    // `--tag` keeps the operations with the tag, in their folders likewise.
    let beta = try OpenAPIImporter.parse(
      Array(try Data(contentsOf: fixtureFile("openapi/tags-apart.yaml"))), file: "tags-apart.yaml", options: .init(tag: "beta"))
    #expect(beta.templates.map(\.name) == ["beta/listB", "beta/deleteB", "alpha/getA"])
  }

  /// Imported again with new operations, one of a tag the workspace has a folder for joins that
  /// folder (a nested one, its own); one of a new tag goes at the end, after the user's own.
  @Test func aReimportsNewOperationJoinsItsTagsFolder() throws {
    let text = try String(contentsOf: fixtureFile("openapi/tags-apart.yaml"), encoding: .utf8)
    var workspace = Workspace(name: "w")
    _ = try workspace.addImported(try OpenAPIImporter.parse(Array(text.utf8), file: "tags-apart.yaml"))
    try workspace.addRequest(RequestTemplate(name: "mine", url: "/mine"))
    let more = text + """
        /a/{id}/restore:
          post: {operationId: restoreA, tags: [alpha]}
        /c:
          get: {operationId: listC, tags: [gamma]}
        /admin/users/{id}/lock:
          post: {operationId: lockUser, tags: [admin/users]}

      """
    let report = try workspace.addImported(try OpenAPIImporter.parse(Array(more.utf8), file: "tags-apart.yaml"))
    #expect(report.added.map(\.name) == ["alpha/restoreA", "admin/users/lockUser", "gamma/listC"])
    #expect(
      workspace.requests.map(\.name) == [
        "alpha/listA", "alpha/getA", "alpha/archiveA", "alpha/restoreA", "beta/listB", "beta/deleteB", "health", "version",
        "admin/users/listUsers", "admin/users/deleteUser", "admin/users/lockUser", "admin/getSettings", "mine", "gamma/listC",
      ])
    // The requests it updated are where they were, and a save loads back the same.
    #expect(report.updated.count == 10)
    let reread = try Workspace.parse(workspace.encoded(), file: "w.json")
    #expect(reread.requests.map(\.name) == workspace.requests.map(\.name))
  }

  // MARK: - Servers

  /// An operation whose own servers (or its path's) are elsewhere than the document's goes
  /// there: its URL is that server's, written out; the document's own server is `{{baseURL}}`.
  @Test func anOperationsOwnServerIsWhereItsRequestGoes() throws {
    let spec = """
      openapi: 3.0.3
      servers: [{url: "https://api.example.test/2.0"}]
      paths:
        /files/content:
          post:
            operationId: upload
            servers: [{url: "https://upload.example.test/2.0", description: uploads}]
        /authorize:
          servers: [{url: "https://{host}/oauth2/", variables: {host: {default: account.example.test}}}]
          get: {operationId: authorize}
        /users:
          servers: [{url: "https://api.example.test/2.0/"}]
          get: {operationId: users}
        /relative:
          get: {operationId: relative, servers: [{url: /v3}]}
      """
    let t = try OpenAPIImporter.parse(Array(spec.utf8), file: "spec.yaml").templates
    #expect(t.map(\.url) == [
      "https://upload.example.test/2.0/files/content", "https://account.example.test/oauth2/authorize", "{{baseURL}}/users",
      "{{baseURL}}/relative",
    ])
  }

  // MARK: - Accept

  /// `Accept` lists the media types of the responses that are not errors (`*/*` alone says
  /// nothing); an `Accept` parameter stays ignored, as OpenAPI says.
  @Test func acceptListsTheResponsesMediaTypes() throws {
    let spec = """
      openapi: 3.0.0
      paths:
        /a:
          get:
            parameters: [{name: Accept, in: header, example: text/plain}]
            responses:
              '200': {description: ok, content: {application/json: {}, application/xml: {}}}
              '206': {$ref: '#/components/responses/Part'}
              '404': {description: no, content: {application/problem+json: {}}}
        /b:
          get: {responses: {default: {description: any, content: {text/csv: {}}}}}
        /c:
          get: {responses: {'200': {description: any, content: {'*/*': {}}}}}
      components:
        responses:
          Part: {description: part, content: {application/json: {}, application/octet-stream: {}}}
      """
    let t = try OpenAPIImporter.parse(Array(spec.utf8), file: "spec.yaml").templates
    #expect(t[0].headers["Accept"] == "application/json, application/xml, application/octet-stream")
    #expect(t[1].headers["Accept"] == "text/csv")
    #expect(t[2].headers["Accept"] == nil)
    let petstore = try fixture("petstore.yaml").templates
    #expect(petstore[0].headers["Accept"] == "application/json")
    #expect(petstore[1].headers["Accept"] == nil)  // 201 has no content
  }

  // MARK: - Refusals

  /// What used to refuse the whole description is now read, or left out alone with a warning
  /// naming it, its place and why; the rest is imported.
  @Test func whatCannotBeImportedIsLeftOutAloneAndNamed() throws {
    let leftovers = try fixture("refused-items.yaml")
    #expect(leftovers.templates.map(\.name) == ["status", "ping", "listUsers"])
    // `openapi: 3.0`, a number; a server variable's default, a number.
    #expect(leftovers.environments == [Environment(name: "eu.example.test-8443", variables: [Variable(name: "baseURL", value: "https://eu.example.test:8443/api")])])
    let warnings = leftovers.warnings
    for expected in [
      #"refused-items.yaml:14:5: servers[1]: a server needs a "url"; the server servers[1] is left out, the rest is imported"#,
      #"refused-items.yaml:28:17: paths./legacy.get.$ref: the $ref "legacy.yaml#/paths/~1legacy/get" points into another file"#,
      #"refused-items.yaml:35:11: paths./users.get.parameters[0]: "X Trace Id" is not a valid header name; listUsers is imported without it"#,
      #"refused-items.yaml:36:11: paths./users.get.parameters[1]: the example of the header X-Note contains LF (\n), which a header cannot send; listUsers has it empty"#,
      #"refused-items.yaml:33:20: paths./users.get.security[0].session: the security scheme "session" is not declared in components.securitySchemes; the request has no auth for it"#,
      #"refused-items.yaml:42:27: paths./users.post.parameters[0].in: a parameter is in "path", "query", "header" or "cookie", not "nowhere"; POST /users (addUser) is left out, the rest is imported"#,
      #"refused-items.yaml:45:5: paths.orders: a path starts with /; the path orders is left out, the rest is imported"#,
    ] {
      #expect(warnings.contains { $0.hasPrefix(expected) }, "\(expected)")
    }
    #expect(warnings.contains { $0.contains("bundle the description into one file first") && $0.hasSuffix("GET /legacy is left out, the rest is imported") })
    // An operation written as a $ref within the file is the one it names.
    let ping = leftovers.templates[1]
    #expect(ping.imported?.operation == "ping" && ping.url == "{{baseURL}}/ping")
    let users = leftovers.templates[2]
    #expect(users.headers.fields.map(\.name) == ["X-Note"] && users.headers["X-Note"] == "")
    #expect(users.query == JSONObject([("team", "core")]) && users.auth == nil)
    // A refused operation declares nothing.
    #expect(leftovers.variables.map(\.name) == ["baseURL"])
    // Every request it wrote loads again.
    _ = try workspace(leftovers)
  }

  /// When every operation is refused there is nothing to import: the first refusal is the error,
  /// at its place, and nothing is written.
  @Test func aDescriptionWhoseEveryOperationIsRefusedIsAnError() throws {
    let spec = "openapi: 3.0.0\npaths:\n  /a:\n    get: {$ref: 'a.yaml#/get'}\n  /b:\n    get: {parameters: [{name: x}]}\n"
    #expect(throws: ImportError(
      file: "spec.yaml", location: SourceLocation(line: 4, column: 17),
      message: #"paths./a.get.$ref: the $ref "a.yaml#/get" points into another file; reqbench follows references within the file: bundle the description into one file first (e.g. `redocly bundle`)"#)) {
      try OpenAPIImporter.parse(Array(spec.utf8), file: "spec.yaml")
    }
  }
}
