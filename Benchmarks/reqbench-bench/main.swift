import CommandLineSupport
import Foundation
import RequestEngine

// `reqbench-bench`: the developer benchmarks the scripts in `Benchmarks/` run, kept out of the
// shipped `reqbench`. Each times the code the TUI runs (`Workbench`'s update and view, the
// history step), through the same libraries.
let commands: [String: ([String]) -> Int32] = [
  "benchmark-render": BenchmarkCommand.run,
  "benchmark-body": BodyBenchmarkCommand.run,
  "benchmark-history": HistoryBenchmarkCommand.run,
]
let usage = """
  usage: \(BenchmarkCommand.usage)
         \(BodyBenchmarkCommand.usage)
         \(HistoryBenchmarkCommand.usage)
  """

signal(SIGPIPE, SIG_IGN)
let args = Array(CommandLine.arguments.dropFirst())
let status: Int32
if let name = args.first, let run = commands[name] {
  status = run(Array(args.dropFirst()))
} else if args.first == "--help" || args.first == "-h" {
  Output.standard.line(usage)
  status = ExitStatus.success
} else {
  Terminal.error("reqbench-bench: name a benchmark\n\(usage)")
  status = ExitStatus.usage
}
Output.standard.flush()
Agent.stopEveryEngine()
exit(status)
