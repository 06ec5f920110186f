import Foundation
import RequestEngine
import Workspace

/// The mouse: a click selects and focuses, the wheel scrolls the pane under it.
extension AppState {
  mutating func handle(_ event: MouseEvent) -> [Command] {
    guard case .pane = layer, let pane = layout.pane(at: event.x, event.y) else { return [] }
    let rect = layout.rect(of: pane)
    switch event.kind {
    case .wheelUp, .wheelDown:
      let delta = event.kind == .wheelDown ? 3 : -3
      switch pane {
      case .response: scrollViewer(by: delta)
      case .requests:
        selectRequest(min(max(0, list.selection + delta), max(0, selectableCount - 1)))
      case .queue:
        let lines = queueLines
        if !lines.isEmpty {
          let current = queue.selected.flatMap { lines.firstIndex(of: $0) } ?? 0
          selectQueueLine(lines[min(max(0, current + delta), lines.count - 1)])
        }
      case .editor:
        // The fields under the resolved URL line: the last one stays on screen.
        let fields = editorFieldCount
        let rows = max(1, layout.contentHeight(of: .editor) - 1)
        editor.scroll = min(max(0, editor.scroll + delta), max(0, fields - rows))
      }
    case .press:
      focus = pane
      let row = event.y - rect.y - 1
      switch pane {
      case .requests:
        if row >= 0, let item = listEntries(from: list.scroll + row, count: 1).first?.item { selectRequest(item) }
      case .queue:
        // The column header is the pane's first line, above the lines shown.
        let lines = queueLines
        let index = queueFirstLine(lines) + row - 1
        if row >= 1, lines.indices.contains(index) { selectQueueLine(lines[index]) }
      case .editor:
        let index = editor.scroll + row - 1  // the resolved URL line
        if index >= 0, index < editorFieldCount { editor.field = index }
      case .response:
        break
      }
    }
    return []
  }
}
