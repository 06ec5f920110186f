import Foundation
import RequestEngine
import TerminalUI
import Testing
import Workbench
import Workspace

/// The queue's `stale` and `dedup` badges and the viewer's cache line for the offline policies.
@Suite("update: stale and dedup badges")
struct CacheBadgeTests {
  /// Sends the selected request (the viewer follows it) and finishes it as `change` says.
  func finish(_ state: inout AppState, _ request: Request, id: UInt64, change: (inout ExchangeResult) -> Void) {
    send(&state, .key(.enter))
    var events = Scenario.exchange(id: id, request: request, body: "[]", duration: 0.001)
    if case .agent(.finished(var result)) = events[3] {
      change(&result)
      events[3] = .agent(.finished(result))
    } else {
      Issue.record("the exchange's fourth event is not its result: \(events[3])")
    }
    for msg in events { send(&state, msg) }
  }

  @Test func staleAndDedupBadgesAndTheirLines() throws {
    var state = try demoState(width: 160, height: 45)
    let offline = Request(
      name: "users/list", url: "http://127.0.0.1:8080/users", cache: CachePolicy(seconds: 60, mode: .cacheOnly))
    finish(&state, offline, id: 1) {
      $0.fromCache = true
      $0.cache = CacheOutcome(hit: true, reason: .expired, ageSeconds: 90, stale: true)
    }
    #expect(state.exchanges[0].badges == ["stale"])
    var buffer = ScreenBuffer(width: 160, height: 45)
    view(state, into: &buffer)
    #expect(buffer.text.contains("stale (served without the network)"))
    var onError = offline
    onError.cache?.mode = .staleIfError
    finish(&state, onError, id: 2) {
      $0.fromCache = true
      $0.cache = CacheOutcome(hit: true, reason: .expired, ageSeconds: 90, stale: true)
    }
    buffer = ScreenBuffer(width: 160, height: 45)
    view(state, into: &buffer)
    #expect(buffer.text.contains("stale (the network failed)"))
    finish(&state, Request(name: "users/get", url: "http://127.0.0.1:8080/users/1"), id: 3) { $0.deduplicated = true }
    #expect(state.exchanges[0].badges == ["dedup"])
  }

  @Test func theOfflineModesAreEditable() throws {
    let template = try RequestTemplate(name: "r", url: "/x").applying("60 cacheOnly", to: .cache)
    #expect(template.cache?.mode == .cacheOnly)
    #expect(try template.applying("60 anyCacheElseNetwork", to: .cache).cache?.mode == .anyCacheElseNetwork)
  }
}
