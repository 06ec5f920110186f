import Foundation
import TestSupport
import Testing

/// OAuth 2.0 end to end: `reqbench run` and `reqbench auth` against the tests'
/// authorization server (authlib's grants, `Tests/OAuthServer/oauth_server.py`), two processes
/// sharing the token file, and what the outputs say (the step, never a secret or a token).
@Suite("reqbench auth")
struct AuthCommandTests {
  let folder: URL
  let workspace: String
  let environment: [String: String]

  init() throws {
    folder = scratchURL("rb-auth")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    workspace = folder.appendingPathComponent("api.json").path
    let server = try TestServer.oauth.baseURL
    try #"""
    {"version": 1, "baseURL": "\#(server)/",
     "environments": {"dev": {"scope": "read"}, "prod": {"scope": "write"}}, "environment": "dev",
     "requests": [
       {"name": "me", "url": "api/me", "auth": {"oauth2": {"grant": "clientCredentials", "tokenURL": "token",
         "clientId": "cli", "clientSecret": "{{secret.cli}}", "scope": "{{scope}}"}}},
       {"name": "user", "url": "api/me", "auth": {"oauth2": {"grant": "password", "tokenURL": "token",
         "clientId": "app", "clientSecret": "{{secret.app}}", "clientAuth": "body",
         "username": "ada", "password": "{{secret.ada}}"}}},
       {"name": "wrong", "url": "api/me", "auth": {"oauth2": {"grant": "clientCredentials", "tokenURL": "token",
         "clientId": "cli", "clientSecret": "{{secret.wrong}}"}}},
       {"name": "plain", "url": "api/me"}
     ]}
    """#.write(toFile: workspace, atomically: true, encoding: .utf8)
    var env = ProcessInfo.processInfo.environment
    env["REQBENCH_SECRET_CLI"] = "cli-secret"
    env["REQBENCH_SECRET_APP"] = "app-secret"
    env["REQBENCH_SECRET_ADA"] = "ada-password"
    env["REQBENCH_SECRET_WRONG"] = "not-the-secret"
    environment = env
  }

  /// The environment of a command whose "browser" (`xdg-open` on a `PATH` of its own, with a
  /// display) approves at once: it posts the consent and follows the redirect to the loopback
  /// listener, as a person clicking "allow" would; the URLs it was given go to `recordingTo`.
  func browserApproving(recordingTo opened: URL?) throws -> [String: String] {
    let bin = folder.appendingPathComponent("bin")
    try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
    let script = bin.appendingPathComponent("xdg-open")
    try """
      #!/bin/sh
      \(opened.map { "printf '%s\\n' \"$1\" >> '\($0.path)'" } ?? "")
      location=$(curl -s -m 10 -o /dev/null -w '%{redirect_url}' -X POST -d confirm=yes "$1")
      curl -s -m 10 -o /dev/null "$location"
      """.write(to: script, atomically: true, encoding: .utf8)
    chmod(script.path, 0o755)
    var env = environment
    env["REQBENCH_SECRET_WEB"] = "web-secret"
    env["PATH"] = bin.path + ":" + (env["PATH"] ?? "/usr/bin:/bin")
    env["DISPLAY"] = ":99"
    env["WAYLAND_DISPLAY"] = nil
    return env
  }

  func reqbench(_ args: [String]) throws -> ProcessResult {
    try runProcess(try reqbenchBinary, args, environment: environment, currentDirectory: folder)
  }

  var tokenFiles: [String] {
    let dir = folder.appendingPathComponent(".reqbench/api/oauth2")
    return ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted()
  }

  @Test func authFetchesAndSaysWhenItExpiresRunUsesItAndClearForgetsIt() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let fetched = try reqbench(["auth", workspace, "me"])
    #expect(fetched.status == 0, "\(fetched.stderr)")
    #expect(fetched.stdout.hasPrefix("oauth2 › me: token ready, expires in 60 min ("), "\(fetched.stdout)")
    #expect(fetched.stdout.contains("; scope read"))
    #expect(tokenFiles.count == 1)
    // The token file's token is what `run` sends; it never appears in the output.
    let file = folder.appendingPathComponent(".reqbench/api/oauth2/" + tokenFiles[0])
    let object = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
    let token = try #require(object?["accessToken"] as? String)
    #expect(!fetched.stdout.contains(token))
    let run = try reqbench(["run", workspace, "me", "--json"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains(#"{"name":"Authorization","value":"Bearer ••••"}"#))
    #expect(!run.stdout.contains(token) && !run.stderr.contains(token))
    // Another environment is another token; a password grant with the client in the body.
    #expect(try reqbench(["run", workspace, "me", "--env", "prod"]).status == 0)
    let user = try reqbench(["run", workspace, "user"])
    #expect(user.status == 0, "\(user.stderr)")
    #expect(user.stdout.contains(#""user":"ada""#))
    #expect(tokenFiles.count == 3)
    // History keeps the request masked.
    let history = try reqbench(["history", workspace, "--json"])
    #expect(!history.stdout.contains(token))

    let cleared = try reqbench(["auth", workspace, "--clear"])
    #expect(cleared.stdout == "forgot 3 tokens\n")
    #expect(tokenFiles.isEmpty)
  }

  @Test func failuresNameTheStepNeverTheSecret() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let run = try reqbench(["run", workspace, "wrong"])
    #expect(run.status == 1)
    #expect(run.stderr.contains("wrong: failed: oauth2 › wrong: token: token endpoint answered 401: invalid_client"), "\(run.stderr)")
    #expect(!run.stderr.contains("not-the-secret") && !run.stdout.contains("not-the-secret"))
    let auth = try reqbench(["auth", workspace, "wrong"])
    #expect(auth.status == 1)
    #expect(auth.stderr.hasPrefix("reqbench: oauth2 › wrong: token: token endpoint answered 401: invalid_client"))
    #expect(!auth.stderr.contains("not-the-secret"))
    // Usage errors: a request without oauth2, an unknown one.
    let plain = try reqbench(["auth", workspace, "plain"])
    #expect(plain.status == 2)
    #expect(plain.stderr.contains(#"plain has no "auth": {"oauth2": …}"#))
    #expect(try reqbench(["auth", workspace, "nope"]).stderr.contains(#"no request named "nope""#))
  }

  /// The demo workspace's OAuth 2.0 request against the demo server: the token comes from the
  /// demo server's own token endpoint, is kept in the state folder, and opens the report.
  @Test func theDemoWorkspacesOAuthRequestGetsItsTokenFromTheDemoServer() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let server = try SecondServer()
    let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("workspaces/demo.json").path
    let state = folder.appendingPathComponent("state")
    let args = ["run", demo, "oauth2-report", "--var", "host=" + server.baseURL, "--state-dir", state.path]
    // Without the secret: the request says which, and nothing is sent.
    let missing = try reqbench(args)
    #expect(missing.status != 0)
    #expect(missing.stderr.contains("demo-client"), "\(missing.stderr)")
    var env = environment
    env["REQBENCH_SECRET_DEMO_CLIENT"] = "demo-secret"
    let run = try runProcess(try reqbenchBinary, args, environment: env, currentDirectory: folder)
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains(#""client": "demo""#), "\(run.stdout)")
    #expect(!run.stdout.contains("demo-secret") && !run.stderr.contains("demo-secret"))
    let tokens = try FileManager.default.contentsOfDirectory(atPath: state.appendingPathComponent("oauth2").path)
    #expect(tokens.count == 1)
    #expect(try runProcess(try reqbenchBinary, args, environment: env, currentDirectory: folder).status == 0)
  }

  /// `audience` reaches the token endpoint (the demo server's keeps it in the token and its report
  /// says it), filled in from a variable like every field.
  @Test func theAudienceIsSentToTheTokenEndpoint() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let server = try SecondServer()
    let path = folder.appendingPathComponent("aud.json").path
    try #"""
    {"version": 1, "baseURL": "\#(server.baseURL)", "variables": {"api": "https://reports.example/"},
     "requests": [
       {"name": "report", "url": "/oauth/report", "auth": {"oauth2": {"grant": "clientCredentials",
         "tokenURL": "/oauth/token", "clientId": "demo", "clientSecret": "{{secret.demo}}", "audience": "{{api}}"}}},
       {"name": "plain", "url": "/oauth/report", "auth": {"oauth2": {"grant": "clientCredentials",
         "tokenURL": "/oauth/token", "clientId": "demo", "clientSecret": "{{secret.demo}}", "clientAuth": "body"}}}
     ]}
    """#.write(toFile: path, atomically: true, encoding: .utf8)
    var env = environment
    env["REQBENCH_SECRET_DEMO"] = "demo-secret"
    let report = try runProcess(try reqbenchBinary, ["run", path, "report"], environment: env, currentDirectory: folder)
    #expect(report.status == 0, "\(report.stderr)")
    #expect(report.stdout.contains(#""audience": "https://reports.example/""#), "\(report.stdout)")
    let plain = try runProcess(try reqbenchBinary, ["run", path, "plain"], environment: env, currentDirectory: folder)
    #expect(plain.status == 0, "\(plain.stderr)")
    #expect(!plain.stdout.contains("audience"), "\(plain.stdout)")
  }

  /// `auth` with a display: the authorization URL is printed and handed to `xdg-open` (a fake one
  /// on PATH that is the browser: it approves at authlib's consent form with curl and follows the
  /// redirect to the listener). Without a display it is not called: TUIOAuthTests.
  @Test func authOpensTheAuthorizationURLWithXdgOpenWhenThereIsADisplay() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let server = try TestServer.oauth.baseURL
    let path = folder.appendingPathComponent("web.json").path
    try #"""
    {"version": 1, "baseURL": "\#(server)/",
     "requests": [{"name": "repos", "url": "api/me", "auth": {"oauth2": {"grant": "authorizationCode",
       "authorizationURL": "authorize", "tokenURL": "token", "clientId": "web", "clientSecret": "{{secret.web}}"}}}]}
    """#.write(toFile: path, atomically: true, encoding: .utf8)
    let opened = folder.appendingPathComponent("opened.txt")
    let env = try browserApproving(recordingTo: opened)
    let auth = try runProcess(try reqbenchBinary, ["auth", path, "repos"], environment: env, currentDirectory: folder)
    #expect(auth.status == 0, "\(auth.stderr)")
    #expect(auth.stdout.hasPrefix("oauth2 › repos: token ready"), "\(auth.stdout)")
    let url = try String(contentsOf: opened, encoding: .utf8).trimmingCharacters(in: .newlines)
    #expect(url.hasPrefix(server + "/authorize?response_type=code&client_id=web&redirect_uri=http%3A//127.0.0.1%3A"))
    #expect(auth.stderr.contains("open this URL to authorize (waiting for the redirect):\n  " + url), "\(auth.stderr)")
  }

  /// `run` without a terminal (here: every stream a pipe) cannot ask anyone to log in: a grant
  /// that needs a person fails at once, saying how to get the token; once `auth` got it (the
  /// fake browser approving), `run` uses the kept token. A device code the same way.
  @Test func aRunWithoutATerminalFailsAtOnceForAGrantThatNeedsAPersonAndUsesAKeptToken() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let server = try TestServer.oauth.baseURL
    let path = folder.appendingPathComponent("web.json").path
    try #"""
    {"version": 1, "baseURL": "\#(server)/",
     "requests": [
       {"name": "repos", "url": "api/me", "auth": {"oauth2": {"grant": "authorizationCode",
         "authorizationURL": "authorize", "tokenURL": "token", "clientId": "web", "clientSecret": "{{secret.web}}"}}},
       {"name": "tv/me", "url": "api/me", "auth": {"oauth2": {"grant": "deviceCode",
         "deviceURL": "device_authorization", "tokenURL": "token", "clientId": "tv"}}}
     ]}
    """#.write(toFile: path, atomically: true, encoding: .utf8)
    let env = try browserApproving(recordingTo: nil)
    func run(_ name: String) throws -> (ProcessResult, seconds: Double) {
      let started = Date()
      let result = try runProcess(try reqbenchBinary, ["run", path, name], environment: env, currentDirectory: folder, timeout: 30)
      return (result, Date().timeIntervalSince(started))
    }

    let (code, codeSeconds) = try run("repos")
    #expect(code.status == 1)
    #expect(codeSeconds < 10, "the run waited \(codeSeconds) s")
    #expect(
      code.stderr.contains(
        "oauth2 › repos: the authorizationCode grant needs a person at a browser, and this run has no terminal to ask on; "
          + "get the token once with `reqbench auth \(path) repos` (or in the TUI, `reqbench \(path)`)"), "\(code.stderr)")
    #expect(!code.stderr.contains("open this URL"))
    let (device, deviceSeconds) = try run("tv/me")
    #expect(device.status == 1)
    #expect(deviceSeconds < 10)
    #expect(device.stderr.contains("oauth2 › tv/me: the deviceCode grant needs a person at another device"), "\(device.stderr)")

    let auth = try runProcess(try reqbenchBinary, ["auth", path, "repos"], environment: env, currentDirectory: folder, timeout: 60)
    #expect(auth.status == 0, "\(auth.stderr)")
    let (kept, _) = try run("repos")
    #expect(kept.status == 0, "\(kept.stderr)")
    #expect(kept.stdout.contains(#""client":"web""#), "\(kept.stdout)")
  }
}
