import Foundation
import RequestEngine
import TerminalUI
import Testing
import Workspace

@testable import Workbench

@Suite("update: one modal at a time")
struct ModalTests {
  /// A prompt opened from an overlay is the one modal on top; Esc closes it and the overlay is
  /// back, a second Esc closes that.
  @Test func escClosesTheTopModalOnly() throws {
    var state = try demoState()
    _ = keys(&state, "V")
    #expect(state.overlay == .variables && state.keyContext == .variables)
    _ = keys(&state, "a")
    #expect(state.overlay == nil && state.prompt != nil && state.keyContext == .prompt)
    // The prompt takes the keys: `?` is typed, no help opens under or over it.
    _ = keys(&state, "?")
    #expect(state.prompt?.input.text == "?" && state.overlay == nil)
    send(&state, .key(.escape))
    #expect(state.prompt == nil && state.overlay == .variables)
    send(&state, .key(.escape))
    #expect(state.prompt == nil && state.overlay == nil && state.keyContext == .requests)
  }

  /// An overlay opened from another takes its place; a question replaces nothing under it.
  @Test func anOverlayOpenedFromAnotherReplacesIt() throws {
    var state = try demoState()
    _ = keys(&state, "V")
    _ = keys(&state, "v")
    #expect(state.overlay == .environments)
    send(&state, .key(.escape))
    #expect(state.overlay == nil && state.prompt == nil)
  }

  /// `d` asks on the status line: its context is the question's; any other key (Esc) drops it
  /// and the panes have the keys again.
  @Test func aQuestionIsTheTopModal() throws {
    var state = try demoState()
    _ = keys(&state, "d")
    #expect(state.pendingDelete != nil && state.keyContext == .confirmDelete && state.overlay == nil)
    // Its key is not the list's: `?` keeps the request rather than opening the help.
    _ = keys(&state, "?")
    #expect(state.pendingDelete == nil && state.overlay == nil && state.message?.text.hasPrefix("kept ") == true)
    _ = keys(&state, "?")
    #expect(state.overlay == .help)
  }

  /// With a transfer running, `q` asks; the status line then shows the question's keys, from
  /// the key table, not the list's.
  @Test func theQuitQuestionShowsItsOwnKeys() throws {
    var state = try demoState()
    send(&state, .agent(.queued(ExchangeID(rawValue: 1), Request(name: "x", url: "http://h.test/"))))
    _ = keys(&state, "q")
    #expect(state.overlay == .confirmQuit && state.keyContext == .confirmQuit)
    let statusLine = try #require(screenText(state).split(separator: "\n").last.map(String.init))
    #expect(statusLine.contains("y cancel them and quit · Ctrl-C quit at once"), "\(statusLine)")
    #expect(!statusLine.contains("Enter send") && !statusLine.contains("q quit"), "\(statusLine)")
    for hint in state.statusHints.hints {
      let key = try #require(Keymap.bindings.first { Keymap.hintText($0, in: .confirmQuit) == hint }?.keys.first)
      #expect(Keymap.action(for: key, in: .confirmQuit) != nil, "\(hint) is a key of the quit question")
    }
    // Any other key stays; the list's hints come back.
    _ = keys(&state, "n")
    #expect(state.overlay == nil && state.message?.text == "not quitting; C cancels every transfer")
  }

  /// Every registered overlay's footer is made of keys the table binds, in its context, to the
  /// action the footer names.
  @Test func everyOverlayFooterComesFromTheKeyTable() throws {
    var state = try demoState()
    var history = HistoryOverlayState()
    history.damaged = 2
    var historyList = HistoryOverlayState()
    historyList.typing = false
    var cookies = CookiesOverlayState()
    cookies.cookies = []
    let overlays: [any Overlay] = [
      HelpOverlay(), QuitQuestion(), UnsavedChangesQuestion(), DiskConflictQuestion(), history, historyList,
      EnvironmentOverlayState(), VariablesOverlayState(), CopyMenuState(), PaletteState(), cookies,
      AuthorizationOverlay(),
    ]
    let covered = Set(overlays.map { type(of: $0).id })
    #expect(covered == Set(Overlays.registered.map { $0.id }), "every registered overlay is checked")
    for overlay in overlays {
      state.open(overlay)
      let footer = overlay.footer(in: state)
      #expect(!footer.shownKeys.isEmpty, "\(type(of: overlay).id) shows keys")
      for shown in footer.shownKeys {
        #expect(
          Keymap.action(for: shown.key, in: shown.context) == shown.action,
          "\(type(of: overlay).id): \(shown.key.name) is bound to \(shown.action) in \(shown.context)")
      }
      // The footer's keys are those of the overlay's own context (or the line editing under it).
      let context = overlay.keyContext(in: state)
      let allowed: Set<KeyContext> = context == .historyFilter ? [.historyFilter, .historyList] : [context, .lineEdit]
      #expect(footer.shownKeys.allSatisfy { allowed.contains($0.context) }, "\(type(of: overlay).id)")
    }
  }

  /// An action that opens an overlay opens the registered one.
  @Test func theRegistryOpensOverlaysByAction() throws {
    for overlay in Overlays.registered {
      guard let action = overlay.openedBy else { continue }
      var state = try demoState()
      _ = state.perform(action, in: .requests)
      #expect(state.overlay == overlay.id, "\(action) opens \(overlay.id)")
    }
  }
}
