// Over 500 lines because this is the one engine thread, and the transfers' state (the multi
// handle, easy handles, redirects' hops, downloads, streams, exchanges waiting for their
// authorizer) is private to it; splitting it would make that state internal to the module. The
// scheduling rules (queue, limits, dedup, retry waits, cancels) are AgentCore's; the other pure
// decisions live elsewhere too (Redirect, RetryAfter, DownloadDecision, ResponseValidator,
// CacheKey); the sections below are marked.

import Base
import CCurl
import Digest
import Foundation

/// One exchange as the engine tracks it until it ends.
private final class Record {
  let id: ExchangeID
  /// As sent; the `Authorization` its `authorizer` gave (and that token among its secrets) is
  /// put in when the authorizer answers.
  var request: Request
  let completion: Agent.Completion?
  let queuedAt = Date()
  var startedAt: Date?
  var attempts = 0
  var transfer: Transfer?
  /// The request on the wire in this attempt: `request` (with a revalidation's conditions) on
  /// the first hop, then what `Redirect.next` made of it for each redirect the engine followed.
  var onWire: Request?
  /// Redirects followed in this attempt, and the seconds their hops took.
  var hops = 0
  var hopSeconds: Double = 0
  /// Requests curl sent on the attempt's earlier hops (for `SentRequest.count`).
  var hopRequests = 0
  /// The response of the attempt that failed, while the next one waits or runs: what a cancel
  /// ends the exchange with (the 503 it had, not "nothing").
  var lastResponse: Response?
  /// A streamed response's events so far, kept across reconnects.
  var stream: StreamLog?
  /// Where a stream's event times count from (the loop clock at the first attempt).
  var streamOrigin: Double?
  /// The SSE `retry` the server last sent, in milliseconds (it holds across connections).
  var streamRetry: Int?
  /// Stream events seen before the current connection, and connections in a row that ended
  /// without one (`ReconnectDelay`'s backoff).
  var streamEventsBefore = 0
  var streamEmptyDrops = 0
  /// What the cache lookup found when the request was sent.
  var cacheLookup: ResponseCache.Lookup?
  /// An expired entry being revalidated with a conditional request.
  var revalidating: ResponseCache.Entry?
  /// Ignore the cache for this send (networkOnly, or a re-send that bypasses it).
  var cacheBypassed = false
  /// `cacheThenNetwork` delivered the cached response; the network's answer is the refresh.
  var deliveredCached = false
  /// Download: the next attempt drops the partial data and starts from 0, for this reason.
  var freshStart: RestartReason?
  /// Download: restarts forced by a wrong answer to a Range request.
  var forcedRestarts = 0
  /// Download: the offset the first attempt continued from, and the last reason any attempt
  /// started over from 0.
  var resumedFrom: Int64?
  var restartReason: RestartReason?
  /// Download: every byte arrived; the file is being checked and moved into place.
  var finalizing: FinalizeJob?
  var finalResponse: Response?
  var finalWriter: DownloadWriter?
  /// The request as curl sent it on the last attempt that ended (nil: nothing went out).
  var sent: SentRequest?
  /// The authorizer was asked again after a 401 (it is asked once per exchange).
  var renewedAuthorization = false

  init(id: ExchangeID, request: Request, completion: Agent.Completion?) {
    self.id = id
    self.request = request
    self.completion = completion
  }
}

