import Foundation
import RequestEngine
import TerminalUI
import Testing
import Workspace

@testable import Workbench

/// `v` (the environments) and `V` (the variables in scope), as `update` drives them, and their
/// views. The demo workspace has the environments `ada` (id 1) and `grace` (id 3).
@Suite("update: environments and variables")
struct EnvironmentsTests {
  func screen(_ state: AppState) -> String {
    var buffer = ScreenBuffer(width: state.width, height: state.height)
    view(state, into: &buffer)
    return buffer.text
  }

  /// The demo state with users/get selected.
  func onUsersGet() throws -> AppState {
    var state = try demoState()
    state.selectRequest(named: "users/get")
    #expect(state.selectedRequest?.name == "users/get")
    return state
  }

  @Test func vListsTheEnvironmentsAndEnterAppliesOneAtOnce() throws {
    var state = try onUsersGet()
    guard case .success(let before) = state.preparedSelection() else { throw CancellationError() }
    #expect(before.url == "http://127.0.0.1:8080/users/1")
    _ = keys(&state, "v")
    #expect(state.overlay == .environments && state.keyContext == .environments)
    #expect(state.environmentOverlay.selection == 0, "none is in use")
    #expect(screen(state).contains("● (none)"))
    // j j: grace; Enter applies it.
    _ = keys(&state, "jj")
    #expect(screen(state).contains("id"), "the highlighted environment's variables show beside the list")
    #expect(send(&state, .key(.enter)).isEmpty)
    #expect(state.overlay == nil)
    #expect(state.workspace.environment == "grace" && state.environmentInUse == "grace")
    #expect(state.unsavedSettings == ["environment"] && state.hasUnsavedEdits)
    // The editor's resolved URL and the next send follow.
    guard case .success(let after) = state.preparedSelection() else { throw CancellationError() }
    #expect(after.url == "http://127.0.0.1:8080/users/3")
    guard case .send(let sent) = send(&state, .key(.char("s"))).first else {
      Issue.record("s did not send")
      return
    }
    #expect(sent.url == "http://127.0.0.1:8080/users/3")
    let text = screen(state)
    #expect(text.contains("env grace · 1 unsaved"), "the status bar names it")
    // Ctrl-S saves it as the environment key.
    #expect(send(&state, .key(.ctrl("s"))) == [.save])
    let saved = String(decoding: state.workspace.encoded(), as: UTF8.self)
    #expect(saved.contains(#""environment": "grace""#))
    _ = send(&state, .saved(error: nil))
    #expect(!state.hasUnsavedEdits)
    // Back to none: an edit again; none saved over grace.
    _ = keys(&state, "v")
    #expect(state.environmentOverlay.selection == 2, "the one in use is selected")
    _ = send(&state, .key(.char("g")))  // not bound here: nothing happens
    _ = keys(&state, "kk")
    _ = send(&state, .key(.enter))
    #expect(state.workspace.environment == nil && state.unsavedSettings == ["environment"])
    #expect(!String(decoding: state.workspace.encoded(), as: UTF8.self).contains(#""environment""#))
  }

  @Test func choosingTheSavedEnvironmentAgainIsNoEdit() throws {
    var state = try onUsersGet()
    _ = keys(&state, "vj")
    _ = send(&state, .key(.enter))
    #expect(state.unsavedSettings == ["environment"])
    _ = keys(&state, "vk")
    _ = send(&state, .key(.enter))
    #expect(state.unsavedSettings.isEmpty && !state.hasUnsavedEdits)
    // Esc closes without a change; quitting with an environment edit asks first.
    _ = keys(&state, "vj")
    _ = send(&state, .key(.escape))
    #expect(state.overlay == nil && state.workspace.environment == nil)
    _ = keys(&state, "vj")
    _ = send(&state, .key(.enter))
    #expect(send(&state, .key(.char("q"))).isEmpty)
    #expect(state.overlay == .unsavedChanges)
    #expect(screen(state).contains("unsaved: environment"))
  }

  @Test func anEnvGivenOnTheCommandLineGivesWay() throws {
    var state = try onUsersGet()
    state.sources.environment = "grace"
    _ = keys(&state, "v")
    #expect(state.environmentOverlay.selection == 2)
    _ = keys(&state, "k")
    _ = send(&state, .key(.enter))
    #expect(state.environmentInUse == "ada" && state.sources.environment == nil)
  }

  @Test func aWorkspaceWithoutEnvironmentsSaysHowToAddOne() throws {
    var state = try demoState()
    state.workspace.environments = []
    _ = keys(&state, "v")
    #expect(state.overlay == nil)
    #expect(state.message?.text.contains("no environments") == true)
  }

