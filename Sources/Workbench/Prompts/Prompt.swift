import Formats
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

  /// Applies an editing key (a character, or a key of `Keymap`'s line editing); returns false for
  /// keys it does not handle.
  public mutating func apply(_ key: Key) -> Bool {
    if case .char(let c) = key {
      if selected { clear() }
      insert(String(c))
      return true
    }
    guard let action = Keymap.action(for: key, in: .lineEdit) else { return false }
    switch action {
    case .deleteBackward, .deleteForward, .clearBefore, .clearAfter:
      if selected {
        clear()
        return true
      }
    case .cursorLeft, .cursorRight, .lineStart, .lineEnd:
      selected = false
    default:
      return false
    }
    var chars = Array(text)
    switch action {
    case .deleteBackward:
      guard cursor > 0 else { return true }
      chars.remove(at: cursor - 1)
      cursor -= 1
    case .deleteForward:
      guard cursor < chars.count else { return true }
      chars.remove(at: cursor)
    case .cursorLeft: cursor = max(0, cursor - 1)
    case .cursorRight: cursor = min(chars.count, cursor + 1)
    case .lineStart: cursor = 0
    case .lineEnd: cursor = chars.count
    case .clearBefore:
      chars.removeSubrange(0..<cursor)
      cursor = 0
    case .clearAfter: chars.removeSubrange(cursor..<chars.count)
    default: return false
    }
    text = String(chars)
    return true
  }

  /// Inserts text at the cursor (a typed character, or pasted text).
  public mutating func insert(_ string: String) {
    var chars = Array(text)
    chars.insert(contentsOf: string, at: cursor)
    cursor += string.count
    text = String(chars)
  }

  private mutating func clear() {
    text = ""
    cursor = 0
    selected = false
  }
}

/// A question in the status line: search, jq filter, file to write, request filter, a new
/// request and its name.
public struct Prompt: Sendable, Equatable {
  public enum Purpose: Sendable, Equatable {
    case search, filterBody, writeBody, filterRequests
    /// `n`: METHOD URL, a curl or HTTPie command or an `.http` request.
    case newRequest
    /// The name of the one request read from the text before.
    case nameNewRequest(ImportedRequests)
    /// A variable's new value (`V`), written into the workspace there.
    case setVariable(name: String, home: VariableHome)
    /// A secret's value (`V`), typed hidden, for the secrets file.
    case setSecret(name: String)
    /// `a` in `V`: `NAME=value`, or a name whose value is asked next.
    case addVariable(home: VariableHome)
    /// `n` or `c` in `v`: the name of a new environment (a copy of `copying`'s variables).
    case newEnvironment(copying: String?)
    /// `r` in `v`: the new name of this environment.
    case renameEnvironment(String)
    /// `R`: the new full name of this request.
    case renameRequest(String)
    /// `R` on a folder row: the new path of this folder.
    case renameFolder(String)
    /// `b`/`B`: the name of a batch or chain of these requests.
    case nameFlow(FlowOutcome.Kind, members: [String])
  }
  public var purpose: Purpose
  public var label: String
  public var input: LineEdit
  /// Why the last Enter was refused (shown beside the text until it changes).
  public var error: String?

  public init(purpose: Purpose, label: String, input: LineEdit, error: String? = nil) {
    self.purpose = purpose
    self.label = label
    self.input = input
    self.error = error
  }

  /// The text is drawn as `•`s (a secret being typed).
  public var isHidden: Bool {
    if case .setSecret = purpose { return true }
    return false
  }
}

