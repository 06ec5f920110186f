import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// A box over the panes that takes every key while it is open. Its value is its own state,
/// carried by `Modal.overlay`; what it does is reached through this protocol only, so adding one
/// is its file (a type conforming to this, its keys in the key table) and a line in
/// `Overlays.registered`.
protocol Overlay: Sendable {
  /// Its name (`AppState.overlay`).
  static var id: OverlayID { get }
  /// The action that opens it from the panes or the palette (nil: something else opens it).
  static var openedBy: Action? { get }
  /// Opens it (`AppState.open`, or a message saying why not); what the runtime must do.
  static func open(_ app: inout AppState) -> [Command]
  /// What its keys mean now (`Keymap`): the context its footer's keys are bound in.
  func keyContext(in app: AppState) -> KeyContext
  /// A key while it is on top: it changes its state through the app (`AppState.setOverlay`).
  static func update(_ key: Key, _ app: inout AppState) -> [Command]
  /// Pasted text while it is on top (a question or a list ignores it).
  static func paste(_ text: String, _ app: inout AppState) -> [Command]
  /// Draws it over the panes.
  func view(_ painter: Painter, _ buffer: inout ScreenBuffer)
  /// The keys line in its box, from the key table.
  func footer(in app: AppState) -> Footer
}

extension Overlay {
  static var openedBy: Action? { nil }
  static func open(_ app: inout AppState) -> [Command] { [] }
  static func paste(_ text: String, _ app: inout AppState) -> [Command] { [] }
}

/// The name of an overlay (`state.overlay == .history`); each overlay's file declares its own.
public struct OverlayID: Sendable, Hashable, CustomStringConvertible {
  public let name: String
  init(_ name: String) { self.name = name }
  public var description: String { name }
}

/// Every overlay, in one list (as gitui's popups): the actions that open them, the tests that
/// check their footers against the key table.
enum Overlays {
  static let registered: [any Overlay.Type] = [
    HelpOverlay.self,
    QuitQuestion.self,
    UnsavedChangesQuestion.self,
    DiskConflictQuestion.self,
    HistoryOverlayState.self,
    EnvironmentOverlayState.self,
    VariablesOverlayState.self,
    CopyMenuState.self,
    PaletteState.self,
    CookiesOverlayState.self,
    AuthorizationOverlay.self,
  ]

  /// The overlay an action opens.
  static func opened(by action: Action) -> (any Overlay.Type)? {
    registered.first { $0.openedBy == action }
  }
}

/// A keys line: each key as the key table binds it in a context, with what it does there.
struct Footer: Sendable, Equatable {
  struct BoundKey: Sendable, Equatable {
    var action: Action
    var key: Key
    var context: KeyContext
  }

  enum Item: Sendable, Equatable {
    /// Keys of the table joined by `joiner` (`j k`, `↑↓`), then ` ` and what they do.
    case keys([BoundKey], joiner: String, String)
    /// Words that name no key (`type to filter`).
    case text(String)
  }

  /// An item and what follows it on the line (` · ` between hints, `, ` inside a parenthesis).
  struct Entry: Sendable, Equatable {
    var item: Item
    var after: String
  }

  var entries: [Entry] = []

  /// A key of the table and what it does; `key` picks one of the binding's keys (its first if nil).
  mutating func key(_ action: Action, _ key: Key? = nil, in context: KeyContext, _ text: String, after: String = " · ") {
    guard let bound = key ?? Keymap.binding(action, in: context)?.keys.first else { return }
    keys([(action, bound)], in: context, text, after: after)
  }

  /// Keys of the table shown together (`j k select`, `↑↓ select`).
  mutating func keys(_ keys: [(Action, Key)], in context: KeyContext, joiner: String = "", _ text: String, after: String = " · ") {
    entries.append(Entry(item: .keys(keys.map { BoundKey(action: $0.0, key: $0.1, context: context) }, joiner: joiner, text), after: after))
  }

  mutating func text(_ text: String, after: String = " · ") {
    entries.append(Entry(item: .text(text), after: after))
  }

  /// Every key it shows, with the action and context it claims (a test checks each in the table).
  var shownKeys: [BoundKey] {
    entries.flatMap { entry -> [BoundKey] in
      if case .keys(let keys, _, _) = entry.item { return keys }
      return []
    }
  }

  /// The line as drawn.
  var text: String {
    var out = ""
    for (index, entry) in entries.enumerated() {
      switch entry.item {
      case .keys(let keys, let joiner, let text):
        out += keys.map(\.key.name).joined(separator: joiner) + (text.isEmpty ? "" : " " + text)
      case .text(let text): out += text
      }
      if index < entries.count - 1 { out += entry.after }
    }
    return out
  }

  /// The first `count` entries and the rest: a footer drawn on two lines.
  func split(after count: Int) -> (Footer, Footer) {
    (Footer(entries: Array(entries.prefix(count))), Footer(entries: Array(entries.dropFirst(count))))
  }
}
