import Foundation
import RequestEngine
import Workspace

/// One line of the editor's form for a batch or chain: as `EditorField` is for a request, a value
/// edited in place or chosen from a list.
public struct FlowField: Sendable, Equatable {
  public enum Kind: Sendable, Equatable {
    /// A batch: its mode (`policy`), how many members run at once, each member, a line to add one.
    case policy, concurrency, member(Int), addMember
    /// A chain: what a failed step does, each step, its vars (read-only here), its captures and
    /// a line to add one, then a line to add a step.
    case onFailure, step(Int), vars(step: Int), capture(step: Int, index: Int), addCapture(step: Int), addStep
  }

  /// How `e` and Enter edit the line.
  public enum Edit: Sendable, Equatable {
    case inPlace
    case choice(ChoiceList.Purpose)
    /// Not edited here: why, and where it is.
    case readOnly(String)
  }

  public var kind: Kind
  public var label: String
  /// What the line shows and, edited in place, the text it starts with (empty on a `+` line).
  public var value: String

  public var edit: Edit {
    switch kind {
    case .policy: .choice(.batchPolicy)
    case .onFailure: .choice(.chainOnFailure)
    case .vars: .readOnly("a step's vars are edited in the workspace file (\"vars\": {\"id\": \"{{uid}}\"})")
    default: .inPlace
    }
  }

  /// A line whose Enter adds a member, step or capture.
  var adds: Bool {
    switch kind {
    case .addMember, .addStep, .addCapture: true
    default: false
    }
  }

  /// The names Tab completes on this line: requests and chains for a member, requests for a step.
  func names(in workspace: Workspace) -> [String]? {
    switch kind {
    case .member, .addMember: workspace.requests.map(\.name) + workspace.chains.map(\.name)
    case .step, .addStep: workspace.requests.map(\.name)
    default: nil
    }
  }
}

extension Workspace {
  /// The form of the batch or chain `name`, in order (empty when there is none).
  public func flowFields(_ name: String) -> [FlowField] {
    if let batch = batch(named: name) {
      var fields = [
        FlowField(kind: .policy, label: "Mode", value: batch.policy.rawValue),
        FlowField(kind: .concurrency, label: "Concurrency", value: String(batch.concurrency)),
      ]
      for (i, member) in batch.members.enumerated() { fields.append(FlowField(kind: .member(i), label: "Member", value: member)) }
      fields.append(FlowField(kind: .addMember, label: "Member", value: ""))
      return fields
    }
    guard let chain = chain(named: name) else { return [] }
    var fields = [FlowField(kind: .onFailure, label: "On failure", value: chain.onFailure.rawValue)]
    for (s, step) in chain.steps.enumerated() {
      fields.append(FlowField(kind: .step(s), label: "Step \(s + 1)", value: step.request))
      if !step.vars.isEmpty {
        fields.append(
          FlowField(kind: .vars(step: s), label: "  Vars", value: step.vars.map { "\($0.name)=\($0.value)" }.joined(separator: ", ")))
      }
      for (c, capture) in step.capture.enumerated() {
        fields.append(
          FlowField(kind: .capture(step: s, index: c), label: "  Capture", value: "\(capture.name) = \(capture.source.text)"))
      }
      fields.append(FlowField(kind: .addCapture(step: s), label: "  Capture", value: ""))
    }
    fields.append(FlowField(kind: .addStep, label: "Step", value: ""))
    return fields
  }
}

/// The key a capture's preview is kept by: the exchange it ran over and the capture's source.
public struct CapturePreviewKey: Sendable, Hashable {
  public var exchange: ExchangeID
  public var source: String
  public init(exchange: ExchangeID, source: String) {
    self.exchange = exchange
    self.source = source
  }
}

/// A capture run over its step's last response.
public enum CapturePreview: Sendable, Equatable {
  case pending
  /// The value a run of the chain would capture.
  case value(String)
  /// Why it would find nothing (`found nothing`, jq's error).
  case failed(String)
}

