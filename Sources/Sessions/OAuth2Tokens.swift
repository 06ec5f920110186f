import Foundation
import RequestEngine
import Workspace

/// The OAuth 2.0 tokens of one workspace's process: one per `OAuth2Client.cacheKey` (the
/// environment and the block), kept in `STATE/oauth2/KEY.json` (mode 0600 in a folder of mode
/// 0700, written atomically, never read or written through a link: `StateFiles`) so the next
/// process reuses them until they expire.
///
/// `prepare` gives a request with `"auth": {"oauth2": …}` an `Authorizer` from here
/// (`VariableSources.oauth2`). When the engine is about to send it, the authorizer answers with
/// the cached token when it is still good; else it refreshes it (RFC 6749 §6) when there is a
/// refresh token, else fetches a new one with the grant, the token request sent through the
/// same agent as an exchange of its own (`oauth2 › NAME` in the queue and in `--json`). A refresh
/// that fails falls back to a new fetch. Every request that asks while a fetch is under way
/// waits for that fetch. A 401 to a request makes the engine ask once more with the token it
/// sent: unless another request renewed it meanwhile, it is refreshed (or fetched) again.
///
/// ```swift
/// let tokens = OAuth2Tokens(stateFolder: state)
/// var sources = VariableSources(environment: "dev")
/// sources.oauth2 = tokens
/// agent.send(try workspace.prepare(template, sources: sources))  // waits for the token, then goes
/// tokens.flush()  // before the process ends: the token files are written
/// ```
public final class OAuth2Tokens: TokenSource, @unchecked Sendable {
  /// Nil keeps tokens in memory only (tests, `--state-dir` refused).
  public let stateFolder: URL?
  private let lock = NSLock()
  private var tokens: [String: OAuth2Token] = [:]
  /// The keys whose file was read (a missing or damaged file counts: it is not read twice).
  private var loaded: Set<String> = []
  private var waiting: [String: [@Sendable (Result<OAuth2Token, ExchangeError>) -> Void]] = [:]
  private let writes = WorkerThread(name: "rb-oauth2-save")
  private let onError: @Sendable (FileError) -> Void
  /// Runs the interactive grants (authorization code, device code): set by the command that can
  /// talk to the user. Nil: those grants fail with a message saying to run `reqbench auth`.
  public var interactive: (@Sendable (OAuth2Client, _ send: @escaping Authorizer.Send, _ done: @escaping @Sendable (Result<OAuth2Token, ExchangeError>) -> Void) -> Void)?

  public init(stateFolder: URL?, onError: @escaping @Sendable (FileError) -> Void = { _ in }) {
    self.stateFolder = stateFolder
    self.onError = onError
  }

  /// `STATE/oauth2`.
  public static func folder(in stateFolder: URL) -> URL {
    StateFolder.oauth2(in: stateFolder)
  }

  /// The longest token file read: a token response is kilobytes.
  static let fileLimit = 1 << 20

  /// The authorizer of requests that use `client`.
  public func authorizer(for client: OAuth2Client) -> Authorizer {
    Authorizer(label: client.label, identity: "oauth2 " + client.cacheKey, context: client) { [self] rejected, send, done in
      self.token(for: client, rejecting: rejected, send: send) { result in
        done(result.map { Authorization(header: $0.header, secrets: [$0.accessToken] + [$0.refreshToken].compactMap { $0 }) })
      }
    }
  }

  /// A good token for `client`: the cached one unless it expired or is `rejecting` (the header
  /// value a server refused), else a refreshed or new one. `done` runs once, on any thread.
  public func token(
    for client: OAuth2Client, rejecting rejected: String? = nil, forceNew: Bool = false,
    send: @escaping Authorizer.Send, done: @escaping @Sendable (Result<OAuth2Token, ExchangeError>) -> Void
  ) {
    let key = client.cacheKey
    let now = Date()
    enum Next { case ready(OAuth2Token), wait, fetch(refresh: String?) }
    let next: Next = lock.withLock {
      if waiting[key] != nil {
        waiting[key]?.append(done)
        return .wait
      }
      let current = cached(key)
      if !forceNew, let current, current.header != rejected, !current.isExpired(at: now) { return .ready(current) }
      waiting[key] = [done]
      return .fetch(refresh: current?.refreshToken)
    }
    switch next {
    case .ready(let token): done(.success(token))
    case .wait: break
    case .fetch(let refresh):
      if let refresh {
        send(client.refreshRequest(refresh)) { [self] result in
          switch client.token(from: result, step: "refresh") {
          case .success(var token):
            // RFC 6749 §6: the server may keep the refresh token as it was.
            if token.refreshToken == nil { token.refreshToken = refresh }
            finish(key, .success(token))
          case .failure:
            // The refresh token is no good (revoked, expired): a new token, from the grant.
            fetch(client, key: key, send: send)
          }
        }
      } else {
        fetch(client, key: key, send: send)
      }
    }
  }

