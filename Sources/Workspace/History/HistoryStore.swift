import Foundation
import RequestEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Every finished exchange of a workspace, kept on disk in its state folder and bounded per
/// request and in total size, oldest dropped first. Safe to use from several threads.
///
/// ```swift
/// let state = StateFolder.url(forWorkspace: workspaceURL, override: nil)
/// let history = HistoryStore(folder: StateFolder.history(in: state))
/// try history.record(result, name: "get-user")
/// let latest = history.entries(for: "get-user").first
/// let body = try latest.map { try history.body(of: $0) }
/// ```
///
/// ## On disk
///
/// ```text
/// history/
///   users%2Fget/                                  one folder per request name, percent-encoded
///     20261130T014636.123456Z-42-9f3a61c0.entry   one file per exchange
///     20261130T014701.002115Z-57-0c1d2e3f.entry
///     20261130T014701.002115Z-57-0c1d2e3f.body    its response body, when above 1 MB
/// ```
/// An entry file is one line of JSON (the metadata, see `HistoryEntry.metadataLine()`), a
/// newline, the request body as sent, then the response body as received when it is at most
/// `Limits.inlineBodyLimit`; a larger body goes to `ID.body` (a spilled body is copied there in
/// chunks, never loaded whole). So one exchange is one file in the usual case, and listing reads
/// only each file's first line: bodies are read when asked for, with `body(of:)`.
///
/// Secrets: the request is stored as `request.redacted()`, and the request's secret values are
/// masked in the response headers, the effective URL, the error message and the response body
/// too (`SecretMasker`; a spilled body as it is copied, chunk by chunk). A masked body's size
/// differs from the received one: the entry records both (`bytes`, `storedBodyBytes`).
///
/// Every file is written atomically (a temporary `.NAME.tmp-…` file, then a rename), the body
/// file before the entry file that refers to it, so killing the process at any moment leaves
/// whole entries only. Each file is fsynced before its rename (and the folder after it), like
/// every state file: a power loss leaves the old history or the new entry, never a damaged one.
/// `recordInBackground` keeps the fsyncs off the caller's thread. The first use scans the folder once into an in-memory index (kept up to date by
/// `record`): entry files that cannot be read, are truncated or lack their body file are ignored
/// and removed, and so are temporary files and body files without an entry once they are an
/// hour old (younger ones may belong to a write in progress in another process). Entries written
/// by a newer format version are left alone.
public final class HistoryStore: @unchecked Sendable {
  /// How much history is kept.
  public struct Limits: Sendable, Equatable {
    /// Entries kept per request name; the oldest are dropped beyond it. 0 records nothing.
    public var perRequest: Int
    /// Bytes on disk over all requests; the oldest entries are dropped beyond it.
    public var totalBytes: Int
    /// Response bodies up to this size are kept in the entry file, larger ones in a file of
    /// their own.
    public var inlineBodyLimit: Int

    public init(perRequest: Int = 50, totalBytes: Int = 200 << 20, inlineBodyLimit: Int = 1 << 20) {
      self.perRequest = max(0, perRequest)
      self.totalBytes = max(0, totalBytes)
      self.inlineBodyLimit = max(0, inlineBodyLimit)
    }
  }

  static let entrySuffix = ".entry"
  static let bodySuffix = ".body"
  /// The longest metadata line read; a longer one is treated as corrupt.
  static let metadataLimit = 8 << 20

  /// The history folder (`STATE/history`).
  public let folder: URL
  public let limits: Limits
  /// Temporary and orphaned body files younger than this are left alone by the scan: they may
  /// belong to a write in progress in another process.
  let strayFileGrace: TimeInterval

  private let lock = NSLock()
  /// Empty until the first use scans the folder (`loaded`).
  private var index = Index()
  private var loaded = false
  /// Runs `recordInBackground`'s work, in order.
  private let background = DispatchQueue(label: "reqbench.history")

  /// A store over `folder` (`StateFolder.history(in:)`). Nothing is read or created until the
  /// first call.
  public convenience init(folder: URL, limits: Limits = Limits()) {
    self.init(folder: folder, limits: limits, strayFileGrace: 3600)
  }

  init(folder: URL, limits: Limits, strayFileGrace: TimeInterval) {
    self.folder = folder.standardizedFileURL
    self.limits = limits
    self.strayFileGrace = strayFileGrace
  }

