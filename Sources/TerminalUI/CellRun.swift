/// Consecutive cells of one row that changed since the last frame: the backend moves to
/// (`x`, `y`) and draws `cells` in order.
///
/// A continuation cell (`text == ""`) is already covered by the wide character before it: a
/// backend skips it without moving the cursor any further than the wide character did. A run
/// never starts with a continuation cell: it starts at the wide character instead.
public struct CellRun: Sendable, Equatable {
  public var x: Int
  public var y: Int
  public var cells: [Cell]

  public init(x: Int, y: Int, cells: [Cell]) {
    self.x = x
    self.y = y
    self.cells = cells
  }
}

extension ScreenBuffer {
  /// The cells that differ from `previous`, as runs of consecutive changed cells per row, top
  /// to bottom and left to right. Every cell, one run per row, when `previous` is nil or has
  /// another size.
  ///
  ///     let runs = frame.changes(since: lastFrame)
  ///     for run in runs { backend.draw(run) }
  ///     lastFrame = frame
  public func changes(since previous: ScreenBuffer?) -> [CellRun] {
    guard let previous, previous.width == width, previous.height == height else {
      guard width > 0 else { return [] }
      return (0..<height).map { y in
        CellRun(x: 0, y: y, cells: Array(cells[(y * width)..<((y + 1) * width)]))
      }
    }
    var runs: [CellRun] = []
    cells.withUnsafeBufferPointer { now in
      previous.cells.withUnsafeBufferPointer { before in
        for y in 0..<height {
          let rowStart = y * width
          var x = 0
          var lastRunEnd = -1  // end of this row's last run, -1 when none yet
          while x < width {
            if now[rowStart + x] == before[rowStart + x] {
              x += 1
              continue
            }
            var start = x
            while x < width && now[rowStart + x] != before[rowStart + x] { x += 1 }
            // Start at the wide character when the first changed cell is its continuation.
            while start > 0 && now[rowStart + start].text.isEmpty { start -= 1 }
            if lastRunEnd >= 0 && start <= lastRunEnd {
              runs[runs.count - 1].cells.append(
                contentsOf: now[(rowStart + lastRunEnd)..<(rowStart + x)])
            } else {
              runs.append(
                CellRun(x: start, y: y, cells: Array(now[(rowStart + start)..<(rowStart + x)])))
            }
            lastRunEnd = x
          }
        }
      }
    }
    return runs
  }
}
