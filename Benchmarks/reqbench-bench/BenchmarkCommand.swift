import Base
import CommandLineSupport
import Foundation
import RequestEngine
import TerminalUI
import Workbench
import Workspace

/// `reqbench-bench benchmark-render [--rows N] [--size WxH] [--frames N] [--workspace FILE] [--show]`: a
/// developer command for `Benchmarks/tui`. It fills the queue of the demo workspace's state with
/// N finished exchanges plus a few running ones, then times what the TUI does for every frame:
/// `view(state, into: &buffer)` and `buffer.changes(since: previous)`. Each frame first scrolls
/// the queue by one row (which also shows that exchange's response) and moves a running
/// download on, so no frame is a repeat of the last. Prints the median and p95 per frame in ms;
/// the last line (`median_ms=… p95_ms=…`) is for scripts. `--show` also prints the last frame's
/// text to stderr, to see what was drawn.
///
/// `--list`: the request list instead of the queue, for a large workspace against a small one.
/// The workspace's state as the TUI opens it (the list focused, nothing sent); half the frames
/// walk down from the top (`j`), the other half up from the end (`G`, then `k`), each timed from
/// the key's `update` to the diff (moving the selection is what walks the list). Prints the
/// medians at the top and the end, and the process's peak RSS (`VmHWM`: the workspace read, the
/// state and the frames); `list_median_ms=… list_p95_ms=… peak_rss_kb=…` is for scripts.
///
/// `--stream`: a server-sent events stream of `--rate` events a second (1,000 by default) shown
/// in the viewer's Events tab, following its tail, after `--rows` events already came (the log
/// at its 10,000-event cap drops one for each new one). Each frame is what the TUI does in a
/// 30th of a second: `update` with that frame's events (33 or 34 at 1,000/s) and a clock tick,
/// then `view` + diff; the whole is timed, since the events are the frame's work.
/// `stream_median_ms=… stream_p95_ms=…` is for scripts.
enum BenchmarkCommand {
  static let usage =
    "reqbench-bench benchmark-render [--rows N] [--size WxH] [--frames N] [--workspace FILE] [--show] [--list] [--stream [--rate N]]"

  /// Running downloads at the top of the queue (progress bars, speed and ETA to draw).
  static let running = 16
  /// Frames drawn before timing starts (caches, first document builds, page faults).
  static let warmup = 20

  static func run(_ args: [String]) -> Int32 {
    let options: BenchmarkOptions
    switch BenchmarkOptions.parse(
      args, command: "benchmark-render", usage: usage, numbers: ["--rows": 1000, "--frames": 500, "--rate": 1000],
      flags: ["--show", "--list", "--stream"])
    {
    case .success(let parsed): options = parsed
    case .failure(let exit): return exit.status
    }
    guard options.positional.isEmpty else {
      Terminal.error("reqbench-bench: benchmark-render: unknown argument \"\(options.positional[0])\"\n\(usage)")
      return ExitStatus.usage
    }
    let (width, height, workspacePath) = (options.width, options.height, options.workspacePath)
    let rows = options.numbers["--rows"] ?? 1000
    let frames = options.numbers["--frames"] ?? 500
    let show = options.flags.contains("--show")
    guard let workspace = CommandWorkspace.load(workspacePath) else { return ExitStatus.usage }
    if options.flags.contains("--stream") {
      return runStream(
        workspace: workspace, file: workspacePath, earlier: rows, rate: options.numbers["--rate"] ?? 1000, frames: frames,
        width: width, height: height, show: show)
    }
    if options.flags.contains("--list") {
      return runList(workspace: workspace, file: workspacePath, frames: frames, width: width, height: height, show: show)
    }

    var state = makeState(workspace: workspace, file: workspacePath, rows: rows, width: width, height: height)
    var buffer = ScreenBuffer(width: width, height: height)
    var previous: ScreenBuffer?
    var samples: [Double] = []
    var updates: [Double] = []
    samples.reserveCapacity(frames)
    updates.reserveCapacity(frames)
    var changedRuns = 0
    var clock = Scenario.epoch.addingTimeInterval(10)
    for frame in 0..<(warmup + frames) {
      // What changed since the last frame: one row down the queue (back to the top at the end)
      // and a running download a little further, with the clock for its speed and ETA.
      let u0 = MonotonicClock.nanoseconds()
      let key: Key = state.queueSelection + 1 >= state.exchanges.count ? .char("g") : .char("j")
      _ = update(&state, .key(key))
      let id = ExchangeID(rawValue: UInt64(rows + 1 + frame % running))
      let downloaded = Int64(1 + frame / running) * 65_536 % 52_428_800
      _ = update(&state, .agent(.progress(id, TransferProgress(downloaded: downloaded, downloadTotal: 52_428_800))))
      clock = clock.addingTimeInterval(1.0 / 30)
      _ = update(&state, .tick(clock))
      let t0 = MonotonicClock.nanoseconds()
      view(state, into: &buffer)
      let runs = buffer.changes(since: previous)
      // As the curses backend keeps its last frame: the next `view` pays for the copy-on-write.
      previous = buffer
      let t1 = MonotonicClock.nanoseconds()
      if frame >= warmup {
        samples.append(Double(t1 - t0) / 1e6)
        updates.append(Double(t0 - u0) / 1e6)
        changedRuns += runs.count
      }
    }

    if show { Terminal.error(buffer.text) }
    let median = percentile(samples, 0.5)
    let p95 = percentile(samples, 0.95)
    let out = Output.standard
    out.line(
      "benchmark-render: \(width)x\(height), \(state.exchanges.count) queue rows (\(rows) finished, \(running) running), "
        + "\(frames) frames after \(warmup) warm-up")
    out.line(
      "view + changes per frame: median \(ms(median)) ms, p95 \(ms(p95)) ms, max \(ms(samples.max() ?? 0)) ms; "
        + "\(changedRuns / max(1, samples.count)) changed runs per frame")
    out.line("update (scroll + progress + tick, not in the figures above): median \(ms(percentile(updates, 0.5))) ms")
    out.line("median_ms=\(ms(median)) p95_ms=\(ms(p95))")
    out.flush()
    return ExitStatus.success
  }

