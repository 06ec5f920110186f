import Foundation
import RequestEngine
import TerminalUI
import Testing
import Workspace

@testable import Workbench

/// The workspace file changing on disk, as `update` takes the runtime's `DiskEvent`s: reloaded
/// with the selection kept by name when nothing is unsaved; with unsaved edits said at once,
/// and the save that would write over the change asks (reload / overwrite / cancel).
@Suite("update: the file changing on disk")
struct DiskChangesTests {
  func select(_ name: String, _ state: inout AppState) throws {
    state.selectRequest(named: name)
    #expect(state.selectedRequest?.name == name)
  }

  @Test func withNothingUnsavedTheFileIsReloadedKeepingTheSelectionByName() throws {
    var state = try demoState()
    try select("users/get", &state)
    let before = state.list.selection
    var changed = state.workspace
    _ = try changed.deleteRequest(named: "users/list")
    try changed.modifyRequest(named: "users/get") { $0.url = "/users/{{id}}?changed=1" }
    #expect(!state.hasEditsInProgress)
    send(&state, .disk(.reloaded(changed)))
    #expect(state.selectedRequest?.name == "users/get")
    #expect(state.list.selection == before - 1, "the same request, at its new place")
    #expect(state.selectedRequest?.url == "/users/{{id}}?changed=1")
    #expect(state.message == StatusMessage("reloaded workspaces/demo.json: it changed on disk"))
    #expect(state.disk == nil && !state.hasUnsavedEdits)
  }

  @Test func marksStayOnTheRequestsTheFileStillHasAndAnUndoGoes() throws {
    var state = try demoState()
    try select("users/get", &state)
    _ = keys(&state, " ")
    try select("slow", &state)
    _ = keys(&state, " ")
    try select("trickle", &state)
    _ = keys(&state, "d")
    send(&state, .key(.char("y")))
    #expect(state.lastUndo != nil && state.marked == ["users/get", "slow"])
    var onDisk = try demoState().workspace
    _ = try onDisk.deleteRequest(named: "slow")
    send(&state, .disk(.reloaded(onDisk, dropped: true)))
    #expect(state.marked == ["users/get"])
    _ = keys(&state, "u")
    #expect(state.workspace.request(named: "trickle") != nil, "trickle is in the file read again")
    #expect(!state.hasUnsavedEdits, "nothing to undo into the reloaded file")
  }

  @Test func aSelectedRequestNoLongerInTheFileIsSaid() throws {
    var state = try demoState()
    try select("slow", &state)
    var changed = state.workspace
    _ = try changed.deleteRequest(named: "slow")
    send(&state, .disk(.reloaded(changed)))
    #expect(state.message?.text == "reloaded workspaces/demo.json: it changed on disk (slow is no longer in it)")
    #expect(state.list.selection < state.selectableCount)
  }

  @Test func withUnsavedEditsItIsSaidAtOnceAndCtrlSAsks() throws {
    var state = try demoState()
    // An unsaved edit: the environment chosen.
    _ = keys(&state, "v")
    _ = keys(&state, "j")
    send(&state, .key(.enter))
    #expect(state.hasUnsavedEdits)
    send(&state, .disk(.conflict))
    #expect(state.disk == .changed && state.message?.isError == true)
    #expect(state.message?.text.contains("changed on disk; your unsaved edits are kept here") == true)
    #expect(screenText(state).contains("1 unsaved · changed on disk"))
    #expect(state.hasUnsavedEdits, "nothing dropped")
    // Ctrl-S: the runtime's save finds the change and refuses; the dialog asks.
    #expect(send(&state, .key(.ctrl("s"))) == [.save])
    send(&state, .disk(.saveRefused))
    #expect(state.overlay == .diskConflict && state.keyContext == .diskConflict)
    let text = screenText(state)
    #expect(text.contains("Changed on disk") && text.contains("1 edit here is not saved"), "\(text)")
    #expect(text.contains("m merge its changes and mine · r reload it and drop my edits"))
    #expect(text.contains("o overwrite it with mine · Esc cancel"))
    // Esc: nothing happens to either.
    #expect(send(&state, .key(.escape)).isEmpty)
    #expect(state.overlay == nil && state.hasUnsavedEdits && state.disk == .changed)
    #expect(state.message?.text == "not saved; your edits are kept here and the file on disk as it is")
    // o: overwrite, said by the runtime's save.
    send(&state, .key(.ctrl("s")), .disk(.saveRefused))
    #expect(keys(&state, "o") == [.saveOverwriting])
    send(&state, .saved(error: nil))
    #expect(state.disk == nil && !state.hasUnsavedEdits)
  }

