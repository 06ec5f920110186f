import Foundation
import RequestEngine
import TerminalUI
import Sessions
import Testing
import Workspace

@testable import Workbench

/// `K`: the cookie jar of the environment in use, as `update` drives it (the runtime's reading
/// and editing of the jar is played here by the `cookiesLoaded` messages it answers with; the
/// jar itself is tested in `CookieJarsTests`, and the overlay end to end in `TUICookiesTests`).
@Suite("update: the cookies overlay")
struct CookiesOverlayTests {
  /// Two cookies of 127.0.0.1 and one of every subdomain of example.test, one expiring in an hour.
  static let jar = [
    Cookie(domain: "127.0.0.1", httpOnly: true, name: "session", value: "abc123"),
    Cookie(domain: "127.0.0.1", path: "/api", expires: Int64(epoch.timeIntervalSince1970) + 3600, name: "theme", value: "dark"),
    Cookie(domain: ".example.test", includeSubdomains: true, name: "tracker", value: "\u{1b}[31mred"),
  ]

  /// The demo state at the fixed clock, with the environment `ada` in use and jars to send with.
  func demo() throws -> AppState {
    var state = try demoState()
    state.workspace.environment = "ada"
    state.now = epoch
    state.sources.cookies = CookieJars(stateFolder: URL(fileURLWithPath: "/nonexistent-reqbench-state"))
    return state
  }

  /// `K`, and the runtime's answer with `cookies`.
  func opened(_ cookies: [Cookie] = CookiesOverlayTests.jar) throws -> AppState {
    var state = try demo()
    #expect(keys(&state, "K") == [.loadCookies(environment: "ada")])
    #expect(state.overlay == .cookies && state.keyContext == .cookies)
    #expect(screenText(state).contains("reading the jar…"))
    send(&state, .cookiesLoaded(environment: "ada", cookies))
    return state
  }

  @Test func kShowsTheEnvironmentsJarWithValuesMaskedUntilR() throws {
    var state = try opened()
    let text = screenText(state)
    #expect(text.contains("Cookies · environment ada"))
    #expect(text.contains("DOMAIN") && text.contains("EXPIRES"))
    #expect(text.contains("session") && text.contains("theme") && text.contains("tracker"))
    #expect(text.contains(".example.test"), "a domain cookie shows its leading dot")
    #expect(text.contains("in 1 h"), "theme expires in an hour")
    #expect(text.contains("/api"))
    #expect(!text.contains("abc123") && !text.contains("dark"), "values are masked")
    #expect(text.contains("3 cookies"))
    // r shows them (a server's escape bytes made visible, never raw), r hides them again.
    _ = keys(&state, "r")
    let shown = screenText(state)
    #expect(shown.contains("abc123") && shown.contains("dark"))
    #expect(!shown.contains("\u{1b}"))
    _ = keys(&state, "r")
    #expect(!screenText(state).contains("abc123"))
    // K, q and Esc close it.
    _ = keys(&state, "K")
    #expect(state.overlay == nil)
  }

  @Test func dDeletesTheHighlightedCookieAndTheAnswerKeepsTheSelectionOnARow() throws {
    var state = try opened()
    _ = keys(&state, "jj")
    #expect(state.cookiesOverlay.selection == 2)
    _ = keys(&state, "j")
    #expect(state.cookiesOverlay.selection == 2, "the last row stays selected")
    #expect(keys(&state, "d") == [.removeCookie(environment: "ada", Self.jar[2])])
    #expect(state.message?.text == "deleted the cookie tracker of example.test")
    send(&state, .cookiesLoaded(environment: "ada", Array(Self.jar.prefix(2))))
    #expect(state.cookiesOverlay.selection == 1, "clamped onto the rows left")
    #expect(!screenText(state).contains(".example.test"))
    // An answer for another jar (an environment changed since) does not land here.
    send(&state, .cookiesLoaded(environment: "grace", []))
    #expect(state.cookiesOverlay.cookies?.count == 2)
    // Nothing left: d says so and asks nothing of the runtime.
    send(&state, .cookiesLoaded(environment: "ada", []))
    #expect(keys(&state, "d").isEmpty)
    #expect(state.message?.text == "no cookie to delete")
    #expect(screenText(state).contains("no cookies: a response's Set-Cookie lands here"))
  }

