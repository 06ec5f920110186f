import Foundation
import RequestEngine
import TerminalUI
import Testing
import Workspace

@testable import Workbench

/// A credential typed into the editor goes to the secrets file, as a pasted one does; the field
/// says `{{secret.NAME}}`, and nothing else of the request changes.
@Suite("editor: credentials typed into a field")
struct TypedCredentialsTests {
  /// An empty workspace with one request, `GET http://127.0.0.1:1/x`, in the editor.
  func oneRequest() -> AppState {
    var state = emptyState()
    send(&state, .paste("GET http://127.0.0.1:1/x"))
    #expect(state.selectedRequest != nil)
    return state
  }

  /// Types `text` into the field `kind` and keeps it; returns the commands, after doing what the
  /// runtime does with a `setSecret` (the file written, the state told).
  func edit(_ state: inout AppState, _ kind: EditorField.Kind, _ text: String) throws -> [Command] {
    try selectField(&state, kind)
    _ = keys(&state, "e")
    send(&state, .key(.ctrl("u")))
    type(&state, text)
    let commands = send(&state, .key(.enter))
    for case .setSecret(let name, let value) in commands {
      var secrets = state.sources.secrets
      secrets.set(name, value)
      let message = state.message
      send(&state, .secretSaved(name: name, secrets: secrets, error: nil))
      #expect(state.message == message, "the edit's message stays")
    }
    return commands
  }

  @Test func aHeaderAQueryParameterAPasswordAndATokenTypedInTheOpen() throws {
    var state = oneRequest()
    #expect(try edit(&state, .addHeader, "Authorization: Bearer tok-123456") == [.setSecret(name: "token", value: "tok-123456")])
    #expect(state.selectedRequest?.headers["Authorization"] == "Bearer {{secret.token}}")
    #expect(state.message?.text == "changed header; its credential went to the secrets file: secret.token; Ctrl-S saves")
    // A header that is no credential, and a value using a variable, stay as typed.
    #expect(try edit(&state, .addHeader, "X-Trace: abcdef").isEmpty)
    #expect(try edit(&state, .addHeader, "X-Api-Key: {{key}}").isEmpty)
    #expect(state.selectedRequest?.headers["X-Trace"] == "abcdef" && state.selectedRequest?.headers["X-Api-Key"] == "{{key}}")
    // Editing the key header to a literal: moved, the other headers untouched.
    let keyHeader = try #require(state.selectedRequest?.headers.fields.firstIndex { $0.name == "X-Api-Key" })
    #expect(try edit(&state, .header(keyHeader), "X-Api-Key: xk-98765") == [.setSecret(name: "api-key", value: "xk-98765")])
    #expect(state.selectedRequest?.headers.fields.map(\.value) == ["Bearer {{secret.token}}", "abcdef", "{{secret.api-key}}"])
    // A query parameter.
    #expect(try edit(&state, .addQuery, "access_token=at-55555") == [.setSecret(name: "access-token", value: "at-55555")])
    #expect(state.selectedRequest?.query["access_token"] == .string("{{secret.access-token}}"))
    #expect(try edit(&state, .addQuery, "page=2").isEmpty)
    // A bearer token and a basic password.
    try selectField(&state, .auth)
    send(&state, .key(.enter))
    _ = keys(&state, "jj")  // none, basic, bearer
    send(&state, .key(.enter))
    #expect(state.selectedRequest?.auth == .bearer(""))
    #expect(try edit(&state, .authToken, "tok-123456").isEmpty, "the same token: the same secret, nothing to write")
    #expect(state.selectedRequest?.auth == .bearer("{{secret.token}}"))
    try selectField(&state, .auth)
    send(&state, .key(.enter))
    _ = keys(&state, "k")  // basic
    send(&state, .key(.enter))
    #expect(try edit(&state, .authUser, "ada").isEmpty)
    #expect(try edit(&state, .authPassword, "pa55w0rd") == [.setSecret(name: "password", value: "pa55w0rd")])
    #expect(state.selectedRequest?.auth == .basic(user: "ada", password: "{{secret.password}}"))
    // A key in the URL's own query: that value moved, the rest as typed.
    #expect(
      try edit(&state, .url, "http://127.0.0.1:1/x?api_key=ak%2F12345&page=2")
        == [.setSecret(name: "api-key-2", value: "ak%2F12345")])
    #expect(state.selectedRequest?.url == "http://127.0.0.1:1/x?api_key={{secret.api-key-2}}&page=2")
    #expect(try edit(&state, .url, "http://127.0.0.1:1/y?page=3&key=abcdef").isEmpty, "key alone is no key's name")
    let saved = String(decoding: state.workspace.encoded(), as: UTF8.self)
    for typed in ["tok-123456", "xk-98765", "at-55555", "pa55w0rd", "ak%2F12345"] { #expect(!saved.contains(typed), "\(typed) in \(saved)") }
  }
}
