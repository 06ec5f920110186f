import CommandLineSupport
import DemoServer
import Foundation
import History
import RequestEngine
import Sessions
import TerminalUI
import Workbench
import Workspace

/// What `reqbench [WORKSPACE]` and `reqbench --demo` were asked for.
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

  static let options: [Option] = [.environment, .variable, .stateDirectory, .flag("--no-cookies"), .flag("--demo")]

  /// Its lines in the "Usage:" block of `reqbench --help`.
  static let synopsis = [
    "reqbench [WORKSPACE] [--env NAME] [--var KEY=VALUE]... [--state-dir DIR] [--no-cookies]",
    "reqbench --demo",
  ]
  static let description = "opens the TUI on WORKSPACE (default workspaces/demo.json); ? shows its keys"
  static let demoDescription = "starts the demo server on a free port and opens the demo workspace against it"

  static func parse(_ args: [String]) throws(UsageError) -> TUIOptions {
    let arguments = try OptionReader.read(args, options: options, command: nil)
    var parsed = TUIOptions()
    parsed.demo = arguments.flag("--demo")
    parsed.environment = arguments.value("--env")
    parsed.stateDirectory = arguments.value("--state-dir")
    parsed.cookies = !arguments.flag("--no-cookies")
    for pair in arguments.values("--var") { parsed.variables.append(try OptionReader.variable(pair)) }
    if arguments.positional.count > 1 {
      throw UsageError(
        message: "the TUI opens one workspace; got \"\(arguments.positional[0])\" and \"\(arguments.positional[1])\"")
    }
    parsed.workspace = arguments.positional.first
    if parsed.demo, let workspace = parsed.workspace {
      throw UsageError(message: "--demo opens the demo workspace; leave out \"\(workspace)\"")
    }
    return parsed
  }
}

/// The TUI's set-up: the workspace, its secrets and state folder, the demo server, the agent,
/// the history, the terminal (`CursesBackend`); then `TUIRuntime` runs it.
enum TUILaunch {
  /// `reqbench [WORKSPACE]` / `reqbench --demo`: the TUI.
  static func run(_ options: TUIOptions) -> Int32 {
    // From the start: a signal while the files are read ends the process at once; once the
    // terminal is the TUI's (below), it quits the TUI cleanly through its inbox.
    let interruption = Signals.Interruption()
    defer { interruption.cancel() }
    var server: DemoServer?
    var variables = options.variables
    let path: String
    // The built-in demo, written out when no `workspaces/demo.json` is found.
    var builtIn: BuiltInDemo.Installed?
    defer {
      if let builtIn, builtIn.temporary {
        try? FileManager.default.removeItem(at: builtIn.workspace.deletingLastPathComponent())
      }
    }
    if options.demo || options.workspace == nil {
      if let demo = CommandWorkspace.demoPath() {
        path = options.workspace ?? demo
      } else {
        do {
          let installed = try BuiltInDemo.install(environment: ProcessInfo.processInfo.environment)
          builtIn = installed
          path = installed.workspace.path
        } catch {
          Terminal.error("reqbench: cannot write the demo workspace: \(error.description)")
          return ExitStatus.failure
        }
      }
    } else {
      path = options.workspace ?? ""
    }
    if options.demo {
      do {
        let started = try DemoServer(port: 0)
        started.start()
        server = started
        variables.append(("host", started.baseURL))
      } catch {
        Terminal.error("reqbench: cannot start the demo server: \(error)")
        return ExitStatus.failure
      }
    }
    defer { server?.stop() }
    let url = URL(fileURLWithPath: path)
    let workspace: Workspace
    let secrets: SecretsFile
    // A missing file opens as a new, empty workspace; the first save creates it.
    var file = WorkspaceFile(url)
    do {
      workspace = try file.load()
      secrets = try SecretsFile.load(forWorkspace: url)
    } catch {
      Terminal.error(error.description)
      return ExitStatus.usage
    }
    // Before the terminal changes: from here a signal restores it (the runtime's loop quits).
    let inbox = MessageInbox()
    interruption.handle { inbox.terminate() }
    guard let backend = CursesBackend() else {
      Terminal.error("reqbench: the TUI needs a terminal; use `reqbench run \(path) TARGET` for scripts")
      return ExitStatus.usage
    }
    var processEnvironment = ProcessInfo.processInfo.environment
    if options.demo {
      // The demo server's OAuth 2.0 client, for the demo's oauth2-report (`{{secret.demo-client}}`),
      // unless the user set one.
      processEnvironment["REQBENCH_SECRET_DEMO_CLIENT"] = processEnvironment["REQBENCH_SECRET_DEMO_CLIENT"] ?? DemoOAuth.clientSecret
    }
    var sources = VariableSources(
      overrides: Dictionary(variables, uniquingKeysWith: { _, last in last }),
      environment: options.environment, processEnvironment: processEnvironment, secrets: secrets)
    guard let stateFolder = CLI.stateFolder(forWorkspace: url, override: options.stateDirectory) else {
      return ExitStatus.usage
    }
    // Not on stderr (it is the screen): `TUIRuntime` makes the interactive grants ask in a box.
    let tokens = CLI.oauth2Tokens(stateFolder: stateFolder, asking: .elsewhere)
    sources.oauth2 = tokens
    defer { tokens.flush() }
    let agent = CLI.makeAgent(for: workspace, stateFolder: stateFolder, concurrency: nil)
    var state = AppState(workspace: workspace, workspaceFile: path, sources: sources)
    if options.workspace == nil {
      // Found by looking (here, or beside the binary's package) or built in: say which file it is.
      let opened: String
      switch builtIn {
      case .some(let demo) where demo.temporary:
        opened = "opened the built-in demo in \(url.path) (removed when reqbench quits)"
      case .some(let demo) where demo.written: opened = "wrote the built-in demo to \(url.path)"
      case .some: opened = "opened the built-in demo in \(url.path)"
      case nil: opened = "opened \(url.standardizedFileURL.path)"
      }
      state.message = StatusMessage(opened + (server.map { " · demo server at \($0.baseURL)" } ?? ""))
    }
    if file.isNew { state.openedNewFile() }
    state.restorePendingDownloads(agent.configuration.downloads.pending())
    let history = HistoryStore(stateFolder: stateFolder, limits: workspace.history.limits)
    history.startMigration()
    let status = TUIRuntime(
      state: state, file: file, stateFolder: stateFolder, agent: agent, history: history, backend: backend, inbox: inbox,
      tokens: tokens, cookies: options.cookies
    ).run()
    return interruption.interrupted ? interruption.exitStatus : status
  }
}
