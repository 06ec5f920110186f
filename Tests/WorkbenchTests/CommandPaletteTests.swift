import Foundation
import RequestEngine
import Testing
import Workbench
import Workspace

/// `:` and Ctrl-P: every action of the key table by name, filtered as typed, its key beside it;
/// Enter runs it as its key would.
@Suite("update: the command palette")
struct CommandPaletteTests {
  @Test func itListsTheKeyTablesActionsWithTheirKeys() throws {
    var state = try demoState()
    _ = keys(&state, ":")
    #expect(state.overlay == .palette && state.keyContext == .palette)
    let entries = state.paletteEntries
    // Each entry is a binding of the one table, once per action; moving is left to the keys.
    #expect(Set(entries.map(\.action)).count == entries.count)
    for entry in entries {
      #expect(
        Keymap.bindings.contains { $0.action == entry.action && $0.keyText == entry.keys && $0.help == entry.help
          && $0.contexts.contains(entry.context) }, "\(entry)")
    }
    #expect(!entries.contains { [.down, .up, .pageDown, .first, .openPalette].contains($0.action) })
    let batch = try #require(entries.first { $0.action == .batchFromMarked })
    #expect(batch.keys == "b" && batch.pane == .requests)
    #expect(entries.first { $0.action == .chainFromMarked }?.keys == "B")
    // The focused pane's first, then everywhere's, then the other panes' (jq is the response's).
    #expect(entries.first?.action == .send && entries.first?.pane == .requests)
    #expect(entries.first { $0.action == .jq }?.pane == .response)
    #expect(entries.first { $0.action == .save }?.pane == nil)
    try assertSnapshot(state, "palette-160x45")
    send(&state, .key(.escape))
    #expect(state.overlay == nil)
  }

  @Test func typingFiltersAndEnterRunsTheAction() throws {
    var state = try demoState()
    send(&state, .key(.ctrl("p")))
    #expect(state.overlay == .palette)
    type(&state, "dupl")
    #expect(state.paletteMatches.first?.action == .duplicateRequest)
    send(&state, .key(.enter))
    #expect(state.overlay == nil)
    #expect(state.selectedRequest?.name == "users/list-2" && state.workspace.request(named: "users/list-2") != nil)
    // Words in any place, the closest first; letters in order match too, after them.
    _ = keys(&state, ":")
    type(&state, "batch mark")
    #expect(state.paletteMatches.first?.action == .batchFromMarked)
    send(&state, .key(.ctrl("u")))
    type(&state, "chain of marked")
    #expect(state.paletteMatches.first?.action == .chainFromMarked)
    send(&state, .key(.escape))
    #expect(PaletteState.filter(state.paletteEntries, "dpl").contains { $0.action == .duplicateRequest })
  }

  @Test func aChainOfTheMarkedInMarkingOrderFromThePalette() throws {
    var state = try demoState()
    state.selectRequest(named: "auth/login")
    _ = keys(&state, " ")
    state.selectRequest(named: "auth/me")
    _ = keys(&state, " ")
    #expect(state.marked == ["auth/login", "auth/me"])
    _ = keys(&state, ":")
    type(&state, "chain of the marked")
    send(&state, .key(.enter))
    #expect(state.prompt?.purpose == .nameFlow(.chain, members: ["auth/login", "auth/me"]))
    send(&state, .key(.ctrl("u")))
    type(&state, "sign-in")
    send(&state, .key(.enter))
    #expect(state.workspace.chain(named: "sign-in")?.steps.map(\.request) == ["auth/login", "auth/me"])
  }

  @Test func anotherPanesActionMovesTheFocusThereAsItsKeyWould() throws {
    var byPalette = try demoState()
    _ = keys(&byPalette, ":")
    type(&byPalette, "wrap long lines")
    send(&byPalette, .key(.enter))
    var byKeys = try demoState()
    _ = keys(&byKeys, "3W")
    #expect(byPalette.focus == .response && byPalette.viewer.wrap && byKeys.viewer.wrap)
    #expect(byPalette.message == byKeys.message)
  }

  @Test func nothingMatchedSaysSoAndAPasteIsTyped() throws {
    var state = try demoState()
    _ = keys(&state, ":")
    send(&state, .paste("zzzq"))
    #expect(state.palette.query.text == "zzzq" && state.paletteMatches.isEmpty)
    #expect(state.workspace.requests.count == (try demoState()).workspace.requests.count)
    send(&state, .key(.enter))
    #expect(state.overlay == nil && state.message?.text == "no action matches \"zzzq\"")
    // Down and up stay within the matches.
    _ = keys(&state, ":")
    send(&state, .key(.up), .key(.down), .key(.down))
    #expect(state.palette.selection == 2)
  }
}
