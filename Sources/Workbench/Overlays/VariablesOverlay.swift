import Base
import Formats
import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// `V`: every variable in scope for the selected request (`Workspace.variablesInScope`): its
/// name, its value (a secret's as `••••`), the layer it comes from (`--var`, captured by a chain,
/// environment NAME, workspace, `env.`, secret) and the layers it wins over. The ones the request
/// uses come first. Enter edits a value where it lives: the environment's or the workspace's
/// `variables` (an unsaved edit until Ctrl-S), or a secret, typed hidden, written to the secrets
/// file at once (`Command.setSecret`). `a` adds one where Enter would put an undefined one (the
/// environment in use, else the workspace's `variables`), `d` removes one from the environment
/// or workspace `variables` that define it. The prompt comes back to the overlay.
public struct VariablesOverlayState: Sendable, Equatable, OverlayList {
  public var selection = 0
  public var scroll = 0
  public init() {}
}

extension AppState {
  /// The rows of the overlay: the variables the selected request uses, then the others.
  public var variableRows: [ScopedVariable] {
    let all = workspace.variablesInScope(for: selectedRequest, sources: sources)
    return all.filter(\.used) + all.filter { !$0.used }
  }

  mutating func openVariablesOverlay() {
    open(VariablesOverlayState())
  }

  mutating func handleVariablesOverlayKey(_ key: Key) -> [Command] {
    guard let action = Keymap.action(for: key, in: .variables) else { return [] }
    let rows = variableRows
    switch action {
    case .down, .up, .pageDown, .pageUp:
      _ = variablesOverlay.move(action, count: rows.count, rows: variableListRows)
    case .editVariable:
      guard rows.indices.contains(variablesOverlay.selection) else {
        message = StatusMessage("no variable selected")
        return []
      }
      editVariable(rows[variablesOverlay.selection])
    case .addVariable:
      let home = newVariableHome
      prompt = Prompt(purpose: .addVariable(home: home), label: "new variable in \(home.label): NAME=value", input: LineEdit(""))
    case .removeVariable:
      guard rows.indices.contains(variablesOverlay.selection) else {
        message = StatusMessage("no variable selected")
        return []
      }
      removeVariable(rows[variablesOverlay.selection])
    case .chooseEnvironment:
      openEnvironmentOverlay()
    case .closeOverlay:
      closeOverlay()
    default:
      break
    }
    return []
  }

  /// Opens the prompt for a variable's new value, or says why this one is not edited here.
  private mutating func editVariable(_ variable: ScopedVariable) {
    let name = variable.name
    if name.hasPrefix("secret.") {
      if case .secretEnvironment(let variableName) = variable.found?.layer {
        message = StatusMessage("\(name) comes from \(variableName) in reqbench's environment: change it there", isError: true)
        return
      }
      promptSecret(name)
      return
    }
    switch variable.found?.layer {
    case .processEnvironment(let process):
      message = StatusMessage("{{\(name)}} is the environment variable \(process): export it before starting reqbench", isError: true)
    case .override:
      message = StatusMessage("\(name) is set by --var \(name)=… on the command line: start without it to use the file's value", isError: true)
    case .captured, .step:
      message = StatusMessage("\(name) is set by a chain's run", isError: true)
    case .environment(let environment):
      promptValue(variable, home: .environment(environment))
    case .workspace:
      promptValue(variable, home: .workspace)
    case .secretEnvironment, .secretsFile:
      break
    case nil:
      if name.hasPrefix("env.") {
        message = StatusMessage("{{\(name)}} reads the environment variable \(name.dropFirst(4)): export it before starting reqbench", isError: true)
        return
      }
      promptValue(variable, home: newVariableHome)
    }
  }

  /// Where a new variable goes: the environment in use (where a user switching hosts wants
  /// it), else the workspace's `variables`.
  var newVariableHome: VariableHome {
    workspace.selectedEnvironment(sources).map { .environment($0.name) } ?? .workspace
  }

