// The engine's curl transfers: started, collected when curl ends them, retried, streamed, redirected.

import Base
import CCurl
import Foundation

extension Engine {
  /// Puts on the wire every exchange the core starts now.
  func startScheduled() {
    for (id, attempt) in core.schedule() {
      guard let record = records[id] else { continue }
      start(record, attempt: attempt)
    }
  }

  /// Starts attempt `attempt` (numbered by the core), or the next hop of the current one after
  /// a redirect (`followRedirect`): a hop is the same attempt, announced by no event of its own.
  func start(_ record: ExchangeRecord, attempt: Int) { start(record, attempt: attempt, hop: nil) }

  func start(_ record: ExchangeRecord, hop: Request) { start(record, attempt: nil, hop: hop) }

  func start(_ record: ExchangeRecord, attempt: Int?, hop: Request?) {
    clock.tick()
    var request = record.request
    if let entry = record.revalidating {
      if let etag = entry.etag { request.headers["If-None-Match"] = etag }
      if let lastModified = entry.lastModified { request.headers["If-Modified-Since"] = lastModified }
    }
    if hop == nil {
      record.hops = 0
      record.hopSeconds = 0
      record.hopRequests = 0
    }
    if record.request.stream == .sse || record.request.reconnect, !request.headers.contains("Accept") {
      request.headers["Accept"] = "text/event-stream"  // as EventSource asks
    }
    if let lastEventID = record.stream?.lastEventID, !lastEventID.isEmpty, !request.headers.contains("Last-Event-ID") {
      request.headers["Last-Event-ID"] = lastEventID  // a reconnect: the server resumes after it
    }
    // A download's resume state belongs to its target and the first request, whatever URL the
    // redirects lead to; the transfer sends the hop's request.
    let sending = hop ?? request
    record.onWire = sending
    var writer: DownloadWriter?
    if let target = request.download {
      do {
        writer = try DownloadWriter(request: request, target: target, store: configuration.downloads, fresh: record.freshStart)
      } catch {
        finish(record, state: .failed, response: nil, error: .transport(.cannotWriteFile, detail: "\(error)"))
        return
      }
      record.freshStart = nil
    }
    let transfer: Transfer
    do {
      transfer = try Transfer(
        request: sending, configuration: configuration, clock: clock, handles: handles, download: writer)
    } catch {
      writer?.closeKeeping()
      finish(record, state: .failed, response: nil, error: ExchangeError(kind: .usage, message: error.message))
      return
    }
    if let attempt { record.attempts = attempt }
    record.transfer = transfer
    transfer.onHeaders = { [unowned self, unowned transfer] status, headers in
      self.emitForGroup(transfer, .headers) { .headers($0, status: status, headers: headers) }
    }
    transfer.onProgress = { [unowned self, unowned transfer] progress in
      self.emitForGroup(transfer, .progress) { .progress($0, progress) }
    }
    if record.streamOrigin == nil { record.streamOrigin = clock.now }
    transfer.streamOrigin = record.streamOrigin ?? clock.now
    transfer.makeStreamParser = { [unowned self, unowned transfer] format in
      self.beginStream(transfer, format)
    }
    transfer.onStreamEvents = { [unowned self, unowned transfer] events in
      self.streamEvents(transfer, events)
    }
    running[transfer.handle] = record
    if hop == nil {
      for member in core.members(of: record.id).compactMap({ records[$0] }) {
        if member.startedAt == nil { member.startedAt = Date() }
        emit(.started, .started(member.id, attempt: record.attempts))
      }
    }
    curl_multi_add_handle(multi, transfer.handle)
    // A paused exchange's next hop or restarted attempt is held still like the one it replaces.
    if core.isPaused(record.id) { curl_easy_pause(transfer.handle, rb_pause_all) }
  }

