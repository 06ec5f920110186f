import CommandLineSupport
import Formats
import Foundation
import RequestEngine
import Workspace

/// `run --junit FILE` and `--report json|tap|junit`: the run's results as a `TestReport` (one
/// case per exchange or chain step; the requests named on their own, each batch and each chain
/// a suite), written to the file and / or stdout once the run is over.
struct RunReport {
  var options: RunOptions
  /// The suite of the requests named on their own: the workspace's name.
  var requestsSuite: String
  /// When the run started (every target starts at once).
  var started = Date()

  init(options: RunOptions, workspace: Workspace) {
    self.options = options
    let stem = URL(fileURLWithPath: options.workspace).deletingPathExtension().lastPathComponent
    requestsSuite = workspace.name.isEmpty ? stem : workspace.name
  }

  /// Whether anything is to be written.
  var wanted: Bool { options.report != nil || options.junit != nil }

  /// Why `--junit FILE` cannot be written, said before anything is sent (nil: it can be tried):
  /// a folder that does not exist, a folder named as the file, the workspace itself.
  static func problem(with path: String, workspace: String) -> String? {
    let url = URL(fileURLWithPath: path)
    var isFolder: ObjCBool = false
    if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
      return "--junit \(path): that is a folder; name the report file, e.g. \(path)/junit.xml"
    }
    let parent = url.deletingLastPathComponent().path
    if !FileManager.default.fileExists(atPath: parent, isDirectory: &isFolder) || !isFolder.boolValue {
      return "--junit \(path): the folder \(parent) does not exist; create it first"
    }
    if url.resolvingSymlinksInPath().path == URL(fileURLWithPath: workspace).resolvingSymlinksInPath().path {
      return "--junit \(path) is the workspace file; name another file"
    }
    return nil
  }

  /// Writes the report where it was asked for; false when the file could not be written (said
  /// on stderr).
  func emit(_ report: TestReport) -> Bool {
    var written = true
    if let path = options.junit {
      do throws(FileError) {
        try AtomicFile.write(Array(report.junitXML().utf8), to: URL(fileURLWithPath: path))
      } catch {
        Terminal.error("reqbench: cannot write the JUnit report: \(error.description)")
        written = false
      }
    }
    if let format = options.report {
      Output.standard.data(report.render(format))
      Output.standard.flush()
    }
    return written
  }

  // MARK: - From results

  /// The requests of a run without batches or chains: one suite.
  func report(_ results: [RunResult]) -> TestReport {
    let elapsed = Date().timeIntervalSince(started)
    return TestReport(suites: [
      TestReport.Suite(
        name: requestsSuite, timestamp: started, time: elapsed,
        cases: results.map { Self.testCase($0, classname: requestsSuite) })
    ])
  }

  /// A run with batches and chains: the targets' outcomes (with when each ended), in order; the
  /// requests among them share one suite, placed where the first of them is.
  func report(
    _ outcomes: [(outcome: FlowOutcome, ended: Date)], workspace: Workspace, redaction: Redaction
  ) -> TestReport {
    var suites: [TestReport.Suite] = []
    var requestsIndex: Int?
    for (outcome, ended) in outcomes {
      let time = ended.timeIntervalSince(started)
      switch outcome.kind {
      case .request:
        let testCase = Self.testCase(outcome, classname: requestsSuite, name: outcome.name, redaction: redaction)
        if let index = requestsIndex {
          suites[index].cases.append(testCase)
          suites[index].time = max(suites[index].time, time)
        } else {
          requestsIndex = suites.count
          suites.append(TestReport.Suite(name: requestsSuite, timestamp: started, time: time, cases: [testCase]))
        }
      case .batch:
        var batch = TestReport.Suite(name: outcome.name, timestamp: started, time: time, cases: [])
        var chains: [TestReport.Suite] = []
        for member in outcome.members {
          if member.kind == .chain {
            // A chain in a batch is a suite of its own, after the batch's: its steps are cases.
            let name = "\(outcome.name) › \(member.name)"
            chains.append(chainSuite(member, name: name, time: nil, workspace: workspace, redaction: redaction))
          } else {
            batch.cases.append(Self.testCase(member, classname: outcome.name, name: member.name, redaction: redaction))
          }
        }
        suites.append(batch)
        suites += chains
      case .chain:
        suites.append(chainSuite(outcome, name: outcome.name, time: time, workspace: workspace, redaction: redaction))
      }
    }
    return TestReport(suites: suites)
  }

  /// A chain's steps as cases (`step 2: users/me`); the steps a stop left unsent are skipped.
  /// `time` nil: the steps' times added up (they run one after another).
  private func chainSuite(
    _ outcome: FlowOutcome, name: String, time: Double?, workspace: Workspace, redaction: Redaction
  ) -> TestReport.Suite {
    var cases = outcome.steps.map { step in
      Self.testCase(step, classname: name, name: "step \(step.step ?? 0): \(step.name)", redaction: redaction)
    }
    let lastRun = outcome.steps.last?.step ?? 0
    if outcome.state != .succeeded, let stopped = outcome.step, let chain = workspace.chain(named: outcome.name),
      lastRun < chain.steps.count
    {
      for index in (lastRun + 1)...chain.steps.count {
        cases.append(TestReport.Case(
          name: "step \(index): \(chain.steps[index - 1].request)", classname: name, time: 0,
          outcome: .skipped(message: "not run: the chain stopped at step \(stopped)")))
      }
    }
    return TestReport.Suite(
      name: name, timestamp: started, time: time ?? cases.reduce(0) { $0 + $1.time }, cases: cases)
  }

  /// A request's or a step's outcome: its exchange's result, with the step's own failure (a
  /// capture that found nothing) when the exchange itself succeeded.
  private static func testCase(
    _ outcome: FlowOutcome, classname: String, name: String, redaction: Redaction
  ) -> TestReport.Case {
    var result: RunResult
    if let exchange = outcome.exchange {
      result = RunResult(name: name, exchange: exchange)
    } else {
      result = RunResult(
        name: name, state: outcome.state, status: nil, bytes: 0, durationMs: 0, url: nil, error: nil, exchange: nil)
    }
    if outcome.state != .succeeded, outcome.exchange == nil || outcome.errorKind == "capture" {
      result.state = outcome.state
      result.error = RunError(kind: outcome.errorKind ?? "usage", message: redaction.apply(outcome.message ?? "failed"))
    }
    return testCase(result, classname: classname)
  }

  /// A result as a case: a check that did not hold is a failure, an exchange that could not be
  /// made an error, a cancelled one skipped.
  static func testCase(_ result: RunResult, classname: String) -> TestReport.Case {
    let outcome: TestReport.Outcome
    switch result.state {
    case .succeeded:
      outcome = .passed
    case .cancelled:
      outcome = .skipped(message: result.error.map { $0.kind == "cancelled" ? $0.message : "cancelled: \($0.message)" } ?? "cancelled")
    case .failed, .queued, .running:
      let kind = result.error?.kind ?? "failed"
      let message = result.error?.message ?? "failed"
      let details = Format.statusLine(result)
      switch kind {
      case ExchangeError.Kind.status.rawValue, ExchangeError.Kind.validation.rawValue, "capture":
        outcome = .failed(type: kind, message: message, details: details)
      default:
        outcome = .error(type: kind, message: message, details: details)
      }
    }
    return TestReport.Case(name: result.name, classname: classname, time: result.durationMs / 1000, outcome: outcome)
  }
}
