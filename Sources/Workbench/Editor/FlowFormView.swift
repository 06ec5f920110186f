import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// The editor pane's form for a batch or chain: a line saying what it is, then its fields
/// (`Workspace.flowFields`), each capture beside its value on the step's last response.
extension Painter {
  /// The width of the form's labels (`Concurrency` and a space).
  static let flowLabelWidth = 12

  func flowForm(_ buffer: inout ScreenBuffer, _ area: Rect, _ name: String) {
    let isBatch = state.workspace.batch(named: name) != nil
    buffer.putTruncated(
      isBatch
        ? "batch · its members are sent together, so many at a time"
        : "chain · its steps are sent one after another; what a step captures, later steps use as {{name}}",
      x: area.x + 1, y: area.y, style: theme.dim, width: area.width - 1)
    let fields = state.workspace.flowFields(name)
    let chain = state.workspace.chain(named: name)
    for (line, field) in fields.enumerated().dropFirst(state.editor.scroll).prefix(max(0, area.height - 1)) {
      let y = area.y + 1 + line - state.editor.scroll
      let isSelected = line == state.editor.field
      var x = area.x + 1
      let right = area.x + area.width
      x += buffer.put(TextWidth.pad(field.label, to: Painter.flowLabelWidth), x: x, y: y, style: theme.dim)
      if isSelected, let edit = state.editor.editing {
        drawEdit(edit, &buffer, x: x, y: y, width: right - x)
        if let names = field.names(in: state.workspace), y + 1 < area.y + area.height {
          // The names that fit what is typed, on the line below (Tab completes).
          let fitting = FlowField.complete(edit.text, among: names).matches
          let text = fitting.isEmpty ? "no request by that name" : "Tab completes: " + fitting.prefix(8).joined(separator: "  ")
          let below = Rect(x: x, y: y + 1, width: right - x, height: 1)
          buffer.fill(below)
          buffer.putTruncated(text, x: x, y: y + 1, style: fitting.isEmpty ? theme.error : theme.dim, width: right - x)
        }
        continue
      }
      let (value, note, noteStyle) = describe(field, chain: chain)
      if value.isEmpty {
        buffer.putTruncated(note, x: x, y: y, style: theme.dim, width: right - x)
      } else {
        let readOnly = if case .vars = field.kind { true } else { false }
        x += buffer.putTruncated(value, x: x, y: y, style: readOnly ? theme.dim : .plain, width: right - x)
        if !note.isEmpty, x + 4 < right { buffer.putTruncated("  " + note, x: x, y: y, style: noteStyle, width: right - x) }
      }
      if isSelected {
        buffer.setStyle(Rect(x: area.x, y: y, width: area.width, height: 1)) { style in
          if state.focus == .editor { style.reverse = true } else { style.underline = true }
        }
      }
    }
  }

  /// A line's value, and what is said beside it (or, for a `+` line, in its place).
  private func describe(_ field: FlowField, chain: Chain?) -> (String, String, Style) {
    switch field.kind {
    case .policy, .onFailure:
      let purpose: ChoiceList.Purpose = field.kind == .policy ? .batchPolicy : .chainOnFailure
      return (field.value, purpose.note(field.value), theme.dim)
    case .concurrency:
      return (field.value, "at a time", theme.dim)
    case .member:
      return (field.value, state.workspace.chain(named: field.value) != nil ? "chain" : "request", theme.dim)
    case .addMember:
      return ("", "+ add a request or chain by name", theme.dim)
    case .step:
      guard let row = state.lastResponse(of: field.value) else {
        let running = state.exchanges.contains { $0.name == field.value && !$0.state.isTerminal }
        let hasCaptures = chain.map { chain in chain.steps.contains { $0.request == field.value && !$0.capture.isEmpty } } ?? false
        let none = hasCaptures ? "no response yet: s runs the chain, then its captures preview" : "no response yet"
        return (field.value, running ? "running…" : none, theme.dim)
      }
      return (field.value, "last response: " + (row.status.map(String.init) ?? row.state.rawValue), theme.dim)
    case .vars:
      return (field.value, "(edited in the file)", theme.dim)
    case .capture(let step, let index):
      guard let chain, chain.steps.indices.contains(step), chain.steps[step].capture.indices.contains(index) else {
        return (field.value, "", theme.dim)
      }
      guard let row = state.lastResponse(of: chain.steps[step].request) else { return (field.value, "", theme.dim) }
      let key = CapturePreviewKey(exchange: row.id, source: chain.steps[step].capture[index].source.text)
      switch state.editor.capturePreviews[key] {
      case .value(let value)?: return (field.value, "→ " + value.replacingOccurrences(of: "\n", with: "⏎"), theme.status(200))
      case .failed(let reason)?: return (field.value, "✗ " + reason, theme.error)
      case .pending?, nil: return (field.value, "→ …", theme.dim)
      }
    case .addCapture:
      return ("", "+ add name = .jq.path (header:Name, status)", theme.dim)
    case .addStep:
      return ("", "+ add a step: a request by name", theme.dim)
    }
  }
}
