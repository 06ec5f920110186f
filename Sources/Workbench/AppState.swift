import Foundation
import RequestEngine
import Workspace

/// The four panes, in Tab order.
public enum Pane: Int, CaseIterable, Sendable {
  case requests, editor, response, queue

  public var title: String {
    switch self {
    case .requests: "Requests"
    case .editor: "Editor"
    case .response: "Response"
    case .queue: "Queue"
    }
  }
}

/// A message in the status bar; errors say what to do.
public struct StatusMessage: Sendable, Equatable {
  public var text: String
  public var isError: Bool
  public init(_ text: String, isError: Bool = false) {
    self.text = text
    self.isError = isError
  }
}

struct HistoryRequest: Sendable, Equatable {
  var name: String
  var position: Int
}

/// What a transient message waits for.
enum AwaitedOutcome: Sendable, Equatable {
  /// The next exchange of this request to end.
  case exchange(name: String, message: StatusMessage)
  /// Everything running to end; `cancelled` counts the exchanges that ended cancelled.
  case cancelAll(cancelled: Int, message: StatusMessage)
}

/// The whole state of the TUI. `update` changes it; `view` draws it.
public struct AppState: Sendable {
  public var workspace: Workspace {
    didSet { refreshList() }
  }
  /// The workspace file, for the status bar and saving.
  public var workspaceFile: String
  public var sources: VariableSources
  /// Secrets an import or a paste moved out of its requests (`ImportedCredentials`) that the
  /// runtime is writing: their `secretSaved` leaves the status bar saying what was added.
  var secretsBeingMoved: Set<String> = []
  public var width: Int
  public var height: Int
  public var focus: Pane = .requests
  public var now: Date?
  public var colors = true

  /// The workspace file does not exist yet: the first save creates it.
  public var isNewFile = false
  /// Requests edited since the last save (the list marks them, the status bar counts them).
  public var unsaved: Set<String> = []
  /// Edits of the workspace outside its requests since the last save: `environment`,
  /// `variables.host`, `environments.staging.host` (the status bar counts them with `unsaved`).
  public var unsavedSettings: Set<String> = []
  /// The file on disk changed, does not load or is gone (until a save or a reload).
  public var disk: DiskNotice?
  /// The `environment` key as the file has it (loaded or last saved): choosing it again is no edit.
  var savedEnvironment: String?
  /// Every exchange, newest first (the queue lists them, the viewer shows one).
  public var exchanges: [ExchangeRow] = []
  /// Batch and chain runs, newest first, drawn above the exchanges.
  public var flows: [FlowRow] = []

  // Each pane's own state, declared beside its update and view.
  public var list = RequestListState() {
    didSet {
      if list.filter != oldValue.filter {
        refreshList()
      } else if list.collapsed != oldValue.collapsed {
        list.index = ListIndex(self)
      }
    }
  }
  public var editor = EditorState()
  public var queue = QueueState()
  public var viewer = ViewerState()

  /// The overlay, prompt or question on top of the panes, with its state (`Modal`).
  var modal: Modal = .none
  /// Interactive OAuth 2.0 grants waiting for the user, oldest first (the box shows the first).
  public var authorizations: [PendingAuthorization] = []
  /// What the history overlay asked for the entry on its way (show, send again, copy).
  var historyOpening: HistoryOpening?
  /// Set while a save asked for by the unsaved-changes question runs: quit once it succeeded.
  var quitAfterSave = false
  public var message: StatusMessage?
  /// A message that stands for transfers still going ("resuming files/big from 23.0 MB",
  /// "cancelling everything"): replaced by their outcome when they end.
  var awaiting: AwaitedOutcome?
  /// The last delete or folder rename, for `u` (until the next save).
  var lastUndo: UndoableEdit?
  /// Requests marked with space, in marking order (`b`/`B` make a batch or chain of them).
  public var marked: [String] = []
  /// The history entry last asked for (`[`, `]`): a `historyShown` that comes when none is
  /// awaited (a send or another exchange took the viewer meanwhile) is too late and dropped.
  var historyWanted: HistoryRequest?
  /// The write last asked of the runtime (for its `bodyFileExists` answer).
  var pendingWrite: Command?
  /// Set when a request is sent: the viewer follows its exchange once the agent queues it.
  var following: String?

