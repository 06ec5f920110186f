import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// A short list opened under an editor field to choose its value: the body's type (none, json,
/// form, multipart, text, file) or the auth's type (none, basic, bearer, digest). The field's
/// current value is marked; j k (↑ ↓) move, Enter takes one, Esc keeps the field as it was.
public struct ChoiceList: Sendable, Equatable {
  public enum Purpose: Sendable, Equatable {
    case bodyKind, authKind
    /// A batch's mode, a chain's behaviour on a failed step (the flow form).
    case batchPolicy, chainOnFailure
  }

  public var purpose: Purpose
  /// The highlighted option.
  public var selection: Int

  public init(_ purpose: Purpose, current: String) {
    self.purpose = purpose
    self.selection = max(0, purpose.options.firstIndex(of: current) ?? 0)
  }
}

extension ChoiceList.Purpose {
  /// The options, in the order the list shows them.
  public var options: [String] {
    switch self {
    case .bodyKind: BodyKind.allCases.map(\.rawValue)
    case .authKind: AuthKind.chosenInEditor.map(\.rawValue)
    case .batchPolicy: Batch.Policy.allCases.map(\.rawValue)
    case .chainOnFailure: Chain.OnFailure.allCases.map(\.rawValue)
    }
  }

  /// What an option does, beside it in the list.
  func note(_ option: String) -> String {
    switch (self, option) {
    case (.bodyKind, "none"): "no body"
    case (.bodyKind, "json"): "application/json, E writes it"
    case (.bodyKind, "form"): "urlencoded fields"
    case (.bodyKind, "multipart"): "form-data parts, files streamed"
    case (.bodyKind, "text"): "text/plain unless a Content-Type says"
    case (.bodyKind, "file"): "a file's bytes, streamed"
    case (.authKind, "none"): "no Authorization"
    case (.authKind, "basic"): "user and password, sent up front"
    case (.authKind, "bearer"): "Authorization: Bearer TOKEN"
    case (.authKind, "digest"): "user and password, curl answers the challenge"
    case (.batchPolicy, "failFast"): "the first failure cancels the others"
    case (.batchPolicy, "allSettled"): "every member runs to its end"
    case (.chainOnFailure, "stop"): "a failed step ends the chain"
    case (.chainOnFailure, "continue"): "the later steps run; the chain still fails"
    default: ""
    }
  }

  var title: String {
    switch self {
    case .bodyKind: "Body type"
    case .authKind: "Auth type"
    case .batchPolicy: "Mode"
    case .chainOnFailure: "On failure"
    }
  }
}

extension AppState {
  /// Opens the list for the selected field.
  mutating func openChoice(_ purpose: ChoiceList.Purpose, for template: RequestTemplate) {
    let current =
      switch purpose {
      case .bodyKind: template.bodyKind.rawValue
      case .authKind: template.authKind.rawValue
      case .batchPolicy, .chainOnFailure: ""
      }
    editor.choosing = ChoiceList(purpose, current: current)
  }

  mutating func handleChoiceKey(_ key: Key) -> [Command] {
    guard var choice = editor.choosing, selectedRequest != nil || selectedFlow != nil else {
      editor.choosing = nil
      return []
    }
    let options = choice.purpose.options
    switch Keymap.action(for: key, in: .choice) {
    case let action? where [.down, .up, .first, .last].contains(action):
      if let index = move(action, choice.selection, count: options.count, page: options.count) {
        choice.selection = index
        editor.choosing = choice
      }
    case .choose:
      editor.choosing = nil
      switch choice.purpose {
      case .batchPolicy, .chainOnFailure: chooseFlowSetting(options[choice.selection], choice.purpose)
      case .bodyKind, .authKind:
        if let template = selectedRequest { choose(options[choice.selection], choice.purpose, in: template) }
      }
    case .closeChoice:
      editor.choosing = nil
      message = StatusMessage("\(choice.purpose.title.lowercased()) unchanged")
    default:
      break
    }
    return []
  }

