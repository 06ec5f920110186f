import Formats
import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// `{{env.NAME}}`, `{{secret.NAME}}`, the order of variable sources, `defaults`, `cdnURL`.
@Suite struct VariableSourcesTests {
  let ws: Workspace

  init() throws {
    ws = try workspace(
      #"""
      {
        "version": 1,
        "baseURL": "{{host}}/api/",
        "cdnURL": "{{cdn}}",
        "environment": "local",
        "environments": {
          "local": {"host": "http://127.0.0.1:8080", "cdn": "http://127.0.0.1:8081", "user": "ada", "id": "env"},
          "staging": {"host": "https://staging.example.com", "cdn": "https://cdn.example.com", "user": "bob"}
        },
        "variables": {"id": "1", "only": "variables"},
        "defaults": {"headers": {"X-Client": "reqbench", "Accept": "*/*"}, "query": {"v": "2", "page": "9"}},
        "requests": [
          {"name": "users/get", "url": "users/{{id}}", "query": {"page": "1"},
           "headers": {"Accept": "application/json", "Authorization": "Bearer {{secret.token}}"}},
          {"name": "asset", "url": "img/{{only}}.png", "useCDN": true},
          {"name": "absolute", "url": "http://other.test/x"},
          {"name": "home", "url": "/h", "headers": {"X-Home": "{{env.HOME}}"}},
          {"name": "login", "method": "POST", "url": "login?key={{secret.key}}",
           "auth": {"basic": {"user": "{{user}}", "password": "{{secret.password}}"}},
           "body": {"json": {"password": "{{secret.password}}"}}}
        ]
      }
      """#)
  }

  func sources(
    overrides: [String: String] = [:], captured: [String: String] = [:], environment: String? = nil,
    env: [String: String] = [:], secrets: [(String, String)] = []
  ) -> VariableSources {
    VariableSources(
      overrides: overrides, captured: captured, environment: environment, processEnvironment: env,
      secrets: SecretsFile(values: secrets))
  }

  func prepare(_ name: String, _ sources: VariableSources) throws -> Request {
    try ws.prepare(try #require(ws.request(named: name)), sources: sources)
  }

  func failure(_ name: String, _ sources: VariableSources, in workspace: Workspace? = nil) -> PrepareError? {
    let workspace = workspace ?? ws
    guard let template = workspace.request(named: name) else { return nil }
    do {
      _ = try workspace.prepare(template, sources: sources)
      Issue.record("expected preparing \(name) to fail")
      return nil
    } catch {
      return error
    }
  }

  @Test func resolutionOrder() throws {
    let secrets = [("token", "t")]
    // --var > captured > environment > variables
    #expect(try prepare("users/get", sources(overrides: ["id": "o"], captured: ["id": "c"], secrets: secrets)).url.contains("/users/o?"))
    #expect(try prepare("users/get", sources(captured: ["id": "c"], secrets: secrets)).url.contains("/users/c?"))
    #expect(try prepare("users/get", sources(secrets: secrets)).url.contains("/users/env?"))
    #expect(try prepare("users/get", sources(environment: "staging", secrets: secrets)).url.hasPrefix("https://staging.example.com/api/users/1?"))
  }

  @Test func defaultsApplyToRelativeURLsAndTheRequestWins() throws {
    let request = try prepare("users/get", sources(secrets: [("token", "t")]))
    #expect(request.url == "http://127.0.0.1:8080/api/users/env?page=1&v=2")
    #expect(request.headers["Accept"] == "application/json")
    #expect(request.headers["X-Client"] == "reqbench")
    let absolute = try prepare("absolute", sources())
    #expect(absolute.url == "http://other.test/x")
    #expect(absolute.headers["X-Client"] == nil)
  }

  @Test func useCDNResolvesAgainstTheCDN() throws {
    #expect(try prepare("asset", sources()).url == "http://127.0.0.1:8081/img/variables.png?v=2&page=9")
    var noCDN = ws
    noCDN.cdnURL = nil
    let error = failure("asset", sources(), in: noCDN)
    #expect(error?.description.contains("\"useCDN\" is true but the workspace has no \"cdnURL\"") == true)
  }

  @Test func processEnvironmentVariables() throws {
    #expect(try prepare("home", sources(env: ["HOME": "/home/ada"])).headers["X-Home"] == "/home/ada")
    #expect(
      failure("home", sources())?.unlocated
        == "home: {{env.HOME}} in header \"X-Home\": the environment variable HOME is not set; export it or pass --var env.HOME=…")
  }

  @Test func secretsFromTheEnvironmentWinOverTheFile() throws {
    let fromFile = try prepare("users/get", sources(secrets: [("token", "file-token")]))
    #expect(fromFile.headers["Authorization"] == "Bearer file-token")
    let fromEnv = try prepare(
      "users/get", sources(env: ["REQBENCH_SECRET_TOKEN": "env-token"], secrets: [("token", "file-token")]))
    #expect(fromEnv.headers["Authorization"] == "Bearer env-token")
    #expect(VariableSources.secretEnvironmentName("api-key.v2") == "REQBENCH_SECRET_API_KEY_V2")
  }

  @Test func anUnknownSecretSaysHowToSetIt() throws {
    let error = failure("users/get", sources())
    #expect(error?.code == .undefinedVariable("secret.token"))
    #expect(error?.description.contains("reqbench secrets set WORKSPACE token") == true)
    #expect(error?.description.contains("REQBENCH_SECRET_TOKEN") == true)
  }

  @Test func everyFormOfASecretIsMaskedInTheRedactedRequest() throws {
    let password = "p&ss \"w\"/ord"
    let request = try prepare(
      "login", sources(secrets: [("password", password), ("key", "k-y~z")]))
    #expect(request.headers["Authorization"]?.hasPrefix("Basic ") == true)
    let redacted = request.redacted()
    let everything = redacted.url + redacted.headers.fields.map { $0.name + $0.value }.joined()
      + String(decoding: redacted.body.bytes, as: UTF8.self)
    for form in request.secrets {
      #expect(!everything.contains(form), "\(form) leaked")
    }
    #expect(redacted.url.hasSuffix("?key=••••&v=2&page=9"))
    #expect(redacted.headers["Authorization"] == "••••")
    #expect(String(decoding: redacted.body.bytes, as: UTF8.self) == #"{"password":"••••"}"#)
    // The real request still carries the values.
    #expect(String(decoding: request.body.bytes, as: UTF8.self).contains(#"p&ss \"w\"/ord"#))
  }

  /// A credential written into the request (a pasted curl's `Authorization`, a basic auth with
  /// its password in the file) is masked as a secret's value is; a short value is not.
  @Test func aCredentialWrittenIntoTheRequestIsMaskedLikeASecret() throws {
    let literal = try workspace(
      #"""
      {"version": 1, "requests": [
        {"name": "pasted", "url": "http://127.0.0.1:8080/x?t=tok-5ecr3t/9",
         "headers": {"authorization": "  Bearer   tok-5ecr3t/9 ", "Proxy-Authorization": "Basic cHJveHk6cHc="}},
        {"name": "basic", "url": "http://127.0.0.1:8080/y", "auth": {"basic": {"user": "ada", "password": "pa55w0rd"}}},
        {"name": "short", "url": "http://127.0.0.1:8080/z", "headers": {"Authorization": "Bearer abc"}}
      ]}
      """#)
    func prepared(_ name: String) throws -> Request {
      try literal.prepare(try #require(literal.request(named: name)), sources: sources())
    }
    let pasted = try prepared("pasted")
    #expect(pasted.secrets.contains("tok-5ecr3t/9"), "\(pasted.secrets)")
    #expect(pasted.headers["Authorization"] == "  Bearer   tok-5ecr3t/9 ", "sent as written")
    let redacted = pasted.redacted()
    #expect(redacted.headers["Authorization"] == "  Bearer   •••• ")
    #expect(redacted.headers["Proxy-Authorization"] == "Basic ••••")
    #expect(redacted.url == "http://127.0.0.1:8080/x?t=••••", "wherever it appears")
    let basic = try prepared("basic")
    #expect(basic.headers["Authorization"] == "Basic YWRhOnBhNTV3MHJk")
    #expect(basic.redacted().headers["Authorization"] == "Basic ••••")
    #expect(try prepared("short").secrets.isEmpty, "three characters are no credential")
    // A secret's own masking is unchanged: the whole header of a basic auth from secrets.
    let login = try prepare("login", sources(secrets: [("password", "p4ssw0rd"), ("key", "k")]))
    #expect(login.redacted().headers["Authorization"] == "••••")
  }

  @Test func credentialsAreWhatFollowsTheScheme() {
    #expect(CredentialMasking.credential(in: "Bearer tok-123") == "tok-123")
    #expect(CredentialMasking.credential(in: "\tToken\t tok-123 ") == "tok-123")
    #expect(CredentialMasking.credential(in: "tok-123") == "tok-123", "no scheme: all of it")
    #expect(
      CredentialMasking.credential(in: "AWS4-HMAC-SHA256 Credential=AKIA/1, Signature=ab12")
        == "Credential=AKIA/1, Signature=ab12")
    #expect(CredentialMasking.credential(in: "Bearer abc") == nil)
    #expect(CredentialMasking.credential(in: " Bearer ") == nil, "a scheme alone is no credential")
    #expect(CredentialMasking.credential(in: "Negotiate") == nil)
    #expect(CredentialMasking.credential(in: "") == nil)
    #expect(CredentialMasking.carriesCredential("PROXY-authorization"))
    #expect(!CredentialMasking.carriesCredential("X-Authorization-Hint"))
  }

  /// Names that say their whole value is a key, token, secret, password or signature.
  @Test func keyNamesAreTheirWords() {
    for name in [
      "X-Api-Key", "api-key", "APIKEY", "x-apikey", "api_key", "X-Auth-Token", "Private-Token", "token",
      "access_token", "client_secret", "password", "X-CSRF-Token", "X-Amz-Security-Token", "X-Amz-Signature", "sig",
      "Ocp-Apim-Subscription-Key", "X-Amz-Credential", "secret_key", "accessToken", "X-CSRFToken", "clientSecret",
      "apiKey", "newPassword",
    ] {
      #expect(CredentialMasking.isKeyName(name), "\(name)")
    }
    for name in [
      "key", "Idempotency-Key", "Sec-WebSocket-Key", "page_token", "nextToken", "next-token", "X-Request-Id", "tokens",
      "Cache-Key", "keyword", "page", "Authorization", "nextPageToken", "continuation_token", "tokenizer",
    ] {
      #expect(!CredentialMasking.isKeyName(name), "\(name)")
    }
    #expect(CredentialMasking.key(in: " k-12 ") == "k-12")
    #expect(CredentialMasking.key(in: "abc") == nil)
    #expect(CredentialMasking.key(in: "null") == nil && CredentialMasking.key(in: " False ") == nil, "a placeholder is no key")
  }

  /// A key written into the request (an `X-Api-Key` header, `?api_key=` in the URL or the
  /// query, percent-encoded or not) is masked as a secret's value is; other parameters are not.
  @Test func aKeyWrittenIntoTheRequestIsMaskedLikeASecret() throws {
    let literal = try workspace(
      #"""
      {"version": 1, "requests": [
        {"name": "keyed", "url": "http://127.0.0.1:8080/x?api_key=ak%2F123&page=2",
         "query": {"access_token": "at-456", "page_token": "cursor-789"},
         "headers": {"X-Api-Key": " xk-123 ", "Idempotency-Key": "idem-123"}}
      ]}
      """#)
    let keyed = try literal.prepare(try #require(literal.request(named: "keyed")), sources: sources())
    #expect(Set(keyed.secrets).isSuperset(of: ["xk-123", "ak%2F123", "ak/123", "at-456"]), "\(keyed.secrets)")
    #expect(!keyed.secrets.contains("cursor-789") && !keyed.secrets.contains("idem-123") && !keyed.secrets.contains("2"))
    let redacted = keyed.redacted()
    #expect(redacted.headers["X-Api-Key"] == " •••• " && redacted.headers["Idempotency-Key"] == "idem-123")
    #expect(redacted.url == "http://127.0.0.1:8080/x?api_key=••••&page=2&access_token=••••&page_token=cursor-789", "\(redacted.url)")
  }

  @Test func newKeysRoundTrip() throws {
    let text = String(decoding: ws.encoded(), as: UTF8.self)
    let again = try workspace(text)
    #expect(again == ws)
    #expect(text.contains(#""useCDN": true"#))
    #expect(text.contains(#""cdnURL": "{{cdn}}""#))
  }

  /// A variable's value may use other variables, secrets included (which stay masked).
  @Test func nestedVariablesAreFilledIn() throws {
    let nested = try workspace(
      #"""
      {"version": 1, "environment": "local",
       "environments": {"local": {"host": "http://127.0.0.1:9", "auth": "Bearer {{secret.token}}"}},
       "variables": {"baseUrl": "{{host}}/anything", "deep": "{{baseUrl}}/{{id}}", "id": "7"},
       "requests": [{"name": "get", "url": "{{deep}}", "headers": {"Authorization": "{{auth}}"}}]}
      """#)
    let request = try nested.prepare(
      try #require(nested.request(named: "get")), sources: sources(secrets: [("token", "s3cr3t")]))
    #expect(request.url == "http://127.0.0.1:9/anything/7")
    #expect(request.headers["Authorization"] == "Bearer s3cr3t")
    #expect(request.secrets.contains("s3cr3t"))
    #expect(request.redacted().headers["Authorization"] == "Bearer ••••")
    // --var still wins, as written.
    let overridden = try nested.prepare(
      try #require(nested.request(named: "get")),
      sources: sources(overrides: ["baseUrl": "http://x.test/{{id}}"], secrets: [("token", "t")]))
    #expect(overridden.url == "http://x.test/{{id}}/7")
  }

  @Test func aNestedUndefinedVariableOrACycleIsAnError() throws {
    let nested = try workspace(
      #"""
      {"version": 1,
       "variables": {"a": "{{b}}/x", "b": "{{c}}", "c": "{{a}}", "u": "{{missing}}",
                     "d0": "{{d1}}", "d1": "{{d2}}", "d2": "{{d3}}", "d3": "{{d4}}", "d4": "{{d5}}",
                     "d5": "{{d6}}", "d6": "{{d7}}", "d7": "{{d8}}", "d8": "{{d9}}", "d9": "{{d10}}",
                     "d10": "{{d11}}", "d11": "end"},
       "requests": [{"name": "cycle", "url": "http://h.test/{{a}}"},
                    {"name": "undefined", "url": "http://h.test/", "headers": {"X": "{{u}}"}},
                    {"name": "deep", "url": "http://h.test/{{d0}}"}]}
      """#)
    let cycle = try #require(failure("cycle", sources(), in: nested))
    #expect(
      cycle.unlocated
        == "cycle: url: the variables refer to each other in a cycle: {{a}} → {{b}} → {{c}} → {{a}}")
    let undefined = try #require(failure("undefined", sources(), in: nested))
    #expect(undefined.code == .undefinedVariable("missing"))
    #expect(
      undefined.unlocated
        == #"undefined: undefined variable {{missing}} in the value of {{u}} (used in header "X"); define it with --var missing=… or in "variables""#)
    let deep = try #require(failure("deep", sources(), in: nested))
    #expect(deep.unlocated.hasPrefix("deep: url: variables nested more than 10 deep: {{d0}} → {{d1}}"))
  }

  /// A Postman collection variable built from another (`baseUrl = {{host}}/anything`).
  @Test func postmanVariablesThatUseVariables() throws {
    let imported = try PostmanImporter.parse(
      Array(
        #"""
        {"info": {"name": "c", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
         "item": [{"name": "Ping", "request": {"method": "GET", "url": "{{baseUrl}}/ping"}}],
         "variable": [{"key": "host", "value": "https://api.test"},
                      {"key": "baseUrl", "value": "{{host}}/anything"}]}
        """#.utf8), file: "c.json")
    var ws = Workspace(name: "w")
    _ = try ws.addImported(imported)
    let request = try ws.prepare(try #require(ws.requests.first), sources: sources())
    #expect(request.url == "https://api.test/anything/ping")
  }

  @Test func defaultsRejectUnknownKeys() throws {
    let error = try #require(
      loadError(#"{"version": 1, "defaults": {"header": {}}, "requests": []}"#))
    #expect(error.description.contains("defaults.header: unknown key"))
  }
}

@Suite struct SecretsFileTests {
  func folder() throws -> URL {
    let dir = scratchURL("rb-secrets")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
  }

  @Test func savedWithMode0600AndIgnoredInGit() throws {
    let dir = try folder()
    let ws = dir.appendingPathComponent("demo.json")
    var secrets = try SecretsFile.load(forWorkspace: ws)
    #expect(secrets.names.isEmpty)
    secrets.set("token", "s3cr3t")
    try secrets.save()
    let file = dir.appendingPathComponent("demo.secrets.json")
    let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
    #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    let ignore = try String(contentsOf: dir.appendingPathComponent(".gitignore"), encoding: .utf8)
    #expect(ignore.split(separator: "\n").contains("demo.secrets.json"))
    // Saving again does not add the line twice.
    try secrets.save()
    let again = try String(contentsOf: dir.appendingPathComponent(".gitignore"), encoding: .utf8)
    #expect(again.components(separatedBy: "demo.secrets.json").count == 2)
    #expect(try SecretsFile.load(forWorkspace: ws).value(of: "token") == "s3cr3t")
  }

  @Test func anExistingGitignoreKeepsItsLines() throws {
    let dir = try folder()
    try "build/\n".write(to: dir.appendingPathComponent(".gitignore"), atomically: true, encoding: .utf8)
    var secrets = try SecretsFile.load(forWorkspace: dir.appendingPathComponent("w.json"))
    secrets.set("a", "b")
    try secrets.save()
    let ignore = try String(contentsOf: dir.appendingPathComponent(".gitignore"), encoding: .utf8)
    #expect(ignore.hasPrefix("build/\n"))
    #expect(ignore.contains("w.secrets.json"))
  }

  @Test func malformedSecretsAreReportedWhereTheyAre() throws {
    let dir = try folder()
    try "{\n  \"token\": 5\n}\n".write(to: dir.appendingPathComponent("w.secrets.json"), atomically: true, encoding: .utf8)
    chmod(dir.appendingPathComponent("w.secrets.json").path, 0o600)  // private, as a secrets file must be
    do {
      _ = try SecretsFile.load(forWorkspace: dir.appendingPathComponent("w.json"))
      Issue.record("expected an error")
    } catch {
      #expect(error.description.hasSuffix("w.secrets.json:2:12: token: expected a string, found number"))
    }
  }
}