  @Test func reloadDropsTheEditsOnlyWhenAsked() throws {
    var state = try demoState()
    try select("users/get", &state)
    _ = keys(&state, "v")
    _ = keys(&state, "j")
    send(&state, .key(.enter))
    send(&state, .disk(.conflict), .key(.ctrl("s")), .disk(.saveRefused))
    #expect(keys(&state, "r") == [.reload])
    #expect(state.message?.text == "reloading workspaces/demo.json…")
    var onDisk = try demoState().workspace
    try onDisk.modifyRequest(named: "users/get") { $0.url = "/users/from-disk" }
    send(&state, .disk(.reloaded(onDisk, dropped: true)))
    #expect(state.message?.text == "reloaded workspaces/demo.json, your edits dropped")
    #expect(!state.hasUnsavedEdits && state.environmentInUse == nil)
    #expect(state.selectedRequest?.url == "/users/from-disk")
  }

  /// `m`: the runtime merges (`WorkspaceFile.merge`); the result is shown with the edits still
  /// unsaved, the selection kept. A refused merge says why and asks again.
  @Test func mergeKeepsTheEditsOnTopOfTheFilesChanges() throws {
    var state = try demoState()
    try select("users/get", &state)
    _ = keys(&state, "v")
    _ = keys(&state, "j")
    send(&state, .key(.enter))  // an unsaved edit: the environment chosen (ada)
    send(&state, .disk(.conflict), .key(.ctrl("s")), .disk(.saveRefused))
    #expect(keys(&state, "m") == [.mergeWithDisk])
    #expect(state.overlay == nil && state.message?.text == "merging workspaces/demo.json…")
    send(&state, .disk(.mergeFailed("both changed requests[users/get].url")))
    #expect(state.overlay == .diskConflict && state.message?.isError == true)
    #expect(
      state.message?.text
        == "cannot merge: both changed requests[users/get].url; r reloads (dropping your edits), o overwrites, Esc cancels")
    #expect(keys(&state, "m") == [.mergeWithDisk])
    var merged = try demoState().workspace
    try merged.modifyRequest(named: "users/get") { $0.url = "/users/from-disk" }
    try merged.selectEnvironment("ada")
    send(&state, .disk(.merged(merged)))
    #expect(state.message?.text == "merged: workspaces/demo.json's changes and your unsaved edits together (Ctrl-S saves)")
    #expect(state.disk == nil && state.overlay == nil)
    #expect(state.unsavedSettings == ["environment"] && state.environmentInUse == "ada", "the edit is still unsaved")
    #expect(state.selectedRequest?.url == "/users/from-disk")
    // Choosing the file's environment again is still no edit: the saved one is the file's.
    _ = keys(&state, "vk")
    send(&state, .key(.enter))
    #expect(!state.hasUnsavedEdits)
  }

  @Test func saveAndQuitOverAChangeAsksAndDoesNotQuit() throws {
    var state = try demoState()
    _ = keys(&state, "v")
    _ = keys(&state, "j")
    send(&state, .key(.enter))
    _ = keys(&state, "q")
    #expect(state.overlay == .unsavedChanges)
    #expect(keys(&state, "s") == [.save])
    send(&state, .disk(.saveRefused))
    #expect(state.overlay == .diskConflict)
    // Overwriting then saves, and does not quit on its own.
    #expect(keys(&state, "o") == [.saveOverwriting])
    #expect(send(&state, .saved(error: nil)).isEmpty)
  }

  @Test func aFieldBeingTypedCountsAsAnEdit() throws {
    var state = try demoState()
    _ = keys(&state, "2je")
    #expect(state.editor.editing != nil && !state.hasUnsavedEdits)
    #expect(state.hasEditsInProgress, "a reload would lose what is typed: the runtime treats it as a conflict")
  }

  @Test func unreadableAndDeletedAreSaidAndWhatIsShownStays() throws {
    var state = try demoState()
    let requests = state.workspace.requests.count
    send(&state, .disk(.unreadable("workspaces/demo.json:3:5: expected a value")))
    #expect(state.disk == .unreadable("workspaces/demo.json:3:5: expected a value"))
    #expect(state.message?.text.hasPrefix("changed on disk, does not load: workspaces/demo.json:3:5: expected a value") == true)
    #expect(screenText(state).contains("file does not load"))
    send(&state, .disk(.deleted))
    #expect(state.disk == .deleted && state.workspace.requests.count == requests)
    #expect(state.message?.text == "workspaces/demo.json was deleted on disk; still showing it (Ctrl-S writes it again)")
    // Put back as it was: the notice goes.
    send(&state, .disk(.asLoaded))
    #expect(state.disk == nil && state.message?.text == "workspaces/demo.json holds what was loaded again")
    #expect(!screenText(state).contains("file deleted"))
  }

  @Test func snapshot() throws {
    let base = try demoState()
    let state = Scenario.disk.state(workspace: base.workspace, file: base.workspaceFile, width: 160, height: 45)
    #expect(state.overlay == .diskConflict)
    try assertSnapshot(state, "disk-conflict-160x45")
  }
}
