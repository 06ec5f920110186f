import Foundation
import RequestEngine
import Synchronization
import Workspace

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A finished exchange made ready to store: the entry (its row), the request body and where
/// the response body goes, with the request's secrets masked everywhere before anything is
/// written: the request as `redacted()`, and the secrets in the response headers, the effective
/// URL, the error message and both bodies (`SecretMasker`; a spilled body as it is copied).
struct HistoryRecord {
  var entry: HistoryEntry
  /// The request body as stored (secrets masked).
  var requestBody: [UInt8]
  var responseBody: Body

  enum Body {
    case none
    /// Kept in the database (at most the inline limit).
    case inline([UInt8])
    /// A masked body in memory for `KEY.body`.
    case file([UInt8])
    /// A spilled body to copy to `KEY.body`, masked on the way (the copy gives the stored size).
    case spilled(SpilledFile, SecretMasker)
  }

  init(_ result: ExchangeResult, name: String, limits: HistoryStore.Limits) {
    // Cookie values are session tokens: history keeps the names only.
    let result = result.cookiesMasked
    let secrets = result.request.secrets
    let redaction = Redaction(secrets: secrets)
    let request = result.request.redacted()
    requestBody = SecretMasker.masked(request.body.bytes, secrets: secrets)

    var storage = HistoryEntry.ResponseBodyStorage.inline
    var storedBodyBytes = 0
    responseBody = .none
    if let body = result.response?.body {
      if body.count > limits.totalBytes {
        storage = .dropped
      } else {
        // A server may echo a secret back (an echo endpoint, an error page quoting the request):
        // history keeps the body with the request's secrets masked, and records its stored size
        // beside the received one.
        var inMemory: [UInt8]?
        switch body {
        case .memory(let received): inMemory = received
        case .file(let file):
          if file.size > limits.inlineBodyLimit {
            storage = .file
            storedBodyBytes = file.size
            responseBody = .spilled(file, SecretMasker(secrets: secrets))
          } else {
            inMemory = (try? body.bytes()) ?? []
          }
        }
        if let received = inMemory {
          let bytes = SecretMasker.masked(received, secrets: secrets)
          storedBodyBytes = bytes.count
          if bytes.count > limits.inlineBodyLimit {
            storage = .file
            responseBody = .file(bytes)
          } else if !bytes.isEmpty {
            responseBody = .inline(bytes)
          }
        }
      }
    }

    let response = result.response
    var responseHeaders = HTTPHeaders()
    if secrets.isEmpty {
      responseHeaders = response?.headers ?? HTTPHeaders()
    } else {
      for field in response?.headers.fields ?? [] {
        responseHeaders.add(field.name, redaction.apply(field.value))
      }
    }
    entry = HistoryEntry(
      id: Self.key(finishedAt: result.finishedAt, exchange: result.id), name: name,
      exchangeID: result.id, date: result.finishedAt, queuedAt: result.queuedAt,
      startedAt: result.startedAt, method: request.method, url: request.url,
      requestHeaders: request.headers,
      requestContentType: request.body.contentType.map(redaction.apply),
      requestBodyBytes: requestBody.count, state: result.state, status: response?.status,
      httpVersion: response?.httpVersion, responseHeaders: responseHeaders,
      effectiveURL: response.map { redaction.apply($0.effectiveURL) },
      redirectCount: response?.redirectCount ?? 0, timing: response?.timing,
      bytesSent: response?.bytesSent ?? 0, bytes: response?.body.count ?? 0,
      storedBodyBytes: storedBodyBytes, bodyKept: storage != .dropped,
      error: result.error.map {
        ExchangeError(
          kind: $0.kind, message: redaction.apply($0.message), status: $0.status,
          path: $0.path.map(redaction.apply))
      },
      attempts: result.attempts, fromCache: result.fromCache, deduplicated: result.deduplicated,
      storedBytes: 0, storage: HistoryEntry.Storage(row: 0, responseBody: storage))
    // The engine masked the head already; masking again costs nothing and keeps history safe
    // whatever filled it.
    entry.sentHead = result.sent.map { secrets.isEmpty ? $0.head : redaction.apply($0.head) }
    entry.storedBytes = Self.storedBytes(of: entry)
  }

