import Base

/// A grid of cells that the UI draws a frame into; the backend draws only what changed.
///
/// Coordinates are columns (`x`) and rows (`y`) from the top-left corner. Everything that writes
/// clips to the buffer, so widgets never check bounds themselves. Wide characters take two
/// cells: the character, then a continuation cell with text `""`. Writing over either half of a
/// wide character blanks the other half, so a frame never holds half a character.
///
///     var screen = ScreenBuffer(width: 12, height: 3)
///     screen.box(screen.bounds, title: "Hi")
///     screen.put("日本 ok", x: 1, y: 1)
///     screen.text
///     // ┌ Hi ──────┐
///     // │日本 ok   │
///     // └──────────┘
public struct ScreenBuffer: Sendable, Equatable {
  public let width: Int
  public let height: Int
  /// Row-major: the cell at (x, y) is `cells[y * width + x]`.
  var cells: [Cell]

  /// A buffer of blank cells; negative sizes count as zero.
  public init(width: Int, height: Int) {
    self.width = max(0, width)
    self.height = max(0, height)
    cells = Array(repeating: .blank, count: self.width * self.height)
  }

  /// The whole buffer as a rectangle at (0, 0).
  public var bounds: Rect { Rect(x: 0, y: 0, width: width, height: height) }

  /// The cell at column `x`, row `y`: `buffer[3, 1]`. Out of range, reading gives `.blank` and
  /// writing does nothing.
  ///
  /// Writing is for one grapheme cluster: text wider than one column also takes the cells to
  /// its right (or becomes a space when it doesn't fit); control characters become U+FFFD
  /// (use `put` to draw them escaped); a lone zero-width character is drawn on a space; `""`
  /// is stored as is (a continuation cell).
  public subscript(x: Int, y: Int) -> Cell {
    get {
      guard x >= 0, x < width, y >= 0, y < height else { return .blank }
      return cells[y * width + x]
    }
    set {
      guard x >= 0, x < width, y >= 0, y < height else { return }
      set(newValue, x: x, y: y)
    }
  }

  /// The same as `buffer[x, y]`, with labels: `buffer[x: 3, y: 1]`.
  public subscript(x x: Int, y y: Int) -> Cell {
    get { self[x, y] }
    set { self[x, y] = newValue }
  }

  /// Fills `rect` (clipped to the buffer) with copies of `cell`. The cell's text should be one
  /// column wide; any other text fills with spaces in the cell's style.
  public mutating func fill(_ rect: Rect, with cell: Cell = .blank) {
    let area = rect.intersection(bounds)
    guard !area.isEmpty else { return }
    var filler = cell
    if filler.text != " " && !Self.isSingleColumn(filler.text) { filler.text = " " }
    for y in area.y..<area.maxY {
      let rowStart = y * width
      repairLeft(rowStart: rowStart, x: area.x)
      for x in area.x..<area.maxX {
        cells[rowStart + x] = filler
      }
      repairRight(rowStart: rowStart, from: area.maxX)
    }
  }

  /// Blanks the whole buffer.
  public mutating func clear() {
    fill(bounds)
  }

  /// Changes the style of every cell in `rect` (clipped to the buffer), keeping the text:
  /// `buffer.setStyle(list.row(selected)) { $0.reverse = true }`.
  public mutating func setStyle(_ rect: Rect, _ transform: (inout Style) -> Void) {
    let area = rect.intersection(bounds)
    guard !area.isEmpty else { return }
    for y in area.y..<area.maxY {
      let rowStart = y * width
      for x in area.x..<area.maxX {
        transform(&cells[rowStart + x].style)
      }
    }
  }

  /// The text of each row: continuation cells omitted, trailing spaces trimmed. This is what
  /// screen snapshots compare.
  public func lines() -> [String] {
    (0..<height).map { line($0) }
  }

  /// `lines()` joined with `"\n"`.
  public var text: String {
    lines().joined(separator: "\n")
  }

  /// The text of row `y`, trailing spaces trimmed ("" outside the buffer).
  public func line(_ y: Int) -> String {
    guard y >= 0, y < height else { return "" }
    var result = ""
    result.reserveCapacity(width)
    var end = 0  // UTF-8 length up to the last non-space cell
    let rowStart = y * width
    for x in 0..<width {
      let text = cells[rowStart + x].text
      result += text
      if !text.isEmpty && text != " " { end = result.utf8.count }
    }
    if end == result.utf8.count { return result }
    return String(decoding: result.utf8.prefix(end), as: UTF8.self)
  }

  // MARK: - Internals

  /// Writes one cell of `cellWidth` columns at (x, y), which must be in the buffer and fit.
  @inline(__always)
  mutating func place(_ text: String, width cellWidth: Int, style: Style, x: Int, y: Int) {
    let rowStart = y * width
    repairLeft(rowStart: rowStart, x: x)
    cells[rowStart + x] = Cell(text: text, style: style)
    if cellWidth > 1 {
      for k in 1..<cellWidth {
        cells[rowStart + x + k] = Cell(text: "", style: style)
      }
    }
    repairRight(rowStart: rowStart, from: x + cellWidth)
  }

  /// Before (x, y) is overwritten: if it is the continuation of a wide character, blank that
  /// character (all its columns left of x).
  @inline(__always)
  mutating func repairLeft(rowStart: Int, x: Int) {
    guard cells[rowStart + x].text.isEmpty else { return }
    var j = x - 1
    while j >= 0 && cells[rowStart + j].text.isEmpty {
      cells[rowStart + j].text = " "
      j -= 1
    }
    if j >= 0 { cells[rowStart + j].text = " " }
  }

  /// After columns before `from` were overwritten: blank continuation cells at `from` and
  /// after, whose wide character is gone.
  @inline(__always)
  mutating func repairRight(rowStart: Int, from x: Int) {
    var k = x
    while k < width && cells[rowStart + k].text.isEmpty {
      cells[rowStart + k].text = " "
      k += 1
    }
  }

  private mutating func set(_ cell: Cell, x: Int, y: Int) {
    var text = cell.text
    if text.isEmpty {
      cells[y * width + x] = cell
      return
    }
    var cellWidth: Int
    if text.unicodeScalars.contains(where: ControlEscaping.isControl) {
      text = "\u{FFFD}"
      cellWidth = 1
    } else {
      cellWidth = TextWidth.of(text)
      if cellWidth == 0 {
        text = " " + text
        cellWidth = 1
      }
    }
    if x + cellWidth > width {
      // Doesn't fit at the right edge: a space, like `put` draws it.
      text = " "
      cellWidth = 1
    }
    place(text, width: cellWidth, style: cell.style, x: x, y: y)
  }

  static func isSingleColumn(_ text: String) -> Bool {
    guard !text.unicodeScalars.contains(where: ControlEscaping.isControl) else { return false }
    return TextWidth.of(text) == 1
  }
}
