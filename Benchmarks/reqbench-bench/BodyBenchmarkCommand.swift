import Base
import CommandLineSupport
import Foundation
import RequestEngine
import TerminalUI
import Workbench
import Workspace

/// `reqbench-bench benchmark-body [--size WxH] [--pages N] [--repeats N] [--workspace FILE] URL...`: a
/// developer command of `reqbench-bench`, for `Benchmarks/tui`. It GETs each URL through a real agent (default
/// configuration, so a body over 16 MB is spilled to a temporary file as in the TUI), then, in a
/// fresh state of the demo workspace with the exchange selected and the response pane focused,
/// times what the TUI does:
///
/// - open: `update(.agent(.finished(result)))` (which builds the body's document) plus the first
///   `view` and `changes`;
/// - per frame while paging: `update(.key(.pageDown))` plus `view` and `changes`, N times;
/// - `G`: the jump to the end (which scans the whole body once) plus its frame.
///
/// Each is repeated (medians over the repeats; the frame figures over every frame of every
/// repeat). The first URL is the baseline: the other bodies' open and per-frame times are also
/// printed as ratios to it. Lines starting `body=` and `ratio=` are for scripts.
enum BodyBenchmarkCommand {
  static let usage =
    "reqbench-bench benchmark-body [--size WxH] [--pages N] [--repeats N] [--workspace FILE] URL..."

  struct Figures {
    var url: String
    var bytes: Int
    var spilled: Bool
    var kind: String
    var open: [Double] = []
    var frames: [Double] = []
    var end: [Double] = []
  }

  static func run(_ args: [String]) -> Int32 {
    let options: BenchmarkOptions
    switch BenchmarkOptions.parse(
      args, command: "benchmark-body", usage: usage, numbers: ["--pages": 200, "--repeats": 5])
    {
    case .success(let parsed): options = parsed
    case .failure(let exit): return exit.status
    }
    let (width, height, workspacePath) = (options.width, options.height, options.workspacePath)
    let pages = options.numbers["--pages"] ?? 200
    let repeats = options.numbers["--repeats"] ?? 5
    let urls = options.positional
    guard !urls.isEmpty else {
      Terminal.error("reqbench-bench: benchmark-body needs at least one URL\n\(usage)")
      return ExitStatus.usage
    }
    guard let workspace = CommandWorkspace.load(workspacePath) else { return ExitStatus.usage }

    let out = Output.standard
    out.line("benchmark-body: \(width)x\(height), \(pages) pages down, \(repeats) repeats per body")
    var all: [Figures] = []
    for url in urls {
      let (events, result) = fetch(url)
      guard let response = result.response, result.state == .succeeded else {
        Terminal.error("reqbench-bench: benchmark-body: \(url): \(result.error?.message ?? result.state.rawValue)")
        return ExitStatus.failure
      }
      var spilled = false
      if case .file = response.body { spilled = true }
      var figures = Figures(url: url, bytes: response.body.count, spilled: spilled, kind: "")
      for _ in 0..<repeats {
        measure(
          events: events, result: result, workspace: workspace, file: workspacePath, width: width, height: height,
          pages: pages, into: &figures)
      }
      all.append(figures)
      out.line(
        "  \(url): \(figures.bytes) bytes, \(figures.kind), \(spilled ? "spilled to a file" : "in memory"): "
          + "open \(ms(median(figures.open))) ms; per frame median \(ms(median(figures.frames))) ms, "
          + "p95 \(ms(BenchmarkCommand.percentile(figures.frames, 0.95))) ms; G \(ms(median(figures.end))) ms")
      out.flush()
    }
    for figures in all {
      out.line(
        "body=\(figures.url) bytes=\(figures.bytes) spilled=\(figures.spilled ? 1 : 0) kind=\(figures.kind) "
          + "open_ms=\(ms(median(figures.open))) frame_median_ms=\(ms(median(figures.frames))) "
          + "frame_p95_ms=\(ms(BenchmarkCommand.percentile(figures.frames, 0.95))) end_ms=\(ms(median(figures.end)))")
    }
    let base = all[0]
    for figures in all.dropFirst() {
      out.line(
        "ratio=\(figures.url) open=\(ratio(median(figures.open), median(base.open))) "
          + "frame=\(ratio(median(figures.frames), median(base.frames)))")
    }
    out.flush()
    return ExitStatus.success
  }

  /// The agent's events for one GET of `url` and its result; the agent is shut down after (a
  /// spilled body's file lives as long as the result).
  static func fetch(_ url: String) -> ([AgentEvent], ExchangeResult) {
    let agent = Agent()
    defer { agent.shutdown() }
    let events = Locked<[AgentEvent]>([])
    agent.subscribe { event in events.mutate { $0.append(event) } }
    let request = Request(name: "bench/body", url: url, dedup: false)
    let result = agent.sendAndWait(request)
    return (events.get().filter { $0.exchangeID == result.id }, result)
  }

  /// One open, `pages` frames paging down and a `G`, in a fresh state.
  static func measure(
    events: [AgentEvent], result: ExchangeResult, workspace: Workspace, file: String, width: Int, height: Int,
    pages: Int, into figures: inout Figures
  ) {
    let sources = VariableSources(overrides: [:], processEnvironment: [:], secrets: SecretsFile())
    var state = AppState(workspace: workspace, workspaceFile: file, sources: sources, width: width, height: height)
    var buffer = ScreenBuffer(width: width, height: height)
    var previous: ScreenBuffer?
    // The exchange running, selected in the queue and shown in the viewer, as it is while a
    // transfer goes on; then its end arrives.
    for event in events {
      if case .finished = event { break }
      _ = update(&state, .agent(event))
    }
    state.focus = .queue
    _ = update(&state, .key(.enter))
    view(state, into: &buffer)
    _ = buffer.changes(since: previous)
    previous = buffer

    func frame(_ msg: Msg) -> Double {
      let t0 = MonotonicClock.nanoseconds()
      _ = update(&state, msg)
      view(state, into: &buffer)
      _ = buffer.changes(since: previous)
      previous = buffer
      return Double(MonotonicClock.nanoseconds() - t0) / 1e6
    }
    figures.open.append(frame(.agent(.finished(result))))
    figures.kind = state.viewer.document.map { "\($0.kind)" } ?? "none"
    for _ in 0..<pages { figures.frames.append(frame(.key(.pageDown))) }
    figures.end.append(frame(.key(.char("G"))))
  }

  static func median(_ samples: [Double]) -> Double { BenchmarkCommand.percentile(samples, 0.5) }
  static func ms(_ value: Double) -> String { String(format: "%.3f", value) }
  static func ratio(_ a: Double, _ b: Double) -> String { String(format: "%.2f", b > 0 ? a / b : 0) }
}
