import Foundation
import RequestEngine
import TerminalUI
import Testing
import Workbench
import Workspace

/// The editor's form for a batch or chain: every line edited as a request's fields are.
@Suite("update: the batch and chain form")
struct FlowFormTests {
  /// The demo with `name` selected in the list and the editor focused.
  func editing(_ name: String, width: Int = 160, height: Int = 45) throws -> AppState {
    var state = try demoState(width: width, height: height)
    let selected = state.selectFlow(named: name)
    #expect(selected)
    _ = keys(&state, "2")
    #expect(state.keyContext == .flowEditor)
    return state
  }

  /// Moves the editor's selection to the first line of `kind`.
  func select(_ state: inout AppState, _ kind: FlowField.Kind) {
    let fields = state.workspace.flowFields(state.selectedFlow?.name ?? "")
    guard let index = fields.firstIndex(where: { $0.kind == kind }) else {
      Issue.record("no line \(kind)")
      return
    }
    state.editorField = index
  }

  /// Types `text` on the selected line (Enter opens it, the text replaces what it held) and keeps it.
  @discardableResult
  func type(_ state: inout AppState, _ text: String, keep: Key = .enter) -> [Command] {
    send(&state, .key(.enter))
    send(&state, .key(.ctrl("u")))
    _ = keys(&state, text)
    return send(&state, .key(keep))
  }

  @Test func theHintsAreTheFormsAndEachKeyActs() throws {
    var state = try editing("smoke")
    let hints = Keymap.hints(in: .flowEditor).hints
    #expect(hints.contains("e edit") && hints.contains("s run") && hints.contains("d remove") && hints.contains("</> move"))
    #expect(!hints.contains("e edit field"))
    #expect(keys(&state, "s") == [.runFlow(name: "smoke", fromStep: 1, captured: [:])])
    select(&state, .concurrency)
    send(&state, .key(.char("e")))
    #expect(state.editing?.text == "4")
    send(&state, .key(.escape))
    #expect(state.editing == nil)
    #expect(Keymap.conflicts.isEmpty)
  }

  @Test func aBatchsMembersAreAddedRemovedAndMoved() throws {
    var state = try editing("smoke")
    select(&state, .addMember)
    _ = type(&state, "auth/me")
    #expect(state.workspace.batch(named: "smoke")?.members.last == "auth/me")
    #expect(state.unsaved.contains("smoke"))
    // The + line again, to add another.
    #expect(state.workspace.flowFields("smoke")[state.editorField].kind == .addMember)
    // An unknown name is refused, the edit stays open with why.
    _ = type(&state, "users/gte")
    #expect(state.message?.isError == true)
    #expect(state.message?.text.contains("no request or chain named \"users/gte\"") == true)
    #expect(state.editing != nil)
    send(&state, .key(.escape))
    select(&state, .member(0))
    _ = keys(&state, ">")
    #expect(state.workspace.batch(named: "smoke")?.members.prefix(2) == ["users/get", "users/list"])
    #expect(state.workspace.flowFields("smoke")[state.editorField].kind == .member(1))
    _ = keys(&state, "d")
    #expect(state.workspace.batch(named: "smoke")?.members == ["users/get", "login-flow", "files/small-json", "auth/me"])
    // Enter on a member changes it; an empty one removes it.
    select(&state, .member(0))
    _ = type(&state, "")
    #expect(state.workspace.batch(named: "smoke")?.members.first == "login-flow")
  }

  @Test func tabCompletesARequestName() throws {
    var state = try editing("smoke")
    select(&state, .addMember)
    send(&state, .key(.enter))
    _ = keys(&state, "auth/l")
    send(&state, .key(.tab))
    #expect(state.editing?.text == "auth/login")
    send(&state, .key(.enter))
    #expect(state.workspace.batch(named: "smoke")?.members.last == "auth/login")
  }

  @Test func aBatchsModeAndConcurrency() throws {
    var state = try editing("smoke")
    select(&state, .policy)
    send(&state, .key(.enter))
    #expect(state.keyContext == .choice)
    send(&state, .key(.up), .key(.enter))
    #expect(state.workspace.batch(named: "smoke")?.policy == .failFast)
    select(&state, .concurrency)
    _ = type(&state, "0")
    #expect(state.message?.isError == true)
    send(&state, .key(.escape))
    #expect(type(&state, "2", keep: .ctrl("s")) == [.save])
    #expect(state.workspace.batch(named: "smoke")?.concurrency == 2)
  }

