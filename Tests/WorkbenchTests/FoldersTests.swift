import Foundation
import Testing
import Workbench
import Workspace

/// Folders in the request list fold and unfold (Enter, space, ← →), as lazygit's and gitui's
/// trees do; the selection stays on a row that is shown.
@Suite("update: folders fold and unfold")
struct FoldersTests {
  /// `a/one`, `a/b/two`, `a/b/three`, `a/four`, `top`: a folder in a folder.
  func nested() -> AppState {
    let names = ["a/one", "a/b/two", "a/b/three", "a/four", "top"]
    let workspace = Workspace(name: "nested", requests: names.map { RequestTemplate(name: $0, url: "/\($0)") })
    return AppState(workspace: workspace, workspaceFile: "nested.json")
  }

  @Test func enterAndSpaceFoldAFolderAndTheSelectionStaysOnIt() throws {
    var state = try demoState()
    #expect(state.selectedRequest?.name == "users/list")  // the first request, not its folder
    _ = keys(&state, "g")
    #expect(state.selectedFolder == "users" && state.keyContext == .folderInList)
    send(&state, .key(.enter))
    #expect(state.listRows.first == .folder(path: "users", depth: 0, collapsed: true))
    #expect(!state.listRows.contains { if case .request(let name, _) = $0 { name.hasPrefix("users/") } else { false } })
    #expect(state.selectedFolder == "users")
    try assertSnapshot(state, "folded-160x45")
    // The next row is the next folder: the folded requests are passed over.
    _ = keys(&state, "j")
    #expect(state.selectedFolder == "auth")
    _ = keys(&state, "k ")
    #expect(state.selectedFolder == "users" && state.listRows.first == .folder(path: "users", depth: 0, collapsed: false))
    #expect(state.listRows.contains(.request(name: "users/get", depth: 1)))
  }