  /// Takes a transfer off the wire (aborting it if it still runs).
  func detach(_ record: ExchangeRecord, _ transfer: Transfer) {
    curl_multi_remove_handle(multi, transfer.handle)
    // Every hop's and attempt's transfer ends here: its Set-Cookie (a login's 302) is in the jar.
    if transfer.receivedSetCookie { transfer.cookieJar?.noteChanged() }
    running[transfer.handle] = nil
    record.transfer = nil
  }

  /// Milliseconds until something needs the engine: curl's own timers, idle deadlines, retries.
  func pollTimeout() -> Int32 {
    if !inbox.isEmpty { return 0 }
    var timeout: Int = -1
    var curlTimeout = 0
    curl_multi_timeout(multi, &curlTimeout)
    if curlTimeout >= 0 { timeout = curlTimeout }
    let now = MonotonicClock.now()
    func consider(_ seconds: Double) {
      let ms = max(0, Int(saturating: (seconds * 1000).rounded(.up)))
      timeout = timeout < 0 ? ms : min(timeout, ms)
    }
    if let idle = core.nextIdleDeadline(lastActivity: lastActivity) { consider(idle - now) }
    if let retry = core.nextTimer { consider(retry - now) }
    if timeout < 0 { return 3_600_000 }  // idle: sleep until a command wakes us
    return Int32(min(timeout, 3_600_000))
  }

  // MARK: - Completion

  func collectFinished() {
    var easy: UnsafeMutableRawPointer?
    var code = CURLE_OK
    while rb_multi_next_done(multi, &easy, &code) == 1 {
      guard let easy, let record = running[easy], let transfer = record.transfer else { continue }
      complete(record, transfer, curlCode: code)
    }
  }

  /// When the exchange's transfer last moved a byte (for the core's idle rule).
  func lastActivity(_ id: ExchangeID) -> Double? { records[id]?.transfer?.lastActivity }

  func enforceIdleTimeouts() {
    for id in core.silent(now: MonotonicClock.now(), lastActivity: lastActivity) {
      guard let record = records[id], let transfer = record.transfer else { continue }
      transfer.timedOutIdle = true
      complete(record, transfer, curlCode: CURLE_OPERATION_TIMEDOUT)
    }
  }

  func complete(_ record: ExchangeRecord, _ transfer: Transfer, curlCode: CURLcode) {
    if let writer = transfer.download {
      completeDownload(record, transfer, writer, curlCode: curlCode)
      return
    }
    transfer.finishStream()
    let response = response(of: record, transfer)
    noteSent(record, transfer)
    detach(record, transfer)
    if curlCode == CURLE_OK, !transfer.timedOutIdle, let response, let location = redirectLocation(record, transfer, response) {
      followRedirect(record, response, to: location)
      return
    }
    if curlCode == CURLE_OK, !transfer.timedOutIdle, let response, renewAuthorization(record, after: response) { return }

    var error: ExchangeError?
    if transfer.timedOutIdle {
      error = .transport(.timedOut, detail: "no data for \(formatSeconds(transfer.idleTimeout))")
    } else if curlCode != CURLE_OK {
      error = transfer.failure(curlCode: curlCode)
    } else if let response {
      if let entry = record.revalidating, response.status == 304, let policy = record.request.cache,
        let cache = configuration.cache
      {
        // The server confirmed the expired entry: serve it, renewed.
        let renewed = cache.renew(entry, with: response.headers, for: record.request, policy: policy)
        var outcome = CacheOutcome(
          hit: true, reason: lookupReason(record.cacheLookup), ageSeconds: entry.age(at: Date()), revalidated: true)
        outcome.stored = true
        var served = cachedResult(record, renewed, outcome: outcome, state: .succeeded).response
        served?.timing = response.timing
        finish(record, state: .succeeded, response: served, error: nil, fromCache: true, cache: outcome)
        return
      }
      error = refusedAfterRenewal(record, response) ?? ResponseValidator.validate(response, record.request.judgedBy)
    } else {
      error = .transport(.connectionLost, detail: "the server sent no response")
    }

    if transfer.streamParser != nil, reconnect(record, transfer, response: response, after: error) { return }
    if var error {
      if scheduleRetry(record, after: &error, response: response) { return }
      if serveStale(record, after: error) { return }
      finish(record, state: .failed, response: response, error: error, cache: networkOutcome(record, stored: false))
    } else {
      var stored = false
      if let policy = record.request.cache, let cache = configuration.cache, let response {
        stored = cache.store(response, for: record.request, policy: policy) != nil
      }
      finish(record, state: .succeeded, response: response, error: nil, cache: networkOutcome(record, stored: stored))
    }
  }

