import CommandLineSupport
import Formats
import Workspace

/// What `reqbench run` was asked for.
struct RunOptions: Equatable {
  var workspace: String
  var targets: [String] = []
  var all = false
  var environment: String?
  var variables: [(String, String)] = []
  var json = false
  var concurrency: Int?
  var stateDirectory: String?
  /// Record finished exchanges in the workspace's history (`--no-history` turns it off).
  var history = true
  /// Start chains at this step (1-based): resume one that failed, with `--var` for what the
  /// earlier steps captured.
  var fromStep: Int?
  /// `--report FORMAT`: the run as test results on stdout, in place of the usual output.
  var report: TestReport.Format?
  /// `--junit FILE`: the run as JUnit XML in FILE, beside the usual output.
  var junit: String?
  /// Send and keep cookies in the environment's jar (`--no-cookies` turns it off).
  var cookies = true
  /// `--json` shows Cookie and Set-Cookie values (`--reveal-secrets`).
  var revealSecrets = false

  static func == (a: RunOptions, b: RunOptions) -> Bool {
    a.workspace == b.workspace && a.targets == b.targets && a.all == b.all
      && a.environment == b.environment && a.json == b.json && a.concurrency == b.concurrency
      && a.stateDirectory == b.stateDirectory && a.history == b.history && a.fromStep == b.fromStep
      && a.report == b.report && a.junit == b.junit
      && a.cookies == b.cookies && a.revealSecrets == b.revealSecrets
      && a.variables.map { "\($0.0)=\($0.1)" } == b.variables.map { "\($0.0)=\($0.1)" }
  }
}

extension RunCommand {
  /// The options of `run`, in both usage texts.
  static let runOptions = """
      --all        every request of the workspace, in file order
      --env NAME   select the environment NAME of the workspace
      --var K=V    set the variable K (wins over environments and "variables"); repeatable
      --json       one JSON object per event on stdout, then a summary line
      --concurrency N
                   at most N transfers at once, overall and per host
      --state-dir DIR
                   where history and the cache live; default .reqbench/NAME/ beside
                   the workspace file NAME.json
      --no-history don't record the exchanges in the workspace's history
      --no-cookies send no cookies from the environment's jar and keep none the responses set
      --reveal-secrets
                   --json shows Cookie and Set-Cookie values (masked otherwise)
      --from-step N
                   start chains at step N (resume one with what its earlier steps
                   captured in its last run; --var wins)
      --junit FILE write the run as JUnit XML to FILE too: a test case per exchange or
                   chain step, a suite per batch or chain, failures with the reason
      --report json|tap|junit
                   print the run as test results on stdout (in place of the bodies
                   and lines; the summary stays on stderr)
    """

  static let runUsage = """
    usage: reqbench run WORKSPACE TARGET... [--env NAME] [--var KEY=VALUE]... [--json]
                        [--concurrency N] [--state-dir DIR] [--no-history] [--no-cookies]
                        [--reveal-secrets] [--from-step N] [--junit FILE] [--report json|tap|junit]
           reqbench run WORKSPACE --all [options]

    Sends the named requests, batches and chains of WORKSPACE (a TARGET ending in / is a folder:
    every request in it) through the agent and reports them. One request: the body goes to
    stdout and a status line to stderr. Several: one line per exchange as it finishes.
    \(runOptions)

    Exit status: 0 all succeeded, 1 any failed or was cancelled, 2 usage or workspace error,
    130 interrupted.
    """

  static let command = Subcommand(
    name: "run", summary: "send requests, batches and chains and report them",
    synopsis: [
      "reqbench run WORKSPACE TARGET... [--env NAME] [--var KEY=VALUE]... [--json] [--concurrency N]",
      "             [--state-dir DIR] [--no-history] [--no-cookies] [--from-step N] [--junit FILE]",
      "             [--report json|tap|junit]",
      "reqbench run WORKSPACE --all [options]",
    ],
    description: """
      sends the named requests, batches and chains of WORKSPACE through the agent
      and reports them. One request: the body goes to stdout and a status line to
      stderr.
      Several: one line per exchange as it finishes.
      """,
    details: runOptions, usage: runUsage, arguments: [.workspace, .target], repeats: true,
    options: [
      .environment, .variable, .flag("--json"), .text("--concurrency"), .stateDirectory, .flag("--no-history"),
      .flag("--no-cookies"), .flag("--reveal-secrets"), .text("--from-step"), .file("--junit"),
      .choice("--report", TestReport.Format.allCases.map(\.rawValue)), .flag("--all"),
    ],
    watchesSignals: true,
    run: { arguments in
      do throws(UsageError) {
        return RunCommand(options: try RunOptions(arguments)).execute()
      } catch {
        return CLI.usageError(error.message)
      }
    })
}

extension RunOptions {
  init(_ arguments: ParsedArguments) throws(UsageError) {
    self.init(workspace: "")
    all = arguments.flag("--all")
    history = !arguments.flag("--no-history")
    cookies = !arguments.flag("--no-cookies")
    revealSecrets = arguments.flag("--reveal-secrets")
    json = arguments.flag("--json")
    junit = arguments.value("--junit")
    environment = arguments.value("--env")
    stateDirectory = arguments.value("--state-dir")
    if let text = arguments.value("--from-step") {
      guard let n = Int(text), n >= 1 else {
        throw UsageError(message: "--from-step needs a step number from 1, got \"\(text)\"")
      }
      fromStep = n
    }
    if let text = arguments.value("--report") {
      guard let format = TestReport.Format(rawValue: text) else {
        throw UsageError(message: "--report needs json, tap or junit, got \"\(text)\"")
      }
      report = format
    }
    for pair in arguments.values("--var") { variables.append(try OptionReader.variable(pair)) }
    if let text = arguments.value("--concurrency") {
      guard let n = Int(text), n >= 1, n <= 1000 else {
        throw UsageError(message: "--concurrency needs a number from 1 to 1000, got \"\(text)\"")
      }
      concurrency = n
    }
    guard let workspace = arguments.positional.first else {
      throw UsageError(message: "run needs a workspace file: reqbench run WORKSPACE TARGET...")
    }
    self.workspace = workspace
    targets = Array(arguments.positional.dropFirst())
    if targets.isEmpty && !all {
      throw UsageError(message: "run needs at least one target (a request name) or --all: reqbench run \(workspace) TARGET...")
    }
    if !targets.isEmpty && all {
      throw UsageError(message: "run takes either targets or --all, not both")
    }
    if json, let format = report {
      throw UsageError(message: "--json and --report \(format.rawValue) both write stdout; choose one (--junit FILE writes a file beside --json)")
    }
  }
}