  /// Applies the chosen type through the workspace model (`setBodyKind`, `setAuthKind`), which
  /// keeps what the new type can hold.
  private mutating func choose(_ option: String, _ purpose: ChoiceList.Purpose, in template: RequestTemplate) {
    var changed = template
    switch purpose {
    case .bodyKind:
      guard let kind = BodyKind(rawValue: option) else { return }
      guard kind != template.bodyKind else {
        message = StatusMessage("the body is \(option) already" + (kind == .none ? "" : "; E edits it"))
        return
      }
      if kind == .file, template.fileBodyPath == nil {
        // A file body needs its path: asked in place, on the body's line.
        editor.editing = LineEdit("")
        editor.editingKind = .bodyFile
        message = StatusMessage("the file to send, relative to the workspace's folder")
        return
      }
      do {
        try changed.setBodyKind(kind)
      } catch {
        message = StatusMessage(error.message, isError: true)
        return
      }
      guard take(changed, replacing: template) else { return }
      let said: String =
        switch kind {
        case .none: "no body now; Ctrl-S saves"
        case .json: "body type json: sent as application/json; E writes it in $EDITOR (a .json file)"
        default: "body type \(option); E edits it in $EDITOR, Ctrl-S saves"
        }
      message = StatusMessage(said)
    case .authKind:
      guard let kind = AuthKind(rawValue: option) else { return }
      changed.setAuthKind(kind)
      guard changed.auth != template.auth else {
        message = StatusMessage("auth is \(option) already")
        return
      }
      guard take(changed, replacing: template) else { return }
      // A new type's first empty credential is edited at once.
      let fields = changed.editorFields
      if let index = fields.firstIndex(where: { [.authUser, .authToken].contains($0.kind) && $0.value.isEmpty }) {
        selectField(index)
        editor.editing = LineEdit("")
        message = StatusMessage("auth \(option): type the \(fields[index].kind == .authToken ? "token" : "user") ({{secret.NAME}} works)")
      } else {
        message = StatusMessage(kind == .none ? "no auth now; Ctrl-S saves" : "auth \(option); Ctrl-S saves")
      }
    case .batchPolicy, .chainOnFailure:
      chooseFlowSetting(option, purpose)
    }
  }
}

extension RequestTemplate {
  /// The path of a file body, or of a multipart body's one file part (what `file` keeps).
  var fileBodyPath: String? {
    switch body {
    case .file(let path, _): path
    case .multipart(let parts) where parts.count == 1: parts[0].file
    default: nil
    }
  }
}

extension Painter {
  /// The list under (or, with no room below, over) the selected field's value, drawn over the
  /// panes.
  func choiceList(_ buffer: inout ScreenBuffer) {
    guard let choice = state.editor.choosing else { return }
    let area = inner(.editor)
    // The field's line: below the resolved request line, as the editor scrolled it.
    let y = area.y + 1 + state.editor.field - state.editor.scroll
    guard y >= area.y, y < area.y + area.height else { return }
    let x = area.x + (state.selectedFlow == nil ? Painter.editorLabelWidth : Painter.flowLabelWidth)
    let options = choice.purpose.options
    let notes = options.map(choice.purpose.note)
    let optionWidth = (options.map(TextWidth.of).max() ?? 4) + 2
    let width = min(buffer.width - x, optionWidth + (notes.map(TextWidth.of).max() ?? 0) + 5)
    let height = options.count + 2
    let top = y + 1 + height <= buffer.height - 1 ? y + 1 : max(0, y - height)
    let rect = Rect(x: x, y: top, width: width, height: height)
    buffer.fill(rect)
    buffer.box(rect, title: choice.purpose.title, style: theme.focusedBorder, titleStyle: theme.focusedBorder)
    let current =
      switch choice.purpose {
      case .bodyKind: state.selectedRequest?.bodyKind.rawValue
      case .authKind: state.selectedRequest?.authKind.rawValue
      case .batchPolicy, .chainOnFailure: state.selectedFlow.flatMap { state.workspace.flowFields($0.name).first?.value }
      }
    for (i, option) in options.enumerated() {
      let row = rect.y + 1 + i
      let isCurrent = option == current
      buffer.putTruncated((isCurrent ? "● " : "  ") + option, x: rect.x + 1, y: row, style: isCurrent ? theme.key : .plain, width: optionWidth)
      buffer.putTruncated(notes[i], x: rect.x + 2 + optionWidth, y: row, style: theme.dim, width: rect.width - optionWidth - 3)
      if i == choice.selection { highlight(&buffer, Rect(x: rect.x + 1, y: row, width: rect.width - 2, height: 1), focused: true) }
    }
  }
}
