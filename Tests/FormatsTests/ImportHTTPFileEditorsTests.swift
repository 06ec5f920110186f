import Formats
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

private func http(_ text: String, files: [String: String] = [:]) throws -> ImportedRequests {
  try HTTPFileImporter.parse(text, file: "api.http") { path throws(FileError) in
    guard let content = files[path] else { throw FileError(path: path, message: "no such file", reason: "no such file") }
    return Array(content.utf8)
  }
}

/// What the editors' `.http` files (JetBrains HTTP Client, VS Code REST Client, httpyac,
/// kulala.nvim, rest.nvim) write beyond the common core, read as the editors send it.
@Suite(".http import: the editors' syntax")
struct ImportHTTPFileEditorsTests {
  @Test func aURLGoesOnOverIndentedLines() throws {
    let t = try #require(
      try http("GET https://a.test:8080\n    /api\n    /get\n    ?id=123\n    &value=content HTTP/1.1\nAccept: */*\n").templates.first)
    #expect(t.url == "https://a.test:8080/api/get")
    #expect(t.query == JSONObject([("id", "123"), ("value", "content")]))
    #expect(t.headers == ["Accept": "*/*"])
  }

  @Test func aPathWithAHostHeaderGoesToThatHost() throws {
    let imported = try http("GET /api?a=1\nHost: example.com:8080\n\n###\nGET /api\nHOST: example.com:443\nAccept: */*\n")
    #expect(imported.templates.map(\.url) == ["http://example.com:8080/api", "https://example.com:443/api"])
    #expect(imported.templates[0].query == JSONObject([("a", "1")]))
    #expect(imported.templates[1].headers == ["Accept": "*/*"])
    // A URL without a scheme is http, as the editors' clients read it.
    #expect(try http("GET localhost:9999/x\n").templates[0].url == "http://localhost:9999/x")
  }

  @Test func httpyacRequestsWithoutSeparatorsAndPathsToTheHostVariable() throws {
    let imported = try http(
      "@host = https://api.test/v4\n\n###\nGET /launches/latest\n\n\nGET /capsules\nAccept: */*\nGET https://b.test/x\n\n###\nKAFKA broker:9092\ntopic: t\n")
    #expect(imported.templates.map(\.url) == ["{{host}}/launches/latest", "{{host}}/capsules", "https://b.test/x"])
    #expect(imported.templates[1].headers == ["Accept": "*/*"])
    #expect(imported.warnings.first?.contains("KAFKA requests are httpyac's for another protocol") == true)
  }

  @Test func httpyacBlockCommentsAndScriptBlocksAfterTheRequest() throws {
    let imported = try http("/*\nget json\n*/\nGET https://a.test/json\n{{\n  test.status(200);\n}}\n")
    #expect(imported.templates.map(\.url) == ["https://a.test/json"])
    #expect(imported.templates[0].body == nil)
    #expect(imported.warnings.first?.hasPrefix("api.http:5:1: the script is left out") == true)
  }

  /// `OPTIONS *` asks the server itself: the host's root, with `*` as the request line's target
  /// (`requestTarget`); without a host to send it to, it is refused saying why.
  @Test func theAsteriskFormGoesToTheHostWithATargetOfStar() throws {
    let t = try #require(try http("OPTIONS * HTTP/1.1\nHost: example.com\n").templates.first)
    #expect(t.method == HTTPMethod(parsing: "OPTIONS"))
    #expect(t.url == "http://example.com/")
    #expect(t.requestTarget == "*")
    #expect(t.headers["Host"] == nil)
    #expect(throws: ImportError.self) { try http("OPTIONS * HTTP/1.1\n") }
    let message = (try? http("OPTIONS * HTTP/1.1\n\n###\nGET https://a.test/\n"))?.warnings.first
    #expect(message?.hasPrefix("api.http:1:1: a request to * (the asterisk form) needs the server") == true)
  }

  @Test func placeholdersWithBlanksAroundTheNameAreVariables() throws {
    let imported = try http("@host = https://a.test\n\nGET {{ host }}/users/{{  id }} HTTP/1.1\nX-Id: {{ id }}\n")
    let t = try #require(imported.templates.first)
    #expect(t.url == "{{ host }}/users/{{  id }}")
    #expect(try Template(t.url).variableNames == ["host", "id"])
    #expect(t.headers == ["X-Id": "{{ id }}"])
  }

  @Test func theQueryAndTheBodyAreKeptAsWritten() throws {
    let imported = try http(
      """
      POST https://a.test/x?b=2&a=caf%c3%a9&a=3
      Content-Type: application/json
      X-After: 1

      {"name": "Ada",
        "n": 1.50}

      ###
      POST https://a.test/compact?q=1
      Content-Type: application/json

      {"name":"Ada"}

      ###
      POST https://a.test/form
      Content-Type: application/x-www-form-urlencoded

      a=1
      &b=x+y
      """)
    let t = imported.templates
    // Repeated keys and lower-case escapes: reqbench would write them otherwise, so they stay.
    #expect(t[0].url == "https://a.test/x?b=2&a=caf%c3%a9&a=3")
    #expect(t[0].body == .text("{\"name\": \"Ada\",\n  \"n\": 1.50}", contentType: nil))
    #expect(t[0].headers.fields.map(\.name) == ["Content-Type", "X-After"])
    // What reqbench writes back the same stays structured.
    #expect(t[1].url == "https://a.test/compact" && t[1].query == JSONObject([("q", "1")]))
    #expect(t[1].body == .json(["name": "Ada"]))
    // Content-Type written last goes with the body: reqbench sends a body's type after the headers.
    #expect(t[2].body == .text("a=1&b=x+y", contentType: "application/x-www-form-urlencoded"))
    #expect(t[2].headers.isEmpty)
  }

  @Test func aBodyFromAFileWithVariablesIsTheFilesText() throws {
    let imported = try http(
      "POST https://a.test/x\nContent-Type: application/json\n\n<@ ./body.json\n",
      files: ["./body.json": "{\"id\": \"{{id}}\", \"tpl\": \"{{ oops\"}\n"])
    #expect(imported.templates[0].body == .text("{\"id\": \"{{id}}\", \"tpl\": \"{{'{{'}} oops\"}\n", contentType: "application/json"))
    let asIs = try http("POST https://a.test/x\nContent-Type: application/json\n\n< ./body.json\n")
    #expect(asIs.templates[0].body == .file("./body.json", contentType: "application/json"))
    let missing = try? HTTPFileImporter.parse("POST https://a.test/x\n\n<@ ./body.json\n", file: "api.http")
    #expect(missing == nil)
  }

  @Test func requestVariablesBecomeAChainWhoseStepsCaptureTheValues() throws {
    let imported = try http(
      """
      @base = https://a.test
      @token = {{login.response.body.$.data[0]['access token']}}

      ### Log in
      # @name login
      POST {{base}}/login
      Content-Type: application/json

      {"user":"ada"}

      ###
      // @name me
      GET {{base}}/me
      Authorization: Bearer {{token}}
      If-None-Match: {{login.response.headers.ETag}}

      ###
      GET {{base}}/me/friends?of={{me.response.body.$.id}}
      """)
    // `# @name` names the request, over the text after `###`.
    #expect(imported.templates.map(\.name) == ["login", "me", "get-me-friends"])
    #expect(imported.variables.first { $0.name == "token" }?.value == "{{login.body.data.0.access-token}}")
    #expect(imported.templates[1].headers["If-None-Match"] == "{{login.headers.ETag}}")
    #expect(imported.templates[2].query == JSONObject([("of", "{{me.body.id}}")]))
    let login = ChainStep(
      request: "login",
      capture: [
        ("login.body.data.0.access-token", .jq(".data[0].\"access token\"")), ("login.headers.ETag", .header("ETag")),
      ])
    #expect(
      imported.chains == [
        Chain(name: "me-chain", steps: [login, ChainStep(request: "me")]),
        Chain(
          name: "get-me-friends-chain",
          steps: [login, ChainStep(request: "me", capture: [("me.body.id", .jq(".id"))]), ChainStep(request: "get-me-friends")]),
      ])
    // Added to a workspace under a folder, the steps follow the requests' new names.
    var workspace = Workspace(name: "t")
    let report = try workspace.addImported(imported, name: "auth")
    #expect(report.chainsAdded == ["auth/me-chain", "auth/get-me-friends-chain"])
    #expect(workspace.chains.first?.steps.map(\.request) == ["auth/login", "auth/me"])
  }

  @Test func aResponseHeaderInBracketsIsCapturedToo() throws {
    let imported = try http("# @name a\nGET https://a.test/a\n\n###\nGET https://a.test/b\nX-Type: {{a.response.headers['Content-Type']}}\n")
    #expect(imported.templates[1].headers["X-Type"] == "{{a.headers.Content-Type}}")
    #expect(imported.chains.first?.steps.first?.capture.map(\.source) == [.header("Content-Type")])
  }

  @Test func aReferenceThatCannotBeCapturedRefusesItsRequestOnly() throws {
    let imported = try http(
      "# @name a\nGET https://a.test/a\n\n###\nGET https://a.test/b?x={{a.response.body.$..id}}\n\n###\nGET https://a.test/c\n")
    #expect(imported.templates.map(\.url) == ["https://a.test/a", "https://a.test/c"])
    #expect(imported.warnings.count == 1)
    #expect(imported.warnings[0].hasPrefix("api.http:5:24: {{a.response.body.$..id}}: only JSONPath"))
    #expect(imported.warnings[0].hasSuffix("this request is not imported, the others are"))
  }

  @Test func graphQLRequestsSendTheJSONTheEditorsBuild() throws {
    let imported = try http(
      """
      GRAPHQL https://a.test/graphql
      Content-Type: application/json

      mutation AddUser($name: String) {
        add(name: $name) { id }
      }

      {"name": "Ada"}

      ###
      POST https://a.test/graphql
      Content-Type: application/json
      X-REQUEST-TYPE: GraphQL

      query Me { me { id } }
      """)
    let jetbrains = imported.templates[0]
    #expect(jetbrains.method == .POST)
    #expect(
      jetbrains.body
        == .json(
          .object(
            JSONObject([
              ("query", "mutation AddUser($name: String) {\n  add(name: $name) { id }\n}"), ("operationName", "AddUser"),
              ("variables", ["name": "Ada"]),
            ]))))
    let restClient = imported.templates[1]
    #expect(restClient.headers == ["Content-Type": "application/json"])
    #expect(
      restClient.body
        == .json(.object(JSONObject([("query", "query Me { me { id } }"), ("operationName", "Me"), ("variables", [:])]))))
  }

  @Test func scriptsAreLeftOutWithANoteNamingTheLineAndTheRequestIsImported() throws {
    let imported = try http(
      """
      < {%
        request.variables.set("a", "1");
      %}
      GET https://a.test/1

      > {%
        client.test("ok", function() {});
      %}

      ###
      {{
        exports.a = 1;
      }}
      POST https://a.test/2
      Content-Type: text/plain

      hello

      > ./check.js
      """)
    #expect(imported.templates.map(\.url) == ["https://a.test/1", "https://a.test/2"])
    #expect(imported.templates[0].body == nil)
    #expect(imported.templates[1].body == .text("hello", contentType: "text/plain"))
    #expect(imported.warnings.map { $0.prefix { $0 != " " } } == ["api.http:1:1:", "api.http:6:1:", "api.http:11:1:", "api.http:19:1:"])
    #expect(imported.warnings.allSatisfy { $0.contains("left out (reqbench runs no scripts)") })
  }

  @Test func bracesThatOpenNoPlaceholderAreSentAsWritten() throws {
    let t = try #require(try http("POST https://a.test/x\nContent-Type: text/plain\n\nif (a) {{ b\n").templates.first)
    #expect(t.body == .text("if (a) {{'{{'}} b", contentType: "text/plain"))
  }

  @Test func dynamicVariablesAreRefusedNamingThemAndProcessEnvironmentVariablesAreKept() throws {
    let imported = try http(
      "GET https://a.test/{{$guid}}\n\n###\nGET https://a.test/x\nX-Home: {{$processEnv HOME}}\nX-User: {{$env.USER}}\n")
    #expect(imported.templates.map(\.url) == ["https://a.test/x"])
    #expect(imported.templates[0].headers == ["X-Home": "{{env.HOME}}", "X-User": "{{env.USER}}"])
    #expect(imported.warnings.first?.hasPrefix("api.http:1:20: {{$guid}} is a dynamic variable of the editor") == true)
  }
}
