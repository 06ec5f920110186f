import Foundation
import TerminalUI
import Testing
import Workbench

/// Marked requests show their place in the marking order, past 9 too.
@Suite("view: the marking order past nine")
struct MarkOrderTests {
  @Test func twelveMarksShowTheirNumbersInAColumnOfTheirWidth() throws {
    var state = try demoState(width: 160, height: 45)
    let names = state.workspace.requests.map(\.name)
    #expect(names.count >= 12)
    let marked = Array(names.prefix(12))
    for name in marked.reversed() {  // marked last to first: the list's order is not the marks'
      state.selectRequest(named: name)
      _ = keys(&state, " ")
    }
    #expect(state.marked == marked.reversed())
    var buffer = ScreenBuffer(width: 160, height: 45)
    view(state, into: &buffer)
    let lines = buffer.lines()
    for (place, name) in marked.reversed().enumerated() {
      let leaf = String(name.split(separator: "/").last ?? "")
      let method = state.workspace.request(named: name)?.method.rawValue ?? "?"
      let number = place + 1 < 10 ? " \(place + 1)" : "\(place + 1)"
      #expect(
        lines.contains { $0.contains(number + method) && $0.contains(leaf) },
        "\(name) should show \(place + 1): \(lines.prefix(30).joined(separator: "\n"))")
    }
    #expect(!lines.contains { $0.contains("+GET") || $0.contains("+POST") })
  }
}