  @Test func capitalVShowsEveryVariableInScopeWithItsLayer() throws {
    var state = try onUsersGet()
    _ = keys(&state, "vj")
    _ = send(&state, .key(.enter))  // ada
    _ = keys(&state, "V")
    #expect(state.overlay == .variables && state.keyContext == .variables)
    let rows = state.variableRows
    // Used by users/get first: host (its base URL) and id; then the rest.
    #expect(rows.prefix(2).map(\.name) == ["host", "id"])
    #expect(rows[0].found?.layer == .override, "--var host")
    #expect(rows[1].found?.layer == .environment("ada") && rows[1].shadowed == [.workspace])
    #expect(rows.contains { $0.name == "secret.token" && $0.isSecret })
    let text = screen(state)
    #expect(text.contains("Variables · users/get · environment ada"))
    #expect(text.contains("environment ada (over workspace)"))
    #expect(text.contains("••••"), "the secret's value is masked")
    #expect(!text.contains("s3cr3t"))
  }

  @Test func aVariableIsEditedWhereItLives() throws {
    var state = try onUsersGet()
    _ = keys(&state, "vj")
    _ = send(&state, .key(.enter))  // ada
    _ = keys(&state, "Vj")  // id, from environment ada
    _ = send(&state, .key(.enter))
    #expect(state.overlay == nil)
    let prompt = try #require(state.prompt)
    #expect(prompt.purpose == .setVariable(name: "id", home: .environment("ada")))
    #expect(prompt.input.text == "1" && prompt.input.selected, "its value, selected: typing replaces it")
    _ = keys(&state, "2")
    _ = send(&state, .key(.enter))
    #expect(state.overlay == .variables, "back to the variables")
    #expect(state.workspace.environments.first { $0.name == "ada" }?.value(of: "id") == "2")
    #expect(state.unsavedSettings.contains("environments.ada.id"))
    guard case .success(let request) = state.preparedSelection() else { throw CancellationError() }
    #expect(request.url.hasSuffix("/users/2"))
    // --var host is not edited here: the message says why.
    _ = keys(&state, "k")
    _ = send(&state, .key(.enter))
    #expect(state.prompt == nil && state.message?.isError == true)
    #expect(state.message?.text.contains("--var host") == true)
    // Esc in the prompt goes back to the overlay, changing nothing.
    let token = try #require(state.variableRows.firstIndex { $0.name == "token" })
    state.variablesOverlay.selection = token
    _ = send(&state, .key(.enter))
    #expect(state.prompt?.purpose == .setVariable(name: "token", home: .workspace))
    _ = send(&state, .key(.escape))
    #expect(state.prompt == nil && state.overlay == .variables)
  }

  @Test func aSecretIsTypedHiddenAndGoesToTheSecretsFile() throws {
    var state = try onUsersGet()
    _ = keys(&state, "V")
    let index = try #require(state.variableRows.firstIndex { $0.name == "secret.token" })
    state.variablesOverlay.selection = index
    _ = send(&state, .key(.enter))
    #expect(state.prompt?.purpose == .setSecret(name: "token") && state.prompt?.isHidden == true)
    _ = keys(&state, "hunter2")
    let text = screen(state)
    #expect(text.contains("•••••••") && !text.contains("hunter2"), "typed hidden")
    #expect(send(&state, .key(.enter)) == [.setSecret(name: "token", value: "hunter2")])
    #expect(state.overlay == .variables)
    #expect(!state.hasUnsavedEdits, "a secret is no edit of the workspace file")
    // The runtime's answer: the file as written.
    send(&state, .secretSaved(name: "token", secrets: SecretsFile(values: [("token", "hunter2")]), error: nil))
    #expect(state.sources.secrets.value(of: "token") == "hunter2")
    #expect(state.message?.text == "secret.token saved")
    send(&state, .secretSaved(name: "token", secrets: nil, error: "permission denied"))
    #expect(state.message?.isError == true && state.message?.text.contains("permission denied") == true)
    // An empty value changes nothing.
    _ = send(&state, .key(.enter))
    #expect(send(&state, .key(.enter)).isEmpty)
  }

  @Test func snapshots() throws {
    var state = try onUsersGet()
    _ = keys(&state, "vj")
    try assertSnapshot(state, "environments-160x45")
    _ = send(&state, .key(.enter))
    _ = keys(&state, "V")
    try assertSnapshot(state, "variables-160x45")
    var small = try onUsersGet()
    small.width = 80
    small.height = 24
    _ = keys(&small, "V")
    try assertSnapshot(small, "variables-80x24")
  }
}