  // MARK: - Reading

  /// The recorded exchanges of the request `name` (of every request when nil), newest first.
  /// Metadata only: no body is read.
  public func entries(for name: String? = nil) -> [HistoryEntry] {
    lock.withLock {
      let index = loadedIndex()
      if let name { return index.byName[name, default: []].reversed() }
      return index.byName.values.joined().sorted(by: HistoryEntry.newerFirst)
    }
  }

  /// The names that have history, sorted.
  public var names: [String] {
    lock.withLock { loadedIndex().byName.keys.sorted() }
  }

  /// Bytes the history takes on disk (what `Limits.totalBytes` bounds).
  public var totalBytes: Int {
    lock.withLock { loadedIndex().totalBytes }
  }

  /// The response body of `entry` as stored (`storedBodyBytes` long): as received, except that
  /// the request's secrets are masked. Empty when there was none; an error when it was not kept
  /// (`bodyKept` is false) or its files are gone (the entry was dropped since).
  public func body(of entry: HistoryEntry) throws(FileError) -> [UInt8] {
    try body(of: entry, range: 0..<entry.storedBodyBytes)
  }

  /// A slice of the stored response body of `entry`, read without loading the rest (for paging a
  /// large body). The range is clamped to the body.
  public func body(of entry: HistoryEntry, range: Range<Int>) throws(FileError) -> [UInt8] {
    let lower = min(max(0, range.lowerBound), entry.storedBodyBytes)
    let upper = min(max(lower, range.upperBound), entry.storedBodyBytes)
    switch entry.location.responseBody {
    case .dropped:
      throw FileError(
        path: entry.entryPath,
        message: "the response body of \(entry.name) (\(entry.bytes) bytes) was not kept: "
          + "it is larger than the history may hold (\(limits.totalBytes) bytes)",
        reason: "not kept")
    case .inline:
      if upper == lower { return [] }
      let offset = entry.location.requestBodyOffset + entry.requestBodyBytes + lower
      return try HistoryFiles.read(entry.entryPath, offset: offset, count: upper - lower)
    case .file:
      if upper == lower { return [] }
      return try HistoryFiles.read(entry.bodyPath, offset: lower, count: upper - lower)
    }
  }

  /// The request body of `entry` as sent (secrets masked).
  public func requestBody(of entry: HistoryEntry) throws(FileError) -> [UInt8] {
    guard entry.requestBodyBytes > 0 else { return [] }
    return try HistoryFiles.read(
      entry.entryPath, offset: entry.location.requestBodyOffset, count: entry.requestBodyBytes)
  }

  /// The request of `entry` as it was sent, to send again: method, URL, headers and body. Secrets
  /// are still masked (`••••`), so fill them in (or prepare the request anew from the workspace)
  /// before sending; timeouts, validation and retries are the defaults.
  public func request(of entry: HistoryEntry) throws(FileError) -> Request {
    let bytes = try requestBody(of: entry)
    let body =
      bytes.isEmpty && entry.requestContentType == nil
      ? RequestBody.empty : RequestBody(bytes: bytes, contentType: entry.requestContentType)
    return Request(
      name: entry.name, method: entry.method, url: entry.url, headers: entry.requestHeaders,
      body: body)
  }

  // MARK: - Recording

