import Base
import CommandLineSupport
import Foundation
import RequestEngine

/// The text of `run`'s lines: a finished exchange's line, its failure and notes, the progress
/// line's parts and the summary's counts (the reporters in Reporters.swift print them).
enum Format {
  /// `files/big  43%  430.0 MB of 1.0 GB  52.0 MB/s  ETA 11.00 s` (uploads with ⇡).
  static func progressLine(name: String, _ p: TransferProgress) -> String {
    var line = name
    if let fraction = p.fraction { line += "  \(Int(fraction * 100))%" }
    if p.isUploading, let total = p.uploadTotal {
      line += "  ⇡ \(bytes(Int(p.uploaded))) of \(bytes(Int(total)))"
    } else {
      line += "  \(bytes(Int(p.downloaded)))" + (p.downloadTotal.map { " of " + bytes(Int($0)) } ?? "")
    }
    if let speed = p.bytesPerSecond, speed > 0 {
      line += "  \(bytes(Int(speed)))/s"
      if let left = p.secondsLeft { line += "  ETA \(milliseconds(left * 1000))" }
    }
    return line
  }

  static func reconnectEvent(name: String, id: ExchangeID, count: Int, delay: Double, reason: ExchangeError) -> JSONObject {
    JSONObject([
      ("event", "reconnecting"), ("name", .string(name)), ("id", .number(Int(id.rawValue))),
      ("reconnect", .number(count)), ("delayMs", .number(delay * 1000)), ("reason", .string(reason.message)),
    ])
  }

  /// `ticker: the server ended the stream; reconnect 2 in 3 s`, on stderr; `(5 since the last
  /// line)` when reconnects went untold in between (`ReconnectLines`).
  static func reconnectLine(name: String, count: Int, delay: Double, reason: ExchangeError, untold: Int = 0) -> String {
    "\(name): \(reason.message); reconnect \(count) in \(Formatting.retryDelay(delay))"
      + (untold > 0 ? " (\(untold + 1) since the last line)" : "")
  }

  /// `"stream": {"format": "sse", "events": 142, "kept": 142, "lastEventId": "141", "reconnects": 0}`
  /// for a streamed response.
  static func streamMember(_ stream: StreamLog?) -> [(key: String, value: JSONValue)] {
    guard let stream else { return [] }
    return [("stream", .object(JSONObject([
      ("format", .string(stream.format.rawValue)), ("events", .number(stream.total)),
      ("kept", .number(stream.total - stream.dropped)), ("lastEventId", stream.lastEventID.map { .string($0) } ?? .null),
      ("reconnects", .number(stream.reconnects)),
    ])))]
  }

  /// `flaky: status 503 is outside 200-299; retrying in 1.0 s (attempt 2)`: what a retry waits
  /// for, on stderr.
  static func retryLine(name: String, attempt: Int, delay: Double, reason: ExchangeError) -> String {
    "\(name): \(reason.message); retrying in \(Formatting.retryDelay(delay)) (attempt \(attempt))"
  }

  static func json(_ result: RunResult) -> JSONObject {
    var error: JSONValue = .null
    if let e = result.error {
      var object = JSONObject([("kind", .string(e.kind)), ("message", .string(e.message))])
      if let path = e.path { object["path"] = .string(path) }
      error = .object(object)
    }
    return JSONObject([
      ("name", .string(result.name)),
      ("state", .string(result.state.rawValue)),
      ("status", result.status.map { .number($0) } ?? .null),
      ("bytes", .number(result.bytes)),
      ("durationMs", .number(result.durationMs)),
      ("fromCache", .bool(result.exchange?.fromCache ?? false)),
      ("deduplicated", .bool(result.exchange?.deduplicated ?? false)),
      ("attempts", .number(result.exchange?.attempts ?? 0)),
      ("url", result.url.map { .string($0) } ?? .null),
      ("error", error),
    ] + cacheMember(result.exchange?.cache) + downloadMembers(result.exchange?.download)
      + streamMember(result.exchange?.stream)
      + (result.exchange.map { [("sent", $0.sent.map(sent) ?? .null)] } ?? []))
  }

