import Formats
import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// `OpenAPIImporter` on the OpenAPI Initiative's published examples (`Tests/Fixtures/openapi/`,
/// CC BY 4.0, from OAI/learn.openapis.org) and on descriptions written here for what those do
/// not show (security schemes, schema cycles, errors), and `Workspace.addImported`'s re-import.
@Suite("import openapi")
struct ImportOpenAPITests {
  func fixture(_ name: String, tag: String? = nil) throws -> ImportedRequests {
    try OpenAPIImporter.parse(
      Array(try Data(contentsOf: fixtureFile("openapi/\(name)"))), file: name, options: .init(tag: tag))
  }

  func imported(_ text: String, tag: String? = nil) throws -> ImportedRequests {
    try OpenAPIImporter.parse(Array(text.utf8), file: "spec.yaml", options: .init(tag: tag))
  }

  func failure(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> ImportError? {
    openAPIImportError(text, sourceLocation: sourceLocation)
  }

  struct Counts: Equatable, CustomStringConvertible {
    var operations: Int
    var folders: [String]
    var variables: [String]
    var environments: [String]
    var bodies: [String]
    var auth: Int
    var description: String { "\(operations) ops, folders \(folders), vars \(variables), envs \(environments), bodies \(bodies), auth \(auth)" }
  }

  func counts(_ imported: ImportedRequests) -> Counts {
    let templates = imported.templates
    let folders = templates.compactMap { name -> String? in
      guard let slash = name.name.lastIndex(of: "/") else { return nil }
      return String(name.name[..<slash])
    }
    var unique: [String] = []
    for folder in folders where !unique.contains(folder) { unique.append(folder) }
    return Counts(
      operations: templates.count, folders: unique, variables: imported.variables.map(\.name),
      environments: imported.environments.map(\.name), bodies: templates.compactMap { $0.body?.kind },
      auth: templates.filter { $0.auth != nil || $0.headers.fields.contains { $0.value.contains("{{secret.") } }.count)
  }

  /// The OpenAPI Initiative's six example specifications, counted; YAML and JSON import the same.
  @Test func theOAIExamplesImportWithTheirCounts() throws {
    let expected: [(String, Counts)] = [
      ("petstore", Counts(operations: 3, folders: ["pets"], variables: ["baseURL", "petId"], environments: ["petstore.swagger.io"], bodies: ["json"], auth: 0)),
      ("petstore-expanded", Counts(operations: 4, folders: [], variables: ["baseURL", "id"], environments: ["petstore.swagger.io"], bodies: ["json"], auth: 0)),
      ("api-with-examples", Counts(operations: 2, folders: [], variables: ["baseURL"], environments: [], bodies: [], auth: 0)),
      ("uspto", Counts(operations: 3, folders: ["metadata", "search"], variables: ["baseURL", "dataset", "version"], environments: ["developer.uspto.gov"], bodies: ["form"], auth: 0)),
      ("link-example", Counts(operations: 6, folders: [], variables: ["baseURL", "username", "slug", "pid"], environments: [], bodies: [], auth: 0)),
      ("callback-example", Counts(operations: 1, folders: [], variables: ["baseURL"], environments: [], bodies: [], auth: 0)),
    ]
    for (name, want) in expected {
      let yaml = try fixture("\(name).yaml")
      #expect(counts(yaml) == want, "\(name)")
      let json = try fixture("\(name).json")
      #expect(json.templates == yaml.templates, "\(name): JSON and YAML differ")
      #expect(json.variables == yaml.variables && json.environments == yaml.environments, "\(name)")
    }
  }

  @Test func petstoreRequestsInDetail() throws {
    let petstore = try fixture("petstore.yaml")
    let names = petstore.templates.map(\.name)
    #expect(names == ["pets/listPets", "pets/createPets", "pets/showPetById"])
    let list = petstore.templates[0]
    #expect(list.method == .GET)
    #expect(list.url == "{{baseURL}}/pets")
    // The optional `limit` is there, switched off.
    #expect(list.query.keys == ["limit"])
    #expect(!list.isEnabled(query: "limit"))
    let create = petstore.templates[1]
    // Pet: required id (int64) and name (string), from the schema through its $ref.
    #expect(create.body == .json(JSONValue.object(JSONObject([("id", 0), ("name", "string")]))))
    #expect(petstore.templates[2].url == "{{baseURL}}/pets/{{petId}}")
    #expect(petstore.environments == [Environment(name: "petstore.swagger.io", variables: [Variable(name: "baseURL", value: "http://petstore.swagger.io/v1")])])
    #expect(petstore.variables.first == Variable(name: "baseURL", value: "http://petstore.swagger.io/v1"))
    #expect(petstore.warnings.contains("petstore.yaml: the path parameter petId (showPetById) has no example or default: set the variable petId"))
    #expect(petstore.templates[0].imported?.operation == "listPets")
    #expect(petstore.templates[0].imported?.api == "Swagger Petstore")
  }

  @Test func examplesWinOverSchemasAndServerVariablesTakeDefaults() throws {
    let uspto = try fixture("uspto.yaml")
    // `{scheme}://developer.uspto.gov/ds-api`, scheme's default https.
    #expect(uspto.environments.first?.value(of: "baseURL") == "https://developer.uspto.gov/ds-api")
    // Path parameters declared with their defaults.
    #expect(uspto.variables.contains(Variable(name: "dataset", value: "oa_citations")))
    #expect(uspto.variables.contains(Variable(name: "version", value: "v1")))
    let search = try #require(uspto.templates.first { $0.name == "search/perform-search" })
    #expect(search.body == .form(JSONObject([("criteria", "*:*")])))
    // No operationId: method and path.
    let callback = try fixture("callback-example.yaml")
    #expect(callback.templates.map(\.name) == ["post-streams"])
    #expect(callback.templates[0].query == JSONObject([("callbackUrl", "https://tonys-server.com")]))
    #expect(callback.templates[0].isEnabled(query: "callbackUrl"))
  }

  @Test func tagSelectsOperations() throws {
    let uspto = try fixture("uspto.yaml", tag: "search")
    #expect(uspto.templates.map(\.name) == ["search/perform-search"])
    #expect(uspto.api == nil)
    #expect(throws: ImportError.self) { try fixture("uspto.yaml", tag: "nope") }
    let bytes = Array(try Data(contentsOf: fixtureFile("openapi/uspto.yaml")))
    #expect(throws: ImportError(
      file: "uspto.yaml", location: SourceLocation(line: 34, column: 3),
      message: "paths: no operation has the tag \"nope\"; its tags: metadata, search")) {
      try OpenAPIImporter.parse(bytes, file: "uspto.yaml", options: .init(tag: "nope"))
    }
  }

  /// OpenAPI 3.1 with every security scheme kind reqbench sends.
  @Test func securitySchemesBecomeAuthWithSecrets() throws {
    let spec = """
      openapi: 3.1.0
      info: {title: Secure, version: "1"}
      servers: [{url: "https://{region}.api.test/v1/", description: Production EU, variables: {region: {default: eu}}}]
      security: [{key: []}]
      paths:
        /a:
          get: {operationId: a, responses: {'200': {description: ok}}}
        /b:
          get: {operationId: b, security: [{basicAuth: []}], responses: {}}
        /c:
          get: {operationId: c, security: [{bearer: []}, {key: []}], responses: {}}
        /d:
          get: {operationId: d, security: [{query: [], cookie: []}], responses: {}}
        /e:
          get: {operationId: e, security: [], responses: {}}
        /f:
          get: {operationId: f, security: [{oauth: [read]}], responses: {}}
      components:
        securitySchemes:
          key: {type: apiKey, in: header, name: X-API-Key}
          basicAuth: {type: http, scheme: basic}
          bearer: {type: http, scheme: bearer, bearerFormat: JWT}
          query: {type: apiKey, in: query, name: api_key}
          cookie: {type: apiKey, in: cookie, name: session}
          oauth: {type: oauth2, flows: {clientCredentials: {tokenUrl: "https://auth.test/token", scopes: {read: r}}}}
      """
    let imported = try imported(spec)
    let t = imported.templates
    #expect(t[0].headers["X-API-Key"] == "{{secret.key}}")
    #expect(t[1].auth == .basic(user: "{{basicAuth-user}}", password: "{{secret.basicAuth-password}}"))
    #expect(t[2].auth == .bearer("{{secret.bearer}}"))
    #expect(t[2].headers["X-API-Key"] == nil)  // the first alternative only
    #expect(t[3].query["api_key"] == "{{secret.query}}")
    #expect(t[3].headers["Cookie"] == "session={{secret.cookie}}")
    #expect(t[4].auth == nil && t[4].headers.fields.isEmpty)
    #expect(
      t[5].auth
        == .oauth2(
          OAuth2Settings(
            grant: .clientCredentials, tokenURL: "https://auth.test/token", clientId: "{{oauth-client-id}}",
            clientSecret: "{{secret.oauth-client-secret}}", scope: "read")))
    #expect(imported.secrets == ["key", "basicAuth-password", "bearer", "query", "cookie", "oauth-client-secret"])
    #expect(imported.variables.contains(Variable(name: "oauth-client-id", value: "")))
    #expect(imported.variables.contains(Variable(name: "basicAuth-user", value: "")))
    #expect(imported.environments == [Environment(name: "production-eu", variables: [Variable(name: "baseURL", value: "https://eu.api.test/v1")])])
  }

  /// An oauth2 scheme becomes `auth.oauth2` with the first flow reqbench runs (authorization code
  /// with PKCE first), the requirement's scopes, the client id a variable and a confidential
  /// client's secret a secret; a scheme with only `implicit` is left out with a note. The block
  /// is written to the workspace and reads back.
  @Test func oauth2SchemesBecomeOAuth2Blocks() throws {
    let spec = """
      openapi: 3.1.0
      info: {title: t, version: "1"}
      paths:
        /code:
          get: {operationId: code, security: [{code: [read, write]}], responses: {}}
        /password:
          get: {operationId: password, security: [{pw: []}], responses: {}}
        /device:
          get: {operationId: device, security: [{device: [read]}], responses: {}}
        /implicit:
          get: {operationId: implicit, security: [{implicit: []}], responses: {}}
      components:
        securitySchemes:
          code:
            type: oauth2
            flows:
              implicit: {authorizationUrl: "https://auth.test/authorize", scopes: {}}
              clientCredentials: {tokenUrl: "https://auth.test/token", scopes: {}}
              authorizationCode: {authorizationUrl: "https://auth.test/authorize", tokenUrl: "https://auth.test/token", scopes: {}}
          pw: {type: oauth2, flows: {password: {tokenUrl: /oauth/token, scopes: {}}}}
          device: {type: oauth2, flows: {deviceAuthorization: {deviceAuthorizationUrl: "https://auth.test/device", tokenUrl: "https://auth.test/token", scopes: {}}}}
          implicit: {type: oauth2, flows: {implicit: {authorizationUrl: "https://auth.test/authorize", scopes: {}}}}
      """
    let imported = try imported(spec)
    let t = imported.templates
    #expect(
      t[0].auth
        == .oauth2(
          OAuth2Settings(
            grant: .authorizationCode(authorizationURL: "https://auth.test/authorize", pkce: true, redirectURL: nil),
            tokenURL: "https://auth.test/token", clientId: "{{code-client-id}}", scope: "read write")))
    #expect(
      t[1].auth
        == .oauth2(
          OAuth2Settings(
            grant: .password(username: "{{pw-user}}", password: "{{secret.pw-password}}"), tokenURL: "/oauth/token",
            clientId: "{{pw-client-id}}", clientSecret: "{{secret.pw-client-secret}}")))
    #expect(
      t[2].auth
        == .oauth2(
          OAuth2Settings(
            grant: .deviceCode(deviceURL: "https://auth.test/device"), tokenURL: "https://auth.test/token",
            clientId: "{{device-client-id}}", scope: "read")))
    #expect(t[3].auth == nil)
    #expect(imported.warnings.contains { $0.contains("the oauth2 security scheme implicit has only flows reqbench does not run") })
    #expect(imported.secrets == ["pw-client-secret", "pw-password"])
    // Written into a workspace and read back, the blocks are the same.
    var workspace = try Workspace.parse(Array(#"{"version": 1, "requests": []}"#.utf8), file: "w.json")
    for template in t { try workspace.addRequest(template) }
    let reread = try Workspace.parse(try workspace.checkedEncoding(file: "w.json"), file: "w.json")
    #expect(reread.requests.map(\.auth) == t.map(\.auth))
  }

  @Test func schemasMakeBodiesWithRefsAllOfFormatsAndCyclesCut() throws {
    let spec = """
      openapi: 3.0.3
      info: {title: Shapes, version: "1"}
      paths:
        /nodes:
          post:
            operationId: addNode
            requestBody:
              content:
                application/xml: {schema: {type: string}}
                application/json:
                  schema: {$ref: '#/components/schemas/Node'}
        /events:
          put:
            operationId: putEvent
            requestBody: {$ref: '#/components/requestBodies/Event'}
        /given:
          patch:
            operationId: given
            requestBody:
              content:
                application/vnd.api+json:
                  examples:
                    first: {$ref: '#/components/examples/One'}
                    second: {value: {n: 2}}
      components:
        examples:
          One: {value: {n: 1}}
        requestBodies:
          Event:
            content:
              application/json:
                schema:
                  allOf:
                    - {$ref: '#/components/schemas/Base'}
                    - type: object
                      required: [at, kind, tags]
                      properties:
                        at: {type: string, format: date-time}
                        kind: {type: string, enum: [start, stop]}
                        tags: {type: array, items: {type: string, format: uuid}}
                        note: {type: string}
        schemas:
          Base:
            type: object
            properties:
              id: {type: integer, minimum: 1}
              ok: {type: boolean, default: true}
              readOnlyField: {type: string, readOnly: true}
          Node:
            type: object
            properties:
              name: {type: string, example: root}
              children: {type: array, items: {$ref: '#/components/schemas/Node'}}
              parent: {$ref: '#/components/schemas/Node'}
              value: {oneOf: [{type: number}, {type: string}]}
              maybe: {type: [string, 'null'], format: email}
      """
    let imported = try imported(spec)
    let t = imported.templates
    #expect(t[0].body == .json(try JSONParser.parse(#"{"name": "root", "children": [], "value": 0, "maybe": "user@example.com"}"#)))
    #expect(imported.warnings.contains { $0.contains("the schema #/components/schemas/Node refers back to itself") })
    #expect(t[1].body == .json(try JSONParser.parse(
      #"{"id": 1, "ok": true, "at": "2024-01-01T00:00:00Z", "kind": "start", "tags": ["00000000-0000-0000-0000-000000000000"]}"#)))
    // The first named example, through its $ref; a +json type keeps its Content-Type.
    #expect(t[2].body == .json(try JSONParser.parse(#"{"n": 1}"#)))
    #expect(t[2].headers["Content-Type"] == "application/vnd.api+json")
  }

  @Test func parametersOfThePathItemAndTheOperation() throws {
    let spec = """
      openapi: 3.0.0
      info: {title: P, version: "1"}
      paths:
        /items/{item-id}:
          parameters:
            - {name: item-id, in: path, required: true, schema: {type: integer, example: 7}}
            - {name: X-Trace, in: header, schema: {type: string}}
          get:
            operationId: getItem
            tags: [items, other]
            parameters:
              - {name: X-Trace, in: header, required: true, example: abc}
              - {name: fields, in: query, required: true, example: [a, b]}
              - {name: page, in: query, schema: {type: integer, default: 1}}
              - {name: Accept, in: header, required: true, example: text/plain}
              - {name: sid, in: cookie}
      """
    let imported = try imported(spec)
    let item = try #require(imported.templates.first)
    #expect(item.name == "items/getItem")
    #expect(item.url == "{{baseURL}}/items/{{item-id}}")
    #expect(imported.variables.contains(Variable(name: "item-id", value: "7")))
    #expect(item.headers["X-Trace"] == "abc" && item.isEnabled(header: "X-Trace"))
    #expect(item.headers["Accept"] == nil)
    #expect(item.query == JSONObject([("fields", "a,b"), ("page", "1")]))
    #expect(item.isEnabled(query: "fields") && !item.isEnabled(query: "page"))
    #expect(imported.warnings.contains { $0.contains("cookie parameters are left out (getItem has 1)") })
  }

  // MARK: - Errors

  @Test func errorsNameTheValueAndItsLine() throws {
    let notObject = try #require(failure(
      """
      openapi: 3.0.0
      info: {title: E, version: "1"}
      paths:
        /pets:
          get:
            responses: [oops]
      """))
    #expect(notObject.description == "spec.yaml:6:18: paths./pets.get.responses: expected an object, found a list")
    let badRef = try #require(failure(
      """
      openapi: 3.0.0
      paths:
        /pets:
          post:
            requestBody:
              content:
                application/json:
                  schema: {$ref: '#/components/schemas/Missing'}
      """))
    #expect(badRef.description.hasPrefix("spec.yaml:8:28: paths./pets.post.requestBody.content.application/json.schema.$ref: the $ref \"#/components/schemas/Missing\" names nothing in this file"))
    let external = try #require(failure("openapi: 3.1.0\npaths:\n  /a:\n    $ref: 'other.yaml#/paths/a'\n"))
    #expect(external.message.contains("points into another file"))
    #expect(external.location == SourceLocation(line: 4, column: 11))
    let swagger = try #require(failure("swagger: '1.2'\ninfo: {title: old}\n"))
    #expect(swagger.description.hasPrefix("spec.yaml:1:10: swagger: Swagger 1.2 is not one reqbench imports"))
    #expect(try #require(failure("openapi: 3.0.0\npaths:\n  /a:\n    get:\n      parameters: [{name: q, in: body}]\n")).description
      .hasPrefix("spec.yaml:5:34: paths./a.get.parameters[0].in: a parameter is in"))
    #expect(try #require(failure("a: [1\n")).description.hasPrefix("spec.yaml:2:1: not valid YAML"))
    #expect(try #require(failure("{\"openapi\": \"3.0.0\",}")).description.hasPrefix("spec.yaml:1:21: not valid JSON"))
    #expect(try #require(failure("title: x\n")).message.contains("not an OpenAPI description"))
    // An undeclared security scheme leaves the request without auth, with a warning.
    #expect(try imported("openapi: 3.0.0\npaths:\n  /a:\n    get: {security: [{nope: []}]}\n").warnings
      .contains { $0.contains("the security scheme \"nope\" is not declared") })
  }

  // MARK: - Re-import

  /// The petstore imported, edited by the user, changed by its authors, imported again: the
  /// request keeps its name and the user's edits, takes the description's other changes, and
  /// the report says which.
  @Test func aReimportUpdatesItsRequestsAndKeepsTheUsersEdits() throws {
    let original = try String(contentsOf: fixtureFile("openapi/petstore.yaml"), encoding: .utf8)
    var workspace = Workspace(name: "pets")
    let first = try workspace.addImported(try imported(original))
    #expect(first.added.count == 3 && first.updated.isEmpty)
    // A save and a load keep the origins.
    workspace = try Workspace.parse(workspace.encoded(), file: "pets.json")
    #expect(workspace.requests.allSatisfy { $0.imported != nil })

    // The user renames one, edits createPets' body and a field the import does not set.
    try workspace.renameRequest("pets/showPetById", to: "pets/show")
    let create = try #require(workspace.requests.firstIndex { $0.name == "pets/createPets" })
    workspace.requests[create].body = .json(try JSONParser.parse(#"{"id": 9, "name": "Rex"}"#))
    workspace.requests[create].timeout = 5

    // The authors change the Pet schema (createPets' body), a path, and add an operation.
    let changed = original
      .replacingOccurrences(of: "  /pets/{petId}:", with: "  /pet/{petId}:")
      .replacingOccurrences(of: "        - id\n        - name", with: "        - id\n        - name\n        - tag")
      + ""
    let again = try workspace.addImported(try imported(changed))
    #expect(again.added.isEmpty)
    #expect(workspace.requests.count == 3)
    let report = Dictionary(uniqueKeysWithValues: again.updated.map { ($0.name, $0) })
    #expect(report["pets/listPets"]?.changed == [] && report["pets/listPets"]?.kept == [])
    #expect(report["pets/show"]?.changed == ["url"])
    #expect(report["pets/createPets"]?.kept == ["body"])
    let show = try #require(workspace.request(named: "pets/show"))
    #expect(show.url == "{{baseURL}}/pet/{{petId}}")
    let kept = try #require(workspace.request(named: "pets/createPets"))
    #expect(kept.body == .json(try JSONParser.parse(#"{"id": 9, "name": "Rex"}"#)))
    #expect(kept.timeout == 5)

    // The user puts the body back as the import wrote it last: the next import takes the new one.
    workspace.requests[create].body = .json(try JSONParser.parse(#"{"id": 0, "name": "string", "tag": "string"}"#))
    let third = try workspace.addImported(try imported(changed))
    #expect(third.updated.allSatisfy { $0.changed.isEmpty && $0.kept.isEmpty })

    // An operation gone from the description is reported, and kept.
    let fewer = changed.replacingOccurrences(of: "operationId: listPets", with: "operationId: listAllPets")
    let fourth = try workspace.addImported(try imported(fewer))
    #expect(fourth.added.map(\.name) == ["pets/listAllPets"])
    #expect(fourth.gone == ["pets/listPets"])
    #expect(workspace.request(named: "pets/listPets") != nil)
  }

  @Test func serversMergeIntoExistingEnvironments() throws {
    var workspace = try Workspace.parse(
      Array(#"{"version": 1, "environments": {"petstore.swagger.io": {"baseURL": "http://127.0.0.1:1/v1", "token": "t"}}}"#.utf8),
      file: "w.json")
    let report = try workspace.addImported(try fixture("petstore.yaml"))
    #expect(report.environmentsAdded.isEmpty)
    #expect(report.warnings.contains { $0.contains("the environment petstore.swagger.io already sets baseURL to \"http://127.0.0.1:1/v1\"; kept it") })
    #expect(workspace.environments[0].variables.map(\.name) == ["baseURL", "token"])
  }
}
