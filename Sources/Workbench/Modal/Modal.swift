import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// What takes the keys before the panes: at most one at a time. `AppState.layer` decides, in
/// one place, who has a key, a paste and the status line: this, the terminal being too small,
/// then the editor's own sub-modes (a field edited in place, a type list open), then the pane.
enum Modal: Sendable {
  case none
  /// A box over the panes, carrying its own state (`Overlay`, registered in `Overlays.registered`).
  case overlay(any Overlay)
  /// A line typed in the status bar; `over` is the overlay it was opened from, shown again when
  /// the prompt closes (the variables' value prompt, the environments' name prompt).
  case prompt(Prompt, over: (any Overlay)?)
  /// A question on the status line, answered by one key.
  case confirm(Question)
}

/// A status-line question: its key (`y`) acts, any other key drops it.
public enum Question: Sendable, Equatable {
  /// `d`: delete this request?
  case delete(request: String)
  /// A write found its file there: `y` repeats this write, overwriting.
  case overwrite(Command)

  var keyContext: KeyContext {
    switch self {
    case .delete: .confirmDelete
    case .overwrite: .confirmOverwrite
    }
  }
}

/// Who has the keys now, top first (see `Modal`).
enum Layer {
  case overlay(any Overlay)
  /// The terminal is smaller than the layout: only quitting acts.
  case tooSmall
  case question(Question)
  case prompt(Prompt)
  /// A field of the editor being edited in place.
  case field
  /// The editor's list of a field's types.
  case choice
  case pane
}

extension AppState {
  /// Who has the keys now: the one place the precedence of modals is written.
  var layer: Layer {
    switch modal {
    case .overlay(let overlay): return .overlay(overlay)
    case .none, .prompt, .confirm: break
    }
    if layout.tooSmall { return .tooSmall }
    switch modal {
    case .confirm(let question): return .question(question)
    case .prompt(let prompt, _): return .prompt(prompt)
    case .none, .overlay: break
    }
    if editor.editing != nil { return .field }
    if editor.choosing != nil { return .choice }
    return .pane
  }

  /// The overlay open, by name (nil: none, or a prompt or question is on top).
  public var overlay: OverlayID? {
    if case .overlay(let open) = modal { return type(of: open).id }
    return nil
  }

  /// Opens an overlay over the panes, in place of any modal open.
  mutating func open(_ overlay: any Overlay) {
    modal = .overlay(overlay)
  }

  /// Closes the overlay on top (a prompt or question stays).
  mutating func closeOverlay() {
    if case .overlay = modal { modal = .none }
  }

  /// The overlay of type `T`, on top or under the prompt opened from it; setting it changes
  /// that one (and nothing while none is open).
  func openOverlay<T: Overlay>(_ type: T.Type) -> T? {
    switch modal {
    case .overlay(let open): return open as? T
    case .prompt(_, let over?): return over as? T
    default: return nil
    }
  }

  /// The state of the overlay of `closed`'s type: the open one (on top or under its prompt), or
  /// `closed` while none is open; setting it changes the open one (and nothing while none is).
  subscript<T: Overlay>(overlay closed: @autoclosure () -> T) -> T {
    get { openOverlay(T.self) ?? closed() }
    set { setOverlay(newValue) }
  }

  mutating func setOverlay<T: Overlay>(_ value: T) {
    switch modal {
    case .overlay(let open) where open is T: modal = .overlay(value)
    case .prompt(let prompt, let over?) where over is T: modal = .prompt(prompt, over: value)
    default: break
    }
  }

  /// The prompt open. Setting one while an overlay is open puts it over that overlay (it comes
  /// back when the prompt closes); setting nil closes the prompt.
  public var prompt: Prompt? {
    get {
      if case .prompt(let prompt, _) = modal { return prompt }
      return nil
    }
    set {
      switch (newValue, modal) {
      case (let prompt?, .prompt(_, let over)): modal = .prompt(prompt, over: over)
      case (let prompt?, .overlay(let over)): modal = .prompt(prompt, over: over)
      case (let prompt?, .none), (let prompt?, .confirm): modal = .prompt(prompt, over: nil)
      case (nil, .prompt(_, let over)): modal = over.map(Modal.overlay) ?? .none
      case (nil, _): break
      }
    }
  }

  /// The status-line question asked.
  public var question: Question? {
    if case .confirm(let question) = modal { return question }
    return nil
  }

  /// `d` asked whether to delete this request.
  public var pendingDelete: String? {
    if case .confirm(.delete(let name)) = modal { return name }
    return nil
  }

  /// Asks a status-line question in place of any modal open.
  mutating func ask(_ question: Question) {
    modal = .confirm(question)
  }

  /// Drops the question asked, if any.
  mutating func dropQuestion() {
    if case .confirm = modal { modal = .none }
  }
}