  /// `"sent"`: the request as curl sent it (`http -v`'s top half), secrets masked:
  /// `{"request": "GET /users/1 HTTP/1.1", "headers": [{"name": "Host", "value": "…"}, …],
  /// "body": null | {"bytes": N, "text": "…"[, "truncated": true]} | {"bytes": N, "binary": true}
  /// | {"file": PATH, "bytes": N} | {"multipart": [{"name": …, "value" | "file": …}, …]},
  /// "requests": 1}` (more requests after redirects: the last one is shown).
  static func sent(_ sent: SentRequest) -> JSONValue {
    let headers = sent.headers.map { JSONValue.object(JSONObject([("name", .string($0.name)), ("value", .string($0.value))])) }
    var body: JSONValue = .null
    switch sent.body {
    case .none:
      break
    case .bytes(let bytes, let total):
      var object = JSONObject([("bytes", .number(total))])
      if let text = String(validating: bytes, as: UTF8.self) {
        object["text"] = .string(text)
        if bytes.count < total { object["truncated"] = .bool(true) }
      } else {
        object["binary"] = .bool(true)
      }
      body = .object(object)
    case .file(let path, let size):
      body = .object(JSONObject([("file", .string(relativePath(path))), ("bytes", .number(Int(size)))]))
    case .multipart(let parts):
      body = .object(JSONObject([("multipart", .array(parts.map { part in
        var object = JSONObject([("name", .string(part.name))])
        if let value = part.value { object["value"] = .string(value) }
        if let file = part.file { object["file"] = .string(relativePath(file)) }
        if let filename = part.filename { object["filename"] = .string(filename) }
        if let type = part.contentType { object["type"] = .string(type) }
        return .object(object)
      }))]))
    }
    return .object(JSONObject([
      ("request", .string(sent.requestLine)), ("headers", .array(headers)), ("body", body),
      ("requests", .number(sent.count)),
    ]))
  }

  /// `"file"`, `"resumedFrom"`, `"restartReason"`, `"resumable"` and `"totalBytes"` for downloads
  /// (`"bytes"` is then the bytes on disk).
  static func downloadMembers(_ download: DownloadOutcome?) -> [(key: String, value: JSONValue)] {
    guard let download else { return [] }
    return [
      ("file", .string(download.file)),
      ("resumedFrom", .number(Int(download.resumedFrom))),
      ("restartReason", download.restartReason.map { .string($0.rawValue) } ?? .null),
      ("resumable", .bool(download.resumable)),
      ("totalBytes", download.totalBytes.map { .number(Int($0)) } ?? .null),
    ]
  }

  /// `"cache": {"hit": true, "reason": "fresh", "ageSeconds": 42.0, …}` for requests with a policy.
  static func cacheMember(_ cache: CacheOutcome?) -> [(key: String, value: JSONValue)] {
    guard let cache else { return [] }
    var object = JSONObject([
      ("hit", .bool(cache.hit)), ("reason", .string(cache.reason.rawValue)),
      ("ageSeconds", cache.ageSeconds.map { .number(($0 * 10).rounded() / 10) } ?? .null),
    ])
    if cache.stale { object["stale"] = .bool(true) }
    if let because = cache.staleBecause { object["staleBecause"] = .string(because) }
    if cache.revalidated { object["revalidated"] = .bool(true) }
    if cache.stored { object["stored"] = .bool(true) }
    return [("cache", .object(object))]
  }

  /// `get-user: 200 OK, 412 B in 3.1 ms`, or on failure what happened and where:
  /// `broken: failed: status 500 is outside 200-299 (http://…/status/500); 500 Internal Server Error, 21 B in 2.0 ms`
  /// or `down: failed: cannot connect (http://127.0.0.1:1/x)`.
  static func statusLine(_ result: RunResult) -> String {
    let size = "\(bytes(result.bytes)) in \(milliseconds(result.durationMs))"
    if let download = result.exchange?.download { return downloadLine(result, download) }
    switch result.state {
    case .succeeded:
      return "\(result.name): \(statusText(result.status)), \(size)" + (note(result).map { " (\($0))" } ?? "")
    case .cancelled:
      return "\(result.name): cancelled"
    default:
      let failure = "\(result.name): failed: \(failureText(result))"
      return result.status == nil ? failure : failure + "; \(statusText(result.status)), \(size)"
    }
  }

  /// The error's message and the URL it happened at (`RunResult.url`, redacted like every URL
  /// reqbench prints): `status 500 is outside 200-299 (http://127.0.0.1:8080/status/500)`.
  static func failureText(_ result: RunResult) -> String {
    (result.error?.message ?? "failed") + (result.url.map { " (\($0))" } ?? "")
  }

  /// `files/big: 200 OK, saved 1.0 GB to downloads/big.bin in 3.2 s, resumed from 400.0 MB`, or
  /// `files/big: cancelled at 43% (430.0 MB of 1.0 GB kept); run it again to resume`.
  static func downloadLine(_ result: RunResult, _ download: DownloadOutcome) -> String {
    let file = relativePath(download.file)
    var extras: [String] = []
    if download.resumedFrom > 0 { extras.append("resumed from \(bytes(Int(download.resumedFrom)))") }
    if let reason = download.restartReason { extras.append("started over: \(reason.rawValue)") }
    let tail = extras.isEmpty ? "" : ", " + extras.joined(separator: ", ")
    if result.state == .succeeded {
      return "\(result.name): \(statusText(result.status)), saved \(bytes(result.bytes)) to \(file) in \(milliseconds(result.durationMs))\(tail)"
    }
    var line = "\(result.name): " + (result.state == .cancelled ? "cancelled" : "failed: " + (result.error?.message ?? "failed"))
    if download.resumable {
      let of = download.totalBytes.map { " of " + bytes(Int($0)) } ?? ""
      line += download.percent.map { " at \(Int($0))%" } ?? ""
      line += " (\(bytes(Int(download.bytes)))\(of) kept); run it again to resume"
    }
    return line + tail
  }

