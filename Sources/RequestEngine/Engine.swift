// The engine thread's driver: the exchanges it holds (`ExchangeRecord`), its loop, the commands
// it takes and the scheduling core's actions it performs. The rest of the driver is split by
// concern into `Engine+Cache` (cache answers, de-duplication, throttling), `Engine+Transfers`
// (starting and completing curl transfers, retries, streams, redirects), `Engine+Downloads` and
// `Engine+Delivery` (terminal events, completions, subscribers). The scheduling rules (queue,
// limits, dedup, retry waits, cancels) are AgentCore's; the other pure decisions live elsewhere
// too (Redirect, RetryAfter, DownloadDecision, ResponseValidator, CacheKey). Everything here is
// confined to the engine thread.

import Base
import CCurl
import Digest
import Foundation

/// One exchange as the engine tracks it until it ends.
final class ExchangeRecord {
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
  let multi: UnsafeMutableRawPointer
  let configuration: Agent.Configuration
  let inbox: Inbox
  /// Every exchange not yet ended: the one whose transfers the core schedules, and the others
  /// until they end in the pass they came (a cache answer, a throttle refusal).
  var records: [ExchangeID: ExchangeRecord] = [:]
  /// Queue, limits, dedup, retry waits and cancels: the scheduling rules, decided by the core.
  var core: AgentCore
  var running: [UnsafeMutableRawPointer: ExchangeRecord] = [:]
  var subscribers: [(token: UInt64, handler: @Sendable (AgentEvent) -> Void)] = []
  var batchSubscribers: [(token: UInt64, kinds: AgentEventKinds, handler: @Sendable ([AgentEvent]) -> Void)] = []
  /// The kinds of events some subscriber wants: the others are not built.
  var wanted: AgentEventKinds = []
  /// Events of this pass of the loop, for the batch subscribers.
  var batch: [AgentEvent] = []
  /// Completions of exchanges that ended in this pass, run after the batch is handed over.
  var completions: [(Agent.Completion, ExchangeResult)] = []
  var stopping = false
  /// Downloads being finalized off the engine thread, by job.
  var finalizers: [ObjectIdentifier: ExchangeRecord] = [:]
  /// Exchanges waiting for their `Authorizer`, by the ticket its answer comes back with.
  var authorizing: [UInt64: ExchangeRecord] = [:]
  var lastTicket: UInt64 = 0
  /// Wakes the engine from another thread (set by the engine thread's owner).
  var wake: @Sendable () -> Void = {}
  /// Read once per loop; the transfers' callbacks use it.
  let clock = LoopClock()
  /// Easy handles of finished transfers, for the next ones.
  let handles: EasyHandlePool

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

  func handle(_ command: Agent.Command) {
    switch command {
    case .send(let id, let request, let completion):
      let record = ExchangeRecord(id: id, request: request, completion: completion)
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
  func authorize(_ record: ExchangeRecord, rejected: String?) {
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

  func authorized(_ ticket: UInt64, _ outcome: Authorizer.Outcome) {
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
  func renewAuthorization(_ record: ExchangeRecord, after response: Response) -> Bool {
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
  func refusedAfterRenewal(_ record: ExchangeRecord, _ response: Response) -> ExchangeError? {
    guard response.status == 401, record.renewedAuthorization, let authorizer = record.request.authorizer else { return nil }
    return ExchangeError(
      kind: .authorization,
      message: "status 401 again with the renewed credential (\(authorizer.label)): the server refuses it; "
        + "check what the credential grants (scope, audience) and what the server expects",
      status: 401)
  }

  func cancelEverything() { perform(core.cancelAll()) }

  // MARK: - Cancels and pauses: the core's actions performed

  /// Performs what the core decided for a cancel (`AgentCore.cancel`), in its order (an
  /// exchange's `abort`, `left` or `handOver` comes before its `cancelled`), or a pause.
  func perform(_ actions: [AgentCore.Action]) {
    // What the exchange being cancelled ends with, gathered before its `cancelled`.
    var partial: Response?
    var download: DownloadOutcome?
    var leftPrimary: ExchangeRecord?
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
  func handOver(_ record: ExchangeRecord, to heir: ExchangeRecord) {
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
}