  /// Records a finished exchange of the request `name`, then drops the oldest entries of `name`
  /// beyond `Limits.perRequest` and the oldest overall while the history is larger than
  /// `Limits.totalBytes`. Cancelled exchanges are recorded too.
  ///
  /// The request is stored as `result.request.redacted()`; the request's secrets are masked in
  /// the response headers and body as well. A body larger than `totalBytes` is not stored (the
  /// entry says so); a spilled body is copied from its file in chunks, masked on the way.
  public func record(_ result: ExchangeResult, name: String) throws(FileError) {
    guard limits.perRequest > 0 else { return }
    var prepared = prepare(result, name: name)
    let entry = prepared.entry

    try HistoryFiles.makeFolder(URL(fileURLWithPath: entry.location.folder, isDirectory: true))
    if let spilled = prepared.spilledBody {
      let written = try HistoryFiles.copyAtomically(
        from: spilled.path, to: URL(fileURLWithPath: entry.bodyPath),
        permissions: HistoryFiles.fileMode,
        masking: SecretMasker(secrets: result.request.secrets))
      if written != entry.storedBodyBytes {
        // The copy masked a secret: the entry records the size of what was written.
        var stored = entry
        stored.storedBodyBytes = written
        (prepared.entry, prepared.entryFile) = Self.encode(
          stored, requestBody: prepared.requestBody, inlineBody: [])
      }
    } else if let separateBody = prepared.separateBody {
      try AtomicFile.write(
        separateBody, to: URL(fileURLWithPath: entry.bodyPath), permissions: HistoryFiles.fileMode)
    }
    do {
      try AtomicFile.write(
        prepared.entryFile, to: URL(fileURLWithPath: entry.entryPath),
        permissions: HistoryFiles.fileMode)
    } catch {
      if entry.location.responseBody == .file { HistoryFiles.remove(entry.bodyPath) }
      throw error
    }

    var recorded = prepared.entry
    recorded.storedBytes =
      prepared.entryFile.count
      + (recorded.location.responseBody == .file ? recorded.storedBodyBytes : 0)
    let dropped: [HistoryEntry] = lock.withLock {
      loadIfNeeded()
      index.insert(recorded)
      return index.prune(name: name, limits: limits)
    }
    for old in dropped { Self.removeFiles(of: old) }
  }

  /// Records `result` on the store's own queue, in the order of the calls, so the caller does
  /// not wait for the disk (each file of an entry is fsynced before its rename). `failed` is called on that queue when a
  /// record cannot be written. The result (and so a spilled body's file) is kept until then.
  public func recordInBackground(
    _ result: ExchangeResult, name: String,
    failed: @escaping @Sendable (FileError) -> Void = { _ in }
  ) {
    background.async {
      do throws(FileError) {
        try self.record(result, name: name)
      } catch {
        failed(error)
      }
    }
  }

  /// Waits until every `recordInBackground` call made so far has finished.
  public func waitForBackgroundRecords() {
    background.sync {}
  }

  /// What `record` writes for one exchange.
  private struct PreparedRecord {
    var entry: HistoryEntry
    /// The entry file: metadata line, request body, inline response body.
    var entryFile: [UInt8]
    /// The request body as stored (secrets masked).
    var requestBody: [UInt8]
    /// A spilled response body to copy to `ID.body`.
    var spilledBody: SpilledFile?
    /// A response body in memory to write to `ID.body`.
    var separateBody: [UInt8]?
  }

  private func prepare(_ result: ExchangeResult, name: String) -> PreparedRecord {
    let redaction = Redaction(secrets: result.request.secrets)
    let request = result.request.redacted()
    let requestBody = SecretMasker.masked(request.body.bytes, secrets: result.request.secrets)

    let id = Self.entryID(finishedAt: result.finishedAt, exchange: result.id)
    var storage = HistoryEntry.ResponseBodyStorage.inline
    var spilled: SpilledFile?
    var inlineBody: [UInt8] = []
    var separateBody: [UInt8]?
    var storedBodyBytes = 0
    if let body = result.response?.body {
      if body.count > limits.totalBytes {
        storage = .dropped
      } else {
        switch body {
        case .file(let file):
          // Masked as it is copied; `record` corrects the stored size if that changes it.
          storage = .file
          spilled = file
          storedBodyBytes = file.size
        case .memory(let received):
          // A server may echo a secret back (an echo endpoint, an error page quoting the
          // request): history keeps the body with the request's secrets masked. The entry
          // records the stored (masked) size beside the received one: the scan checks the files
          // against it.
          let bytes = SecretMasker.masked(received, secrets: result.request.secrets)
          storedBodyBytes = bytes.count
          if bytes.count > limits.inlineBodyLimit {
            storage = .file
            separateBody = bytes
          } else {
            inlineBody = bytes
          }
        }
      }
    }

    let response = result.response
    let entry = HistoryEntry(
      id: id, name: name, exchangeID: result.id, date: result.finishedAt,
      queuedAt: result.queuedAt, startedAt: result.startedAt, method: request.method,
      url: request.url, requestHeaders: request.headers,
      requestContentType: request.body.contentType.map(redaction.apply),
      requestBodyBytes: requestBody.count, state: result.state, status: response?.status,
      httpVersion: response?.httpVersion,
      responseHeaders: Self.masked(response?.headers, redaction),
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
      storedBytes: 0,
      location: HistoryEntry.Location(
        folder: folder.path + "/" + Self.folderName(for: name), requestBodyOffset: 0,
        responseBody: storage))

    let (indexed, entryFile) = Self.encode(entry, requestBody: requestBody, inlineBody: inlineBody)
    return PreparedRecord(
      entry: indexed, entryFile: entryFile, requestBody: requestBody, spilledBody: spilled,
      separateBody: separateBody)
  }

