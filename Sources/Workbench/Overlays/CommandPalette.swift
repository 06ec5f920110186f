import TerminalUI

/// `:` and Ctrl-P: the command palette (as VS Code's, Posting's and Slumber's). Every action of
/// the one key table (`Keymap`) that applies now, by its help text, with its key beside it:
/// those of the focused pane first, then those of everywhere, then those of the other panes
/// (running one of those moves the focus to its pane). Typing filters: every word must be in
/// the text (or, failing that, its letters in order, as a fuzzy finder matches), the closest
/// matches first. Enter runs the highlighted action exactly as its key would.
public struct PaletteState: Sendable, Equatable, OverlayList {
  public var query = LineEdit("")
  /// The highlighted line of the filtered entries, and the first one shown.
  public var selection = 0
  public var scroll = 0
  public init() {}
}

/// One action as the palette lists it, from its binding in the key table.
public struct PaletteEntry: Sendable, Equatable {
  public let action: Action
  /// Where it runs: a pane's context, or `global`.
  public let context: KeyContext
  /// The pane it runs in (the focus moves there); nil: everywhere.
  public let pane: Pane?
  public let keys: String
  public let help: String
}

extension AppState {
  mutating func openPalette() {
    open(PaletteState())
  }

  /// What a pane's keys mean now (the context it has when focused).
  func context(of pane: Pane) -> KeyContext {
    switch pane {
    case .requests:
      switch selectedEntry?.row {
      case .flow?: return .flowInList
      case .folder?: return .folderInList
      default: return .requests
      }
    case .editor: return selectedFlow == nil ? .editor : .flowEditor
    case .response: return shownTab == .events ? .events : .response
    case .queue: return queue.flowSelection == nil ? .queue : .queueRun
    }
  }

  /// Every action that applies now, once each: the focused pane's, everywhere's, the other panes'.
  /// Moving a selection or a scroll is left to the keys.
  public var paletteEntries: [PaletteEntry] {
    let places: [(KeyContext, Pane?)] =
      [(context(of: focus), focus), (.global, nil)]
      + Pane.allCases.filter { $0 != focus }.map { (context(of: $0), $0) }
    var seen: Set<Action> = [.openPalette]
    var entries: [PaletteEntry] = []
    for (context, pane) in places {
      for binding in Keymap.bindings
      where binding.contexts.contains(context) && !PaletteState.leftToKeys.contains(binding.section)
        && !seen.contains(binding.action)
      {
        seen.insert(binding.action)
        entries.append(PaletteEntry(action: binding.action, context: context, pane: pane, keys: binding.keyText, help: binding.help))
      }
    }
    return entries
  }

  /// The entries the query matches, best first.
  public var paletteMatches: [PaletteEntry] { PaletteState.filter(paletteEntries, palette.query.text) }

  mutating func handlePaletteKey(_ key: Key) -> [Command] {
    guard let action = Keymap.action(for: key, in: .palette) else {
      let before = palette.query.text
      if palette.query.apply(key), palette.query.text != before { palette.clamp(count: 0, rows: paletteRows) }
      return []
    }
    let matches = paletteMatches
    switch action {
    case .down, .up, .pageDown, .pageUp:
      _ = palette.move(action, count: matches.count, rows: paletteRows)
      return []
    case .runAction:
      let palette = self.palette
      closeOverlay()
      guard matches.indices.contains(palette.selection) else {
        message = StatusMessage("no action matches \"\(palette.query.text)\"", isError: true)
        return []
      }
      let entry = matches[palette.selection]
      if let pane = entry.pane { focus = pane }
      message = nil
      return perform(entry.action, in: entry.pane == nil ? paneContext : entry.context)
    case .closeOverlay:
      closeOverlay()
      return []
    default:
      return []
    }
  }

  /// Pasted text goes into the query.
  mutating func pasteIntoPalette(_ text: String) {
    palette.query.paste(text)
    palette.clamp(count: 0, rows: paletteRows)
  }

  var paletteRect: Rect {
    let width = min(self.width - 4, 100)
    let height = min(self.height - 4, 24)
    return Rect(x: (self.width - width) / 2, y: max(1, (self.height - height) / 4), width: width, height: height)
  }

  /// Entry lines the box shows (its border, the query line and the line under it excluded).
  var paletteRows: Int { max(1, paletteRect.height - 4) }
}

extension PaletteState {
  /// Moving a selection and scrolling: keys, not commands.
  static let leftToKeys: Set<KeySection> = [.lists, .scrolling]

