import Base
import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// The queue: the column header, the batch and chain section, then the exchanges.
extension Painter {
  /// Column positions of the queue, shared by the header and the rows. The request name always
  /// keeps at least `minimumName` columns: on a narrow screen the progress column shrinks and
  /// then goes, then the time, then the size (0 width: not drawn).
  struct QueueColumns {
    static let minimumName = 25  // the method and 18 columns of name
    let state: Int, status: Int, name: Int, size: Int, time: Int, progress: Int, progressWidth: Int, end: Int
    let sizeWidth: Int, timeWidth: Int
    init(_ area: Rect) {
      end = area.x + area.width
      state = area.x
      status = state + 14
      name = status + 7
      let room = end - name - QueueColumns.minimumName
      // Wide enough on a wide screen for the bar, the speed and the ETA.
      var progressWidth = min(46, max(10, area.width * 3 / 10))
      var timeWidth = 11
      var sizeWidth = 10
      if room < progressWidth + timeWidth + sizeWidth {
        progressWidth = room - timeWidth - sizeWidth >= 10 ? room - timeWidth - sizeWidth : 0
      }
      if room < progressWidth + timeWidth + sizeWidth { timeWidth = 0 }
      if room < progressWidth + timeWidth + sizeWidth { sizeWidth = 0 }
      self.progressWidth = progressWidth
      self.timeWidth = timeWidth
      self.sizeWidth = sizeWidth
      progress = end - progressWidth
      time = progress - timeWidth
      size = time - sizeWidth
    }
  }

  func queue(_ buffer: inout ScreenBuffer) {
    frame(&buffer, .queue, suffix: state.exchanges.isEmpty ? "" : " · \(state.exchanges.count)")
    let area = inner(.queue)
    // The column header on top, then the batch and chain runs (expanded ones with their members
    // or steps), then the exchanges.
    let c = QueueColumns(area)
    buffer.put("  STATE", x: c.state, y: area.y, style: theme.dim)
    buffer.put("STATUS", x: c.status, y: area.y, style: theme.dim)
    buffer.put("REQUEST", x: c.name, y: area.y, style: theme.dim)
    if c.sizeWidth > 0 { buffer.put(TextWidth.pad("SIZE", to: 9, alignRight: true), x: c.size, y: area.y, style: theme.dim) }
    if c.timeWidth > 0 { buffer.put(TextWidth.pad("TIME", to: 10, alignRight: true), x: c.time, y: area.y, style: theme.dim) }
    if c.progressWidth > 0 { buffer.put("PROGRESS", x: c.progress + 1, y: area.y, style: theme.dim) }
    // One sequence of lines below the header, scrolled as one (`AppState.queueFirstLine`).
    let lines = state.queueLines
    let first = state.queueFirstLine(lines)
    let shown = lines.dropFirst(first).prefix(max(0, area.height - 1))
    if state.exchanges.isEmpty, shown.count < area.height - 1 {
      // Nothing or runs only (their requests not sent yet): the hint below them, with the key
      // that sends where the focus is (in the editor Enter edits a field).
      let send = state.focus == .editor ? "s sends the request in the editor" : "Enter sends the selected request"
      buffer.putTruncated(
        "nothing sent yet: " + send, x: area.x + 2, y: area.y + 1 + shown.count, style: theme.dim,
        width: area.width - 2)
    }
    let joinedCounts = state.joinedCounts
    for (i, line) in shown.enumerated() {
      let y = area.y + 1 + i
      switch line {
      case .flow(let item):
        guard let flow = state.flowRow(item.run) else { continue }
        switch item {
        case .flow: flowRow(&buffer, flow, y: y, x: area.x, width: area.width)
        case .member(_, let index): memberRow(&buffer, flow, index, y: y, x: area.x, width: area.width)
        case .step(_, let index): stepRow(&buffer, flow, index, y: y, x: area.x, width: area.width)
        }
      case .exchange(let id):
        guard let row = state.exchanges.first(where: { $0.id == id }) else { continue }
        exchangeRow(&buffer, row, c, y: y, joinedBy: joinedCounts[id] ?? 0)
      }
      if line == state.queue.selected {
        highlight(&buffer, Rect(x: area.x, y: y, width: area.width, height: 1), focused: state.focus == .queue)
      }
    }
  }

