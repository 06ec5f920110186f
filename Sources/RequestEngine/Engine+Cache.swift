// The engine's cache answers (fresh, revalidated, stale on error), de-duplication and throttling.

import Base
import CCurl
import Foundation

extension Engine {
  /// Answers from the cache when the policy allows; returns whether the exchange is done.
  func answerFromCache(_ record: ExchangeRecord) -> Bool {
    let request = record.request
    guard request.download == nil, let policy = request.cache, policy.isEnabled, let cache = configuration.cache
    else { return false }
    if policy.mode == .networkOnly {
      record.cacheBypassed = true
      return false
    }
    let lookup = cache.lookup(request, policy: policy)
    record.cacheLookup = lookup
    let now = Date()
    switch (policy.mode, lookup) {
    case (.cacheElseNetwork, .fresh(let entry)), (.anyCacheElseNetwork, .fresh(let entry)),
      (.cacheOnly, .fresh(let entry)):
      deliverFromCache(record, entry, outcome: CacheOutcome(hit: true, reason: .fresh, ageSeconds: entry.age(at: now)))
      return true
    case (.anyCacheElseNetwork, .expired(let entry)), (.cacheOnly, .expired(let entry)):
      let outcome = CacheOutcome(hit: true, reason: .expired, ageSeconds: entry.age(at: now), stale: true)
      deliverFromCache(record, entry, outcome: outcome)
      return true
    case (.cacheOnly, .miss(let reason)):
      record.startedAt = Date()
      emit(.started, .started(record.id, attempt: 0))
      let error = ExchangeError(
        kind: .notCached,
        message: "not cached (\(reason.rawValue)): mode cacheOnly never uses the network; send it with another mode first")
      finish(record, state: .failed, response: nil, error: error, cache: CacheOutcome(hit: false, reason: reason))
      return true
    case (.cacheThenNetwork, .fresh(let entry)), (.cacheThenNetwork, .expired(let entry)):
      let outcome = CacheOutcome(hit: true, reason: lookupReason(lookup), ageSeconds: entry.age(at: now))
      emit(.delivered, .delivered(cachedResult(record, entry, outcome: outcome, state: .running)))
      record.deliveredCached = true
    default:
      break
    }
    // Revalidated when the policy asks, and always when the server said `no-cache`.
    if case .expired(let entry) = lookup, policy.revalidate || entry.mustRevalidate,
      entry.etag != nil || entry.lastModified != nil
    {
      record.revalidating = entry
    }
    return false
  }

  func lookupReason(_ lookup: ResponseCache.Lookup?) -> CacheOutcome.Reason {
    switch lookup {
    case .fresh?: .fresh
    case .expired(let entry)?: entry.mustRevalidate && Date() < entry.expiresAt ? .noCache : .expired
    case .miss(let reason)?: reason
    case nil: .disabled
    }
  }

  func cachedResult(_ record: ExchangeRecord, _ entry: ResponseCache.Entry, outcome: CacheOutcome, state: ExchangeState)
    -> ExchangeResult
  {
    let response = Response(
      status: entry.status, httpVersion: entry.httpVersion, headers: entry.headers, body: .memory(entry.body),
      effectiveURL: entry.effectiveURL.isEmpty ? record.request.url : entry.effectiveURL,
      redirectCount: entry.redirectCount, timing: Timing(), bytesSent: 0)
    return ExchangeResult(
      id: record.id, request: record.request, state: state, response: response, error: nil, attempts: 0,
      queuedAt: record.queuedAt, startedAt: record.startedAt ?? record.queuedAt, finishedAt: Date(), fromCache: true,
      deduplicated: false, cache: outcome)
  }

  /// A cache hit: the stored status and headers, full events, `fromCache` set.
  func deliverFromCache(_ record: ExchangeRecord, _ entry: ResponseCache.Entry, outcome: CacheOutcome) {
    record.startedAt = Date()
    emit(.started, .started(record.id, attempt: 0))
    emit(.headers, .headers(record.id, status: entry.status, headers: entry.headers))
    let result = cachedResult(record, entry, outcome: outcome, state: .succeeded)
    finish(record, state: .succeeded, response: result.response, error: nil, fromCache: true, cache: outcome)
  }

