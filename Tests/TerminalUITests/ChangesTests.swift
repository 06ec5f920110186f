import TestSupport
import Testing

@testable import TerminalUI

@Suite("ScreenBuffer.changes(since:)")
struct ChangesTests {
  @Test func noPreviousFrameMeansEveryCell() {
    var frame = ScreenBuffer(width: 3, height: 2)
    frame.put("ab", x: 0, y: 0)
    let runs = frame.changes(since: nil)
    #expect(runs.count == 2)
    #expect(runs.map(\.y) == [0, 1])
    #expect(runs.allSatisfy { $0.x == 0 && $0.cells.count == 3 })
    #expect(runs[0].cells.map(\.text) == ["a", "b", " "])
  }

  @Test func aSizeChangeMeansEveryCell() {
    let old = ScreenBuffer(width: 3, height: 2)
    let new = ScreenBuffer(width: 4, height: 2)
    #expect(new.changes(since: old).map(\.cells.count) == [4, 4])
    #expect(ScreenBuffer(width: 0, height: 5).changes(since: nil).isEmpty)
  }

  @Test func anIdenticalFrameHasNoChanges() {
    var frame = ScreenBuffer(width: 10, height: 3)
    frame.box(frame.bounds, title: "t")
    #expect(frame.changes(since: frame).isEmpty)
  }

  @Test func oneChangedCellIsOneRunOfOneCell() {
    let old = ScreenBuffer(width: 10, height: 4)
    var new = old
    new.put("x", x: 6, y: 2)
    #expect(new.changes(since: old) == [CellRun(x: 6, y: 2, cells: [Cell(text: "x")])])
  }

  @Test func aStyleChangeIsAChange() {
    var old = ScreenBuffer(width: 5, height: 1)
    old.put("abc", x: 0, y: 0)
    var new = old
    new.setStyle(Rect(x: 1, y: 0, width: 1, height: 1)) { $0.bold = true }
    #expect(new.changes(since: old).map(\.x) == [1])
  }

  @Test func runsAreConsecutiveChangedCellsPerRow() {
    let old = ScreenBuffer(width: 10, height: 3)
    var new = old
    new.put("abc", x: 1, y: 0)
    new.put("x", x: 7, y: 0)
    new.put("yz", x: 8, y: 2)
    let runs = new.changes(since: old)
    #expect(runs.map(\.x) == [1, 7, 8])
    #expect(runs.map(\.y) == [0, 0, 2])
    #expect(runs.map { $0.cells.map(\.text).joined() } == ["abc", "x", "yz"])
  }

  @Test func aRunNeverStartsWithAContinuationCell() {
    var old = ScreenBuffer(width: 6, height: 1)
    old.put("日本", x: 0, y: 0)
    var new = old
    new.setStyle(Rect(x: 1, y: 0, width: 2, height: 1)) { $0.underline = true }  // 日's right half
    let runs = new.changes(since: old)
    #expect(runs.count == 1)
    #expect(runs[0].x == 0)
    #expect(runs[0].cells.map(\.text) == ["日", "", "本"])
  }

  @Test func replayingTheRunsOnTheOldFrameGivesTheNewFrame() {
    var rng = SplitMix(seed: 42)
    let pieces = ["日本", "ab", "😀", "x", "語x", "—", "\u{1b}"]
    var old = ScreenBuffer(width: 16, height: 4)
    for _ in 0..<300 {
      var new = old
      for _ in 0..<Int(rng.next() % 4) {
        let text = pieces[Int(rng.next() % UInt64(pieces.count))]
        let style = Style(foreground: rng.next() % 2 == 0 ? .default : .red)
        new.put(text, x: Int(rng.next() % 17) - 1, y: Int(rng.next() % 4), style: style)
      }
      var replayed = old
      for run in new.changes(since: old) {
        for (offset, cell) in run.cells.enumerated() {
          replayed.cells[run.y * replayed.width + run.x + offset] = cell  // raw, as a terminal
        }
      }
      #expect(replayed == new)
      #expect(new.changes(since: old).allSatisfy { !$0.cells[0].isContinuation })
      old = new
    }
  }
}
