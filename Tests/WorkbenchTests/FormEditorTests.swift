import Foundation
import RequestEngine
import TerminalUI
import Testing
import Workbench
import Workspace

/// A new request `POST http://127.0.0.1:1/things` named `things`, open in the editor.
func stateWithNewPost() throws -> AppState {
  var state = emptyState()
  _ = keys(&state, "n")
  type(&state, "POST http://127.0.0.1:1/things")
  send(&state, .key(.enter))
  send(&state, .key(.ctrl("u")))
  type(&state, "things")
  send(&state, .key(.enter))
  #expect(state.selectedRequest?.name == "things" && state.focus == .editor)
  return state
}

/// Moves the editor's selection to the first field of `kind`.
func selectField(_ state: inout AppState, _ kind: EditorField.Kind) throws {
  let fields = try #require(state.selectedRequest?.editorFields)
  let index = try #require(fields.firstIndex { $0.kind == kind }, "no \(kind) field")
  _ = keys(&state, "2g")
  for _ in 0..<index { send(&state, .key(.down)) }
  #expect(state.editorField == index)
}

/// The editor as a form: a Name field that renames, the body's and the auth's type chosen from a
/// list, headers and query parameters switched off and on with space.
@Suite("editor: edit like a form")
struct FormEditorTests {
  @Test func theNameFieldRenamesAndEverythingKeptByTheNameFollows() throws {
    var state = try demoState()
    state.selectRequest(named: "auth/login")
    _ = keys(&state, "2")
    #expect(state.selectedRequest?.editorFields.first?.kind == .name)
    #expect(state.selectedRequest?.editorFields.first?.value == "auth/login")
    // A refused body is kept by the request's name: it follows the rename.
    send(&state, .editorFinished("{broken", error: nil))
    #expect(state.editor.refusedBodies["auth/login"] == "{broken")
    _ = keys(&state, "e")
    send(&state, .key(.ctrl("u")))
    // A taken name is refused and the edit stays open.
    type(&state, "users/get")
    send(&state, .key(.enter))
    #expect(state.editing != nil && state.message?.isError == true)
    #expect(state.message?.text.contains("already the name") == true)
    send(&state, .key(.ctrl("u")))
    type(&state, "session/login")
    send(&state, .key(.enter))
    #expect(state.editing == nil)
    #expect(state.workspace.request(named: "auth/login") == nil)
    #expect(state.workspace.request(named: "session/login") != nil)
    // The chain naming it follows; so do the selection, the editor's position and the unsaved mark.
    #expect(state.workspace.chain(named: "login-flow")?.steps.first?.request == "session/login")
    #expect(state.message?.text.hasPrefix("renamed auth/login to session/login; the batch or chain step naming it follows") == true)
    #expect(state.selectedRequest?.name == "session/login")
    #expect(state.editor.request == "session/login" && state.focus == .editor && state.editorField == 0)
    #expect(state.editor.refusedBodies == ["session/login": "{broken"])
    #expect(state.unsaved == ["session/login"])
    // The editor stays where it was on the next key (it is the same request).
    _ = keys(&state, "jj")
    #expect(state.editorField == 2)
    // The saved text renames it in place: the request's name and the chain step, nothing else.
    let before = String(decoding: try demoState().workspace.encoded(), as: UTF8.self)
    let after = String(decoding: state.workspace.encoded(), as: UTF8.self)
    #expect(after == before.replacingOccurrences(of: "\"auth/login\"", with: "\"session/login\""))
  }

  /// `R` in the list renames too: the editor keeps its place on the renamed request.
  @Test func renamingWithRKeepsTheEditorsPlace() throws {
    var state = try demoState(width: 80, height: 24)
    _ = keys(&state, "2G")
    let (field, scroll) = (state.editorField, state.editorScroll)
    #expect(field > 5 && scroll > 0)
    _ = keys(&state, "1R")
    send(&state, .key(.ctrl("u")))
    type(&state, "people/list")
    send(&state, .key(.enter))
    #expect(state.selectedRequest?.name == "people/list" && state.editor.request == "people/list")
    #expect(state.editorField == field && state.editorScroll == scroll)
  }

  @Test func aRenameThatLeavesTheFilterKeepsTheRequestSelected() throws {
    var state = try demoState()
    _ = keys(&state, "/")
    type(&state, "create")
    send(&state, .key(.enter))
    #expect(state.selectedRequest?.name == "users/create")
    _ = keys(&state, "2e")
    send(&state, .key(.ctrl("u")))
    type(&state, "people/add")
    send(&state, .key(.enter))
    #expect(state.requestFilter.isEmpty)
    #expect(state.selectedRequest?.name == "people/add")
  }