/// The editor's form for a batch or chain: moving over its lines, editing one in place, choosing
/// a mode, removing and moving members, steps and captures. Every change goes through the
/// workspace model (`Workspace+FlowEditing.swift`) and marks the flow unsaved.
extension AppState {
  mutating func handleFlowEditor(_ action: Action) -> [Command] {
    guard let flow = selectedFlow else { return [] }
    let fields = workspace.flowFields(flow.name)
    if let index = move(action, editor.field, count: fields.count, page: layout.contentHeight(of: .editor)) {
      selectField(index)
      return []
    }
    switch action {
    case .runFlow:
      message = StatusMessage("running \(flow.name)")
      return [.runFlow(name: flow.name, fromStep: 1, captured: [:])]
    case .cancelFlow:
      let running = flows.filter { $0.name == flow.name && !$0.state.isTerminal }
      if running.isEmpty { message = StatusMessage("\(flow.name) is not running") }
      return running.map { .cancelFlow(run: $0.run) }
    default:
      break
    }
    guard fields.indices.contains(editor.field) else { return [] }
    let field = fields[editor.field]
    switch action {
    case .editField:
      switch field.edit {
      case .inPlace:
        editor.editing = LineEdit(field.value)
        if field.kind == .addMember || field.kind == .addStep {
          message = StatusMessage("type a request's name (Tab completes it)")
        } else if case .addCapture = field.kind {
          message = StatusMessage("name = .jq.path (or header:Name, status, event:.path)")
        }
      case .choice(let purpose): editor.choosing = ChoiceList(purpose, current: field.value)
      case .readOnly(let why): message = StatusMessage(why)
      }
    case .removeFlowItem:
      removeFlowItem(field, in: flow.name)
    case .moveItemUp, .moveItemDown:
      moveFlowItem(field, by: action == .moveItemUp ? -1 : 1, in: flow.name)
    default:
      break
    }
    return []
  }

  /// A line of the form being edited: Enter keeps it (through the model), Esc cancels, Ctrl-S
  /// keeps then saves, Tab completes a request's name.
  mutating func handleFlowEditing(_ key: Key) -> [Command] {
    guard var edit = editor.editing, let flow = selectedFlow else {
      editor.editing = nil
      return []
    }
    let fields = workspace.flowFields(flow.name)
    guard fields.indices.contains(editor.field) else {
      editor.editing = nil
      return []
    }
    let field = fields[editor.field]
    switch Keymap.action(for: key, in: .editing) {
    case .save:
      let commands = handleFlowEditing(.enter)
      return editor.editing == nil ? commands + [.save] : commands
    case .cancelEdit:
      editor.editing = nil
      message = StatusMessage("edit cancelled")
    case .keepEdit:
      let text = edit.text.trimmingCharacters(in: .whitespaces)
      if text.isEmpty, field.adds {
        editor.editing = nil
        message = StatusMessage("nothing added")
        return []
      }
      do {
        let said = try applyFlowEdit(text, to: field.kind, in: flow.name)
        editor.editing = nil
        unsaved.insert(flow.name)
        message = StatusMessage(said + "; Ctrl-S saves")
        // Added: the `+` line again, below the new one, to add another.
        if field.adds { selectField(min(editor.field + 1, workspace.flowFields(flow.name).count - 1)) }
      } catch {
        message = StatusMessage(error.message + " (Esc cancels)", isError: true)
      }
    case .completeName:
      guard let names = field.names(in: workspace) else { return [] }
      let (completed, matches) = FlowField.complete(edit.text, among: names)
      if completed != edit.text { edit = LineEdit(completed) }
      editor.editing = edit
      message =
        matches.isEmpty
        ? StatusMessage("no name holds \(JSONSerializer.quote(edit.text))", isError: true)
        : matches.count == 1 ? nil : StatusMessage("\(matches.count) names fit: " + matches.prefix(6).joined(separator: ", "))
    default:
      if edit.apply(key) { editor.editing = edit }
    }
    return []
  }

