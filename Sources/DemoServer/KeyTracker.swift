import JSON
import Synchronization

/// Per-key request counters and logs (`?key=K` on any request), for /hits, /log and /stats.
final class KeyTracker: Sendable {
  struct LogEntry: Sendable {
    var method: String
    var target: String
    var headers: JSONValue
    var start: Double
    var end: Double?
    /// The response went out in full.
    var completed: Bool
    /// Body bytes read; nil while the body is still being read (or the request never got there).
    var received: Int?
    /// The body read failed: the client closed (or reset) the connection mid-body, or stopped
    /// sending for the socket's timeout. `received` says how far it got.
    var aborted: Bool
  }

  struct Stats: Sendable {
    var hits = 0
    var inFlight = 0
    var maxInFlight = 0
  }

  /// Handed out by `begin`, given back to `end`.
  /// One counted request; `left` is set once it no longer counts as in flight.
  final class Token: @unchecked Sendable {  // used by its connection's thread only
    let key: String
    let logIndex: Int?
    fileprivate(set) var left = false
    init(key: String, logIndex: Int?) {
      self.key = key
      self.logIndex = logIndex
    }
  }

  private struct KeyState {
    var stats = Stats()
    var log: [LogEntry] = []
  }

  /// Log entries kept per key; counting goes on past it.
  static let maxLogEntries = 10_000

  private let keys = Mutex<[String: KeyState]>([:])

  /// Counts a request whose head was just read; returns its hit number (1 for the first).
  func begin(key: String, method: String, target: String, headers: JSONValue) -> (hit: Int, token: Token) {
    let start = epochMilliseconds()
    return keys.withLock { keys in
      var state = keys[key] ?? KeyState()
      state.stats.hits += 1
      state.stats.inFlight += 1
      state.stats.maxInFlight = max(state.stats.maxInFlight, state.stats.inFlight)
      var index: Int? = nil
      if state.log.count < Self.maxLogEntries {
        index = state.log.count
        state.log.append(
          LogEntry(
            method: method, target: target, headers: headers, start: start, end: nil, completed: false,
            received: nil, aborted: false))
      }
      let hit = state.stats.hits
      keys[key] = state
      return (hit, Token(key: key, logIndex: index))
    }
  }

  /// The body has been read (`received` bytes), or its read failed (`aborted`) after `received`.
  func bodyRead(_ token: Token, received: Int, aborted: Bool) {
    guard let index = token.logIndex else { return }
    keys.withLock { keys in
      guard var state = keys[token.key], index < state.log.count else { return }
      state.log[index].received = received
      state.log[index].aborted = aborted
      keys[token.key] = state
    }
  }

  /// The response's last bytes are about to be sent: from here a client may see the response
  /// complete and send its next request, so this one stops counting as in flight now (otherwise
  /// `maxInFlight` could count a strictly sequential client twice).
  func leave(_ token: Token) {
    guard !token.left else { return }
    token.left = true
    keys.withLock { keys in
      guard var state = keys[token.key] else { return }
      state.stats.inFlight = max(0, state.stats.inFlight - 1)
      keys[token.key] = state
    }
  }

  /// The response was fully written (`completed`) or the connection ended without it.
  func end(_ token: Token, completed: Bool) {
    let end = epochMilliseconds()
    let wasLeft = token.left
    token.left = true
    keys.withLock { keys in
      guard var state = keys[token.key] else { return }
      if !wasLeft { state.stats.inFlight = max(0, state.stats.inFlight - 1) }
      if let index = token.logIndex, index < state.log.count {
        state.log[index].end = end
        state.log[index].completed = completed
      }
      keys[token.key] = state
    }
  }

  func stats(_ key: String) -> Stats {
    keys.withLock { $0[key]?.stats ?? Stats() }
  }

  func log(_ key: String) -> [LogEntry] {
    keys.withLock { $0[key]?.log ?? [] }
  }
}