  /// Schedules another attempt when the request's retry policy allows; returns whether it did.
  /// The wait is the server's `Retry-After` on a 429 or 503 (capped by the policy's
  /// `maxRetryAfter`), else the policy's backoff; a `Retry-After` that would end the wait past the
  /// request's deadline is not waited for: the attempt's failure is the exchange's.
  func scheduleRetry(_ record: ExchangeRecord, after error: inout ExchangeError, response: Response?) -> Bool {
    guard let policy = record.request.retry,
      policy.shouldRetry(method: record.request.method, error: error, retriesSoFar: record.attempts - 1)
    else { return false }
    let now = Date()
    let (delay, fromServer) = policy.wait(beforeRetry: record.attempts - 1, after: response, now: now)
    if fromServer, let deadline = record.request.timeouts.deadline, let started = record.startedAt,
      now.timeIntervalSince(started) + delay >= deadline
    {
      error.message += " (not retried: the server's Retry-After of \(formatSeconds(delay)) would pass the deadline of \(formatSeconds(deadline)))"
      return false
    }
    record.lastResponse = response
    core.retry(record.id, after: delay, now: MonotonicClock.now())
    for member in core.members(of: record.id).compactMap({ records[$0] }) {
      let reason = error.redacted(by: Redaction(secrets: member.request.secrets))
      emit(.retrying, .retrying(member.id, attempt: record.attempts + 1, delay: delay, reason: reason))
    }
    return true
  }

  /// What the server answered on `transfer`'s connection (its body taken from the transfer), or
  /// nil when no status line came.
  func response(of record: ExchangeRecord, _ transfer: Transfer) -> Response? {
    let info = transfer.info()
    let status = info.status > 0 ? info.status : transfer.statusLine
    guard status > 0 else { return nil }
    return Response(
      status: status, httpVersion: info.version, headers: transfer.responseHeaders, body: transfer.finishBody(),
      effectiveURL: info.effectiveURL, redirectCount: record.hops, timing: info.timing.after(record.hopSeconds),
      bytesSent: info.sent)
  }

  // MARK: - Streams

  /// A response turned out to be a stream: the parser for it, carrying on the exchange's event
  /// count and last event id from an earlier connection.
  func beginStream(_ transfer: Transfer, _ format: StreamFormat) -> StreamParser {
    let record = running[transfer.handle]
    if let record, record.stream == nil {
      record.stream = StreamLog(
        format: format, maxEvents: configuration.streamMaxEvents, maxBytes: configuration.streamMaxBytes)
    }
    return StreamParser(
      format: format, maxEventBytes: configuration.streamMaxEventBytes, lastEventID: record?.stream?.lastEventID,
      firstIndex: record?.stream?.total ?? 0)
  }

  func streamEvents(_ transfer: Transfer, _ events: [StreamEvent]) {
    guard let record = running[transfer.handle], !events.isEmpty else { return }
    record.stream?.append(contentsOf: events)
    for member in core.members(of: record.id) { emit(.streamEvents, .streamEvents(member, events)) }
    record.stream?.lastEventID = transfer.streamParser?.lastEventID
  }

