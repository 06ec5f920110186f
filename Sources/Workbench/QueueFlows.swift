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
      guard expandedFlows.contains(flow.run) else { continue }
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

  /// How many lines of the queue pane the section takes: a third of it, half while a run is
  /// expanded.
  public var queueFlowLines: Int {
    let height = layout.contentHeight(of: .queue)
    let items = queueFlowItems.count
    return min(items, max(0, expandedFlows.isEmpty ? height / 3 : height / 2))
  }

  /// The section's lines on screen: a window that keeps the selected one in view.
  public var queueFlowWindow: ArraySlice<QueueFlowItem> {
    let items = queueFlowItems
    let lines = queueFlowLines
    guard lines > 0 else { return [] }
    let selected = queueFlowSelection.flatMap { items.firstIndex(of: $0) } ?? 0
    let start = selected >= lines ? selected - lines + 1 : 0
    return items[start..<min(items.count, start + lines)]
  }

  /// The exchange rows below the section (without its header line).
  var queueExchangeLines: Int { max(1, layout.contentHeight(of: .queue) - queueFlowLines - 1) }

  /// The run a queue line belongs to.
  public func flowRow(_ run: String) -> FlowRow? { flows.first { $0.run == run } }

  mutating func selectQueueFlow(_ item: QueueFlowItem) {
    queueFlowSelection = item
    viewer.flow = item.run
    viewer.history = nil
    viewer.scroll = 0
  }

  /// Keys on a batch or chain line of the queue: `c` cancels the run, `r` resumes a chain that
  /// failed or was cancelled, Enter / space toggle its members or steps, → shows and ← hides
  /// them.
  mutating func handleQueueFlowKey(_ key: Key, _ item: QueueFlowItem) -> [Command] {
    guard let flow = flowRow(item.run) else { return [] }
    switch key {
    case .char("c"):
      guard !flow.state.isTerminal else {
        message = StatusMessage("\(flow.kind.rawValue) \(flow.name) already \(flow.state.rawValue)")
        return []
      }
      message = StatusMessage("cancelling \(flow.kind.rawValue) \(flow.name)")
      return [.cancelFlow(run: flow.run)]
    case .char("r"):
      return resume(flow, flow.name)
    case .enter, .char(" "):
      if expandedFlows.contains(flow.run) {
        collapse(flow.run)
      } else {
        expandedFlows.insert(flow.run)
      }
    case .right, .char("l"):
      expandedFlows.insert(flow.run)
    case .left, .char("h"):
      collapse(flow.run)
    default:
      break
    }
    return []
  }

  private mutating func collapse(_ run: String) {
    expandedFlows.remove(run)
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
