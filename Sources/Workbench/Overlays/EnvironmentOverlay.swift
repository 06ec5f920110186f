import Base
import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// `v`: the workspace's environments (and none) in a box over the panes, the one in use marked,
/// the highlighted one's variables beside the list (as Slumber's profile list previews a
/// profile's fields). Enter applies it at once: the editor's resolved URL, the next sends and the
/// status bar follow; the choice becomes the file's `environment` key on the next save.
/// `n` adds an environment (used at once, so `V`'s `a` fills it), `c` copies the highlighted one
/// under a new name (another host, the same variables: Bruno's and Postman's "clone"), `r`
/// renames it (its cookie jar follows at the save), `d` deletes it (pressed twice). Each is an
/// unsaved edit until Ctrl-S.
public struct EnvironmentOverlayState: Sendable, Equatable {
  /// 0 is "none", then the environments in file order.
  public var selection = 0
  /// `d` was pressed once: the next `d` deletes the highlighted environment.
  public var confirmingDelete = false
  public init() {}
}

extension AppState {
  /// The environment in use: `--env`, else the `environment` key.
  public var environmentInUse: String? { sources.environment ?? workspace.environment }

  mutating func openEnvironmentOverlay() {
    let index = workspace.environments.firstIndex { $0.name == environmentInUse }
    var overlay = EnvironmentOverlayState()
    overlay.selection = index.map { $0 + 1 } ?? 0
    open(overlay)
    if workspace.environments.isEmpty {
      message = StatusMessage("no environments yet: n adds one (dev, staging…), V then gives it variables")
    }
  }

  /// The environment highlighted in the overlay (nil on "none").
  var highlightedEnvironment: Environment? {
    let index = environmentOverlay.selection - 1
    return workspace.environments.indices.contains(index) ? workspace.environments[index] : nil
  }

  mutating func handleEnvironmentOverlayKey(_ key: Key) -> [Command] {
    guard let action = Keymap.action(for: key, in: .environments) else { return [] }
    let confirming = environmentOverlay.confirmingDelete
    environmentOverlay.confirmingDelete = false
    if confirming, action != .deleteEnvironment { message = StatusMessage("the environment stays") }
    switch action {
    case .newEnvironment:
      prompt = Prompt(purpose: .newEnvironment(copying: nil), label: "new environment's name", input: LineEdit(""))
    case .copyEnvironment:
      guard let source = highlightedEnvironment else {
        message = StatusMessage("highlight the environment to copy (j k), or n for a new, empty one", isError: true)
        return []
      }
      prompt = Prompt(
        purpose: .newEnvironment(copying: source.name), label: "copy of \(source.name) named",
        input: LineEdit(Workspace.freeName(source.name, taken: Set(workspace.environments.map(\.name))), selected: true))
    case .renameEnvironment:
      guard let source = highlightedEnvironment else {
        message = StatusMessage("highlight the environment to rename (j k)", isError: true)
        return []
      }
      prompt = Prompt(
        purpose: .renameEnvironment(source.name), label: "rename environment \(source.name) to",
        input: LineEdit(source.name, selected: true))
    case .deleteEnvironment:
      guard let doomed = highlightedEnvironment else {
        message = StatusMessage("highlight the environment to delete (j k)", isError: true)
        return []
      }
      guard confirming else {
        environmentOverlay.confirmingDelete = true
        let count = doomed.variables.count
        message = StatusMessage(
          "press d again to delete environment \(doomed.name) and its \(count) variable\(count == 1 ? "" : "s") (any other key keeps it)",
          isError: true)
        return []
      }
      deleteEnvironment(doomed.name)
    case .down, .up:
      let count = workspace.environments.count + 1
      if let index = move(action, environmentOverlay.selection, count: count, page: count) {
        environmentOverlay.selection = index
      }
    case .applyEnvironment:
      let index = environmentOverlay.selection - 1
      applyEnvironment(workspace.environments.indices.contains(index) ? workspace.environments[index].name : nil)
      closeOverlay()
    case .closeOverlay:
      closeOverlay()
    default:
      break
    }
    return []
  }

  /// Uses `name` (nil: none) from now on, in place of `--env` too; an unsaved edit of the file's
  /// `environment` key until it is saved (choosing the saved one again is no edit).
  mutating func applyEnvironment(_ name: String?) {
    let before = environmentInUse
    do {
      try workspace.selectEnvironment(name)
    } catch {
      message = StatusMessage(error.message, isError: true)
      return
    }
    noteEnvironmentChoice()
    if name == before {
      message = StatusMessage("environment \(name ?? "none") (unchanged)")
    } else {
      message = StatusMessage(
        "environment \(name ?? "none"): sends use it from now on"
          + (unsavedSettings.contains("environment") ? " (Ctrl-S saves the choice)" : ""))
    }
  }

