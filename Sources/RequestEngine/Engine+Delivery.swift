// How an exchange ends: its terminal event and completion, for it and the exchanges that joined it.

import Base
import CCurl
import Foundation

extension Engine {
  /// Ends an exchange and, unless `alone`, the waiters on its transfer (dedup) with the same
  /// outcome, each with its own terminal event, flagged `deduplicated`. The core ends each
  /// exactly once (`AgentCore.finish`); an exchange it never held (a cache answer, a throttle
  /// refusal) ends here.
  func finish(
    _ record: ExchangeRecord, state: ExchangeState, response: Response?, error: ExchangeError?,
    fromCache: Bool = false, cache: CacheOutcome? = nil, download: DownloadOutcome? = nil
  ) {
    let followers = core.finish(record.id).dropFirst().compactMap { records[$0] }
    deliver(record, state: state, response: response, error: error, fromCache: fromCache, cache: cache, download: download)
    for follower in followers {
      follower.sent = record.sent
      follower.stream = record.stream
      // The same response, judged by the waiter's own validators.
      var ownState = state
      var ownError = error
      if let response, state != .cancelled, error?.kind != .transport {
        ownError = ResponseValidator.validate(response, follower.request.judgedBy)
        ownState = ownError == nil ? .succeeded : .failed
      }
      if record.request.download != nil {
        ownState = state
        ownError = error
      }
      deliver(
        follower, state: ownState, response: response, error: ownError, fromCache: fromCache, cache: cache,
        download: download, primary: record)
    }
  }

  /// The exchange's terminal event and its completion (once: the record leaves `records`).
  /// `primary`: the exchange whose transfer it waited for (dedup).
  func deliver(
    _ record: ExchangeRecord, state: ExchangeState, response: Response?, error: ExchangeError?,
    fromCache: Bool = false, cache: CacheOutcome? = nil, download: DownloadOutcome? = nil, primary: ExchangeRecord? = nil
  ) {
    guard records.removeValue(forKey: record.id) != nil else { return }  // already ended
    let attempts = primary?.attempts ?? record.attempts
    // Errors leave the agent with the request's secrets masked (curl quotes the host name, a
    // validator the value), so every surface that shows them shows masked text.
    // A transfer ends when curl says it did (several may end in one pass of the engine loop).
    var finishedAt = Date()
    if !fromCache, state != .cancelled, let started = record.startedAt, let total = response?.timing.total, total > 0,
      attempts <= 1
    {
      finishedAt = min(finishedAt, started.addingTimeInterval(total))
    }
    var result = ExchangeResult(
      id: record.id, request: record.request, state: state, response: response,
      error: error?.redacted(by: Redaction(secrets: record.request.secrets)),
      attempts: attempts, queuedAt: record.queuedAt,
      startedAt: record.startedAt, finishedAt: finishedAt, fromCache: fromCache,
      deduplicated: primary != nil, cache: cache, download: download, sent: record.sent)
    result.stream = record.stream
    publishCounts()
    // A token response's secrets are masked for everyone but the sender.
    emit(.finished, .finished(result.maskingResponseFields(record.request.secretResponseFields)))
    // A completion runs at the end of this pass of the loop, after every subscriber, batch ones
    // too, saw the `finished` event.
    if let completion = record.completion { completions.append((completion, result)) }
  }

  /// Hands `event` to the subscribers, when one of them wants its `kind` (only then is it made).
  func emit(_ kind: AgentEventKinds, _ event: @autoclosure () -> AgentEvent) {
    guard wanted.contains(kind) else { return }
    let event = event()
    for subscriber in subscribers { subscriber.handler(event) }
    if !batchSubscribers.isEmpty { batch.append(event) }
  }

  func updateWanted() {
    wanted = batchSubscribers.reduce(subscribers.isEmpty ? [] : .all) { $0.union($1.kinds) }
  }

  /// The end of a pass of the loop: this pass's events to the batch subscribers, then the
  /// completions of the exchanges that ended in it.
  func deliverBatch() {
    if !batch.isEmpty {
      let events = batch
      batch.removeAll(keepingCapacity: true)
      for subscriber in batchSubscribers {
        if subscriber.kinds == .all {
          subscriber.handler(events)
        } else {
          let kept = events.filter { subscriber.kinds.contains($0.kind) }
          if !kept.isEmpty { subscriber.handler(kept) }
        }
      }
    }
    let ended = completions
    completions.removeAll(keepingCapacity: true)
    for (completion, result) in ended { completion(result) }
  }

  func publishCounts() {
    let counts = core.counts
    inbox.publish(queued: counts.queued, running: counts.running)
  }
}

func formatSeconds(_ seconds: Double) -> String {
  seconds == seconds.rounded() ? "\(Int(saturating: seconds)) s" : String(format: "%.1f s", seconds)
}