  @Test func aChainsStepsAndCaptures() throws {
    var state = try editing("login-flow")
    // A capture added to step 2.
    select(&state, .addCapture(step: 1))
    _ = type(&state, "name = .user.name")
    let step = state.workspace.chain(named: "login-flow")?.steps[1]
    #expect(step?.capture.map(\.name) == ["name"])
    #expect(step?.capture.first?.source == .jq(".user.name"))
    #expect(state.unsaved.contains("login-flow"))
    // An invalid jq path is refused with jq's reason.
    _ = type(&state, "x = .user.[")
    #expect(state.message?.isError == true)
    #expect(state.message?.text.contains("does not compile") == true)
    send(&state, .key(.escape))
    // One edited, one removed, one moved.
    select(&state, .capture(step: 0, index: 0))
    _ = type(&state, "jwt = .token")
    #expect(state.workspace.chain(named: "login-flow")?.steps[0].capture.first?.name == "jwt")
    _ = keys(&state, ">")
    #expect(state.workspace.chain(named: "login-flow")?.steps[0].capture.map(\.name) == ["uid", "jwt", "etag", "code"])
    _ = keys(&state, "d")
    #expect(state.workspace.chain(named: "login-flow")?.steps[0].capture.map(\.name) == ["uid", "etag", "code"])
    // Steps: added, moved, removed; the last one stays.
    select(&state, .addStep)
    _ = type(&state, "users/list")
    #expect(state.workspace.chain(named: "login-flow")?.steps.map(\.request) == ["auth/login", "auth/me", "users/get", "users/list"])
    select(&state, .step(3))
    _ = keys(&state, "<")
    #expect(state.workspace.chain(named: "login-flow")?.steps.map(\.request) == ["auth/login", "auth/me", "users/list", "users/get"])
    for _ in 0..<4 {
      select(&state, .step(0))
      _ = keys(&state, "d")
    }
    #expect(state.workspace.chain(named: "login-flow")?.steps.map(\.request) == ["users/get"])
    #expect(state.message?.text.contains("at least one step") == true)
    // Quitting names it as what it is.
    send(&state, .key(.char("q")))
    #expect(screenText(state).contains("1 batch or chain has unsaved changes: login-flow"))
  }

  @Test func onFailureIsChosenAndVarsSayWhereTheyAreEdited() throws {
    var state = try editing("login-flow")
    select(&state, .onFailure)
    send(&state, .key(.enter), .key(.down), .key(.enter))
    #expect(state.workspace.chain(named: "login-flow")?.onFailure == .continue)
    select(&state, .vars(step: 2))
    send(&state, .key(.enter))
    #expect(state.editing == nil)
    #expect(state.message?.text.contains("workspace file") == true)
  }

  @Test func aCaptureIsPreviewedAgainstItsStepsLastResponse() throws {
    var state = try editing("login-flow")
    // No response yet: nothing to run, and the form says so.
    #expect(send(&state, .tick(epoch)).isEmpty)
    #expect(screenText(state).contains("no response yet"))
    let login = try state.workspace.prepare(state.workspace.request(named: "auth/login")!, sources: state.sources)
    let events = exchangeEvents(id: 7, request: login, body: #"{"token": "abc", "user": {"id": 1}}"#)
    var commands: [Command] = []
    for event in events { commands += send(&state, event) }
    let id = ExchangeID(rawValue: 7)
    let key = CapturePreviewKey(exchange: id, source: ".token")
    #expect(commands.contains(.previewCapture(.jq(".token"), key)))
    #expect(commands.contains(.previewCapture(.status, CapturePreviewKey(exchange: id, source: "status"))))
    // Asked once.
    #expect(send(&state, .tick(epoch)).isEmpty)
    send(&state, .capturePreviewed(key, .value("abc")))
    send(&state, .capturePreviewed(CapturePreviewKey(exchange: id, source: "header:ETag"), .failed("the response has no header ETag")))
    let text = screenText(state)
    #expect(text.contains("token = .token  → abc"))
    #expect(text.contains("✗ the response has no header ETag"))
  }

  @Test(arguments: [("smoke", "batch-form"), ("login-flow", "chain-form")])
  func theFormsView(name: String, snapshot: String) throws {
    var state = try editing(name)
    if name == "login-flow" {
      let login = try state.workspace.prepare(state.workspace.request(named: "auth/login")!, sources: state.sources)
      for event in exchangeEvents(id: 7, request: login, body: #"{"token": "abc", "user": {"id": 1}}"#) { send(&state, event) }
      let id = ExchangeID(rawValue: 7)
      send(&state, .capturePreviewed(CapturePreviewKey(exchange: id, source: ".token"), .value("abc")))
      send(&state, .capturePreviewed(CapturePreviewKey(exchange: id, source: ".user.id"), .value("1")))
      send(&state, .capturePreviewed(CapturePreviewKey(exchange: id, source: "header:ETag"), .failed("the response has no header ETag")))
      send(&state, .capturePreviewed(CapturePreviewKey(exchange: id, source: "status"), .value("200")))
      _ = keys(&state, "2")
      select(&state, .addCapture(step: 1))
      _ = type(&state, "name = .user.name")
    } else {
      select(&state, .addMember)
      send(&state, .key(.enter))
      _ = keys(&state, "users/")
    }
    try assertSnapshot(state, "\(snapshot)-160x45")
  }
}
