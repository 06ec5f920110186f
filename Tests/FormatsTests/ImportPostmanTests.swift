import Formats
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

private func postman(_ text: String) throws -> ImportedRequests {
  try PostmanImporter.parse(Array(text.utf8), file: "collection.json")
}

private func postmanError(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation)
  -> ImportError?
{
  do {
    _ = try PostmanImporter.parse(Array(text.utf8), file: "collection.json")
    Issue.record("expected the import to fail", sourceLocation: sourceLocation)
    return nil
  } catch {
    return error
  }
}

/// A collection of one request whose body is `body`, the body starting on line 6.
private func oneRequest(body: String, method: String = "POST") -> String {
  """
  {
    "info": {"name": "x", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
    "item": [
      {"name": "Upload", "request": {
        "method": "\(method)", "url": "https://a.test/upload",
        "body": \(body)
      }}
    ]
  }
  """
}

@Suite("Postman import")
struct ImportPostmanTests {
  let collection = #"""
    {
      "info": {
        "_postman_id": "5f1c2d3e-0000-4000-8000-000000000000",
        "name": "Shop API",
        "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"
      },
      "auth": {"type": "bearer", "bearer": [{"key": "token", "value": "{{token}}", "type": "string"}]},
      "item": [
        {
          "name": "Users",
          "item": [
            {
              "name": "Get user",
              "request": {
                "method": "GET",
                "header": [
                  {"key": "Accept", "value": "application/json"},
                  {"key": "X-Debug", "value": "1", "disabled": true}
                ],
                "url": {
                  "raw": "{{baseUrl}}/users/:id?verbose=1&fields=name",
                  "host": ["{{baseUrl}}"],
                  "path": ["users", ":id"],
                  "query": [
                    {"key": "verbose", "value": "1"},
                    {"key": "fields", "value": "name"},
                    {"key": "debug", "value": "true", "disabled": true}
                  ],
                  "variable": [{"key": "id", "value": "42"}]
                }
              },
              "response": []
            },
            {
              "name": "Admin",
              "auth": {"type": "basic", "basic": [
                {"key": "password", "value": "s3cret", "type": "string"},
                {"key": "username", "value": "admin", "type": "string"}
              ]},
              "item": [
                {
                  "name": "Create user",
                  "event": [{"listen": "test", "script": {
                    "exec": ["pm.test(\"created\", () => pm.response.to.have.status(201));"],
                    "type": "text/javascript"}}],
                  "request": {
                    "method": "POST",
                    "header": [{"key": "Content-Type", "value": "application/json"}],
                    "body": {"mode": "raw", "raw": "{\n  \"name\": \"Ada\",\n  \"admin\": false\n}",
                             "options": {"raw": {"language": "json"}}},
                    "url": {"raw": "{{baseUrl}}/users", "host": ["{{baseUrl}}"], "path": ["users"]}
                  }
                }
              ]
            }
          ]
        },
        {
          "name": "Login",
          "request": {
            "auth": {"type": "noauth"},
            "method": "POST",
            "header": [],
            "body": {"mode": "urlencoded", "urlencoded": [
              {"key": "user", "value": "ada", "type": "text"},
              {"key": "pass", "value": "p&ss word", "type": "text"},
              {"key": "otp", "value": "", "type": "text", "disabled": true}
            ]},
            "url": "https://shop.test/login"
          }
        },
        {
          "name": "Note",
          "request": {
            "method": "PUT",
            "header": [{"key": "Content-Type", "value": "text/markdown"}],
            "body": {"mode": "raw", "raw": "# Hello"},
            "url": {"protocol": "https", "host": ["shop", "test"], "port": "8443", "path": ["notes", "1"]}
          }
        },
        {
          "name": "Search",
          "request": {
            "method": "POST",
            "auth": {"type": "apikey", "apikey": [{"key": "key", "value": "X-Key"}, {"key": "value", "value": "{{searchKey}}"}]},
            "body": {"mode": "graphql", "graphql": {"query": "query { products { id } }", "variables": "{\"first\": 10}"}},
            "url": "{{baseUrl}}/graphql"
          }
        }
      ],
      "variable": [
        {"key": "baseUrl", "value": "https://shop.test/api"},
        {"key": "token", "value": "abc"},
        {"key": "old", "value": "x", "disabled": true}
      ]
    }
    """#

  @Test func foldersBecomeNamePrefixes() throws {
    let imported = try postman(collection)
    #expect(
      imported.templates.map(\.name) == [
        "Users/Get user", "Users/Admin/Create user", "Login", "Note", "Search",
      ])
    #expect(imported.requests.first?.location == SourceLocation(line: 12, column: 9))
  }

  @Test func urlObjectsQueryListsAndPathVariables() throws {
    let get = try postman(collection).templates[0]
    #expect(get.method == .GET)
    // `raw` as written, its query included; a disabled parameter is kept, switched off.
    #expect(get.url == "{{baseUrl}}/users/42?verbose=1&fields=name")
    #expect(get.query == JSONObject([("debug", "true")]))
    #expect(get.sentQuery == JSONObject())
    #expect(get.headers == ["Accept": "application/json", "X-Debug": "1"])
    #expect(get.sentHeaders == ["Accept": "application/json"])
    #expect(!get.isEnabled(header: "x-debug") && !get.isEnabled(query: "debug"))
    let note = try postman(collection).templates[3]
    #expect(note.url == "https://shop.test:8443/notes/1")
  }

  @Test func everyBodyMode() throws {
    let templates = try postman(collection).templates
    // raw JSON: the text as written, its Content-Type header where it was.
    #expect(templates[1].body == .text("{\n  \"name\": \"Ada\",\n  \"admin\": false\n}", contentType: nil))
    #expect(templates[1].headers == ["Content-Type": "application/json"])
    // urlencoded, disabled fields skipped.
    #expect(templates[2].body == .form(JSONObject([("user", "ada"), ("pass", "p&ss word")])))
    // raw text with its Content-Type.
    #expect(templates[3].body == .text("# Hello", contentType: nil))
    #expect(templates[3].headers == ["Content-Type": "text/markdown"])
    // GraphQL: the JSON Postman sends.
    #expect(
      templates[4].body
        == .json(["query": "query { products { id } }", "variables": ["first": 10]]))
  }

  @Test func authIsInheritedFromFoldersAndTheCollection() throws {
    let imported = try postman(collection)
    let auth = imported.templates.map(\.auth)
    #expect(auth[0] == .bearer("{{token}}"))
    #expect(auth[1] == .basic(user: "admin", password: "s3cret"))
    #expect(auth[2] == nil)
    #expect(auth[3] == .bearer("{{token}}"))
    #expect(auth[4] == nil)
  }

  @Test func variablesAndWarnings() throws {
    let imported = try postman(collection)
    #expect(
      imported.variables == [
        Variable(name: "baseUrl", value: "https://shop.test/api"),
        Variable(name: "token", value: "abc"),
      ])
    #expect(imported.warnings == ["collection.json: 1 item has pre-request or test scripts; scripts are not imported"])
    // An apikey auth is a header of its key name, marked a credential.
    let search = try #require(imported.requests.first { $0.template.name.hasSuffix("Search") })
    #expect(search.template.headers["X-Key"] == "{{searchKey}}" && search.credentials == [.header("X-Key")])
  }

  /// `apikey` in the query; a literal key is moved to the secrets file whatever its name
  /// (`key` alone is no key name), and the request's own parameter of that name wins.
  @Test func anApiKeyAuthInTheQueryIsACredential() throws {
    func collection(_ query: String) -> String {
      """
      {"info": {"name": "x", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
       "auth": {"type": "apikey", "apikey": [{"key": "key", "value": "key"}, {"key": "value", "value": "AIza-123456"},
                                            {"key": "in", "value": "query"}]},
       "item": [{"name": "geo", "request": {"method": "GET", "url": "https://maps.test/geo\(query)"}}]}
      """
    }
    var imported = try postman(collection(""))
    #expect(imported.requests[0].template.query["key"] == .string("AIza-123456"))
    #expect(imported.requests[0].credentials == [.query("key")])
    let moved = ImportedCredentials.extract(from: &imported, known: SecretsFile())
    #expect(moved == [.init(name: "key", value: "AIza-123456")])
    #expect(imported.requests[0].template.query["key"] == .string("{{secret.key}}"))
    let own = try postman(collection("?key=mine-7890"))
    #expect(own.requests[0].template.query["key"] == .string("mine-7890"), "the request's own wins")
    let nameless = try postman(
      #"{"info": {"name": "x"}, "item": [{"name": "a", "request": {"url": "https://a.test/", "auth": {"type": "apikey", "apikey": []}}}]}"#)
    #expect(nameless.warnings.first?.contains("apikey without a key name") == true)
  }

  @Test func formDataBecomesAMultipartBody() throws {
    let t = try #require(
      try postman(
        oneRequest(
          body: #"""
            {"mode": "formdata", "formdata": [
              {"key": "note", "value": "hello {{who}}", "type": "text"},
              {"key": "off", "value": "x", "type": "text", "disabled": true},
              {"key": "meta", "value": "{\"a\": 1}", "type": "text", "contentType": "application/json"},
              {"key": "photo", "type": "file", "src": "img/a.png", "contentType": "image/png"},
              {"key": "many", "type": "file", "src": ["a.txt", "docs/b.txt"]},
              {"key": "plain", "value": 3}
            ]}
            """#)
      ).templates.first)
    #expect(
      t.body
        == .multipart([
          MultipartField(name: "note", value: "hello {{who}}"),
          MultipartField(name: "meta", value: #"{"a": 1}"#, type: "application/json"),
          MultipartField(name: "photo", file: "img/a.png", type: "image/png"),
          MultipartField(name: "many", file: "a.txt"),
          MultipartField(name: "many", file: "docs/b.txt"),
          MultipartField(name: "plain", value: "3"),
        ]))
    let file = try postman(oneRequest(body: #"{"mode": "file", "file": {"src": "data/a.bin"}}"#, method: "PUT"))
    #expect(file.templates.first?.body == .file("data/a.bin", contentType: nil))
  }

  @Test func formDataAndFileErrorsNameTheRequest() {
    // Postman writes the absolute path of the file it was given.
    let absolute = postmanError(
      oneRequest(
        body: #"{"mode": "formdata", "formdata": [{"key": "f", "type": "file", "src": "/Users/ada/a.png"}]}"#))
    #expect(absolute?.location == SourceLocation(line: 6, column: 85))
    #expect(
      absolute?.message
        == #"request "Upload": "/Users/ada/a.png" is absolute; paths are relative to the workspace's "#
        + "folder; copy the file into the workspace's folder and write its path relative to that folder")
    #expect(
      postmanError(
        oneRequest(body: #"{"mode": "formdata", "formdata": [{"key": "f", "type": "file", "src": null}]}"#)
      )?.message == #"request "Upload": the form-data file "f" has no file chosen ("src"); choose one in Postman, or remove the entry"#)
    #expect(
      postmanError(oneRequest(body: #"{"mode": "file", "file": {"src": "C:\\x\\a.bin"}}"#))?.message
        .contains("is absolute") == true)
    #expect(
      postmanError(oneRequest(body: #"{"mode": "file", "file": {"src": "../a.bin"}}"#))?.message
        .contains("leaves the workspace's folder") == true)
    #expect(
      postmanError(oneRequest(body: #"{"mode": "file", "file": {}}"#))?.message.contains(
        "no file chosen") == true)
  }

  @Test func rawBodiesByLanguage() throws {
    let json = try postman(
      oneRequest(
        body: #"{"mode": "raw", "raw": "[1, 2]", "options": {"raw": {"language": "json"}}}"#))
    #expect(json.templates.first?.body == .text("[1, 2]", contentType: "application/json"))
    let notJSON = try postman(
      oneRequest(
        body: #"{"mode": "raw", "raw": "{{payload}}", "options": {"raw": {"language": "json"}}}"#))
    #expect(notJSON.templates.first?.body == .text("{{payload}}", contentType: "application/json"))
    let xml = try postman(
      oneRequest(body: #"{"mode": "raw", "raw": "<a/>", "options": {"raw": {"language": "xml"}}}"#))
    #expect(xml.templates.first?.body == .text("<a/>", contentType: "application/xml"))
  }

  /// An environment export becomes an environment of its name; switched-off values are left
  /// out, secret ones listed; a globals export becomes workspace variables.
  @Test func environmentAndGlobalsExports() throws {
    let environment = try postman(
      """
      {"id": "5f1", "name": " Staging ", "_postman_variable_scope": "environment",
       "values": [
         {"key": "baseUrl", "value": "https://staging.shop.test", "type": "default", "enabled": true},
         {"key": "password", "value": "pa55", "type": "secret", "enabled": true},
         {"key": "old", "value": "x", "type": "default", "enabled": false},
         {"key": "count", "value": 3, "type": "default"}
       ]}
      """)
    #expect(environment.requests.isEmpty && environment.variables.isEmpty)
    #expect(
      environment.environments == [
        Environment(
          name: "Staging",
          variables: [
            Variable(name: "baseUrl", value: "https://staging.shop.test"), Variable(name: "password", value: "pa55"),
            Variable(name: "count", value: "3"),
          ])
      ])
    #expect(environment.sensitiveVariables == ["password"])
    let globals = try postman(
      #"{"name": "Globals", "_postman_variable_scope": "globals", "values": [{"key": "region", "value": "eu"}]}"#)
    #expect(globals.variables == [Variable(name: "region", value: "eu")] && globals.environments.isEmpty)
    // Without a name: said where. A key that cannot be a variable's is left out, said where.
    let unnamed = postmanError(#"{"values": []}"#)
    #expect(unnamed?.message.contains("needs a \"name\"") == true && unnamed?.location == SourceLocation(line: 1, column: 1))
    let badKey = try postman("{\"name\": \"e\",\n \"values\": [{\"key\": \"a b\", \"value\": \"1\"}, {\"key\": \"ok\", \"value\": \"2\"}]}")
    #expect(badKey.environments.first?.variables == [Variable(name: "ok", value: "2")])
    #expect(badKey.warnings.contains { $0.hasPrefix("collection.json:2:21: the variable \"a b\" is not imported") }, "\(badKey.warnings)")
  }

  @Test func malformedCollectionsAreReportedWithLineAndColumn() {
    #expect(
      postmanError("{\n  \"info\": {\"name\": \"x\"},\n  \"item\": [\n}")?.description
        == "collection.json:4:1: a Postman collection is JSON, and this is not: unexpected character '}'; expected a value"
    )
    #expect(postmanError(#"{"item": []}"#)?.location == SourceLocation(line: 1, column: 1))
    let v1 = postmanError(
      """
      {
        "info": {"name": "x",
                 "schema": "https://schema.getpostman.com/json/collection/v1.0.0/collection.json"},
        "item": []
      }
      """)
    #expect(v1?.location == SourceLocation(line: 3, column: 22))
    #expect(v1?.message.contains("export it again as Collection v2.1") == true)
    let method = postmanError(oneRequest(body: "null", method: "PROP FIND"))
    #expect(method?.location == SourceLocation(line: 5, column: 17))
    #expect(method?.message.hasPrefix(#"request "Upload": "PROP FIND" is not a method"#) == true)
  }
}