  @Test func arrowsFoldUnfoldAndWalkTheTree() throws {
    var state = nested()
    #expect(state.selectedRequest?.name == "a/one")
    // ← on a request folds its folder and selects it.
    moveDown(&state, to: "a/b/two")
    send(&state, .key(.left))
    #expect(state.selectedFolder == "a/b")
    #expect(state.listRows == [
      .folder(path: "a", depth: 0, collapsed: false), .request(name: "a/one", depth: 1),
      .folder(path: "a/b", depth: 1, collapsed: true), .request(name: "a/four", depth: 1), .request(name: "top", depth: 0),
    ])
    // ← on a folded folder goes to the folder it is in; ← again folds that one.
    send(&state, .key(.left))
    #expect(state.selectedFolder == "a")
    send(&state, .key(.left))
    #expect(state.listRows == [.folder(path: "a", depth: 0, collapsed: true), .request(name: "top", depth: 0)])
    #expect(state.selectableCount == 2)
    // → unfolds a (a/b is still folded, as it was left); → again goes to its first row.
    send(&state, .key(.right))
    #expect(state.listRows.count == 5)
    send(&state, .key(.right))
    #expect(state.selectedRequest?.name == "a/one")
    _ = keys(&state, "jl")
    #expect(state.selectedFolder == "a/b" && state.listRows.count == 7)
  }

  @Test func aRequestSelectedByNameUnfoldsItsFolders() throws {
    var state = nested()
    state.list.collapsed = ["a", "a/b"]
    #expect(state.listRows.count == 2)
    state.selectRequest(named: "a/b/three")
    #expect(state.selectedRequest?.name == "a/b/three")
    #expect(state.list.collapsed.isEmpty)
    // D beside a folded folder: the copy is shown and selected.
    state.list.collapsed = ["a/b"]
    _ = keys(&state, "g")
    moveDown(&state, to: "a/four")
    _ = keys(&state, "D")
    #expect(state.selectedRequest?.name == "a/four-2")
  }

  @Test func whileFilteringEveryMatchShowsAndFoldingSaysWhy() throws {
    var state = nested()
    state.list.collapsed = ["a/b"]
    _ = keys(&state, "/two")
    send(&state, .key(.enter))
    #expect(state.selectedRequest?.name == "a/b/two")  // the first match, not its folder
    #expect(state.listRows.contains(.request(name: "a/b/two", depth: 2)))
    _ = keys(&state, "k")
    send(&state, .key(.enter))
    #expect(state.message?.text.contains("Esc clears the filter") == true)
    send(&state, .key(.escape))
    #expect(state.requestFilter.isEmpty)
    #expect(state.selectedFolder == "a/b" && !state.listRows.contains(.request(name: "a/b/two", depth: 2)))
  }

  @Test func aFoldedFolderSaysHowManyItHidesAndWhetherOneIsUnsaved() throws {
    var state = nested()
    state.list.collapsed = ["a/b"]
    #expect(screenText(state).contains("▸ b/ 2"))
    // An edit inside it: its row shows ● too; folding the parent counts every request under it.
    state.unsaved = ["a/b/three"]
    #expect(screenText(state).contains("▸ b/ 2 ●"))
    state.list.collapsed = ["a", "a/b"]
    #expect(screenText(state).contains("▸ a/ 4 ●"))
    #expect(state.listRows == [.folder(path: "a", depth: 0, collapsed: true), .request(name: "top", depth: 0)])
    state.unsaved = ["top"]
    let text = screenText(state)
    #expect(text.contains("▸ a/ 4") && !text.contains("▸ a/ 4 ●"), "\(text)")
  }

  @Test func theEditorOnAFolderRowSaysWhatItIsAndItsKeys() throws {
    var state = try demoState()
    _ = keys(&state, "g")
    #expect(state.selectedFolder == "users")
    let text = screenText(state)
    let inside = state.workspace.requests.filter { $0.name.hasPrefix("users/") }
    #expect(text.contains("Editor · users/"), "\(text)")
    #expect(text.contains("folder users/ · \(inside.count) requests"), "\(text)")
    #expect(text.contains("rename or move it: every request in it moves"), "\(text)")
    #expect(text.contains("list  list-cached  get"), "the folder's requests, named inside it: \(text)")
    // Not the text of a request's fields.
    #expect(!text.contains("URL        "), "\(text)")
    state.unsaved = ["users/list"]
    send(&state, .key(.enter))
    #expect(screenText(state).contains("folder users/ · \(inside.count) requests, 1 unsaved · folded"))
    try assertSnapshot(state, "folder-editor-160x45")
  }

  @Test func rOnAFolderRowMovesEveryRequestInItAndUUndoesItInOneStep() throws {
    var state = try demoState()
    let before = state.workspace
    let inside = before.requests.filter { $0.name.hasPrefix("users/") }.map(\.name)
    _ = keys(&state, "g")
    send(&state, .key(.enter))  // folded: it stays folded under its new name
    _ = keys(&state, "R")
    #expect(state.prompt?.label == "rename the folder users/ to (every request in it moves)")
    #expect(state.prompt?.input.text == "users")
    send(&state, .key(.ctrl("u")))
    type(&state, "people/v1/")
    send(&state, .key(.enter))
    #expect(state.prompt == nil)
    let moved = state.workspace.requests.filter { $0.name.hasPrefix("people/v1/") }.map(\.name)
    #expect(moved == inside.map { "people/v1/" + $0.dropFirst("users/".count) })
    #expect(!state.workspace.requests.contains { $0.name.hasPrefix("users/") })
    #expect(state.workspace.batch(named: "smoke")?.members.contains("people/v1/get") == true)
    #expect(state.workspace.chain(named: "login-flow")?.steps.map(\.request).contains("people/v1/get") == true)
    #expect(state.unsaved == Set(moved))
    #expect(state.selectedFolder == "people/v1" && state.list.collapsed.contains("people/v1"))
    #expect(state.message?.text == "moved \(inside.count) requests from users/ to people/v1/ (u undoes it)")
    // One u puts every request back: the workspace and its text as before, nothing unsaved.
    _ = keys(&state, "u")
    #expect(state.workspace == before)
    #expect(state.workspace.encoded() == before.encoded())
    #expect(state.unsaved.isEmpty && state.selectedFolder == "users" && state.list.collapsed.contains("users"))
    #expect(state.message?.text == "renamed the folder people/v1/ back to users/")
    _ = keys(&state, "u")
    #expect(state.message?.text.hasPrefix("nothing to undo") == true)
    // A taken name keeps the prompt open with why; the same name changes nothing.
    state.workspace.requests.append(RequestTemplate(name: "auth/list", url: "/x"))
    _ = keys(&state, "R")
    send(&state, .key(.ctrl("u")))
    type(&state, "auth")
    send(&state, .key(.enter))
    #expect(state.prompt?.error?.contains("\"auth/list\" is already the name") == true, "\(String(describing: state.prompt))")
    send(&state, .key(.ctrl("u")))
    send(&state, .key(.enter))
    #expect(state.prompt?.error == "a folder needs a name (Esc keeps users/)")
    send(&state, .key(.escape))
    _ = keys(&state, "R")
    send(&state, .key(.enter))
    #expect(state.message?.text == "users/: name unchanged")
  }
}