  @Test func spaceSwitchesAHeaderOrQueryParameterOffAndOn() throws {
    var state = try demoState()
    // The demo's users/list has X-Debug switched off: shown, not sent.
    #expect(state.selectedRequest?.name == "users/list")
    let debug = try #require(state.selectedRequest?.editorFields.first { $0.value == "X-Debug: 1" })
    #expect(!debug.enabled)
    guard case .success(let unsent)? = state.preparedSelection() else { throw Failure("not prepared") }
    #expect(unsent.headers["X-Debug"] == nil && unsent.headers["Accept"] == "application/json")
    var buffer = ScreenBuffer(width: state.width, height: state.height)
    view(state, into: &buffer)
    #expect(buffer.text.contains("X-Debug: 1  off (space turns it on)"))

    try selectField(&state, .header(1))
    #expect(keys(&state, " ") == [])
    #expect(state.message?.text == "header X-Debug on: sent again")
    guard case .success(let sent)? = state.preparedSelection() else { throw Failure("not prepared") }
    #expect(sent.headers["X-Debug"] == "1")
    #expect(state.unsaved == ["users/list"])
    _ = keys(&state, " ")
    #expect(state.message?.text == "header X-Debug off: kept, not sent (space turns it on)")
    #expect(state.selectedRequest?.isEnabled(header: "X-Debug") == false)

    // A query parameter: added, switched off, edited while off (it stays off), then its name
    // changed (still off under the new name).
    try selectField(&state, .addQuery)
    _ = keys(&state, "e")
    type(&state, "page=2")
    send(&state, .key(.enter))
    try selectField(&state, .query(0))
    _ = keys(&state, " ")
    #expect(state.message?.text == "query parameter page off: kept, not sent (space turns it on)")
    guard case .success(let noPage)? = state.preparedSelection() else { throw Failure("not prepared") }
    #expect(!noPage.url.contains("page"))
    _ = keys(&state, "e")
    send(&state, .key(.ctrl("u")))
    type(&state, "p=3")
    send(&state, .key(.enter))
    let request = try #require(state.selectedRequest)
    #expect(request.query.keys == ["p"] && !request.isEnabled(query: "p") && request.isEnabled(query: "page"))
    // Space elsewhere says what it does.
    try selectField(&state, .url)
    _ = keys(&state, " ")
    #expect(state.message?.text.hasPrefix("space switches a header or a query parameter") == true)
    // Saved as the workspace file's switched-off entries.
    let text = String(decoding: state.workspace.encoded(), as: UTF8.self)
    #expect(text.contains(#""X-Debug": {"value": "1", "enabled": false}"#))
    let saved = try #require(try Workspace.parse(Array(text.utf8), file: "demo.json").request(named: "users/list"))
    #expect(saved.query.keys == ["p"] && !saved.isEnabled(query: "p") && !saved.isEnabled(header: "X-Debug"))
  }

  @Test func theBodyTypeIsChosenFromAList() throws {
    var state = try stateWithNewPost()
    try selectField(&state, .body)
    _ = keys(&state, "e")
    #expect(state.editor.choosing == ChoiceList(.bodyKind, current: "none"))
    #expect(state.keyContext == .choice)
    // Esc keeps it.
    send(&state, .key(.escape))
    #expect(state.editor.choosing == nil && state.selectedRequest?.body == nil)
    send(&state, .key(.enter))
    _ = keys(&state, "j")
    send(&state, .key(.enter))
    #expect(state.editor.choosing == nil)
    #expect(state.selectedRequest?.body == .json(.object(JSONObject())))
    #expect(state.message?.text.hasPrefix("body type json: sent as application/json") == true)
    guard case .success(let request)? = state.preparedSelection() else { throw Failure("not prepared") }
    #expect(request.body.contentType == "application/json")
    // E opens $EDITOR on a .json file.
    guard case .edit(let text, let ext)? = keys(&state, "E").first else { throw Failure("no edit command") }
    #expect(text == "{}\n" && ext == "json")
    send(&state, .editorFinished("{\"name\": \"Ada\"}\n", error: nil))
    #expect(state.selectedRequest?.body == .json(["name": "Ada"]))
    // form keeps the fields, text the bytes.
    send(&state, .key(.enter))
    #expect(state.editor.choosing?.selection == 1)
    _ = keys(&state, "j")
    send(&state, .key(.enter))
    #expect(state.selectedRequest?.body == .form(JSONObject([("name", "Ada")])))
    // file asks the path on the body's line.
    send(&state, .key(.enter))
    _ = keys(&state, "G")
    send(&state, .key(.enter))
    #expect(state.editing != nil && state.editor.editingKind == .bodyFile)
    send(&state, .key(.enter))
    #expect(state.message?.isError == true && state.editing != nil)
    type(&state, "../outside")
    send(&state, .key(.enter))
    #expect(state.message?.isError == true && state.editing != nil)
    send(&state, .key(.ctrl("u")))
    type(&state, "data/photo.png")
    send(&state, .key(.enter))
    #expect(state.editing == nil && state.editor.editingKind == nil)
    #expect(state.selectedRequest?.body == .file("data/photo.png", contentType: nil))
    #expect(state.selectedRequest?.editorFields.contains { $0.kind == .bodyFile && $0.value == "data/photo.png" } == true)
    // none removes it.
    try selectField(&state, .body)
    send(&state, .key(.enter))
    _ = keys(&state, "g")
    send(&state, .key(.enter))
    #expect(state.selectedRequest?.body == nil)
  }