  /// Takes the text typed on a line; returns what the status line says.
  private mutating func applyFlowEdit(_ text: String, to kind: FlowField.Kind, in name: String) throws(WorkspaceEditError) -> String {
    switch kind {
    case .concurrency:
      guard let n = Int(text) else {
        throw WorkspaceEditError("the concurrency is a whole number from 1 to \(ValueLimits.concurrency)")
      }
      try workspace.setBatchConcurrency(n, of: name)
      return "\(n) member\(n == 1 ? "" : "s") at a time"
    case .member(let i):
      if text.isEmpty { return "removed \(try workspace.removeBatchMember(at: i, from: name)) from \(name)" }
      try workspace.setBatchMember(text, at: i, in: name)
      return "member \(i + 1) is \(text)"
    case .addMember:
      try workspace.setBatchMember(text, at: nil, in: name)
      return "added \(text) to \(name); Enter adds another"
    case .step(let i):
      if text.isEmpty { return removedStepText(try workspace.removeChainStep(at: i, from: name), i) }
      try workspace.setChainStep(request: text, at: i, in: name)
      return "step \(i + 1) sends \(text)"
    case .addStep:
      try workspace.setChainStep(request: text, at: nil, in: name)
      return "added a step sending \(text); Enter on its + Capture line captures from it"
    case .capture(let step, let index):
      if text.isEmpty {
        try workspace.removeCapture(at: index, step: step, in: name)
        return "removed capture \(index + 1) of step \(step + 1)"
      }
      let (variable, source) = try Self.captureParts(text)
      try workspace.setCapture(variable, source: source, at: index, step: step, in: name)
      return "step \(step + 1) captures \(variable) from \(source)"
    case .addCapture(let step):
      let (variable, source) = try Self.captureParts(text)
      try workspace.setCapture(variable, source: source, at: nil, step: step, in: name)
      return "step \(step + 1) captures \(variable) from \(source): later steps use {{\(variable)}}"
    case .policy, .onFailure, .vars:
      throw WorkspaceEditError("Enter on this line chooses from a list")
    }
  }

  /// `token = .token` as its name and its source.
  static func captureParts(_ text: String) throws(WorkspaceEditError) -> (String, String) {
    guard let eq = text.firstIndex(of: "="), eq != text.startIndex else {
      throw WorkspaceEditError("write a capture as name = .jq.path (or header:Name, status, event:.path)")
    }
    return (
      text[..<eq].trimmingCharacters(in: .whitespaces),
      text[text.index(after: eq)...].trimmingCharacters(in: .whitespaces)
    )
  }

  private func removedStepText(_ step: ChainStep, _ index: Int) -> String {
    let captures = step.capture.count
    return "removed step \(index + 1) (\(step.request)"
      + (captures == 0 ? "" : ", with its \(captures) capture\(captures == 1 ? "" : "s")") + ")"
  }

  /// `d`: the member, step or capture selected goes.
  private mutating func removeFlowItem(_ field: FlowField, in name: String) {
    do throws(WorkspaceEditError) {
      let said: String
      switch field.kind {
      case .member(let i): said = "removed \(try workspace.removeBatchMember(at: i, from: name)) from \(name)"
      case .step(let i): said = removedStepText(try workspace.removeChainStep(at: i, from: name), i)
      case .capture(let step, let index):
        try workspace.removeCapture(at: index, step: step, in: name)
        said = "removed capture \(index + 1) of step \(step + 1)"
      default:
        message = StatusMessage("d removes a member, a step or a capture; this line is none of them")
        return
      }
      unsaved.insert(name)
      selectField(min(editor.field, max(0, workspace.flowFields(name).count - 1)))
      message = StatusMessage(said + "; Ctrl-S saves")
    } catch {
      message = StatusMessage(error.message, isError: true)
    }
  }