  /// `path` relative to the current folder when it is inside it.
  static func relativePath(_ path: String) -> String {
    let here = FileManager.default.currentDirectoryPath + "/"
    return path.hasPrefix(here) ? String(path.dropFirst(here.count)) : path
  }

  /// `✓ 200  get-user   412 B   3.1 ms` for the several-targets listing; a failure ends with what
  /// happened and where: `✗ 500  broken   10 B   2.0 ms  status 500 is outside 200-299 (http://…)`.
  static func line(_ result: RunResult) -> String {
    let mark: String
    switch result.state {
    case .succeeded: mark = "✓"
    case .cancelled: mark = "⊘"
    default: mark = "✗"
    }
    // Gathered as bytes and made a string once (interpolation, padded copies and appending to a
    // String piece by piece were most of the cost of a line; `run` prints one per exchange).
    var bytes: [UInt8] = []
    bytes.reserveCapacity(64 + result.name.utf8.count)
    func pad(_ spaces: Int) { bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: max(0, spaces))) }
    bytes.append(contentsOf: mark.utf8)
    bytes.append(UInt8(ascii: " "))
    bytes.append(contentsOf: (result.status.map { String($0) } ?? "---").utf8)
    pad(2)
    bytes.append(contentsOf: result.name.utf8)
    pad(20 - result.name.count)
    pad(2)
    let size = Self.bytes(result.bytes)
    pad(9 - size.utf8.count)  // sizes and durations are ASCII
    bytes.append(contentsOf: size.utf8)
    pad(2)
    let time = milliseconds(result.durationMs)
    pad(9 - time.utf8.count)
    bytes.append(contentsOf: time.utf8)
    var line = String(decoding: bytes, as: UTF8.self)
    if result.state == .cancelled {
      line += "  cancelled"
    } else if result.error != nil {
      line += "  " + failureText(result)
    } else if let note = note(result) {
      line += "  " + note
    }
    return line
  }

  /// Where a success came from when not simply from the network: `from cache, 42 s old`,
  /// `stale from cache, 3 min old: the network failed: status 503 is outside 200-299`,
  /// `revalidated (304)`, `shared with an identical request in flight`.
  static func note(_ result: RunResult) -> String? {
    guard let exchange = result.exchange, exchange.fromCache || exchange.deduplicated else { return nil }
    var notes: [String] = []
    if exchange.fromCache, let cache = exchange.cache {
      let age = cache.ageSeconds.map { ", " + Formatting.age($0) + " old" } ?? ""
      if cache.stale {
        notes.append("stale from cache\(age)" + (cache.staleBecause.map { ": the network failed: " + $0 } ?? ""))
      } else if cache.revalidated {
        notes.append("from cache, revalidated (304)")
      } else {
        notes.append("from cache\(age)")
      }
    }
    if exchange.deduplicated { notes.append("shared with an identical request in flight") }
    return notes.isEmpty ? nil : notes.joined(separator: "; ")
  }

  /// `3 succeeded, 1 failed, 0 cancelled`: the summary line on stderr.
  static func counts(_ states: [ExchangeState]) -> String {
    let failed = states.count { $0 != .succeeded && $0 != .cancelled }
    return "\(states.count { $0 == .succeeded }) succeeded, \(failed) failed, \(states.count { $0 == .cancelled }) cancelled"
  }

  static func statusText(_ status: Int?) -> String { Formatting.status(status) }
  static func bytes(_ count: Int) -> String { Formatting.bytes(count) }
  static func milliseconds(_ ms: Double) -> String { Formatting.milliseconds(ms) }
}

/// Which reconnects of a stream `run` tells on stderr: the first, then one line at most every
/// `interval` seconds per exchange, saying how many came since. A stream that drops at once and
/// asks for no wait reconnects a few times a second (`ReconnectDelay`); one line each would bury
/// the terminal.
struct ReconnectLines {
  static let interval = 5.0
  private var told: [ExchangeID: (at: Double, count: Int)] = [:]

  /// The line for this reconnect, or nil when it goes untold.
  mutating func line(
    id: ExchangeID, name: String, count: Int, delay: Double, reason: ExchangeError, now: Double = MonotonicClock.now()
  ) -> String? {
    if let last = told[id], now - last.at < Self.interval { return nil }
    let untold = told[id].map { max(0, count - $0.count - 1) } ?? max(0, count - 1)
    told[id] = (now, count)
    return Format.reconnectLine(name: name, count: count, delay: delay, reason: reason, untold: untold)
  }
}

extension String {
  func leftPad(_ width: Int, _ pad: Character = "0") -> String {
    count >= width ? self : String(repeating: pad, count: width - count) + self
  }
}
