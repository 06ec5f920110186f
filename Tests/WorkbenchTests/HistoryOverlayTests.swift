import Foundation
import History
import RequestEngine
import TerminalUI
import TestSupport
import Testing
@testable import Workbench
import Workspace

/// `H`: the history of every request over the panes, as `update` drives it (the runtime's
/// answers are entries recorded by a real store).
@Suite("update: the history overlay")
struct HistoryOverlayTests {
  let folder = scratchURL("rb-ho")

  /// Three recorded exchanges of two requests, newest first.
  func recorded() throws -> (HistoryStore, [HistoryEntry]) {
    let store = HistoryStore(stateFolder: folder)
    for (id, name, body) in [(1, "users/list", "[1]"), (2, "users/create", #"{"name": "Ada"}"#), (3, "users/list", "[1, 2]")] {
      let request = Request(
        name: name, method: name == "users/create" ? .POST : .GET, url: "http://127.0.0.1:8080/users",
        body: name == "users/create" ? RequestBody(bytes: Array(body.utf8), contentType: "application/json") : .empty)
      let events = Scenario.exchange(id: UInt64(id), request: request, body: body, duration: 0.01)
      guard case .agent(.finished(var result)) = events[3] else { throw CancellationError() }
      result.finishedAt = Scenario.epoch.addingTimeInterval(Double(id))
      try store.record(result, name: name)
    }
    return (store, try store.entries())
  }

  @Test func filtersAsYouTypeAndShowsOnlyTheLatestAnswer() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let (store, entries) = try recorded()
    var state = try demoState()
    let opened = keys(&state, "H")
    #expect(state.overlay == .history)
    #expect(opened == [.searchHistory(HistoryQuery(text: "", limit: 500), id: 1)])
    let typed = keys(&state, "cre")
    #expect(typed.last == .searchHistory(HistoryQuery(text: "cre", limit: 500), id: 4), "a search per key")
    #expect(state.historyOverlay.filter.text == "cre", "typing goes to the filter, not to the panes")
    // An answer to an earlier search is dropped; the latest is shown.
    send(&state, .historyFound(id: 1, HistoryResults(entries: entries), error: nil))
    #expect(state.historyOverlay.entries.isEmpty)
    let found = try store.entries(matching: HistoryQuery(text: "cre", limit: 500))
    send(&state, .historyFound(id: 4, found, error: nil))
    #expect(state.historyOverlay.entries.map(\.name) == ["users/create"])
    // Esc clears the filter first, then closes.
    _ = send(&state, .key(.escape))
    #expect(state.overlay == .history && state.historyOverlay.filter.text.isEmpty)
    _ = send(&state, .key(.escape))
    #expect(state.overlay == nil)
  }

