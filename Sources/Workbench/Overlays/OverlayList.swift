import Foundation
import TerminalUI

/// A list in a box over the panes (the history `H`, the variables `V`, the copy menu `y`): the
/// box's size and the selection moved by the list keys and kept in view. Each overlay's state
/// holds its own `selection` and `scroll`; this is the one place that moves and scrolls them.
protocol OverlayList {
  /// The index of the highlighted row.
  var selection: Int { get set }
  /// The first row shown.
  var scroll: Int { get set }
}

extension OverlayList {
  /// Scrolls so the selected row is one of the `rows` shown.
  mutating func keepSelectionInView(rows: Int) {
    let rows = max(1, rows)
    if selection < scroll { scroll = selection }
    if selection >= scroll + rows { scroll = selection - rows + 1 }
    scroll = max(0, scroll)
  }

  /// Moves the selection by a list key (down, up, a page, first, last) over `count` rows, `rows`
  /// of them shown, and keeps it in view. False when the action is no move or the list is empty.
  mutating func move(_ action: Action, count: Int, rows: Int) -> Bool {
    guard let target = ListKeys.target(action, from: selection, count: count, page: rows) else { return false }
    selection = target
    keepSelectionInView(rows: rows)
    return true
  }

  /// After the list changed under it: the selection on a row that exists, still in view.
  mutating func clamp(count: Int, rows: Int) {
    selection = min(selection, max(0, count - 1))
    keepSelectionInView(rows: rows)
  }
}

/// What the list keys do to an index, in every list (panes and overlays).
enum ListKeys {
  /// Down, up, a page (`page` rows), first or last over `count` rows from `index`; nil for
  /// another action or an empty list.
  static func target(_ action: Action, from index: Int, count: Int, page: Int) -> Int? {
    guard count > 0 else { return nil }
    let target: Int
    switch action {
    case .down: target = index + 1
    case .up: target = index - 1
    case .pageDown: target = index + max(1, page)
    case .pageUp: target = index - max(1, page)
    case .first: target = 0
    case .last: target = count - 1
    default: return nil
    }
    return min(max(0, target), count - 1)
  }

  /// A scrolled box's first line shown after `key`, the scrolling keys of `context` moving it
  /// over `0...last` a line or a `page` at a time; nil for any other key (it closes the box).
  static func scrolled(_ key: Key, in context: KeyContext, from scroll: Int, last: Int, page: Int) -> Int? {
    Keymap.action(for: key, in: context).flatMap { target($0, from: scroll, count: last + 1, page: page) }
  }
}

/// The box of an overlay list: centred, the screen less `margin` columns and rows around it (at
/// least `minimum`); its list rows are what the border, a heading line, the keys line and one
/// line of space leave.
struct OverlayBox {
  var rect: Rect

  init(screenWidth: Int, screenHeight: Int, margin: (columns: Int, rows: Int), minimum: (width: Int, height: Int)) {
    self.init(
      screenWidth: screenWidth, screenHeight: screenHeight,
      width: max(minimum.width, screenWidth - 2 * margin.columns),
      height: max(minimum.height, screenHeight - 2 * margin.rows))
  }

  /// A box of this size, centred (a small menu's: as big as its rows need).
  init(screenWidth: Int, screenHeight: Int, width: Int, height: Int) {
    rect = Rect(x: (screenWidth - width) / 2, y: (screenHeight - height) / 2, width: width, height: height)
  }

  var listRows: Int { max(1, rect.height - 5) }
}

/// A box of lines over the panes that the scrolling keys of its context scroll and any other key
/// closes (the help, the message log): its keys, its footer and its `update` are these.
protocol ScrolledOverlay: Overlay {
  /// Its first line shown.
  var scroll: Int { get set }
  /// The context its scrolling keys are bound in.
  static var context: KeyContext { get }
  /// How many lines it has and how many it shows at once, at the app's screen size.
  static func lines(in app: AppState) -> (count: Int, page: Int)
}

extension ScrolledOverlay {
  func keyContext(in app: AppState) -> KeyContext { Self.context }

  static func update(_ key: Key, _ app: inout AppState) -> [Command] {
    guard var box = app.openOverlay(Self.self) else { return [] }
    let (count, page) = lines(in: app)
    let last = max(0, count - page)
    guard let scroll = ListKeys.scrolled(key, in: context, from: box.scroll, last: last, page: page) else {
      app.closeOverlay()
      return []
    }
    box.scroll = scroll
    app.setOverlay(box)
    return []
  }

  /// In the title: `j k scroll · other keys close`.
  func footer(in app: AppState) -> Footer {
    var footer = Footer()
    footer.keys([(.down, .char("j")), (.up, .char("k"))], in: Self.context, joiner: " ", "scroll")
    footer.text("other keys close")
    return footer
  }
}
