import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

@Suite struct PrepareTests {
  /// A workspace with one request at `url` (plus `extra` request keys) against `baseURL`.
  func single(url: String, baseURL: String? = "http://api.test/v1/", extra: String = "")
    throws -> Workspace
  {
    let base = baseURL.map { #""baseURL": "\#($0)","# } ?? ""
    return try workspace(
      #"{"version": 1, \#(base) "requests": [{"name": "r", "url": "\#(url)"\#(extra)}]}"#)
  }

  func prepared(url: String, baseURL: String? = "http://api.test/v1/", extra: String = "") throws
    -> Request
  {
    try single(url: url, baseURL: baseURL, extra: extra).prepare(requestNamed: "r")
  }

  // MARK: URLs

  @Test(arguments: [
    ("http://api.test/v1/", "users", "http://api.test/v1/users"),
    ("http://api.test/v1", "users", "http://api.test/users"),
    ("http://api.test/v1/", "/users", "http://api.test/users"),
    ("http://api.test/v1", "/users", "http://api.test/users"),
    ("http://api.test", "users", "http://api.test/users"),
    ("http://api.test/v1/", "../health", "http://api.test/health"),
    ("http://api.test/v1/", "https://other.test/x", "https://other.test/x"),
  ])
  func resolvesTheURLAgainstTheBase(base: String, url: String, expected: String) throws {
    #expect(try prepared(url: url, baseURL: base).url == expected)
  }

  @Test func anAbsoluteURLNeedsNoBaseAndIgnoresItsVariables() throws {
    #expect(try prepared(url: "https://other.test/x", baseURL: nil).url == "https://other.test/x")
    #expect(
      try prepared(url: "https://other.test/x", baseURL: "{{undefined}}").url
        == "https://other.test/x")
  }

  @Test func aRelativeURLWithoutABaseIsAnError() throws {
    let error = try #require(prepareError(try single(url: "/users", baseURL: nil), "r"))
    #expect(error.code == .invalidURL)
    #expect(
      error.unlocated
        == #"r: "/users" is relative and there is no base URL: write an absolute URL, or set "baseURL" in the workspace"#
    )
  }

  // MARK: Query

