import CommandLineSupport
import Formats
import Foundation
import RequestEngine
import Sessions
import Workspace

/// What the commands that work on a workspace share (besides `CommandWorkspace.load`): its
/// secrets, the environment chosen, its state folder, the agent, the OAuth 2.0 tokens and the
/// cookie jars.
extension CLI {
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


  /// The secrets file beside the workspace at `url`, or nil after saying why it cannot be read
  /// (the caller's usage error).
  static func loadSecrets(forWorkspace url: URL) -> SecretsFile? {
    do {
      return try SecretsFile.load(forWorkspace: url)
    } catch {
      Terminal.error(error.description)
      return nil
    }
  }

  /// Whether `name` (nil: none chosen) is one of the workspace's environments; when it is not,
  /// says so, with the names there are.
  static func knowsEnvironment(_ name: String?, in workspace: Workspace, file: String) -> Bool {
    guard let name, !workspace.environments.contains(where: { $0.name == name }) else { return true }
    Terminal.error(
      "reqbench: \(file): unknown environment \(JSONSerializer.quote(name)); "
        + (workspace.environments.isEmpty
          ? "this workspace has no \"environments\""
          : "use one of \(workspace.environments.map(\.name).joined(separator: ", "))"))
    return false
  }

  /// The OAuth 2.0 tokens of `run` (and its batches and chains): asked on stderr at a terminal,
  /// of nobody otherwise.
  static func runTokens(stateFolder: URL, workspace: String) -> OAuth2Tokens {
    oauth2Tokens(stateFolder: stateFolder, asking: hasTerminal ? .stderr : .nobody(workspace: workspace))
  }
}