  @Test func enterShowsTheExchangeAndBracketsGoOnFromIt() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let (store, entries) = try recorded()
    var state = try demoState()
    _ = keys(&state, "H")
    send(&state, .historyFound(id: 1, HistoryResults(entries: entries), error: nil))
    _ = send(&state, .key(.down), .key(.down))
    let commands = send(&state, .key(.enter))
    #expect(commands == [.loadHistoryEntry(entries[2])])
    #expect(state.overlay == nil && state.focus == .response)
    // The runtime's answer: the oldest users/list entry, position 1 of 2.
    let position = try store.position(of: entries[2])
    #expect(position == 1)
    let (entry, count) = try #require(try store.entry(of: "users/list", at: position))
    send(&state, .historyShown(HistoryView(entry: entry, body: try store.body(of: entry), position: position, count: count), error: nil))
    #expect(state.viewer.history?.entry.id == entries[2].id)
    #expect(keys(&state, "]") == [.showHistory(name: "users/list", position: 0)])
  }

  @Test func onTheListSSendsAgainAndOOpensAsANewRequest() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let (store, entries) = try recorded()
    var state = try demoState()
    _ = keys(&state, "H")
    send(&state, .historyFound(id: 1, HistoryResults(entries: entries), error: nil))
    _ = send(&state, .key(.tab))
    #expect(state.keyContext == .historyList)
    _ = keys(&state, "j")
    let create = entries[1]
    #expect(keys(&state, "o") == [.loadHistoryEntry(create)])
    let view = HistoryView(
      entry: create, body: try store.body(of: create), requestBody: try store.requestBody(of: create), position: 0, count: 1)
    send(&state, .historyShown(view, error: nil))
    let copy = try #require(state.workspace.request(named: "users/create-2"))
    #expect(copy.method == .POST && copy.url == "http://127.0.0.1:8080/users")
    #expect(copy.body == .json(["name": "Ada"]))
    #expect(state.unsaved.contains("users/create-2") && state.selectedRequest?.name == "users/create-2")
    #expect(state.message?.text.hasPrefix("copied as users/create-2") == true)

    _ = keys(&state, "H")
    send(&state, .historyFound(id: 1, HistoryResults(entries: entries), error: nil))
    _ = send(&state, .key(.tab))
    #expect(keys(&state, "s") == [.loadHistoryEntry(entries[0])])
    let newest = HistoryView(entry: entries[0], body: try store.body(of: entries[0]), position: 0, count: 2)
    let sent = send(&state, .historyShown(newest, error: nil))
    guard case .send(let request) = sent.first else {
      Issue.record("s sends it again: \(sent)")
      return
    }
    #expect(request.name == "users/list" && request.url == "http://127.0.0.1:8080/users")
  }

  /// A recording's masked credential is the workspace's own when its request still has the
  /// header; without the request it stays masked and the message says to fill it in.
  @Test func openingAsANewRequestTakesAMaskedHeaderFromTheWorkspace() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = HistoryStore(stateFolder: folder)
    let request = Request(
      name: "me", url: "http://127.0.0.1:8080/me", headers: ["Authorization": "Bearer tok-5ecret", "Accept": "*/*"],
      secrets: ["tok-5ecret"])
    guard case .agent(.finished(let result)) = Scenario.exchange(id: 1, request: request, body: "{}", duration: 0.01)[3] else {
      throw CancellationError()
    }
    try store.record(result, name: "me")
    let entry = try #require(try store.entries().first)
    #expect(entry.requestHeaders["Authorization"] == "Bearer ••••")
    func opened(in workspace: Workspace) throws -> AppState {
      var state = AppState(workspace: workspace, workspaceFile: "api.json", width: 160, height: 45)
      _ = keys(&state, "H")
      send(&state, .historyFound(id: 1, HistoryResults(entries: [entry]), error: nil))
      _ = send(&state, .key(.tab))
      _ = keys(&state, "o")
      send(&state, .historyShown(HistoryView(entry: entry, body: [], position: 0, count: 1), error: nil))
      return state
    }
    var workspace = Workspace(name: "api")
    try workspace.addRequest(
      RequestTemplate(name: "me", url: "http://127.0.0.1:8080/me", headers: ["Authorization": "Bearer {{secret.token}}"]),
      placement: .inFolder)
    let state = try opened(in: workspace)
    let copy = try #require(state.workspace.request(named: "me-2"))
    #expect(copy.headers["Authorization"] == "Bearer {{secret.token}}" && copy.headers["Accept"] == "*/*")
    #expect(state.message?.text == "copied as me-2 (unsaved; Ctrl-S saves)")
    let alone = try opened(in: Workspace(name: "api"))
    #expect(alone.workspace.request(named: "me")?.headers["Authorization"] == "Bearer ••••")
    #expect(alone.message?.text == "copied as me (unsaved; Ctrl-S saves); fill in the masked secrets (••••)")
  }

  @Test func theOverlayOnScreen() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let (_, entries) = try recorded()
    var state = try demoState(width: 100, height: 24)
    _ = keys(&state, "H")
    send(&state, .historyFound(id: 1, HistoryResults(entries: entries, damaged: 1), error: nil))
    var buffer = ScreenBuffer(width: 100, height: 24)
    view(state, into: &buffer)
    let text = buffer.text
    #expect(text.contains("History · 3"))
    #expect(text.contains("filter:"))
    #expect(text.contains("users/create") && text.contains("POST"))
    #expect(text.contains("1 damaged skipped"))
    _ = keys(&state, "zzz")
    send(&state, .historyFound(id: 4, HistoryResults(), error: nil))
    view(state, into: &buffer)
    #expect(buffer.text.contains("nothing in history matches"))
    // Esc clears a typed filter before it closes, and the keys line says which it does.
    #expect(buffer.text.contains("Esc clears the filter"))
    _ = send(&state, .key(.escape))
    #expect(state.overlay != nil)
    view(state, into: &buffer)
    #expect(buffer.text.contains("Esc close") && !buffer.text.contains("Esc clears the filter"))
    _ = send(&state, .key(.escape))
    #expect(state.overlay == nil)
  }

  /// The overlay as a user first sees it, at the two sizes of the other snapshots.
  @Test(arguments: [(80, 24), (160, 45)]) func theOverlaySnapshot(width: Int, height: Int) throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let (_, entries) = try recorded()
    var state = try demoState(width: width, height: height)
    _ = keys(&state, "H")
    send(&state, .historyFound(id: 1, HistoryResults(entries: entries, damaged: 0), error: nil))
    try assertSnapshot(state, "history-overlay-\(width)x\(height)")
  }
}
