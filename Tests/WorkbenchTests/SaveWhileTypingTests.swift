import Foundation
import RequestEngine
import Testing
import Workbench

/// Ctrl-S while a field or a prompt is being typed keeps what was typed, then saves, as editors do.
@Suite("update: Ctrl-S while typing")
struct SaveWhileTypingTests {
  /// The demo with `users/list` in the editor and its URL field being edited.
  func editingTheURL() throws -> AppState {
    var state = try demoState()
    state.selectRequest(named: "users/list")
    _ = keys(&state, "2")
    let fields = try #require(state.selectedRequest).editorFields
    let url = try #require(fields.firstIndex { $0.kind == .url })
    while state.editorField < url { send(&state, .key(.down)) }
    send(&state, .key(.enter))
    #expect(state.keyContext == .editing)
    return state
  }

  @Test func ctrlSKeepsTheFieldThenSaves() throws {
    var state = try editingTheURL()
    send(&state, .key(.ctrl("u")))
    type(&state, "/users?page=2")
    #expect(send(&state, .key(.ctrl("s"))) == [.save])
    #expect(state.keyContext != .editing)
    #expect(state.workspace.request(named: "users/list")?.url == "/users?page=2")
  }

  @Test func aValueThatCannotBeKeptStaysOpenWithItsReason() throws {
    var state = try demoState()
    state.selectRequest(named: "users/list")
    _ = keys(&state, "2")
    let fields = try #require(state.selectedRequest).editorFields
    let name = try #require(fields.firstIndex { $0.kind == .name })
    while state.editorField > name { send(&state, .key(.up)) }
    while state.editorField < name { send(&state, .key(.down)) }
    send(&state, .key(.enter))
    #expect(state.keyContext == .editing)
    send(&state, .key(.ctrl("u")))
    type(&state, "users/get")  // taken
    #expect(send(&state, .key(.ctrl("s"))) == [])
    #expect(state.keyContext == .editing)
    #expect(state.message?.isError == true)
  }

  @Test func ctrlSInAPromptActsThenSaves() throws {
    var state = try demoState()
    state.selectRequest(named: "users/list")
    _ = keys(&state, "R")
    #expect(state.prompt != nil)
    send(&state, .key(.ctrl("u")))
    type(&state, "users/all")
    #expect(send(&state, .key(.ctrl("s"))) == [.save])
    #expect(state.prompt == nil)
    #expect(state.workspace.request(named: "users/all") != nil)
  }

  @Test func ctrlSWaitsWhenAnotherQuestionFollows() throws {
    var state = try demoState()
    _ = keys(&state, "n")
    type(&state, "GET /things")
    #expect(send(&state, .key(.ctrl("s"))) == [])
    // The name is asked next: the save waits for it, and the status line says so.
    #expect(state.prompt != nil)
    #expect(state.message?.text == "Ctrl-S saves once this is answered: Enter keeps, Esc cancels")
    send(&state, .key(.ctrl("u")))
    type(&state, "things")
    #expect(send(&state, .key(.ctrl("s"))) == [.save])
    #expect(state.workspace.request(named: "things") != nil)
  }
}