  public init(
    workspace: Workspace, workspaceFile: String, sources: VariableSources = VariableSources(),
    width: Int = 160, height: Int = 45
  ) {
    self.workspace = workspace
    self.savedEnvironment = workspace.environment
    self.workspaceFile = workspaceFile
    self.sources = sources
    self.width = width
    self.height = height
    list.index = ListIndex(self)
    // The first request, not the folder row above it.
    list.selection = firstRequestItem
    editor.request = selectedRequest?.name
  }

  /// Marks the workspace as new (its file missing), and says so.
  public mutating func openedNewFile() {
    isNewFile = true
    message = StatusMessage("new workspace \(workspaceFile), not saved yet")
  }

  /// Anything edited and not saved: a save writes it, quitting asks first.
  public var hasUnsavedEdits: Bool { !unsaved.isEmpty || !unsavedSettings.isEmpty }

  /// Exchanges that have not ended. Counted in place: the status bar asks every frame, and
  /// `filter` copied each matching row (with 1,000 rows that was most of a frame).
  public var runningCount: Int { exchangeCounts.running }
  public var queuedCount: Int { exchangeCounts.queued }
  public var failedCount: Int { exchangeCounts.failed }

  /// The transfers running and the exchanges queued and failed, in one pass that reads each
  /// row's state in place (the status bar asks every frame). Exchanges that joined an identical
  /// request in flight share its transfer: they count once, with it, or as one transfer when
  /// that exchange ended before them (the agent handed its transfer to one of them).
  public var exchangeCounts: (running: Int, queued: Int, failed: Int) {
    var counts = (running: 0, queued: 0, failed: 0)
    var ownTransfers = Set<ExchangeID>()
    var joinedTo = Set<ExchangeID>()
    for index in exchanges.indices {
      switch exchanges[index].state {
      case .running:
        if let primary = exchanges[index].joinedTo {
          joinedTo.insert(primary)
        } else {
          counts.running += 1
          ownTransfers.insert(exchanges[index].id)
        }
      case .queued: counts.queued += 1
      case .failed: counts.failed += 1
      case .succeeded, .cancelled: break
      }
    }
    counts.running += joinedTo.subtracting(ownTransfers).count
    return counts
  }

  /// For each exchange in flight that others joined, how many joined it (the queue's `+N joined`).
  public var joinedCounts: [ExchangeID: Int] {
    var counts: [ExchangeID: Int] = [:]
    for index in exchanges.indices where !exchanges[index].state.isTerminal {
      if let primary = exchanges[index].joinedTo { counts[primary, default: 0] += 1 }
    }
    return counts
  }

  public var isBusy: Bool {
    exchanges.indices.contains { !exchanges[$0].state.isTerminal }
      || flows.indices.contains { !flows[$0].state.isTerminal }
  }
}

/// The panes' fields under the names the runtime, the benchmarks and the tests use.
extension AppState {
  public var requestFilter: String {
    get { list.filter }
    set { list.filter = newValue }
  }
  public var requestSelection: Int {
    get { list.selection }
    set { list.selection = newValue }
  }
  public var requestScroll: Int {
    get { list.scroll }
    set { list.scroll = newValue }
  }
  public var editorField: Int {
    get { editor.field }
    set { editor.field = newValue }
  }
  public var editorScroll: Int {
    get { editor.scroll }
    set { editor.scroll = newValue }
  }
  public var editing: LineEdit? {
    get { editor.editing }
    set { editor.editing = newValue }
  }
  /// The selected exchange's index in `exchanges` (0 while a run's line or nothing is selected).
  public var queueSelection: Int {
    get {
      guard case .exchange(let id)? = queue.selected else { return 0 }
      return exchanges.firstIndex { $0.id == id } ?? 0
    }
    set { queue.selected = exchanges.indices.contains(newValue) ? .exchange(exchanges[newValue].id) : nil }
  }
  public var queueScroll: Int {
    get { queue.scroll }
    set { queue.scroll = newValue }
  }
  public var queueFlowSelection: QueueFlowItem? {
    get { queue.flowSelection }
    set { queue.selected = newValue.map(QueueLine.flow) }
  }
  public var expandedFlows: Set<String> {
    get { queue.expandedFlows }
    set { queue.expandedFlows = newValue }
  }
}
