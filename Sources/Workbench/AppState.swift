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

/// One exchange as the queue shows it, built from the agent's events.
public struct ExchangeRow: Sendable {
  public var id: ExchangeID
  public var name: String
  public var method: HTTPMethod
  /// Secrets masked.
  public var url: String
  public var state: ExchangeState
  public var attempt = 0
  public var retrying = false
  public var status: Int?
  public var progress = TransferProgress()
  public var startedAt: Date?
  public var result: ExchangeResult?
  /// Where a download's body goes.
  public var downloadTarget: String?
  /// A later exchange took over this download's file (resuming it): no longer resumable here.
  public var superseded = false
  /// The request's secrets (as sent, with their wire forms): the viewer masks them in what it
  /// draws of the response, which a server may echo them in.
  public var secrets: [String] = []
  /// The batch or chain run it belongs to (its `flow` tag) and its batch member's index.
  public var flowRun: String?
  public var member: Int?
  /// A chain step that failed although its exchange succeeded (a capture found nothing): what
  /// the queue shows instead of `succeeded` (`failed`), and why (`capture failed: token ← .token:
  /// found nothing`).
  public var flowFailure: (state: String, message: String)?

  public var bytes: Int {
    if let download = result?.download { return Int(download.bytes) }
    if result == nil, progress.isUploading { return Int(progress.uploaded) }
    return result?.response?.body.count ?? Int(progress.downloaded)
  }

  /// The exchange's time, the same in the queue, the response's summary line and the timing tab:
  /// curl's total of its only attempt, or, after retries, from the first start to the end (the
  /// waits between attempts included); nil before it ended. `lastAttempt` is curl's total of the
  /// last attempt when there were several.
  public var time: (total: Double, lastAttempt: Double?)? {
    guard let result, result.startedAt != nil || result.response != nil else { return nil }
    let curl = result.response?.timing.total ?? 0
    if result.attempts <= 1, curl > 0 { return (curl, nil) }
    return (result.startedAt == nil ? curl : result.duration, result.attempts > 1 && curl > 0 ? curl : nil)
  }

  /// The batch and chain step it belongs to: `smoke › login-flow 2/3`.
  public var context: String?

  /// `smoke › login-flow 2/3 › users/me`, or just the name.
  public var label: String { context.map { $0 + " › " + name } ?? name }

  /// `cache` for a response served from the cache, `dedup` for one shared with an identical
  /// request in flight.
  public var badges: [String] {
    var badges: [String] = []
    if result?.fromCache == true { badges.append(result?.cache?.stale == true ? "stale" : "cache") }
    if result?.deduplicated == true { badges.append("dedup") }
    if let download = result?.download, download.resumable, state != .succeeded, !superseded {
      badges.append("resumable" + (download.percent.map { " \(Int($0))%" } ?? ""))
    }
    return badges
  }
}

/// A batch or chain run, as the queue shows it.
public struct FlowRow: Sendable {
  public var run: String
  public var name: String
  public var kind: FlowOutcome.Kind
  /// `.running` until the flow ends.
  public var state: ExchangeState = .running
  /// Batches: members ended and in all.
  public var done = 0
  public var total = 0
  public var succeeded = 0
  public var failed = 0
  public var cancelled = 0
  /// Batches: each member's outcome once it ended, by its index in the batch's `members`.
  public var members: [Int: FlowOutcome] = [:]
  /// Batches: the members whose exchange started (the others still wait for the batch's
  /// concurrency), and each member's latest exchange.
  public var startedMembers: Set<Int> = []
  public var memberExchanges: [Int: ExchangeID] = [:]
  /// Chains: the step running (1-based), the number of steps.
  public var step = 0
  public var steps = 0
  /// Chains: each ended step's state, by its absolute (1-based) step number; a run resumed at
  /// step k starts with the earlier steps' states of the run it resumes.
  public var stepStates: [Int: ExchangeState] = [:]
  /// Chains: the step this run started at (greater than 1 when it resumed an earlier run).
  public var firstStep = 1
  /// Chains: the values captured, per step (a resumed run keeps the earlier steps' values).
  public var captured: [(step: Int, name: String, value: String)] = []
  public var outcome: FlowOutcome?

