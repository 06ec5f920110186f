import Base
import DemoServer
import Formats
import Foundation
import History
import RequestEngine
import TerminalUI
import Workbench
import Workspace

/// Exit statuses, as the README lists them.
enum ExitStatus {
  static let success: Int32 = 0
  static let failure: Int32 = 1
  static let usage: Int32 = 2
  static let interrupted: Int32 = 130
}

enum CLI {
  static func run(_ args: [String]) -> Int32 {
    let invocation: Invocation
    do {
      invocation = try Arguments.parse(args)
    } catch {
      Signals.restoreDefaults()
      Terminal.error("reqbench: \(error.message)")
      return ExitStatus.usage
    }
    switch invocation {
    case .run, .demoServer, .tui: break  // they read the termination signals (`Signals`)
    default: Signals.restoreDefaults()
    }
    switch invocation {
    case .help:
      Output.standard.line(Arguments.usage)
      return ExitStatus.success
    case .usage(let text):
      Output.standard.line(text)
      return ExitStatus.success
    case .version:
      Output.standard.line("reqbench \(reqbenchVersion)")
      return ExitStatus.success
    case .run(let options):
      return RunCommand(options: options).execute()
    case .demoServer(let port):
      return runDemoServer(port: port)
    case .tui(let options):
      return runTUI(options)
    case .importRequests(let args):
      return ImportCommand.run(args)
    case .export(let args):
      return ExportCommand.run(args)
    case .history(let args):
      return HistoryCommand.run(args)
    case .secrets(let args):
      return SecretsCommand.run(args)
    case .screenshot(let args):
      return ScreenshotCommand.run(args)
    case .cache(let args):
      return CacheCommand.run(args)
    case .cookies(let args):
      return CookiesCommand.run(args)
    case .auth(let args):
      return AuthCommand.run(args)
    case .keys(let args):
      return KeysCommand.run(args)
    case .completions(let args):
      return CompletionsCommand.run(args)
    case .manPage(let args):
      return ManPage.run(args)
    case .benchmarkRender(let args):
      return BenchmarkCommand.run(args)
    case .benchmarkBody(let args):
      return BodyBenchmarkCommand.run(args)
    case .benchmarkHistory(let args):
      return HistoryBenchmarkCommand.run(args)
    }
  }

  /// `reqbench demo-server`: serves until SIGINT or SIGTERM.
  static func runDemoServer(port: Int) -> Int32 {
    let server: DemoServer
    do {
      server = try DemoServer(port: port)
    } catch {
      Terminal.error("reqbench: cannot start the demo server on port \(port): \(error); choose another with --port N (0 picks a free one)")
      return ExitStatus.failure
    }
    server.start()
    Output.standard.line("listening on \(server.baseURL)")
    Output.standard.flush()
    Signals.waitForTermination()
    server.stop()
    return ExitStatus.success
  }