  /// The throttle window: refuses a send of the same request within `throttle` seconds of the
  /// last accepted one (`AgentCore.admit`); returns whether it did.
  func throttled(_ record: ExchangeRecord) -> Bool {
    guard let window = record.request.throttle, window > 0 else { return false }
    let now = MonotonicClock.now()
    guard let since = core.admit(key: ExchangeIdentity(record.request), window: window, now: now) else { return false }
    emit(.started, .started(record.id, attempt: 0))
    let error = ExchangeError(
      kind: .throttled,
      message: "throttled: the same request was sent \(formatSeconds(since)) ago (throttle \(formatSeconds(window))); "
        + "try again in \(formatSeconds(window - since))")
    finish(record, state: .failed, response: nil, error: error)
    return true
  }

  /// What the core schedules by: priority, host, group limit, and the dedup key of an
  /// idempotent request that may share another's transfer.
  func job(for record: ExchangeRecord) -> AgentCore.Job {
    let request = record.request
    // Two downloads into one target must never interleave: they always join.
    let merged =
      (request.dedup || request.download != nil) && request.stream == nil
      && [.GET, .HEAD, .OPTIONS].contains(request.method)
    return AgentCore.Job(
      id: record.id, priority: request.priority, host: URLResolver.hostKey(of: request.url), limit: request.limit,
      group: request.group, dedupKey: merged ? ExchangeIdentity(request) : nil, needsToken: request.authorizer != nil,
      idleTimeout: max(0, request.timeouts.idle))
  }

  /// The exchange joined an identical one in flight: a waiter from its first event on, showing
  /// what its primary has so far.
  func joined(_ record: ExchangeRecord, primary id: ExchangeID) {
    emit(.joined, .joined(record.id, primary: id))
    guard let primary = records[id], let transfer = primary.transfer else { return }
    record.startedAt = Date()
    emit(.started, .started(record.id, attempt: primary.attempts))
    if transfer.headersComplete {
      emit(.headers, .headers(record.id, status: transfer.statusLine, headers: transfer.responseHeaders))
    }
    if transfer.progress.downloaded > 0 || transfer.progress.uploaded > 0 {
      emit(.progress, .progress(record.id, transfer.progress))
    }
  }

  /// Emits an event for a transfer's exchange and everyone waiting on it.
  func emitForGroup(_ transfer: Transfer, _ kind: AgentEventKinds, _ make: (ExchangeID) -> AgentEvent) {
    guard wanted.contains(kind), let primary = running[transfer.handle] else { return }
    for member in core.members(of: primary.id) { emit(kind, make(member)) }
  }


  /// The cache outcome of a response that came from the network.
  func networkOutcome(_ record: ExchangeRecord, stored: Bool) -> CacheOutcome? {
    guard let policy = record.request.cache, policy.isEnabled, configuration.cache != nil else {
      return record.request.cache == nil ? nil : CacheOutcome(hit: false, reason: .disabled)
    }
    let reason: CacheOutcome.Reason =
      record.cacheBypassed || record.deliveredCached ? .bypassed : lookupReason(record.cacheLookup)
    var age: Double?
    switch record.cacheLookup {
    case .fresh(let entry)?, .expired(let entry)?: age = entry.age(at: Date())
    default: break
    }
    return CacheOutcome(hit: false, reason: reason, ageSeconds: age, stored: stored)
  }

  /// `staleIfError`: when the network fails, serves the entry the lookup found, marked stale.
  /// Returns whether it did.
  func serveStale(_ record: ExchangeRecord, after error: ExchangeError) -> Bool {
    guard record.request.cache?.mode == .staleIfError else { return false }
    let entry: ResponseCache.Entry
    switch record.cacheLookup {
    case .fresh(let found)?, .expired(let found)?: entry = found
    default: return false
    }
    let networkFailed = error.kind == .transport || (error.kind == .status && (error.status ?? 0) >= 500)
    guard networkFailed else { return false }
    var outcome = CacheOutcome(
      hit: true, reason: lookupReason(record.cacheLookup), ageSeconds: entry.age(at: Date()), stale: true)
    outcome.staleBecause = Redaction(secrets: record.request.secrets).apply(error.message)
    let result = cachedResult(record, entry, outcome: outcome, state: .succeeded)
    finish(record, state: .succeeded, response: result.response, error: nil, fromCache: true, cache: outcome)
    return true
  }
}