  /// The entry file of `entry`, and the entry as a later scan reads it back (dates as stored,
  /// offsets), which the index holds so both agree.
  private static func encode(_ entry: HistoryEntry, requestBody: [UInt8], inlineBody: [UInt8])
    -> (HistoryEntry, [UInt8])
  {
    let line = Array(entry.metadataLine().utf8)
    var entryFile = line
    entryFile.append(0x0A)
    entryFile.append(contentsOf: requestBody)
    entryFile.append(contentsOf: inlineBody)
    var indexed = entry
    if case .entry(let stored) = HistoryEntry.decode(
      line: line, id: entry.id, folder: entry.location.folder)
    {
      indexed = stored
    }
    return (indexed, entryFile)
  }

  /// Response headers with the request's secrets masked, every field kept (`Set-Cookie`).
  private static func masked(_ headers: HTTPHeaders?, _ redaction: Redaction) -> HTTPHeaders {
    var masked = HTTPHeaders()
    for field in headers?.fields ?? [] { masked.add(field.name, redaction.apply(field.value)) }
    return masked
  }

  // MARK: - Names

  /// `20261130T014636.123456Z-42-9f3a61c0`: sortable by time, unique across processes.
  static func entryID(finishedAt: Date, exchange: ExchangeID) -> String {
    let seconds = finishedAt.timeIntervalSince1970
    var whole = time_t(seconds.rounded(.down))
    var micros = Int(((seconds - Double(whole)) * 1_000_000).rounded())
    if micros >= 1_000_000 {
      whole += 1
      micros -= 1_000_000
    }
    var parts = tm()
    gmtime_r(&whole, &parts)
    func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    let date = "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))"
    let time = "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))"
    let fraction = String(micros).leftPadded(to: 6)
    let random = String(UInt32.random(in: .min ... .max), radix: 16).leftPadded(to: 8)
    return "\(date)T\(time).\(fraction)Z-\(exchange.rawValue)-\(random)"
  }

