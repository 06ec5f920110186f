import Foundation
import RequestEngine
import TestSupport
import Testing

/// `reqbench import openapi` through the real binary: the OAI petstore imported, then run
/// against the fixture server (what it received is checked), httpbin's own Swagger 2.0
/// description and descriptions written for these tests run against httpbin (what it echoes is
/// checked), a re-import's report, and an error that writes nothing.
@Suite("reqbench import openapi")
struct ImportOpenAPICommandTests {
  func copy(_ fixture: String, into folder: URL, named name: String? = nil) throws -> String {
    let path = folder.appendingPathComponent(name ?? fixture).path
    try Data(contentsOf: fixtureFile("openapi/\(fixture)")).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// The petstore round trip: each imported request reaches the server as the description says.
  @Test func theImportedPetstoreRunsAgainstTheFixtureServer() throws {
    let (ws, folder) = try workspaceFile(#"{"version": 1, "requests": []}"#, named: "pets.json")
    defer { try? FileManager.default.removeItem(at: folder) }
    let spec = try copy("petstore.yaml", into: folder)
    let imported = try runProcess(try reqbenchBinary, ["import", "openapi", spec, "--into", ws])
    #expect(imported.status == 0, "\(imported.stderr)")
    #expect(imported.stderr.contains("imported pets/listPets (GET {{baseURL}}/pets)"))
    #expect(imported.stderr.contains("added environments: petstore.swagger.io"))
    let base = try TestServer.fixture.url("/anything/v1")
    let vars = ["--var", "baseURL=\(base)", "--var", "petId=7", "--no-history"]

    let list = try runProcess(try reqbenchBinary, ["run", ws, "pets/listPets"] + vars)
    #expect(list.status == 0, "\(list.stderr)")
    let listed = try JSONParser.parse(list.stdout)
    #expect(listed["method"]?.stringValue == "GET")
    #expect(listed["path"]?.stringValue == "/anything/v1/pets")
    #expect(listed["rawQuery"]?.stringValue == "")  // limit is optional: switched off

    let create = try runProcess(try reqbenchBinary, ["run", ws, "pets/createPets"] + vars)
    #expect(create.status == 0, "\(create.stderr)")
    let created = try JSONParser.parse(create.stdout)
    #expect(created["method"]?.stringValue == "POST")
    #expect(try JSONParser.parse(created["body"]?.stringValue ?? "") == JSONParser.parse(#"{"id": 0, "name": "string"}"#))
    #expect(created["headers"]?["Content-Type"]?.stringValue?.hasPrefix("application/json") ?? false)

    let show = try runProcess(try reqbenchBinary, ["run", ws, "pets/showPetById"] + vars)
    #expect(show.status == 0, "\(show.stderr)")
    #expect(try JSONParser.parse(show.stdout)["path"]?.stringValue == "/anything/v1/pets/7")
  }

  @Test func aReimportReportsWhatChanged() throws {
    let (ws, folder) = try workspaceFile(#"{"version": 1, "requests": []}"#, named: "pets.json")
    defer { try? FileManager.default.removeItem(at: folder) }
    let spec = try copy("petstore.yaml", into: folder)
    #expect(try runProcess(try reqbenchBinary, ["import", "openapi", spec, "--into", ws]).status == 0)
    let text = try String(contentsOf: URL(fileURLWithPath: spec), encoding: .utf8)
    try text.replacingOccurrences(of: "  /pets/{petId}:", with: "  /v2/pets/{petId}:")
      .write(toFile: spec, atomically: true, encoding: .utf8)
    let again = try runProcess(try reqbenchBinary, ["import", "openapi", spec, "--into", ws])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stderr.contains("unchanged pets/listPets"))
    #expect(again.stderr.contains("updated pets/showPetById: url"))
    #expect(!again.stderr.contains("imported "))
    let workspace = try JSONParser.parse(try String(contentsOfFile: ws, encoding: .utf8))
    #expect(workspace["requests"]?.arrayValue?.count == 3)
  }

  /// A bad description is reported at FILE:LINE:COLUMN, and the workspace is not touched.
  @Test func anErrorWritesNothing() throws {
    let before = #"{"version": 1, "requests": [{"name": "keep", "url": "http://127.0.0.1:1/"}]}"#
    let (ws, folder) = try workspaceFile(before, named: "w.json")
    defer { try? FileManager.default.removeItem(at: folder) }
    let spec = folder.appendingPathComponent("spec.yaml").path
    try "openapi: 3.0.0\ninfo: {title: T, version: '1'}\npaths:\n  /pets:\n    get:\n      responses: nope\n"
      .write(toFile: spec, atomically: true, encoding: .utf8)
    let result = try runProcess(try reqbenchBinary, ["import", "openapi", spec, "--into", ws])
    #expect(result.status == 2)
    #expect(result.stderr.contains("spec.yaml:6:18: paths./pets.get.responses: expected an object, found the string \"nope\""))
    #expect(try String(contentsOfFile: ws, encoding: .utf8) == before)
    // Standard input, JSON, --tag.
    let json = try String(contentsOf: fixtureFile("openapi/uspto.json"), encoding: .utf8)
    let tagged = try runProcess(try reqbenchBinary, ["import", "openapi", "-", "--into", ws, "--tag", "metadata"], stdin: json)
    #expect(tagged.status == 0, "\(tagged.stderr)")
    #expect(tagged.stderr.contains("imported metadata/list-data-sets"))
    #expect(!tagged.stderr.contains("search/"))
    let misuse = try runProcess(try reqbenchBinary, ["import", "har", spec, "--into", ws, "--tag", "x"])
    #expect(misuse.status == 2 && misuse.stderr.contains("--tag is for import openapi"))
  }

  // MARK: - Against httpbin

  /// The fixture `fixture` imported into a new workspace `name`: its path, its folder (to
  /// remove) and what the import said.
  func importFixture(_ fixture: String, into name: String) throws -> (ws: String, folder: URL, said: String) {
    let (ws, folder) = try workspaceFile(#"{"version": 1, "requests": []}"#, named: name)
    let spec = try copy(fixture, into: folder)
    let imported = try runProcess(try reqbenchBinary, ["import", "openapi", spec, "--into", ws])
    #expect(imported.status == 0, "\(imported.stderr)")
    return (ws, folder, imported.stderr)
  }

  /// Runs `target` of `workspace` and parses the body httpbin sends back.
  func echo(
    _ workspace: String, _ target: String, _ arguments: [String] = [], environment: [String: String] = [:]
  ) throws -> JSONValue {
    let run = try runProcess(try reqbenchBinary, ["run", workspace, target, "--no-history"] + arguments, environment: environment)
    #expect(run.status == 0, "\(target): \(run.stderr)")
    return try JSONParser.parse(run.stdout)
  }

  /// `value` with every object's keys in order (httpbin sorts the keys of what it echoes).
  func sorted(_ value: JSONValue?) -> JSONValue? {
    switch value {
    case .object(let object)?:
      .object(JSONObject(object.members.sorted { $0.key < $1.key }.map { (key: $0.key, value: sorted($0.value) ?? .null) }))
    case .array(let items)?: .array(items.map { sorted($0) ?? .null })
    default: value
    }
  }

  /// The path of the URL httpbin says it was asked for.
  func path(_ echoed: JSONValue) -> String? {
    echoed["url"]?.stringValue.flatMap { URLComponents(string: $0)?.path }
  }

  /// The Swagger 2.0 description httpbin serves about itself (flasgger's `/spec.json`) imports
  /// with a folder a tag, and its requests reach httpbin as the description says: the path with
  /// its parameters, the query, `Accept` from `produces`, a formData body.
  @Test func httpbinsOwnSwaggerDescriptionImportsAndRunsAgainstIt() throws {
    let (ws, folder) = try workspaceFile(#"{"version": 1, "requests": []}"#, named: "httpbin.json")
    defer { try? FileManager.default.removeItem(at: folder) }
    let fetch = folder.appendingPathComponent("fetch.json").path
    try #"{"version": 1, "requests": [{"name": "spec", "url": "\#(try TestServer.httpbin.url("/spec.json"))"}]}"#
      .write(toFile: fetch, atomically: true, encoding: .utf8)
    let fetched = try runProcess(try reqbenchBinary, ["run", fetch, "spec", "--no-history"])
    #expect(fetched.status == 0, "\(fetched.stderr)")
    #expect(try JSONParser.parse(fetched.stdout)["swagger"]?.stringValue == "2.0")
    let spec = folder.appendingPathComponent("spec.json").path
    try fetched.stdout.write(toFile: spec, atomically: true, encoding: .utf8)

    let imported = try runProcess(try reqbenchBinary, ["import", "openapi", spec, "--into", ws])
    #expect(imported.status == 0, "\(imported.stderr)")
    #expect(imported.stderr.contains("imported HTTP Methods/get-get (GET {{baseURL}}/get)"))
    #expect(imported.stderr.contains("added environments: httpbin.org"))
    #expect(!imported.stderr.contains("the rest is imported"))
    // flasgger lists the paths in alphabetical order, the tags' operations apart: each tag is
    // still one folder.
    let names = try #require(try JSONParser.parse(String(contentsOfFile: ws, encoding: .utf8))["requests"]?.arrayValue)
      .compactMap { $0["name"]?.stringValue }
    #expect(names.count > 60)
    var folders: [String] = []
    for name in names {
      let folder = String(name.split(separator: "/").first ?? "")
      if folders.last != folder { folders.append(folder) }
    }
    #expect(folders.count == Set(folders).count, "\(folders)")
    #expect(Set(folders).isSuperset(of: ["HTTP Methods", "Anything", "Redirects", "Dynamic data", "Request inspection"]))

    // Against httpbin itself: Accept from produces; a path parameter's default.
    let direct = ["--var", "baseURL=\(try TestServer.httpbin.baseURL)"]
    let headers = try echo(ws, "Request inspection/get-headers", direct)
    #expect(headers["headers"]?["Accept"]?.stringValue == "application/json")
    let decoded = try runProcess(try reqbenchBinary, ["run", ws, "Dynamic data/get-base64-value", "--no-history"] + direct)
    #expect(decoded.status == 0 && decoded.stdout == "HTTPBIN is awesome", "\(decoded.stderr)")

    // Against /anything, which echoes the whole request.
    let anything = ["--var", "baseURL=\(try TestServer.httpbin.url("/anything"))"]
    let form = try echo(ws, "Redirects/put-redirect-to", anything)
    #expect(form["method"]?.stringValue == "PUT")
    #expect(path(form) == "/anything/redirect-to")
    #expect(sorted(form["form"]) == JSONValue.object(JSONObject([("url", "string")])))  // the required field
    #expect(form["headers"]?["Content-Type"]?.stringValue == "application/x-www-form-urlencoded")
    #expect(form["headers"]?["Accept"]?.stringValue == "text/html")
    let query = try echo(ws, "Redirects/get-redirect-to", anything)
    #expect(query["method"]?.stringValue == "GET")
    #expect(sorted(query["args"]) == JSONValue.object(JSONObject([("url", "")])))  // status_code is optional: off
    let deleted = try echo(ws, "Anything/delete-anything-anything", anything + ["--var", "anything=x1"])
    #expect(deleted["method"]?.stringValue == "DELETE")
    #expect(path(deleted) == "/anything/anything/x1")
    #expect(deleted["data"]?.stringValue == "")
  }

  /// A Swagger 2.0 description written for the tests, run against httpbin's /anything: each
  /// request sends the parameters, body and auth the description gives it.
  @Test func aSwagger2DescriptionsRequestsSendWhatItSays() throws {
    let (ws, folder, said) = try importFixture("swagger2-bookshop.yaml", into: "shop.json")
    defer { try? FileManager.default.removeItem(at: folder) }
    #expect(said.contains("added environments: books.example.test-https, books.example.test-http"))
    let anything = ["--var", "baseURL=\(try TestServer.httpbin.url("/anything"))"]
    let secrets = [
      "REQBENCH_SECRET_SHOPKEY": "shop-secret", "REQBENCH_SECRET_BASICAUTH_PASSWORD": "pw",
      "REQBENCH_SECRET_QUERYKEY": "query-secret",
    ]

    let list = try echo(ws, "books/listBooks", anything, environment: secrets)
    #expect(list["method"]?.stringValue == "GET" && path(list) == "/anything/books")
    #expect(sorted(list["args"]) == JSONValue.object(JSONObject([("genre", "sf|fantasy")])))
    #expect(list["headers"]?["X-Client-Trace"]?.stringValue == "req-1")
    #expect(list["headers"]?["X-Shop-Key"]?.stringValue == "shop-secret")
    #expect(list["headers"]?["Accept"]?.stringValue == "application/json")

    let add = try echo(ws, "books/addBook", anything + ["--var", "basicAuth-user=ada"], environment: secrets)
    #expect(add["method"]?.stringValue == "POST" && path(add) == "/anything/books")
    #expect(sorted(add["json"]) == sorted(try JSONParser.parse(#"{"title": "The Left Hand of Darkness", "authors": ["Ursula K. Le Guin"]}"#)))
    #expect(add["headers"]?["Content-Type"]?.stringValue == "application/json")
    #expect(add["headers"]?["Authorization"]?.stringValue == "Basic " + Data("ada:pw".utf8).base64EncodedString())
    #expect(add["headers"]?["X-Shop-Key"] == nil)

    let cover = try echo(ws, "books/uploadCover", anything + ["--var", "bookId=b-7"], environment: secrets)
    #expect(cover["method"]?.stringValue == "POST" && path(cover) == "/anything/books/b-7/cover")
    #expect(sorted(cover["form"]) == JSONValue.object(JSONObject([("caption", "Front"), ("image", "")])))
    #expect(cover["headers"]?["Content-Type"]?.stringValue?.hasPrefix("multipart/form-data; boundary=") ?? false)

    let search = try echo(ws, "search", anything, environment: secrets)
    #expect(sorted(search["args"]) == JSONValue.object(JSONObject([("key", "query-secret"), ("q", "winter")])))
    #expect(search["headers"]?["Accept"]?.stringValue == "text/plain")
  }

  /// Examples holding Handlebars (`{{name}}`, `{{{html}}}`, `{{#if}}`) reach the server as the
  /// description wrote them: nothing is taken for a variable.
  @Test func examplesWithBracesReachTheServerAsWritten() throws {
    let (ws, folder, _) = try importFixture("template-text.yaml", into: "mail.json")
    defer { try? FileManager.default.removeItem(at: folder) }
    let anything = ["--var", "baseURL=\(try TestServer.httpbin.url("/anything"))"]

    let create = try echo(ws, "createVersion", anything + ["--var", "templateId=t1"])
    #expect(path(create) == "/anything/templates/t1/versions")
    #expect(sorted(create["args"]) == JSONValue.object(JSONObject([("preview", "Hello {{first_name}}")])))
    #expect(create["headers"]?["X-Engine"]?.stringValue == "{{ engine }}")
    #expect(
      sorted(create["json"])
        == sorted(try JSONParser.parse(
          #"""
          {"subject": "Your order {{order.id}} has shipped",
           "html_content": "<p>{{{body}}}</p>{{#if footer}}<footer>{{footer}}</footer>{{/if}}",
           "{{custom_field}}": "left open {{"}
          """#)))
    let form = try echo(ws, "sendForm", anything)
    #expect(sorted(form["form"]) == JSONValue.object(JSONObject([("greeting", "Hi {{name}}"), ("{{key}}", "value")])))
    let note = try echo(ws, "putNote", anything)
    #expect(note["method"]?.stringValue == "PUT")
    #expect(note["data"]?.stringValue == "Dear {{customer}},\n{{> signature}}")
    #expect(note["headers"]?["Content-Type"]?.stringValue == "text/plain")
  }
}
