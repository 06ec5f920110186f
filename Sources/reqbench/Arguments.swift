import Formats
import Workspace

/// What the user asked for, parsed from the command line without touching the system.
enum Invocation: Equatable {
  case run(RunOptions)
  case demoServer(port: Int)
  /// The TUI on a workspace (`--demo`: with the embedded demo server).
  case tui(TUIOptions)
  case help
  /// A command's `--help`: its usage text.
  case usage(String)
  case version
  /// `import`, `export`, `history`, `secrets`: each parses its own arguments.
  case importRequests([String])
  case export([String])
  case history([String])
  case secrets([String])
  case screenshot([String])
  case benchmarkRender([String])
  case benchmarkBody([String])
  case benchmarkHistory([String])
  case cache([String])
  case cookies([String])
  case auth([String])
  case keys([String])
  case completions([String])
  case manPage([String])
}

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

struct TUIOptions: Equatable {
  var workspace: String?
  var demo = false
  var environment: String?
  var variables: [(String, String)] = []
  var stateDirectory: String?
  /// Sends use the environment's cookie jar (`--no-cookies`: none, and nothing kept).
  var cookies = true

  static func == (a: TUIOptions, b: TUIOptions) -> Bool {
    a.workspace == b.workspace && a.demo == b.demo && a.environment == b.environment
      && a.stateDirectory == b.stateDirectory && a.cookies == b.cookies
      && a.variables.map { "\($0.0)=\($0.1)" } == b.variables.map { "\($0.0)=\($0.1)" }
  }
}

/// A command line that cannot be understood: what is wrong and what to type instead.
struct UsageError: Error, Equatable, CustomStringConvertible {
  var message: String
  var description: String { message }
}

enum Arguments {
  static let usage = """
    reqbench: a terminal request workbench

    Usage:
      reqbench [WORKSPACE] [--env NAME] [--var KEY=VALUE]... [--state-dir DIR] [--no-cookies]
      reqbench --demo
      reqbench run WORKSPACE TARGET... [--env NAME] [--var KEY=VALUE]... [--json] [--concurrency N]
                   [--state-dir DIR] [--no-history] [--no-cookies] [--from-step N] [--junit FILE]
                   [--report json|tap|junit]
      reqbench run WORKSPACE --all [options]
      reqbench history WORKSPACE [TARGET] [--search TEXT [--body]] [--status S] [--since T]
                   [--failed] [--limit N] [--json | --har] [--state-dir DIR]
      reqbench secrets set|ls|rm WORKSPACE [NAME]
      reqbench cache ls|clear WORKSPACE [TARGET] [--namespace VALUE] [--state-dir DIR]
      reqbench cookies ls|clear|rm|import|export WORKSPACE [--env NAME] [--state-dir DIR]
      reqbench import curl|httpie|http|postman|har|openapi FILE|- --into WORKSPACE [--name NAME] [--filter TEXT]
      reqbench export curl|httpie|http|har WORKSPACE TARGET... [--env NAME] [--var K=V]... [--reveal-secrets]
      reqbench demo-server [--port N]
      reqbench screenshot SCENARIO|all [--out PATH.svg | --dir DIR] [--size WxH] [--workspace FILE]
      reqbench keys [--markdown]
      reqbench completions bash|zsh|fish
      reqbench man
      reqbench --help | --version

    reqbench       opens the TUI on WORKSPACE (default workspaces/demo.json); ? shows its keys

    run            sends the named requests, batches and chains of WORKSPACE through the agent
                   and reports them. One request: the body goes to stdout and a status line to
                   stderr.
                   Several: one line per exchange as it finishes.
    \(runOptions)
    history        lists, searches and filters the recorded exchanges, newest first, or
               exports them as HAR (reqbench history --help)
    secrets        the secrets file beside the workspace ({{secret.NAME}}); values from stdin
    cache          lists or clears the workspace's response cache
    cookies        lists, clears, removes, imports or exports the cookie jar of an environment
    import         adds requests from curl or HTTPie commands, .http, Postman, Bruno, Insomnia,
                   HAR or OpenAPI files
    export         prints requests as curl commands, .http text or a HAR file
    screenshot     renders scripted TUI scenarios to SVG and text (the README's pictures)
    keys           lists the TUI's keys (--markdown: as the README's tables)
    completions    prints the shell's completion script (commands, options, and the requests
                   and environments of the workspace on the line)
    man            prints the manual page made from these usage texts (reqbench.1)
    demo-server    runs the embedded demo server on 127.0.0.1 (default port 8080; 0 picks a free one)
    --demo         starts the demo server on a free port and opens the demo workspace against it

    Exit status: 0 all succeeded, 1 any failed or was cancelled, 2 usage or workspace error,
    130 interrupted.
    """

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

