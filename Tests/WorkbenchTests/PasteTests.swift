import Foundation
import RequestEngine
import TerminalUI
import Testing
import Workbench
import Workspace

/// The keys a terminal sends for `text` (a line break is Enter, as the backend decodes it).
func typed(_ text: String) -> [Msg] {
  text.map { c -> Msg in
    switch c {
    case "\n", "\r", "\r\n": .key(.enter)
    case "\u{1b}": .key(.escape)
    case "\t": .key(.tab)
    default: .key(.char(c))
    }
  }
}

/// What a bracketed paste of `text` arrives as.
func bracketed(_ text: String) -> [Msg] { typed("\u{1b}[200~" + text + "\u{1b}[201~") }

let chromeCurl = """
  curl 'http://127.0.0.1:1/api/users?page=2' \\
    -H 'accept: application/json' \\
    -H 'authorization: Bearer abc' \\
    --data-raw '{"name":"Ada"}'
  """

/// Messages as words, to compare: `j`, `paste:TEXT`, `Esc`, `resize`.
func words(_ messages: [Msg]) -> [String] {
  messages.map { message in
    switch message {
    case .key(.char(let c)): String(c)
    case .key(let key): "\(key)"
    case .paste(let text): "paste:" + text
    case .pasteTooLong: "tooLong"
    case .resize: "resize"
    default: "other"
    }
  }
}

@Suite("paste: assembled from the key stream")
struct PasteAssemblerTests {
  @Test func aBracketedPasteIsOneMessage() {
    var assembler = PasteAssembler()
    let out = assembler.feed(typed("j") + bracketed("curl http://x\n -H 'a: b'") + typed("k"))
    #expect(words(out) == ["j", "paste:curl http://x\n -H 'a: b'", "k"])
  }

  @Test func aPasteSplitOverReadsComesWithItsLastPart() {
    var assembler = PasteAssembler()
    let all = bracketed("GET http://127.0.0.1:1/users")
    // Split inside the start marker, the text and the end marker.
    var out: [Msg] = []
    for range in [0..<3, 3..<10, 10..<all.count - 2, all.count - 2..<all.count] {
      out += assembler.feed(Array(all[range]))
      if range.upperBound < all.count { #expect(out.isEmpty, "nothing before the end: \(words(out))") }
    }
    #expect(words(out) == ["paste:GET http://127.0.0.1:1/users"])
  }

  @Test func escapeAloneAndEscapeBeforeOtherKeysStayKeys() {
    var assembler = PasteAssembler()
    #expect(words(assembler.feed([.key(.escape)])) == ["escape"])  // a lone Esc is the Esc key
    #expect(words(assembler.feed(typed("\u{1b}[2x"))) == ["escape", "[", "2", "x"])
    // A resize during a paste is not part of it.
    let mixed = assembler.feed(typed("\u{1b}[200~ab") + [.resize(width: 80, height: 24)] + typed("c\u{1b}[201~"))
    #expect(words(mixed) == ["resize", "paste:abc"])
  }

  /// Without bracketed paste: a burst of characters with a space in one read is a paste; a few
  /// keys (`3`, `l`, `l` in one read) stay keys.
  @Test func aBurstIsAPasteAFewKeysAreNot() {
    var assembler = PasteAssembler()
    #expect(words(assembler.feed(typed("curl http://127.0.0.1:1/x \\\n -H 'a: b'\n"))) == ["paste:curl http://127.0.0.1:1/x \\\n -H 'a: b'\n"])
    // One line and Enter: the line, then the Enter key (a prompt accepts it).
    #expect(words(assembler.feed(typed("GET http://127.0.0.1:1/x\n"))) == ["paste:GET http://127.0.0.1:1/x", "enter"])
    #expect(words(assembler.feed(typed("/tmp/no/such/folder/x.txt\n"))).count == 26)  // no space: keys
    #expect(words(assembler.feed(typed("3ll"))) == ["3", "l", "l"])
    #expect(assembler.feed(typed("jjjjjjjjjjjjjjjjjjjj")).count == 20)  // no space: a held key
  }

  @Test func aPasteOverTheLimitIsRefused() {
    var assembler = PasteAssembler(limit: 1000)
    #expect(PasteAssembler.defaultLimit == 1 << 20)
    let big = String(repeating: "a", count: 1010)
    let out = assembler.feed(bracketed(big))
    #expect(words(out) == ["tooLong"])
    guard let refused = out.first else {
      Issue.record("the paste over the limit gave no event")
      return
    }
    var state = emptyState()
    send(&state, refused)
    #expect(state.workspace.requests.isEmpty)
    #expect(state.message?.isError == true && state.message?.text.hasPrefix("paste too long") == true)
  }

  @Test func oneLineFieldsGetOneLine() {
    var edit = LineEdit("suggested", selected: true)
    edit.paste("a \\\n  b\tc\u{7}\n")
    #expect(edit.text == "a    b c")
    #expect(!edit.selected)
  }
}

@Suite("paste: where it goes")
struct PasteTests {
  /// Into the request list: Chrome's "Copy as cURL" becomes a request, nothing is sent.
  @Test func aCurlCommandPastedIntoTheListBecomesARequest() throws {
    var state = emptyState()
    let commands = send(&state, .paste(chromeCurl))
    #expect(commands.isEmpty, "a paste sends nothing: \(commands)")
    #expect(state.exchanges.isEmpty)
    let request = try #require(state.workspace.requests.first)
    #expect(state.workspace.requests.count == 1)
    #expect(request.method == .POST)
    #expect(request.url.hasPrefix("http://127.0.0.1:1/api/users"))
    #expect(state.unsaved == [request.name])
    #expect(state.focus == .editor && state.selectedRequest?.name == request.name)
    #expect(state.message?.text == "added \(request.name) (unsaved; Ctrl-S saves)")
    try assertSnapshot(state, "paste-curl-160x45")
  }

