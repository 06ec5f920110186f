import Foundation
import RequestEngine
import TerminalUI
import Testing
import Workbench
import Workspace

/// The interactive OAuth 2.0 grants in the TUI: what `update` does with the runtime's
/// `authorization` events and the box's keys (pure), and the box as drawn.
@Suite("OAuth 2.0 authorization box")
struct AuthorizationOverlayTests {
  static let authorizationURL =
    "http://127.0.0.1:9000/authorize?response_type=code&client_id=web&redirect_uri=http%3A//127.0.0.1%3A41999/callback"
    + "&state=s1&scope=profile&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256"

  static func browser(id: Int = 1, label: String = "oauth2 › repos") -> PendingAuthorization {
    PendingAuthorization(id: id, label: label, step: .browser(url: authorizationURL), deadline: epoch.addingTimeInterval(300))
  }

  static func device(id: Int = 2, complete: Bool = true) -> PendingAuthorization {
    PendingAuthorization(
      id: id, label: "oauth2 › tv/me",
      step: .device(
        userCode: "WDJB-MJHT", verificationURL: "http://127.0.0.1:9000/device",
        completeURL: complete ? "http://127.0.0.1:9000/device?user_code=WDJB-MJHT" : nil),
      deadline: epoch.addingTimeInterval(600))
  }

  @Test func anAuthorizationURLOpensTheBoxAndAsksTheRuntimeToOpenItInTheBrowser() throws {
    var state = try demoState()
    let commands = send(&state, .authorization(.started(Self.browser())))
    #expect(commands == [.openInBrowser(id: 1, url: Self.authorizationURL)])
    #expect(state.overlay == .authorization)
    #expect(state.keyContext == .authorization)
    #expect(state.authorizations.first?.browser == .opening)
    send(&state, .authorization(.browser(id: 1, .noDisplay)))
    #expect(state.authorizations.first?.browser == .noDisplay)
    // y copies the URL (OSC 52, the copy menu's way); o opens it again.
    #expect(keys(&state, "y") == [.copy(Self.authorizationURL)])
    #expect(state.message?.text == "copied the URL of oauth2 › repos")
    #expect(keys(&state, "o") == [.openInBrowser(id: 1, url: Self.authorizationURL)])
    // Y has no code to copy in a browser grant; other keys do nothing and the box stays.
    #expect(keys(&state, "Y").isEmpty)
    #expect(state.message?.text.hasPrefix("no code to enter") == true)
    #expect(keys(&state, "sq").isEmpty)
    #expect(state.overlay == .authorization)
  }

  @Test func theTokenArrivingClosesTheBoxAndSaysSo() throws {
    var state = try demoState()
    send(&state, .authorization(.started(Self.browser())))
    send(&state, .authorization(.ended(id: 1, error: nil)))
    #expect(state.overlay == nil)
    #expect(state.authorizations.isEmpty)
    #expect(state.message == StatusMessage("oauth2 › repos: authorized; the request goes on"))
    // A failure says the step, as an error.
    send(&state, .authorization(.started(Self.browser(id: 3))))
    send(&state, .authorization(.ended(id: 3, error: "oauth2 › repos: authorize: no redirect came back within 300 s")))
    #expect(state.overlay == nil)
    #expect(state.message == StatusMessage("oauth2 › repos: authorize: no redirect came back within 300 s", isError: true))
    // An end for a grant already gone (cancelled here) changes nothing.
    state.message = nil
    send(&state, .authorization(.ended(id: 3, error: "late")))
    #expect(state.message == nil)
  }

  @Test func cOrEscCancelsTheGrantAndTheNextOneShows() throws {
    var state = try demoState()
    send(&state, .authorization(.started(Self.browser())), .authorization(.started(Self.device())))
    #expect(state.authorizations.map(\.id) == [1, 2])
    #expect(keys(&state, "c") == [.cancelAuthorization(id: 1)])
    #expect(state.message?.text == "oauth2 › repos: authorization cancelled, and the request waiting for it")
    #expect(state.overlay == .authorization)
    // The device code: Y copies the code, y the URL with the code in it.
    #expect(keys(&state, "Y") == [.copy("WDJB-MJHT")])
    #expect(keys(&state, "y") == [.copy("http://127.0.0.1:9000/device?user_code=WDJB-MJHT")])
    #expect(send(&state, .key(.escape)) == [.cancelAuthorization(id: 2)])
    #expect(state.overlay == nil)
    // Without a complete URL, y copies the verification URL.
    send(&state, .authorization(.started(Self.device(id: 4, complete: false))))
    #expect(keys(&state, "y") == [.copy("http://127.0.0.1:9000/device")])
  }

  @Test func theBoxOpensOverAnotherOverlay() throws {
    var state = try demoState()
    _ = keys(&state, "?")
    #expect(state.overlay == .help)
    send(&state, .authorization(.started(Self.device())))
    #expect(state.overlay == .authorization)
  }

  @Test func serverTextIsEscapedInTheBox() throws {
    var state = try demoState()
    var pending = Self.device()
    pending.step = .device(userCode: "AB\u{1b}[31mCD", verificationURL: "http://x/\u{202e}evil", completeURL: nil)
    send(&state, .authorization(.started(pending)))
    let text = screenText(state)
    #expect(text.contains(#"AB\x1b[31mCD"#))
    #expect(text.contains(#"http://x/\u202eevil"#))
    #expect(!text.contains("\u{1b}") && !text.contains("\u{202e}"))
  }

  /// The editor shows an oauth2 block's grant and token endpoint as they are (not a secret, so
  /// not `••••`), and says where it is edited.
  @Test func theEditorShowsTheGrantOfAnOAuth2Block() throws {
    var state = try demoState()
    moveDown(&state, to: "oauth2-report")
    let grant = try #require(state.workspace.requests.first { $0.name == "oauth2-report" }?.editorFields.first { $0.label == "  Grant" })
    #expect(grant.value == "clientCredentials · /oauth/token" && !grant.isMasked)
    #expect(screenText(state).contains("Grant    clientCredentials · /oauth/token"))
    try selectField(&state, .authGrant)
    send(&state, .key(.enter))
    send(&state, .key(.enter))
    #expect(state.message?.text.contains("an oauth2 block is edited in the workspace file") == true, "\(state.message?.text ?? "")")
  }

  @Test(arguments: ViewSnapshotTests.sizes) func snapshots(width: Int, height: Int) throws {
    var state = try demoState(width: width, height: height)
    state.now = epoch.addingTimeInterval(28)
    send(&state, .authorization(.started(Self.browser())), .authorization(.browser(id: 1, .noDisplay)))
    try assertSnapshot(state, "oauth2-browser-\(width)x\(height)")
    send(&state, .authorization(.started(Self.device())))
    _ = keys(&state, "c")
    try assertSnapshot(state, "oauth2-device-\(width)x\(height)")
  }
}
