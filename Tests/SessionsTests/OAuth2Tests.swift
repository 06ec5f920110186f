import Foundation
import RequestEngine
import TestSupport
import Sessions
import Testing
import Workspace
import WorkspaceTestSupport

/// OAuth 2.0: the `auth.oauth2` block as the reader takes it, and the grants against
/// the real authorization server of the tests (`Tests/OAuthServer/oauth_server.py`: authlib's
/// grants; `.ci/lib.sh` starts it and exports `REQBENCH_OAUTH_URL`).
@Suite struct OAuth2ReaderTests {
  @Test func everyGrantReadsAndSavesBackUnchanged() throws {
    let text = #"""
      {"version": 1, "baseURL": "http://127.0.0.1:1/", "requests": [
        {"name": "cc", "url": "a", "auth": {"oauth2": {"grant": "clientCredentials", "tokenURL": "/token",
          "clientId": "svc", "clientSecret": "{{secret.svc}}", "scope": "read write", "audience": "api",
          "clientAuth": "body"}}},
        {"name": "pw", "url": "b", "auth": {"oauth2": {"grant": "password", "tokenURL": "{{auth}}/token",
          "clientId": "app", "clientSecret": "{{secret.app}}", "username": "ada", "password": "{{secret.ada}}"}}},
        {"name": "code", "url": "c", "auth": {"oauth2": {"grant": "authorizationCode", "tokenURL": "/token",
          "authorizationURL": "/authorize", "clientId": "web", "pkce": true}}},
        {"name": "tv", "url": "d", "auth": {"oauth2": {"grant": "deviceCode", "tokenURL": "/token",
          "deviceURL": "/device_authorization", "clientId": "tv"}}}
      ]}
      """#
    let ws = try workspace(text)
    guard case .oauth2(let cc)? = ws.request(named: "cc")?.auth else {
      Issue.record("cc has no oauth2 auth")
      return
    }
    #expect(cc.grant == .clientCredentials)
    #expect(cc.tokenURL == "/token")
    #expect(cc.clientSecret == "{{secret.svc}}")
    #expect(cc.scope == "read write")
    #expect(cc.audience == "api")
    #expect(cc.clientAuth == .body)
    #expect(ws.request(named: "pw")?.auth == .oauth2(
      OAuth2Settings(
        grant: .password(username: "ada", password: "{{secret.ada}}"), tokenURL: "{{auth}}/token", clientId: "app",
        clientSecret: "{{secret.app}}")))
    #expect(ws.request(named: "code")?.auth == .oauth2(
      OAuth2Settings(grant: .authorizationCode(authorizationURL: "/authorize", pkce: true, redirectURL: nil), tokenURL: "/token", clientId: "web")))
    #expect(ws.request(named: "tv")?.auth == .oauth2(
      OAuth2Settings(grant: .deviceCode(deviceURL: "/device_authorization"), tokenURL: "/token", clientId: "tv")))
    #expect(ws.request(named: "cc")?.authKind == .oauth2)
    // A save writes the file as it was.
    #expect(String(decoding: ws.encoded(), as: UTF8.self) == text)
    // The variables of the block are in scope (V shows them).
    #expect(ws.variablesInScope(for: ws.request(named: "pw"), sources: VariableSources())
      .contains { $0.name == "auth" && $0.used })
  }

  @Test func mistakesAreErrorsAtTheirPlace() throws {
    func problem(_ block: String) -> String {
      let text = "{\"version\": 1, \"requests\": [\n  {\"name\": \"r\", \"url\": \"http://127.0.0.1:1/\", \"auth\": {\"oauth2\": \(block)}}\n]}"
      return loadError(text)?.description ?? ""
    }
    #expect(problem(#"{"grant": "implicit", "tokenURL": "/t", "clientId": "c"}"#).contains(
      #"test.json:2:76: requests[0].auth.oauth2.grant: unknown grant "implicit"; use clientCredentials, password, authorizationCode, deviceCode"#))
    #expect(problem(#"{"grant": "clientCredentials", "clientId": "c", "clientSecret": "{{secret.c}}"}"#).contains(
      #"test.json:2:66: requests[0].auth.oauth2: missing "tokenURL" (the clientCredentials grant needs it)"#))
    #expect(problem(#"{"grant": "password", "tokenURL": "/t", "clientId": "c", "clientSecret": "{{secret.c}}", "username": "u"}"#)
      .contains(#"missing "password" (the password grant needs it)"#))
    let literal = problem(#"{"grant": "clientCredentials", "tokenURL": "/t", "clientId": "c", "clientSecret": "hunter2"}"#)
    #expect(literal.contains("requests[0].auth.oauth2.clientSecret: a literal secret in the workspace file; store it with `reqbench secrets set WORKSPACE NAME`"))
    #expect(problem(#"{"grant": "clientCredentials", "tokenURL": "/t", "clientId": "c", "clientSecret": "{{secret.c}}", "username": "u"}"#)
      .contains("requests[0].auth.oauth2.username: only the password grant uses this"))
    #expect(problem(#"{"grant": "clientCredentials", "tokenURL": "/t", "clientId": "c", "clientSecret": "{{secret.c}}", "clientAuth": "jwt"}"#)
      .contains(#"requests[0].auth.oauth2.clientAuth: unknown clientAuth "jwt"; use basic (HTTP Basic, the default) or body"#))
    #expect(problem(#"{"grant": "deviceCode", "tokenURL": "/t", "clientId": "c", "deviceURL": "/d", "scopes": "x"}"#)
      .contains("requests[0].auth.oauth2.scopes: unknown oauth2 setting; use grant, tokenURL"))
    #expect(problem(#"{"grant": "clientCredentials", "tokenURL": "/t\n", "clientId": "c", "clientSecret": "{{secret.c}}"}"#)
      .contains("requests[0].auth.oauth2.tokenURL: contains LF"))
    // Every grant sends the client's id: an empty one is an error where it is written.
    #expect(problem(#"{"grant": "clientCredentials", "tokenURL": "/t", "clientId": "", "clientSecret": "{{secret.c}}"}"#)
      .contains(#"test.json:2:127: requests[0].auth.oauth2.clientId: empty; write the client's id, as the authorization server registered it"#))
    #expect(problem(#"{"grant": "deviceCode", "tokenURL": "/t", "deviceURL": "/d", "clientId": " "}"#)
      .contains("requests[0].auth.oauth2.clientId: empty"))
  }

  @Test func theTokenRequestsOfEachGrantAndClientAuth() throws {
    var client = OAuth2Client(
      grant: .clientCredentials, tokenURL: "http://127.0.0.1:1/token", clientId: "svc id", clientSecret: "s&cret",
      scope: "read", audience: "api", label: "oauth2 › r")
    // RFC 6749 §2.3.1: the id and secret form-encoded, then Basic.
    let basic = try #require(client.grantRequest())
    #expect(basic.headers["Authorization"] == "Basic " + Data("svc%20id:s%26cret".utf8).base64EncodedString())
    #expect(String(decoding: basic.body.bytes, as: UTF8.self) == "grant_type=client_credentials&scope=read&audience=api")
    #expect(basic.name == "oauth2 › r")
    #expect(basic.secrets.contains("s&cret") && basic.secrets.contains("s%26cret"))
    #expect(basic.redacted().headers["Authorization"] == "••••")
    client.clientAuth = .body
    let body = try #require(client.grantRequest())
    #expect(body.headers["Authorization"] == nil)
    #expect(String(decoding: body.redacted().body.bytes, as: UTF8.self)
      == "grant_type=client_credentials&scope=read&audience=api&client_id=svc%20id&client_secret=••••")
    client.grant = .password(username: "ada", password: "pw")
    client.scope = nil
    client.audience = nil
    #expect(String(decoding: try #require(client.grantRequest()).redacted().body.bytes, as: UTF8.self)
      == "grant_type=password&username=ada&password=••••&client_id=svc%20id&client_secret=••••")
  }
}

/// The grants against authlib's server, through a real agent: each test uses its own
/// `OAuth2Tokens` (a process's) and reads the server's own counts of token requests.
@Suite(.serialized) struct OAuth2ServerTests {
  let state = scratchURL("rb-oauth2")
  let secrets = [
    "REQBENCH_SECRET_SVC": "svc-secret", "REQBENCH_SECRET_APP": "app-secret", "REQBENCH_SECRET_ADA": "ada-password",
    "REQBENCH_SECRET_SHORT": "short-secret", "REQBENCH_SECRET_WRONG": "not-the-secret",
  ]

  func server() throws -> String { try TestServer.oauth.baseURL }

  /// A workspace whose requests read `/api/me` with `block` as their auth.
  func workspace(_ block: String, names: [String] = ["me"]) throws -> Workspace {
    // Each its own URL, so that none joins another in flight (dedup): each asks for the token.
    let requests = names.map { #"{"name": "\#($0)", "url": "api/me?r=\#($0)", "auth": {"oauth2": \#(block)}}"# }
    return try WorkspaceTestSupport.workspace(
      #"{"version": 1, "baseURL": "\#(try server())/", "requests": [\#(requests.joined(separator: ", "))]}"#)
  }

  func sources(_ tokens: OAuth2Tokens) -> VariableSources {
    var sources = VariableSources(processEnvironment: secrets)
    sources.oauth2 = tokens
    return sources
  }

  /// Token requests the server counted since its start, per `client grant_type`.
  func stats() throws -> [String: Int] {
    let agent = Agent()
    defer { agent.shutdown() }
    let result = agent.sendAndWait(Request(url: try server() + "/test/stats"))
    let object = try JSONParser.parse(try #require(result.response).body.bytes()).objectValue
    var counts: [String: Int] = [:]
    for member in object?.members ?? [] { counts[member.key] = member.value.intValue ?? 0 }
    return counts
  }

  func post(_ path: String, _ form: [(String, String)]) throws {
    let agent = Agent()
    defer { agent.shutdown() }
    let result = agent.sendAndWait(Request(method: .POST, url: try server() + path, body: .form(form)))
    #expect(result.state == .succeeded)
  }

  /// Sends every request of `ws` at once through one agent; the results by name, and every
  /// finished event the agent's subscribers saw.
  func send(_ ws: Workspace, _ tokens: OAuth2Tokens) throws -> (results: [String: ExchangeResult], events: [ExchangeResult]) {
    let agent = Agent()
    defer { agent.shutdown() }
    let seen = LockedBox<[ExchangeResult]>([])
    agent.subscribe { event in
      if case .finished(let result) = event { seen.mutate { $0.append(result) } }
    }
    let boxes = try ws.requests.map { template in
      let box = LockedBox<ExchangeResult?>(nil)
      let done = DispatchSemaphore(value: 0)
      agent.send(try ws.prepare(template, sources: sources(tokens))) { result in
        box.set(result)
        done.signal()
      }
      return (template.name, box, done)
    }
    var results: [String: ExchangeResult] = [:]
    for (name, box, done) in boxes {
      #expect(done.wait(timeout: .now() + 30) == .success, "\(name) did not finish in 30 s")
      results[name] = box.get()
    }
    agent.shutdown()
    return (results, seen.get())
  }

  let clientCredentials = #"{"grant": "clientCredentials", "tokenURL": "/token?delay=0.3", "clientId": "svc", "clientSecret": "{{secret.svc}}", "scope": "read"}"#

  @Test func clientCredentialsOneFetchForEveryWaiterCachedForTheNextProcess() throws {
    defer { try? FileManager.default.removeItem(at: state) }
    let before = try stats()["svc client_credentials"] ?? 0
    let ws = try workspace(clientCredentials, names: ["a", "b", "c", "d", "e"])
    let tokens = OAuth2Tokens(stateFolder: state)
    let (results, events) = try send(ws, tokens)
    for name in ["a", "b", "c", "d", "e"] {
      let result = try #require(results[name])
      #expect(result.state == .succeeded, "\(name): \(result.error?.message ?? "")")
      #expect(result.response?.status == 200)
      #expect(String(decoding: try #require(result.response).body.bytes(), as: UTF8.self).contains(#""client":"svc""#))
      // The token is among the request's secrets: what history and the screen show is masked.
      #expect(result.request.headers["Authorization"]?.hasPrefix("Bearer ") == true)
      #expect(result.request.redacted().headers["Authorization"] == "Bearer ••••")
    }
    // One token request for the five, shown as an exchange of its own, its tokens masked.
    #expect(try stats()["svc client_credentials"] == before + 1)
    let fetches = events.filter { $0.request.tags["oauth2"] != nil }
    #expect(fetches.count == 1)
    let fetch = try #require(fetches.first)
    #expect(fetch.request.name.hasPrefix("oauth2 › "))
    let shown = String(decoding: try #require(fetch.response).body.bytes(), as: UTF8.self)
    #expect(shown.contains(#""access_token": "••••""#), "\(shown)")
    #expect(fetch.request.redacted().headers["Authorization"] == "••••")

    // The token file: 0600 in a 0700 folder, and the next process uses it without a fetch.
    tokens.flush()
    let folder = OAuth2Tokens.folder(in: state)
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
    #expect(files.count == 1)
    let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(files[0]).path)
    #expect((attributes[.posixPermissions] as? Int) == 0o600)
    #expect((try FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions] as? Int) == 0o700)
    let next = try send(try workspace(clientCredentials), OAuth2Tokens(stateFolder: state))
    #expect(next.results["me"]?.state == .succeeded)
    #expect(try stats()["svc client_credentials"] == before + 1)
    #expect(next.events.filter { $0.request.tags["oauth2"] != nil }.isEmpty)
    // A damaged file is ignored: a new token is fetched and written over it.
    try Data("{\"version\": 1, \"acc".utf8).write(to: folder.appendingPathComponent(files[0]))
    let thirdTokens = OAuth2Tokens(stateFolder: state)
    let third = try send(try workspace(clientCredentials), thirdTokens)
    #expect(third.results["me"]?.state == .succeeded)
    #expect(try stats()["svc client_credentials"] == before + 2)
    thirdTokens.flush()  // its file written, so the clear below cannot be followed by it
    // --clear forgets them.
    #expect(try OAuth2Tokens(stateFolder: state).clear() == 1)
    #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
  }

  @Test func clientAuthInTheBodyAndInvalidClientNamesTheStepNeverTheSecret() throws {
    let body = #"{"grant": "clientCredentials", "tokenURL": "/token", "clientId": "svc", "clientSecret": "{{secret.svc}}", "clientAuth": "body"}"#
    #expect(try send(try workspace(body), OAuth2Tokens(stateFolder: nil)).results["me"]?.state == .succeeded)

    for clientAuth in ["basic", "body"] {
      let wrong = #"{"grant": "clientCredentials", "tokenURL": "/token", "clientId": "svc", "clientSecret": "{{secret.wrong}}", "clientAuth": "\#(clientAuth)"}"#
      let (results, _) = try send(try workspace(wrong), OAuth2Tokens(stateFolder: nil))
      let result = try #require(results["me"])
      #expect(result.state == .failed)
      #expect(result.error?.kind == .authorization)
      let message = result.error?.message ?? ""
      #expect(message.hasPrefix("oauth2 › me: token: token endpoint answered 401: invalid_client"), "\(message)")
      #expect(!message.contains("not-the-secret"))
      // Nothing was sent to the API.
      #expect(result.response == nil)
    }
  }

  /// A server that answers 401 to the renewed token too: the exchange fails saying so after two
  /// attempts (one renewal), instead of renewing again or passing the 401 as an answer.
  @Test func a401ThatPersistsAfterTheRenewalIsAClearFailureNotALoop() throws {
    let fixture = try TestServer.fixture.baseURL
    let key = "oauth401-" + UUID().uuidString.prefix(8)
    let ws = try WorkspaceTestSupport.workspace(
      #"{"version": 1, "baseURL": "\#(try server())/", "requests": [{"name": "me", "url": "\#(fixture)/status/401?key=\#(key)", "#
        + #""auth": {"oauth2": {"grant": "clientCredentials", "tokenURL": "/token", "clientId": "svc", "clientSecret": "{{secret.svc}}"}}}]}"#)
    let before = try stats()["svc client_credentials"] ?? 0
    let (results, _) = try send(ws, OAuth2Tokens(stateFolder: nil))
    let result = try #require(results["me"])
    #expect(result.state == .failed)
    #expect(result.attempts == 2)
    #expect(result.response?.status == 401)
    #expect(result.error?.kind == .authorization)
    #expect(result.error?.message.hasPrefix("status 401 again with the renewed credential (oauth2 › me): the server refuses it") == true,
      "\(result.error?.message ?? "")")
    // Two tokens (the first, then the renewal: no refresh token for client credentials), two sends.
    #expect(try stats()["svc client_credentials"] == before + 2)
    let agent = Agent()
    defer { agent.shutdown() }
    let hits = agent.sendAndWait(Request(url: fixture + "/hits?key=\(key)", dedup: false))
    #expect(try JSONParser.parse(try #require(hits.response).body.bytes())["hits"]?.intValue == 2)
  }

  @Test func passwordGrantA401RefreshesOnceAndSendsAgainAndAFailedRefreshFetchesAnew() throws {
    let block = #"{"grant": "password", "tokenURL": "/token", "clientId": "app", "clientSecret": "{{secret.app}}", "username": "ada", "password": "{{secret.ada}}"}"#
    let ws = try workspace(block)
    let tokens = OAuth2Tokens(stateFolder: nil)
    let start = try stats()
    let first = try send(ws, tokens).results["me"]
    #expect(first?.state == .succeeded)
    #expect(String(decoding: try #require(first?.response).body.bytes(), as: UTF8.self).contains(#""user":"ada""#))
    #expect(try stats()["app password"] == (start["app password"] ?? 0) + 1)

    // The server forgets the access token: the request gets a 401, the token is refreshed, the
    // request goes again (attempt 2) and succeeds.
    try post("/test/revoke", [("client_id", "app")])
    let second = try send(ws, tokens)
    let again = try #require(second.results["me"])
    #expect(again.state == .succeeded, "\(again.error?.message ?? "")")
    #expect(again.attempts == 2)
    #expect(try stats()["app refresh_token"] == (start["app refresh_token"] ?? 0) + 1)
    #expect(try stats()["app password"] == (start["app password"] ?? 0) + 1)
    #expect(second.events.contains { $0.request.tags["oauth2"] == "refresh" })

    // The refresh token is revoked too: the refresh fails, the password grant fetches anew.
    try post("/test/revoke-refresh", [("client_id", "app")])
    let third = try #require(try send(ws, tokens).results["me"])
    #expect(third.state == .succeeded, "\(third.error?.message ?? "")")
    #expect(try stats()["app refresh_token"] == (start["app refresh_token"] ?? 0) + 2)
    #expect(try stats()["app password"] == (start["app password"] ?? 0) + 2)

  }

  @Test func anExpiredTokenIsRefreshedBeforeTheRequestGoes() throws {
    let block = #"{"grant": "password", "tokenURL": "/token", "clientId": "short", "clientSecret": "{{secret.short}}", "username": "ada", "password": "{{secret.ada}}"}"#
    let ws = try workspace(block)
    let tokens = OAuth2Tokens(stateFolder: nil)
    let start = try stats()
    #expect(try send(ws, tokens).results["me"]?.state == .succeeded)
    // The token lives 2 s (the server's `short` client); after it, the request is not sent with it.
    Thread.sleep(forTimeInterval: 2.2)
    let later = try #require(try send(ws, tokens).results["me"])
    #expect(later.state == .succeeded)
    #expect(later.attempts == 1)  // refreshed before, not after a 401
    #expect(try stats()["short refresh_token"] == (start["short refresh_token"] ?? 0) + 1)
    #expect(try stats()["short password"] == (start["short password"] ?? 0) + 1)
  }

  /// The authorization code grant with PKCE: the "browser" is an HTTP client that opens the
  /// authorization URL, approves at the server (authlib's consent form) and follows the redirect
  /// to the loopback listener.
  func browser(approving: Bool = true, state override: String? = nil, consent: Int = 200) -> @Sendable (String) -> Void {
    { url in
      let agent = Agent()
      defer { agent.shutdown() }
      #expect(agent.sendAndWait(Request(url: url)).response?.status == consent)  // the consent page
      var approve = Request(method: .POST, url: url, body: .form([("confirm", approving ? "yes" : "no")]))
      approve.followRedirects = false
      let answer = agent.sendAndWait(approve)
      guard let location = answer.response?.headers["Location"] else {
        Issue.record("no redirect from the authorization endpoint: \(answer.response?.status ?? 0)")
        return
      }
      // Another state first: the listener answers 400 and waits on for the real redirect.
      if let override, var parts = URLComponents(string: location) {
        parts.queryItems = (parts.queryItems ?? []).map { $0.name == "state" ? URLQueryItem(name: "state", value: override) : $0 }
        #expect(agent.sendAndWait(Request(url: parts.string ?? location)).response?.status == 400)
      }
      _ = agent.sendAndWait(Request(url: location))
    }
  }

  func authorize(_ client: OAuth2Client, browser: @escaping @Sendable (String) -> Void) -> Result<OAuth2Token, ExchangeError> {
    let agent = Agent()
    defer { agent.shutdown() }
    let box = LockedBox<Result<OAuth2Token, ExchangeError>?>(nil)
    let done = DispatchSemaphore(value: 0)
    OAuth2AuthorizationCode.run(
      client, timeout: 20, open: browser, send: { agent.send($0, completion: $1) },
      done: {
        box.set($0)
        done.signal()
      })
    _ = done.wait(timeout: .now() + 30)
    return box.get() ?? .failure(ExchangeError(kind: .authorization, message: "no answer in 30 s"))
  }

  @Test func authorizationCodeWithPKCEThroughTheLoopbackRedirect() throws {
    let base = try server()
    let client = OAuth2Client(
      grant: .authorizationCode(authorizationURL: base + "/authorize", pkce: true, redirectURL: nil),
      tokenURL: base + "/token", clientId: "web", clientSecret: "web-secret", scope: "profile", label: "oauth2 › code")
    let token = try authorize(client, browser: browser()).get()
    #expect(token.refreshToken != nil)
    let agent = Agent()
    defer { agent.shutdown() }
    let me = agent.sendAndWait(Request(url: base + "/api/me", headers: ["Authorization": token.header]))
    #expect(me.response?.status == 200)
    #expect(String(decoding: try #require(me.response).body.bytes(), as: UTF8.self).contains(#""client":"web""#))

    // A redirect with another state (forged, or stale) is answered 400 and ignored: the
    // listener waits on, and the real redirect after it is the one exchanged.
    #expect((try? authorize(client, browser: browser(state: "forged")).get()) != nil)
    // The user says no: the server's error, by name.
    guard case .failure(let denied) = authorize(client, browser: browser(approving: false)) else {
      Issue.record("a denied authorization gave a token")
      return
    }
    #expect(denied.message.contains("the authorization server answered access_denied"), "\(denied.message)")
    // The authorization URL: state always, the S256 challenge with PKCE only.
    let pkce = PKCE(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")  // RFC 7636 Appendix B
    let url = try #require(
      OAuth2AuthorizationCode.authorizationURL(client, redirect: "http://127.0.0.1:9/callback", state: "s1", pkce: pkce))
    #expect(url == base + "/authorize?response_type=code&client_id=web&redirect_uri=http%3A//127.0.0.1%3A9/callback"
      + "&state=s1&scope=profile&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256")
    let plain = try #require(
      OAuth2AuthorizationCode.authorizationURL(client, redirect: "http://127.0.0.1:9/callback", state: "s1", pkce: nil))
    #expect(!plain.contains("code_challenge"))
    // An audience goes along (Auth0's and others' extension), after the scope.
    var withAudience = client
    withAudience.audience = "https://api.example/"
    let audienceURL = try #require(
      OAuth2AuthorizationCode.authorizationURL(withAudience, redirect: "http://127.0.0.1:9/callback", state: "s1", pkce: nil))
    #expect(audienceURL.hasSuffix("&scope=profile&audience=https%3A//api.example/"), "\(audienceURL)")
  }

  /// RFC 8628: the "user" approves the shown code at the verification endpoint after a while;
  /// reqbench polls as the server says (interval 1 s; `tvslow`'s first poll is answered
  /// `slow_down`, after which it waits 5 s more).
  func deviceToken(_ clientId: String, approve: Bool = true) throws -> (Result<OAuth2Token, ExchangeError>, polls: Int, seconds: Double) {
    let base = try server()
    let client = OAuth2Client(
      grant: .deviceCode(deviceURL: base + "/device_authorization"), tokenURL: base + "/token", clientId: clientId,
      scope: "profile", label: "oauth2 › tv")
    let grantType = "\(clientId) urn:ietf:params:oauth:grant-type:device_code"
    let before = try stats()[grantType] ?? 0
    let agent = Agent()
    defer { agent.shutdown() }
    let box = LockedBox<Result<OAuth2Token, ExchangeError>?>(nil)
    let shown = LockedBox<OAuth2DeviceCode.Authorization?>(nil)
    let done = DispatchSemaphore(value: 0)
    let started = Date()
    let userAgent = Agent()
    defer { userAgent.shutdown() }
    OAuth2DeviceCode.run(
      client,
      show: { code in
        shown.set(code)
        DispatchQueue.global().asyncAfter(deadline: .now() + 1.5) {
          _ = userAgent.sendAndWait(
            Request(method: .POST, url: base + "/device", body: .form([("user_code", code.userCode), ("approve", approve ? "yes" : "no")])))
        }
      }, send: { agent.send($0, completion: $1) },
      done: {
        box.set($0)
        done.signal()
      })
    #expect(done.wait(timeout: .now() + 30) == .success)
    #expect(shown.get()?.verificationURI == base + "/device")
    #expect(shown.get()?.interval == 1)
    let polls = (try stats()[grantType] ?? 0) - before
    return (box.get() ?? .failure(ExchangeError(kind: .authorization, message: "no answer")), polls, Date().timeIntervalSince(started))
  }

  @Test func deviceCodePollsUntilTheUserApprovesAndSlowsDownWhenTold() throws {
    let (result, polls, _) = try deviceToken("tv")
    let token = try result.get()
    #expect(polls >= 2)  // at least one authorization_pending before the approval
    let agent = Agent()
    defer { agent.shutdown() }
    #expect(agent.sendAndWait(Request(url: try server() + "/api/me", headers: ["Authorization": token.header])).response?.status == 200)

    // slow_down: the next poll comes 1 + 5 s later, so the approval (at 1.5 s) is taken by the
    // second poll, about 7 s in.
    let (slow, slowPolls, seconds) = try deviceToken("tvslow")
    #expect((try? slow.get()) != nil)
    #expect(slowPolls == 2)
    #expect(seconds >= 6.5)

    let (denied, _, _) = try deviceToken("tv", approve: false)
    guard case .failure(let error) = denied else {
      Issue.record("a denied device code gave a token")
      return
    }
    #expect(error.message.hasPrefix("oauth2 › tv: token: token endpoint answered 400: access_denied"), "\(error.message)")
  }
}

/// RFC 7636 §4.2: BASE64URL(SHA256(verifier)), checked against the RFC's own example (Appendix
/// B: this verifier gives this challenge) and against openssl's SHA-256 and base64.
@Test func pkceS256IsTheBase64URLOfTheVerifiersSHA256() throws {
  let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
  #expect(PKCE.challenge(for: verifier) == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
  let openssl = try runProcess(
    URL(fileURLWithPath: "/bin/sh"),
    ["-c", "printf %s \"$0\" | openssl dgst -sha256 -binary | base64 | tr '+/' '-_' | tr -d '=\\n'", verifier])
  #expect(openssl.status == 0)
  #expect(PKCE.challenge(for: verifier) == openssl.stdout)
  let random = PKCE.random()
  #expect(random.verifier.count == 43)
  #expect(random.verifier.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
  #expect(random != PKCE.random())
}
