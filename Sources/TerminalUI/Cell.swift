/// One column of the screen.
///
/// A character two columns wide is stored in its first cell; the cell to its right is a
/// *continuation* cell whose `text` is `""` and which a backend skips when drawing (the wide
/// character already covers it). `ScreenBuffer` keeps the pair intact: overwriting either half
/// blanks the other.
public struct Cell: Sendable, Hashable {
  /// One grapheme cluster as drawn; `" "` for blank; `""` for the right half of a wide character.
  public var text: String
  public var style: Style

  public init(text: String, style: Style = .plain) {
    self.text = text
    self.style = style
  }

  /// A space in the plain style.
  public static let blank = Cell(text: " ", style: .plain)

  /// Whether this is the right half (or a later column) of a wide character.
  public var isContinuation: Bool { text.isEmpty }
}