  /// The folder of a request name: its UTF-8 bytes percent-encoded except letters, digits, `-`,
  /// `_` and `.` (a leading `.` is encoded too, so no folder is hidden or `..`). Names whose
  /// encoding is longer than 120 characters are cut and end in `~` and a hash of the whole name.
  /// Entries carry their real name, so two names sharing a folder stay apart.
  static func folderName(for name: String) -> String {
    var encoded = ""
    var cuts: [String.Index] = []
    for (offset, byte) in name.utf8.enumerated() {
      cuts.append(encoded.endIndex)
      let safe =
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A)
        || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F
        || (byte == 0x2E && offset > 0)
      if safe {
        encoded.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
      }
    }
    if encoded.isEmpty { return "%" }
    guard encoded.utf8.count > 120 else { return encoded }
    let cut =
      cuts.last { encoded.distance(from: encoded.startIndex, to: $0) <= 100 }
      ?? encoded.startIndex
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
    for byte in name.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x0000_0100_0000_01B3
    }
    return String(encoded[..<cut]) + "~" + String(hash, radix: 16).leftPadded(to: 16)
  }

  // MARK: - The index

  /// Every entry in memory, per name oldest first, with the total size.
  private struct Index {
    var byName: [String: [HistoryEntry]] = [:]
    var ids: Set<String> = []
    var totalBytes = 0

    mutating func insert(_ entry: HistoryEntry) {
      guard ids.insert(entry.id).inserted else { return }
      var list = byName[entry.name, default: []]
      list.append(entry)
      if list.count > 1, HistoryEntry.newerFirst(list[list.count - 2], entry) {
        list.sort { HistoryEntry.newerFirst($1, $0) }
      }
      byName[entry.name] = list
      totalBytes += entry.storedBytes
    }

    mutating func removeOldest(of name: String) -> HistoryEntry? {
      guard var list = byName[name], !list.isEmpty else { return nil }
      let oldest = list.removeFirst()
      byName[name] = list.isEmpty ? nil : list
      ids.remove(oldest.id)
      totalBytes -= oldest.storedBytes
      return oldest
    }

    /// Drops the oldest entries of `name` beyond the per-request limit, then the oldest overall
    /// while the total is above the limit; returns what was dropped.
    mutating func prune(name: String, limits: Limits) -> [HistoryEntry] {
      var dropped: [HistoryEntry] = []
      while let count = byName[name]?.count, count > limits.perRequest,
        let oldest = removeOldest(of: name)
      {
        dropped.append(oldest)
      }
      while totalBytes > limits.totalBytes {
        let oldestName = byName.min { a, b in
          HistoryEntry.newerFirst(b.value[0], a.value[0])
        }?.key
        guard let oldestName, let oldest = removeOldest(of: oldestName) else { break }
        dropped.append(oldest)
      }
      return dropped
    }
  }

  /// Removes an entry's files: the entry file first, so a crash in between leaves an orphaned
  /// body file (removed by a later scan), never an entry without its body.
  private static func removeFiles(of entry: HistoryEntry) {
    HistoryFiles.remove(entry.entryPath)
    if entry.location.responseBody == .file { HistoryFiles.remove(entry.bodyPath) }
  }

  /// The index, scanning the folder on first use. Call with the lock held.
  private func loadedIndex() -> Index {
    loadIfNeeded()
    return index
  }

  /// Scans the folder into `index` unless done. Call with the lock held.
  private func loadIfNeeded() {
    guard !loaded else { return }
    index = scan()
    loaded = true
  }

  /// Reads every entry file's first line; removes what is corrupt or stray.
  private func scan() -> Index {
    var index = Index()
    let now = Date().timeIntervalSince1970
    let root = folder.path
    for folderName in HistoryFiles.list(root) where !folderName.hasPrefix(".") {
      let requestFolder = root + "/" + folderName
      guard HistoryFiles.isDirectory(requestFolder) else { continue }
      let names = HistoryFiles.list(requestFolder)
      var bodyFiles: [String] = []
      var claimed: Set<String> = []
      for name in names {
        let path = requestFolder + "/" + name
        if HistoryFiles.isTemporary(name) {
          if let file = HistoryFiles.regularFile(path), now - file.modified > strayFileGrace {
            HistoryFiles.remove(path)
          }
        } else if name.hasSuffix(Self.bodySuffix) {
          bodyFiles.append(name)
        } else if name.hasSuffix(Self.entrySuffix) {
          let id = String(name.dropLast(Self.entrySuffix.count))
          switch readEntry(id: id, folder: requestFolder) {
          case .entry(let entry):
            index.insert(entry)
            claimed.insert(id)
          case .newerVersion:
            claimed.insert(id)
          case .corrupt:
            HistoryFiles.remove(path)
          }
        }
      }
      for name in bodyFiles where !claimed.contains(String(name.dropLast(Self.bodySuffix.count))) {
        let path = requestFolder + "/" + name
        if let file = HistoryFiles.regularFile(path), now - file.modified > strayFileGrace {
          HistoryFiles.remove(path)
        }
      }
    }
    return index
  }

  /// One entry file, checked against its size and its body file.
  private func readEntry(id: String, folder: String) -> HistoryEntry.Decoded {
    let path = folder + "/" + id + Self.entrySuffix
    guard let first = HistoryFiles.readFirstLine(path, limit: Self.metadataLimit) else {
      return .corrupt
    }
    let decoded = HistoryEntry.decode(line: first.line, id: id, folder: folder)
    guard case .entry(var entry) = decoded else { return decoded }
    var expected = entry.location.requestBodyOffset + entry.requestBodyBytes
    var size = first.fileSize
    switch entry.location.responseBody {
    case .inline:
      expected += entry.storedBodyBytes
    case .file:
      guard let body = HistoryFiles.regularFile(entry.bodyPath), body.size == entry.storedBodyBytes
      else {
        return .corrupt
      }
      size += body.size
    case .dropped:
      break
    }
    guard first.fileSize == expected else { return .corrupt }
    entry.storedBytes = size
    return .entry(entry)
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: "0", count: width - count) + self
  }
}
