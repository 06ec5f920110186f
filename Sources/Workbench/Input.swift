/// A key as the UI core sees it, decoded from the terminal by the backend.
public enum Key: Sendable, Hashable {
  case char(Character)
  /// Ctrl plus a letter: `.ctrl("s")`.
  case ctrl(Character)
  case enter, escape, tab, backTab, backspace, delete
  case up, down, left, right, home, end, pageUp, pageDown
  case function(Int)
}

/// A mouse event in screen cells.
public struct MouseEvent: Sendable, Hashable {
  public enum Kind: Sendable, Hashable { case press, wheelUp, wheelDown }
  public var x: Int
  public var y: Int
  public var kind: Kind
  public init(x: Int, y: Int, kind: Kind) {
    self.x = x
    self.y = y
    self.kind = kind
  }
}