  /// `<` and `>`: the member, step or capture selected moves one place; the selection follows it.
  private mutating func moveFlowItem(_ field: FlowField, by offset: Int, in name: String) {
    do throws(WorkspaceEditError) {
      let moved: FlowField.Kind
      switch field.kind {
      case .member(let i): moved = .member(try workspace.moveBatchMember(at: i, by: offset, in: name))
      case .step(let i): moved = .step(try workspace.moveChainStep(at: i, by: offset, in: name))
      case .capture(let step, let index):
        moved = .capture(step: step, index: try workspace.moveCapture(at: index, by: offset, step: step, in: name))
      default:
        message = StatusMessage("< and > move a member, a step or a capture; this line is none of them")
        return
      }
      unsaved.insert(name)
      if let index = workspace.flowFields(name).firstIndex(where: { $0.kind == moved }) { selectField(index) }
      message = StatusMessage("moved \(offset < 0 ? "up" : "down"); Ctrl-S saves")
    } catch {
      message = StatusMessage(error.message, isError: true)
    }
  }

  /// The chain's mode or the batch's, chosen from the list.
  mutating func chooseFlowSetting(_ option: String, _ purpose: ChoiceList.Purpose) {
    guard let flow = selectedFlow else { return }
    do throws(WorkspaceEditError) {
      switch purpose {
      case .batchPolicy:
        guard let policy = Batch.Policy(rawValue: option), workspace.batch(named: flow.name)?.policy != policy else {
          message = StatusMessage("the mode is \(option) already")
          return
        }
        try workspace.setBatchPolicy(policy, of: flow.name)
      case .chainOnFailure:
        guard let onFailure = Chain.OnFailure(rawValue: option), workspace.chain(named: flow.name)?.onFailure != onFailure else {
          message = StatusMessage("on failure: \(option) already")
          return
        }
        try workspace.setChainOnFailure(onFailure, of: flow.name)
      case .bodyKind, .authKind:
        return
      }
      unsaved.insert(flow.name)
      message = StatusMessage("\(purpose.title.lowercased()): \(option) (\(purpose.note(option))); Ctrl-S saves")
    } catch {
      message = StatusMessage(error.message, isError: true)
    }
  }

  /// The lines of the editor: the request's fields, or the batch's or chain's form.
  var editorFieldCount: Int {
    selectedRequest?.editorFields.count ?? selectedFlow.map { workspace.flowFields($0.name).count } ?? 0
  }

  /// The newest exchange of request `name` that has ended with a response (or failed): what a
  /// capture of its step is previewed against.
  func lastResponse(of name: String) -> ExchangeRow? {
    exchanges.first { $0.name == name && $0.state.isTerminal && $0.result != nil }
  }

  /// For the chain selected, a `previewCapture` for each capture not yet run over its step's
  /// last response.
  mutating func capturePreviewCommands() -> [Command] {
    guard let flow = selectedFlow, flow.kind == .chain, let chain = workspace.chain(named: flow.name) else { return [] }
    var commands: [Command] = []
    for step in chain.steps {
      guard let row = lastResponse(of: step.request) else { continue }
      for capture in step.capture {
        let key = CapturePreviewKey(exchange: row.id, source: capture.source.text)
        guard editor.capturePreviews[key] == nil else { continue }
        editor.capturePreviews[key] = .pending
        commands.append(.previewCapture(capture.source, key))
      }
    }
    return commands
  }
}

extension FlowField {
  /// Tab on a name being typed: the names starting with it (else holding it), and the text made
  /// as long as they all agree (the whole name when one fits).
  static func complete(_ typed: String, among names: [String]) -> (text: String, matches: [String]) {
    let lower = typed.lowercased()
    var matches = names.filter { $0.lowercased().hasPrefix(lower) }
    if matches.isEmpty { matches = names.filter { $0.lowercased().contains(lower) } }
    guard let first = matches.first else { return (typed, []) }
    var common = first
    for name in matches.dropFirst() {
      while !name.hasPrefix(common) { common.removeLast() }
    }
    return (common.count > typed.count ? common : typed, matches)
  }
}
