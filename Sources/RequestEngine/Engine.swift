import CCurl
import Foundation

/// The engine thread: owns the curl multi handle and every easy handle, runs the queue.
///
/// Loop: take commands → start what the limits allow → `curl_multi_perform` → collect finished
/// transfers → enforce idle timeouts → `curl_multi_poll` until the next timer or a wake-up.
/// When nothing is queued, running or waiting to retry it sleeps in `curl_multi_poll` until a
/// command arrives: no periodic wake-ups.
final class EngineThread: @unchecked Sendable {
  private let multi: UnsafeMutableRawPointer
  private let engine: Engine
  private let finished = DispatchSemaphore(value: 0)
  private var thread: Thread?

  init(configuration: Agent.Configuration, inbox: Inbox) {
    // curl_multi_init only fails when out of memory.
    guard let multi = curl_multi_init() else { preconditionFailure("curl_multi_init failed: out of memory") }
    self.multi = multi
    rb_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(configuration.maxConcurrent * 2, 16))
    self.engine = Engine(multi: multi, configuration: configuration, inbox: inbox)
  }

  func start() {
    let engine = self.engine
    let finished = self.finished
    let thread = Thread {
      engine.run()
      finished.signal()
    }
    thread.name = "reqbench.engine"
    thread.stackSize = 4 << 20
    self.thread = thread
    thread.start()
  }

  func wake() { curl_multi_wakeup(multi) }

  func join() {
    if Thread.current.name == "reqbench.engine" { return }  // shutdown from an event handler
    finished.wait()
    curl_multi_cleanup(multi)
  }
}

/// One exchange as the engine tracks it until it ends.
private final class Record {
  let id: ExchangeID
  let request: Request
  let completion: Agent.Completion?
  let hostKey: String
  let sequence: UInt64
  let queuedAt = Date()
  var startedAt: Date?
  var attempts = 0
  var transfer: Transfer?
  var retryDue: Double?

  init(id: ExchangeID, request: Request, completion: Agent.Completion?, sequence: UInt64) {
    self.id = id
    self.request = request
    self.completion = completion
    self.hostKey = URLResolver.hostKey(of: request.url)
    self.sequence = sequence
  }

  /// Higher priority first, then first come first served.
  func startsBefore(_ other: Record) -> Bool {
    if request.priority != other.request.priority { return request.priority > other.request.priority }
    return sequence < other.sequence
  }
}

private final class Engine: @unchecked Sendable {  // confined to the engine thread
  private let multi: UnsafeMutableRawPointer
  private let configuration: Agent.Configuration
  private let inbox: Inbox
  private var records: [ExchangeID: Record] = [:]
  private var queue: [Record] = []
  private var waitingRetry: [Record] = []
  private var running: [UnsafeMutableRawPointer: Record] = [:]
  private var perHost: [String: Int] = [:]
  private var subscribers: [(token: UInt64, handler: @Sendable (AgentEvent) -> Void)] = []
  private var sequence: UInt64 = 0
  private var stopping = false

  init(multi: UnsafeMutableRawPointer, configuration: Agent.Configuration, inbox: Inbox) {
    self.multi = multi
    self.configuration = configuration
    self.inbox = inbox
  }

  func run() {
    while true {
      for command in inbox.drain() { handle(command) }
      if stopping {
        cancelEverything()
        publishCounts()
        return
      }
      promoteDueRetries()
      startQueued()
      var stillRunning: Int32 = 0
      curl_multi_perform(multi, &stillRunning)
      collectFinished()
      enforceIdleTimeouts()
      startQueued()
      publishCounts()
      curl_multi_poll(multi, nil, 0, pollTimeout(), nil)
    }
  }

  // MARK: - Commands

  private func handle(_ command: Agent.Command) {
    switch command {
    case .send(let id, let request, let completion):
      sequence += 1
      let record = Record(id: id, request: request, completion: completion, sequence: sequence)
      records[id] = record
      emit(.queued(id, request))
      enqueue(record)
    case .cancel(let id):
      if let record = records[id] { cancel(record) }
    case .cancelGroup(let group):
      for record in records.values.sorted(by: { $0.id < $1.id }) where record.request.group == group {
        cancel(record)
      }
    case .cancelAll:
      cancelEverything()
    case .subscribe(let token, let handler):
      subscribers.append((token, handler))
    case .unsubscribe(let token):
      subscribers.removeAll { $0.token == token }
    case .shutdown:
      stopping = true
    }
  }

  private func cancelEverything() {
    for record in records.values.sorted(by: { $0.id < $1.id }) { cancel(record) }
  }

  private func cancel(_ record: Record) {
    if let transfer = record.transfer {
      detach(record, transfer)
    }
    queue.removeAll { $0 === record }
    waitingRetry.removeAll { $0 === record }
    finish(record, state: .cancelled, response: nil, error: .cancelled)
  }

  // MARK: - Scheduling

  private func enqueue(_ record: Record) {
    // Binary search for the first queued record that this one starts before.
    var low = 0
    var high = queue.count
    while low < high {
      let mid = (low + high) / 2
      if record.startsBefore(queue[mid]) { high = mid } else { low = mid + 1 }
    }
    queue.insert(record, at: low)
  }

  private func startQueued() {
    guard running.count < configuration.maxConcurrent, !queue.isEmpty else { return }
    var index = 0
    while index < queue.count && running.count < configuration.maxConcurrent {
      let record = queue[index]
      if perHost[record.hostKey, default: 0] >= configuration.maxPerHost {
        index += 1
        continue
      }
      queue.remove(at: index)
      start(record)
    }
  }

