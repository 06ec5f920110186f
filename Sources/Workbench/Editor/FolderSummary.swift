import TerminalUI
import Workspace

/// The editor pane with a folder row selected: what the folder is (its path, how many requests
/// it holds, how many of them have unsaved edits, folded or not), the names of its requests, and
/// the keys that act on it (from the key table, as the help says them).
extension Painter {
  /// The keys shown for a folder, in this order.
  static let folderActions: [Action] = [.toggleFolder, .expandFolder, .collapseFolder, .renameFolder, .newRequest]

  func folderSummary(_ buffer: inout ScreenBuffer, _ area: Rect, _ path: String) {
    let prefix = path + "/"
    let inside = state.workspace.requests.filter { $0.name.hasPrefix(prefix) }
    let unsaved = inside.count { state.unsaved.contains($0.name) }
    let folded = state.list.collapsed.contains(path) && state.list.filter.isEmpty
    var header = "folder \(prefix) · \(inside.count) request\(inside.count == 1 ? "" : "s")"
    if unsaved > 0 { header += ", \(unsaved) unsaved" }
    if folded { header += " · folded" }
    let bottom = area.y + area.height
    buffer.putTruncated(header, x: area.x + 1, y: area.y, style: theme.title, width: area.width - 1)
    // Its requests' names inside it (`●` unsaved) on at most two lines, then how many more.
    let left = area.x + 1
    let right = area.x + area.width - 1
    let rows = min(2, max(0, bottom - area.y - 1))
    var row = 0
    var x = left
    for (i, request) in inside.enumerated() where rows > 0 {
      let edited = state.unsaved.contains(request.name)
      let text = (edited ? "●" : "") + request.name.dropFirst(prefix.count)
      let rest = inside.count - i - 1
      let onLast = row == rows - 1
      let need = TextWidth.of(text) + (onLast && rest > 0 ? TextWidth.of("  … \(rest) more") : 0)
      if x > left && x + need > right {
        if onLast {
          buffer.putTruncated("… \(rest + 1) more", x: x, y: area.y + 1 + row, style: theme.dim, width: right - x)
          break
        }
        row += 1
        x = left
      }
      x += buffer.putTruncated(text, x: x, y: area.y + 1 + row, style: edited ? theme.unsaved : .plain, width: right - x) + 2
    }
    // A blank line, then the keys.
    var y = area.y + 3 + row
    let bindings = Self.folderActions.compactMap { Keymap.binding($0, in: .folderInList) }
    let keyWidth = (bindings.map { TextWidth.of($0.keyText) }.max() ?? 0) + 2
    for binding in bindings where y < bottom {
      let x = buffer.put(TextWidth.pad(binding.keyText, to: keyWidth), x: area.x + 1, y: y, style: theme.key)
      buffer.putTruncated(binding.help, x: area.x + 1 + x, y: y, style: theme.dim, width: area.width - 1 - x)
      y += 1
    }
  }
}
