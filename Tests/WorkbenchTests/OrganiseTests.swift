import Foundation
import RequestEngine
import TerminalUI
import Testing
import Workbench
import Workspace

/// D, R, d and u, marks and b/B on the request list: the workspace model's operations, through
/// the keys.
@Suite("organise: D R d u, marks, b B")
struct OrganiseTests {
  /// Selects the request `name` in the list.
  func select(_ state: inout AppState, _ name: String) throws {
    state.focus = .requests
    state.selectRequest(named: name)
    #expect(state.selectedRequest?.name == name)
  }

  @Test func duplicateThenRenameWithBatchesAndChainsFollowing() throws {
    var state = try demoState()
    try select(&state, "users/get")
    #expect(keys(&state, "D").isEmpty)
    #expect(state.selectedRequest?.name == "users/get-2")
    #expect(state.workspace.requests.map(\.name).firstIndex(of: "users/get-2") == 3)
    #expect(state.unsaved == ["users/get-2"])
    // Rename the original: the prompt holds its full name; smoke and login-flow follow.
    try select(&state, "users/get")
    _ = keys(&state, "R")
    #expect(state.prompt?.input.text == "users/get")
    send(&state, .key(.ctrl("u")))
    type(&state, "people/show")
    try assertSnapshot(state, "rename-160x45")
    send(&state, .key(.enter))
    #expect(state.workspace.request(named: "people/show") != nil)
    #expect(state.workspace.batch(named: "smoke")?.members.contains("people/show") == true)
    #expect(state.workspace.chain(named: "login-flow")?.steps.map(\.request).contains("people/show") == true)
    #expect(state.selectedRequest?.name == "people/show")
    #expect(state.message?.text.contains("2 batch and chain references follow") == true, "\(String(describing: state.message))")
    // A taken name is refused in the prompt.
    _ = keys(&state, "R")
    send(&state, .key(.ctrl("u")))
    type(&state, "users/list")
    send(&state, .key(.enter))
    #expect(state.prompt?.error?.contains("already the name") == true)
    send(&state, .key(.escape))
  }

  @Test func deleteAsksThenUUndoesExactlyUntilASave() throws {
    var state = try demoState()
    let before = state.workspace
    try select(&state, "users/get")
    #expect(keys(&state, "d").isEmpty)
    #expect(state.pendingDelete == "users/get")
    #expect(state.message?.text == "delete users/get and its 2 batch and chain references? y/n")
    try assertSnapshot(state, "delete-ask-160x45")
    _ = keys(&state, "n")  // any other key keeps it
    #expect(state.pendingDelete == nil && state.workspace == before && state.message?.text == "kept users/get")
    _ = keys(&state, "dy")
    #expect(state.workspace.request(named: "users/get") == nil)
    #expect(state.workspace.batch(named: "smoke")?.members.contains("users/get") == false)
    #expect(state.unsaved == ["users/get"])
    _ = keys(&state, "u")
    #expect(state.workspace == before)
    #expect(state.unsaved.isEmpty)
    #expect(state.selectedRequest?.name == "users/get")
    #expect(state.workspace.encoded() == before.encoded())
    // After a save there is nothing to undo.
    _ = keys(&state, "dy")
    send(&state, .saved(error: nil))
    _ = keys(&state, "u")
    #expect(state.workspace.request(named: "users/get") == nil)
    #expect(state.message?.text.hasPrefix("nothing to undo") == true)
  }

  @Test func marksInOrderMakeAChainAndABatch() throws {
    var state = try demoState()
    try select(&state, "auth/me")
    _ = keys(&state, " ")
    try select(&state, "auth/login")
    _ = keys(&state, " ")
    #expect(state.marked == ["auth/me", "auth/login"])
    try assertSnapshot(state, "marked-160x45")
    _ = keys(&state, "B")
    #expect(state.prompt?.input.text == "chain" && state.prompt?.input.selected == true)
    type(&state, "me-then-login")
    send(&state, .key(.enter))
    #expect(state.workspace.chain(named: "me-then-login")?.steps.map(\.request) == ["auth/me", "auth/login"])
    #expect(state.marked.isEmpty && state.selectedFlow?.name == "me-then-login")
    // No marks: b makes a batch of the selected request.
    try select(&state, "slow")
    _ = keys(&state, "b")
    send(&state, .key(.enter))
    #expect(state.workspace.batch(named: "batch")?.members == ["slow"])
  }
}