  @Test func encodesTheQueryInTheOrderWritten() throws {
    let request = try prepared(
      url: "/search",
      extra: #", "query": {"q": "x y", "arr": [1, 2], "flag": true, "n": null, "z": 1}"#)
    #expect(request.url == "http://api.test/search?q=x%20y&arr%5B%5D=1&arr%5B%5D=2&flag=1&n&z=1")
  }

  @Test func appendsTheQueryToAURLThatHasOne() throws {
    let request = try prepared(url: "/search?page=2", extra: #", "query": {"q": "a&b"}"#)
    #expect(request.url == "http://api.test/search?page=2&q=a%26b")
  }

  @Test func fillsInVariablesInQueryKeysAndValues() throws {
    let ws = try workspace(
      #"{"version": 1, "variables": {"k": "sort", "v": "name desc"}, "requests": [{"name": "r", "url": "http://h/x", "query": {"{{k}}": "{{v}}", "tags": ["{{k}}"]}}]}"#
    )
    #expect(try ws.prepare(requestNamed: "r").url == "http://h/x?sort=name%20desc&tags%5B%5D=sort")
  }

  // MARK: Bodies

  @Test func aJSONBodyIsCompactWithItsContentType() throws {
    let request = try prepared(
      url: "/u",
      extra: #", "method": "POST", "body": {"json": {"name": "Ada", "tags": [1, true, null]}}"#)
    #expect(text(request.body.bytes) == #"{"name":"Ada","tags":[1,true,null]}"#)
    #expect(request.body.contentType == "application/json")
    #expect(request.method == .POST)
  }

  @Test func aFormBodyIsURLEncoded() throws {
    let request = try prepared(
      url: "/u",
      extra: #", "body": {"form": {"name": "Ada L", "n": 1.5, "ok": true, "e": "a=b&c"}}"#)
    #expect(text(request.body.bytes) == "name=Ada%20L&n=1.5&ok=true&e=a%3Db%26c")
    #expect(request.body.contentType == "application/x-www-form-urlencoded")
  }

  @Test func aTextBodyHasItsContentType() throws {
    let plain = try prepared(url: "/u", extra: #", "body": {"text": "héllo\n"}"#)
    #expect(plain.body.bytes == Array("héllo\n".utf8))
    #expect(plain.body.contentType == "text/plain; charset=utf-8")
    let csv = try prepared(
      url: "/u", extra: #", "body": {"text": "a,b", "contentType": "text/csv"}"#)
    #expect(csv.body.contentType == "text/csv")
  }

  @Test func noBodyIsEmpty() throws {
    #expect(try prepared(url: "/u").body == .empty)
  }

  @Test func fillsInVariablesInsideBodies() throws {
    let ws = try workspace(
      #"""
      {"version": 1, "variables": {"who": "Ada", "n": "3"}, "requests": [
        {"name": "j", "url": "http://h/", "body": {"json": {"name": "{{who}}", "{{who}}": ["#{{n}}", 4]}}},
        {"name": "f", "url": "http://h/", "body": {"form": {"name": "{{who}} L"}}},
        {"name": "t", "url": "http://h/", "body": {"text": "hi {{who}}"}}
      ]}
      """#)
    #expect(
      text(try ws.prepare(requestNamed: "j").body.bytes) == ##"{"name":"Ada","Ada":["#3",4]}"##)
    #expect(text(try ws.prepare(requestNamed: "f").body.bytes) == "name=Ada%20L")
    #expect(text(try ws.prepare(requestNamed: "t").body.bytes) == "hi Ada")
  }

  // MARK: Headers and auth

  @Test func basicAuthIsSentUpFront() throws {
    let request = try prepared(
      url: "/u", extra: #", "auth": {"basic": {"user": "u", "password": "p"}}"#)
    #expect(request.headers["Authorization"] == "Basic dTpw")
  }

  @Test func basicAuthEncodesUTF8() throws {
    let request = try prepared(
      url: "/u", extra: #", "auth": {"basic": {"user": "Aladdin", "password": "open sesame"}}"#)
    #expect(request.headers["Authorization"] == "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
  }

  @Test func bearerAuthFillsInItsVariable() throws {
    let ws = try workspace(
      #"{"version": 1, "variables": {"token": "abc.def"}, "requests": [{"name": "r", "url": "http://h/", "auth": {"bearer": "{{token}}"}}]}"#
    )
    #expect(try ws.prepare(requestNamed: "r").headers["Authorization"] == "Bearer abc.def")
  }

  @Test func theUsersHeadersWin() throws {
    let request = try prepared(
      url: "/u",
      extra:
        #", "headers": {"authorization": "Token mine", "Content-Type": "application/vnd.x+json", "X-A": "1"}, "auth": {"bearer": "t"}, "body": {"json": {}}"#
    )
    #expect(request.headers.values("Authorization") == ["Token mine"])
    #expect(request.headers["content-type"] == "application/vnd.x+json")
    #expect(request.headers.fields.map(\.name) == ["authorization", "Content-Type", "X-A"])
    // The body still says what it is; the engine lets the header win.
    #expect(request.body.contentType == "application/json")
  }

  @Test func fillsInVariablesInHeaderValues() throws {
    let ws = try workspace(
      #"{"version": 1, "variables": {"v": "2"}, "requests": [{"name": "r", "url": "http://h/", "headers": {"X-Api-Version": "v{{v}}"}}]}"#
    )
    #expect(try ws.prepare(requestNamed: "r").headers["X-Api-Version"] == "v2")
  }

  // MARK: Settings carried over

  @Test func carriesTimeoutsPriorityValidationAndRedirects() throws {
    let request = try prepared(
      url: "/u",
      extra:
        #", "timeout": 5, "deadline": 60, "priority": "low", "followRedirects": false, "maxRedirects": 2, "insecure": true, "validate": {"status": [[200, 299], 418], "json": {"id": "number"}}"#
    )
    #expect(request.name == "r")
    #expect(request.timeouts == Timeouts(idle: 5, deadline: 60))
    #expect(request.priority == .low)
    #expect(!request.followRedirects && request.maxRedirects == 2 && request.insecure)
    #expect(request.validation.status == [200...299, 418...418])
    #expect(request.validation.json == .object(["id": .type(.number)], order: ["id"]))
    #expect(request.group == nil)
    #expect(request.retry == nil)
  }

  @Test func theWorkspaceRetryAppliesToRequestsWithoutTheirOwn() throws {
    let ws = try workspace(
      #"""
      {"version": 1, "retry": {"max": 4, "delay": 1}, "requests": [
        {"name": "inherits", "url": "http://h/"},
        {"name": "own", "url": "http://h/", "retry": {"max": 1, "statuses": [503]}},
        {"name": "none", "url": "http://h/", "retry": {"max": 0}}
      ]}
      """#)
    #expect(try ws.prepare(requestNamed: "inherits").retry == RetryPolicy(max: 4, baseDelay: 1))
    #expect(try ws.prepare(requestNamed: "own").retry == RetryPolicy(max: 1, statuses: [503]))
    #expect(try ws.prepare(requestNamed: "none").retry?.max == 0)
  }

  // MARK: Variables

  let layered = """
    {
      "version": 1,
      "baseURL": "{{host}}",
      "variables": {"host": "http://default.test", "id": "from-variables", "only": "v"},
      "environment": "local",
      "environments": {
        "local": {"host": "http://local.test", "id": "from-local"},
        "staging": {"host": "https://staging.test"}
      },
      "requests": [{"name": "get-user", "url": "/users/{{id}}/{{only}}"}]
    }
    """

  @Test func overridesWinOverTheEnvironmentWhichWinsOverVariables() throws {
    let ws = try workspace(layered)
    #expect(
      try ws.prepare(requestNamed: "get-user", variables: ["id": "from-override"]).url
        == "http://local.test/users/from-override/v")
    #expect(try ws.prepare(requestNamed: "get-user").url == "http://local.test/users/from-local/v")
    #expect(
      try ws.prepare(requestNamed: "get-user", environment: "staging").url
        == "https://staging.test/users/from-variables/v")
  }

  @Test func withoutAnEnvironmentVariablesApply() throws {
    var ws = try workspace(layered)
    ws.environment = nil
    #expect(
      try ws.prepare(requestNamed: "get-user").url == "http://default.test/users/from-variables/v")
    #expect(
      try ws.prepare(requestNamed: "get-user", variables: ["host": "http://o.test"]).url
        == "http://o.test/users/from-variables/v")
  }

  @Test func anUnknownEnvironmentListsTheEnvironments() throws {
    let error = try #require(prepareError(try workspace(layered), "get-user", environment: "prod"))
    #expect(error.code == .unknownEnvironment("prod"))
    #expect(
      error.description == #"get-user: unknown environment "prod"; use one of local, staging"#)
  }

  @Test func anEnvironmentWithoutEnvironmentsIsAnError() throws {
    let error = try #require(prepareError(try single(url: "/x"), "r", environment: "local"))
    #expect(
      error.description == #"r: unknown environment "local"; this workspace has no "environments""#)
  }

  @Test func anUndefinedVariableNamesTheVariableAndTheRequest() throws {
    let ws = try workspace(
      #"{"version": 1, "baseURL": "http://h/", "requests": [{"name": "get-user", "url": "/users/{{id}}"}]}"#
    )
    let error = try #require(prepareError(ws, "get-user"))
    #expect(error.code == .undefinedVariable("id"))
    #expect(error.request == "get-user")
    #expect(
      error.unlocated
        == #"get-user: undefined variable {{id}} in url; define it with --var id=… or in "variables""#
    )
  }

  @Test(arguments: [
    (#""headers": {"X-Key": "{{key}}"}"#, #"header "X-Key""#),
    (#""query": {"q": "{{key}}"}"#, #"query parameter "q""#),
    (#""body": {"json": {"a": ["{{key}}"]}}"#, "body"),
    (#""body": {"text": "{{key}}"}"#, "body"),
    (#""auth": {"bearer": "{{key}}"}"#, "auth"),
  ])
  func anUndefinedVariableSaysWhereItIsUsed(member: String, place: String) throws {
    let error = try #require(prepareError(try single(url: "/x", extra: ", " + member), "r"))
    #expect(
      error.unlocated
        == #"r: undefined variable {{key}} in \#(place); define it with --var key=… or in "variables""#
    )
  }

  @Test func anUndefinedVariableInTheBaseURL() throws {
    let error = try #require(prepareError(try single(url: "/x", baseURL: "{{host}}/api/"), "r"))
    #expect(
      error.unlocated
        == #"r: undefined variable {{host}} in baseURL; define it with --var host=… or in "variables""#
    )
  }

  @Test func explicitValuesWinOverSecretsAndTheEnvironment() throws {
    let ws = try single(
      url: "/x", extra: #", "headers": {"A": "{{secret.token}}", "B": "{{env.HOME}}"}"#)
    let request = try ws.prepare(
      requestNamed: "r", variables: ["secret.token": "s", "env.HOME": "/h"])
    #expect(request.headers["A"] == "s" && request.headers["B"] == "/h")
    #expect(request.secrets.contains("s"))
  }

  @Test func anUnknownRequestNameIsAnError() throws {
    let error = try #require(prepareError(try single(url: "/x"), "nope"))
    #expect(error.description == #"nope: there is no request named "nope"; this workspace has r"#)
  }

  @Test func aTemplateBuiltInCodeIsPreparedToo() throws {
    let ws = try single(url: "/x")
    var template = RequestTemplate(name: "adhoc", method: .DELETE, url: "items/{{n}}")
    template.headers["X-N"] = "{{n}}"
    let request = try ws.prepare(template, variables: ["n": "9"])
    #expect(request.url == "http://api.test/v1/items/9")
    #expect(request.method == .DELETE)
    #expect(request.headers["X-N"] == "9")
    template.url = "items/{{n"
    #expect(throws: PrepareError.self) { try ws.prepare(template, variables: ["n": "9"]) }
  }
}
