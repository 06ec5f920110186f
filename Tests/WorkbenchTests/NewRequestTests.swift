import Foundation
import RequestEngine
import TerminalUI
import Testing
import Workbench
import Workspace

/// A state over an empty workspace whose file does not exist yet.
func emptyState(width: Int = 160, height: Int = 45) -> AppState {
  var state = AppState(workspace: Workspace(name: "api"), workspaceFile: "api.json", width: width, height: height)
  state.openedNewFile()
  return state
}

func type(_ state: inout AppState, _ text: String) {
  for c in text { _ = update(&state, .key(.char(c))) }
}

/// Starting from nothing: a missing file opens as an empty workspace that says how to begin;
/// `n` reads METHOD URL, a curl or HTTPie command or an .http request, then asks for the name.
@Suite("new workspace and n")
struct NewRequestTests {
  @Test(arguments: [(160, 45), (80, 24)]) func anEmptyNewWorkspaceSaysHowToBegin(width: Int, height: Int) throws {
    let state = emptyState(width: width, height: height)
    #expect(state.isNewFile)
    #expect(state.message?.text == "new workspace api.json, not saved yet")
    var buffer = ScreenBuffer(width: width, height: height)
    view(state, into: &buffer)
    #expect(buffer.text.contains("no requests yet"))
    #expect(buffer.line(height - 1).contains("api · new, not saved"))
    try assertSnapshot(state, "empty-new-\(width)x\(height)")
  }

  @Test func nThenMethodAndURLThenTheSuggestedNameMakesARequest() throws {
    var state = emptyState()
    #expect(keys(&state, "n") == [])
    #expect(state.prompt?.purpose == .newRequest)
    type(&state, "POST {{baseURL}}users")
    send(&state, .key(.enter))
    // The importer's name, selected: typing replaces it.
    guard case .nameNewRequest = state.prompt?.purpose else {
      Issue.record("no name prompt: \(String(describing: state.prompt))")
      return
    }
    #expect(state.prompt?.input.text == "post-users" && state.prompt?.input.selected == true)
    try assertSnapshot(state, "new-request-name-160x45")
    type(&state, "users/create")
    send(&state, .key(.enter))
    #expect(state.prompt == nil)
    let request = try #require(state.workspace.request(named: "users/create"))
    #expect(request.method == .POST && request.url == "{{baseURL}}users")
    #expect(state.selectedRequest?.name == "users/create")
    #expect(state.unsaved == ["users/create"])
    // It opens in the editor with the URL focused.
    #expect(state.focus == .editor)
    #expect(request.editorFields[state.editorField].kind == .url)
    #expect(state.message?.text == "added users/create (unsaved; Ctrl-S saves)")
    try assertSnapshot(state, "new-request-added-160x45")
    // The first save creates the file.
    #expect(send(&state, .key(.ctrl("s"))) == [.save])
    send(&state, .saved(error: nil))
    #expect(!state.isNewFile && state.unsaved.isEmpty && state.message?.text == "created api.json")
    // n again, the editor still focused: the next request (n did nothing there before).
    #expect(state.focus == .editor && keys(&state, "n") == [])
    #expect(state.prompt?.purpose == .newRequest)
    type(&state, "GET {{baseURL}}users")
    send(&state, .key(.enter), .key(.enter))
    #expect(state.workspace.requests.map(\.name) == ["users/create", "get-users"])
  }

  // HTTPie's `:3000/users`, curl's `example.com/api`: the URL field holds what will be sent.
  @Test func aSchemelessURLBecomesTheURLCurlOrHTTPieWouldSend() throws {
    var state = emptyState()
    for text in [":3000/users", "POST localhost:8080/items", "curl example.com/api"] {
      _ = keys(&state, "1n")
      type(&state, text)
      send(&state, .key(.enter))
      send(&state, .key(.enter))
    }
    #expect(state.workspace.requests.map(\.url) == ["http://localhost:3000/users", "http://localhost:8080/items", "http://example.com/api"])
    // Named from the URL sent, not from the host and port typed.
    #expect(state.workspace.requests.map(\.name) == ["get-users", "post-items", "get-api"])
    // A paste into the list is read the same way.
    _ = keys(&state, "1")
    send(&state, .paste(":8000/health"))
    #expect(state.workspace.requests.last?.url == "http://localhost:8000/health")
    #expect(state.workspace.requests.last?.name == "get-health")
    // With a baseURL, a path-like text stays relative to it.
    state.workspace.baseURL = "https://api.test/"
    _ = keys(&state, "1n")
    type(&state, "GET example.com/api")
    send(&state, .key(.enter))
    send(&state, .key(.enter))
    #expect(state.workspace.requests.last?.url == "example.com/api")
  }

