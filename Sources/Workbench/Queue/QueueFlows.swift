import Base
import Flows
import Foundation
import RequestEngine
import Workspace

/// The queue's batch and chain section: a row per run (newest first), expandable to a batch's
/// members or a chain's steps. Its lines are selectable like the exchanges below them.
extension AppState {
  /// Every line of the section, expanded runs followed by their members or steps.
  public var queueFlowItems: [QueueFlowItem] {
    var items: [QueueFlowItem] = []
    for flow in flows {
      items.append(.flow(run: flow.run))
      guard queue.expandedFlows.contains(flow.run) else { continue }
      switch flow.kind {
      case .batch:
        let count = workspace.batch(named: flow.name)?.members.count ?? flow.total
        items += (0..<count).map { .member(run: flow.run, index: $0) }
      case .chain:
        let count = max(flow.steps, workspace.chain(named: flow.name)?.steps.count ?? 0)
        items += (0..<count).map { .step(run: flow.run, index: $0 + 1) }
      case .request:
        break
      }
    }
    return items
  }

  /// The run a queue line belongs to.
  public func flowRow(_ run: String) -> FlowRow? { flows.first { $0.run == run } }

  /// Selects a line of the section: the viewer shows its run, or a batch member's exchange (a
  /// chain member's latest step) once it has one.
  mutating func selectQueueFlow(_ item: QueueFlowItem) {
    if case .member(let run, let index) = item, let id = flowRow(run)?.memberExchanges[index],
      exchanges.contains(where: { $0.id == id })
    {
      show(id)
      queue.selected = .flow(item)
      return
    }
    queue.selected = .flow(item)
    viewer.flow = item.run
    viewer.history = nil
    viewer.scroll = 0
  }

  /// The run the viewer shows: the latest of the batch or chain selected in the list (while the
  /// list or the editor has the focus), else the one picked in the queue.
  var shownFlowRun: FlowRow? {
    if let flow = selectedFlow, focus == .requests || focus == .editor {
      return flows.first { $0.name == flow.name }
    }
    return viewer.flow.flatMap { flowRow($0) }
  }

  /// The viewer's lines for a run below its title: the outcome, then the members (with their
  /// state, status or error) or the steps (with their status and captured values; a step whose
  /// capture failed shows the capture, why, and the body it ran on, pretty-printed when JSON).
  public func flowRunLines(_ name: String, _ run: FlowRow) -> [FlowRunLine] {
    var lines: [FlowRunLine] = []
    let summary = run.state.isTerminal ? run.state.rawValue : "running"
    lines.append(
      FlowRunLine("\(glyph(run.state)) \(run.kind.rawValue) \(name) \(summary)" + (run.outcome.flatMap(FlowRow.detail).map { ": " + $0 } ?? ""),
        .state(run.state)))
    switch run.kind {
    case .batch:
      let members = workspace.batch(named: name)?.members ?? []
      for (index, member) in members.enumerated() {
        let memberState = FlowRow.memberState(run, index)
        let outcome = run.members[index]
        var text = "  \(glyph(memberState)) \(member)"
        if let status = outcome?.exchange?.response?.status { text += "  \(status)" }
        if let outcome, outcome.kind == .chain { text += "  (chain, \(outcome.steps.count) steps)" }
        if let outcome, let detail = FlowRow.detail(outcome) { text += "  " + detail }
        lines.append(FlowRunLine(text, .state(memberState)))
        for value in outcome?.captured ?? [] { lines.append(FlowRunLine("      \(value.name) = \(value.value)", .dim)) }
      }
    case .chain:
      let steps = workspace.chain(named: name)?.steps ?? []
      for step in 1...max(1, max(run.steps, steps.count)) where !steps.isEmpty || run.steps > 0 {
        let stepState = FlowRow.stepState(run, step)
        let outcome = run.outcome?.steps.first { $0.step == step }
        var text = "  \(glyph(stepState)) \(step). " + (steps.indices.contains(step - 1) ? steps[step - 1].request : "")
        if let status = outcome?.exchange?.response?.status { text += "  \(status)" }
        if step < run.firstStep { text += "  (earlier run)" }
        if let outcome, outcome.captureFailure != nil {
          text += "  capture failed"
        } else if let outcome, let detail = FlowRow.detail(outcome) {
          text += "  " + detail
        }
        lines.append(FlowRunLine(text, .state(stepState)))
        for value in run.captured where value.step == step {
          lines.append(FlowRunLine("      \(value.name) = \(value.value)", .dim))
        }
        if let outcome, let failure = outcome.captureFailure {
          lines += FlowRunLine.captureFailure(failure, outcome.exchange)
        }
      }
    case .request:
      break
    }
    return lines
  }