  @Test func capitalDClearsTheJarOnlyWhenPressedTwice() throws {
    var state = try opened()
    #expect(keys(&state, "D").isEmpty)
    #expect(state.message?.text == "clear all 3 cookies of environment ada? D again clears, any other key keeps them")
    // Another key keeps them.
    #expect(keys(&state, "j").isEmpty)
    #expect(state.message?.text == "the cookies stay")
    #expect(keys(&state, "D").isEmpty)
    #expect(keys(&state, "D") == [.clearCookies(environment: "ada")])
    #expect(state.message?.text == "cleared 3 cookies of environment ada")
    send(&state, .cookiesLoaded(environment: "ada", []))
    #expect(keys(&state, "D").isEmpty)
    #expect(state.message?.text == "the jar is empty")
  }

  @Test func theJarOfNoEnvironmentAndJarsTurnedOff() throws {
    var state = try demo()
    state.workspace.environment = nil
    #expect(keys(&state, "K") == [.loadCookies(environment: nil)])
    send(&state, .cookiesLoaded(environment: nil, []))
    #expect(screenText(state).contains("Cookies · the workspace (no environment)"))
    _ = send(&state, .key(.escape))
    // --no-cookies: no jars; "cookies": false on the workspace: said instead of an empty jar.
    state.sources.cookies = nil
    _ = keys(&state, "K")
    send(&state, .cookiesLoaded(environment: nil, []))
    #expect(screenText(state).contains("cookies are off (--no-cookies)"))
    _ = keys(&state, "q")
    state.workspace.cookies = false
    _ = keys(&state, "K")
    send(&state, .cookiesLoaded(environment: nil, []))
    #expect(screenText(state).contains(#"cookies are off for this workspace ("cookies": false)"#))
    // A jar that cannot be kept is said in the status bar, as an error.
    send(&state, .cookieJarFailed("not kept: cookies/env-ada.txt: is not a regular file"))
    #expect(state.message?.isError == true && state.message?.text.hasPrefix("cookies: not kept") == true)
  }

  @Test func anExchangeWithTheJarEndingWhileItIsOpenReadsTheJarAgain() throws {
    var state = try opened()
    _ = keys(&state, "jr")
    var request = Request(name: "login", url: "http://127.0.0.1:8080/cookies/set?x=1")
    let events = Scenario.exchange(id: 7, request: request, body: "{}", duration: 0.01)
    // Without a jar (cookies off for it): nothing to read again.
    #expect(events.flatMap { update(&state, $0) }.isEmpty)
    request.cookieJar = CookieJar()
    let commands = Scenario.exchange(id: 8, request: request, body: "{}", duration: 0.01).flatMap { update(&state, $0) }
    #expect(commands == [.loadCookies(environment: "ada")], "read again once, when it ended")
    send(&state, .cookiesLoaded(environment: "ada", Self.jar + [Cookie(domain: "127.0.0.1", name: "x", value: "1")]))
    #expect(state.cookiesOverlay.selection == 1 && state.cookiesOverlay.revealed, "the selection and r stay")
    #expect(screenText(state).contains("4 cookies"))
    // Closed: an exchange ending asks for nothing.
    _ = keys(&state, "q")
    #expect(Scenario.exchange(id: 9, request: request, body: "{}", duration: 0.01).flatMap { update(&state, $0) }.isEmpty)
  }