  @Test func jsonTypedForABodyWithoutATypeMakesAJSONBody() throws {
    var state = try stateWithNewPost()
    guard case .edit(let text, _)? = keys(&state, "E").first else { throw Failure("no edit command") }
    #expect(text.isEmpty)
    send(&state, .editorFinished("{\"id\": 1}\n", error: nil))
    #expect(state.selectedRequest?.body == .json(["id": 1]))
    #expect(state.message?.text.hasPrefix("body updated: JSON, so a json body (sent as application/json)") == true)
    // Other text is a text body without the editor's line break.
    var plain = try stateWithNewPost()
    _ = keys(&plain, "E")
    send(&plain, .editorFinished("hello\n", error: nil))
    #expect(plain.selectedRequest?.body == .text("hello", contentType: nil))
  }

  @Test func theAuthTypeIsChosenFromAListThenItsCredentialsTyped() throws {
    var state = try stateWithNewPost()
    try selectField(&state, .auth)
    send(&state, .key(.enter))
    #expect(state.editor.choosing?.purpose == .authKind)
    _ = keys(&state, "jj")  // bearer
    send(&state, .key(.enter))
    // The token is asked at once.
    let fields = try #require(state.selectedRequest?.editorFields)
    #expect(fields[state.editorField].kind == .authToken && state.editing != nil)
    type(&state, "{{secret.token}}")
    send(&state, .key(.enter))
    #expect(state.selectedRequest?.auth == .bearer("{{secret.token}}"))
    // basic: the user asked, then the password edited on its line, shown masked.
    try selectField(&state, .auth)
    send(&state, .key(.enter))
    _ = keys(&state, "k")
    send(&state, .key(.enter))
    #expect(state.selectedRequest?.auth == .basic(user: "", password: ""))
    type(&state, "ada")
    send(&state, .key(.enter))
    // The password is asked next.
    #expect(state.selectedRequest?.editorFields[state.editorField].kind == .authPassword && state.editing != nil)
    type(&state, "hunter 2")
    // Typed in the open, it goes to the secrets file as a pasted one does (TypedCredentialsTests).
    #expect(send(&state, .key(.enter)) == [.setSecret(name: "password", value: "hunter 2")])
    #expect(state.selectedRequest?.auth == .basic(user: "ada", password: "{{secret.password}}"))
    var buffer = ScreenBuffer(width: state.width, height: state.height)
    view(state, into: &buffer)
    #expect(buffer.text.contains("Password {{secret.password}}") && !buffer.text.contains("hunter"))
    // digest keeps the user and password.
    try selectField(&state, .auth)
    send(&state, .key(.enter))
    _ = keys(&state, "G")
    send(&state, .key(.enter))
    #expect(state.selectedRequest?.auth == .digest(user: "ada", password: "{{secret.password}}") && state.editing == nil)
    // none removes it, and its rows.
    send(&state, .key(.enter))
    _ = keys(&state, "g")
    send(&state, .key(.enter))
    #expect(state.selectedRequest?.auth == nil)
    #expect(state.selectedRequest?.editorFields.contains { $0.kind == .authUser } == false)
  }

  /// On a small screen the line asked for at once (the new token) is scrolled into view.
  @Test func theCredentialAskedForIsInView() throws {
    var state = try demoState(width: 80, height: 24)
    try selectField(&state, .auth)
    send(&state, .key(.enter))
    _ = keys(&state, "jj")
    send(&state, .key(.enter))
    #expect(state.editing != nil)
    var buffer = ScreenBuffer(width: state.width, height: state.height)
    view(state, into: &buffer)
    #expect(buffer.text.contains("  Token      "), "\(buffer.text)")
  }

  /// The `form` scenario (the user guide's screenshot): users/create's body type list open.
  @Test(arguments: [(160, 45), (80, 24)]) func snapshots(width: Int, height: Int) throws {
    let base = try demoState(width: width, height: height)
    let state = Scenario.form.state(workspace: base.workspace, file: base.workspaceFile, width: width, height: height)
    #expect(state.selectedRequest?.name == "users/create")
    #expect(state.editor.choosing == ChoiceList(.bodyKind, current: "form"))
    try assertSnapshot(state, "body-type-\(width)x\(height)")
  }
}

struct Failure: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