  static let demoServerUsage = """
    usage: reqbench demo-server [--port N]
      runs the embedded demo server on 127.0.0.1 (default port 8080; 0 picks a free one) until Ctrl-C;
      workspaces/demo.json targets it (reqbench --demo starts one and opens the TUI on it)
    """

  static func parse(_ args: [String]) throws(UsageError) -> Invocation {
    guard let first = args.first else { return .tui(TUIOptions()) }
    switch first {
    case "-h", "--help", "help": return .help
    case "--version", "-V": return .version
    case "run":
      let rest = Array(args.dropFirst())
      // `--help` anywhere before a `--`: the usage of run.
      if rest.prefix(while: { $0 != "--" }).contains(where: { $0 == "--help" || $0 == "-h" }) {
        return .usage(Arguments.runUsage)
      }
      return .run(try parseRun(rest))
    case "demo-server": return try parseDemoServer(Array(args.dropFirst()))
    case "import": return .importRequests(Array(args.dropFirst()))
    case "export": return .export(Array(args.dropFirst()))
    case "history": return .history(Array(args.dropFirst()))
    case "secrets": return .secrets(Array(args.dropFirst()))
    case "screenshot": return .screenshot(Array(args.dropFirst()))
    case "cache": return .cache(Array(args.dropFirst()))
    case "cookies": return .cookies(Array(args.dropFirst()))
    case "auth": return .auth(Array(args.dropFirst()))
    case "keys": return .keys(Array(args.dropFirst()))
    case "completions": return .completions(Array(args.dropFirst()))
    case "man": return .manPage(Array(args.dropFirst()))
    case "benchmark-render": return .benchmarkRender(Array(args.dropFirst()))
    case "benchmark-body": return .benchmarkBody(Array(args.dropFirst()))
    case "benchmark-history": return .benchmarkHistory(Array(args.dropFirst()))
    default:
      if first.hasPrefix("-") || first.hasSuffix(".json") { return .tui(try parseTUI(args)) }
      throw UsageError(message: "unknown command \"\(first)\"; try `reqbench WORKSPACE.json`, `reqbench run WORKSPACE TARGET` or `reqbench --help`")
    }
  }

  private static func parseTUI(_ args: [String]) throws(UsageError) -> TUIOptions {
    var options = TUIOptions()
    var rest = args[...]
    while let arg = rest.popFirst() {
      let (name, inline) = split(arg)
      switch name {
      case "--demo": options.demo = true
      case "--env": options.environment = try value(for: name, inline: inline, rest: &rest)
      case "--state-dir": options.stateDirectory = try value(for: name, inline: inline, rest: &rest)
      case "--no-cookies": options.cookies = false
      case "--var":
        options.variables.append(try variable(try value(for: name, inline: inline, rest: &rest)))
      default:
        if arg.hasPrefix("-") { throw UsageError(message: "unknown option \"\(arg)\"; see `reqbench --help`") }
        guard options.workspace == nil else {
          throw UsageError(message: "the TUI opens one workspace; got \"\(options.workspace ?? "")\" and \"\(arg)\"")
        }
        options.workspace = arg
      }
    }
    if options.demo, options.workspace != nil {
      throw UsageError(message: "--demo opens the demo workspace; leave out \"\(options.workspace ?? "")\"")
    }
    return options
  }

  private static func parseDemoServer(_ args: [String]) throws(UsageError) -> Invocation {
    var port = 8080
    var rest = args[...]
    while let arg = rest.popFirst() {
      let (name, inline) = split(arg)
      switch name {
      case "--port":
        let value = try value(for: name, inline: inline, rest: &rest)
        guard let p = Int(value), (0...65535).contains(p) else {
          throw UsageError(message: "--port needs a number from 0 to 65535, got \"\(value)\"")
        }
        port = p
      case "-h", "--help":
        return .usage(demoServerUsage)
      default:
        throw UsageError(message: "demo-server: unknown option \"\(arg)\"; it takes only --port N")
      }
    }
    return .demoServer(port: port)
  }