  /// An exchange's row: state, status, method, name and badges, error, size, time, progress.
  /// `joinedBy`: how many exchanges in flight share this one's transfer (`+N joined`).
  func exchangeRow(_ buffer: inout ScreenBuffer, _ row: ExchangeRow, _ c: QueueColumns, y: Int, joinedBy: Int = 0) {
    let shownState = row.shownState
    buffer.putTruncated(glyph(shownState) + " " + row.stateWord, x: c.state, y: y, style: theme.state(shownState), width: 13)
    buffer.put(row.status.map(String.init) ?? "-", x: c.status, y: y, style: theme.status(row.status))
    var x = c.name
    x += buffer.put(TextWidth.pad(row.method.rawValue, to: 7), x: x, y: y, style: theme.method(row.method))
    // Badges (served from the cache, merged with an identical request in flight, resumable)
    // keep their room: the name is cut (with "…") before they are.
    // On a narrow screen `resumable 17%` becomes `⟳ 17%` rather than push the name under 9.
    var badges = row.badges
    if joinedBy > 0 { badges.append("+\(joinedBy) joined") }
    let room = c.size - x - 1
    let wanted = min(9, TextWidth.of(row.label))
    if room - badges.reduce(0, { $0 + TextWidth.of($1) + 3 }) < wanted {
      badges = badges.map { $0.hasPrefix("resumable") ? "⟳" + $0.dropFirst("resumable".count) : $0 }
    }
    let badgeRoom = badges.reduce(0) { $0 + TextWidth.of($1) + 3 }
    let nameRoom = max(min(wanted, room), room - badgeRoom)
    x += buffer.putTruncated(row.label, x: x, y: y, width: max(1, nameRoom))
    for badge in badges where x + TextWidth.of(badge) + 3 <= c.size {
      x += 1
      x += buffer.put(" " + badge + " ", x: x, y: y, style: theme.badge)
    }
    if let error = row.result?.error, row.state == .failed, x + 2 < c.size - 1 {
      buffer.putTruncated(error.message, x: x + 2, y: y, style: theme.dim, width: c.size - x - 3)
    } else if let failure = row.flowFailure, x + 2 < c.size - 1 {
      buffer.putTruncated(failure.message, x: x + 2, y: y, style: theme.dim, width: c.size - x - 3)
    }
    let size = row.state == .queued ? "" : Formatting.bytes(row.bytes)
    if c.sizeWidth > 0 { buffer.put(TextWidth.pad(size, to: 9, alignRight: true), x: c.size, y: y) }
    let duration = row.time.map { Formatting.milliseconds($0.total * 1000) }
      ?? row.startedAt.flatMap { start in state.now.map { Formatting.milliseconds(max(0, $0.timeIntervalSince(start)) * 1000) } }
      ?? ""
    if c.timeWidth > 0 { buffer.put(TextWidth.pad(duration, to: 10, alignRight: true), x: c.time, y: y) }
    if let stream = row.stream, row.state == .running || row.reconnectWait != nil, c.progressWidth > 0 {
      buffer.putTruncated(Self.streamText(stream), x: c.progress + 1, y: y, style: theme.state(.running), width: c.progressWidth - 1)
    } else if row.state == .running, c.progressWidth > 0 {
      buffer.put(progressBar(row, width: c.progressWidth - 1), x: c.progress + 1, y: y, style: theme.state(row.state))
    }
  }