/// The driver the engine thread runs (`EngineThread`): confined to that thread.
final class Engine: @unchecked Sendable {
  private let multi: UnsafeMutableRawPointer
  private let configuration: Agent.Configuration
  private let inbox: Inbox
  /// Every exchange not yet ended: the one whose transfers the core schedules, and the others
  /// until they end in the pass they came (a cache answer, a throttle refusal).
  private var records: [ExchangeID: Record] = [:]
  /// Queue, limits, dedup, retry waits and cancels: the scheduling rules, decided by the core.
  private var core: AgentCore
  private var running: [UnsafeMutableRawPointer: Record] = [:]
  private var subscribers: [(token: UInt64, handler: @Sendable (AgentEvent) -> Void)] = []
  private var batchSubscribers: [(token: UInt64, kinds: AgentEventKinds, handler: @Sendable ([AgentEvent]) -> Void)] = []
  /// The kinds of events some subscriber wants: the others are not built.
  private var wanted: AgentEventKinds = []
  /// Events of this pass of the loop, for the batch subscribers.
  private var batch: [AgentEvent] = []
  /// Completions of exchanges that ended in this pass, run after the batch is handed over.
  private var completions: [(Agent.Completion, ExchangeResult)] = []
  private var stopping = false
  /// Downloads being finalized off the engine thread, by job.
  private var finalizers: [ObjectIdentifier: Record] = [:]
  /// Exchanges waiting for their `Authorizer`, by the ticket its answer comes back with.
  private var authorizing: [UInt64: Record] = [:]
  private var lastTicket: UInt64 = 0
  /// Wakes the engine from another thread (set by the engine thread's owner).
  var wake: @Sendable () -> Void = {}
  /// Read once per loop; the transfers' callbacks use it.
  private let clock = LoopClock()
  /// Easy handles of finished transfers, for the next ones.
  private let handles: EasyHandlePool

  init(multi: UnsafeMutableRawPointer, configuration: Agent.Configuration, inbox: Inbox) {
    self.multi = multi
    self.configuration = configuration
    self.inbox = inbox
    self.handles = EasyHandlePool(capacity: configuration.maxConcurrent)
    self.core = AgentCore(
      limits: AgentCore.Limits(maxConcurrent: configuration.maxConcurrent, maxPerHost: configuration.maxPerHost))
  }

  func run() {
    while true {
      for command in inbox.drain() { handle(command) }
      if stopping {
        cancelEverything()
        publishCounts()
        deliverBatch()
        return
      }
      core.tick(now: MonotonicClock.now())
      startScheduled()
      var stillRunning: Int32 = 0
      clock.tick()
      curl_multi_perform(multi, &stillRunning)
      collectFinished()
      enforceIdleTimeouts()
      startScheduled()
      publishCounts()
      deliverBatch()
      curl_multi_poll(multi, nil, 0, pollTimeout(), nil)
    }
  }

  // MARK: - Commands

  private func handle(_ command: Agent.Command) {
    switch command {
    case .send(let id, let request, let completion):
      let record = Record(id: id, request: request, completion: completion)
      records[id] = record
      emit(.queued, .queued(id, request))
      if throttled(record) { return }
      if answerFromCache(record) { return }
      switch core.send(job(for: record)) {
      case .queued: break
      case .waitingForToken: authorize(record, rejected: nil)
      case .joined(let primary): joined(record, primary: primary)
      }
    case .cancel(let id):
      perform(core.cancel(id))
    case .cancelGroup(let group):
      perform(core.cancel(group: group))
    case .cancelAll:
      cancelEverything()
    case .pause(let id):
      guard !core.isPaused(id), core.primary(of: id) == nil else { return }
      perform(core.pause(id).map { [$0] } ?? [])
      if core.isPaused(id) { for member in core.members(of: id) { emit(.paused, .paused(member)) } }
    case .resume(let id):
      guard core.isPaused(id), core.primary(of: id) == nil else { return }
      perform(core.resume(id).map { [$0] } ?? [])
      for member in core.members(of: id) { emit(.resumed, .resumed(member)) }
    case .reprioritise(let id, let priority):
      core.reprioritise(id, to: priority)
    case .setLimits(let maxConcurrent, let maxPerHost):
      core.setLimits(AgentCore.Limits(maxConcurrent: maxConcurrent, maxPerHost: maxPerHost))
    case .subscribe(let token, let handler):
      subscribers.append((token, handler))
      updateWanted()
    case .subscribeBatches(let token, let kinds, let handler):
      batchSubscribers.append((token, kinds, handler))
      updateWanted()
    case .unsubscribe(let token):
      subscribers.removeAll { $0.token == token }
      batchSubscribers.removeAll { $0.token == token }
      updateWanted()
    case .shutdown:
      stopping = true
    case .downloadFinalized(let job, let result):
      downloadFinalized(job, result)
    case .authorized(let ticket, let outcome):
      authorized(ticket, outcome)
    }
  }

