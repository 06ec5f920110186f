import Foundation
import RequestEngine
import TerminalUI
import Testing
import Workspace

@testable import Workbench

/// `y`: the copy menu, as `update` drives it: what each entry copies (`Command.copy`), secrets
/// masked unless the entry says otherwise, and what the status bar says.
@Suite("update: the copy menu")
struct CopyMenuTests {
  static let secret = "s3cr3t-Zq"

  /// A workspace whose request carries a secret in a header and a variable in its URL.
  func state() throws -> AppState {
    let workspace = try Workspace.parse(
      Array(
        """
        {"version": 1, "baseURL": "{{host}}/", "variables": {"host": "http://127.0.0.1:8080"},
         "requests": [{"name": "me", "method": "POST", "url": "me?id=7",
                       "headers": {"Authorization": "Bearer {{secret.token}}"},
                       "body": {"json": {"hello": "world"}}}]}
        """.utf8), file: "copy.json")
    let sources = VariableSources(processEnvironment: [:], secrets: SecretsFile(values: [("token", Self.secret)]))
    return AppState(workspace: workspace, workspaceFile: "copy.json", sources: sources, width: 120, height: 40)
  }

  func copied(_ commands: [Command]) -> String? {
    guard case .copy(let text)? = commands.first, commands.count == 1 else { return nil }
    return text
  }

  @Test func curlIsCopiedResolvedWithItsSecretsMasked() throws {
    var state = try state()
    #expect(keys(&state, "y").isEmpty)
    #expect(state.overlay == .copyMenu && state.keyContext == .copyMenu)
    #expect(state.copyMenu.choices == [.curl, .curlWithSecrets, .httpie, .http, .url], "no response yet: no body or headers")
    let text = screenText(state)
    #expect(text.contains("Copy · me") && text.contains("the request as curl (secrets ••••)"), "\(text)")
    let curl = try #require(copied(keys(&state, "c")))
    #expect(state.overlay == nil)
    #expect(curl.hasPrefix("curl 'http://127.0.0.1:8080/me?id=7'"), "variables filled in: \(curl)")
    #expect(curl.contains("Authorization: Bearer ••••") && !curl.contains(Self.secret), "\(curl)")
    #expect(curl.contains(#"--data-binary '{"hello":"world"}'"#), "\(curl)")
    #expect(state.message?.text == "copied me as curl, secrets ••••: \(curl.utf8.count) bytes on the clipboard")
  }

  @Test func onlyTheEntrySayingSoCopiesTheSecrets() throws {
    var state = try state()
    _ = keys(&state, "y")
    let curl = try #require(copied(keys(&state, "S")))
    #expect(curl.contains("Authorization: Bearer \(Self.secret)"), "\(curl)")
    #expect(state.message?.text.contains("secrets included") == true)
  }

  @Test func httpieIsCopiedResolvedWithItsSecretsMasked() throws {
    var state = try state()
    _ = keys(&state, "y")
    let httpie = try #require(copied(keys(&state, "i")))
    #expect(httpie.hasPrefix(#"http --ignore-stdin --raw '{"hello":"world"}'"#), "\(httpie)")
    #expect(httpie.contains("POST 'http://127.0.0.1:8080/me?id=7'"), "variables filled in: \(httpie)")
    #expect(httpie.contains("'Authorization:Bearer ••••'") && !httpie.contains(Self.secret), "\(httpie)")
    #expect(state.message?.text == "copied me as HTTPie, secrets ••••: \(httpie.utf8.count) bytes on the clipboard")
  }

