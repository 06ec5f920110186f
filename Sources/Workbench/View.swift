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
    let lines = [
      "terminal too small",
      "reqbench needs \(Layout.minimumWidth)×\(Layout.minimumHeight), this one is \(state.width)×\(state.height)",
      "make the window larger, or press q to quit",
    ]
    for (i, line) in lines.enumerated() {
      let x = max(0, (buffer.width - TextWidth.of(line)) / 2)
      buffer.put(line, x: x, y: max(0, buffer.height / 2 - 1) + i, style: i == 0 ? theme.error : .plain)
    }
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
