import DemoServer
import Foundation
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
      Terminal.error("reqbench: \(error.message)")
      return ExitStatus.usage
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
    guard let backend = CursesBackend() else {
      Terminal.error("reqbench: the TUI needs a terminal; use `reqbench run \(path) TARGET` for scripts")
      return ExitStatus.usage
    }
    let sources = VariableSources(
      overrides: Dictionary(variables, uniquingKeysWith: { _, last in last }),
      environment: options.environment, secrets: secrets)
    guard let stateFolder = stateFolder(forWorkspace: url, override: options.stateDirectory) else {
      return ExitStatus.usage
    }
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
    return TUIRuntime(
      state: state, file: file, stateFolder: stateFolder, agent: agent, history: history, backend: backend
    ).run()
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
            + "`reqbench import curl|http|postman FILE --into \(path)` creates it with requests")
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
    // What killed processes left (issue 18, item 12): swept at the start, not after the fact.
    StaleTemporaries.sweep(
      workspaceFolder: workspace.folder, stateFolder: stateFolder, spillDirectory: configuration.spillDirectory)
    configuration.cache?.sweepIfDue()
    return Agent(configuration: configuration)
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

/// Signal handling for the headless commands.
enum Signals {
  /// Blocks until SIGINT or SIGTERM.
  static func waitForTermination() {
    let semaphore = DispatchSemaphore(value: 0)
    let sources = [SIGINT, SIGTERM].map { sig -> DispatchSourceSignal in
      signal(sig, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
      source.setEventHandler { semaphore.signal() }
      source.resume()
      return source
    }
    semaphore.wait()
    sources.forEach { $0.cancel() }
  }

  /// Calls `handler` (on a background queue) on SIGINT, SIGTERM and SIGHUP alike: in-flight
  /// exchanges are cancelled cleanly (a download keeps its partial data, history is written)
  /// whichever of them ends the command. Keep the returned watch alive; its `exitStatus` is
  /// 128 + the signal received (130, 143, 129).
  static func onInterrupt(_ handler: @escaping @Sendable () -> Void) -> Interruption {
    Interruption(handler)
  }

  final class Interruption: @unchecked Sendable {  // its sources are only read
    private let sources: [DispatchSourceSignal]
    private let received = Locked<Int32>(SIGINT)

    fileprivate init(_ handler: @escaping @Sendable () -> Void) {
      let received = self.received
      sources = [SIGINT, SIGTERM, SIGHUP].map { sig in
        signal(sig, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
        source.setEventHandler {
          received.set(sig)
          handler()
        }
        source.resume()
        return source
      }
    }

    /// 128 + the signal that interrupted the command (130 for Ctrl-C).
    var exitStatus: Int32 { 128 + received.get() }

    func cancel() { sources.forEach { $0.cancel() } }
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