  /// The workspace's `environment` key was set here: it takes the place of `--env`, and it is an
  /// unsaved edit unless it is the saved one again.
  private mutating func noteEnvironmentChoice() {
    sources.environment = nil
    if workspace.environment == savedEnvironment {
      unsavedSettings.remove("environment")
    } else {
      unsavedSettings.insert("environment")
    }
  }

  /// The prompt's Enter for `n` and `c`: the environment is added and used at once; a name
  /// that cannot be one leaves the prompt open, saying why.
  mutating func addEnvironment(_ input: LineEdit, copying source: String?) {
    let name = input.text.trimmingCharacters(in: .whitespaces)
    do {
      try workspace.addEnvironment(name, copying: source)
    } catch {
      prompt = Prompt(
        purpose: .newEnvironment(copying: source), label: source.map { "copy of \($0) named" } ?? "new environment's name",
        input: input, error: error.message)
      return
    }
    unsavedSettings.insert("environments.\(name)")
    applyEnvironment(name)
    environmentOverlay.selection = workspace.environments.count
    let copied = source.map { " with the variables of \($0)" } ?? ""
    message = StatusMessage("environment \(name) added\(copied) and in use (unsaved; Ctrl-S saves); V adds or edits its variables")
  }

  /// The prompt's Enter for `r`: the environment is renamed (an unsaved edit; the one in use
  /// stays in use under its new name). Its cookie jar keeps its old name until the file is
  /// saved (`VariableSources.renamedEnvironments`). A name that cannot be one leaves the prompt
  /// open, saying why.
  mutating func renameEnvironment(_ old: String, _ input: LineEdit) {
    let new = input.text.trimmingCharacters(in: .whitespaces)
    let wasInUse = environmentInUse == old
    do {
      try workspace.renameEnvironment(old, to: new)
      if wasInUse { try workspace.selectEnvironment(new) }
    } catch {
      prompt = Prompt(
        purpose: .renameEnvironment(old), label: "rename environment \(old) to", input: input, error: error.message)
      return
    }
    guard new != old else {
      message = StatusMessage("environment \(old) keeps its name")
      return
    }
    unsavedSettings = Set(
      unsavedSettings.map { $0.hasPrefix("environments.\(old).") ? "environments.\(new)." + $0.dropFirst("environments.\(old).".count) : $0 })
    unsavedSettings.insert("environments.\(old)")
    unsavedSettings.insert("environments.\(new)")
    let jar = sources.renamedEnvironments.removeValue(forKey: old) ?? old
    if jar != new { sources.renamedEnvironments[new] = jar }
    if wasInUse { noteEnvironmentChoice() }
    message = StatusMessage("environment \(old) renamed \(new) (unsaved; Ctrl-S saves, and moves its cookie jar)")
  }

  /// Deletes the environment `name` (an unsaved edit); when it was in use, none is.
  mutating func deleteEnvironment(_ name: String) {
    let wasInUse = environmentInUse == name
    do {
      try workspace.removeEnvironment(name)
    } catch {
      message = StatusMessage(error.message, isError: true)
      return
    }
    unsavedSettings = unsavedSettings.filter { !$0.hasPrefix("environments.\(name).") }
    unsavedSettings.insert("environments.\(name)")
    sources.renamedEnvironments[name] = nil  // its jar stays under the name the file gives it
    if wasInUse { noteEnvironmentChoice() }
    environmentOverlay.selection = min(environmentOverlay.selection, workspace.environments.count)
    message = StatusMessage(
      "environment \(name) deleted (unsaved; Ctrl-S saves)" + (wasInUse ? "; no environment is in use" : ""))
  }

  var environmentOverlayRect: Rect {
    let names = [EnvironmentOverlayState.noneLabel] + workspace.environments.map(\.name)
    let listWidth = min(30, (names.map(TextWidth.of).max() ?? 4) + 4)
    let width = min(self.width - 4, max(72, listWidth + 50))
    let rows = max(workspace.environments.count + 1, (workspace.environments.map(\.variables.count).max() ?? 0))
    let height = min(self.height - 4, rows + 5)
    return Rect(x: (self.width - width) / 2, y: max(1, (self.height - height) / 2), width: width, height: height)
  }
}