  /// The entries every word of `query` matches, best first (then in the table's order): the
  /// help text holding the words in the order typed, the first of them early, comes first; a word
  /// found only in the action's name or the key counts less; as letters in order in the help
  /// (fuzzy), least.
  public static func filter(_ entries: [PaletteEntry], _ query: String) -> [PaletteEntry] {
    let words = query.lowercased().split(separator: " ")
    guard !words.isEmpty else { return entries }
    var scored: [(score: Int, order: Int, entry: PaletteEntry)] = []
    for (order, entry) in entries.enumerated() {
      let help = entry.help.lowercased()
      let other = entry.action.rawValue.lowercased() + " " + entry.keys.lowercased()
      var score = 0
      var last = -1
      for (n, word) in words.enumerated() {
        if let found = help.range(of: word) {
          let at = help.distance(from: help.startIndex, to: found.lowerBound)
          score += (n == 0 ? at : 0) + (at < last ? 100 : 0)
          last = at
        } else if other.contains(word) {
          score += 1_000
        } else if inOrder(word, in: help) {
          score += 10_000
        } else {
          score = -1
          break
        }
      }
      if score >= 0 { scored.append((score, order, entry)) }
    }
    return scored.sorted { ($0.score, $0.order) < ($1.score, $1.order) }.map(\.entry)
  }

  /// The letters of `word` appear in `text` in this order.
  private static func inOrder(_ word: Substring, in text: String) -> Bool {
    var rest = word[...]
    for character in text where character == rest.first {
      rest = rest.dropFirst()
      if rest.isEmpty { return true }
    }
    return rest.isEmpty
  }
}

extension Painter {
  func palette(_ buffer: inout ScreenBuffer) {
    let rect = state.paletteRect
    let matches = state.paletteMatches
    buffer.fill(rect)
    buffer.box(
      rect, title: "Commands · \(matches.count) of \(state.paletteEntries.count)", style: theme.focusedBorder,
      titleStyle: theme.focusedBorder)
    let inner = rect.inset(by: 1)
    buffer.put(": ", x: inner.x + 1, y: inner.y, style: theme.key)
    drawEdit(state.palette.query, &buffer, x: inner.x + 3, y: inner.y, width: inner.width - 4)
    let rows = state.paletteRows
    let selection = state.palette.selection
    let scroll = state.palette.scroll
    let keyWidth = min(18, (matches.map { TextWidth.of($0.keys) }.max() ?? 0) + 2)
    let paneWidth = 10
    if matches.isEmpty {
      buffer.putTruncated("no action matches; " + state.palette.footer(in: state).text, x: inner.x + 1, y: inner.y + 2, style: theme.dim, width: inner.width - 2)
    }
    for (row, entry) in matches.dropFirst(scroll).prefix(rows).enumerated() {
      let y = inner.y + 2 + row
      let helpWidth = inner.width - 2 - keyWidth - paneWidth
      buffer.putTruncated(entry.help, x: inner.x + 1, y: y, width: helpWidth - 1)
      buffer.putTruncated(entry.pane?.title ?? "", x: inner.x + 1 + helpWidth, y: y, style: theme.dim, width: paneWidth)
      buffer.putTruncated(entry.keys, x: inner.x + 1 + helpWidth + paneWidth, y: y, style: theme.key, width: keyWidth)
      if scroll + row == selection { highlight(&buffer, Rect(x: inner.x, y: y, width: inner.width, height: 1), focused: true) }
    }
  }
}

extension PaletteState: Overlay {
  static let id = OverlayID.palette
  static var openedBy: Action? { .openPalette }

  static func open(_ app: inout AppState) -> [Command] {
    app.openPalette()
    return []
  }

  func keyContext(in app: AppState) -> KeyContext { .palette }
  static func update(_ key: Key, _ app: inout AppState) -> [Command] { app.handlePaletteKey(key) }

  static func paste(_ text: String, _ app: inout AppState) -> [Command] {
    app.pasteIntoPalette(text)
    return []
  }

  func view(_ painter: Painter, _ buffer: inout ScreenBuffer) { painter.palette(&buffer) }

  /// What the palette says when nothing matches: the query's own keys.
  func footer(in app: AppState) -> Footer {
    var footer = Footer()
    footer.key(.deleteBackward, in: .lineEdit, "edits", after: ", ")
    footer.key(.closeOverlay, in: .palette, "closes")
    return footer
  }
}

extension OverlayID { public static let palette = OverlayID("palette") }

extension AppState {
  /// The palette's state (a fresh one while it is closed).
  public internal(set) var palette: PaletteState {
    get { self[overlay: PaletteState()] } set { self[overlay: PaletteState()] = newValue }
  }
}
