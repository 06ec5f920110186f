import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// The editor pane: the request as it will be sent, then its fields (a batch's or chain's form:
/// `FlowFormView.swift`).
extension Painter {
  /// The width of the fields' labels; their values start after it.
  static let editorLabelWidth = 11

  func editor(_ buffer: inout ScreenBuffer) {
    let shown = state.selectedRequest?.name ?? state.selectedFlow?.name
    let unsaved = shown.map { state.unsaved.contains($0) } ?? false
    frame(
      &buffer, .editor,
      suffix: state.selectedFolder.map { " · \($0)/" } ?? shown.map { " · \($0)\(unsaved ? " ●" : "")" } ?? "")
    let area = inner(.editor)
    if let flow = state.selectedFlow {
      flowForm(&buffer, area, flow.name)
      return
    }
    if let folder = state.selectedFolder {
      folderSummary(&buffer, area, folder)
      return
    }
    guard let template = state.selectedRequest else {
      if state.workspace.requests.isEmpty {
        gettingStarted(&buffer, area)
      } else {
        buffer.putTruncated("select a request on the left", x: area.x + 1, y: area.y, style: theme.dim, width: area.width - 1)
      }
      return
    }
    // The resolved request (variables filled in, secrets masked) above the fields.
    var resolved: Request?
    switch state.preparedSelection() {
    case .success(let request)?:
      let redacted = request.redacted()
      resolved = redacted
      var x = area.x + 1
      x += buffer.put("→ ", x: x, y: area.y, style: theme.dim)
      x += buffer.put(redacted.method.rawValue + " ", x: x, y: area.y, style: theme.method(redacted.method))
      buffer.putTruncated(redacted.url, x: x, y: area.y, style: theme.dim, width: area.x + area.width - x)
    case .failure(let error)?:
      buffer.putTruncated("✗ " + error.advisingTUI(error.message), x: area.x + 1, y: area.y, style: theme.error, width: area.width - 1)
    case nil:
      break
    }
    let fields = template.editorFields
    let labelWidth = Painter.editorLabelWidth
    for (line, field) in fields.enumerated().dropFirst(state.editor.scroll).prefix(max(0, area.height - 1)) {
      let y = area.y + 1 + line - state.editor.scroll
      let isSelected = line == state.editor.field
      var x = area.x + 1
      let label = isSelected && state.editor.editingKind == .bodyFile ? "  File" : field.label
      x += buffer.put(TextWidth.pad(label, to: labelWidth), x: x, y: y, style: theme.dim)
      if isSelected, let edit = state.editor.editing {
        drawEdit(edit, &buffer, x: x, y: y, width: area.x + area.width - x)
        continue
      }
      var value = field.value
      if value.isEmpty {
        switch field.kind {
        case .addQuery: value = "+ add name=value"
        case .addHeader: value = "+ add Name: value"
        case .body: value = "none (Enter chooses a type, E writes it in $EDITOR)"
        case .auth: value = "none (Enter chooses a type)"
        default: value = "-"
        }
        buffer.putTruncated(value, x: x, y: y, style: theme.dim, width: area.x + area.width - x)
      } else if field.kind == .method, let method = HTTPMethod(rawValue: value) {
        buffer.put(value, x: x, y: y, style: theme.method(method))
      } else if !field.enabled {
        // Switched off: kept, not sent.
        x += buffer.putTruncated(value.replacingOccurrences(of: "\n", with: "⏎"), x: x, y: y, style: theme.dim, width: area.x + area.width - x)
        buffer.putTruncated("  off (space turns it on)", x: x, y: y, style: theme.dim, width: area.x + area.width - x)
      } else if field.isMasked {
        buffer.putTruncated("••••", x: x, y: y, width: area.x + area.width - x)
      } else {
        x += buffer.putTruncated(value.replacingOccurrences(of: "\n", with: "⏎"), x: x, y: y, width: area.x + area.width - x)
        // A template's value as it will be sent (the body: its content type), beside it.
        if value.contains("{{") || field.kind == .body, let shown = resolvedValue(of: field, in: template, resolved),
          x + 4 < area.x + area.width
        {
          buffer.putTruncated("  → " + shown, x: x, y: y, style: theme.dim, width: area.x + area.width - x)
        }
      }
      if isSelected {
        buffer.setStyle(Rect(x: area.x, y: y, width: area.width, height: 1)) { style in
          if state.focus == .editor { style.reverse = true } else { style.underline = true }
        }
      }
    }
  }

  /// What a header, query parameter or auth field holds once variables are filled in (secrets
  /// masked), taken from the prepared request.
  func resolvedValue(of field: EditorField, in template: RequestTemplate, _ request: Request?) -> String? {
    guard let request else { return nil }
    switch field.kind {
    case .header(let i):
      guard template.headers.fields.indices.contains(i) else { return nil }
      return request.headers[template.headers.fields[i].name]
    case .auth, .authUser, .authPassword, .authToken, .authGrant:
      return request.headers["Authorization"]
    case .body:
      // What the body is sent as: a Content-Type header of the request wins.
      if case .multipart? = template.body { return request.headers["Content-Type"] ?? "multipart/form-data" }
      return request.headers["Content-Type"] ?? request.body.contentType
    case .query(let i):
      guard template.query.members.indices.contains(i) else { return nil }
      let query = URLResolver.split(request.url).query ?? ""
      let prefix = QueryEncoder.encodeComponent(template.query.members[i].key) + "="
      return query.split(separator: "&").first { $0.hasPrefix(prefix) }.map(String.init)
    default:
      return nil
    }
  }

  /// An empty workspace says how to begin.
  func gettingStarted(_ buffer: inout ScreenBuffer, _ area: Rect) {
    func keys(_ action: Action) -> String { Keymap.binding(action, in: .requests)?.keyText ?? "" }
    var lines: [(String, String)] = [
      ("", "No requests yet. To begin:"),
      (keys(.newRequest), "new request: type METHOD URL (GET https://api.test/users), a curl or HTTPie command, an .http request"),
      ("paste", "a curl or HTTPie command, an .http request, a Postman collection or environment, a HAR"),
      (keys(.chooseEnvironment), "environments: n adds one (dev, staging…); V then gives it variables ({{host}})"),
      (keys(.save), state.isNewFile ? "save: the first save creates \(state.workspaceFile)" : "save the workspace"),
      (keys(.help), "every key"),
    ]
    // A short pane keeps the keys to begin, save and find the rest.
    for optional in ["paste", keys(.chooseEnvironment)] where lines.count > area.height {
      lines.removeAll { $0.0 == optional }
    }
    for (i, line) in lines.prefix(area.height).enumerated() {
      let y = area.y + i
      if line.0.isEmpty {
        buffer.putTruncated(line.1, x: area.x + 1, y: y, width: area.width - 1)
        continue
      }
      let x = buffer.put(TextWidth.pad(line.0, to: 8), x: area.x + 3, y: y, style: theme.key)
      buffer.putTruncated(line.1, x: area.x + 3 + x, y: y, style: theme.dim, width: area.width - 4 - x)
    }
  }
}