  public init(run: String, name: String, kind: FlowOutcome.Kind) {
    self.run = run
    self.name = name
    self.kind = kind
  }
}

/// A line of the queue's batch and chain section: a run's row, or (expanded) one of its batch
/// members (0-based) or chain steps (1-based).
public enum QueueFlowItem: Sendable, Hashable {
  case flow(run: String)
  case member(run: String, index: Int)
  case step(run: String, index: Int)

  public var run: String {
    switch self {
    case .flow(let run), .member(let run, _), .step(let run, _): run
    }
  }
}

/// What the response viewer shows and how.
public struct ViewerState: Sendable {
  public enum Tab: Int, CaseIterable, Sendable {
    case body, headers, timing
    public var title: String {
      switch self {
      case .body: "Body"
      case .headers: "Headers"
      case .timing: "Timing"
      }
    }
  }

  public var exchange: ExchangeID?
  public var tab: Tab = .body
  public var scroll = 0
  public var wrap = false
  public var search: String?
  /// Line of the current search match.
  public var matchLine: Int?
  /// A search still going through a big body, a slice per `searchContinue`.
  public var searching: BodyDocument.SearchCursor?
  /// A jq filter running in the background: its result is shown only while this is set to its
  /// expression (Esc, another exchange or another filter drop it).
  public var filterRunning: String?
  /// The active jq filter and its output (shown instead of the body).
  public var filter: String?
  public var filtered: BodyDocument?
  /// The jq output shown, as text (what `w` writes while a filter is shown).
  public var filteredText: String?
  /// A batch or chain run picked in the queue (its id): shown instead of an exchange.
  public var flow: String?
  /// The document of the exchange's body, built when first shown.
  public var document: BodyDocument?
  /// An earlier response from history shown instead of the live exchange.
  public var history: HistoryView?
}

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

public enum Overlay: Sendable, Equatable {
  /// The keys; `helpScroll` is its first line shown.
  case help
  /// Transfers are running: cancel them and quit?
  case confirmQuit
  /// Requests were edited and not saved: save, discard or stay?
  case unsavedChanges
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
  public var workspace: Workspace
  /// The workspace file, for the status bar and saving.
  public var workspaceFile: String
  public var sources: VariableSources
  public var width: Int
  public var height: Int
  public var focus: Pane = .requests
  public var now: Date?
  public var colors = true

  // Requests pane
  public var requestFilter = ""
  public var requestSelection = 0
  public var requestScroll = 0
  /// Requests edited since the last save.
  public var unsaved: Set<String> = []

  // Editor pane
  public var editorField = 0
  public var editorScroll = 0
  public var editing: LineEdit?

  // Queue pane (newest first)
  public var exchanges: [ExchangeRow] = []
  /// Batch and chain runs, newest first, drawn above the exchanges.
  public var flows: [FlowRow] = []
  public var queueSelection = 0
  public var queueScroll = 0
  /// The selected line of the queue's batch and chain section; nil when an exchange is selected.
  public var queueFlowSelection: QueueFlowItem?
  /// Runs whose members (batches) or steps (chains) the queue lists under their row.
  public var expandedFlows: Set<String> = []

  // Response pane
  public var viewer = ViewerState()

  public var overlay: Overlay?
  public var helpScroll = 0
  /// Set while a save asked for by the unsaved-changes question runs: quit once it succeeded.
  var quitAfterSave = false
  public var prompt: Prompt?
  public var message: StatusMessage?
  /// A message that stands for transfers still going ("resuming files/big from 23.0 MB",
  /// "cancelling everything"): replaced by their outcome when they end.
  var awaiting: AwaitedOutcome?
  /// A write that found its file there: `y` repeats it overwriting, any other key drops it.
  public var confirmOverwrite: Command?
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
    self.workspaceFile = workspaceFile
    self.sources = sources
    self.width = width
    self.height = height
  }

  /// Exchanges that have not ended.
  public var runningCount: Int { exchanges.filter { $0.state == .running }.count }
  public var queuedCount: Int { exchanges.filter { $0.state == .queued }.count }
  public var failedCount: Int { exchanges.filter { $0.state == .failed }.count }
  public var isBusy: Bool {
    exchanges.contains { !$0.state.isTerminal } || flows.contains { !$0.state.isTerminal }
  }
}
