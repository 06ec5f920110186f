import Formats
import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// Bruno collections (`Tests/Fixtures/bruno/shop`, written for these tests): folders, `seq`
/// order, headers merged from the collection and folders, inherited auth, bodies as written,
/// environments, and what is left out.
@Suite("Bruno import")
struct ImportBrunoTests {
  func shop() throws -> ImportedRequests {
    try BrunoImporter.parse(folder: fixtureFile("bruno/shop"))
  }

  @Test func aCollectionBecomesRequestsInFoldersInSeqOrder() throws {
    let imported = try shop()
    #expect(imported.templates.map(\.name) == ["Log in", "Users/Get user", "Users/Create user", "Search", "Upload"])
    #expect(imported.variables == [Variable(name: "apiVersion", value: "v2")])
    #expect(
      imported.environments == [
        Environment(
          name: "Local",
          variables: [
            Variable(name: "host", value: "http://127.0.0.1:8080"), Variable(name: "token", value: "local-token"),
            Variable(name: "apiKey", value: "{{secret.apiKey}}"),
          ])
      ])
    #expect(imported.secrets == ["apiKey"])
  }

  @Test func headersMergeFromTheCollectionAndFoldersAndAuthIsInherited() throws {
    let t = try shop().templates
    let get = t[1]
    #expect(get.method == .GET)
    #expect(get.url == "{{host}}/{{apiVersion}}/users/42?expand=roles")
    #expect(get.headers.fields.map(\.name) == ["x-client", "x-debug", "accept"])
    #expect(get.switchedOff.headers == ["x-debug"])
    #expect(get.auth == .basic(user: "ada", password: "{{password}}"))
    #expect(get.body == nil)
    // The root's requests take the collection's bearer auth; `auth: none` has none.
    #expect(t[3].auth == .bearer("{{token}}"))
    #expect(t[0].auth == nil)
  }

  @Test func bodiesAreSentAsWritten() throws {
    let t = try shop().templates
    #expect(t[0].body == .form(JSONObject([("user", "ada"), ("password", "p&ss word")])))
    #expect(
      t[2].body == .text("{\n  \"name\": \"Ada\",\n  \"note\": \"{{'{{'}} not a variable\"\n}", contentType: "application/json"))
    #expect(t[2].headers["x-request-id"] == "{{env.REQUEST_ID}}")
    #expect(
      t[3].body
        == .json(
          .object(
            JSONObject([("query", "query Search($q: String) {\n  search(q: $q) { id }\n}"), ("variables", ["q": "engines"])]))))
    #expect(
      t[4].body
        == .multipart([MultipartField(name: "title", value: "Notes"), MultipartField(name: "file", file: "files/notes.txt", type: "text/plain")]))
  }

  @Test func scriptsTestsAndMadeUpValuesAreNamedInWarnings() throws {
    let warnings = try shop().warnings
    #expect(warnings.contains { $0.hasPrefix("collection.bru: script:pre-request left out") })
    #expect(warnings.contains { $0.hasPrefix("users/Create user.bru: tests left out") })
    #expect(
      warnings.contains {
        $0.hasPrefix("random.bru:8:1: {{$randomInt}} is a value Bruno makes up") && $0.hasSuffix("this request is not imported, the others are")
      })
  }

  @Test func theBruGrammar() throws {
    let imported = try BrunoImporter.parse(
      Array(
        """
        meta {
          name: Quoted
          seq: 1
          tags: [
            smoke
            slow
          ]
        }

        http {
          method: PURGE
          url: https://a.test/cache
          body: text
          auth: none
        }

        headers {
          @description('''
            the key has a colon
          ''')
          "x-quoted": "quoted \\" value"
          ~x-off: 1
        }

        body:text {

          line one
            indented
          {{ open
        }

        settings {
          followRedirects: false
          timeout: 2500
        }
        """.utf8), file: "quoted.bru")
    let t = try #require(imported.templates.first)
    #expect(t.name == "Quoted")
    #expect(t.method.rawValue == "PURGE")
    #expect(t.headers.fields.map(\.name) == ["x-quoted", "x-off"])
    #expect(t.headers["x-quoted"] == #""quoted \" value""#)
    #expect(t.switchedOff.headers == ["x-off"])
    #expect(t.body == .text("line one\n  indented\n{{'{{'}} open", contentType: "text/plain"))
    #expect(!t.followRedirects && t.timeout == 2.5)
  }

  @Test func oauth2ClientCredentialsAreMappedTheirSecretToAVariable() throws {
    let imported = try BrunoImporter.parse(
      Array(
        """
        meta {
          name: Token
        }

        get {
          url: https://a.test/me
          body: none
          auth: oauth2
        }

        auth:oauth2 {
          grant_type: client_credentials
          access_token_url: https://a.test/token
          client_id: svc
          client_secret: s3cr3t-value
          scope: read
          credentials_placement: basic_auth_header
        }
        """.utf8), file: "token.bru")
    #expect(
      imported.templates.first?.auth
        == .oauth2(
          OAuth2Settings(
            grant: .clientCredentials, tokenURL: "https://a.test/token", clientId: "svc",
            clientSecret: "{{oauth2-client-secret}}", scope: "read", clientAuth: .basic)))
    #expect(imported.variables == [Variable(name: "oauth2-client-secret", value: "s3cr3t-value")])
    #expect(imported.sensitiveVariables == ["oauth2-client-secret"])
  }

  @Test func anEnvironmentFileAlone() throws {
    let imported = try BrunoImporter.parse(Array("vars {\n  host: http://x.test\n}\n".utf8), file: "environments/Staging.bru")
    #expect(imported.environments == [Environment(name: "Staging", variables: [Variable(name: "host", value: "http://x.test")])])
  }

  /// The collection's requests on the wire: Bruno's content types after the headers, the
  /// inherited Authorization, the JSON body's bytes as written.
  @Test func theCollectionSendsWhatBrunoSends() throws {
    let server = try RecordingServer()
    defer { server.stop() }
    var workspace = Workspace(name: "shop")
    _ = try workspace.addImported(try shop())
    workspace.variables += [Variable(name: "host", value: server.baseURL), Variable(name: "password", value: "lovelace")]
    let sources = VariableSources(processEnvironment: ["REQUEST_ID": "r-1"])
    let agent = Agent()
    defer { agent.shutdown() }
    let ignored: Set<String> = ["host", "user-agent", "accept-encoding", "content-length", "accept"]
    func send(_ name: String) throws -> (String, [String], String) {
      let count = server.requests.count
      let result = agent.sendAndWait(try workspace.prepare(try #require(workspace.request(named: name)), sources: sources))
      #expect(result.error == nil, "\(name): \(String(describing: result.error))")
      let sent = try #require(server.waitFor(count + 1).last)
      return (
        sent.requestLine, sent.headers.filter { !ignored.contains($0.name.lowercased()) }.map(\.description),
        String(decoding: sent.body, as: UTF8.self)
      )
    }
    let create = try send("Users/Create user")
    #expect(create.0 == "POST /users HTTP/1.1")
    #expect(
      create.1 == [
        "x-client: reqbench-test", "x-request-id: r-1", "Authorization: Basic YWRhOmxvdmVsYWNl", "Content-Type: application/json",
      ])
    #expect(create.2 == "{\n  \"name\": \"Ada\",\n  \"note\": \"{{ not a variable\"\n}")
    let get = try send("Users/Get user")
    #expect(get.0 == "GET /v2/users/42?expand=roles HTTP/1.1")
    let login = try send("Log in")
    #expect(login.2 == "user=ada&password=p%26ss%20word")
  }
}
