import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// The request list: folders (`▾` open, `▸` folded with how many requests it hides and `●` when
/// one has unsaved edits), requests (method, name, `●` unsaved), then batches and chains; only
/// the rows in view are drawn.
extension Painter {
  func requests(_ buffer: inout ScreenBuffer) {
    frame(&buffer, .requests, suffix: state.list.filter.isEmpty ? "" : " /\(state.list.filter)")
    let area = inner(.requests)
    // Only the rows in view are made.
    let rows = state.listEntries(from: state.list.scroll, count: area.height)
    let selected = state.list.selection
    if rows.isEmpty && state.list.scroll == 0 {
      let new = Keymap.binding(.newRequest, in: .requests)?.keyText ?? "n"
      let lines =
        state.list.filter.isEmpty
        ? ["no requests yet", "", "\(new)  new request:", "   METHOD URL, a curl", "   or http command,", "   or .http"]
        : ["nothing matches; Esc clears"]
      for (i, line) in lines.prefix(area.height).enumerated() {
        buffer.putTruncated(line, x: area.x + 1, y: area.y + i, style: i == 2 ? theme.key : theme.dim, width: area.width - 1)
      }
      return
    }
    for (line, entry) in rows.enumerated() {
      let y = area.y + line
      switch entry.row {
      case .folder(let path, let depth, let collapsed):
        let name = String(path.split(separator: "/").last ?? "")
        var x = area.x
        x += buffer.putTruncated(
          String(repeating: "  ", count: depth) + (collapsed ? "▸ " : "▾ ") + name + "/", x: x, y: y,
          style: theme.folder, width: area.width)
        // Folded: how many requests it hides, and `●` when one of them has unsaved edits (or
        // was deleted since the save).
        if let hidden = entry.hiddenRequests {
          x += buffer.putTruncated(" \(hidden)", x: x, y: y, style: theme.dim, width: area.x + area.width - x)
          let prefix = path + "/"
          if state.unsaved.contains(where: { $0.hasPrefix(prefix) }) {
            buffer.putTruncated(" ●", x: x, y: y, style: theme.unsaved, width: area.x + area.width - x)
          }
        }
      case .request(let name, let depth):
        guard let index = entry.request else { continue }
        let template = state.workspace.requests[index]
        var x = area.x + depth * 2
        // Marked (space): its place in the marking order, in a column as wide as the largest
        // place (so 10 marks and more still read in order); else `●` for unsaved edits.
        let markWidth = String(max(1, state.marked.count)).count
        if let mark = state.marked.firstIndex(of: name) {
          x += buffer.put(TextWidth.pad(String(mark + 1), to: markWidth, alignRight: true), x: x, y: y, style: theme.key)
        } else {
          let sign = state.unsaved.contains(name) ? "●" : " "
          x += buffer.put(TextWidth.pad(sign, to: markWidth, alignRight: true), x: x, y: y, style: theme.unsaved)
        }
        x += buffer.put(TextWidth.pad(template.method.rawValue, to: 7), x: x, y: y, style: theme.method(template.method))
        let leaf = String(name.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
        buffer.putTruncated(leaf, x: x, y: y, width: area.x + area.width - x)
      case .flowsHeading:
        buffer.putTruncated("▾ batches and chains", x: area.x, y: y, style: theme.folder, width: area.width)
      case .flow(let name, let kind):
        var x = area.x + 2
        x += buffer.put(" " + TextWidth.pad(kind == .batch ? "BATCH" : "CHAIN", to: 7), x: x, y: y, style: theme.flow)
        x += buffer.putTruncated(name, x: x, y: y, width: area.x + area.width - x)
        if state.unsaved.contains(name) {
          buffer.putTruncated(" ●", x: x, y: y, style: theme.unsaved, width: area.x + area.width - x)
        }
      }
      if entry.item == selected {
        highlight(&buffer, Rect(x: area.x, y: y, width: area.width, height: 1), focused: state.focus == .requests)
      }
    }
  }
}
