// One binding of the key table (`KeyBinding`), the sections the help and the user guide group
// them in (`KeySection`) and how a key is written (`Key.name`).

/// A group of bindings as the help and the user guide show them.
public enum KeySection: String, Sendable, CaseIterable {
  case everywhere, lists, scrolling, requests, folderInList, flowInList, editor, flowEditor, editing, choice, response, events, queue
  case queueRun
  case prompt, lineEdit, palette, historyFilter, historyList, environments, variables, cookies, copyMenu, authorization
  case confirmQuit, unsavedChanges, confirmOverwrite, confirmDelete, diskConflict, mouse

  public var title: String {
    switch self {
    case .everywhere: "Everywhere"
    case .lists: "Lists (requests, editor fields, queue)"
    case .scrolling: "Scrolling (the response, this help, the messages)"
    case .requests: "Request list"
    case .flowInList: "A batch or chain in the request list"
    case .folderInList: "A folder in the request list"
    case .editor: "Editor"
    case .flowEditor: "Editor: a batch's or chain's form"
    case .editing: "Editing a field"
    case .choice: "Choosing a body or auth type"
    case .response: "Response"
    case .events: "The Events tab of a stream (SSE, NDJSON)"
    case .queue: "Queue"
    case .queueRun: "A batch or chain run in the queue"
    case .prompt: "Prompts (search, jq, filter, write)"
    case .lineEdit: "Typing in a prompt or a field"
    case .palette: "Command palette (: Ctrl-P)"
    case .historyFilter: "History of every request (H), typing its filter"
    case .historyList: "History of every request (H), on its list"
    case .environments: "Environments (v)"
    case .variables: "Variables in scope (V)"
    case .cookies: "Cookies (K)"
    case .copyMenu: "Copy to the clipboard (y)"
    case .authorization: "OAuth 2.0 authorization (a send waits for your login)"
    case .confirmQuit: "Quit while transfers run"
    case .unsavedChanges: "Quit with unsaved edits"
    case .confirmOverwrite: "Write over an existing file"
    case .confirmDelete: "Delete a request (d)"
    case .diskConflict: "Save over a file another program changed"
    case .mouse: "Mouse"
    }
  }

  /// The contexts its bindings apply in.
  var contexts: [KeyContext] {
    switch self {
    case .everywhere: [.global]
    case .lists: [.requests, .flowInList, .folderInList, .editor, .flowEditor, .queue, .queueRun]
    case .scrolling: [.response, .help, .messages]
    case .requests: [.requests]
    case .flowInList: [.flowInList]
    case .folderInList: [.folderInList]
    case .editor: [.editor]
    case .flowEditor: [.flowEditor]
    case .editing: [.editing]
    case .choice: [.choice]
    case .response: [.response]
    case .events: [.events]
    case .queue: [.queue]
    case .queueRun: [.queueRun]
    case .prompt: [.prompt]
    case .lineEdit: [.lineEdit]
    case .palette: [.palette]
    case .historyFilter: [.historyFilter]
    case .historyList: [.historyList]
    case .environments: [.environments]
    case .variables: [.variables]
    case .cookies: [.cookies]
    case .copyMenu: [.copyMenu]
    case .authorization: [.authorization]
    case .confirmQuit: [.confirmQuit]
    case .unsavedChanges: [.unsavedChanges]
    case .confirmOverwrite: [.confirmOverwrite]
    case .confirmDelete: [.confirmDelete]
    case .diskConflict: [.diskConflict]
    case .mouse: []
    }
  }

  /// What the help says below the section's bindings.
  public var note: String? {
    switch self {
    case .scrolling: "in the help, any other key closes it"
    case .events: "one event a row: time since the start, type, size, the data's first line; the selected one's data below"
    case .prompt: "a prompt comes back with its last value selected: typing replaces it, ← → Home End keep it to edit"
    case .historyFilter: "the words are those of reqbench history --search; the line-editing keys edit the filter"
    case .palette: "typing filters (every word, else its letters in order); the line-editing keys edit it"
    case .environments: "--env NAME on the command line gives way to the environment chosen here"
    case .variables: "secrets show as ••••; a secret's value is typed hidden and written to the secrets file at once"
    case .cookies: "the jar sends use: the environment's, kept in the state folder (reqbench cookies ls shows it too)"
    case .copyMenu:
      "copied with OSC 52 (tmux: set-clipboard on); curl and the URL with secrets ••••, .http with {{secret.NAME}}, unless said"
    case .authorization:
      "the authorization URL opens with xdg-open when there is a display; the wait ends after 5 min (a device code: at its expiry)"
    case .confirmQuit, .unsavedChanges: "any other key: stay"
    case .confirmOverwrite: "any other key: keep the file"
    case .confirmDelete: "any other key: keep it"
    case .diskConflict: "any other key: cancel, keeping your edits here and the file as it is"
    case .flowEditor: "an edit is a workspace edit: ● marks it unsaved, Ctrl-S saves; captures preview against the step's last response"
    case .mouse: "a click selects and focuses, the wheel scrolls"
    default: nil
    }
  }
}

public struct KeyBinding: Sendable {
  public let action: Action
  public let keys: [Key]
  /// The long text: what the help overlay, the user guide and the palette say.
  public let help: String
  /// The short text of the status-bar hint (`send` in `Enter send`); nil: no hint.
  public let hint: String?
  /// A hint for a pair (`n/N next`): the other action's key is shown after a slash.
  public let hintPair: Action?
  /// Where the hint shows (the binding's contexts unless said).
  public let hintContexts: [KeyContext]
  public let section: KeySection
  public let contexts: [KeyContext]

  init(
    _ action: Action, _ keys: [Key], _ help: String, hint: String? = nil, pair: Action? = nil,
    hintIn: [KeyContext]? = nil, _ section: KeySection, also: [KeyContext] = []
  ) {
    self.action = action
    self.keys = keys
    self.help = help
    self.hint = hint
    self.hintPair = pair
    self.section = section
    self.contexts = section.contexts + also
    self.hintContexts = hintIn ?? (section == .everywhere ? KeyContext.panes : section.contexts + also)
  }

  /// The keys as the help writes them: `Enter s`, `↓ j`, `Ctrl-D` (a capital letter whose small
  /// one is bound too is not repeated).
  public var keyText: String {
    let names = keys.filter { key in
      if case .char(let c) = key, c.isUppercase, let lower = c.lowercased().first, keys.contains(.char(lower)) {
        return false
      }
      return true
    }
    return names.map(\.name).joined(separator: " ")
  }
}

extension Key {
  /// How the help writes a key.
  public var name: String {
    switch self {
    case .char(" "): "space"
    case .char(let c): String(c)
    case .ctrl(let c): "Ctrl-" + c.uppercased()
    case .enter: "Enter"
    case .escape: "Esc"
    case .tab: "Tab"
    case .backTab: "Shift-Tab"
    case .backspace: "Backspace"
    case .delete: "Delete"
    case .up: "↑"
    case .down: "↓"
    case .left: "←"
    case .right: "→"
    case .home: "Home"
    case .end: "End"
    case .pageUp: "PgUp"
    case .pageDown: "PgDn"
    case .function(let n): "F\(n)"
    }
  }
}
