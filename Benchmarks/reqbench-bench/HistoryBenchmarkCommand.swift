import Base
import CommandLineSupport
import Foundation
import History
import RequestEngine
import Workbench
import Workspace

/// `reqbench-bench benchmark-history STATE NAME [--steps N]`: a developer command of `reqbench-bench`, for
/// `Benchmarks/history`. Times what the TUI does for `[` and `]` on the request NAME of the
/// history in the state folder STATE (`HistoryStep.shown`: the entry at a position, the
/// count, both bodies), stepping back and forth over the newest ten entries. The last line
/// (`median_us=… p95_us=…`) is for scripts.
enum HistoryBenchmarkCommand {
  static let usage = "reqbench-bench benchmark-history STATE NAME [--steps N]"

  static func run(_ args: [String]) -> Int32 {
    let options: BenchmarkOptions
    switch BenchmarkOptions.parse(args, command: "benchmark-history", usage: usage, numbers: ["--steps": 200]) {
    case .success(let parsed): options = parsed
    case .failure(let exit): return exit.status
    }
    guard options.positional.count == 2 else {
      Terminal.error("reqbench-bench: benchmark-history needs a state folder and a request name\n\(usage)")
      return ExitStatus.usage
    }
    let store = HistoryStore(stateFolder: URL(fileURLWithPath: options.positional[0]))
    let name = options.positional[1]
    let steps = max(1, options.numbers["--steps"] ?? 200)
    var samples: [Double] = []
    var shown = 0
    for step in 0..<(steps + 10) {
      let position = step % 20 < 10 ? step % 10 : 9 - step % 10
      let t0 = MonotonicClock.nanoseconds()
      let msg = HistoryStep.shown(store, name: name, position: position)
      let t1 = MonotonicClock.nanoseconds()
      if case .historyShown(let view?, nil) = msg { shown += view.count > 0 ? 1 : 0 }
      if step >= 10 { samples.append(Double(t1 - t0) / 1000) }
    }
    guard shown > 0 else {
      Terminal.error("reqbench-bench: benchmark-history: \(name) has no history in \(options.positional[0])")
      return ExitStatus.failure
    }
    let median = BenchmarkCommand.percentile(samples, 0.5)
    let p95 = BenchmarkCommand.percentile(samples, 0.95)
    Output.standard.line(String(format: "median_us=%.1f p95_us=%.1f", median, p95))
    Output.standard.flush()
    return ExitStatus.success
  }
}
