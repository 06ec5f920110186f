/// The line characters of a box: `.single` by default, `.heavy` or `.double` for a focused
/// panel, `.rounded` for dialogs.
public enum Border: Sendable, Hashable, CaseIterable {
  case single, heavy, double, rounded

  /// Horizontal, vertical, top-left, top-right, bottom-left, bottom-right.
  var characters: (h: String, v: String, tl: String, tr: String, bl: String, br: String) {
    switch self {
    case .single: ("─", "│", "┌", "┐", "└", "┘")
    case .heavy: ("━", "┃", "┏", "┓", "┗", "┛")
    case .double: ("═", "║", "╔", "╗", "╚", "╝")
    case .rounded: ("─", "│", "╭", "╮", "╰", "╯")
    }
  }
}

extension ScreenBuffer {
  /// Draws the border of `rect` (clipped to the buffer) and leaves the inside alone; draw the
  /// content into `rect.inset(by: 1)`. A rectangle smaller than 2×2 draws nothing.
  ///
  /// `title` is drawn in the top border from the second column as `" Title "`, in `titleStyle`
  /// (default: `style`), truncated with "…" to fit between the corners; it is left out when
  /// the box is narrower than 5 columns or the title is empty.
  ///
  ///     buffer.box(panel, title: "Response", style: focused ? .plain.fg(.cyan) : .plain,
  ///                border: focused ? .heavy : .single)
  public mutating func box(
    _ rect: Rect, title: String? = nil, style: Style = .plain, titleStyle: Style? = nil,
    border: Border = .single
  ) {
    guard rect.width >= 2, rect.height >= 2 else { return }
    let c = border.characters
    let inner = String(repeating: c.h, count: rect.width - 2)
    put(c.tl + inner + c.tr, x: rect.x, y: rect.y, style: style)
    put(c.bl + inner + c.br, x: rect.x, y: rect.maxY - 1, style: style)
    if rect.height > 2 {
      for y in (rect.y + 1)..<(rect.maxY - 1) {
        put(c.v, x: rect.x, y: y, style: style)
        put(c.v, x: rect.maxX - 1, y: y, style: style)
      }
    }
    if let title, !title.isEmpty, rect.width >= 5 {
      let fitted = TextWidth.truncate(TextWidth.expandingTabs(title), to: rect.width - 4)
      put(
        " " + fitted + " ", x: rect.x + 1, y: rect.y, style: titleStyle ?? style,
        maxWidth: rect.width - 2)
    }
  }

  /// Draws a horizontal line of `width` columns from (x, y).
  public mutating func horizontalLine(
    x: Int, y: Int, width: Int, style: Style = .plain, border: Border = .single
  ) {
    guard width > 0 else { return }
    put(String(repeating: border.characters.h, count: width), x: x, y: y, style: style)
  }

  /// Draws a vertical line of `height` rows from (x, y) down.
  public mutating func verticalLine(
    x: Int, y: Int, height: Int, style: Style = .plain, border: Border = .single
  ) {
    guard height > 0 else { return }
    for row in y..<(y + height) {
      put(border.characters.v, x: x, y: row, style: style)
    }
  }
}
