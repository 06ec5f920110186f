import CommandLineSupport
import Foundation
import RequestEngine
import Workbench

/// How `run` reports: body + status line (one target), one line per exchange (several), or JSON
/// events (`--json`).
protocol Reporter {
  /// Whether `event` should see queued / started / progress / retrying events.
  var wantsProgress: Bool { get }
  func event(_ event: AgentEvent, name: String)
  func finished(_ result: RunResult)
  func summary(_ results: [RunResult])
  /// Whether `summary` reads each result's exchange (the JSON summary does). When it does not,
  /// `run` lets go of an exchange once it is reported (and recorded): a thousand results do not
  /// keep a thousand responses to the end.
  var summaryReadsExchanges: Bool { get }
}

extension Reporter {
  var summaryReadsExchanges: Bool { false }
}

/// One target: the body to stdout (escaped when stdout is a terminal), a status line to stderr;
/// on a terminal, a live progress line (bytes, speed, ETA) while a transfer with a body runs.
final class SingleReporter: Reporter {
  let live: Bool
  private var reconnectLines = ReconnectLines()
  private var lastDraw = 0.0
  private var drawn = false
  /// Events of a stream were printed: its body is not printed again.
  private var streaming = false

  init(live: Bool) { self.live = live }

  var wantsProgress: Bool { live }

  func event(_ event: AgentEvent, name: String) {
    switch event {
    case .retrying(_, let attempt, let delay, let reason):
      if drawn { Terminal.clearProgress() }
      drawn = false
      Terminal.error(Format.retryLine(name: name, attempt: attempt, delay: delay, reason: reason))
      return
    case .reconnecting(let id, let count, let delay, let reason):
      guard let line = reconnectLines.line(id: id, name: name, count: count, delay: delay, reason: reason) else { return }
      if drawn { Terminal.clearProgress() }
      drawn = false
      Output.standard.flush()  // the events before the drop come out before the line that says so
      Terminal.error(line)
      return
    case .streamEvents(_, let streamed):
      // The events' data as they arrive (the body is not printed again at the end).
      if drawn { Terminal.clearProgress() }
      drawn = false
      streaming = true
      let escaped = Terminal.stdoutIsTTY
      for event in streamed { Output.standard.data(Array((event.data + "\n").utf8), escaped: escaped) }
      return
    default:
      break
    }
    // A stream's events are its progress.
    guard live, !streaming, case .progress(_, let p) = event else { return }
    let now = Date().timeIntervalSince1970
    guard now - lastDraw >= 0.1 else { return }
    lastDraw = now
    drawn = true
    Terminal.progress(Format.progressLine(name: name, p))
  }

  func finished(_ result: RunResult) {
    if drawn { Terminal.clearProgress() }
    if result.exchange?.stream == nil, let body = result.exchange?.response?.body { writeBody(body) }
    Output.standard.flush()
    Terminal.error(Format.statusLine(result))
  }

  func summary(_ results: [RunResult]) {}

  private func writeBody(_ body: ResponseBody) {
    let tty = Terminal.stdoutIsTTY
    switch body {
    case .memory(let bytes):
      write(bytes, escaped: tty)
    case .file(let file):
      try? file.forEachChunk { write($0, escaped: tty) }
    }
    if tty, body.count > 0 { Output.standard.line("") }
    Output.standard.flush()
  }

  private func write(_ bytes: [UInt8], escaped: Bool) {
    Output.standard.data(bytes, escaped: escaped)
  }
}

/// Several targets: a line per finished exchange on stdout, a live progress line on stderr when
/// it is a terminal.
final class LinesReporter: Reporter {
  let total: Int
  private var reconnectLines = ReconnectLines()
  let live: Bool
  private var finishedCount = 0
  /// Counted as exchanges finish, for the progress line and the summary.
  private var succeeded = 0
  private var failed = 0
  private var cancelled = 0
  private var running: Set<ExchangeID> = []
  /// The progress line as last drawn: it is drawn again only when a count changes, so the line
  /// is never left showing counts that are no longer true.
  private var drawn: String?

  var wantsProgress: Bool { live }

  init(total: Int, live: Bool) {
    self.total = total
    self.live = live
  }

  func event(_ event: AgentEvent, name: String) {
    switch event {
    case .started(let id, _): running.insert(id)
    case .retrying(let id, let attempt, let delay, let reason):
      running.remove(id)
      clearProgress()
      Terminal.error(Format.retryLine(name: name, attempt: attempt, delay: delay, reason: reason))
    case .reconnecting(let id, let count, let delay, let reason):
      running.remove(id)
      if let line = reconnectLines.line(id: id, name: name, count: count, delay: delay, reason: reason) {
        clearProgress()
        Output.standard.flush()
        Terminal.error(line)
      }
    case .streamEvents(_, let streamed):
      // Several targets: each event's data on a line of its own, after the request's name.
      clearProgress()
      for event in streamed { Output.standard.line(name + ": " + event.data) }
    default: return
    }
    drawProgress()
  }

