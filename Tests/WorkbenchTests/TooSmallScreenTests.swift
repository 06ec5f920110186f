import Foundation
import TerminalUI
import Testing
import Workbench

/// A screen too small for the panes says so in whole words, at any size.
@Suite("view: the too-small screen")
struct TooSmallScreenTests {
  func rows(width: Int, height: Int) throws -> [String] {
    let state = try demoState(width: width, height: height)
    var buffer = ScreenBuffer(width: width, height: height)
    view(state, into: &buffer)
    return buffer.lines().map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
  }

  @Test func atTwentyByFiveTheInstructionIsWholeInWords() throws {
    let shown = try rows(width: 20, height: 5)
    #expect(shown.first == "terminal too small")
    #expect(shown.joined(separator: " ").hasSuffix("make the window larger, or press q to quit"), "\(shown)")
    // Every word shown is whole: no row ends inside a word of the notice.
    let words = Set("terminal too small reqbench needs this one is make the window larger, or press q to quit".split(separator: " ").map(String.init))
    for word in shown.joined(separator: " ").split(separator: " ") where !word.contains("×") {
      #expect(words.contains(String(word)), "\(word) is cut: \(shown)")
    }
  }

  @Test func withRoomTheSizesAreSaidToo() throws {
    let shown = try rows(width: 50, height: 10)
    #expect(shown == ["terminal too small", "reqbench needs 60×16, this one is 50×10", "make the window larger, or press q to quit"])
  }

  @Test func whatDoesNotFitEndsWithAnEllipsis() throws {
    let shown = try rows(width: 12, height: 3)
    #expect(shown.count == 3)
    #expect(shown.last?.hasSuffix("…") == true, "\(shown)")
  }
}
