import Formats
import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// `OpenAPIImporter` on Swagger 2.0 descriptions: read as the OpenAPI 3 description they stand
/// for, so they import as OpenAPI 3 does (`Tests/Fixtures/openapi/swagger2-bookshop.yaml`,
/// written for these tests, and descriptions written here for single behaviours).
@Suite("import openapi: Swagger 2.0")
struct ImportSwagger2Tests {
  func imported(_ text: String) throws -> ImportedRequests {
    try OpenAPIImporter.parse(Array(text.utf8), file: "spec.yaml")
  }

  func bookshop() throws -> ImportedRequests {
    let name = "swagger2-bookshop.yaml"
    return try OpenAPIImporter.parse(Array(try Data(contentsOf: fixtureFile("openapi/\(name)"))), file: name)
  }

  /// Schemes, host and basePath are the environments, one a scheme; the first is `baseURL`.
  @Test func schemesHostAndBasePathBecomeEnvironments() throws {
    let shop = try bookshop()
    #expect(
      shop.environments == [
        Environment(name: "books.example.test-https", variables: [Variable(name: "baseURL", value: "https://books.example.test/v1")]),
        Environment(name: "books.example.test-http", variables: [Variable(name: "baseURL", value: "http://books.example.test/v1")]),
      ])
    #expect(shop.variables.first == Variable(name: "baseURL", value: "https://books.example.test/v1"))
    #expect(shop.api == "Bookshop")
    // One scheme: the host alone names it; none: https; a scheme reqbench does not send is left out.
    let one = try imported("swagger: '2.0'\nhost: api.test\nschemes: [http, wss]\npaths: {/a: {get: {}}}\n")
    #expect(one.environments == [Environment(name: "api.test", variables: [Variable(name: "baseURL", value: "http://api.test")])])
    #expect(one.warnings.contains("spec.yaml: the scheme wss is not one reqbench sends (http, https); no environment for it"))
    let none = try imported("swagger: 2.0\nhost: api.test\nbasePath: v2\npaths: {/a: {get: {}}}\n")
    #expect(none.environments.first?.value(of: "baseURL") == "https://api.test/v2")
    // No host: the API is where the description is served.
    let relative = try imported("swagger: '2.0'\nbasePath: /api\npaths: {/a: {get: {}}}\n")
    #expect(relative.variables.first == Variable(name: "baseURL", value: "/api"))
    #expect(relative.warnings.contains { $0.contains("the server \"/api\" is relative to where the description is served") })
  }

  /// Path, query and header parameters (their `$ref`s into `parameters` followed) take their
  /// examples from `x-example` and `default`, an array joined as its `collectionFormat` says;
  /// `produces` is `Accept`, the global apiKey a header holding a secret.
  @Test func parametersProducesAndAnAPIKeyHeader() throws {
    let list = try #require(try bookshop().templates.first { $0.name == "books/listBooks" })
    #expect(list.method == .GET && list.url == "{{baseURL}}/books")
    #expect(list.query == JSONObject([("size", "20"), ("genre", "sf|fantasy")]))
    #expect(!list.isEnabled(query: "size") && list.isEnabled(query: "genre"))
    #expect(list.headers.fields.map(\.name) == ["X-Client-Trace", "Accept", "X-Shop-Key"])
    #expect(list.headers["X-Client-Trace"] == "req-1")
    #expect(list.headers["Accept"] == "application/json")
    #expect(list.headers["X-Shop-Key"] == "{{secret.shopKey}}")
    let get = try #require(try bookshop().templates.first { $0.name == "books/getBook" })
    #expect(get.url == "{{baseURL}}/books/{{bookId}}")
    #expect(get.headers["Accept"] == "application/json, application/xml")
    #expect(try bookshop().variables.contains(Variable(name: "bookId", value: "b-42")))
    let search = try #require(try bookshop().templates.first { $0.name == "search" })
    #expect(search.query == JSONObject([("q", "winter"), ("key", "{{secret.queryKey}}")]))
    #expect(search.headers["Accept"] == "text/plain")
    // A query parameter repeated once a value cannot be one query member: joined, with a warning.
    let multi = try imported(
      "swagger: '2.0'\npaths:\n  /a:\n    get:\n      parameters: [{name: id, in: query, required: true, type: array, "
        + "items: {type: string}, collectionFormat: multi, x-example: [a, b]}]\n")
    #expect(multi.templates[0].query == JSONObject([("id", "a,b")]))
    #expect(
      multi.warnings.contains(
        "spec.yaml:5:20: paths./a.get.parameters[0]: the parameter repeats once a value (collectionFormat multi); the request has one, its values joined by ,"))
  }

  /// A body parameter is the body, made from its schema (through `definitions`) under the type
  /// the operation consumes (JSON preferred); formData parameters are a form, or multipart when
  /// the operation consumes it or one is a file.
  @Test func bodyAndFormDataParametersBecomeBodies() throws {
    let t = try bookshop().templates
    let book = try json(#"{"title": "The Left Hand of Darkness", "authors": ["Ursula K. Le Guin"]}"#)
    #expect(t.first { $0.name == "books/addBook" }?.body == .json(book))
    #expect(t.first { $0.name == "books/replaceBook" }?.body == .json(book))
    #expect(t.first { $0.name == "books/replaceBook" }?.headers["Content-Type"] == nil)
    // The required fields, with their examples (x-example, default).
    #expect(t.first { $0.name == "orders/placeOrder" }?.body == .form(JSONObject([("bookId", "b-42"), ("quantity", "1")])))
    #expect(
      t.first { $0.name == "books/uploadCover" }?.body
        == .multipart([MultipartField(name: "image", value: ""), MultipartField(name: "caption", value: "Front")]))
    #expect(try bookshop().warnings.contains { $0.contains("uploadCover: a multipart part is a file") })
    // A text type, and formData without consumes naming multipart.
    let spec = """
      swagger: "2.0"
      consumes: [text/plain]
      paths:
        /note:
          post:
            parameters: [{name: note, in: body, schema: {type: string, example: hello}}]
        /login:
          post:
            parameters: [{name: user, in: formData, type: string, default: ada}]
        /avatar:
          put:
            parameters: [{name: file, in: formData, type: file}]
      """
    let other = try imported(spec).templates
    #expect(other[0].body == .text("hello", contentType: "text/plain"))
    #expect(other[1].body == .form(JSONObject([("user", "ada")])))
    #expect(other[2].body == .multipart([MultipartField(name: "file", value: "")]))
  }

  /// basic is `http` basic, apiKey stays, and each oauth2 `flow` is the OpenAPI 3 flow of the
  /// same grant: accessCode the authorization code (PKCE), application client credentials,
  /// password the password grant, implicit alone nothing (a note).
  @Test func securityDefinitionsBecomeAuth() throws {
    let shop = try bookshop()
    let t = Dictionary(uniqueKeysWithValues: shop.templates.map { ($0.name, $0) })
    #expect(t["books/addBook"]?.auth == .basic(user: "{{basicAuth-user}}", password: "{{secret.basicAuth-password}}"))
    // The operation's security wins over the document's: no X-Shop-Key there.
    #expect(t["books/addBook"]?.headers["X-Shop-Key"] == nil)
    #expect(
      t["books/getBook"]?.auth
        == .oauth2(
          OAuth2Settings(
            grant: .authorizationCode(authorizationURL: "https://auth.example.test/authorize", pkce: true, redirectURL: nil),
            tokenURL: "https://auth.example.test/token", clientId: "{{reader-client-id}}", scope: "read")))
    #expect(
      t["books/replaceBook"]?.auth
        == .oauth2(
          OAuth2Settings(
            grant: .password(username: "{{staff-user}}", password: "{{secret.staff-password}}"),
            tokenURL: "https://auth.example.test/token", clientId: "{{staff-client-id}}",
            clientSecret: "{{secret.staff-client-secret}}")))
    #expect(
      t["orders/placeOrder"]?.auth
        == .oauth2(
          OAuth2Settings(
            grant: .clientCredentials, tokenURL: "https://auth.example.test/token", clientId: "{{partner-client-id}}",
            clientSecret: "{{secret.partner-client-secret}}", scope: "stock")))
    #expect(t["books/uploadCover"]?.auth == nil)
    #expect(shop.warnings.contains { $0.contains("the oauth2 security scheme browser has only flows reqbench does not run (implicit)") })
    #expect(
      shop.secrets == ["shopKey", "basicAuth-password", "staff-client-secret", "staff-password", "partner-client-secret", "queryKey"])
  }

  /// The folders of the tags, each once: uploadCover joins the other books requests.
  @Test func requestsAreInTheirTagsFolders() throws {
    #expect(
      try bookshop().templates.map(\.name) == [
        "books/listBooks", "books/addBook", "books/getBook", "books/replaceBook", "books/uploadCover", "orders/placeOrder",
        "search",
      ])
  }

  /// A Swagger 2.0 file and the same description written as OpenAPI 3 import the same requests.
  @Test func importsAsItsOpenAPI3FormDoes() throws {
    let swagger = """
      swagger: "2.0"
      info: {title: Same, version: "1"}
      host: api.test
      schemes: [https]
      basePath: /v1
      produces: [application/json]
      paths:
        /pets/{id}:
          put:
            operationId: putPet
            tags: [pets]
            parameters:
              - {name: id, in: path, required: true, type: integer, x-example: 7}
              - {name: dry, in: query, type: boolean, default: false}
              - {name: pet, in: body, required: true, schema: {$ref: '#/definitions/Pet'}}
            responses: {200: {description: ok, schema: {$ref: '#/definitions/Pet'}}}
      definitions:
        Pet: {type: object, required: [name], properties: {name: {type: string, example: Rex}}}
      """
    let openapi = """
      openapi: 3.0.3
      info: {title: Same, version: "1"}
      servers: [{url: "https://api.test/v1"}]
      paths:
        /pets/{id}:
          put:
            operationId: putPet
            tags: [pets]
            parameters:
              - {name: id, in: path, required: true, schema: {type: integer}, example: 7}
              - {name: dry, in: query, schema: {type: boolean, default: false}}
            requestBody:
              required: true
              content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}
            responses:
              '200': {description: ok, content: {application/json: {schema: {$ref: '#/components/schemas/Pet'}}}}
      components:
        schemas:
          Pet: {type: object, required: [name], properties: {name: {type: string, example: Rex}}}
      """
    let a = try imported(swagger)
    let b = try imported(openapi)
    #expect(a.templates == b.templates)
    #expect(a.variables == b.variables && a.environments == b.environments)
  }

  /// Errors name the value as the file has it and where it is: a body parameter's schema is at
  /// its parameter, not at the request body it becomes.
  @Test func errorsPointIntoTheFileAsWritten() throws {
    let missing = try #require(
      openAPIImportError(
        """
        swagger: "2.0"
        paths:
          /a:
            post:
              parameters:
                - {name: q, in: query, type: string}
                - name: b
                  in: body
                  schema: {$ref: '#/definitions/Missing'}
        """))
    #expect(
      missing.description.hasPrefix(
        ##"spec.yaml:9:26: paths./a.post.parameters[1].schema.$ref: the $ref "#/definitions/Missing" names nothing in this file"##))
    let unnamed = try #require(openAPIImportError("swagger: '2.0'\npaths:\n  /a:\n    post:\n      parameters: [{in: formData, type: string}]\n"))
    #expect(unnamed.description == #"spec.yaml:5:20: paths./a.post.parameters[0]: a parameter needs a "name""#)
    // A scheme that cannot be read costs the request its auth, with a warning at its place.
    let scheme = try imported("swagger: '2.0'\nsecurityDefinitions: {k: {type: apiKey, in: body, name: k}}\npaths: {/a: {get: {security: [{k: []}]}}}\n")
    #expect(scheme.templates.count == 1 && scheme.templates[0].auth == nil && scheme.templates[0].headers.fields.isEmpty)
    #expect(
      scheme.warnings.contains(
        #"spec.yaml:2:45: securityDefinitions.k.in: an apiKey goes in "header", "query" or "cookie", not "body"; the requests that use the scheme k have no auth from it"#))
    let undeclared = try imported("swagger: '2.0'\npaths: {/a: {get: {security: [{nope: []}]}}}\n")
    #expect(undeclared.warnings.contains { $0.contains("the security scheme \"nope\" is not declared in securityDefinitions") })
    let old = try #require(openAPIImportError("swagger: '1.2'\npaths: {}\n"))
    #expect(old.description == "spec.yaml:1:10: swagger: Swagger 1.2 is not one reqbench imports; it reads Swagger 2.0 and OpenAPI 3.0 and 3.1")
  }
}