  // MARK: - Authorization

  /// Asks the request's authorizer for its `Authorization` (again after a 401: `rejected` is the
  /// value refused); the exchange waits, queued but not in the queue, until the answer comes
  /// back through the inbox. The authorizer's own requests (a token fetch) go through this
  /// engine as exchanges of their own.
  private func authorize(_ record: Record, rejected: String?) {
    guard let authorizer = record.request.authorizer else {
      core.tokenArrived(record.id)
      return
    }
    lastTicket += 1
    let ticket = lastTicket
    authorizing[ticket] = record
    let inbox = self.inbox
    let wake = self.wake
    let send: Authorizer.Send = { request, completion in
      if inbox.post(.send(inbox.nextID(), request, completion)) { wake() }
    }
    authorizer.authorize(rejected: rejected, send: send) { outcome in
      if inbox.post(.authorized(ticket, outcome)) { wake() }
    }
  }

  private func authorized(_ ticket: UInt64, _ outcome: Authorizer.Outcome) {
    guard let record = authorizing.removeValue(forKey: ticket), records[record.id] != nil else { return }
    switch outcome {
    case .success(let authorization):
      record.request.headers["Authorization"] = authorization.header
      record.request.secrets += authorization.secrets
      core.tokenArrived(record.id)
    case .failure(let error):
      // The user gave up the credential (a grant cancelled in the TUI): cancelled, not failed.
      finish(record, state: error.kind == .cancelled ? .cancelled : .failed, response: record.lastResponse, error: error)
    }
  }

  /// A 401 to a request with an authorizer, the first in this exchange: the authorizer renews the
  /// credential and the request goes again (announced as a retry). Returns whether it did.
  private func renewAuthorization(_ record: Record, after response: Response) -> Bool {
    guard response.status == 401, record.request.authorizer != nil, !record.renewedAuthorization else { return false }
    record.renewedAuthorization = true
    record.lastResponse = response
    let reason = ExchangeError(
      kind: .status, message: "status 401: the server refused the token; getting a new one", status: 401)
    for member in core.members(of: record.id) {
      emit(.retrying, .retrying(member, attempt: record.attempts + 1, delay: 0, reason: reason))
    }
    core.renewToken(record.id)
    authorize(record, rejected: record.request.headers["Authorization"])
    return true
  }

  /// A 401 to the credential its authorizer renewed after a first 401: the token is not what
  /// the server wants (a scope or audience it lacks, a server that refuses this client). A
  /// failure saying so (rather than `status 401 is outside 200-299`), not a third try: the
  /// exchange ends here, whatever its validation accepts.
  private func refusedAfterRenewal(_ record: Record, _ response: Response) -> ExchangeError? {
    guard response.status == 401, record.renewedAuthorization, let authorizer = record.request.authorizer else { return nil }
    return ExchangeError(
      kind: .authorization,
      message: "status 401 again with the renewed credential (\(authorizer.label)): the server refuses it; "
        + "check what the credential grants (scope, audience) and what the server expects",
      status: 401)
  }

  private func cancelEverything() { perform(core.cancelAll()) }

  // MARK: - Cancels and pauses: the core's actions performed