extension EnvironmentOverlayState {
  static let noneLabel = "(none)"
}

extension Painter {
  func environmentOverlay(_ buffer: inout ScreenBuffer) {
    let rect = state.environmentOverlayRect
    let environments = state.workspace.environments
    buffer.fill(rect)
    buffer.box(rect, title: "Environments", style: theme.focusedBorder, titleStyle: theme.focusedBorder)
    let inner = rect.inset(by: 1)
    let names = [EnvironmentOverlayState.noneLabel] + environments.map(\.name)
    let listWidth = min(30, (names.map(TextWidth.of).max() ?? 4) + 4)
    let rows = max(1, inner.height - 2)
    let selection = state.environmentOverlay.selection
    let scroll = max(0, selection - rows + 1)
    for row in 0..<rows {
      let index = scroll + row
      guard names.indices.contains(index) else { break }
      let inUse = index == 0 ? state.environmentInUse == nil : environments[index - 1].name == state.environmentInUse
      let y = inner.y + row
      buffer.putTruncated((inUse ? "● " : "  ") + names[index], x: inner.x + 1, y: y, style: inUse ? theme.key : .plain, width: listWidth - 1)
      if index == selection { highlight(&buffer, Rect(x: inner.x, y: y, width: listWidth, height: 1), focused: true) }
    }
    // The highlighted environment's variables, as written (its own {{variables}} not filled in).
    for y in inner.y..<(inner.y + rows) { buffer.put("│", x: inner.x + listWidth, y: y, style: theme.border) }
    let x = inner.x + listWidth + 2
    let width = inner.width - listWidth - 3
    let variables = selection > 0 && environments.indices.contains(selection - 1) ? environments[selection - 1].variables : []
    if environments.isEmpty {
      buffer.putTruncated("no environments yet: n adds one", x: x, y: inner.y, style: theme.dim, width: width)
      buffer.putTruncated(
        "(dev, staging…: the same variables, other values)", x: x, y: inner.y + 1, style: theme.dim, width: width)
    } else if selection == 0 {
      buffer.putTruncated("no environment: the workspace's variables only", x: x, y: inner.y, style: theme.dim, width: width)
    } else if variables.isEmpty {
      buffer.putTruncated("no variables yet: V adds them to the environment in use", x: x, y: inner.y, style: theme.dim, width: width)
    }
    let nameWidth = min(24, (variables.map { TextWidth.of($0.name) }.max() ?? 0) + 1)
    for (row, variable) in variables.prefix(rows).enumerated() {
      let y = inner.y + row
      buffer.putTruncated(variable.name, x: x, y: y, style: theme.key, width: nameWidth)
      let value = ControlEscaping.visible(variable.value)
      buffer.putTruncated(value, x: x + nameWidth + 1, y: y, style: .plain, width: width - nameWidth - 1)
    }
    buffer.putTruncated(
      state.environmentOverlay.footer(in: state).text, x: inner.x + 1,
      y: inner.y + inner.height - 1, style: theme.dim, width: inner.width - 2)
  }
}

extension EnvironmentOverlayState: Overlay {
  static let id = OverlayID.environments
  static var openedBy: Action? { .chooseEnvironment }

  static func open(_ app: inout AppState) -> [Command] {
    app.openEnvironmentOverlay()
    return []
  }

  func keyContext(in app: AppState) -> KeyContext { .environments }
  static func update(_ key: Key, _ app: inout AppState) -> [Command] { app.handleEnvironmentOverlayKey(key) }
  func view(_ painter: Painter, _ buffer: inout ScreenBuffer) { painter.environmentOverlay(&buffer) }

  func footer(in app: AppState) -> Footer {
    var footer = Footer()
    footer.key(.applyEnvironment, in: .environments, "use it")
    footer.key(.newEnvironment, in: .environments, "new")
    footer.key(.copyEnvironment, in: .environments, "copy")
    footer.key(.renameEnvironment, in: .environments, "rename")
    footer.key(.deleteEnvironment, in: .environments, "delete")
    footer.key(.closeOverlay, in: .environments, "close")
    return footer
  }
}

extension OverlayID { public static let environments = OverlayID("environments") }

extension AppState {
  /// The environment overlay's state (a fresh one while it is closed).
  public internal(set) var environmentOverlay: EnvironmentOverlayState {
    get { self[overlay: EnvironmentOverlayState()] } set { self[overlay: EnvironmentOverlayState()] = newValue }
  }
}
