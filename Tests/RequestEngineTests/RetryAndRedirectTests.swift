import Foundation
@testable import RequestEngine
import TestSupport
import Testing

/// Retries and redirects in the engine: `Retry-After`, a cancel during a retry wait, a 3xx not
/// followed, a dedup waiter's first events, the umask of downloaded files.
@Suite struct RetryAndRedirectTests {
  let agent = Agent()

  /// `/flaky`: the first `failFirst` calls under a fresh key answer `code` with `Retry-After`.
  func flaky(failFirst: Int, code: Int = 503, retryAfter: String?, key: String = uniqueKey()) throws -> String {
    try fixture(
      "/flaky?key=\(key)&fail_first=\(failFirst)&code=\(code)"
        + (retryAfter.map { "&retry_after=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0) } ?? ""))
  }

  func retryDelays(_ recorder: EventRecorder, _ id: ExchangeID) -> [Double] {
    recorder.all.compactMap { if case .retrying(id, _, let delay, _) = $0 { delay } else { nil } }
  }

  func startTimes(_ recorder: EventRecorder, _ id: ExchangeID) -> [Double] {
    recorder.timed.compactMap { if case .started(id, _) = $0.event { $0.time } else { nil } }
  }

  // The demo's /flaky-demo answers 503 with `Retry-After: 1`; the retry came after the
  // backoff's 0.5 s. The server's word wins over the backoff, for 503 and 429.
  @Test(arguments: [503, 429])
  func retryAfterSecondsIsHonoured(code: Int) throws {
    let recorder = EventRecorder(agent)
    var policy = RetryPolicy(max: 2, baseDelay: 0.05)
    policy.statuses.insert(429)
    let id = agent.send(Request(url: try flaky(failFirst: 1, code: code, retryAfter: "1"), retry: policy))
    #expect(recorder.waitForFinished(count: 1))
    let result = try #require(recorder.finished.first)
    #expect(result.state == .succeeded)
    #expect(result.attempts == 2)
    #expect(retryDelays(recorder, id) == [1.0])
    let starts = startTimes(recorder, id)
    #expect(starts.count == 2)
    if starts.count == 2 { #expect(starts[1] - starts[0] >= 0.95) }
  }

  // Without Retry-After (or on another status) the backoff applies as before.
  @Test func withoutRetryAfterTheBackoffApplies() throws {
    let recorder = EventRecorder(agent)
    let id = agent.send(Request(url: try flaky(failFirst: 1, retryAfter: nil), retry: RetryPolicy(baseDelay: 0.05)))
    #expect(recorder.waitForFinished(count: 1))
    #expect(retryDelays(recorder, id) == [0.05])
    let recorder2 = EventRecorder(agent)
    let other = agent.send(
      Request(url: try flaky(failFirst: 1, code: 500, retryAfter: "7"), retry: RetryPolicy(baseDelay: 0.05)))
    #expect(recorder2.waitForFinished(count: 1))
    #expect(retryDelays(recorder2, other) == [0.05])
  }

  // The wait is capped (60 s by default), and never runs past the request's deadline.
  @Test func aLongRetryAfterIsCappedAndTheDeadlineWins() throws {
    let recorder = EventRecorder(agent)
    let capped = agent.send(
      Request(url: try flaky(failFirst: 1, retryAfter: "3600"), retry: RetryPolicy(maxRetryAfter: 0.2)))
    #expect(recorder.waitForFinished(count: 1))
    #expect(retryDelays(recorder, capped) == [0.2])
    #expect(recorder.finished.first?.state == .succeeded)
    #expect(RetryPolicy().maxRetryAfter == 60)

    var request = Request(url: try flaky(failFirst: 1, retryAfter: "30"), retry: RetryPolicy())
    request.timeouts.deadline = 5
    let started = Date()
    let result = agent.sendAndWait(request)
    #expect(Date().timeIntervalSince(started) < 4)
    #expect(result.state == .failed)
    #expect(result.attempts == 1)
    #expect(result.response?.status == 503)
    #expect(
      result.error?.message
        == "status 503 is outside 200-299 (not retried: the server's Retry-After of 30 s would pass the deadline of 5 s)")
  }

  // An HTTP-date, against the response's own Date header (curl's date parser reads all three forms).
  @Test func retryAfterDates() {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    func seconds(_ value: String, date: String? = nil) -> Double? {
      var headers: HTTPHeaders = ["Retry-After": value]
      if let date { headers["Date"] = date }
      return RetryAfter.seconds(headers, now: now)
    }
    #expect(seconds("120") == 120)
    #expect(seconds(" 0 ") == 0)
    #expect(seconds("Fri, 31 Dec 2027 23:59:59 GMT", date: "Fri, 31 Dec 2027 23:59:49 GMT") == 10)
    #expect(seconds("Friday, 31-Dec-27 23:59:59 GMT", date: "Fri, 31 Dec 2027 23:59:57 GMT") == 2)
    #expect(seconds("Fri Dec 31 23:59:59 2027", date: "Fri, 31 Dec 2027 23:59:58 GMT") == 1)
    // Without a Date header, against our clock; a date in the past is no wait.
    #expect(seconds("Fri, 15 Jan 2027 08:00:05 GMT") == 5)
    #expect(seconds("Mon, 01 Jan 2001 00:00:00 GMT") == 0)
    #expect(seconds("soon") == nil)
    #expect(seconds("-1") == nil)
    #expect(RetryAfter.seconds([:], now: now) == nil)
    let policy = RetryPolicy(baseDelay: 0.5)
    let teapot = Response(status: 418, headers: ["Retry-After": "3"])
    #expect(policy.wait(beforeRetry: 0, after: teapot).seconds == 0.5)
    let busy = Response(status: 429, headers: ["Retry-After": "3"])
    #expect(policy.wait(beforeRetry: 0, after: busy) == (3, true))
  }

  // Cancel while waiting to retry: `cancelled`, with the last response it had (the 503's
  // status, headers and body), and nothing after its one `finished` event.
  @Test func aCancelDuringARetryWaitKeepsTheLastResponse() throws {
    let recorder = EventRecorder(agent)
    let id = agent.send(Request(url: try flaky(failFirst: 5, retryAfter: "5"), retry: RetryPolicy()))
    #expect(recorder.wait { $0.contains { if case .retrying(id, _, _, _) = $0 { true } else { false } } })
    // The counts are published at the end of the engine loop's pass.
    for _ in 0..<100 where agent.activeCounts.queued != 1 { usleep(10_000) }
    #expect(agent.activeCounts.queued == 1)
    agent.cancel(id)
    #expect(recorder.waitForFinished(count: 1))
    let result = try #require(recorder.finished.first)
    #expect(result.state == .cancelled)
    #expect(result.error?.kind == .cancelled)
    #expect(result.response?.status == 503)
    #expect(result.response?.headers["Retry-After"] == "5")
    #expect(result.text == "flaky failure 1")
    #expect(result.sent?.requestLine.hasPrefix("GET /flaky?") == true)
    #expect(result.duration < 4)
    for _ in 0..<100 where agent.activeCounts.queued != 0 { usleep(10_000) }
    let events = recorder.all.filter { $0.exchangeID == id }
    if case .finished? = events.last {} else { Issue.record("events after finished: \(events)") }
    #expect(agent.activeCounts.queued == 0 && agent.activeCounts.running == 0)
  }

  // A dedup waiter of an exchange waiting to retry, cancelled: the primary's last response.
  @Test func aWaiterCancelledDuringTheRetryWaitHasItToo() throws {
    let recorder = EventRecorder(agent)
    let url = try flaky(failFirst: 5, retryAfter: "5")
    let primary = agent.send(Request(url: url, retry: RetryPolicy()))
    let waiter = agent.send(Request(url: url, retry: RetryPolicy()))
    #expect(recorder.wait { $0.contains { if case .retrying(waiter, _, _, _) = $0 { true } else { false } } })
    agent.cancel(waiter)
    agent.cancel(primary)
    #expect(recorder.waitForFinished(count: 2))
    #expect(recorder.finished.map(\.state) == [.cancelled, .cancelled])
    #expect(recorder.finished.map { $0.response?.status } == [503, 503])
  }

  // A redirect not followed is the answer (as curl without -L), unless `validate` says
  // otherwise.
  @Test func aRedirectNotFollowedIsASuccess() throws {
    let url = try fixture("/redirect-to?url=/get&status=302")
    let kept = agent.sendAndWait(Request(url: url, followRedirects: false))
    #expect(kept.state == .succeeded, "\(kept.error?.message ?? "")")
    #expect(kept.response?.status == 302)
    #expect(kept.response?.headers["Location"] == "/get")
    let strict = agent.sendAndWait(
      Request(url: url, validation: Validation(status: [200...200]), followRedirects: false))
    #expect(strict.state == .failed)
    #expect(strict.error?.message == "status 302 is outside 200")
    let followed = agent.sendAndWait(Request(url: url))
    #expect(followed.response?.status == 200)
    // Other failures are still failures.
    let missing = agent.sendAndWait(Request(url: try fixture("/status/404"), followRedirects: false))
    #expect(missing.error?.message == "status 404 is outside 200-399")
  }

  // A waiter shows its primary's status and its `dedup` nature from the start: `joined`
  // right after `queued`, then the primary's `started`, `headers` and latest `progress`.
  @Test func aDedupWaiterGetsThePrimarysHeadersAtOnce() throws {
    let recorder = EventRecorder(agent)
    let url = try fixture("/drip?bytes=30&interval=0.05&key=" + uniqueKey())
    let primary = agent.send(Request(url: url))
    #expect(recorder.wait { $0.contains { if case .progress(primary, _) = $0 { true } else { false } } })
    let waiter = agent.send(Request(url: url))
    #expect(recorder.waitForFinished(count: 2))
    let kinds = recorder.all.filter { $0.exchangeID == waiter }.map { event -> String in
      switch event {
      case .queued: "queued"
      case .joined(_, let of): of == primary ? "joined" : "joined another"
      case .started: "started"
      case .headers(_, let status, _): "headers \(status)"
      case .progress: "progress"
      default: "other"
      }
    }
    #expect(Array(kinds.prefix(5)) == ["queued", "joined", "started", "headers 200", "progress"])
    #expect(recorder.finished.first { $0.id == waiter }?.deduplicated == true)
  }

  // A downloaded file is created with the umask, as curl creates it; the state stays 0600.
  @Test func downloadedFilesFollowTheUmask() throws {
    let folder = scratchURL("reqbench-umask").path
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let store = DownloadStore(directory: folder + "/state")
    let agent = Agent(configuration: Agent.Configuration(downloads: store))
    let mask = umask(0o022)
    umask(mask)
    let target = folder + "/out/file.bin"
    let recorder = EventRecorder(agent)
    let id = agent.send(Request(url: try fixture("/bytes/400000?rate=800000"), download: DownloadTarget(path: target)))
    #expect(recorder.wait { $0.contains { if case .progress(id, let p) = $0 { p.downloaded > 50_000 } else { false } } })
    let key = store.key(method: .GET, target: target)
    #expect(mode(store.sidecarPath(key)) == 0o600)
    #expect(recorder.waitForFinished(count: 1))
    #expect(recorder.finished.first?.state == .succeeded)
    #expect(mode(target) == 0o666 & ~mask)
  }

  func mode(_ path: String) -> mode_t? {
    var info = stat()
    return stat(path, &info) == 0 ? info.st_mode & 0o777 : nil
  }
}