  @Test func aLongJarScrollsWithTheSelection() throws {
    var many: [Cookie] = []
    for i in 0..<60 { many.append(Cookie(domain: "127.0.0.1", name: String(format: "c%02d", i), value: "v\(i)")) }
    var state = try opened(many)
    let rows = state.cookieListRows
    #expect(rows > 0 && rows < 60)
    send(&state, .key(.pageDown))
    #expect(state.cookiesOverlay.selection == rows)
    #expect(screenText(state).contains(String(format: "c%02d", rows)))
    #expect(!screenText(state).contains("c00 "))
    send(&state, .key(.char("G")))
    #expect(state.cookiesOverlay.selection == 59)
    #expect(screenText(state).contains("c59"))
  }

  @Test func snapshots() throws {
    try assertSnapshot(try opened(), "cookies-160x45")
    var small = try demo()
    small.width = 80
    small.height = 24
    _ = keys(&small, "K")
    send(&small, .cookiesLoaded(environment: "ada", Self.jar))
    try assertSnapshot(small, "cookies-80x24")
  }
}

/// The queue row and the `Request` tab say which cookies a request went out with (read from the
/// `Cookie` headers curl wrote, `SentRequest.cookieNames`).
@Suite("update: the cookies a request sent")
struct CookiesSentTests {
  @Test func theQueueRowAndTheRequestTabNameTheCookiesSent() throws {
    var state = try demoState()
    var request = Request(name: "users/get", url: "http://127.0.0.1:8080/users/1")
    request.headers["Cookie"] = "session=abc123; theme=dark"
    for msg in Scenario.exchange(id: 1, request: request, body: "{}", duration: 0.01) { send(&state, msg) }
    let row = try #require(state.exchanges.first)
    #expect(row.cookiesSent == ["session", "theme"])
    #expect(row.badges == ["cookies session theme"])
    let text = screenText(state)
    #expect(text.contains(" cookies session theme "), "the queue row: \(text)")
    // A long list is cut; one cookie says so.
    #expect(ExchangeRow.cookieBadge(["session", "theme", "tracking-id", "csrf"]) == "cookies session theme t…")
    #expect(ExchangeRow.cookieBadge(["session"]) == "cookie session")
    // The Request tab: a line above the request line, the header itself below.
    state.show(ExchangeID(rawValue: 1))
    let lines = state.sentLines(row).map(\.text)
    #expect(lines.first == "cookies sent: session, theme")
    #expect(lines.contains("Cookie: session=abc123; theme=dark"))
    // y r copies the head with the cookies' values masked (the clipboard is an export); the
    // note is not part of it.
    guard case .copy(let head)? = keys(&state, "yr").first else {
      Issue.record("y r copied nothing")
      return
    }
    #expect(head.contains("Cookie: session=••••; theme=••••\n") && !head.contains("abc123") && !head.contains("cookies sent"))
    // A response's Set-Cookie, copied from the menu: its value masked, its attributes kept.
    var login = Request(name: "users/list", url: "http://127.0.0.1:8080/users")
    login.headers["Accept"] = "*/*"
    for msg in Scenario.exchange(id: 3, request: login, body: "{}", duration: 0.01) {
      if case .agent(.finished(var result)) = msg {
        result.response?.headers.add("Set-Cookie", "session=abc123; Path=/; HttpOnly")
        send(&state, .agent(.finished(result)))
      } else {
        send(&state, msg)
      }
    }
    state.show(ExchangeID(rawValue: 3))
    #expect(state.copyText(.header(name: "Set-Cookie")) == .success("session=••••; Path=/; HttpOnly"))
    // A request that sent none: no badge, no line.
    for msg in Scenario.exchange(id: 2, request: Request(name: "users/list", url: "http://127.0.0.1:8080/users"), body: "[]", duration: 0.01) {
      send(&state, msg)
    }
    let plain = try #require(state.exchanges.first { $0.id == ExchangeID(rawValue: 2) })
    #expect(plain.cookiesSent.isEmpty && plain.badges.isEmpty)
    #expect(!state.sentLines(plain).map(\.text).contains { $0.hasPrefix("cookie") })
  }
}
