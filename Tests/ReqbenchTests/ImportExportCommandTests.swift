import Foundation
import RequestEngine
import TestSupport
import Testing

/// End to end: `reqbench import` and `reqbench export` through the built binary.
@Suite("reqbench import / export")
struct ImportExportCommandTests {
  func temporaryDirectory() throws -> URL {
    let dir = scratchURL("rb-ie")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
  }

  func run(_ args: [String], stdin: String? = nil, environment: [String: String]? = nil) throws
    -> ProcessResult
  {
    try runProcess(try reqbenchBinary, args, environment: environment, stdin: stdin)
  }

  func json(_ url: URL) throws -> JSONValue {
    try JSONParser.parse(Array(try Data(contentsOf: url)))
  }

  @Test func importIntoANewWorkspaceCreatesAMinimalOne() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let input = dir.appendingPathComponent("api.http")
    try """
    @host = https://api.test

    ### users/get
    GET {{host}}/users/1

    ### users/create
    POST {{host}}/users
    Content-Type: application/json

    {"name": "Ada"}
    """.write(to: input, atomically: true, encoding: .utf8)
    let ws = dir.appendingPathComponent("mine.json")
    let result = try run(["import", "http", input.path, "--into", ws.path])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stderr == """
        imported users/get (GET {{host}}/users/1)
        imported users/create (POST {{host}}/users)
        added variables: host

        """)
    #expect(
      try json(ws)
        == (try JSONParser.parse(
          #"""
          {"version": 1, "name": "mine",
           "variables": {"host": "https://api.test"},
           "requests": [
             {"name": "users/get", "method": "GET", "url": "{{host}}/users/1"},
             {"name": "users/create", "method": "POST", "url": "{{host}}/users", "body": {"text": "{\"name\": \"Ada\"}", "contentType": "application/json"}}
           ]}
          """#)))
  }

  /// `export http` writes a file that runs on its own: imported into an empty workspace, its
  /// request is sent to the same URL with the same headers (defaults included) and query.
  @Test func anExportedHTTPFileRunsFromAnEmptyWorkspace() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let ws = dir.appendingPathComponent("api.json")
    try """
      {"version": 1, "baseURL": "{{host}}/", "environment": "local",
       "environments": {"local": {"host": "\(try TestServer.fixture.baseURL)", "who": "{{first}} L."},
                        "other": {"host": "http://127.0.0.1:1"}},
       "variables": {"id": "7", "first": "Ada", "unused": "x"},
       "defaults": {"headers": {"X-Client": "reqbench"}, "query": {"v": "2"}},
       "requests": [{"name": "users/get", "url": "anything/users/{{id}}", "priority": "high",
                     "headers": {"X-Who": "{{who}}"}, "validate": {"status": 200},
                     "cache": {"seconds": 60}, "retry": {"max": 1}}]}
      """.write(to: ws, atomically: true, encoding: .utf8)
    let export = try run(["export", "http", ws.path, "users/get"])
    #expect(export.status == 0, "\(export.stderr)")
    #expect(!export.stdout.contains("unused") && !export.stdout.contains("127.0.0.1:1"))
    #expect(export.stdout.contains("GET {{baseURL}}anything/users/{{id}}"), "\(export.stdout)")
    #expect(export.stdout.contains(#"# @reqbench {"priority":"high","cache":{"seconds":60},"retry":{"max":1},"validate":{"status":200}}"#), "\(export.stdout)")
    let file = dir.appendingPathComponent("api.http")
    try export.stdout.write(to: file, atomically: true, encoding: .utf8)
    let empty = dir.appendingPathComponent("empty.json")
    let imported = try run(["import", "http", file.path, "--into", empty.path])
    #expect(imported.status == 0, "\(imported.stderr)")
    let sent = try run(["run", empty.path, "users/get", "--no-history"])
    #expect(sent.status == 0, "\(sent.stderr)")
    let echo = try JSONParser.parse(sent.stdout)
    #expect(echo["target"] == "/anything/users/7?v=2", "\(sent.stdout)")
    #expect(echo["headers"]?["X-Client"]?.stringValue == "reqbench")
    #expect(echo["headers"]?["X-Who"]?.stringValue == "Ada L.")
    let request = try #require(try json(empty)["requests"]?.arrayValue?.first)
    #expect(request["priority"] == "high" && request["cache"] == ["seconds": 60])
  }

  /// A pasted command's bearer token and `-u` password go to the secrets file (0600, ignored by
  /// git), written before the workspace that says `{{secret.NAME}}`; `run` sends them (httpbin's
  /// /bearer and /basic-auth answer 200 only to the right ones).
  @Test func credentialsInAnImportGoToTheSecretsFile() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let base = try TestServer.httpbin.baseURL
    let ws = dir.appendingPathComponent("api.json")
    let token = "tok-" + uniqueKey("import")
    let paste = """
      curl -H 'Authorization: Bearer \(token)' -b 'session=\(token)' \(base)/bearer
      curl -u ada:pa55-\(token) \(base)/basic-auth/ada/pa55-\(token)
      curl -H 'X-Api-Key: xk-\(token)' -H 'Idempotency-Key: idem-\(token)' '\(base)/anything/keyed?api_key=ak-\(token)&page_token=cursor-\(token)'
      """
    let result = try run(["import", "curl", "-", "--into", ws.path], stdin: paste)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(
      result.stderr.contains(
        "moved credentials to api.secrets.json (the workspace says {{secret.NAME}} in their place): cookie, token, password, api-key, api-key-2"),
      "\(result.stderr)")
    #expect(!result.stderr.contains("secrets the requests use"), "nothing left to set: \(result.stderr)")
    let text = try String(contentsOf: ws, encoding: .utf8)
    #expect(text.contains(#""Authorization": "Bearer {{secret.token}}""#) && text.contains(#""password": "{{secret.password}}""#), "\(text)")
    // (httpbin's /basic-auth URL holds the password: it checks the one sent against it.)
    #expect(!text.contains("Bearer \(token)") && !text.contains("session=") && !text.contains("\"pa55-\(token)\""), "\(text)")
    #expect(text.contains(#""Cookie": "{{secret.cookie}}""#), "\(text)")
    let secrets = dir.appendingPathComponent("api.secrets.json")
    #expect(try json(secrets)["token"]?.stringValue == token && json(secrets)["password"]?.stringValue == "pa55-" + token)
    let mode = try FileManager.default.attributesOfItem(atPath: secrets.path)[.posixPermissions] as? Int
    #expect(mode == 0o600)
    #expect(try String(contentsOf: dir.appendingPathComponent(".gitignore"), encoding: .utf8).contains("api.secrets.json"))
    // A key header and a key in the query, not an idempotency key or a pagination cursor.
    #expect(text.contains(#""X-Api-Key": "{{secret.api-key}}""#) && text.contains(#""api_key": "{{secret.api-key-2}}""#), "\(text)")
    #expect(text.contains("idem-\(token)") && text.contains("cursor-\(token)"), "\(text)")
    #expect(!text.contains("xk-\(token)") && !text.contains("ak-\(token)"), "\(text)")
    #expect(try json(secrets)["api-key"]?.stringValue == "xk-" + token && json(secrets)["api-key-2"]?.stringValue == "ak-" + token)
    let names = try JSONParser.parse(Array(try Data(contentsOf: ws)))["requests"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
    #expect(names.count == 3)
    // httpbin's echo: the keys went out as they were pasted.
    let keyed = try run(["run", ws.path, names[2], "--no-history"])
    #expect(keyed.status == 0, "\(keyed.stderr)")
    let echo = try JSONParser.parse(keyed.stdout)
    #expect(echo["headers"]?["X-Api-Key"]?.stringValue == "xk-" + token, "\(keyed.stdout)")
    #expect(echo["args"]?["api_key"]?.stringValue == "ak-" + token && echo["args"]?["page_token"]?.stringValue == "cursor-" + token)
    for name in names.prefix(2) {
      let sent = try run(["run", ws.path, name, "--no-history"])
      #expect(sent.status == 0, "\(name) with its credential: \(sent.stderr)")
      #expect(sent.stdout.contains(#""authenticated": true"#), "\(sent.stdout)")
    }
    // A secrets file that cannot be read: said with its place, and nothing is written.
    try #"{"token": "tok"#.write(to: secrets, atomically: true, encoding: .utf8)
    chmod(secrets.path, 0o600)  // private, as a secrets file must be
    let before = try Data(contentsOf: ws)
    let broken = try run(["import", "curl", "-", "--into", ws.path], stdin: "curl -H 'Authorization: Bearer tok-other' \(base)/bearer")
    #expect(broken.status == 2 && broken.stderr.contains("api.secrets.json:1:"), "\(broken.stderr)")
    #expect(try Data(contentsOf: ws) == before && String(contentsOf: secrets, encoding: .utf8) == #"{"token": "tok"#)
  }

  /// HTTPie commands as its documentation writes them, imported and sent: httpbin echoes what
  /// HTTPie would have sent (the JSON fields typed, nested; a form; the header, the query, the
  /// basic auth checked by httpbin with the password moved to the secrets file).
  @Test func httpieCommandsImportAndSendAsHTTPieWould() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let base = try TestServer.httpbin.baseURL
    let ws = dir.appendingPathComponent("api.json")
    let password = "pw-" + uniqueKey("httpie")
    let commands = """
      http POST \(base)/anything name=ada age:=36 tags[]=x tags[]=y 'address[city]=London' X-Trace:abc per==10
      $ http --form PUT \(base)/anything user=ada 'note=a b'
      http -a ada:\(password) \(base)/basic-auth/ada/\(password)
      """
    let result = try run(["import", "httpie", "-", "--into", ws.path], stdin: commands)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.contains("imported post-anything (POST \(base)/anything?per=10)"), "\(result.stderr)")
    #expect(result.stderr.contains("password"), "the password moved: \(result.stderr)")
    let names = try json(ws)["requests"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
    #expect(names == ["post-anything", "put-anything", "get-basic-auth-ada-\(password)"])
    #expect(!(try String(contentsOf: ws, encoding: .utf8)).contains(#""password": "\#(password)""#))

    let posted = try run(["run", ws.path, "post-anything", "--no-history"])
    #expect(posted.status == 0, "\(posted.stderr)")
    let echo = try JSONParser.parse(posted.stdout)
    // (httpbin sorts the keys it echoes.)
    let sent = echo["json"]
    #expect(sent?["name"] == "ada" && sent?["age"] == 36 && sent?["tags"] == ["x", "y"], "\(posted.stdout)")
    #expect(sent?["address"] == ["city": "London"] && sent?.objectValue?.count == 4, "\(posted.stdout)")
    #expect(echo["headers"]?["X-Trace"]?.stringValue == "abc" && echo["args"]?["per"]?.stringValue == "10")
    #expect(echo["headers"]?["Content-Type"]?.stringValue == "application/json")
    let form = try JSONParser.parse(try run(["run", ws.path, "put-anything", "--no-history"]).stdout)
    #expect(form["method"]?.stringValue == "PUT" && form["form"] == ["note": "a b", "user": "ada"], "\(form)")
    #expect(form["headers"]?["Content-Type"]?.stringValue == "application/x-www-form-urlencoded; charset=utf-8")  // HTTPie's
    let auth = try run(["run", ws.path, names[2], "--no-history"])
    #expect(auth.status == 0 && auth.stdout.contains(#""authenticated": true"#), "\(auth.stdout)\(auth.stderr)")

    // And back out: export httpie, run by HTTPie itself, sends the same JSON.
    let exported = try run(["export", "httpie", ws.path, "post-anything"])
    #expect(exported.status == 0 && exported.stdout.hasPrefix("http --ignore-stdin --raw "), "\(exported.stdout)\(exported.stderr)")
    let again = try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", exported.stdout])
    #expect(again.status == 0, "\(again.stderr)")
    let resent = try JSONParser.parse(again.stdout)
    #expect(resent["json"] == echo["json"] && resent["args"] == echo["args"], "\(again.stdout)")
    #expect(resent["headers"]?["X-Trace"] == "abc")
  }

  /// A Postman environment export beside a collection: the environment arrives with its
  /// secret moved to the secrets file, and `--env` sends with its values (httpbin echoes them).
  @Test func aPostmanEnvironmentBecomesAnEnvironmentWithItsSecretsMoved() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let base = try TestServer.httpbin.baseURL
    let key = "sk-" + uniqueKey("postman-env")
    let ws = dir.appendingPathComponent("shop.json")
    try """
    {"version": 1, "requests": [
      {"name": "whoami", "url": "{{baseUrl}}/anything/whoami", "headers": {"X-Api-Key": "{{apiKey}}"}}
    ]}
    """.write(to: ws, atomically: true, encoding: .utf8)
    let export = dir.appendingPathComponent("Staging.postman_environment.json")
    try """
    {"id": "5f1", "name": "Staging", "_postman_variable_scope": "environment",
     "values": [
       {"key": "baseUrl", "value": "\(base)", "type": "default", "enabled": true},
       {"key": "apiKey", "value": "\(key)", "type": "secret", "enabled": true},
       {"key": "legacy", "value": "x", "type": "default", "enabled": false}
     ]}
    """.write(to: export, atomically: true, encoding: .utf8)
    let imported = try run(["import", "postman", export.path, "--into", ws.path])
    #expect(imported.status == 0, "\(imported.stderr)")
    #expect(imported.stderr.contains("added environments: Staging"), "\(imported.stderr)")
    #expect(imported.stderr.contains("moved credentials to shop.secrets.json"), "\(imported.stderr)")
    let saved = try json(ws)
    #expect(saved["environments"]?["Staging"]?["baseUrl"]?.stringValue == base)
    #expect(saved["environments"]?["Staging"]?["apiKey"]?.stringValue == "{{secret.apikey}}")
    #expect(saved["environments"]?["Staging"]?["legacy"] == nil, "switched off in Postman: left out")
    #expect(try !String(contentsOf: ws, encoding: .utf8).contains(key))
    #expect(try json(dir.appendingPathComponent("shop.secrets.json"))["apikey"]?.stringValue == key)
    let sent = try run(["run", ws.path, "whoami", "--env", "Staging", "--no-history"])
    #expect(sent.status == 0, "\(sent.stderr)")
    #expect(try JSONParser.parse(sent.stdout)["headers"]?["X-Api-Key"]?.stringValue == key, "\(sent.stdout)")
    let masked = try run(["run", ws.path, "whoami", "--env", "Staging", "--no-history", "--json"])
    #expect(!masked.stdout.contains(key) && masked.stdout.contains("••••"), "--json masks it: \(masked.stdout)")
  }

  @Test func importingTwiceSuffixesNamesAndPrefixesWithName() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let ws = dir.appendingPathComponent("w.json").path
    let paste = "curl https://a.test/x\ncurl -X DELETE https://a.test/x"
    #expect(try run(["import", "curl", "-", "--into", ws], stdin: paste).status == 0)
    let again = try run(["import", "curl", "-", "--into", ws], stdin: paste)
    #expect(
      again.stderr
        == "imported get-x-2 (GET https://a.test/x)\nimported delete-x-2 (DELETE https://a.test/x)\n"
    )
    let named = try run(["import", "curl", "-", "--into=\(ws)", "--name", "old"], stdin: paste)
    #expect(
      named.stderr
        == "imported old/get-x (GET https://a.test/x)\nimported old/delete-x (DELETE https://a.test/x)\n"
    )
  }

  @Test func aPostmanCollectionWithAVariableClash() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let ws = dir.appendingPathComponent("w.json")
    try #"{"version": 1, "variables": {"baseUrl": "http://localhost"}}"#.write(
      to: ws, atomically: true, encoding: .utf8)
    let collection = #"""
      {"info": {"name": "c", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
       "item": [{"name": "Ping", "request": {"method": "GET", "url": "{{baseUrl}}/ping"}}],
       "variable": [{"key": "baseUrl", "value": "https://api.test"}]}
      """#
    let result = try run(["import", "postman", "-", "--into", ws.path], stdin: collection)
    #expect(result.status == 0)
    #expect(
      result.stderr == """
        imported Ping (GET {{baseUrl}}/ping)
        reqbench: warning: the workspace already defines the variable baseUrl as "http://localhost"; kept it (the import has "https://api.test")

        """)
    #expect(try json(ws)["variables"] == ["baseUrl": "http://localhost"])
  }

  @Test func anImportErrorExitsTwoAndWritesNothing() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let ws = dir.appendingPathComponent("w.json")
    let original = #"{"version": 1, "requests": [{"name": "a", "url": "http://a.test"}]}"#
    try original.write(to: ws, atomically: true, encoding: .utf8)
    let result = try run(
      ["import", "curl", "-", "--into", ws.path],
      stdin: "curl https://a.test/ok\ncurl https://a.test/upload \\\n  -F 'f=@/abs/x.png'")
    #expect(result.status == 2)
    #expect(result.stderr.hasPrefix("<stdin>:3:6: -F \"f=@/abs/x.png\": \"/abs/x.png\" is absolute"), "\(result.stderr)")
    #expect(try String(contentsOf: ws, encoding: .utf8) == original)
    // Nor is a missing workspace created.
    let missing = dir.appendingPathComponent("new.json")
    #expect(
      try run(["import", "curl", "-", "--into", missing.path], stdin: "curl --frob x").status == 2)
    #expect(!FileManager.default.fileExists(atPath: missing.path))
    #expect(try directoryListing(dir) == ["w.json"])
  }

  @Test func anInvalidWorkspaceIsNotOverwritten() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let ws = dir.appendingPathComponent("w.json")
    try "{\"version\": 1,".write(to: ws, atomically: true, encoding: .utf8)
    let result = try run(["import", "curl", "-", "--into", ws.path], stdin: "curl https://a.test")
    #expect(result.status == 2)
    #expect(result.stderr.hasPrefix("\(ws.path):1:15: "))
    #expect(try String(contentsOf: ws, encoding: .utf8) == "{\"version\": 1,")
  }

  @Test func usageErrors() throws {
    let cases: [([String], String)] = [
      (["import"], "reqbench: import needs a format and an input"),
      (
        ["import", "yaml", "x", "--into", "w.json"],
        "reqbench: import: unknown format \"yaml\"; use curl, httpie, http, postman, har, openapi, bruno, insomnia"
      ),
      (["import", "curl", "-"], "reqbench: import needs --into WORKSPACE"),
      (["import", "curl", "-", "--into"], "reqbench: --into needs a value"),
      (
        ["import", "curl", "-", "--into", "w.json", "--bogus"],
        "reqbench: import: unknown option \"--bogus\""
      ),
      (
        ["export", "curl", "w.json"],
        "reqbench: export curl needs a workspace and at least one target (a request name)"
      ),
      (
        ["export", "yaml", "w.json", "a"],
        "reqbench: export: unknown format \"yaml\"; use curl, httpie, http, har"
      ),
      (
        ["export", "http", "w.json", "a", "--var", "x=1"],
        "reqbench: --var applies to export curl; export http writes the templates with their {{variables}} kept and the values of --env NAME as @name = value lines"
      ),
    ]
    for (args, message) in cases {
      let result = try run(args)
      #expect(result.status == 2, "\(args)")
      #expect(result.stderr.hasPrefix(message + "\n"), "\(args): \(result.stderr)")
    }
  }

  @Test func helpPrintsTheUsage() throws {
    let importHelp = try run(["import", "--help"])
    #expect(importHelp.status == 0)
    #expect(
      importHelp.stdout.hasPrefix(
        "usage: reqbench import curl|httpie|http|postman|har|openapi|bruno|insomnia FILE|- --into WORKSPACE"))
    let exportHelp = try run(["export", "-h"])
    #expect(exportHelp.status == 0)
    #expect(exportHelp.stdout.hasPrefix("usage: reqbench export curl WORKSPACE TARGET..."))
  }

  func exportWorkspace(in dir: URL) throws -> URL {
    let ws = dir.appendingPathComponent("w.json")
    try #"""
    {"version": 1, "baseURL": "https://api.test/",
     "variables": {"id": "1", "host": "https://api.test"},
     "environments": {"prod": {"id": "99"}},
     "requests": [
       {"name": "get-user", "url": "users/{{id}}", "query": {"v": "1"}},
       {"name": "me", "url": "{{host}}/me", "headers": {"Authorization": "Bearer {{secret.token}}"}}
     ]}
    """#.write(to: ws, atomically: true, encoding: .utf8)
    return ws
  }

  @Test func exportCurlFillsInVariablesAndEnvironments() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let ws = try exportWorkspace(in: dir)
    let plain = try run(["export", "curl", ws.path, "get-user"])
    #expect(plain.status == 0)
    #expect(
      plain.stdout
        == "curl 'https://api.test/users/1?v=1' \\\n  -A 'reqbench/\(reqbenchVersion)' \\\n  --compressed \\\n"
          + "  -L --max-redirs 10\n")
    #expect(
      try run(["export", "curl", ws.path, "get-user", "--env", "prod"]).stdout.hasPrefix(
        "curl 'https://api.test/users/99?v=1'"))
    #expect(
      try run(["export", "curl", ws.path, "get-user", "--var", "id=7"]).stdout.hasPrefix(
        "curl 'https://api.test/users/7?v=1'"))
    let unknown = try run(["export", "curl", ws.path, "get-usr"])
    #expect(unknown.status == 2)
    #expect(
      unknown.stderr
        == "reqbench: no request named \"get-usr\" in \(ws.path); did you mean \"get-user\"?\n")
  }

  @Test func exportCurlMasksSecretsUnlessRevealed() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let ws = try exportWorkspace(in: dir)
    let environment = ["REQBENCH_SECRET_TOKEN": "t0k3n-value"]
    let masked = try run(["export", "curl", ws.path, "me"], environment: environment)
    #expect(masked.status == 0, "\(masked.stderr)")
    #expect(masked.stdout.contains("-H 'Authorization: Bearer ••••'"))
    #expect(!masked.stdout.contains("t0k3n-value"))
    let revealed = try run(
      ["export", "curl", ws.path, "me", "--reveal-secrets"], environment: environment)
    #expect(revealed.stdout.contains("-H 'Authorization: Bearer t0k3n-value'"))
  }

  @Test func exportHTTPKeepsTheTemplates() throws {
    let dir = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let ws = try exportWorkspace(in: dir)
    let result = try run(["export", "http", ws.path, "get-user", "me"])
    #expect(result.status == 0)
    #expect(
      result.stdout == """
        @baseURL = https://api.test/
        @id = 1
        @host = https://api.test

        ### get-user
        GET {{baseURL}}users/{{id}}
            ?v=1

        ### me
        GET {{host}}/me
        Authorization: Bearer {{secret.token}}

        """)
    // And it imports back.
    let file = dir.appendingPathComponent("out.http")
    try result.stdout.write(to: file, atomically: true, encoding: .utf8)
    let back = dir.appendingPathComponent("back.json")
    #expect(try run(["import", "http", file.path, "--into", back.path]).status == 0)
    let requests = try json(back)["requests"]?.arrayValue ?? []
    #expect(requests.map { $0["name"] } == ["get-user", "me"])
    #expect(requests.first?["query"] == ["v": "1"])
  }
}

private func directoryListing(_ url: URL) throws -> [String] {
  try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
}
