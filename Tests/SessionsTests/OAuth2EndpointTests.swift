import Base
import Foundation
import RequestEngine
import TestSupport
import Sessions
import Testing
import Workspace
import WorkspaceTestSupport

/// Every request the OAuth 2.0 client makes stays on its endpoint and is bounded: a redirect is
/// never followed (its form, with the client's secret, a password, a refresh token or a code
/// verifier, goes nowhere else, and no token comes from elsewhere), the answer is capped at
/// 1 MB, and the request's `timeout` and `deadline` bound its token. Against authlib's server
/// (its `/test/redirect` hook) and the fixture server (`/redirect-to`, `/delay`, `/drip`,
/// `/hostile/endless`). In `OAuth2ServerTests`, serialized, for the server's counts.
extension OAuth2ServerTests {
  /// `url` as a query value.
  func encoded(_ url: String) -> String { QueryEncoder.encodeComponent(url) }

  /// The result of the one request `ws` has, `me`, sent with `tokens` (30 s at most).
  func sendMe(_ ws: Workspace, _ tokens: OAuth2Tokens = OAuth2Tokens(stateFolder: nil)) throws -> ExchangeResult {
    try #require(try send(ws, tokens).results["me"])
  }

  @Test func aTokenEndpointThatRedirectsFailsTheGrantAndItsFormGoesNowhereElse() throws {
    let fixture = try TestServer.fixture.baseURL
    let token = try server() + "/token"
    // A token endpoint on one origin that sends its client to a real token endpoint on another.
    let cases: [(status: Int, block: String, counted: String)] = [
      (307, #""grant": "clientCredentials", "clientId": "svc", "clientSecret": "{{secret.svc}}", "clientAuth": "body""#,
       "svc client_credentials"),
      (308, #""grant": "password", "clientId": "app", "clientSecret": "{{secret.app}}", "clientAuth": "body", "username": "ada", "password": "{{secret.ada}}""#,
       "app password"),
      (302, #""grant": "clientCredentials", "clientId": "svc", "clientSecret": "{{secret.svc}}""#, "svc client_credentials"),
    ]
    for (status, block, counted) in cases {
      let before = try stats()[counted] ?? 0
      let redirecting = "\(fixture)/redirect-to?status=\(status)&url=\(encoded(token))"
      let result = try sendMe(try workspace(#"{"tokenURL": "\#(redirecting)", \#(block)}"#))
      #expect(result.state == .failed)
      #expect(result.error?.kind == .authorization)
      #expect(result.response == nil)  // the API was not asked
      let message = result.error?.message ?? ""
      #expect(
        message == "oauth2 › me: token: token endpoint redirected (\(status)) to \(token); "
          + "tokens are only taken from the token endpoint itself", "\(message)")
      #expect(!message.contains("svc-secret") && !message.contains("ada-password"))
      // The other origin's token endpoint never got the form.
      #expect(try stats()[counted] ?? 0 == before, "\(status): the form was sent to the redirect's target")
    }
  }

  @Test func theRefreshTheCodeExchangeAndTheDeviceRequestsFollowNoRedirectEither() throws {
    defer { try? FileManager.default.removeItem(at: state) }
    let base = try server()
    let agent = Agent()
    defer { agent.shutdown() }
    let through: Authorizer.Send = { agent.send($0, completion: $1) }
    /// authlib's hook: a 307 to the fixture, which counts what reaches it under `key`.
    func elsewhere(_ key: String) throws -> String {
      "\(base)/test/redirect?status=307&to=\(encoded(try TestServer.fixture.url("/anything?key=\(key)")))"
    }

    // A refresh: the kept token expired and has a refresh token; the refresh is not followed,
    // and neither is the new fetch after it.
    let refreshKey = uniqueKey("oauth2-refresh")
    let client = OAuth2Client(
      grant: .password(username: "ada", password: "ada-password"), tokenURL: try elsewhere(refreshKey), clientId: "app",
      clientSecret: "app-secret", clientAuth: .body, label: "oauth2 › me")
    let folder = OAuth2Tokens.folder(in: state)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let past = Date().timeIntervalSince1970 - 60
    try #"{"version": 1, "accessToken": "old-token", "refreshToken": "refresh-secret", "expiresAt": \#(past), "obtainedAt": \#(past - 3600)}"#
      .write(to: folder.appendingPathComponent(client.cacheKey + ".json"), atomically: true, encoding: .utf8)
    let refreshed = LockedBox<Result<OAuth2Token, ExchangeError>?>(nil)
    let done = DispatchSemaphore(value: 0)
    OAuth2Tokens(stateFolder: state).token(for: client, send: through) {
      refreshed.set($0)
      done.signal()
    }
    #expect(done.wait(timeout: .now() + 30) == .success)
    guard case .failure(let error)? = refreshed.get() else {
      Issue.record("a token came through a redirect: \(String(describing: refreshed.get()))")
      return
    }
    #expect(error.message.hasPrefix("oauth2 › me: token: token endpoint redirected (307) to \(try TestServer.fixture.url("/anything"))"))
    #expect(!error.message.contains("refresh-secret"))
    #expect(try hits(refreshKey) == 0)

    // The code exchange: the user approves, the code and its verifier stay here.
    let codeKey = uniqueKey("oauth2-code")
    let web = OAuth2Client(
      grant: .authorizationCode(authorizationURL: base + "/authorize", pkce: true, redirectURL: nil),
      tokenURL: try elsewhere(codeKey), clientId: "web", clientSecret: "web-secret", clientAuth: .body, label: "oauth2 › code")
    guard case .failure(let exchange) = authorize(web, browser: browser()) else {
      Issue.record("the code exchange took a token through a redirect")
      return
    }
    #expect(exchange.message.contains("oauth2 › code: token: token endpoint redirected (307) to "), "\(exchange.message)")
    #expect(try hits(codeKey) == 0)

    // The device endpoint, then a device-code poll.
    let deviceKey = uniqueKey("oauth2-device")
    let pollKey = uniqueKey("oauth2-poll")
    for (deviceURL, tokenURL, expected) in [
      (try elsewhere(deviceKey), base + "/token", "oauth2 › tv: device: device endpoint redirected (307) to "),
      (base + "/device_authorization", try elsewhere(pollKey), "oauth2 › tv: token: token endpoint redirected (307) to "),
    ] {
      let tv = OAuth2Client(grant: .deviceCode(deviceURL: deviceURL), tokenURL: tokenURL, clientId: "tv", label: "oauth2 › tv")
      let cancellation = OAuth2Cancellation()
      defer { cancellation.cancel() }  // a grant that went on polls no more
      let box = LockedBox<Result<OAuth2Token, ExchangeError>?>(nil)
      let ended = DispatchSemaphore(value: 0)
      OAuth2DeviceCode.run(tv, cancellation: cancellation, show: { _ in }, send: through) {
        box.set($0)
        ended.signal()
      }
      #expect(ended.wait(timeout: .now() + 20) == .success)
      guard case .failure(let failure)? = box.get() else {
        Issue.record("the device grant went on through a redirect: \(String(describing: box.get()))")
        continue
      }
      #expect(failure.message.hasPrefix(expected), "\(failure.message)")
    }
    #expect(try hits(deviceKey) == 0)
    #expect(try hits(pollKey) == 0)
  }

  @Test func aTokenAnswerIsCappedAtOneMegabyte() throws {
    let fixture = try TestServer.fixture.baseURL
    let started = MonotonicClock.now()
    // A JSON answer of 4 MB.
    let block = #"{"grant": "clientCredentials", "tokenURL": "\#(fixture)/hostile/json?mb=4", "clientId": "svc", "clientSecret": "{{secret.svc}}"}"#
    let result = try sendMe(try workspace(block))
    #expect(result.state == .failed)
    #expect(result.error?.message == "oauth2 › me: token: the token endpoint's answer is over 1 MB: stopped (an OAuth 2.0 answer is a few KB)",
      "\(result.error?.message ?? "")")
    #expect(MonotonicClock.now() - started < 10)
  }

  @Test func theRequestsTimeoutAndDeadlineBoundItsToken() throws {
    let fixture = try TestServer.fixture.baseURL
    // A token endpoint that says nothing for 20 s, under a timeout of 1 s; one that sends a
    // byte every half second for 50 s, under a deadline of 2 s.
    let silent = #"{"name": "me", "url": "api/me", "timeout": 1, "auth": {"oauth2": {"grant": "clientCredentials", "#
      + #""tokenURL": "\#(fixture)/delay/20", "clientId": "svc", "clientSecret": "{{secret.svc}}"}}}"#
    let trickle = #"{"name": "me", "url": "api/me", "deadline": 2, "auth": {"oauth2": {"grant": "clientCredentials", "#
      + #""tokenURL": "\#(fixture)/drip?bytes=100&interval=0.5", "clientId": "svc", "clientSecret": "{{secret.svc}}"}}}"#
    for (request, expected) in [
      (silent, "oauth2 › me: token: the token endpoint timed out: no data for 1 s"),
      (trickle, "oauth2 › me: token: the token endpoint timed out"),
    ] {
      let ws = try WorkspaceTestSupport.workspace(#"{"version": 1, "baseURL": "\#(try server())/", "requests": [\#(request)]}"#)
      let started = MonotonicClock.now()
      let result = try sendMe(ws)
      let seconds = MonotonicClock.now() - started
      #expect(result.state == .failed)
      #expect(result.error?.message.hasPrefix(expected) == true, "\(result.error?.message ?? "")")
      #expect(seconds < 8, "the token took \(seconds) s")
    }
  }
}