  /// `⧉ smoke  batch  [████····] 2/3  ✓2 ✗0 ⊘0` or `⛓ login-flow  chain  step 2/3  ✓ ▶ ·`.
  func flowRow(_ buffer: inout ScreenBuffer, _ flow: FlowRow, y: Int, x: Int, width: Int) {
    var cx = x
    let end = x + width
    cx += buffer.put(glyph(flow.state) + " " + TextWidth.pad(flow.state.rawValue, to: 11), x: cx, y: y, style: theme.state(flow.state))
    cx += 1
    cx += buffer.put(state.queue.expandedFlows.contains(flow.run) ? "▾ " : "▸ ", x: cx, y: y, style: theme.dim)
    cx += buffer.putTruncated((flow.kind == .batch ? "⧉ " : "⛓ ") + flow.name, x: cx, y: y, style: theme.flow, width: max(1, width / 3 - 2))
    cx += 2
    switch flow.kind {
    case .batch:
      let total = max(flow.total, state.workspace.batch(named: flow.name)?.members.count ?? 0)
      if end - cx >= 18 {
        cx += buffer.put("[", x: cx, y: y)
        for (cells, segment) in Painter.batchBar(flow, total: total, width: 16) {
          cx += buffer.put(String(repeating: segment.cell, count: cells), x: cx, y: y, style: theme.state(segment.state))
        }
        cx += buffer.put("] ", x: cx, y: y)
      }
      // What finished of all, then how each member ended: a cancelled member did not finish.
      let finished = flow.succeeded + flow.failed
      cx += buffer.putTruncated(
        "\(finished)/\(total)  ✓\(flow.succeeded) ✗\(flow.failed) ⊘\(flow.cancelled)", x: cx, y: y, width: end - cx)
    case .chain:
      let count = max(flow.steps, state.workspace.chain(named: flow.name)?.steps.count ?? 0)
      cx += buffer.putTruncated("step \(max(flow.step, flow.stepStates.keys.max() ?? 0))/\(count)  ", x: cx, y: y, width: end - cx)
      for i in 1...max(1, count) where count > 0 && cx + 2 <= end {
        let stepState = FlowRow.stepState(flow, i)
        cx += buffer.put(glyph(stepState) + " ", x: cx, y: y, style: theme.state(stepState))
      }
      if let captured = flow.captured.last {
        buffer.putTruncated("  \(flow.captured.count) captured, last \(captured.name)", x: cx, y: y, style: theme.dim, width: end - cx)
      }
    case .request:
      break
    }
    if flow.state == .failed, let message = flow.outcome.flatMap(FlowRow.detail), cx + 4 < end {
      buffer.putTruncated("  " + message, x: cx, y: y, style: theme.dim, width: end - cx)
    }
  }

  /// An expanded batch's member: `    ✓ users/get  200  12.3 ms`.
  func memberRow(_ buffer: inout ScreenBuffer, _ flow: FlowRow, _ index: Int, y: Int, x: Int, width: Int) {
    let names = state.workspace.batch(named: flow.name)?.members ?? []
    let name = names.indices.contains(index) ? names[index] : "member \(index + 1)"
    let memberState = FlowRow.memberState(flow, index)
    let outcome = flow.members[index]
    var cx = x + 4
    cx += buffer.put(glyph(memberState) + " " + TextWidth.pad(memberState.rawValue, to: 11), x: cx, y: y, style: theme.state(memberState))
    cx += buffer.putTruncated(name, x: cx, y: y, style: state.workspace.chain(named: name) != nil ? theme.flow : .plain, width: max(1, width / 3))
    var details: [String] = []
    if let status = outcome?.exchange?.response?.status { details.append(String(status)) }
    if let outcome, outcome.kind == .chain { details.append("\(outcome.steps.count(where: { $0.state == .succeeded }))/\(outcome.steps.count) steps") }
    if let outcome, let detail = FlowRow.detail(outcome) { details.append(detail) }
    if !details.isEmpty, cx + 4 < x + width {
      buffer.putTruncated("  " + details.joined(separator: "  "), x: cx, y: y, style: theme.dim, width: x + width - cx)
    }
  }