  /// The prompt's Enter for `a`: `NAME=value` is set at once; a name alone asks for its value
  /// next (a secret's hidden). What cannot be set leaves the prompt open, saying why.
  mutating func addVariable(_ input: LineEdit, home: VariableHome) -> [Command] {
    func refuse(_ problem: String) -> [Command] {
      prompt = Prompt(purpose: .addVariable(home: home), label: "new variable in \(home.label): NAME=value", input: input, error: problem)
      return []
    }
    let text = input.text
    let equals = text.firstIndex(of: "=")
    let name = String(text[..<(equals ?? text.endIndex)]).trimmingCharacters(in: .whitespaces)
    if name.hasPrefix("secret.") {
      guard equals == nil else { return refuse("a secret's value is typed hidden: type \(name) alone, then its value") }
      guard Template.isValidName(String(name.dropFirst(7))) else {
        return refuse("type secret.NAME (a name is letters, digits, '_', '-' and '.')")
      }
      if let known = variableRows.first(where: { $0.name == name }) { editVariable(known) } else { promptSecret(name) }
      return []
    }
    if name.hasPrefix("env.") { return refuse("{{\(name)}} reads the process environment: export \(name.dropFirst(4)) instead") }
    guard let equals else {
      guard Template.isValidName(name) else { return refuse("type NAME=value (a name is letters, digits, '_', '-' and '.')") }
      // Defined already: its value where the new one would go, to edit.
      let current = workspace.value(of: name, in: home)
      promptValue(name, current: current, home: home)
      return []
    }
    let value = String(text[text.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
    do {
      let writes = try storeVariable(name, value, in: home)
      return writes
    } catch {
      return refuse(error.message)
    }
  }

  /// Sets a variable where it lives (an unsaved edit) and says so. A key typed in the open (a
  /// literal value of a name `CredentialMasking.isKeyName` calls a key: `token`, `apiKey`) goes
  /// to the secrets file, as an import's does (`ImportedCredentials`), and the variable says
  /// `{{secret.NAME}}`: the returned commands write it.
  private mutating func storeVariable(_ name: String, _ value: String, in home: VariableHome) throws(WorkspaceEditError)
    -> [Command]
  {
    var imported = ImportedRequests(variables: [Variable(name: name, value: value)])
    var moved = ImportedCredentials.extract(from: &imported, known: sources.secrets, environment: sources.processEnvironment)
    // A variable that is a secret already (`{{secret.token}}`, moved here before): the new key
    // replaces that secret's value rather than leaving it behind beside `token-2`.
    if let first = moved.first, let current = workspace.value(of: name, in: home), let held = Self.secretReference(current),
      sources.processEnvironment[VariableSources.secretEnvironmentName(held)] == nil
    {
      moved = [ImportedCredentials.Moved(name: held, value: first.value)]
      imported.variables = [Variable(name: name, value: current)]
    }
    let stored = imported.variables.first?.value ?? value
    try workspace.setVariable(name, stored, in: home)
    unsavedSettings.insert(home.key(of: name))
    selectVariable(named: name)
    secretsBeingMoved.formUnion(moved.map(\.name))
    let secret = moved.first.map { "; its value went to the secrets file: \(name) says {{secret.\($0.name)}}" } ?? ""
    message = StatusMessage("\(name) set in \(home.label) (unsaved; Ctrl-S saves)\(secret)")
    return moved.map { .setSecret(name: $0.name, value: $0.value) }
  }

  /// `token` for a value that is exactly `{{secret.token}}`.
  static func secretReference(_ value: String) -> String? {
    guard value.hasPrefix("{{secret."), value.hasSuffix("}}"), case let name = String(value.dropFirst(9).dropLast(2)),
      Template.isValidName(name)
    else { return nil }
    return name
  }

  /// Removes a variable from the environment or workspace `variables` that define it (the
  /// next layer's value, if any, applies then); the others say where they are changed.
  private mutating func removeVariable(_ variable: ScopedVariable) {
    let name = variable.name
    let home: VariableHome
    switch variable.found?.layer {
    case .environment(let environment): home = .environment(environment)
    case .workspace: home = .workspace
    case .secretsFile:
      message = StatusMessage("secret.\(name.dropFirst(7)) is in the secrets file: reqbench secrets rm removes it", isError: true)
      return
    case nil:
      message = StatusMessage("\(name) is not defined anywhere: nothing to remove", isError: true)
      return
    default:
      // Set outside the file (--var, a chain, the process environment): Enter says where.
      editVariable(variable)
      return
    }
    do {
      try workspace.removeVariable(name, in: home)
    } catch {
      message = StatusMessage(error.message, isError: true)
      return
    }
    unsavedSettings.insert(home.key(of: name))
    let now = variableRows.first { $0.name == name }?.found.map { "; \($0.layer.label)'s value applies now" } ?? ""
    selectVariable(named: name)
    message = StatusMessage("\(name) removed from \(home.label) (unsaved; Ctrl-S saves)\(now)")
  }

  /// Highlights the variable `name` (or keeps the selection in range when it is gone).
  private mutating func selectVariable(named name: String) {
    let rows = variableRows
    if let index = rows.firstIndex(where: { $0.name == name }) {
      variablesOverlay.selection = index
    } else {
      variablesOverlay.selection = max(0, min(variablesOverlay.selection, rows.count - 1))
    }
    variablesOverlay.scroll = min(variablesOverlay.scroll, variablesOverlay.selection)
    if variablesOverlay.selection >= variablesOverlay.scroll + variableListRows {
      variablesOverlay.scroll = variablesOverlay.selection - variableListRows + 1
    }
  }

  private mutating func promptValue(_ variable: ScopedVariable, home: VariableHome) {
    promptValue(variable.name, current: variable.found?.value, home: home)
  }

  private mutating func promptValue(_ name: String, current: String?, home: VariableHome) {
    prompt = Prompt(
      purpose: .setVariable(name: name, home: home), label: "\(name) in \(home.label)",
      input: LineEdit(current ?? "", selected: true))
  }

  /// The hidden prompt for `secret.NAME`'s value.
  private mutating func promptSecret(_ name: String) {
    prompt = Prompt(purpose: .setSecret(name: String(name.dropFirst(7))), label: "\(name) (hidden, saved to the secrets file)", input: LineEdit(""))
  }

  /// The prompt's Enter: the new value in the workspace (unsaved), or the secret to the secrets file.
  mutating func acceptVariable(_ purpose: Prompt.Purpose, text: String) -> [Command] {
    switch purpose {
    case .setVariable(let name, let home):
      do {
        return try storeVariable(name, text, in: home)
      } catch {
        message = StatusMessage(error.message, isError: true)
        return []
      }
    case .setSecret(let name):
      guard !text.isEmpty else {
        message = StatusMessage("secret.\(name) not changed (the value was empty)")
        return []
      }
      message = StatusMessage("saving secret.\(name)…")
      return [.setSecret(name: name, value: text)]
    default:
      return []
    }
  }

  /// The runtime saved a secret (`secrets`: the file as now written) or could not.
  mutating func secretSaved(name: String, secrets: SecretsFile?, error: String?) {
    let moved = secretsBeingMoved.remove(name) != nil
    if let error {
      message = StatusMessage("secret.\(name) not saved: \(error)", isError: true)
      return
    }
    if let secrets {
      // The rows change with the secrets in scope: the highlight stays on its variable.
      let rows = variableRows
      let highlighted = rows.indices.contains(variablesOverlay.selection) ? rows[variablesOverlay.selection].name : nil
      sources.secrets = secrets
      if let highlighted { selectVariable(named: highlighted) }
    }
    if moved { return }  // the status bar says what was added, and where its credentials went
    let file = sources.secrets.url.map { " in \($0.lastPathComponent)" } ?? ""
    message = StatusMessage("secret.\(name) saved\(file)")
  }

  var variablesOverlayBox: OverlayBox {
    OverlayBox(screenWidth: width, screenHeight: height, margin: (4, 3), minimum: (40, 8))
  }

  /// Rows of variables the overlay shows (below its heading line, above its keys).
  var variableListRows: Int { variablesOverlayBox.listRows }
}

extension VariableHome {
  /// `environment staging`, `the workspace's variables`.
  public var label: String {
    switch self {
    case .workspace: "the workspace's variables"
    case .environment(let name): "environment \(name)"
    }
  }

  /// How `unsavedSettings` names an edit of `name` here.
  func key(of name: String) -> String {
    switch self {
    case .workspace: "variables.\(name)"
    case .environment(let environment): "environments.\(environment).\(name)"
    }
  }
}

extension Painter {
  func variablesOverlay(_ buffer: inout ScreenBuffer) {
    let rect = state.variablesOverlayBox.rect
    let rows = state.variableRows
    buffer.fill(rect)
    let request = state.selectedRequest?.name ?? "no request selected"
    let environment = state.environmentInUse.map { "environment \($0)" } ?? "no environment"
    buffer.box(rect, title: "Variables · \(request) · \(environment)", style: theme.focusedBorder, titleStyle: theme.focusedBorder)
    let inner = rect.inset(by: 1)
    let nameWidth = min(28, max(8, (rows.map { TextWidth.of($0.name) }.max() ?? 0) + 2))
    // The values as wide as the longest (to half the box), the layers the rest.
    let longest = rows.map { $0.isSecret && $0.found != nil ? 4 : TextWidth.of(ControlEscaping.visible($0.found?.value ?? "undefined")) }.max() ?? 5
    let valueWidth = max(5, min(longest, (inner.width - 2 - nameWidth) / 2))
    let heading = TextWidth.pad("NAME", to: nameWidth) + TextWidth.pad("VALUE", to: valueWidth + 2) + "FROM"
    buffer.putTruncated(heading, x: inner.x + 1, y: inner.y, style: theme.dim, width: inner.width - 2)
    if rows.isEmpty {
      buffer.putTruncated(
        "no variables yet: a adds one (NAME=value) to \(state.newVariableHome.label)", x: inner.x + 1, y: inner.y + 2, style: theme.dim,
        width: inner.width - 2)
    }
    let overlay = state.variablesOverlay
    for row in 0..<state.variableListRows {
      let index = overlay.scroll + row
      guard rows.indices.contains(index) else { break }
      let variable = rows[index]
      let y = inner.y + 1 + row
      let value: String
      let from: String
      var style: Style = variable.used ? .plain : theme.dim
      if let found = variable.found {
        value = variable.isSecret ? Redaction.mask : ControlEscaping.visible(found.value)
        from = found.layer.label + (variable.shadowed.isEmpty ? "" : " (over \(variable.shadowed.map(\.label).joined(separator: ", ")))")
      } else {
        value = "undefined"
        from = "nothing defines it"
        style = theme.error
      }
      var x = inner.x + 1
      buffer.putTruncated(variable.name, x: x, y: y, style: variable.used ? theme.key : theme.dim, width: nameWidth - 1)
      x += nameWidth
      buffer.putTruncated(value, x: x, y: y, style: style, width: valueWidth)
      x += valueWidth + 2
      buffer.putTruncated(from, x: x, y: y, style: theme.dim, width: inner.x + inner.width - 1 - x)
      if index == overlay.selection { highlight(&buffer, Rect(x: inner.x, y: y, width: inner.width, height: 1), focused: true) }
    }
    buffer.putTruncated(
      overlay.footer(in: state).text,
      x: inner.x + 1, y: inner.y + inner.height - 1, style: theme.dim, width: inner.width - 2)
  }
}

extension VariablesOverlayState: Overlay {
  static let id = OverlayID.variables
  static var openedBy: Action? { .showVariables }

  static func open(_ app: inout AppState) -> [Command] {
    app.openVariablesOverlay()
    return []
  }

  func keyContext(in app: AppState) -> KeyContext { .variables }
  static func update(_ key: Key, _ app: inout AppState) -> [Command] { app.handleVariablesOverlayKey(key) }
  func view(_ painter: Painter, _ buffer: inout ScreenBuffer) { painter.variablesOverlay(&buffer) }

  func footer(in app: AppState) -> Footer {
    let rows = app.variableRows
    let used = rows.filter(\.used).count
    var footer = Footer()
    footer.text("\(used) used by the request (bright), \(rows.count - used) more in scope")
    footer.keys([(.down, .char("j")), (.up, .char("k"))], in: .variables, joiner: " ", "select")
    footer.key(.editVariable, in: .variables, "edit")
    footer.key(.addVariable, in: .variables, "add")
    footer.key(.removeVariable, in: .variables, "remove")
    footer.key(.chooseEnvironment, in: .variables, "environments")
    footer.key(.closeOverlay, in: .variables, "close")
    return footer
  }
}

extension OverlayID { public static let variables = OverlayID("variables") }

extension AppState {
  /// The variables overlay's state (a fresh one while it is closed; setting it changes the open one).
  public var variablesOverlay: VariablesOverlayState {
    get { self[overlay: VariablesOverlayState()] } set { self[overlay: VariablesOverlayState()] = newValue }
  }
}