  /// Performs what the core decided for a cancel (`AgentCore.cancel`), in its order (an
  /// exchange's `abort`, `left` or `handOver` comes before its `cancelled`), or a pause.
  private func perform(_ actions: [AgentCore.Action]) {
    // What the exchange being cancelled ends with, gathered before its `cancelled`.
    var partial: Response?
    var download: DownloadOutcome?
    var leftPrimary: Record?
    var handedOver = false
    for action in actions {
      switch action {
      case .stopSettling(let id):
        // Every byte is on disk: the cancel wins unless the file already moved into place.
        guard let record = records[id], let job = record.finalizing, job.cancel() else { continue }
        finalizers[ObjectIdentifier(job)] = nil
        finish(
          record, state: .cancelled, response: nil, error: .cancelled,
          download: record.finalWriter.map { downloadOutcome(record, $0, resumable: true) })
      case .left(let id, let primary):
        // A waiter leaves; the transfer goes on for the others.
        leftPrimary = records[primary]
        records[id]?.sent = leftPrimary?.sent
      case .handOver(let from, let to):
        if let record = records[from], let heir = records[to] { handOver(record, to: heir) }
        handedOver = true
      case .abort(let id):
        guard let record = records[id], let transfer = record.transfer else { continue }
        if record.lastResponse == nil {
          // What this attempt sent, unless an earlier attempt's response is what the exchange
          // ends with (then its request stays beside it).
          noteSent(record, transfer)
        }
        if transfer.streamParser != nil {
          // A stream ends cleanly: its status, headers and the body so far stay, beside its events.
          partial = response(of: record, transfer)
        }
        if let writer = transfer.download {
          // Write out and record the partial data before the cancel is reported: a restart resumes.
          writer.closeKeeping()
          download = downloadOutcome(record, writer, resumable: true)
        }
        detach(record, transfer)
      case .pauseTransfer(let id):
        if let transfer = records[id]?.transfer { curl_easy_pause(transfer.handle, rb_pause_all) }
      case .resumeTransfer(let id):
        guard let transfer = records[id]?.transfer else { continue }
        clock.tick()
        transfer.lastActivity = clock.now  // the idle timeout counts from now
        curl_easy_pause(transfer.handle, rb_pause_cont)
      case .cancelled(let id):
        defer { (partial, download, leftPrimary, handedOver) = (nil, nil, nil, false) }
        guard let record = records[id] else { continue }
        if let primary = leftPrimary {
          deliver(record, state: .cancelled, response: primary.lastResponse, error: .cancelled, primary: primary)
          continue
        }
        if download == nil, !handedOver, let target = record.request.download {
          download = pendingOutcome(record, target)
        }
        deliver(record, state: .cancelled, response: partial ?? record.lastResponse, error: .cancelled, download: download)
      }
    }
  }

  /// The first waiter on `record`'s transfer takes it over (`record` is being cancelled):
  /// everything the transfer and its attempts left on the record passes to `heir`.
  private func handOver(_ record: Record, to heir: Record) {
    heir.transfer = record.transfer
    heir.attempts = record.attempts
    heir.onWire = record.onWire
    heir.hops = record.hops
    heir.hopSeconds = record.hopSeconds
    heir.hopRequests = record.hopRequests
    heir.lastResponse = record.lastResponse
    heir.revalidating = record.revalidating
    heir.freshStart = record.freshStart
    heir.forcedRestarts = record.forcedRestarts
    heir.resumedFrom = record.resumedFrom
    heir.restartReason = record.restartReason
    heir.finalizing = record.finalizing
    heir.finalResponse = record.finalResponse
    heir.finalWriter = record.finalWriter
    heir.sent = record.sent
    heir.stream = record.stream
    heir.streamOrigin = record.streamOrigin
    heir.streamRetry = record.streamRetry
    heir.streamEventsBefore = record.streamEventsBefore
    heir.streamEmptyDrops = record.streamEmptyDrops
    heir.renewedAuthorization = record.renewedAuthorization
    if let job = record.finalizing { finalizers[ObjectIdentifier(job)] = heir }
    for (ticket, waiting) in authorizing where waiting === record { authorizing[ticket] = heir }
    if let transfer = record.transfer { running[transfer.handle] = heir }
    record.transfer = nil
  }

