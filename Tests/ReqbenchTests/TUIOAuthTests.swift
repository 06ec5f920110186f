import Foundation
import RequestEngine
import TestSupport
import Testing

/// The interactive OAuth 2.0 grants in the TUI, as a user meets them: the real binary in
/// tmux against the tests' authorization server (authlib, `Tests/OAuthServer/oauth_server.py`).
/// The "browser" is a fake `xdg-open` on `PATH` that writes down the URL it is given, and an
/// HTTP client that approves at authlib's consent form and follows the redirect to the TUI's
/// loopback listener; the device's user approves the code read off the screen.
@Suite("TUI end to end: OAuth 2.0 grants that need the user (tmux)", .serialized)
struct TUIOAuthTests {
  let folder: URL
  let path: String
  let opened: URL
  let environment: [String: String]

  init() throws {
    let server = try TestServer.oauth.baseURL
    (path, folder) = try workspaceFile(
      #"""
      {"version": 1, "baseURL": "\#(server)/",
       "requests": [
         {"name": "repos", "url": "api/me", "auth": {"oauth2": {"grant": "authorizationCode",
           "authorizationURL": "authorize", "tokenURL": "token", "clientId": "web", "clientSecret": "{{secret.web}}",
           "scope": "profile"}}},
         {"name": "tv", "url": "api/me", "auth": {"oauth2": {"grant": "deviceCode",
           "deviceURL": "device_authorization", "tokenURL": "token", "clientId": "tv", "scope": "profile"}}}
       ]}
      """#)
    // xdg-open as a browser that only notes the URL it was asked to open.
    let bin = folder.appendingPathComponent("bin")
    try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
    opened = folder.appendingPathComponent("opened.txt")
    let script = bin.appendingPathComponent("xdg-open")
    try "#!/bin/sh\nprintf '%s\\n' \"$*\" >> \(shellQuote(opened.path))\necho 'xdg-open: noise the TUI must not show' >&2\n"
      .write(to: script, atomically: true, encoding: .utf8)
    chmod(script.path, 0o755)
    environment = [
      "REQBENCH_SECRET_WEB": "web-secret", "DISPLAY": ":99",
      "PATH": bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"),
    ]
  }

  /// The URL the fake `xdg-open` got (waits up to 10 s).
  func openedURL() throws -> String {
    for _ in 0..<200 {
      if let text = try? String(contentsOf: opened, encoding: .utf8), let line = text.split(separator: "\n").first {
        return String(line)
      }
      usleep(50_000)
    }
    throw ServerUnavailable(what: "xdg-open was never called")
  }

  /// The user at the browser: the consent page, "Allow", then the redirect to the listener.
  func approve(_ url: String) throws {
    let agent = Agent()
    defer { agent.shutdown() }
    #expect(agent.sendAndWait(Request(url: url)).response?.status == 200)
    var allow = Request(method: .POST, url: url, body: .form([("confirm", "yes")]))
    allow.followRedirects = false
    let location = try #require(agent.sendAndWait(allow).response?.headers["Location"])
    #expect(location.hasPrefix("http://127.0.0.1:"))
    let landed = agent.sendAndWait(Request(url: location))
    #expect(landed.response?.status == 200)
  }

  /// The URL the box shows, its wrapped lines joined.
  func urlInTheBox(_ screen: String) -> String {
    var url = ""
    for line in screen.split(separator: "\n") {
      guard let word = line.firstMatch(of: /│  (\S+) *│/)?.output.1 else {
        if !url.isEmpty { break }
        continue
      }
      if word.hasPrefix("http") || !url.isEmpty { url += word }
    }
    return url
  }

  @Test func theAuthorizationURLIsOpenedShownAndTheRequestGoesOnceApproved() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let session = try TmuxSession([try reqbenchBinary.path, path], environment: environment)
    try session.waitFor("1 Requests")
    try session.send("Enter")
    var screen = try session.waitFor("OAuth 2.0 · oauth2 › repos")
    screen = try session.waitFor("opened with xdg-open")
    let url = try openedURL()
    #expect(url.contains("/authorize?response_type=code&client_id=web&redirect_uri=http%3A//127.0.0.1%3A"))
    #expect(url.contains("&code_challenge_method=S256"))
    // The URL is on the screen (wrapped in the box), the request waits queued, nothing else.
    let boxText = urlInTheBox(screen)
    #expect(boxText.contains(url), "\(screen)")
    #expect(screen.contains("… queued") && screen.contains("y copy the URL · o open it again · c cancel"))
    #expect(!screen.contains("noise") && !screen.contains("web-secret"))
    try approve(url)
    screen = try session.waitFor("oauth2 › repos: authorized; the request goes on")
    screen = try session.waitFor("✓ succeeded   200    GET    repos")
    // The code exchange is a row of its own in the queue.
    #expect(screen.contains("✓ succeeded   200    POST   oauth2 › repos"), "\(screen)")
    try session.waitFor(#""client": "web""#)
    #expect(!screen.contains("OAuth 2.0 ·"))
    // The token is cached: the next send asks nothing.
    try session.send("Enter")
    try session.waitFor("Queue · 3")
    #expect(try !session.screen().contains("OAuth 2.0 ·"))
    try session.quit()
    #expect(try String(contentsOf: opened, encoding: .utf8).split(separator: "\n").count == 1)
  }

  @Test func withoutADisplayNothingIsOpenedAndCancellingStopsTheListener() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    var environment = self.environment
    environment["DISPLAY"] = ""
    let session = try TmuxSession([try reqbenchBinary.path, path], width: 80, height: 24, environment: environment)
    try session.waitFor("1 Requests")
    try session.send("Enter")
    try session.waitFor("OAuth 2.0 · oauth2 › repos")
    let screen = try session.waitFor("no display here")
    #expect(screen.contains("y copy the URL · o open it · c cancel"))
    let url = urlInTheBox(screen)
    #expect(url.contains("/authorize?response_type=code&client_id=web&redirect_uri="), "\(screen)")
    #expect(!FileManager.default.fileExists(atPath: opened.path))
    try session.send("c")
    try session.waitFor("⊘ cancelled")
    try session.waitFor("oauth2 › repos: authorize: cancelled")
    try session.waitForAbsence("OAuth 2.0 ·")
    // The listener is closed: the redirect finds nobody (it checks every quarter second, so it
    // is gone within a second or two even on a loaded machine).
    let redirect = try #require(URLComponents(string: url)?.queryItems?.first { $0.name == "redirect_uri" }?.value)
    let agent = Agent()
    defer { agent.shutdown() }
    let closed = eventually(timeout: 2) {
      agent.sendAndWait(Request(url: redirect + "?code=x&state=y")).error?.transport == .cannotConnect
    }
    #expect(closed, "the listener at \(redirect) still answers")
    try session.quit()
  }

  @Test func theDeviceCodeIsShownWhileItPollsAndTheRequestGoesOnceApproved() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    var environment = self.environment
    environment["DISPLAY"] = ""
    let session = try TmuxSession([try reqbenchBinary.path, path], environment: environment)
    try session.tmux(["set-option", "-s", "set-clipboard", "on"])
    try session.waitFor("1 Requests")
    try session.send("j", "Enter")
    var screen = try session.waitFor("OAuth 2.0 · oauth2 › tv")
    screen = try session.waitFor("waiting for the approval")
    let server = try TestServer.oauth.baseURL
    #expect(screen.contains(server + "/device"))
    let code = try #require(screen.firstMatch(of: /[A-Z]{4}-[A-Z]{4}/).map { String($0.output) }, "\(screen)")
    #expect(screen.contains(server + "/device?user_code=" + code))
    #expect(!FileManager.default.fileExists(atPath: opened.path))  // a device code is not opened here
    // Y and y put the code and the URL with it on the clipboard (OSC 52 into tmux's buffer).
    try session.send("Y")
    try session.waitFor("copied the code of oauth2 › tv")
    #expect(try session.tmux(["show-buffer"]) == code)
    try session.send("y")
    try session.waitFor("copied the URL of oauth2 › tv")
    #expect(try session.tmux(["show-buffer"]) == server + "/device?user_code=" + code)
    let agent = Agent()
    defer { agent.shutdown() }
    let approved = agent.sendAndWait(
      Request(method: .POST, url: server + "/device", body: .form([("user_code", code), ("approve", "yes")])))
    #expect(approved.response?.status == 200)
    screen = try session.waitFor("✓ succeeded   200    GET    tv", timeout: 15)
    #expect(screen.contains("POST   oauth2 › tv"))
    try session.waitFor(#""client": "tv""#)
    try session.quit()
  }
}