  func finished(_ result: RunResult) {
    if let id = result.exchange?.id { running.remove(id) }
    finishedCount += 1
    switch result.state {
    case .succeeded: succeeded += 1
    case .cancelled: cancelled += 1
    default: failed += 1
    }
    clearProgress()
    Output.standard.line(Format.line(result))
    // On a terminal the line must be out before the progress line is drawn below it; otherwise
    // `run` flushes once per batch of events.
    if live { Output.standard.flush() }
    drawProgress()
  }

  func summary(_ results: [RunResult]) {
    clearProgress()
    Terminal.error(Format.counts(results.map(\.state)))
  }

  private func drawProgress() {
    guard live else { return }
    let queued = total - finishedCount - running.count
    let line = "[\(finishedCount)/\(total)] \(running.count) running · \(max(0, queued)) queued · \(failed) failed"
    guard line != drawn else { return }
    drawn = line
    Terminal.progress(line)
  }

  private func clearProgress() {
    guard live, drawn != nil else { return }
    drawn = nil
    Terminal.clearProgress()
  }
}

/// `--report FORMAT`: stdout holds only the report, written at the end; stderr still tells the
/// retries and the counts.
final class SummaryReporter: Reporter {
  private var reconnectLines = ReconnectLines()
  var wantsProgress: Bool { false }

  func event(_ event: AgentEvent, name: String) {
    if case .retrying(_, let attempt, let delay, let reason) = event {
      Terminal.error(Format.retryLine(name: name, attempt: attempt, delay: delay, reason: reason))
    } else if case .reconnecting(let id, let count, let delay, let reason) = event,
      let line = reconnectLines.line(id: id, name: name, count: count, delay: delay, reason: reason)
    {
      Terminal.error(line)
    }
  }

  func finished(_ result: RunResult) {}

  func summary(_ results: [RunResult]) {
    Terminal.error(Format.counts(results.map(\.state)))
  }
}

/// `--json`: one object per event, then the summary line.
struct JSONReporter: Reporter {
  var wantsProgress: Bool { true }
  var summaryReadsExchanges: Bool { true }
  func event(_ event: AgentEvent, name: String) {
    var object = JSONObject()
    switch event {
    case .queued(let id, let request):
      object = JSONObject([
        ("event", "queued"), ("name", .string(name)), ("id", .number(Int(id.rawValue))),
        ("method", .string(request.method.rawValue)), ("url", .string(request.url)),
      ])
    case .joined(let id, let primary):
      object = JSONObject([
        ("event", "joined"), ("name", .string(name)), ("id", .number(Int(id.rawValue))),
        ("primary", .number(Int(primary.rawValue))),
      ])
    case .started(let id, let attempt):
      object = JSONObject([
        ("event", "started"), ("name", .string(name)), ("id", .number(Int(id.rawValue))),
        ("attempt", .number(attempt)),
      ])
    case .progress(let id, let p):
      object = JSONObject([
        ("event", "progress"), ("name", .string(name)), ("id", .number(Int(id.rawValue))),
        ("downloaded", .number(Int(p.downloaded))), ("downloadTotal", p.downloadTotal.map { .number(Int($0)) } ?? .null),
        ("uploaded", .number(Int(p.uploaded))), ("uploadTotal", p.uploadTotal.map { .number(Int($0)) } ?? .null),
      ])
    case .retrying(let id, let attempt, let delay, let reason):
      object = JSONObject([
        ("event", "retrying"), ("name", .string(name)), ("id", .number(Int(id.rawValue))),
        ("attempt", .number(attempt)), ("delayMs", .number(delay * 1000)),
        ("reason", .string(reason.message)),
      ])
    case .delivered(let result):
      // cacheThenNetwork: the cached delivery is a `finished` event of its own; the fresh one
      // follows and is the one the summary holds.
      finished(RunResult(name: name, exchange: result))
      return
    case .streamEvents(let id, let streamed):
      // Not flushed one by one: `run` flushes after each hand-over of the engine (what arrived
      // in one pass of its loop), so a stream of 100,000 events is not 100,000 writes.
      let prefix = StreamEvent.jsonPrefix(name: name, exchange: id)
      Output.standard.jsonObjects(count: streamed.count) { index, line in
        streamed[index].writeJSON(after: prefix, into: &line)
      }
      return
    case .reconnecting(let id, let count, let delay, let reason):
      object = Format.reconnectEvent(name: name, id: id, count: count, delay: delay, reason: reason)
    case .headers, .finished, .paused, .resumed:  // (only the TUI pauses)
      return
    }
    emit(.object(object))
  }

  func finished(_ result: RunResult) {
    var object = Format.json(result)
    object = JSONObject([("event", "finished")] + object.members.map { ($0.key, $0.value) })
    emit(.object(object))
  }

  func summary(_ results: [RunResult]) {
    let summary = JSONObject([
      ("event", "summary"),
      ("succeeded", .number(results.count(where: { $0.state == .succeeded }))),
      ("failed", .number(results.count(where: { $0.state == .failed }))),
      ("cancelled", .number(results.count(where: { $0.state == .cancelled }))),
      ("results", .array(results.map { .object(Format.json($0)) })),
    ])
    emit(.object(summary))
  }

  private func emit(_ value: JSONValue) {
    Output.standard.json(value)
    Output.standard.flush()
  }
}