  /// An SSE stream with `reconnect` that dropped (the server ended it, the connection broke,
  /// it went silent past the idle timeout) after a 2xx: connect again after the server's
  /// `retry` (or the configured 3 s) with `Last-Event-ID`. Not past the deadline. Returns
  /// whether it did.
  func reconnect(_ record: ExchangeRecord, _ transfer: Transfer, response: Response?, after error: ExchangeError?) -> Bool {
    guard record.request.reconnect, let parser = transfer.streamParser, parser.format == .sse,
      (200..<300).contains(transfer.statusLine)
    else { return false }
    if let retry = parser.retryMilliseconds { record.streamRetry = retry }
    record.stream?.lastEventID = parser.lastEventID
    let seen = record.stream?.total ?? 0
    record.streamEmptyDrops = seen > record.streamEventsBefore ? 0 : record.streamEmptyDrops + 1
    record.streamEventsBefore = seen
    let delay = ReconnectDelay.seconds(
      asked: record.streamRetry.map { Double($0) / 1000 } ?? configuration.reconnectDelay,
      emptyDrops: record.streamEmptyDrops)
    if let deadline = record.request.timeouts.deadline, let started = record.startedAt,
      Date().timeIntervalSince(started) + delay >= deadline
    {
      return false
    }
    record.stream?.reconnects += 1
    record.lastResponse = response
    core.retry(record.id, after: delay, now: MonotonicClock.now())
    let reason = error ?? .transport(.connectionLost, detail: "the server ended the stream")
    for member in core.members(of: record.id).compactMap({ records[$0] }) {
      emit(
        .reconnecting,
        .reconnecting(
          member.id, count: record.stream?.reconnects ?? 1, delay: delay,
          reason: reason.redacted(by: Redaction(secrets: member.request.secrets))))
    }
    return true
  }

  // MARK: - Redirects

  /// Where the engine follows `response` to, when it does: a status `Redirect` follows with a
  /// `Location`, on a request that follows redirects. curl's resolution of the location against
  /// the hop's URL (CURLINFO_REDIRECT_URL) when it has one; the header as sent when curl could
  /// not resolve it (a scheme it does not know), so that `Redirect` refuses it by name.
  func redirectLocation(_ record: ExchangeRecord, _ transfer: Transfer, _ response: Response) -> String? {
    guard let sent = record.onWire, sent.followRedirects, Redirect.followedStatuses.contains(response.status),
      let location = response.headers["Location"], !location.isEmpty
    else { return nil }
    return transfer.redirectURL ?? location
  }

  /// What the transfer sent (the hop's request, masked with the request's secrets), counting the
  /// requests of the attempt's earlier hops.
  func noteSent(_ record: ExchangeRecord, _ transfer: Transfer) {
    record.sent = transfer.sentHeads.sent(for: record.onWire ?? record.request, uploaded: transfer.uploadedBytes)
    record.sent?.count += record.hopRequests
  }

  /// The next hop of the attempt, on the same record: no new attempt, no event; or the exchange
  /// fails with the redirect's response (a scheme other than http or https, too many hops, the
  /// deadline spent).
  func followRedirect(_ record: ExchangeRecord, _ response: Response, to location: String) {
    let sent = record.onWire ?? record.request
    record.hops += 1
    record.hopSeconds = response.timing.total
    record.hopRequests = record.sent?.count ?? record.hopRequests
    var error: ExchangeError
    switch Redirect.next(after: sent, status: response.status, location: location, hop: record.hops) {
    case .success(var next):
      guard let deadline = record.request.timeouts.deadline else {
        start(record, hop: next)
        return
      }
      let left = deadline - record.hopSeconds
      if left > 0 {
        next.timeouts.deadline = left
        start(record, hop: next)
        return
      }
      error = .transport(.timedOut, detail: "the deadline of \(formatSeconds(deadline)) passed after \(record.hops) redirects")
    case .failure(let refused):
      error = refused
    }
    var answer = response
    answer.redirectCount = record.hops - 1
    if record.request.download != nil {
      finish(record, state: .failed, response: answer, error: error, download: record.request.download.map { pendingOutcome(record, $0) })
      return
    }
    if scheduleRetry(record, after: &error, response: answer) { return }
    finish(record, state: .failed, response: answer, error: error, cache: networkOutcome(record, stored: false))
  }
}