  /// Forgets every token, in memory and on disk (`reqbench auth WS --clear`); returns how many
  /// files went.
  @discardableResult
  public func clear() throws(FileError) -> Int {
    lock.withLock {
      tokens = [:]
      loaded = []
    }
    guard let stateFolder else { return 0 }
    let folder = Self.folder(in: stateFolder)
    // A link there is refused, not listed: nothing outside the state folder is removed.
    do throws(StateFileError) {
      guard try StateFiles.existingFolder(folder.path) else { return 0 }
    } catch {
      throw FileError(error)
    }
    var removed = 0
    for name in StateFiles.list(folder.path) where name.hasSuffix(".json") {
      let path = folder.appendingPathComponent(name).path
      if unlink(path) == 0 {
        removed += 1
      } else if errno != ENOENT {
        throw FileError(path: path, message: "cannot remove: \(FileAccess.describe(errno))", reason: FileAccess.describe(errno))
      }
    }
    return removed
  }

  /// Waits until every token file written so far is on disk: call before the process ends.
  public func flush() { writes.sync {} }

  // MARK: - Internals

  private func fetch(_ client: OAuth2Client, key: String, send: @escaping Authorizer.Send) {
    if let request = client.grantRequest() {
      send(request) { [self] result in finish(key, client.token(from: result, step: "token")) }
    } else if let interactive {
      interactive(client, send) { [self] result in finish(key, result) }
    } else {
      finish(
        key,
        .failure(
          ExchangeError(
            kind: .authorization,
            message: "\(client.label): the \(client.grant.name) grant needs you at a browser or another device; "
              + "run `reqbench auth WORKSPACE REQUEST` first (the token is then cached)")))
    }
  }

  private func finish(_ key: String, _ result: Result<OAuth2Token, ExchangeError>) {
    let waiters = lock.withLock { () -> [@Sendable (Result<OAuth2Token, ExchangeError>) -> Void] in
      if case .success(let token) = result { tokens[key] = token }
      return waiting.removeValue(forKey: key) ?? []
    }
    if case .success(let token) = result { save(token, key: key) }
    for waiter in waiters { waiter(result) }
  }

  /// The token of `key`, read from its file the first time (under the lock).
  private func cached(_ key: String) -> OAuth2Token? {
    if let token = tokens[key] { return token }
    guard let stateFolder, !loaded.contains(key) else { return nil }
    loaded.insert(key)
    guard let path = StateFiles.path(key, in: Self.folder(in: stateFolder).path, suffix: ".json"),
      let bytes = try? StateFiles.read(path, limit: Self.fileLimit), let json = try? JSONParser.parse(bytes),
      let token = OAuth2Token(json: json)
    else { return nil }
    tokens[key] = token
    return token
  }

  private func save(_ token: OAuth2Token, key: String) {
    guard let stateFolder else { return }
    let onError = self.onError
    writes.async {
      let folder = Self.folder(in: stateFolder)
      do throws(FileError) {
        try StateFolder.makeFolder(folder)
        guard let file = StateFiles.path(key, in: folder.path, suffix: ".json") else {
          throw FileError(path: folder.path, message: "\(key): not a token key", reason: "invalid key")
        }
        try AtomicFile.write(
          Array(JSONSerializer.compact(token.json).utf8), to: URL(fileURLWithPath: file),
          permissions: StateFiles.fileMode, links: .refuse)
      } catch {
        onError(error)
      }
    }
  }
}

extension Request {
  /// The OAuth 2.0 block this request gets its token from (nil: none, or its own
  /// `Authorization` header won).
  public var oauth2Client: OAuth2Client? { authorizer?.context as? OAuth2Client }
}