  /// A pasted command's credential goes to the secrets file (the runtime writes it on
  /// `setSecret`); the request says `{{secret.token}}`. The same token again is the same secret;
  /// another one is `token-2`.
  @Test func aPastedCredentialGoesToTheSecretsFile() throws {
    var state = emptyState()
    let pasted = "curl -H 'Authorization: Bearer tok-1234' -u ada:pa55 http://127.0.0.1:1/me"
    let commands = send(&state, .paste(pasted))
    #expect(commands == [.setSecret(name: "token", value: "tok-1234"), .setSecret(name: "password", value: "pa55")])
    let request = try #require(state.workspace.requests.first)
    #expect(request.headers["Authorization"] == "Bearer {{secret.token}}")
    #expect(request.auth == .basic(user: "ada", password: "{{secret.password}}"))
    #expect(
      state.message?.text
        == "added \(request.name) (unsaved; Ctrl-S saves); credentials moved to the secrets file: secret.token, secret.password")
    // What the runtime does with the commands, then two more pastes.
    send(&state, .secretSaved(name: "token", secrets: SecretsFile(values: [("token", "tok-1234"), ("password", "pa55")]), error: nil))
    #expect(state.message?.text.hasPrefix("added \(request.name) ") == true, "still says what was added")
    #expect(state.sources.secrets.value(of: "password") == "pa55")
    send(&state, .secretSaved(name: "password", secrets: nil, error: "disk full"))
    #expect(state.message == StatusMessage("secret.password not saved: disk full", isError: true))
    #expect(send(&state, .paste("curl -H 'Authorization: Bearer tok-1234' http://127.0.0.1:1/again")).isEmpty)
    #expect(state.selectedRequest?.headers["Authorization"] == "Bearer {{secret.token}}")
    #expect(send(&state, .paste("curl -H 'Authorization: Bearer tok-5678' http://127.0.0.1:1/other")) == [
      .setSecret(name: "token-2", value: "tok-5678")
    ])
    #expect(state.selectedRequest?.headers["Authorization"] == "Bearer {{secret.token-2}}")
  }

  /// A Postman environment pasted into the list: an environment of the workspace (unsaved), its
  /// secret value to the secrets file; JSON that is no request adds nothing and says so.
  @Test func aPastedPostmanEnvironmentBecomesAnEnvironment() throws {
    var state = emptyState()
    let environment = #"""
      {"name": "Staging", "_postman_variable_scope": "environment", "values": [
        {"key": "baseUrl", "value": "https://staging.test", "enabled": true},
        {"key": "apiKey", "value": "sk-123456", "type": "secret", "enabled": true}]}
      """#
    #expect(send(&state, .paste(environment)) == [.setSecret(name: "apikey", value: "sk-123456")])
    #expect(state.workspace.environments == [
      Environment(name: "Staging", variables: [Variable(name: "baseUrl", value: "https://staging.test"), Variable(name: "apiKey", value: "{{secret.apikey}}")])
    ])
    #expect(state.workspace.requests.isEmpty && state.hasUnsavedEdits && state.unsavedSettings == ["environments.Staging"])
    #expect(
      state.message?.text
        == "added environment Staging (unsaved; Ctrl-S saves); v uses it; credentials moved to the secrets file: secret.apikey")
    let before = state.workspace
    #expect(send(&state, .paste(#"{"id": 1, "name": "not a request"}"#)).isEmpty)
    #expect(state.workspace == before && state.message?.isError == true)
    #expect(state.message?.text.hasPrefix("nothing added: paste:1:1: this JSON is no request") == true)
  }

  @Test func aPasteThatIsNotARequestSaysWhereAndAddsNothing() throws {
    var state = try demoState()
    let before = state.workspace
    send(&state, .paste("curl 'http://127.0.0.1:1/x"))
    #expect(state.workspace == before)
    #expect(state.message?.isError == true)
    #expect(state.message?.text.hasPrefix("nothing added: paste:1:6:") == true, "\(String(describing: state.message))")
    try assertSnapshot(state, "paste-error-160x45")
  }

  /// Into a prompt or a field being edited: text, never keys, never requests.
  @Test func intoAPromptOrAFieldItIsText() throws {
    var state = try demoState()
    _ = keys(&state, "/")
    send(&state, .paste("auth\n"))
    #expect(state.prompt?.input.text == "auth" && state.requestFilter == "auth")
    send(&state, .key(.escape))
    // The name prompt: the paste replaces the selected suggestion.
    _ = keys(&state, "n")
    send(&state, .paste("GET http://127.0.0.1:1/x"))
    #expect(state.prompt?.input.text == "GET http://127.0.0.1:1/x")
    send(&state, .key(.enter))
    send(&state, .paste("pasted/name"))
    #expect(state.prompt?.input.text == "pasted/name")
    send(&state, .key(.enter))
    #expect(state.workspace.request(named: "pasted/name") != nil)
    // A field: `e` on the URL, the paste goes in at the cursor.
    #expect(state.focus == .editor)
    _ = keys(&state, "e")
    let before = try #require(state.editing?.text)
    send(&state, .paste("?q=1"))
    #expect(state.editing?.text == before + "?q=1")
    #expect(state.workspace.requests.count == (try demoState()).workspace.requests.count + 1)
  }

  /// `n` with a pasted command of several lines reads it at once.
  @Test func aMultiLineCurlPastedIntoNIsReadAtOnce() throws {
    var state = emptyState()
    _ = keys(&state, "n")
    send(&state, .paste(chromeCurl))
    guard case .nameNewRequest = state.prompt?.purpose else {
      Issue.record("\(String(describing: state.prompt))")
      return
    }
    send(&state, .key(.enter))
    #expect(state.workspace.requests.count == 1)
    #expect(state.workspace.requests.first?.method == .POST)
  }

  /// A question (quit? unsaved?) waits for its answer: a paste is none.
  @Test func aQuestionIgnoresAPaste() throws {
    var state = try demoState()
    state.unsaved = ["x"]
    _ = keys(&state, "q")
    #expect(state.overlay == .unsavedChanges)
    #expect(send(&state, .paste("y\n")).isEmpty)
    #expect(state.overlay == .unsavedChanges)
  }
}
