/// How a cell is drawn: colours and attributes.
///
///     let selected = Style.plain.with(\.reverse)
///     let error = Style(foreground: .red, bold: true)
///     let hint = Style.plain.fg(.brightBlack)
public struct Style: Sendable, Hashable {
  public var foreground: Color
  public var background: Color
  public var bold: Bool
  public var dim: Bool
  public var italic: Bool
  public var underline: Bool
  public var reverse: Bool

  public init(
    foreground: Color = .default, background: Color = .default, bold: Bool = false,
    dim: Bool = false, italic: Bool = false, underline: Bool = false, reverse: Bool = false
  ) {
    self.foreground = foreground
    self.background = background
    self.bold = bold
    self.dim = dim
    self.italic = italic
    self.underline = underline
    self.reverse = reverse
  }

  /// The terminal's default colours, no attributes.
  public static let plain = Style()

  /// This style with another foreground colour.
  public func fg(_ color: Color) -> Style {
    var copy = self
    copy.foreground = color
    return copy
  }

  /// This style with another background colour.
  public func bg(_ color: Color) -> Style {
    var copy = self
    copy.background = color
    return copy
  }

  /// This style with one attribute set (or cleared): `style.with(\.bold)`.
  public func with(_ attribute: WritableKeyPath<Style, Bool>, _ value: Bool = true) -> Style {
    var copy = self
    copy[keyPath: attribute] = value
    return copy
  }
}