  @Test func httpKeepsThePlaceholdersAndTheURLIsResolved() throws {
    var state = try state()
    _ = keys(&state, "y")
    let http = try #require(copied(keys(&state, "h")))
    #expect(http.contains("### me") && http.contains("{{secret.token}}") && !http.contains(Self.secret), "\(http)")
    #expect(
      http.contains("@host = http://127.0.0.1:8080") && http.contains("POST {{baseURL}}me?id=7"),
      "self-contained, as export http: \(http)")
    _ = keys(&state, "y")
    // Enter on the fifth entry: the URL.
    _ = keys(&state, "jjjj")
    #expect(copied(send(&state, .key(.enter))) == "http://127.0.0.1:8080/me?id=7")
    #expect(state.message?.text.hasPrefix("copied the URL of me: 29 bytes") == true, "\(state.message?.text ?? "")")
  }

  @Test func theBodyShownTheJqOutputAndAHeader() throws {
    var state = try state()
    let request = Request(name: "me", method: .POST, url: "http://127.0.0.1:8080/me?id=7", secrets: [Self.secret])
    // The server echoes the secret: copied as the viewer shows it, masked.
    for msg in exchangeEvents(id: 1, request: request, body: #"{"echo": "\#(Self.secret)", "n": 1}"#) { send(&state, msg) }
    state.focus = .queue
    send(&state, .key(.enter))
    state.focus = .response
    _ = keys(&state, "y")
    #expect(state.copyMenu.request == "me")
    #expect(state.copyMenu.choices.contains(.body(jqOutput: false)))
    #expect(state.copyMenu.choices.contains(.header(name: "Content-Type")))
    #expect(screenText(state).contains("header Content-Type: application/json"))
    #expect(copied(keys(&state, "b")) == #"{"echo": "••••", "n": 1}"#)
    #expect(state.message?.text.hasPrefix("copied the response body: ") == true)

    _ = keys(&state, "y")
    let index = try #require(state.copyMenu.choices.firstIndex(of: .header(name: "Content-Type")))
    for _ in 0..<index { send(&state, .key(.down)) }
    #expect(copied(send(&state, .key(.enter))) == "application/json")
    #expect(state.message?.text == "copied the Content-Type header's value: 16 bytes on the clipboard")

    // A jq filter shown: b copies its output.
    send(&state, .key(.char("|")))
    send(&state, .key(.ctrl("u")))
    _ = keys(&state, ".n")
    send(&state, .key(.enter))
    send(&state, .filtered(expression: ".n", result: .success("1\n")))
    _ = keys(&state, "y")
    #expect(state.copyMenu.choices.contains(.body(jqOutput: true)))
    #expect(screenText(state).contains("the jq output shown"))
    #expect(copied(keys(&state, "b")) == "1\n")
    #expect(state.message?.text == "copied the jq output: 2 bytes on the clipboard")
  }

  @Test func escClosesWithoutCopyingAndABodyTooBigIsRefused() throws {
    var state = try state()
    _ = keys(&state, "y")
    #expect(send(&state, .key(.escape)).isEmpty && state.overlay == nil)
    let big = String(repeating: "x", count: clipboardLimit + 1)
    let request = Request(name: "me", url: "http://127.0.0.1:8080/me")
    for msg in exchangeEvents(id: 1, request: request, body: big, contentType: "text/plain") { send(&state, msg) }
    state.focus = .queue
    send(&state, .key(.enter))
    _ = keys(&state, "y")
    #expect(keys(&state, "b").isEmpty)
    #expect(state.message?.isError == true)
    #expect(state.message?.text.contains("more than a terminal's clipboard takes") == true)
    #expect(state.message?.text.contains("w writes it to a file") == true)
  }

  @Test func anEmptyBodyIsSaidNotCopied() throws {
    var state = try state()
    let request = Request(name: "me", url: "http://127.0.0.1:8080/me")
    for msg in exchangeEvents(id: 1, request: request, body: "", contentType: "text/plain") { send(&state, msg) }
    state.focus = .queue
    send(&state, .key(.enter))
    _ = keys(&state, "y")
    #expect(keys(&state, "b").isEmpty)
    #expect(state.message == StatusMessage("not copied: the response has no body", isError: true))
  }

  @Test func nothingToCopyInAnEmptyWorkspace() {
    var state = AppState(workspace: Workspace(name: "w"), workspaceFile: "w.json", width: 100, height: 30)
    #expect(keys(&state, "y").isEmpty)
    #expect(state.overlay == nil)
    #expect(state.message?.text == "nothing to copy: select a request or send one")
  }

  @Test func snapshot() throws {
    let base = try demoState()
    let state = Scenario.copy.state(workspace: base.workspace, file: base.workspaceFile, width: 160, height: 45)
    #expect(state.overlay == .copyMenu)
    try assertSnapshot(state, "copy-menu-160x45")
  }
}

@Suite("OSC 52")
struct ClipboardTests {
  @Test func theControlStringIsBase64BetweenOSC52AndBEL() {
    #expect(Clipboard.osc52("hi") == Array("\u{1B}]52;c;aGk=\u{07}".utf8))
    // No byte of the text reaches the terminal as it is: an escape becomes base64 too.
    let hostile = Clipboard.osc52("\u{1B}]0;owned\u{07}")
    #expect(hostile.filter { $0 == 0x1B }.count == 1 && hostile.filter { $0 == 0x07 }.count == 1)
  }
}
