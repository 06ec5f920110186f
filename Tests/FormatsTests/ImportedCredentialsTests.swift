import Formats
import JSON
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

/// Credentials written out in an import go to the secrets file; the requests refer to them.
@Suite struct ImportedCredentialsTests {
  func imported(_ templates: [RequestTemplate]) -> ImportedRequests {
    ImportedRequests(requests: templates.map { ImportedRequest(template: $0, location: nil) })
  }

  @Test func headersAndAuthsBecomeSecrets() {
    var headerOnly = RequestTemplate(name: "me", url: "http://127.0.0.1:1/me")
    headerOnly.headers = [
      "Accept": "*/*", "authorization": "Token  tok-123/x", "Proxy-Authorization": "Basic cHJveHk6cHc=",
      "cookie": "session=s-1; theme=dark",
    ]
    var basic = RequestTemplate(name: "basic", url: "http://127.0.0.1:1/b")
    basic.auth = .basic(user: "ada", password: "pw")
    var digest = RequestTemplate(name: "digest", url: "http://127.0.0.1:1/d")
    digest.auth = .digest(user: "ada", password: "other")
    var bearer = RequestTemplate(name: "bearer", url: "http://127.0.0.1:1/t")
    bearer.auth = .bearer("tok-123/x")
    var requests = imported([headerOnly, basic, digest, bearer])
    let moved = ImportedCredentials.extract(from: &requests, known: SecretsFile())
    #expect(moved == [
      .init(name: "token", value: "tok-123/x"), .init(name: "proxy-token", value: "cHJveHk6cHc="),
      .init(name: "cookie", value: "session=s-1; theme=dark"),
      .init(name: "password", value: "pw"), .init(name: "password-2", value: "other"),
    ])
    let templates = requests.templates
    #expect(templates[0].headers.fields.map(\.name) == ["Accept", "authorization", "Proxy-Authorization", "cookie"], "in order")
    #expect(templates[0].headers["Cookie"] == "{{secret.cookie}}")
    #expect(templates[0].headers["Authorization"] == "Token  {{secret.token}}")
    #expect(templates[0].headers["Proxy-Authorization"] == "Basic {{secret.proxy-token}}")
    #expect(templates[1].auth == .basic(user: "ada", password: "{{secret.password}}"))
    #expect(templates[2].auth == .digest(user: "ada", password: "{{secret.password-2}}"))
    #expect(templates[3].auth == .bearer("{{secret.token}}"), "the same token, the same secret")
    #expect(requests.secrets == ["token", "proxy-token", "cookie", "password", "password-2"])
  }

  /// A header or query parameter whose name says it holds a key (`CredentialMasking.isKeyName`)
  /// goes too, named after it; an idempotency key or a pagination cursor stays.
  @Test func keyHeadersAndQueryParametersBecomeSecrets() {
    var keyed = RequestTemplate(name: "keyed", url: "http://127.0.0.1:1/k")
    keyed.headers = ["X-Api-Key": "xk-1234", "Private-Token": "glpat-1", "Idempotency-Key": "idem-1"]
    keyed.query = JSONObject([
      ("api_key", .string("ak-1234")), ("page_token", .string("cursor-1")), ("access_token", .string("{{token}}")),
      ("client_secret", .string("cs-1234")),
    ])
    var again = RequestTemplate(name: "again", url: "http://127.0.0.1:1/k")
    again.headers = ["x-api-key": "xk-1234"]
    var requests = imported([keyed, again])
    let moved = ImportedCredentials.extract(from: &requests, known: SecretsFile())
    #expect(moved == [
      .init(name: "api-key", value: "xk-1234"), .init(name: "private-token", value: "glpat-1"),
      .init(name: "api-key-2", value: "ak-1234"), .init(name: "client-secret", value: "cs-1234"),
    ])
    let templates = requests.templates
    #expect(templates[0].headers["X-Api-Key"] == "{{secret.api-key}}" && templates[0].headers["Idempotency-Key"] == "idem-1")
    #expect(templates[0].headers["Private-Token"] == "{{secret.private-token}}")
    #expect(templates[0].query["api_key"] == .string("{{secret.api-key-2}}"))
    #expect(templates[0].query["page_token"] == .string("cursor-1") && templates[0].query["access_token"] == .string("{{token}}"))
    #expect(templates[0].query.members.map(\.key) == ["api_key", "page_token", "access_token", "client_secret"], "in order")
    #expect(templates[1].headers["x-api-key"] == "{{secret.api-key}}", "the same key, the same secret")
  }

  /// Variables an import brings (a Postman environment's) go too when the source marks them
  /// secret or their name says they hold a key; the value becomes `{{secret.NAME}}`.
  @Test func secretAndKeyVariablesBecomeSecrets() {
    var requests = ImportedRequests(variables: [Variable(name: "token", value: "tok-1234"), Variable(name: "region", value: "eu")])
    requests.environments = [
      Environment(
        name: "staging",
        variables: [
          Variable(name: "baseUrl", value: "https://s.test"), Variable(name: "apiKey", value: "sk-1234"),
          Variable(name: "pin", value: "0042"), Variable(name: "password", value: "{{secret.pw}}"),
        ])
    ]
    requests.sensitiveVariables = ["pin"]
    let moved = ImportedCredentials.extract(from: &requests, known: SecretsFile())
    #expect(moved == [.init(name: "token", value: "tok-1234"), .init(name: "apikey", value: "sk-1234"), .init(name: "pin", value: "0042")])
    #expect(requests.variables == [Variable(name: "token", value: "{{secret.token}}"), Variable(name: "region", value: "eu")])
    #expect(
      requests.environments[0].variables == [
        Variable(name: "baseUrl", value: "https://s.test"), Variable(name: "apiKey", value: "{{secret.apikey}}"),
        Variable(name: "pin", value: "{{secret.pin}}"), Variable(name: "password", value: "{{secret.pw}}"),
      ])
  }

  @Test func whatTheFileHoldsIsReusedAndNothingElseIsTouched() {
    var reused = RequestTemplate(name: "a", url: "http://127.0.0.1:1/a")
    reused.headers = ["Authorization": "Bearer tok-held"]
    var taken = RequestTemplate(name: "b", url: "http://127.0.0.1:1/b")
    taken.headers = ["Authorization": "Bearer tok-new1"]
    var variable = RequestTemplate(name: "c", url: "http://127.0.0.1:1/c")
    variable.headers = ["Authorization": "Bearer {{token}}"]
    variable.auth = .basic(user: "ada", password: "{{secret.pw}}")
    var short = RequestTemplate(name: "d", url: "http://127.0.0.1:1/d")
    short.headers = ["Authorization": "Bearer abc", "X-Api-Key": "abc", "X-Request-Id": "r-123456"]
    var requests = imported([reused, taken, variable, short])
    let known = SecretsFile(values: [("token", "tok-held"), ("token-2", "tok-other")])
    // REQBENCH_SECRET_TOKEN_3 would win over the file: token-3 is taken too.
    let environment = ["REQBENCH_SECRET_TOKEN_3": "tok-env", "REQBENCH_SECRET_TOKEN": "tok-held"]
    let moved = ImportedCredentials.extract(from: &requests, known: known, environment: environment)
    #expect(moved == [.init(name: "token-4", value: "tok-new1")])
    #expect(requests.templates[0].headers["Authorization"] == "Bearer {{secret.token}}")
    #expect(requests.templates[1].headers["Authorization"] == "Bearer {{secret.token-4}}")
    #expect(requests.templates[2] == variable, "a value that uses a variable is left as it is")
    #expect(requests.templates[3] == short, "too short to be a credential; other headers are not looked at")
  }
}
