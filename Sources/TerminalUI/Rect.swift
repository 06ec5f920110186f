/// A rectangle of cells: `x` columns from the left, `y` rows from the top.
///
///     let screen = Rect(width: 120, height: 40)
///     let (body, status) = screen.splitRows(at: -1)   // last row for the status bar
///     let (list, detail) = body.splitColumns(at: 32)
///     let firstItem = list.inset(by: 1).row(0)
public struct Rect: Sendable, Hashable {
  public var x: Int
  public var y: Int
  public var width: Int
  public var height: Int

  public init(x: Int = 0, y: Int = 0, width: Int, height: Int) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  public static let zero = Rect(width: 0, height: 0)

  /// True when the rectangle holds no cell.
  public var isEmpty: Bool { width <= 0 || height <= 0 }

  /// The column just right of the rectangle.
  public var maxX: Int { x + width }

  /// The row just below the rectangle.
  public var maxY: Int { y + height }

  public func contains(x px: Int, y py: Int) -> Bool {
    px >= x && px < maxX && py >= y && py < maxY
  }

  /// The cells in both rectangles (an empty rectangle when they don't overlap).
  public func intersection(_ other: Rect) -> Rect {
    let left = max(x, other.x)
    let top = max(y, other.y)
    let right = min(maxX, other.maxX)
    let bottom = min(maxY, other.maxY)
    guard right > left, bottom > top else { return Rect(x: left, y: top, width: 0, height: 0) }
    return Rect(x: left, y: top, width: right - left, height: bottom - top)
  }

  /// The rectangle shrunk by `amount` on every side (never below zero size).
  public func inset(by amount: Int) -> Rect {
    inset(horizontal: amount, vertical: amount)
  }

  /// The rectangle shrunk by `horizontal` on the left and right and `vertical` at the top and
  /// bottom (never below zero size).
  public func inset(horizontal: Int, vertical: Int) -> Rect {
    Rect(
      x: x + horizontal, y: y + vertical,
      width: max(0, width - 2 * horizontal), height: max(0, height - 2 * vertical))
  }

  /// The one-row rectangle `i` rows below the top; empty when `i` is outside the rectangle.
  public func row(_ i: Int) -> Rect {
    Rect(x: x, y: y + i, width: width, height: (0..<height).contains(i) ? 1 : 0)
  }

  /// The one-column rectangle `i` columns right of the left edge; empty when `i` is outside.
  public func column(_ i: Int) -> Rect {
    Rect(x: x + i, y: y, width: (0..<width).contains(i) ? 1 : 0, height: height)
  }

  /// Splits into a left part `offset` columns wide and the rest. A negative `offset` counts
  /// from the right edge (`splitColumns(at: -20)` leaves 20 columns on the right); the offset
  /// is clamped to the rectangle.
  public func splitColumns(at offset: Int) -> (Rect, Rect) {
    let w = Rect.clamp(offset, width)
    return (
      Rect(x: x, y: y, width: w, height: height),
      Rect(x: x + w, y: y, width: max(0, width) - w, height: height)
    )
  }

  /// Splits into a top part `offset` rows high and the rest. A negative `offset` counts from
  /// the bottom (`splitRows(at: -1)` leaves the last row); the offset is clamped.
  public func splitRows(at offset: Int) -> (Rect, Rect) {
    let h = Rect.clamp(offset, height)
    return (
      Rect(x: x, y: y, width: width, height: h),
      Rect(x: x, y: y + h, width: width, height: max(0, height) - h)
    )
  }

  /// Consecutive columns of the given widths from the left; each is clamped to what is left, so
  /// later ones may be empty. `columns([20, 1, .max])` gives a 20-column list, a 1-column gap and
  /// the rest.
  public func columns(_ widths: [Int]) -> [Rect] {
    var left = x
    var remaining = max(0, width)
    return widths.map { w in
      let take = min(max(0, w), remaining)
      defer {
        left += take
        remaining -= take
      }
      return Rect(x: left, y: y, width: take, height: height)
    }
  }

  /// Consecutive rows of the given heights from the top; each is clamped to what is left.
  public func rows(_ heights: [Int]) -> [Rect] {
    var top = y
    var remaining = max(0, height)
    return heights.map { h in
      let take = min(max(0, h), remaining)
      defer {
        top += take
        remaining -= take
      }
      return Rect(x: x, y: top, width: width, height: take)
    }
  }

  private static func clamp(_ offset: Int, _ size: Int) -> Int {
    let size = max(0, size)
    let value = offset < 0 ? size + offset : offset
    return min(max(0, value), size)
  }
}
