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

  /// From a workspace without environments: `v`, `n` names one (a name that cannot be one is
  /// refused in the prompt, the text kept), it is in use at once, and `V`'s `a` fills it.
  @Test func withNoEnvironmentsNAddsOneInUseAtOnceAndVFillsIt() throws {
    var state = try onUsersGet()
    state.workspace.environments = []
    state.workspace.variables.removeAll { $0.name == "id" }
    _ = keys(&state, "v")
    #expect(state.overlay == .environments)
    #expect(state.message?.text.contains("no environments yet: n adds one") == true)
    #expect(screen(state).contains("no environments yet: n adds one"))
    _ = keys(&state, "n")
    #expect(state.prompt?.purpose == .newEnvironment(copying: nil) && state.overlay == nil)
    _ = keys(&state, "my dev")
    _ = send(&state, .key(.enter))
    #expect(state.prompt?.error?.contains("cannot name an environment") == true, "refused, saying why")
    #expect(state.prompt?.input.text == "my dev", "the text stays to be fixed")
    #expect(state.workspace.environments.isEmpty)
    _ = send(&state, .key(.ctrl("u")))
    _ = keys(&state, "dev")
    _ = send(&state, .key(.enter))
    #expect(state.prompt == nil && state.overlay == .environments)
    #expect(state.workspace.environments.map(\.name) == ["dev"] && state.environmentInUse == "dev")
    #expect(state.environmentOverlay.selection == 1, "the new one is highlighted")
    #expect(state.unsavedSettings == ["environment", "environments.dev"])
    #expect(screen(state).contains("no variables yet: V adds them"))
    // The request's {{id}} is undefined until V's a defines it in dev.
    guard case .failure = state.preparedSelection() else { throw CancellationError() }
    _ = send(&state, .key(.escape))
    _ = keys(&state, "Va")
    #expect(state.prompt?.purpose == .addVariable(home: .environment("dev")))
    #expect(screen(state).contains("new variable in environment dev: NAME=value"))
    _ = keys(&state, "id = 7")
    _ = send(&state, .key(.enter))
    #expect(state.prompt == nil && state.overlay == .variables)
    #expect(state.workspace.environments.first?.variables == [Variable(name: "id", value: "7")], "name and value trimmed")
    #expect(state.variableRows[state.variablesOverlay.selection].name == "id", "the new one is highlighted")
    guard case .success(let request) = state.preparedSelection() else { throw CancellationError() }
    #expect(request.url == "http://127.0.0.1:8080/users/7")
    // Ctrl-S writes both, and the file reads back the same.
    _ = send(&state, .key(.escape))
    #expect(send(&state, .key(.ctrl("s"))) == [.save])
    let saved = state.workspace.encoded()
    let text = String(decoding: saved, as: UTF8.self)
    #expect(text.contains(#""environment": "dev""#))
    let reread = try Workspace.parse(saved, file: "demo.json")
    #expect(reread.environments == [Environment(name: "dev", variables: [Variable(name: "id", value: "7")])])
    #expect(reread.environment == "dev")
  }

  /// `c` copies the highlighted environment under a free name; `d` deletes one only when
  /// pressed twice, and deleting the one in use leaves none in use.
  @Test func cCopiesAnEnvironmentAndDTwiceDeletesOne() throws {
    var state = try onUsersGet()
    _ = keys(&state, "vj")  // ada
    _ = keys(&state, "c")
    #expect(state.prompt?.purpose == .newEnvironment(copying: "ada"))
    #expect(state.prompt?.input.text == "ada-2" && state.prompt?.input.selected == true)
    _ = keys(&state, "grace")
    _ = send(&state, .key(.enter))
    #expect(state.prompt?.error?.contains("already an environment named \"grace\"") == true)
    _ = send(&state, .key(.ctrl("u")))
    _ = keys(&state, "ada-staging")
    _ = send(&state, .key(.enter))
    #expect(state.workspace.environments.map(\.name) == ["ada", "grace", "ada-staging"])
    #expect(state.workspace.environments[2].variables == state.workspace.environments[0].variables)
    #expect(state.environmentInUse == "ada-staging" && state.environmentOverlay.selection == 3)
    // d once asks; another key keeps it.
    _ = keys(&state, "d")
    #expect(state.message?.text.contains("press d again to delete environment ada-staging and its 1 variable") == true)
    #expect(state.workspace.environments.count == 3)
    _ = keys(&state, "k")
    #expect(state.message?.text == "the environment stays" && state.workspace.environments.count == 3)
    // d d on the one in use: gone, none in use; the file's environment key goes with it.
    _ = keys(&state, "jdd")
    #expect(state.workspace.environments.map(\.name) == ["ada", "grace"])
    #expect(state.environmentInUse == nil && state.workspace.environment == nil)
    #expect(state.message?.text.contains("no environment is in use") == true)
    #expect(state.environmentOverlay.selection == 2)
    #expect(!state.unsavedSettings.contains("environment"), "none was saved, none is chosen: no edit")
    #expect(state.unsavedSettings.contains("environments.ada-staging"))
    // c and d on (none) say what to do.
    _ = keys(&state, "kkc")
    #expect(state.prompt == nil && state.message?.isError == true)
    _ = keys(&state, "d")
    #expect(state.workspace.environments.count == 2 && state.message?.isError == true)
  }

  /// `r` renames the highlighted environment: the one in use stays in use under its new name
  /// (`--env` too), its unsaved variable edits follow it, its cookie jar keeps its old name
  /// until the save (which moves it), and renaming it back or deleting it forgets that.
  @Test func rRenamesAnEnvironmentAndItsJarFollowsAtTheSave() throws {
    var state = try onUsersGet()
    state.sources.environment = "ada"
    _ = keys(&state, "v")
    #expect(state.environmentOverlay.selection == 1)
    _ = keys(&state, "r")
    #expect(state.prompt?.purpose == .renameEnvironment("ada"))
    #expect(state.prompt?.input.text == "ada" && state.prompt?.input.selected == true)
    #expect(screen(state).contains("rename environment ada to"))
    _ = keys(&state, "grace")
    _ = send(&state, .key(.enter))
    #expect(state.prompt?.error?.contains("already an environment named \"grace\"") == true)
    _ = send(&state, .key(.ctrl("u")))
    _ = keys(&state, "bad name")
    _ = send(&state, .key(.enter))
    #expect(state.prompt?.error?.contains("cannot name an environment") == true)
    _ = send(&state, .key(.ctrl("u")))
    _ = keys(&state, "ada-dev")
    _ = send(&state, .key(.enter))
    #expect(state.prompt == nil && state.overlay == .environments)
    #expect(state.workspace.environments.map(\.name) == ["ada-dev", "grace"])
    #expect(state.environmentInUse == "ada-dev" && state.sources.environment == nil)
    #expect(state.sources.renamedEnvironments == ["ada-dev": "ada"])
    #expect(state.sources.cookieJarEnvironment(of: "ada-dev") == "ada")
    #expect(state.unsavedSettings == ["environment", "environments.ada", "environments.ada-dev"])
    #expect(state.message?.text.contains("environment ada renamed ada-dev") == true)
    guard case .success(let request) = state.preparedSelection() else { throw CancellationError() }
    #expect(request.url == "http://127.0.0.1:8080/users/1", "its variables came along")
    let saved = String(decoding: state.workspace.encoded(), as: UTF8.self)
    #expect(saved.contains(#""ada-dev": {"#) && !saved.contains(#""ada": {"#), "\(saved)")

    // Renamed again, then back: no jar to move any more.
    _ = keys(&state, "r")
    _ = send(&state, .key(.ctrl("u")))
    _ = keys(&state, "ada-2")
    _ = send(&state, .key(.enter))
    #expect(state.sources.renamedEnvironments == ["ada-2": "ada"])
    _ = keys(&state, "r")
    _ = send(&state, .key(.ctrl("u")))
    _ = keys(&state, "ada")
    _ = send(&state, .key(.enter))
    #expect(state.sources.renamedEnvironments.isEmpty && state.environmentInUse == "ada")
    // Unchanged name: nothing happens.
    _ = keys(&state, "r")
    _ = send(&state, .key(.enter))
    #expect(state.message?.text == "environment ada keeps its name")

    // A rename, then the save: the jar was moved with it.
    _ = keys(&state, "jr")
    _ = keys(&state, "hopper")
    _ = send(&state, .key(.enter))
    #expect(state.sources.renamedEnvironments == ["hopper": "grace"] && state.environmentInUse == "ada")
    _ = send(&state, .saved(error: nil))
    #expect(state.sources.renamedEnvironments.isEmpty && !state.hasUnsavedEdits)
    // A rename, then a delete: its jar stays under the name the file gives it.
    _ = send(&state, .key(.escape))
    _ = keys(&state, "vjr")
    _ = keys(&state, "lovelace")
    _ = send(&state, .key(.enter))
    _ = keys(&state, "dd")
    #expect(state.workspace.environments.map(\.name) == ["ada"] && state.sources.renamedEnvironments.isEmpty)
    // On (none): says what to do.
    _ = send(&state, .key(.escape))
    _ = keys(&state, "vkr")
    #expect(state.prompt == nil && state.message?.isError == true)
  }

  /// `a` in `V`: NAME=value at once, NAME alone asks its value, secret.NAME asks it hidden;
  /// what cannot be set is refused in the prompt. `d` removes one where the file defines it.
  @Test func aAddsAVariableAndDRemovesOne() throws {
    var state = try onUsersGet()
    _ = keys(&state, "Va")
    #expect(state.prompt?.purpose == .addVariable(home: .workspace), "no environment in use: the workspace's")
    _ = keys(&state, "secret.api=abc")
    _ = send(&state, .key(.enter))
    #expect(state.prompt?.error?.contains("typed hidden") == true)
    _ = send(&state, .key(.ctrl("u")))
    _ = keys(&state, "env.HOME=x")
    _ = send(&state, .key(.enter))
    #expect(state.prompt?.error?.contains("export HOME") == true)
    _ = send(&state, .key(.ctrl("u")))
    _ = keys(&state, "=x")
    _ = send(&state, .key(.enter))
    #expect(state.prompt?.error?.contains("cannot be set here") == true)
    _ = send(&state, .key(.ctrl("u")))
    _ = keys(&state, "secret.api")
    _ = send(&state, .key(.enter))
    #expect(state.prompt?.purpose == .setSecret(name: "api") && state.prompt?.isHidden == true)
    _ = send(&state, .key(.escape))
    #expect(state.overlay == .variables)
    // A name alone: its value next (the current one, when it has one there).
    _ = keys(&state, "a")
    _ = keys(&state, "token")
    _ = send(&state, .key(.enter))
    #expect(state.prompt?.purpose == .setVariable(name: "token", home: .workspace))
    #expect(state.prompt?.input.text == "paste-a-token")
    _ = send(&state, .key(.escape))
    _ = keys(&state, "a")
    _ = keys(&state, "page")
    _ = send(&state, .key(.enter))
    #expect(state.prompt?.purpose == .setVariable(name: "page", home: .workspace) && state.prompt?.input.text == "")
    _ = keys(&state, "2")
    _ = send(&state, .key(.enter))
    #expect(state.workspace.variables.value(of: "page") == "2" && state.unsavedSettings.contains("variables.page"))
    #expect(state.variableRows[state.variablesOverlay.selection].name == "page", "the new one is highlighted")
    // d: gone from the workspace's variables.
    _ = keys(&state, "d")
    #expect(state.workspace.variables.value(of: "page") == nil)
    #expect(state.message?.text == "page removed from the workspace's variables (unsaved; Ctrl-S saves)")
    // In ada, id shadows the workspace's: removing it there uncovers the workspace's value.
    _ = send(&state, .key(.escape))
    _ = keys(&state, "vj")
    _ = send(&state, .key(.enter))
    _ = keys(&state, "V")
    let id = try #require(state.variableRows.firstIndex { $0.name == "id" })
    state.variablesOverlay.selection = id
    _ = keys(&state, "d")
    #expect(state.workspace.environments[0].variables.isEmpty)
    #expect(state.message?.text.contains("workspace's value applies now") == true)
    guard case .success(let request) = state.preparedSelection() else { throw CancellationError() }
    #expect(request.url.hasSuffix("/users/1"))
    // Neither --var nor a secret is removed here.
    let host = try #require(state.variableRows.firstIndex { $0.name == "host" })
    state.variablesOverlay.selection = host
    _ = keys(&state, "d")
    #expect(state.message?.isError == true && state.message?.text.contains("--var host") == true)
    let secret = try #require(state.variableRows.firstIndex { $0.name == "secret.token" })
    state.variablesOverlay.selection = secret
    _ = keys(&state, "d")
    #expect(state.message?.text.contains("reqbench secrets rm") == true)
    #expect(state.sources.secrets.value(of: "token") == "s3cr3t")
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

  /// A key typed in the open (`a apiKey=…`, or Enter on `token` with a real one) goes to the
  /// secrets file as an import's does; the variable says `{{secret.NAME}}`.
  @Test func aKeyTypedAsAVariableGoesToTheSecretsFile() throws {
    var state = try onUsersGet()
    _ = keys(&state, "Va")
    _ = keys(&state, "apiKey=sk-12345")
    #expect(send(&state, .key(.enter)) == [.setSecret(name: "apikey", value: "sk-12345")])
    #expect(state.workspace.variables.value(of: "apiKey") == "{{secret.apikey}}")
    #expect(state.message?.text.contains("its value went to the secrets file: apiKey says {{secret.apikey}}") == true)
    // The runtime's answer keeps the message.
    send(&state, .secretSaved(name: "apikey", secrets: SecretsFile(values: [("token", "s3cr3t"), ("apikey", "sk-12345")]), error: nil))
    #expect(state.message?.text.contains("apiKey says {{secret.apikey}}") == true)
    guard case .success = state.preparedSelection() else { throw CancellationError() }
    // Enter on token (the demo's placeholder), a real token typed: secret.token holds another
    // value, so it is token-2.
    let token = try #require(state.variableRows.firstIndex { $0.name == "token" })
    state.variablesOverlay.selection = token
    _ = send(&state, .key(.enter))
    _ = keys(&state, "tok-9999")
    #expect(send(&state, .key(.enter)) == [.setSecret(name: "token-2", value: "tok-9999")])
    #expect(state.workspace.variables.value(of: "token") == "{{secret.token-2}}")
    #expect(!String(decoding: state.workspace.encoded(), as: UTF8.self).contains("tok-9999"))
    // Edited again: the new key replaces secret.token-2's value (no token-3 left beside it).
    var written = state.sources.secrets
    written.set("token-2", "tok-9999")
    send(&state, .secretSaved(name: "token-2", secrets: written, error: nil))
    _ = send(&state, .key(.enter))
    #expect(state.prompt?.input.text == "{{secret.token-2}}")
    send(&state, .key(.ctrl("u")))
    _ = keys(&state, "tok-7777")
    #expect(send(&state, .key(.enter)) == [.setSecret(name: "token-2", value: "tok-7777")])
    #expect(state.workspace.variables.value(of: "token") == "{{secret.token-2}}")
    // A value too short to be a key, and a name that is no key's, stay as typed.
    _ = keys(&state, "a")
    _ = keys(&state, "token=abc")
    #expect(send(&state, .key(.enter)).isEmpty)
    #expect(state.workspace.variables.value(of: "token") == "abc")
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