  /// An expanded chain's step: `    ✓ 1. auth/login  uid=1 token=…`.
  func stepRow(_ buffer: inout ScreenBuffer, _ flow: FlowRow, _ step: Int, y: Int, x: Int, width: Int) {
    let steps = state.workspace.chain(named: flow.name)?.steps ?? []
    let request = steps.indices.contains(step - 1) ? steps[step - 1].request : "step \(step)"
    let stepState = FlowRow.stepState(flow, step)
    var cx = x + 4
    cx += buffer.put(glyph(stepState) + " " + TextWidth.pad(stepState.rawValue, to: 11), x: cx, y: y, style: theme.state(stepState))
    cx += buffer.putTruncated("\(step). \(request)", x: cx, y: y, width: max(1, width / 3))
    var details = flow.captured.filter { $0.step == step }.map { "\($0.name)=\(Painter.short($0.value))" }
    if let outcome = flow.outcome?.steps.first(where: { $0.step == step }) {
      if let detail = FlowRow.detail(outcome) { details.append(detail) }
    }
    if !details.isEmpty, cx + 4 < x + width {
      buffer.putTruncated("  " + details.joined(separator: " "), x: cx, y: y, style: theme.dim, width: x + width - cx)
    }
  }

  /// A batch's bar as runs of cells: its members' shares by how they ended, finished ones first
  /// (`█`, green for succeeded, red for failed), then the cancelled (`░`, yellow), then those
  /// still to end (`·`). A cancelled batch's bar is not full: its cancelled members did not finish.
  static func batchBar(_ flow: FlowRow, total: Int, width: Int) -> [(cells: Int, segment: (cell: String, state: ExchangeState))] {
    guard total > 0 else { return [(width, ("█", .succeeded))] }
    let segments: [(count: Int, cell: String, state: ExchangeState)] = [
      (flow.succeeded, "█", .succeeded), (flow.failed, "█", .failed), (flow.cancelled, "░", .cancelled),
      (max(0, total - flow.succeeded - flow.failed - flow.cancelled), "·", .queued),
    ]
    var runs: [(cells: Int, segment: (cell: String, state: ExchangeState))] = []
    var members = 0
    var drawn = 0
    for segment in segments {
      members += segment.count
      // Cumulative rounding: the runs add up to `width` exactly.
      let edge = min(width, (width * members + total / 2) / total)
      if edge > drawn { runs.append((edge - drawn, (segment.cell, segment.state))) }
      drawn = max(drawn, edge)
    }
    if drawn < width { runs.append((width - drawn, ("·", .queued))) }
    return runs
  }

  static func short(_ value: String) -> String { value.count > 24 ? String(value.prefix(21)) + "…" : value }

  /// `stream · 142 events · 3.1/s`: a live stream's progress, its rate over the time since the
  /// exchange started until its last event (the events' own times: no clock of the view's).
  static func streamText(_ stream: StreamLog) -> String {
    let count = stream.total == 1 ? "1 event" : "\(stream.total) events"
    var text = "stream · " + count
    if let last = stream.last, last.seconds > 0, stream.total > 1 {
      text += " · " + Formatting.decimal(Double(stream.total) / last.seconds, places: 1) + "/s"
    }
    if stream.reconnects > 0 { text += " · reconnected \(stream.reconnects)" }
    return text
  }

  func progressBar(_ row: ExchangeRow, width: Int) -> String {
    let p = row.progress
    // A paused transfer has no speed to show (curl's average decays while it is held).
    let speed = row.paused ? "  paused" : Self.speedText(p)
    // The bar leaves room for the speed and ETA when the column is wide enough.
    let barSpace = width - speed.count >= 14 ? width - speed.count : width
    let inner = max(1, barSpace - 2)
    guard let fraction = p.fraction else {
      let moved = p.downloaded > 0 ? "⇣ " + Formatting.bytes(Int(p.downloaded)) : (p.uploaded > 0 ? "⇡ " + Formatting.bytes(Int(p.uploaded)) : "waiting")
      return "[" + TextWidth.pad(moved, to: inner) + "]" + (barSpace < width ? speed : "")
    }
    let percent = (p.isUploading ? " ⇡" : " ") + "\(Int(fraction * 100))%"
    let barWidth = max(1, inner - percent.count)
    let filled = Int((Double(barWidth) * fraction).rounded())
    return "[" + String(repeating: "█", count: filled) + String(repeating: "·", count: barWidth - filled) + "]" + percent
      + (barSpace < width ? speed : "")
  }
}