  /// `--list`: frames moving the request list's selection, at its top and at its end.
  static func runList(workspace: Workspace, file: String, frames: Int, width: Int, height: Int, show: Bool) -> Int32 {
    let sources = VariableSources(processEnvironment: [:], secrets: SecretsFile())
    var state = AppState(workspace: workspace, workspaceFile: file, sources: sources, width: width, height: height)
    state.focus = .requests
    var buffer = ScreenBuffer(width: width, height: height)
    view(state, into: &buffer)
    var previous: ScreenBuffer? = buffer
    /// Times `count` frames of `key` (after `warmup` untimed ones): update, view, diff.
    func timed(_ key: Key, _ count: Int) -> [Double] {
      var samples: [Double] = []
      samples.reserveCapacity(count)
      for frame in 0..<(warmup + count) {
        let t0 = MonotonicClock.nanoseconds()
        _ = update(&state, .key(key))
        view(state, into: &buffer)
        _ = buffer.changes(since: previous)
        previous = buffer
        let t1 = MonotonicClock.nanoseconds()
        if frame >= warmup { samples.append(Double(t1 - t0) / 1e6) }
      }
      return samples
    }
    let top = timed(.char("j"), frames / 2)
    _ = update(&state, .key(.char("G")))
    let end = timed(.char("k"), frames - frames / 2)
    let all = top + end
    if show { Terminal.error(buffer.text) }
    let rss = peakRSSKilobytes()
    let out = Output.standard
    out.line(
      "benchmark-render --list: \(width)x\(height), \(workspace.requests.count) requests, "
        + "\(state.listRows.count) rows, \(top.count) frames down from the top and \(end.count) up from the end")
    out.line(
      "update + view + changes per frame: median \(ms(percentile(all, 0.5))) ms, p95 \(ms(percentile(all, 0.95))) ms; "
        + "at the top \(ms(percentile(top, 0.5))) ms, at the end \(ms(percentile(end, 0.5))) ms")
    out.line("peak RSS \(rss) kB")
    out.line("list_median_ms=\(ms(percentile(all, 0.5))) list_p95_ms=\(ms(percentile(all, 0.95))) peak_rss_kb=\(rss)")
    out.flush()
    return ExitStatus.success
  }

