import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

@Suite struct WorkspaceParsingTests {
  @Test func readsTheWorkspaceSettings() throws {
    let ws = try workspace(fullExample)
    #expect(ws.name == "demo")
    #expect(ws.baseURL == "http://127.0.0.1:8080")
    #expect(ws.agent == AgentSettings(maxConcurrent: 4, maxPerHost: 2))
    #expect(
      ws.retry
        == RetryPolicy(max: 3, baseDelay: 0.25, methods: [.GET, .POST], statuses: [429, 503]))
    #expect(
      ws.variables == [
        Variable(name: "id", value: "1"), Variable(name: "page", value: "2"),
        Variable(name: "debug", value: "true"),
      ])
    #expect(ws.environment == "local")
    #expect(
      ws.environments == [
        Environment(
          name: "local", variables: [Variable(name: "host", value: "http://127.0.0.1:8080")]),
        Environment(
          name: "staging", variables: [Variable(name: "host", value: "https://staging.example.com")]
        ),
      ])
    #expect(ws.requests.map(\.name) == ["get-user", "users/create", "form", "text", "plain"])
  }

  @Test func readsEveryRequestField() throws {
    let request = try #require(try workspace(fullExample).request(named: "get-user"))
    #expect(request.method == .GET)
    #expect(request.url == "/users/{{id}}")
    #expect(request.query.keys == ["verbose", "page"])
    #expect(request.query["verbose"] == "1")
    #expect(request.query["page"] == .number("2"))
    #expect(request.headers == ["Accept": "application/json", "X-Trace": "{{id}}"])
    #expect(request.timeout == 12.5)
    #expect(request.deadline == 120)
    #expect(request.priority == .high)
    #expect(request.followRedirects == false)
    #expect(request.maxRedirects == 3)
    #expect(request.insecure == true)
    #expect(request.retry == RetryPolicy(max: 2))
    #expect(request.validation.status == [200...299])
    #expect(request.validation.json == (try JSONShape(["id": "number", "name": "string"])))
    #expect(request.validation.strict)
    #expect(request.validation.requireBody)
    #expect(request.body == nil)
    #expect(request.auth == nil)
  }

  @Test func readsBodiesAndAuth() throws {
    let ws = try workspace(fullExample)
    let create = try #require(ws.request(named: "users/create"))
    #expect(create.method == .POST, "methods are read case-insensitively")
    #expect(create.body == .json(["name": "Ada"]))
    #expect(create.auth == .basic(user: "u", password: "p"))

    let form = try #require(ws.request(named: "form"))
    #expect(
      form.body == .form(try #require(try json(#"{"a": "x y", "n": 1, "ok": true}"#).objectValue)))
    #expect(form.auth == .bearer("{{token}}"))

    #expect(ws.request(named: "text")?.body == .text("hello", contentType: "text/markdown"))
    #expect(ws.request(named: "plain")?.body == .text("hi", contentType: nil))
  }

  @Test func fillsInDefaults() throws {
    let ws = try workspace(
      #"{"version": 1, "requests": [{"name": "a", "url": "http://h/"}]}"#, file: "dir/my-api.json")
    #expect(ws.name == "my-api", "the file's base name when there is no \"name\"")
    #expect(ws.baseURL == nil)
    #expect(ws.agent == AgentSettings(maxConcurrent: 8, maxPerHost: 6))
    #expect(ws.retry == nil)
    #expect(ws.variables.isEmpty && ws.environments.isEmpty && ws.environment == nil)
    let request = try #require(ws.request(named: "a"))
    #expect(request.method == .GET)
    #expect(request.timeout == 30)
    #expect(request.deadline == nil)
    #expect(request.priority == .normal)
    #expect(request.validation == Validation())
    #expect(request.retry == nil)
    #expect(request.followRedirects && request.maxRedirects == 10 && !request.insecure)
    #expect(request.query.isEmpty && request.headers.isEmpty)
  }

  @Test func readsAnEmptyWorkspace() throws {
    let ws = try workspace(#"{"version": 1}"#)
    #expect(ws.requests.isEmpty)
    #expect(ws.request(named: "x") == nil)
  }

  @Test(arguments: [
    ("200", [200...200]),
    ("[200, 299]", [200...299]),
    ("[[200, 299], 418]", [200...299, 418...418]),
    ("[200, [404, 404]]", [200...200, 404...404]),
    ("[200, 201, 204]", [200...200, 201...201, 204...204]),
    ("[[200, 299]]", [200...299]),
  ])
  func readsStatusSpellings(spelling: String, expected: [ClosedRange<Int>]) throws {
    let ws = try workspace(
      #"{"version": 1, "requests": [{"name": "a", "url": "http://h/", "validate": {"status": \#(spelling)}}]}"#
    )
    #expect(ws.requests.first?.validation.status == expected)
  }

  @Test func keepsRequestNamesWithFolders() throws {
    let ws = try workspace(
      #"{"version": 1, "requests": [{"name": "users/get", "url": "http://h/"}, {"name": "users/list", "url": "http://h/"}]}"#
    )
    #expect(ws.request(named: "users/get") != nil)
    #expect(ws.request(named: "users/list") != nil)
  }

  @Test func acceptsNullForOptionalValues() throws {
    let ws = try workspace(
      #"{"version": 1, "baseURL": null, "requests": [{"name": "a", "url": "http://h/", "deadline": null, "body": null, "auth": null}]}"#
    )
    #expect(ws.baseURL == nil)
    #expect(ws.requests.first?.deadline == nil)
    #expect(ws.requests.first?.body == nil)
  }
}
