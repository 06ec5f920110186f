import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// A one-line text field being edited: the editor's fields and the prompts.
public struct LineEdit: Sendable, Equatable {
  public var text: String
  /// Cursor position in characters.
  public var cursor: Int
  /// The whole text is selected (a prompt pre-filled with its last value, as a browser's find
  /// bar): the first character typed replaces it, Backspace/Delete clear it, a cursor key keeps
  /// it to edit.
  public var selected: Bool

  public init(_ text: String, selected: Bool = false) {
    self.text = text
    self.cursor = text.count
    self.selected = selected && !text.isEmpty
  }

  /// Applies an editing key; returns false for keys it does not handle.
  public mutating func apply(_ key: Key) -> Bool {
    if selected {
      switch key {
      case .char, .backspace, .delete, .ctrl("u"), .ctrl("k"):
        text = ""
        cursor = 0
        selected = false
        if case .char = key {} else { return true }
      case .left, .right, .home, .end, .ctrl("a"), .ctrl("e"):
        selected = false
      default:
        break
      }
    }
    var chars = Array(text)
    switch key {
    case .char(let c):
      chars.insert(c, at: cursor)
      cursor += 1
    case .backspace:
      guard cursor > 0 else { return true }
      chars.remove(at: cursor - 1)
      cursor -= 1
    case .delete:
      guard cursor < chars.count else { return true }
      chars.remove(at: cursor)
    case .left: cursor = max(0, cursor - 1)
    case .right: cursor = min(chars.count, cursor + 1)
    case .home, .ctrl("a"): cursor = 0
    case .end, .ctrl("e"): cursor = chars.count
    case .ctrl("u"):
      chars.removeSubrange(0..<cursor)
      cursor = 0
    case .ctrl("k"): chars.removeSubrange(cursor..<chars.count)
    default: return false
    }
    text = String(chars)
    return true
  }
}

/// A question in the status line: search, jq filter, file to write, request filter.
public struct Prompt: Sendable, Equatable {
  public enum Purpose: Sendable, Equatable { case search, filterBody, writeBody, filterRequests }
  public var purpose: Purpose
  public var label: String
  public var input: LineEdit
}

/// Keys while a prompt is open: Enter acts on its text, Esc closes it, the rest edit it.
extension AppState {
  mutating func handlePrompt(_ key: Key) -> [Command] {
    guard var current = prompt else { return [] }
    switch key {
    case .escape:
      prompt = nil
      if current.purpose == .filterRequests { clearRequestFilter() }
      return []
    case .enter:
      prompt = nil
      let text = current.input.text
      switch current.purpose {
      case .filterRequests:
        list.filter = text
        list.selection = 0
        list.scroll = 0
      case .search:
        viewer.search = text.isEmpty ? nil : text
        viewer.matchLine = nil
        return findNext(forward: true)
      case .filterBody:
        guard let id = viewer.exchange, !text.isEmpty else { return [] }
        viewer.filterRunning = text
        message = StatusMessage("jq: running… (Esc cancels)")
        return [.filter(expression: text, id)]
      case .writeBody:
        guard let id = viewer.exchange, !text.isEmpty else { return [] }
        let command = Command.writeBody(id, path: text, jqOutput: viewer.filter == nil ? nil : viewer.filteredText)
        pendingWrite = command
        return [command]
      }
      return []
    default:
      if current.input.apply(key) {
        prompt = current
        if current.purpose == .filterRequests {
          list.filter = current.input.text  // filter as you type
          list.selection = 0
          list.scroll = 0
        }
      }
      return []
    }
  }
}

/// A line being edited, drawn with its cursor (or reversed while it is selected).
extension Painter {
  func drawEdit(_ edit: LineEdit, _ buffer: inout ScreenBuffer, x: Int, y: Int, width: Int) {
    let chars = Array(edit.text)
    // Scroll horizontally so the cursor stays visible.
    let start = max(0, edit.cursor - max(1, width - 2))
    let visible = String(chars[min(start, chars.count)...])
    // Selected text (a prompt's last value) is drawn reversed: typing replaces it.
    buffer.put(visible, x: x, y: y, style: edit.selected ? Style(reverse: true) : Style(underline: true), maxWidth: width)
    if edit.selected { return }
    let cursorX = x + TextWidth.of(String(chars[min(start, chars.count)..<edit.cursor]))
    if cursorX < x + width {
      var cell = buffer[cursorX, y]
      if cell.text.isEmpty || cell.text == " " { cell.text = " " }
      cell.style.reverse = true
      buffer[cursorX, y] = cell
    }
  }
}
