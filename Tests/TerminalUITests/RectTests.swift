import Testing

@testable import TerminalUI

@Suite("Rect")
struct RectTests {
  let screen = Rect(x: 0, y: 0, width: 100, height: 30)

  @Test func emptinessAndEdges() {
    #expect(Rect(width: 0, height: 3).isEmpty)
    #expect(Rect(width: 3, height: -1).isEmpty)
    #expect(!screen.isEmpty)
    #expect(Rect(x: 2, y: 3, width: 4, height: 5).maxX == 6)
    #expect(Rect(x: 2, y: 3, width: 4, height: 5).maxY == 8)
    #expect(screen.contains(x: 99, y: 29) && !screen.contains(x: 100, y: 0))
  }

  @Test func insetShrinksEverySideAndNeverGoesNegative() {
    #expect(screen.inset(by: 1) == Rect(x: 1, y: 1, width: 98, height: 28))
    #expect(screen.inset(horizontal: 2, vertical: 0) == Rect(x: 2, y: 0, width: 96, height: 30))
    #expect(Rect(width: 3, height: 3).inset(by: 2).isEmpty)
  }

  @Test func rowAndColumnPickOneLine() {
    let panel = Rect(x: 5, y: 10, width: 20, height: 4)
    #expect(panel.row(0) == Rect(x: 5, y: 10, width: 20, height: 1))
    #expect(panel.row(3) == Rect(x: 5, y: 13, width: 20, height: 1))
    #expect(panel.row(4).isEmpty)
    #expect(panel.row(-1).isEmpty)
    #expect(panel.column(2) == Rect(x: 7, y: 10, width: 1, height: 4))
  }

  @Test func splitsCountFromEitherEdgeAndClamp() {
    let (list, detail) = screen.splitColumns(at: 30)
    #expect(list == Rect(x: 0, y: 0, width: 30, height: 30))
    #expect(detail == Rect(x: 30, y: 0, width: 70, height: 30))
    let (body, status) = screen.splitRows(at: -1)
    #expect(body == Rect(x: 0, y: 0, width: 100, height: 29))
    #expect(status == Rect(x: 0, y: 29, width: 100, height: 1))
    #expect(screen.splitColumns(at: 500).1.isEmpty)
    #expect(screen.splitRows(at: -500).0.isEmpty)
  }

  @Test func rowsAndColumnsAreConsecutiveAndClamped() {
    let parts = Rect(x: 1, y: 2, width: 10, height: 5).rows([1, 3, 4])
    #expect(
      parts == [
        Rect(x: 1, y: 2, width: 10, height: 1),
        Rect(x: 1, y: 3, width: 10, height: 3),
        Rect(x: 1, y: 6, width: 10, height: 1),
      ])
    let columns = Rect(width: 10, height: 1).columns([4, 1, .max])
    #expect(columns.map(\.width) == [4, 1, 5])
    #expect(columns.map(\.x) == [0, 4, 5])
  }

  @Test func intersection() {
    let a = Rect(x: 0, y: 0, width: 10, height: 10)
    #expect(
      a.intersection(Rect(x: 5, y: 5, width: 10, height: 10))
        == Rect(x: 5, y: 5, width: 5, height: 5))
    #expect(a.intersection(Rect(x: 20, y: 0, width: 1, height: 1)).isEmpty)
  }
}