  /// `--stream`: frames of the Events tab following a stream of `rate` events a second.
  static func runStream(
    workspace: Workspace, file: String, earlier: Int, rate: Int, frames: Int, width: Int, height: Int, show: Bool
  ) -> Int32 {
    let sources = VariableSources(
      overrides: ["host": "http://127.0.0.1:8080"], processEnvironment: [:], secrets: SecretsFile())
    var state = AppState(workspace: workspace, workspaceFile: file, sources: sources, width: width, height: height)
    let id = ExchangeID(rawValue: 1)
    let request = Request(name: "streams/ticker", url: "http://127.0.0.1:8080/sse/ticker?interval=0.001")
    var headers = HTTPHeaders()
    headers["Content-Type"] = "text/event-stream"
    var clock = Scenario.epoch
    for msg: Msg in [
      .tick(clock), .agent(.queued(id, request)), .agent(.started(id, attempt: 1)),
      .agent(.headers(id, status: 200, headers: headers)),
    ] { _ = update(&state, msg) }
    _ = update(&state, .key(.char("4")))
    _ = update(&state, .key(.enter))  // the viewer shows it; its first event opens the Events tab
    var sent = 0
    /// The events of the stream's first `seconds`, as the parser makes them.
    func events(through seconds: Double) -> [Msg] {
      let upTo = Int(seconds * Double(rate))
      defer { sent = max(sent, upTo) }
      return (sent..<max(sent, upTo)).map { index in
        let data = #"{"tick":\#(index + 1),"price":\#(100 + index % 7),"time":"2026-12-03T07:00:00Z"}"#
        return .agent(
          .streamEvents(
            id,
            [StreamEvent(format: .sse, index: index, type: "tick", id: String(index + 1), data: data, size: data.utf8.count + 25,
              seconds: Double(index) / Double(rate))]))
      }
    }
    // The stream so far.
    for msg in events(through: Double(earlier) / Double(rate)) { _ = update(&state, msg) }
    var buffer = ScreenBuffer(width: width, height: height)
    view(state, into: &buffer)
    var previous: ScreenBuffer? = buffer
    var samples: [Double] = []
    var updates: [Double] = []
    samples.reserveCapacity(frames)
    var perFrame: [Int] = []
    for frame in 0..<(warmup + frames) {
      clock = clock.addingTimeInterval(1.0 / 30)
      let batch = events(through: Double(earlier) / Double(rate) + Double(frame + 1) / 30)
      let t0 = MonotonicClock.nanoseconds()
      for msg in batch { _ = update(&state, msg) }
      _ = update(&state, .tick(clock))
      let t1 = MonotonicClock.nanoseconds()
      view(state, into: &buffer)
      _ = buffer.changes(since: previous)
      previous = buffer
      let t2 = MonotonicClock.nanoseconds()
      if frame >= warmup {
        samples.append(Double(t2 - t0) / 1e6)
        updates.append(Double(t1 - t0) / 1e6)
        perFrame.append(batch.count)
      }
    }
    if show { Terminal.error(buffer.text) }
    let kept = state.exchanges.first?.stream?.kept.count ?? 0
    let out = Output.standard
    out.line(
      "benchmark-render --stream: \(width)x\(height), \(rate) events/s, \(sent) events (\(kept) kept), Events tab following, "
        + "\(frames) frames of 1/30 s (\(perFrame.min() ?? 0)-\(perFrame.max() ?? 0) events each) after \(warmup) warm-up")
    out.line(
      "update with the frame's events + view + changes: median \(ms(percentile(samples, 0.5))) ms, "
        + "p95 \(ms(percentile(samples, 0.95))) ms, max \(ms(samples.max() ?? 0)) ms; the events' update alone: median "
        + "\(ms(percentile(updates, 0.5))) ms")
    out.line("stream_median_ms=\(ms(percentile(samples, 0.5))) stream_p95_ms=\(ms(percentile(samples, 0.95)))")
    out.flush()
    return ExitStatus.success
  }

