import Foundation
import TerminalUI
import Testing
import Workbench

/// The one key table: no key means two things in one place, every action has a key, and what
/// the help and the status bar show is the table's.
@Suite("keys: the one table")
struct KeymapTests {
  @Test func noKeyIsBoundTwiceInOnePlace() {
    let conflicts = Keymap.conflicts.map { "\($0.context): \($0.key.name) → \($0.actions)" }
    #expect(conflicts.isEmpty, "\(conflicts)")
  }

  @Test func everyActionHasAKey() {
    let bound = Set(Keymap.bindings.map(\.action))
    #expect(Action.allCases.filter { !bound.contains($0) }.isEmpty)
    #expect(Keymap.bindings.allSatisfy { !$0.keys.isEmpty && !$0.help.isEmpty && !$0.contexts.isEmpty })
  }

  @Test func eachBindingsKeysMeanItsActionWhereItApplies() {
    for binding in Keymap.bindings {
      for context in binding.contexts {
        for key in binding.keys {
          #expect(Keymap.action(for: key, in: context) == binding.action, "\(key.name) in \(context)")
        }
      }
    }
    // The panes' keys work in every pane; not in a prompt or an overlay.
    #expect(Keymap.action(for: .char("q"), in: .response) == .quit)
    #expect(Keymap.action(for: .char("q"), in: .prompt) == nil)
    #expect(Keymap.action(for: .char("q"), in: .help) == nil)
  }

  @Test func theHelpListsEveryBindingBySection() {
    var expected: [Keymap.HelpLine] = []
    for section in KeySection.allCases {
      expected.append(.heading(section.title))
      for binding in Keymap.bindings where binding.section == section {
        expected.append(.binding(keys: binding.keyText, help: binding.help))
      }
      if let note = section.note { expected.append(.note(note)) }
    }
    #expect(Keymap.helpLines == expected)
    #expect(Keymap.bindings.first { $0.action == .send }?.keyText == "Enter s r")
    // A capital letter whose small one is bound too is written once.
    #expect(Keymap.bindings.first { $0.action == .saveAndQuit }?.keyText == "s y Enter")
  }

  @Test func theStatusBarHintsComeFromTheTable() throws {
    let requests = Keymap.hints(in: .requests)
    #expect(requests.hints == ["Enter send", "n new", "S no cache", "/ filter", "c cancel", "E body", "v env", "? help", ": commands", "q quit"])
    #expect(requests.essential == ["? help", "q quit"])
    #expect(Keymap.hints(in: .response).hints.contains("n/N next"))
    #expect(Keymap.hints(in: .editor).hints.contains("Ctrl-S save"))
    #expect(Keymap.hints(in: .flowInList).hints == ["n new", "/ filter", "Enter run", "c cancel", "r resume", "? help", "q quit"])
    // What the status bar draws.
    var state = try demoState()
    var buffer = ScreenBuffer(width: 160, height: 45)
    view(state, into: &buffer)
    #expect(buffer.line(44).hasSuffix(requests.hints.joined(separator: " · ")))
    _ = keys(&state, "2")
    view(state, into: &buffer)
    #expect(buffer.line(44).hasSuffix(Keymap.hints(in: .editor).hints.joined(separator: " · ")))
  }

  @Test func theMarkdownHasATablePerSection() {
    let markdown = Keymap.markdown
    for section in KeySection.allCases { #expect(markdown.contains("| \(section.title) | |\n|---|---|\n")) }
    #expect(markdown.contains("| \\| | filter the JSON body with jq |"))  // `|` escaped in a table
  }
}