  @Test func theSuggestedNameIsUniqueAndATakenOneIsRefused() throws {
    var state = emptyState()
    for _ in 0..<2 {
      _ = keys(&state, "1n")
      type(&state, "GET http://127.0.0.1:1/users")
      send(&state, .key(.enter))
      send(&state, .key(.enter))
    }
    #expect(state.workspace.requests.map(\.name) == ["get-users", "get-users-2"])
    _ = keys(&state, "1n")
    type(&state, "GET http://127.0.0.1:1/x")
    send(&state, .key(.enter))
    send(&state, .key(.ctrl("u")))
    type(&state, "get-users")
    send(&state, .key(.enter))
    #expect(state.prompt?.error == "get-users is taken; names are unique")
    #expect(state.workspace.requests.count == 2)
    send(&state, .key(.ctrl("u")))
    type(&state, "a//b")
    send(&state, .key(.enter))
    #expect(state.prompt?.error?.contains("folder name cannot be empty") == true)
  }

  /// A URL missing its colon after a method: an error at the URL, the text kept, nothing added.
  @Test func aURLMissingItsColonIsAnErrorAtItsPlace() throws {
    var state = emptyState()
    _ = keys(&state, "n")
    type(&state, "GET http//127.0.0.1:8080/get")
    send(&state, .key(.enter))
    #expect(state.prompt?.purpose == .newRequest)
    #expect(state.prompt?.input.text == "GET http//127.0.0.1:8080/get")
    #expect(state.prompt?.error == #"new request:1:5: "http//127.0.0.1…" is not a URL: did you mean http://?"#)
    #expect(state.workspace.requests.isEmpty)
  }

  /// Text that does not read as requests: the prompt stays with the text and says what and where;
  /// nothing is added; typing clears the error.
  @Test func anErrorSaysWhatAndWhereAndAddsNothing() throws {
    var state = emptyState()
    _ = keys(&state, "n")
    type(&state, "curl 'http://127.0.0.1:1/x")
    send(&state, .key(.enter))
    #expect(state.prompt?.purpose == .newRequest)
    #expect(state.prompt?.input.text == "curl 'http://127.0.0.1:1/x")
    #expect(state.prompt?.error?.hasPrefix("new request:1:6:") == true, "\(String(describing: state.prompt?.error))")
    #expect(state.workspace.requests.isEmpty)
    try assertSnapshot(state, "new-request-error-160x45")
    type(&state, "'")
    #expect(state.prompt?.error == nil)
    // A command that names a file to read is refused: update reads no files.
    send(&state, .key(.ctrl("u")))
    type(&state, "curl --data-urlencode a@note.txt http://127.0.0.1:1/x")
    send(&state, .key(.enter))
    #expect(state.prompt?.error?.contains("cannot read files") == true, "\(String(describing: state.prompt?.error))")
    #expect(state.workspace.requests.isEmpty)
    send(&state, .key(.escape))
    #expect(state.prompt == nil && state.workspace.requests.isEmpty)
  }

  @Test func severalRequestsAreAddedWithTheirNames() throws {
    var state = try demoState()
    let before = state.workspace.requests.count
    _ = keys(&state, "n")
    type(&state, "curl http://127.0.0.1:1/a ; curl -X DELETE http://127.0.0.1:1/b")
    send(&state, .key(.enter))
    #expect(state.prompt == nil)
    #expect(state.workspace.requests.count == before + 2)
    #expect(state.message?.text.hasPrefix("added 2 requests: ") == true)
  }
}