  /// The process's peak resident memory (`VmHWM` of /proc/self/status), in kB; 0 when unreadable.
  static func peakRSSKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
    return line.flatMap { Int($0.split(separator: " ").dropFirst().first ?? "") } ?? 0
  }

  /// The demo workspace's state at the given size with `rows` finished exchanges (every tenth a
  /// 404, every 25th a larger body) and `running` downloads in progress, focus on the queue.
  static func makeState(workspace: Workspace, file: String, rows: Int, width: Int, height: Int) -> AppState {
    let sources = VariableSources(
      overrides: ["host": "http://127.0.0.1:8080"], processEnvironment: [:], secrets: SecretsFile())
    var state = AppState(workspace: workspace, workspaceFile: file, sources: sources, width: width, height: height)
    let base = "http://127.0.0.1:8080"
    for i in 0..<rows {
      let name = String(format: "folder-%02d/req-%04d", i % 20, i)
      let request = Request(name: name, url: base + "/r/\(i)?page=\(i % 7)")
      let items = i % 25 == 0 ? 400 : 8
      let body =
        "["
        + (0..<items).map { #"{"id": \#(i * 1000 + $0), "name": "item \#($0)", "tags": ["a", "b"], "ok": true}"# }
        .joined(separator: ", ") + "]"
      let failed = i % 10 == 9
      let messages = Scenario.exchange(
        id: UInt64(i + 1), request: request, status: failed ? 404 : 200, body: body,
        state: failed ? .failed : .succeeded,
        error: failed ? .status(404, accepted: Validation()) : nil, duration: 0.002 + Double(i % 50) / 1000)
      for msg in messages { _ = update(&state, msg) }
    }
    for j in 0..<running {
      let id = ExchangeID(rawValue: UInt64(rows + 1 + j))
      let request = Request(name: "downloads/file-\(j)", url: base + "/files/big-\(j).bin")
      _ = update(&state, .agent(.queued(id, request)))
      _ = update(&state, .agent(.started(id, attempt: 1)))
      _ = update(
        &state, .agent(.progress(id, TransferProgress(downloaded: Int64(j) * 1_048_576, downloadTotal: 52_428_800))))
    }
    _ = update(&state, .tick(Scenario.epoch.addingTimeInterval(10)))
    state.focus = .queue
    return state
  }

  /// Nearest-rank percentile (p in 0...1) of the samples.
  static func percentile(_ samples: [Double], _ p: Double) -> Double {
    guard !samples.isEmpty else { return 0 }
    let sorted = samples.sorted()
    let rank = Int((p * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(0, rank), sorted.count - 1)]
  }

  static func ms(_ value: Double) -> String { String(format: "%.3f", value) }
}

/// The options the benchmark commands share: `--size WxH`, `--workspace FILE`, `-h`, the
/// numeric options a command names (with their defaults; 1 to 1,000,000) and its flags. Other
/// arguments are left positional.
struct BenchmarkOptions {
  struct Exit: Error { var status: Int32 }

  var width = 200
  var height = 60
  var workspacePath = CommandWorkspace.demoPath() ?? "workspaces/demo.json"
  var numbers: [String: Int]
  var flags: Set<String> = []
  var positional: [String] = []

  static func parse(
    _ args: [String], command: String, usage: String, numbers: [String: Int], flags: Set<String> = []
  ) -> Result<BenchmarkOptions, Exit> {
    var options = BenchmarkOptions(numbers: numbers)
    var rest = args[...]
    func fail(_ message: String) -> Result<BenchmarkOptions, Exit> {
      Terminal.error("reqbench-bench: \(message)\n\(usage)")
      return .failure(Exit(status: ExitStatus.usage))
    }
    while let arg = rest.popFirst() {
      switch arg {
      case _ where numbers[arg] != nil:
        guard let text = rest.popFirst(), let n = Int(text), n >= 1, n <= 1_000_000 else {
          return fail("\(arg) needs a number from 1 to 1000000")
        }
        options.numbers[arg] = n
      case _ where flags.contains(arg):
        options.flags.insert(arg)
      case "--size":
        let parts = (rest.popFirst() ?? "").split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts[0] >= Layout.minimumWidth, parts[1] >= Layout.minimumHeight else {
          return fail("--size needs WIDTHxHEIGHT of at least \(Layout.minimumWidth)x\(Layout.minimumHeight), e.g. 200x60")
        }
        (options.width, options.height) = (parts[0], parts[1])
      case "--workspace":
        guard let path = rest.popFirst() else { return fail("--workspace needs a file") }
        options.workspacePath = path
      case "-h", "--help":
        Output.standard.line(usage)
        return .failure(Exit(status: ExitStatus.success))
      default:
        guard !arg.hasPrefix("-") else { return fail("\(command): unknown argument \"\(arg)\"") }
        options.positional.append(arg)
      }
    }
    return .success(options)
  }
}
