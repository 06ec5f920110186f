import Foundation
import RequestEngine
import TestSupport
import Testing

// The scenarios these tests check are listed with where each is tested in docs/engine-rules.md,
// "Scenarios".

/// Records every agent event, thread-safely, and lets a test wait for conditions on them.
final class EventRecorder: @unchecked Sendable {
  private let condition = NSCondition()
  private var events: [(time: Double, event: AgentEvent)] = []
  private let start = Date()

  init(_ agent: Agent) {
    agent.subscribe { [weak self] event in self?.record(event) }
  }

  private func record(_ event: AgentEvent) {
    condition.lock()
    events.append((Date().timeIntervalSince(start), event))
    condition.broadcast()
    condition.unlock()
  }

  var all: [AgentEvent] { condition.withLock { events.map(\.event) } }
  var timed: [(time: Double, event: AgentEvent)] { condition.withLock { events } }

  var finished: [ExchangeResult] {
    all.compactMap { if case .finished(let r) = $0 { r } else { nil } }
  }

  func started() -> [ExchangeID] {
    all.compactMap { if case .started(let id, _) = $0 { id } else { nil } }
  }

  /// Waits until `predicate` holds over the events, or `timeout` seconds pass. Returns whether it held.
  @discardableResult
  func wait(timeout: Double = 10, until predicate: ([AgentEvent]) -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    condition.lock()
    defer { condition.unlock() }
    while !predicate(events.map(\.event)) {
      if !condition.wait(until: deadline) { return predicate(events.map(\.event)) }
    }
    return true
  }

  func waitForFinished(count: Int, timeout: Double = 10) -> Bool {
    wait(timeout: timeout) { events in
      events.reduce(0) { if case .finished = $1 { $0 + 1 } else { $0 } } >= count
    }
  }
}

func fixture(_ path: String) throws -> String { try TestServer.fixture.url(path) }
func httpbin(_ path: String) throws -> String { try TestServer.httpbin.url(path) }
func nginx(_ path: String) throws -> String { try TestServer.nginx.url(path) }

extension ExchangeResult {
  /// The body parsed as JSON (fails the test when it is not).
  func json() throws -> JSONValue {
    let bytes = try #require(response).body.bytes()
    return try JSONParser.parse(bytes)
  }

  var text: String {
    String(decoding: (try? response?.body.bytes()) ?? [], as: UTF8.self)
  }
}

extension ExchangeIdentity {
  /// The identity of a plain GET of `path`: distinct paths, distinct identities (the core's tests).
  static func of(_ path: String) -> ExchangeIdentity { ExchangeIdentity(Request(url: "http://core.test" + path)) }
}

extension Agent {
  /// Moves the cached entry of `request` (under its own cache policy) `seconds` into the past,
  /// as if it had been stored then: its lifetime runs out on a virtual clock, not by sleeping
  /// through it. Fails the test when there is no entry.
  func ageCachedEntry(of request: Request, by seconds: Double, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
    let cache = try #require(configuration.cache, "the agent has a cache", sourceLocation: sourceLocation)
    let policy = try #require(request.cache, "the request has a cache policy", sourceLocation: sourceLocation)
    let entry: ResponseCache.Entry
    switch cache.lookup(request, policy: policy) {
    case .fresh(let found), .expired(let found): entry = found
    case .miss(let reason):
      Issue.record("no cached entry to age: \(reason)", sourceLocation: sourceLocation)
      return
    }
    let aged = cache.save(entry, for: request, policy: policy, now: Date().addingTimeInterval(-seconds))
    try #require(aged != nil, "the aged entry was saved", sourceLocation: sourceLocation)
  }
}