  init(entry: HistoryEntry, requestBody: [UInt8], responseBody: Body) {
    self.entry = entry
    self.requestBody = requestBody
    self.responseBody = responseBody
    self.entry.storedBytes = Self.storedBytes(of: entry)
  }

  /// What an entry counts against `Limits.totalBytes`: its text columns, a fixed 128 bytes for
  /// the numbers and the row, and its bodies.
  static func storedBytes(of entry: HistoryEntry) -> Int {
    var text = entry.id.utf8.count + entry.name.utf8.count + entry.url.utf8.count
    // The headers' text (`HistoryRow.appendHeaderText`) without making it: `Name: value` lines.
    for field in entry.requestHeaders.fields { text += field.name.utf8.count + field.value.utf8.count + 3 }
    for field in entry.responseHeaders.fields { text += field.name.utf8.count + field.value.utf8.count + 3 }
    text += (entry.effectiveURL?.utf8.count ?? 0) + (entry.error?.message.utf8.count ?? 0)
    text += (entry.requestContentType?.utf8.count ?? 0) + (entry.httpVersion?.utf8.count ?? 0)
    text += entry.sentHead?.utf8.count ?? 0
    return 128 + text + entry.requestBodyBytes + entry.storedBodyBytes
  }

  /// `20261130T014636.123456Z-42-9f3a61c0`: sortable by time, unique across processes (the
  /// last part differs between processes, and between keys of one process).
  private static let hexDigits = Array("0123456789abcdef".utf8)

  static func key(finishedAt: Date, exchange: ExchangeID) -> String {
    let seconds = min(max(0, finishedAt.timeIntervalSince1970), HistoryRow.latestTime)
    var whole = time_t(seconds.rounded(.down))
    var micros = Int(((seconds - Double(whole)) * 1_000_000).rounded())
    if micros >= 1_000_000 {
      whole += 1
      micros -= 1_000_000
    }
    var parts = tm()
    gmtime_r(&whole, &parts)
    // Written digit by digit: this runs for every exchange recorded.
    var key: [UInt8] = []
    key.reserveCapacity(56)
    func digits(_ value: Int, _ width: Int) {
      var divisor = 1
      for _ in 1..<width { divisor *= 10 }
      var rest = value
      while divisor > 0 {
        key.append(0x30 + UInt8(rest / divisor % 10))
        rest %= divisor
        divisor /= 10
      }
    }
    digits(Int(parts.tm_year) + 1900, 4)
    digits(Int(parts.tm_mon) + 1, 2)
    digits(Int(parts.tm_mday), 2)
    key.append(UInt8(ascii: "T"))
    digits(Int(parts.tm_hour), 2)
    digits(Int(parts.tm_min), 2)
    digits(Int(parts.tm_sec), 2)
    key.append(UInt8(ascii: "."))
    digits(micros, 6)
    key.append(UInt8(ascii: "Z"))
    key.append(UInt8(ascii: "-"))
    key.append(contentsOf: String(exchange.rawValue).utf8)
    key.append(UInt8(ascii: "-"))
    // An odd step visits every 32-bit value before one comes back.
    let random = keyTags.wrappingAdd(0x9E37_79B9, ordering: .relaxed).newValue
    for shift in stride(from: 28, through: 0, by: -4) {
      key.append(Self.hexDigits[Int(random >> UInt32(shift) & 0xF)])
    }
    return String(decoding: key, as: UTF8.self)
  }
}

/// The last part of the keys: a random start per process, then the next value for each key (one
/// random number per process, not a system call per exchange recorded).
private let keyTags = Atomic<UInt32>(UInt32.random(in: .min ... .max))