  /// Keys on a batch or chain line of the queue: `c` cancels the run, `r` resumes a chain that
  /// failed or was cancelled, Enter / space toggle its members or steps, → shows and ← hides
  /// them.
  mutating func handleQueueFlow(_ action: Action, _ item: QueueFlowItem) -> [Command] {
    guard let flow = flowRow(item.run) else { return [] }
    switch action {
    case .cancelRun:
      guard !flow.state.isTerminal else {
        message = StatusMessage("\(flow.kind.rawValue) \(flow.name) already \(flow.state.rawValue)")
        return []
      }
      message = StatusMessage("cancelling \(flow.kind.rawValue) \(flow.name)")
      return [.cancelFlow(run: flow.run)]
    case .resumeChain:
      return resume(flow, flow.name)
    case .view where item.isMember:
      // A member opens its exchange; the batch stays expanded.
      if let id = flow.memberExchanges[item.memberIndex ?? -1], exchanges.contains(where: { $0.id == id }) {
        show(id)
        focus = .response
      } else {
        message = StatusMessage("this member has not been sent")
      }
    case .view, .toggleRun:
      if queue.expandedFlows.contains(flow.run) {
        collapse(flow.run)
      } else {
        queue.expandedFlows.insert(flow.run)
      }
    case .expandRun:
      queue.expandedFlows.insert(flow.run)
    case .collapseRun:
      collapse(flow.run)
    default:
      break
    }
    return []
  }

  private mutating func collapse(_ run: String) {
    queue.expandedFlows.remove(run)
    selectQueueFlow(.flow(run: run))
  }

  /// Resumes a chain run that failed or was cancelled from its failed step, with every value
  /// captured so far.
  mutating func resume(_ flow: FlowRow?, _ name: String) -> [Command] {
    guard let flow, let outcome = flow.outcome, outcome.kind == .chain, outcome.state != .succeeded,
      let step = outcome.step
    else {
      message = StatusMessage(
        flow.map { !$0.state.isTerminal } == true
          ? "\(name) is still running; c cancels it"
          : "r resumes a chain that failed or was cancelled; Enter runs \(name) again")
      return []
    }
    var captured: [String: String] = [:]
    for value in outcome.captured { captured[value.name] = value.value }
    message = StatusMessage("resuming \(name) at step \(step)")
    return [.runFlow(name: name, fromStep: step, captured: captured)]
  }
}

/// A line of the viewer's batch or chain run.
public struct FlowRunLine: Sendable, Equatable {
  public enum Kind: Sendable, Equatable {
    case state(ExchangeState)
    case plain
    case dim
    case error
  }

  public var text: String
  public var kind: Kind

  public init(_ text: String, _ kind: Kind) {
    self.text = text
    self.kind = kind
  }

  /// At most this many lines of the body a failed capture ran on.
  static let bodyLines = 2000

  /// A failed capture over several lines: the capture and its expression, the reason, then the
  /// body it ran on (pretty-printed when it is JSON).
  static func captureFailure(_ failure: FlowRunner.CaptureFailure, _ exchange: ExchangeResult?) -> [FlowRunLine] {
    var lines = [
      FlowRunLine("      capture \(failure.capture) ← \(failure.source)", .error),
      FlowRunLine("      " + failure.reason, .error),
    ]
    guard let response = exchange?.response else { return lines }
    let bytes = (try? response.body.bytes()) ?? []
    lines.append(FlowRunLine("      the body it ran on (\(response.status), \(Formatting.bytes(bytes.count))):", .dim))
    var text = String(decoding: bytes.prefix(1 << 20), as: UTF8.self)
    if let json = try? JSONParser.parse(bytes) { text = JSONSerializer.pretty(json) }
    let split = text.split(separator: "\n", omittingEmptySubsequences: false)
    for line in split.prefix(bodyLines) { lines.append(FlowRunLine("        " + line, .plain)) }
    if split.count > bodyLines { lines.append(FlowRunLine("        … \(split.count - bodyLines) more lines", .dim)) }
    if bytes.isEmpty { lines.append(FlowRunLine("        (empty)", .dim)) }
    return lines
  }
}

extension FlowRow {
  /// An outcome's message unless it only repeats its state (`cancelled`); nil for a success.
  /// A failed capture is told short (the viewer shows the body it ran on).
  static func detail(_ outcome: FlowOutcome) -> String? {
    guard outcome.state != .succeeded, let message = outcome.message, message != outcome.state.rawValue else { return nil }
    if let failure = outcome.captureFailure { return "capture failed: " + short(failure) }
    if outcome.kind == .chain, let step = outcome.steps.last, step.step == outcome.step, let failure = step.captureFailure {
      return "step \(outcome.step ?? 0) (\(step.name)) failed: capture " + short(failure)
    }
    return message
  }

  /// `token ← .token: found nothing`.
  static func short(_ failure: FlowRunner.CaptureFailure) -> String {
    "\(failure.capture) ← \(failure.source): \(failure.reason)"
  }

  /// A chain step's state: ended, running, or waiting (`.queued`).
  public static func stepState(_ flow: FlowRow, _ step: Int) -> ExchangeState {
    if let ended = flow.stepStates[step] { return ended }
    // The chain only went past a step that ended.
    if step < flow.step { return .succeeded }
    return step == flow.step && !flow.state.isTerminal ? .running : .queued
  }

  /// A batch member's state: its outcome once it ended; while the batch runs, running once its
  /// exchange started, else queued (waiting for the batch's concurrency).
  public static func memberState(_ flow: FlowRow, _ index: Int) -> ExchangeState {
    if let outcome = flow.members[index] { return outcome.state }
    if flow.state.isTerminal { return .cancelled }
    return flow.startedMembers.contains(index) ? .running : .queued
  }
}

extension QueueFlowItem {
  var isMember: Bool { memberIndex != nil }
  var memberIndex: Int? {
    if case .member(_, let index) = self { index } else { nil }
  }
}
