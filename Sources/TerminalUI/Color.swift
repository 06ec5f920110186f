/// One of the 16 standard terminal colours, or the terminal's own default.
///
/// `index` is the ncurses colour number, so a backend can pass it straight to `init_pair`:
///
///     init_pair(pair, Int16(style.foreground.index), Int16(style.background.index))
public enum Color: Sendable, Hashable, CaseIterable {
  case `default`
  case black, red, green, yellow, blue, magenta, cyan, white
  case brightBlack, brightRed, brightGreen, brightYellow
  case brightBlue, brightMagenta, brightCyan, brightWhite

  /// The ncurses colour number: -1 for the terminal's default, 0…7 for the normal colours,
  /// 8…15 for the bright ones.
  public var index: Int {
    switch self {
    case .default: -1
    case .black: 0
    case .red: 1
    case .green: 2
    case .yellow: 3
    case .blue: 4
    case .magenta: 5
    case .cyan: 6
    case .white: 7
    case .brightBlack: 8
    case .brightRed: 9
    case .brightGreen: 10
    case .brightYellow: 11
    case .brightBlue: 12
    case .brightMagenta: 13
    case .brightCyan: 14
    case .brightWhite: 15
    }
  }

  /// The colour with ncurses number `index` (-1…15), or nil for any other number.
  public init?(index: Int) {
    guard let color = Color.allCases.first(where: { $0.index == index }) else { return nil }
    self = color
  }
}