  private func start(_ record: Record) {
    let now = monotonicNow()
    guard let transfer = Transfer(request: record.request, configuration: configuration, now: now) else {
      finish(
        record, state: .failed, response: nil,
        error: ExchangeError(kind: .transport, message: "cannot create a curl handle (out of memory)"))
      return
    }
    record.attempts += 1
    if record.startedAt == nil { record.startedAt = Date() }
    record.transfer = transfer
    let id = record.id
    transfer.onHeaders = { [unowned self] status, headers in
      self.emit(.headers(id, status: status, headers: headers))
    }
    transfer.onProgress = { [unowned self] progress in
      self.emit(.progress(id, progress))
    }
    running[transfer.handle] = record
    perHost[record.hostKey, default: 0] += 1
    emit(.started(id, attempt: record.attempts))
    curl_multi_add_handle(multi, transfer.handle)
  }

  /// Takes a transfer off the wire (aborting it if it still runs).
  private func detach(_ record: Record, _ transfer: Transfer) {
    curl_multi_remove_handle(multi, transfer.handle)
    running[transfer.handle] = nil
    perHost[record.hostKey, default: 1] -= 1
    if perHost[record.hostKey] == 0 { perHost[record.hostKey] = nil }
    record.transfer = nil
  }

  private func promoteDueRetries() {
    guard !waitingRetry.isEmpty else { return }
    let now = monotonicNow()
    let due = waitingRetry.filter { ($0.retryDue ?? 0) <= now }
    guard !due.isEmpty else { return }
    waitingRetry.removeAll { ($0.retryDue ?? 0) <= now }
    for record in due {
      record.retryDue = nil
      enqueue(record)
    }
  }

  /// Milliseconds until something needs the engine: curl's own timers, idle deadlines, retries.
  private func pollTimeout() -> Int32 {
    if !inbox.isEmpty { return 0 }
    var timeout: Int = -1
    var curlTimeout = 0
    curl_multi_timeout(multi, &curlTimeout)
    if curlTimeout >= 0 { timeout = curlTimeout }
    let now = monotonicNow()
    func consider(_ seconds: Double) {
      let ms = max(0, Int((seconds * 1000).rounded(.up)))
      timeout = timeout < 0 ? ms : min(timeout, ms)
    }
    for record in running.values {
      guard let transfer = record.transfer else { continue }
      consider(transfer.lastActivity + transfer.idleTimeout - now)
    }
    for record in waitingRetry { consider((record.retryDue ?? now) - now) }
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

  private func enforceIdleTimeouts() {
    let now = monotonicNow()
    let silent = running.values.filter { record in
      guard let transfer = record.transfer else { return false }
      return now - transfer.lastActivity >= transfer.idleTimeout
    }
    for record in silent.sorted(by: { $0.id < $1.id }) {
      guard let transfer = record.transfer else { continue }
      transfer.timedOutIdle = true
      complete(record, transfer, curlCode: CURLE_OPERATION_TIMEDOUT)
    }
  }

  private func complete(_ record: Record, _ transfer: Transfer, curlCode: CURLcode) {
    let info = transfer.info()
    let headers = transfer.responseHeaders
    let body = transfer.finishBody()
    let sinkError = transfer.bodyError
    let errorDetail = transfer.errorMessage
    detach(record, transfer)

    var response: Response?
    let status = info.status > 0 ? info.status : transfer.statusLine
    if status > 0 {
      response = Response(
        status: status, httpVersion: info.version, headers: headers, body: body,
        effectiveURL: info.effectiveURL, redirectCount: info.redirects, timing: info.timing,
        bytesSent: info.sent)
    }

    var error: ExchangeError?
    if transfer.timedOutIdle {
      error = .transport(.timedOut, detail: "no data for \(formatSeconds(transfer.idleTimeout))")
    } else if curlCode != CURLE_OK {
      let failure = TransportFailure(curlCode: Int(curlCode.rawValue), message: errorDetail)
      if let sinkError {
        error = .transport(.cannotWriteFile, detail: sinkError)
      } else {
        error = .transport(failure, detail: errorDetail)
      }
    } else if let response {
      error = ResponseValidator.validate(response, record.request.validation)
    } else {
      error = .transport(.connectionLost, detail: "the server sent no response")
    }

    if let error {
      if let policy = record.request.retry,
        policy.shouldRetry(method: record.request.method, error: error, retriesSoFar: record.attempts - 1)
      {
        let delay = policy.delay(beforeRetry: record.attempts - 1)
        record.retryDue = monotonicNow() + delay
        waitingRetry.append(record)
        emit(.retrying(record.id, attempt: record.attempts + 1, delay: delay, reason: error))
        return
      }
      finish(record, state: .failed, response: response, error: error)
    } else {
      finish(record, state: .succeeded, response: response, error: nil)
    }
  }

  private func finish(_ record: Record, state: ExchangeState, response: Response?, error: ExchangeError?) {
    guard records.removeValue(forKey: record.id) != nil else { return }  // already ended
    let result = ExchangeResult(
      id: record.id, request: record.request, state: state, response: response, error: error,
      attempts: record.attempts, queuedAt: record.queuedAt, startedAt: record.startedAt,
      finishedAt: Date(), fromCache: false, deduplicated: false)
    publishCounts()
    emit(.finished(result))
    record.completion?(result)
  }

  private func emit(_ event: AgentEvent) {
    for subscriber in subscribers { subscriber.handler(event) }
  }

  private func publishCounts() {
    inbox.publish(queued: queue.count + waitingRetry.count, running: running.count)
  }
}

func formatSeconds(_ seconds: Double) -> String {
  seconds == seconds.rounded() ? "\(Int(seconds)) s" : String(format: "%.1f s", seconds)
}