/// Keys while a prompt is open: Enter acts on its text, Esc closes it, the rest edit it.
extension AppState {
  mutating func handlePrompt(_ key: Key) -> [Command] {
    guard var current = prompt else { return [] }
    switch Keymap.action(for: key, in: .prompt) {
    case .save:
      // As Enter, then the save; when a prompt is still open (the text was refused, or a next
      // question follows, such as the new request's name), the save waits for it.
      let commands = handlePrompt(.enter)
      guard let open = prompt else { return commands + [.save] }
      if open.error == nil {
        message = StatusMessage("Ctrl-S saves once this is answered: Enter keeps, Esc cancels")
      }
      return commands
    case .cancelPrompt:
      prompt = nil
      switch current.purpose {
      // A prompt opened from an overlay went back to it (`Modal.prompt`).
      case .filterRequests: clearRequestFilter()
      default: break
      }
      return []
    case .accept:
      prompt = nil
      let text = current.input.text
      switch current.purpose {
      case .filterRequests:
        list.filter = text
        list.selection = firstRequestItem
        list.scroll = 0
      case .search:
        viewer.search = text.isEmpty ? nil : text
        viewer.matchLine = nil
        if shownTab == .events {
          findEvent(forward: true)
          return []
        }
        return findNext(forward: true)
      case .filterBody:
        guard let id = viewer.exchange, !text.isEmpty else { return [] }
        if shownTab == .events { return startEventsFilter(text) }
        viewer.filterRunning = text
        message = StatusMessage("jq: running… (Esc cancels)")
        return [.filter(expression: text, id)]
      case .writeBody:
        guard let id = viewer.exchange, !text.isEmpty else { return [] }
        var command = Command.writeBody(id, path: text, jqOutput: viewer.filter == nil ? nil : viewer.filteredText)
        if shownTab == .events {
          command = Command.writeBody(id, path: text, jqOutput: eventsJQText, events: eventsJQText == nil)
        }
        pendingWrite = command
        return [command]
      case .newRequest:
        return submitNewRequest(text: current.input.text, shown: current.input)
      case .nameNewRequest(let imported):
        return nameNewRequest(imported, current.input)
      case .setVariable, .setSecret:
        return acceptVariable(current.purpose, text: text)
      case .addVariable(let home):
        return addVariable(current.input, home: home)
      case .newEnvironment(let source):
        addEnvironment(current.input, copying: source)
      case .renameEnvironment(let old):
        renameEnvironment(old, current.input)
      case .renameRequest(let old):
        renameRequest(old, current.input)
      case .renameFolder(let old):
        renameFolder(old, current.input)
      case .nameFlow(let kind, let members):
        makeFlow(kind, members: members, current.input)
      }
      return []
    default:
      if current.input.apply(key) { editPrompt(current) }
      return []
    }
  }

  /// The prompt with its text changed (typed or pasted): an error shown goes, and the request
  /// filter follows as you type.
  mutating func editPrompt(_ changed: Prompt) {
    var current = changed
    current.error = nil
    prompt = current
    if current.purpose == .filterRequests {
      list.filter = current.input.text
      list.selection = firstRequestItem
      list.scroll = 0
    }
  }
}

/// A line being edited, drawn with its cursor (or reversed while it is selected).
extension Painter {
  /// Text longer than `width` scrolls so the cursor stays in view; a side with text out of view
  /// ends in a dim `…`.
  func drawEdit(_ edit: LineEdit, _ buffer: inout ScreenBuffer, x: Int, y: Int, width: Int) {
    guard width > 0 else { return }
    let chars = Array(edit.text)
    let window = Painter.editWindow(chars, cursor: edit.cursor, width: width)
    var cx = x
    if window.start > 0 { cx += buffer.put("…", x: cx, y: y, style: theme.dim) }
    // Selected text (a prompt's last value) is drawn reversed: typing replaces it.
    let visible = String(chars[window.start..<window.end])
    buffer.put(visible, x: cx, y: y, style: edit.selected ? Style(reverse: true) : Style(underline: true), maxWidth: x + width - cx)
    if window.end < chars.count { buffer.put("…", x: x + width - 1, y: y, style: theme.dim) }
    if edit.selected { return }
    let cursorX = cx + TextWidth.of(String(chars[window.start..<min(max(window.start, edit.cursor), window.end)]))
    if cursorX < x + width {
      var cell = buffer[cursorX, y]
      if cell.text.isEmpty || cell.text == " " { cell.text = " " }
      cell.style.reverse = true
      buffer[cursorX, y] = cell
    }
  }

  /// The characters of a line being edited shown in `width` columns: from `start` (after a `…`
  /// when it is not 0) to `end` (before a `…` when it is not the end), with the cursor inside
  /// (on its character, or on the cell after the text when it is at the end).
  static func editWindow(_ chars: [Character], cursor: Int, width: Int) -> (start: Int, end: Int) {
    let widths = chars.map { TextWidth.of($0) }
    let cursor = min(max(0, cursor), chars.count)
    // As many characters from `start` as fit with the marks (and the cursor's cell at the end).
    func end(from start: Int) -> Int {
      var used = start > 0 ? 1 : 0
      var end = start
      while end < chars.count {
        let after = end + 1 < chars.count || cursor == chars.count ? 1 : 0
        guard used + widths[end] + after <= width else { break }
        used += widths[end]
        end += 1
      }
      return end
    }
    var start = 0
    while start < cursor {
      let shown = end(from: start)
      if cursor < shown || (cursor == chars.count && shown == chars.count) { break }
      start += 1
    }
    return (start, max(start, end(from: start)))
  }
}