  private static func parseRun(_ args: [String]) throws(UsageError) -> RunOptions {
    var options = RunOptions(workspace: "")
    var positional: [String] = []
    var rest = args[...]
    var onlyPositional = false
    while let arg = rest.popFirst() {
      if onlyPositional || !arg.hasPrefix("-") || arg == "-" {
        positional.append(arg)
        continue
      }
      let (name, inline) = split(arg)
      switch name {
      case "--": onlyPositional = true
      case "--all": options.all = true
      case "--no-history": options.history = false
      case "--no-cookies": options.cookies = false
      case "--reveal-secrets": options.revealSecrets = true
      case "--from-step":
        let text = try value(for: name, inline: inline, rest: &rest)
        guard let n = Int(text), n >= 1 else {
          throw UsageError(message: "--from-step needs a step number from 1, got \"\(text)\"")
        }
        options.fromStep = n
      case "--json": options.json = true
      case "--junit": options.junit = try value(for: name, inline: inline, rest: &rest)
      case "--report":
        let text = try value(for: name, inline: inline, rest: &rest)
        guard let format = TestReport.Format(rawValue: text) else {
          throw UsageError(message: "--report needs json, tap or junit, got \"\(text)\"")
        }
        options.report = format
      case "--env": options.environment = try value(for: name, inline: inline, rest: &rest)
      case "--state-dir": options.stateDirectory = try value(for: name, inline: inline, rest: &rest)
      case "--var":
        options.variables.append(try variable(try value(for: name, inline: inline, rest: &rest)))
      case "--concurrency":
        let text = try value(for: name, inline: inline, rest: &rest)
        guard let n = Int(text), n >= 1, n <= 1000 else {
          throw UsageError(message: "--concurrency needs a number from 1 to 1000, got \"\(text)\"")
        }
        options.concurrency = n
      default:
        throw UsageError(message: "run: unknown option \"\(arg)\"; see `reqbench --help`")
      }
    }
    guard let workspace = positional.first else {
      throw UsageError(message: "run needs a workspace file: reqbench run WORKSPACE TARGET...")
    }
    options.workspace = workspace
    options.targets = Array(positional.dropFirst())
    if options.targets.isEmpty && !options.all {
      throw UsageError(message: "run needs at least one target (a request name) or --all: reqbench run \(workspace) TARGET...")
    }
    if !options.targets.isEmpty && options.all {
      throw UsageError(message: "run takes either targets or --all, not both")
    }
    if options.json, let format = options.report {
      throw UsageError(message: "--json and --report \(format.rawValue) both write stdout; choose one (--junit FILE writes a file beside --json)")
    }
    return options
  }

  private static func split(_ arg: String) -> (String, String?) {
    guard arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") else { return (arg, nil) }
    return (String(arg[..<eq]), String(arg[arg.index(after: eq)...]))
  }

  private static func value(for name: String, inline: String?, rest: inout ArraySlice<String>)
    throws(UsageError) -> String
  {
    if let inline { return inline }
    guard let next = rest.popFirst() else { throw UsageError(message: "\(name) needs a value") }
    return next
  }
}

/// The arguments of a subcommand: options (`--name value`, `--name=value`, flags) anywhere, the
/// rest positional; `--` ends the options.
struct ArgumentReader {
  private var rest: ArraySlice<String>
  private var inline: String?
  private(set) var positional: [String] = []

  init(_ args: [String]) { rest = args[...] }

  /// The next option's name, collecting positional arguments on the way; nil at the end.
  mutating func nextOption() throws(UsageError) -> String? {
    if let inline {
      throw UsageError(message: "an option takes no value here, found \"=\(inline)\"")
    }
    while let arg = rest.popFirst() {
      if arg == "--" {
        positional += rest
        rest = []
        return nil
      }
      guard arg.hasPrefix("-"), arg != "-" else {
        positional.append(arg)
        continue
      }
      if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
        inline = String(arg[arg.index(after: eq)...])
        return String(arg[..<eq])
      }
      return arg
    }
    return nil
  }

  /// The value of the option just read.
  mutating func value(for option: String) throws(UsageError) -> String {
    if let value = inline {
      inline = nil
      return value
    }
    guard let value = rest.popFirst() else { throw UsageError(message: "\(option) needs a value") }
    return value
  }
}

extension Arguments {
  /// `KEY=VALUE` of `--var`.
  static func variable(_ pair: String) throws(UsageError) -> (String, String) {
    guard let eq = pair.firstIndex(of: "="), eq != pair.startIndex else {
      throw UsageError(message: "--var needs KEY=VALUE, got \"\(pair)\"")
    }
    return (String(pair[..<eq]), String(pair[pair.index(after: eq)...]))
  }
}
