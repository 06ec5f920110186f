import CommandLineSupport
import Foundation
import RequestEngine
import Sessions
import Workspace

/// `reqbench auth WORKSPACE REQUEST`: gets (or refreshes) the OAuth 2.0 token of a request's
/// `auth.oauth2` block, through an agent as `run` would, and says when it expires; `--clear`
/// forgets the workspace's tokens (`OAuth2Tokens`). The token itself is never printed.
enum AuthCommand {
  static let usage = """
    usage: reqbench auth WORKSPACE REQUEST [--env NAME] [--var NAME=VALUE]... [--new] [--state-dir DIR]
           reqbench auth WORKSPACE --clear [--state-dir DIR]

      REQUEST  a request with "auth": {"oauth2": …}: its token is fetched (or refreshed when it
               expired), cached in the state folder, and its expiry printed; never its value
      --new    fetch a new token even when the cached one is still good
      --clear  forget every OAuth 2.0 token of the workspace (every environment)
    """

  static let command = Subcommand(
    name: "auth", summary: "get or refresh a request's OAuth 2.0 token, or forget the tokens",
    synopsis: [
      "reqbench auth WORKSPACE REQUEST [--env NAME] [--var NAME=VALUE]... [--new] [--state-dir DIR]",
      "reqbench auth WORKSPACE --clear [--state-dir DIR]",
    ],
    description: "gets or refreshes a request's OAuth 2.0 token, or forgets the tokens", usage: usage,
    arguments: [.workspace, .target],
    options: [.environment, .variable, .flag("--new"), .stateDirectory, .flag("--clear")], run: run)

  static func run(_ arguments: ParsedArguments) -> Int32 {
    let stateDirectory = arguments.value("--state-dir")
    let environment = arguments.value("--env")
    var variables: [String: String] = [:]
    for pair in arguments.values("--var") {
      guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
        return CLI.usageError("auth: --var takes NAME=VALUE, not \(JSONSerializer.quote(pair))")
      }
      variables[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
    }
    let clear = arguments.flag("--clear")
    let forceNew = arguments.flag("--new")
    let positional = arguments.positional
    guard positional.count == (clear ? 1 : 2) else {
      Terminal.error("reqbench: \(usage)")
      return ExitStatus.usage
    }
    let path = positional[0]
    let workspaceURL = URL(fileURLWithPath: path)
    guard let workspace = CommandWorkspace.load(path),
      let stateFolder = CLI.stateFolder(forWorkspace: workspaceURL, override: stateDirectory)
    else { return ExitStatus.usage }
    let tokens = CLI.oauth2Tokens(stateFolder: stateFolder, asking: .stderr)
    if clear {
      do {
        let removed = try tokens.clear()
        Output.standard.line(removed == 1 ? "forgot 1 token" : "forgot \(removed) tokens")
        Output.standard.flush()
        return ExitStatus.success
      } catch {
        Terminal.error("reqbench: \(error.description)")
        return ExitStatus.failure
      }
    }
    let name = positional[1]
    guard let template = workspace.request(named: name) else {
      Terminal.error(unknownTargetMessage(name, names: workspace.requests.map(\.name), file: path))
      return ExitStatus.usage
    }
    guard case .oauth2? = template.auth else {
      Terminal.error("reqbench: \(name) has no \"auth\": {\"oauth2\": …} in \(path); nothing to fetch")
      return ExitStatus.usage
    }
    guard let secrets = CLI.loadSecrets(forWorkspace: workspaceURL) else { return ExitStatus.usage }
    var sources = VariableSources(overrides: variables, environment: environment, secrets: secrets)
    sources.oauth2 = tokens
    let request: Request
    do {
      request = try workspace.prepare(template, sources: sources)
    } catch {
      Terminal.error(error.locatedMessage)
      return ExitStatus.usage
    }
    guard let client = request.oauth2Client else {
      Terminal.error("reqbench: \(name): its token is not reqbench's to get (an Authorization header of its own wins)")
      return ExitStatus.usage
    }
    let agent = CLI.makeAgent(for: workspace, stateFolder: stateFolder, concurrency: nil)
    defer { agent.shutdown() }
    let outcome = LockedResult()
    tokens.token(for: client, forceNew: forceNew, send: { request, completion in agent.send(request, completion: completion) }) {
      outcome.put($0)
    }
    let result = outcome.wait()
    tokens.flush()
    switch result {
    case .success(let token):
      Output.standard.line("\(client.label): " + describe(token, now: Date()))
      Output.standard.flush()
      return ExitStatus.success
    case .failure(let error):
      Terminal.error("reqbench: \(error.message)")
      return ExitStatus.failure
    }
  }

  /// The authorization URL, always printed (stderr), and opened with `xdg-open` when there is a
  /// display to open it on (`Browser.open`).
  static func openInBrowser(_ url: String, label: String) {
    Terminal.error("reqbench: \(label): open this URL to authorize (waiting for the redirect):\n  \(url)")
    if case .failed(let reason) = Browser.open(url) { Terminal.error("reqbench: \(label): xdg-open failed: \(reason)") }
  }

  /// `token ready, expires in 59 min (2026-12-02 00:14:05 UTC); refresh token kept; scope read`.
  static func describe(_ token: OAuth2Token, now: Date) -> String {
    var text = "token ready"
    if let expires = token.expiresAt {
      let seconds = max(0, Int(expires.timeIntervalSince(now).rounded()))
      let formatter = DateFormatter()
      formatter.locale = Locale(identifier: "en_US_POSIX")
      formatter.timeZone = TimeZone(identifier: "UTC")
      formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
      let span = seconds >= 120 ? "\(seconds / 60) min" : "\(seconds) s"
      text += ", expires in \(span) (\(formatter.string(from: expires)))"
    } else {
      text += ", the server gave no expiry"
    }
    if token.refreshToken != nil { text += "; refresh token kept" }
    if let scope = token.scope, !scope.isEmpty { text += "; scope \(scope)" }
    return text
  }
}

/// One result handed from the engine thread to the waiting main thread.
private final class LockedResult: @unchecked Sendable {
  private let condition = NSCondition()
  private var value: Result<OAuth2Token, ExchangeError>?

  func put(_ result: Result<OAuth2Token, ExchangeError>) {
    condition.withLock {
      value = result
      condition.signal()
    }
  }

  func wait() -> Result<OAuth2Token, ExchangeError> {
    condition.withLock {
      while value == nil { condition.wait() }
      return value ?? .failure(ExchangeError(kind: .authorization, message: "no answer"))
    }
  }
}