  /// `reqbench [WORKSPACE]` / `reqbench --demo`: the TUI.
  static func runTUI(_ options: TUIOptions) -> Int32 {
    // From the start: a signal while the files are read ends the process at once; once the
    // terminal is the TUI's (below), it quits the TUI cleanly through its inbox.
    let interruption = Signals.Interruption()
    defer { interruption.cancel() }
    var server: DemoServer?
    var variables = options.variables
    let path: String
    if options.demo || options.workspace == nil {
      guard let demo = demoWorkspacePath() else {
        Terminal.error("reqbench: cannot find workspaces/demo.json; run reqbench from the repository folder or name a workspace")
        return ExitStatus.usage
      }
      path = options.workspace ?? demo
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
    guard let stateFolder = stateFolder(forWorkspace: url, override: options.stateDirectory) else {
      return ExitStatus.usage
    }
    // Not on stderr (it is the screen): `TUIRuntime` makes the interactive grants ask in a box.
    let tokens = oauth2Tokens(stateFolder: stateFolder, asking: .elsewhere)
    sources.oauth2 = tokens
    defer { tokens.flush() }
    let agent = makeAgent(for: workspace, stateFolder: stateFolder, concurrency: nil)
    var state = AppState(workspace: workspace, workspaceFile: path, sources: sources)
    if options.workspace == nil {
      // Found by looking (here, or beside the binary's package): say which file it is.
      state.message = StatusMessage(
        "opened \(url.standardizedFileURL.path)" + (server.map { " · demo server at \($0.baseURL)" } ?? ""))
    }
    if file.isNew { state.openedNewFile() }
    state.restorePendingDownloads(agent.configuration.downloads.pending())
    let history = HistoryStore(stateFolder: stateFolder, limits: workspace.history.limits)
    history.startMigration()
    let status = TUIRuntime(
      state: state, file: file, stateFolder: stateFolder, agent: agent, history: history, backend: backend, inbox: inbox,
      cookies: options.cookies
    ).run()
    return interruption.interrupted ? interruption.exitStatus : status
  }

  /// Loads a workspace file that must exist (the commands that read one: `run`, `export`,
  /// `history`, …), or prints why it cannot be (`FILE:LINE:COLUMN: …`) and returns nil.
  static func loadWorkspace(_ path: String) -> Workspace? {
    var file = WorkspaceFile(URL(fileURLWithPath: path))
    do {
      let workspace = try file.load()
      if file.isNew {
        Terminal.error(
          "reqbench: \(path): no such workspace; `reqbench \(path)` opens it as a new one, "
            + "`reqbench import curl|httpie|http|postman FILE --into \(path)` creates it with requests")
        return nil
      }
      return workspace
    } catch {
      Terminal.error(error.description)
      return nil
    }
  }

  /// The state folder of the workspace at `url` (`--state-dir` when given), or nil after saying
  /// why it cannot be used (`StateFolder.checked`: a symbolic link).
  static func stateFolder(forWorkspace url: URL, override: String?) -> URL? {
    do {
      return try StateFolder.checked(forWorkspace: url, override: override.map { URL(fileURLWithPath: $0) })
    } catch {
      Terminal.error("reqbench: \(error.message)")
      return nil
    }
  }

  /// The state folder's cache digest key; when it cannot be written (a read-only folder), a key
  /// of this process only (the cache's sensitive and namespaced entries then miss), said once.
  static func cacheDigestKey(in stateFolder: URL) -> [UInt8] {
    do {
      return try StateFolder.cacheDigestKey(in: stateFolder)
    } catch {
      Terminal.error("reqbench: warning: \(error.description); namespaced and sensitive cache entries will not be reused")
      var generator = SystemRandomNumberGenerator()
      return (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }
  }

  /// The agent of a command run on a workspace: its limits (or `--concurrency N` for both), the
  /// response cache in its state folder.
  static func makeAgent(for workspace: Workspace, stateFolder: URL, concurrency: Int?) -> Agent {
    var configuration = Agent.Configuration(
      maxConcurrent: workspace.agent.maxConcurrent, maxPerHost: workspace.agent.maxPerHost,
      cache: ResponseCache(folder: StateFolder.cache(in: stateFolder), digestKey: cacheDigestKey(in: stateFolder)),
      downloads: DownloadStore(directory: StateFolder.downloads(in: stateFolder).path))
    if let n = concurrency {
      configuration.maxConcurrent = n
      configuration.maxPerHost = n
    }
    configuration.resolve = workspace.resolve
    // Bodies spilled to files go beside the history (a nameless file there can become a history
    // body file by a link instead of a copy); the system's temporary folder when the state
    // folder could not be made.
    if FileManager.default.fileExists(atPath: stateFolder.path) { configuration.spillDirectory = stateFolder.path }
    // What killed processes left: swept at the start (once in ten minutes),
    // not after the fact.
    StaleTemporaries.sweepIfDue(
      workspaceFolder: workspace.folder, stateFolder: stateFolder, spillDirectory: configuration.spillDirectory)
    configuration.cache?.sweepIfDue()
    return Agent(configuration: configuration)
  }

  /// Who the interactive OAuth 2.0 grants (authorization code, device code) ask.
  enum OAuth2Asking {
    /// The user, on stderr: `auth`, and `run` and `flow` at a terminal (`hasTerminal`).
    case stderr
    /// Nobody: `run` and `flow` without a terminal (a script, CI, cron). Such a grant fails at
    /// once saying how to get the token first (`reqbench auth WORKSPACE REQUEST`, the TUI); a
    /// token already kept (or refreshed with its refresh token) is used as usual.
    case nobody(workspace: String)
    /// The TUI, which sets `interactive` itself (its box).
    case elsewhere
  }

  /// Whether a person is at a terminal to ask: stderr (where the prompt goes) is one, and so is
  /// stdin or stdout (`run … | jq` at a terminal still asks; a pipeline in CI does not).
  static var hasTerminal: Bool { Terminal.stderrIsTTY && (isatty(STDIN_FILENO) == 1 || Terminal.stdoutIsTTY) }

  /// The workspace's OAuth 2.0 tokens (`STATE/oauth2`); a file that cannot be written is a warning.
  /// Asking on `.stderr`, the interactive grants print the authorization URL (opened with
  /// `xdg-open` when there is a display) or the device code and its verification URL, then the
  /// command waits (bounded: 300 s for the redirect, the device code's own expiry) and the
  /// request goes on with the token. Asking `.nobody`, they fail at once.
  static func oauth2Tokens(stateFolder: URL, asking: OAuth2Asking) -> OAuth2Tokens {
    let tokens = OAuth2Tokens(stateFolder: stateFolder) { error in
      Terminal.error("reqbench: warning: OAuth 2.0 token not kept: \(error.description)")
    }
    switch asking {
    case .elsewhere: break
    case .nobody(let workspace):
      tokens.interactive = { client, _, done in done(.failure(nobodyToAsk(client, workspace: workspace))) }
    case .stderr:
      tokens.interactive = { client, send, done in
        switch client.grant {
        case .authorizationCode:
          OAuth2AuthorizationCode.run(
            client, open: { AuthCommand.openInBrowser($0, label: client.label) }, send: send, done: done)
        case .deviceCode:
          OAuth2DeviceCode.run(
            client,
            show: { code in
              Terminal.error(
                "reqbench: \(client.label): open \(code.verificationURI) and enter the code \(code.userCode)"
                  + (code.verificationURIComplete.map { " (or open \($0))" } ?? "") + "; waiting for the approval")
            }, send: send, done: done)
        case .clientCredentials, .password:
          // Not interactive: OAuth2Tokens fetches these itself.
          done(.failure(ExchangeError(kind: .authorization, message: "\(client.label): not an interactive grant")))
        }
      }
    }
    return tokens
  }

  /// `oauth2 › repos: the authorizationCode grant needs a person at a browser, and this run has
  /// no terminal to ask on; get the token once with `reqbench auth w.json repos` (or in the TUI,
  /// `reqbench w.json`): it is kept, and used and refreshed here from then on`.
  static func nobodyToAsk(_ client: OAuth2Client, workspace: String) -> ExchangeError {
    let prefix = "oauth2 › "
    let name = client.label.hasPrefix(prefix) ? String(client.label.dropFirst(prefix.count)) : client.label
    let person: String
    if case .deviceCode = client.grant { person = "a person at another device" } else { person = "a person at a browser" }
    return ExchangeError(
      kind: .authorization,
      message: "\(client.label): the \(client.grant.name) grant needs \(person), and this run has no terminal to ask on; "
        + "get the token once with `reqbench auth \(shellWord(workspace)) \(shellWord(name))` (or in the TUI, "
        + "`reqbench \(shellWord(workspace))`): it is kept, and used and refreshed here from then on")
  }

  /// `word` as one shell word: as it is when nothing in it is special to a shell, else quoted.
  static func shellWord(_ word: String) -> String {
    let plain = !word.isEmpty && word.unicodeScalars.allSatisfy {
      ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "/._-+:@%=,".unicodeScalars.contains($0)
    }
    return plain ? word : CurlExporter.quote(word)
  }

  /// The workspace's cookie jars for a command that sends requests; a jar that cannot be read
  /// or written is said once, on stderr, and the command goes on with it in memory.
  static func cookieJars(stateFolder: URL) -> CookieJars {
    CookieJars(stateFolder: stateFolder) { error in
      Terminal.error("reqbench: warning: cookies not kept: \(error.description)")
    }
  }

  /// `workspaces/demo.json` in the current folder or beside the binary's package.
  static func demoWorkspacePath() -> String? {
    var candidates = ["workspaces/demo.json"]
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    for _ in 0..<4 {
      candidates.append(dir.appendingPathComponent("workspaces/demo.json").path)
      dir = dir.deletingLastPathComponent()
    }
    return candidates.first { FileManager.default.fileExists(atPath: $0) }
  }
}

/// stderr: messages (escaped by `ControlEscaping`: a request name, a URL or a server's words in
/// them can never drive the terminal), the live progress line, prompts; and TTY detection.
enum Terminal {
  /// A message of one or more lines; every control character but the newline escaped.
  static func error(_ text: String) {
    Output.writeAll(STDERR_FILENO, Array((ControlEscaping.visibleLines(text) + "\n").utf8))
  }

  /// The live progress line, drawn over the previous one (`\r`, erase to the end of the line);
  /// its text escaped whole.
  static func progress(_ line: String) {
    Output.writeAll(STDERR_FILENO, Array(("\r\u{1b}[K" + ControlEscaping.visible(line)).utf8))
  }

  /// Erases the progress line.
  static func clearProgress() {
    Output.writeAll(STDERR_FILENO, Array("\r\u{1b}[K".utf8))
  }

  /// A prompt (no newline), escaped.
  static func prompt(_ text: String) {
    Output.writeAll(STDERR_FILENO, Array(ControlEscaping.visibleLines(text).utf8))
  }

  static var stdoutIsTTY: Bool { isatty(STDOUT_FILENO) == 1 }
  static var stderrIsTTY: Bool { isatty(STDERR_FILENO) == 1 }
}

extension String {
  func leftPad(_ width: Int, _ pad: Character = "0") -> String {
    count >= width ? self : String(repeating: pad, count: width - count) + self
  }
}