  // MARK: - Cache and de-duplication

  /// Answers from the cache when the policy allows; returns whether the exchange is done.
  private func answerFromCache(_ record: Record) -> Bool {
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

  private func lookupReason(_ lookup: ResponseCache.Lookup?) -> CacheOutcome.Reason {
    switch lookup {
    case .fresh?: .fresh
    case .expired(let entry)?: entry.mustRevalidate && Date() < entry.expiresAt ? .noCache : .expired
    case .miss(let reason)?: reason
    case nil: .disabled
    }
  }

  private func cachedResult(_ record: Record, _ entry: ResponseCache.Entry, outcome: CacheOutcome, state: ExchangeState)
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
  private func deliverFromCache(_ record: Record, _ entry: ResponseCache.Entry, outcome: CacheOutcome) {
    record.startedAt = Date()
    emit(.started, .started(record.id, attempt: 0))
    emit(.headers, .headers(record.id, status: entry.status, headers: entry.headers))
    let result = cachedResult(record, entry, outcome: outcome, state: .succeeded)
    finish(record, state: .succeeded, response: result.response, error: nil, fromCache: true, cache: outcome)
  }

  /// The throttle window: refuses a send of the same request within `throttle` seconds of the
  /// last accepted one (`AgentCore.admit`); returns whether it did.
  private func throttled(_ record: Record) -> Bool {
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
  private func job(for record: Record) -> AgentCore.Job {
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
  private func joined(_ record: Record, primary id: ExchangeID) {
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
  private func emitForGroup(_ transfer: Transfer, _ kind: AgentEventKinds, _ make: (ExchangeID) -> AgentEvent) {
    guard wanted.contains(kind), let primary = running[transfer.handle] else { return }
    for member in core.members(of: primary.id) { emit(kind, make(member)) }
  }

  // MARK: - Starting transfers

  /// Puts on the wire every exchange the core starts now.
  private func startScheduled() {
    for (id, attempt) in core.schedule() {
      guard let record = records[id] else { continue }
      start(record, attempt: attempt)
    }
  }

  /// Starts attempt `attempt` (numbered by the core), or the next hop of the current one after
  /// a redirect (`followRedirect`): a hop is the same attempt, announced by no event of its own.
  private func start(_ record: Record, attempt: Int) { start(record, attempt: attempt, hop: nil) }

  private func start(_ record: Record, hop: Request) { start(record, attempt: nil, hop: hop) }

  private func start(_ record: Record, attempt: Int?, hop: Request?) {
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
  private func detach(_ record: Record, _ transfer: Transfer) {
    curl_multi_remove_handle(multi, transfer.handle)
    // Every hop's and attempt's transfer ends here: its Set-Cookie (a login's 302) is in the jar.
    if transfer.receivedSetCookie { transfer.cookieJar?.noteChanged() }
    running[transfer.handle] = nil
    record.transfer = nil
  }

  /// Milliseconds until something needs the engine: curl's own timers, idle deadlines, retries.
  private func pollTimeout() -> Int32 {
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

  private func collectFinished() {
    var easy: UnsafeMutableRawPointer?
    var code = CURLE_OK
    while rb_multi_next_done(multi, &easy, &code) == 1 {
      guard let easy, let record = running[easy], let transfer = record.transfer else { continue }
      complete(record, transfer, curlCode: code)
    }
  }

  /// When the exchange's transfer last moved a byte (for the core's idle rule).
  private func lastActivity(_ id: ExchangeID) -> Double? { records[id]?.transfer?.lastActivity }

  private func enforceIdleTimeouts() {
    for id in core.silent(now: MonotonicClock.now(), lastActivity: lastActivity) {
      guard let record = records[id], let transfer = record.transfer else { continue }
      transfer.timedOutIdle = true
      complete(record, transfer, curlCode: CURLE_OPERATION_TIMEDOUT)
    }
  }

  private func complete(_ record: Record, _ transfer: Transfer, curlCode: CURLcode) {
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
  private func scheduleRetry(_ record: Record, after error: inout ExchangeError, response: Response?) -> Bool {
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
  private func response(of record: Record, _ transfer: Transfer) -> Response? {
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
  private func beginStream(_ transfer: Transfer, _ format: StreamFormat) -> StreamParser {
    let record = running[transfer.handle]
    if let record, record.stream == nil {
      record.stream = StreamLog(
        format: format, maxEvents: configuration.streamMaxEvents, maxBytes: configuration.streamMaxBytes)
    }
    return StreamParser(
      format: format, maxEventBytes: configuration.streamMaxEventBytes, lastEventID: record?.stream?.lastEventID,
      firstIndex: record?.stream?.total ?? 0)
  }

  private func streamEvents(_ transfer: Transfer, _ events: [StreamEvent]) {
    guard let record = running[transfer.handle], !events.isEmpty else { return }
    record.stream?.append(contentsOf: events)
    for member in core.members(of: record.id) { emit(.streamEvents, .streamEvents(member, events)) }
    record.stream?.lastEventID = transfer.streamParser?.lastEventID
  }

  /// An SSE stream with `reconnect` that dropped (the server ended it, the connection broke,
  /// it went silent past the idle timeout) after a 2xx: connect again after the server's
  /// `retry` (or the configured 3 s) with `Last-Event-ID`. Not past the deadline. Returns
  /// whether it did.
  private func reconnect(_ record: Record, _ transfer: Transfer, response: Response?, after error: ExchangeError?) -> Bool {
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
  private func redirectLocation(_ record: Record, _ transfer: Transfer, _ response: Response) -> String? {
    guard let sent = record.onWire, sent.followRedirects, Redirect.followedStatuses.contains(response.status),
      let location = response.headers["Location"], !location.isEmpty
    else { return nil }
    return transfer.redirectURL ?? location
  }

  /// What the transfer sent (the hop's request, masked with the request's secrets), counting the
  /// requests of the attempt's earlier hops.
  private func noteSent(_ record: Record, _ transfer: Transfer) {
    record.sent = transfer.sentHeads.sent(for: record.onWire ?? record.request, uploaded: transfer.uploadedBytes)
    record.sent?.count += record.hopRequests
  }

  /// The next hop of the attempt, on the same record: no new attempt, no event; or the exchange
  /// fails with the redirect's response (a scheme other than http or https, too many hops, the
  /// deadline spent).
  private func followRedirect(_ record: Record, _ response: Response, to location: String) {
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

  // MARK: - Downloads

  /// A download attempt ended: restart from 0 on a wrong range answer, keep the partial data on a
  /// failure (retrying when the policy says), or check and move the file into place off the
  /// engine thread.
  private func completeDownload(_ record: Record, _ transfer: Transfer, _ writer: DownloadWriter, curlCode: CURLcode) {
    let info = transfer.info()
    let headers = transfer.responseHeaders
    let body = transfer.finishBody()
    noteSent(record, transfer)
    detach(record, transfer)
    noteAttempt(record, writer)
    let status = info.status > 0 ? info.status : transfer.statusLine
    let response: Response? =
      status > 0
      ? Response(
        status: status, httpVersion: info.version, headers: headers, body: body, effectiveURL: info.effectiveURL,
        redirectCount: record.hops, timing: info.timing.after(record.hopSeconds), bytesSent: info.sent)
      : nil
    if writer.decision == nil, curlCode == CURLE_OK, !transfer.timedOutIdle, let response,
      let location = redirectLocation(record, transfer, response)
    {
      // Nothing was written for a redirect: the next hop opens the target's state again.
      writer.closeKeeping()
      followRedirect(record, response, to: location)
      return
    }

    if case .restart(let reason)? = writer.decision {
      writer.closeDiscarding()
      record.restartReason = reason
      guard record.forcedRestarts >= 2 else {
        record.forcedRestarts += 1
        record.freshStart = reason
        if let attempt = core.restart(record.id) { start(record, attempt: attempt) }
        return
      }
      let error = ExchangeError(
        kind: .transport, message: "the server keeps answering the download's Range requests wrongly (\(reason.rawValue))")
      finish(record, state: .failed, response: response, error: error, download: downloadOutcome(record, writer, resumable: false))
      return
    }

    var error: ExchangeError?
    if transfer.timedOutIdle {
      error = .transport(.timedOut, detail: "no data for \(formatSeconds(transfer.idleTimeout))")
    } else if let writeError = writer.error ?? transfer.bodyError {
      error = .transport(.cannotWriteFile, detail: writeError)
    } else if curlCode != CURLE_OK {
      error = transfer.failure(curlCode: curlCode)
    } else if let response, case .failure? = writer.decision {
      // Whatever the status validator accepts, a download needs the resource itself.
      error = ExchangeError(
        kind: .status, message: "status \(response.status): nothing was downloaded", status: response.status)
    } else if response == nil || writer.decision == nil {
      error = .transport(.connectionLost, detail: "the server sent no response")
    }

    if error == nil {
      // Every byte is here: write out what is buffered, then check and move the file into place
      // without blocking the engine.
      writer.closeForFinalizing()
      if let writeError = writer.error { error = .transport(.cannotWriteFile, detail: writeError) }
    }
    guard var error else {
      let job = FinalizeJob()
      record.finalizing = job
      var served = response
      served?.body = .empty
      record.finalResponse = served
      record.finalWriter = writer
      finalizers[ObjectIdentifier(job)] = record
      core.settle(record.id)
      let part = writer.store.partPath(writer.key)
      let sidecar = writer.store.sidecarPath(writer.key)
      let target = writer.target
      let expected = writer.sidecar.totalLength
      let inbox = self.inbox
      let wake = self.wake
      WorkerThread.detached(name: "rb-finalize") {
        let result = Result { () throws(DownloadFinalizer.Failure) -> Int64 in
          try DownloadFinalizer.finalize(
            part: part, target: target, expectedLength: expected, sidecar: sidecar, claim: job.claim)
        }
        if inbox.post(.downloadFinalized(job, result)) { wake() }
      }
      return
    }
    // An HTTP error such as 404 leaves nothing worth resuming; a transient one (408, 429, 5xx)
    // and any transport failure keep the partial data.
    let transient = error.kind != .status || [408, 429].contains(status) || status >= 500
    if transient { writer.closeKeeping() } else { writer.closeDiscarding() }
    if transient, scheduleRetry(record, after: &error, response: response) { return }
    finish(
      record, state: .failed, response: response, error: error,
      download: downloadOutcome(record, writer, resumable: transient && writer.bytesOnDisk > 0))
  }

  /// Remembers where the first attempt resumed from and why any attempt started over.
  private func noteAttempt(_ record: Record, _ writer: DownloadWriter) {
    let outcome = writer.outcome(resumable: false, complete: false)
    if record.resumedFrom == nil { record.resumedFrom = outcome.resumedFrom }
    if let reason = outcome.restartReason { record.restartReason = reason }
  }

  private func downloadOutcome(_ record: Record, _ writer: DownloadWriter, resumable: Bool, complete: Bool = false)
    -> DownloadOutcome
  {
    var outcome = writer.outcome(resumable: resumable, complete: complete)
    if let resumedFrom = record.resumedFrom { outcome.resumedFrom = resumedFrom }
    if let reason = record.restartReason { outcome.restartReason = reason }
    return outcome
  }

  /// The state of a download cancelled before or between attempts: what is on disk.
  private func pendingOutcome(_ record: Record, _ target: DownloadTarget) -> DownloadOutcome {
    let store = configuration.downloads
    if case .found(let sidecar, let bytes) = store.load(method: record.request.method, target: target.path) {
      return DownloadOutcome(
        file: target.path, bytes: bytes, totalBytes: sidecar.totalLength, resumedFrom: record.resumedFrom ?? 0,
        restartReason: record.restartReason, resumable: bytes > 0, complete: false)
    }
    return DownloadOutcome(
      file: target.path, bytes: 0, totalBytes: nil, resumedFrom: 0, restartReason: record.restartReason,
      resumable: false, complete: false)
  }

  private func downloadFinalized(_ job: FinalizeJob, _ result: Result<Int64, DownloadFinalizer.Failure>) {
    guard let record = finalizers.removeValue(forKey: ObjectIdentifier(job)), let writer = record.finalWriter else {
      return
    }
    record.finalizing = nil
    switch result {
    case .success(let size):
      var outcome = downloadOutcome(record, writer, resumable: false, complete: true)
      outcome.bytes = size
      outcome.totalBytes = size
      finish(record, state: .succeeded, response: record.finalResponse, error: nil, download: outcome)
    case .failure(let failure):
      var error: ExchangeError
      var resumable = true
      switch failure {
      case .length(let expected, let found):
        error = .transport(.connectionLost, detail: "the download has \(found) of \(expected) bytes")
      case .checksum(let expected, let found):
        error = ExchangeError(
          kind: .validation, message: "the download's sha256 is \(found), expected \(expected); the data was discarded")
        writer.closeDiscarding()
        resumable = false
      case .io(let message):
        error = .transport(.cannotWriteFile, detail: message)
      case .cancelled:
        error = .cancelled
      }
      let state: ExchangeState = error.kind == .cancelled ? .cancelled : .failed
      finish(
        record, state: state, response: record.finalResponse, error: error,
        download: downloadOutcome(record, writer, resumable: resumable))
    }
  }

  /// The cache outcome of a response that came from the network.
  private func networkOutcome(_ record: Record, stored: Bool) -> CacheOutcome? {
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
  private func serveStale(_ record: Record, after error: ExchangeError) -> Bool {
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

  /// Ends an exchange and, unless `alone`, the waiters on its transfer (dedup) with the same
  /// outcome, each with its own terminal event, flagged `deduplicated`. The core ends each
  /// exactly once (`AgentCore.finish`); an exchange it never held (a cache answer, a throttle
  /// refusal) ends here.
  private func finish(
    _ record: Record, state: ExchangeState, response: Response?, error: ExchangeError?,
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
  private func deliver(
    _ record: Record, state: ExchangeState, response: Response?, error: ExchangeError?,
    fromCache: Bool = false, cache: CacheOutcome? = nil, download: DownloadOutcome? = nil, primary: Record? = nil
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
  private func emit(_ kind: AgentEventKinds, _ event: @autoclosure () -> AgentEvent) {
    guard wanted.contains(kind) else { return }
    let event = event()
    for subscriber in subscribers { subscriber.handler(event) }
    if !batchSubscribers.isEmpty { batch.append(event) }
  }

  private func updateWanted() {
    wanted = batchSubscribers.reduce(subscribers.isEmpty ? [] : .all) { $0.union($1.kinds) }
  }

  /// The end of a pass of the loop: this pass's events to the batch subscribers, then the
  /// completions of the exchanges that ended in it.
  private func deliverBatch() {
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

  private func publishCounts() {
    let counts = core.counts
    inbox.publish(queued: counts.queued, running: counts.running)
  }
}

func formatSeconds(_ seconds: Double) -> String {
  seconds == seconds.rounded() ? "\(Int(saturating: seconds)) s" : String(format: "%.1f s", seconds)
}
