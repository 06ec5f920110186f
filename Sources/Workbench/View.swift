import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// Draws the whole screen for a state. Pure: the same state always gives the same cells; only the
/// visible part of anything is laid out.
public func view(_ state: AppState, into buffer: inout ScreenBuffer) {
  let theme = Theme(colors: state.colors)
  buffer.fill(Rect(x: 0, y: 0, width: buffer.width, height: buffer.height))
  let layout = state.layout
  if layout.tooSmall {
    tooSmall(state, theme, &buffer)
    return
  }
  let painter = Painter(state: state, theme: theme, layout: layout)
  painter.requests(&buffer)
  painter.editor(&buffer)
  painter.response(&buffer)
  painter.queue(&buffer)
  painter.choiceList(&buffer)  // over the panes, under the selected editor field
  painter.statusBar(&buffer)
  if case .overlay(let overlay) = state.layer { overlay.view(painter, &buffer) }
}

/// The drawing code: the state, its theme and layout, and what every pane shares (its frame, the
/// highlighted row). Each pane and overlay draws itself in an extension beside its update:
/// `Requests/RequestsView.swift`, `Editor/EditorView.swift`, `Response/ResponseView.swift`,
/// `Queue/QueueView.swift`, `StatusBar.swift`, `Prompts/Prompt.swift`, `Overlays/`.
struct Painter {
  let state: AppState
  let theme: Theme
  let layout: Layout

  func frame(_ buffer: inout ScreenBuffer, _ pane: Pane, suffix: String = "") {
    let focused = state.focus == pane
    buffer.box(
      layout.rect(of: pane), title: "\(pane.rawValue + 1) \(pane.title)\(suffix)",
      style: focused ? theme.focusedBorder : theme.border,
      titleStyle: focused ? theme.focusedBorder : theme.title)
  }

  func inner(_ pane: Pane) -> Rect { layout.rect(of: pane).inset(by: 1) }

  func highlight(_ buffer: inout ScreenBuffer, _ row: Rect, focused: Bool) {
    buffer.setStyle(row) { style in
      if focused { style.reverse = true } else { style.underline = true }
    }
  }
}

/// The notice of a screen too small for the panes, wrapped at its words to the screen's width;
/// when the rows do not all fit, the sizes go first, then the last row shown is cut with "…".
private func tooSmall(_ state: AppState, _ theme: Theme, _ buffer: inout ScreenBuffer) {
  let width = buffer.width
  let title = TextWidth.wordWrap("terminal too small", width: width)
  let sizes = TextWidth.wordWrap(
    "reqbench needs \(Layout.minimumWidth)×\(Layout.minimumHeight), this one is \(state.width)×\(state.height)",
    width: width)
  let instruction = TextWidth.wordWrap("make the window larger, or press q to quit", width: width)
  var rows = title.map { ($0, theme.error) } + sizes.map { ($0, Style.plain) } + instruction.map { ($0, Style.plain) }
  if rows.count > buffer.height { rows = title.map { ($0, theme.error) } + instruction.map { ($0, Style.plain) } }
  if rows.count > buffer.height {
    rows = Array(rows.prefix(buffer.height))
    if let last = rows.indices.last { rows[last].0 = TextWidth.truncate(rows[last].0 + "…", to: width) }
  }
  let top = max(0, min(buffer.height / 2 - 1, buffer.height - rows.count))
  for (i, (text, style)) in rows.enumerated() {
    buffer.put(text, x: max(0, (width - TextWidth.of(text)) / 2), y: top + i, style: style)
  }
}
