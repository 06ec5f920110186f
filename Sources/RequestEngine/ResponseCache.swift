import Digest
import Foundation

/// The response cache of a workspace: entries on disk in a folder (the state folder's `cache/`),
/// a small in-memory LRU in front, a size limit that evicts the least recently used entries.
///
/// Each entry is two files: `KEY.GEN.body` (the body) and `KEY.json` (metadata: format, version,
/// a digest of the sensitive value, creation and expiry dates, the reqbench version, status,
/// headers, the redacted key inputs, the body's size and digest, the generation). The body is
/// written first under a new generation, then the metadata that names it, each by rename, then
/// the old body is removed: killing the process at any moment leaves the old entry or the new,
/// never new data under old metadata. An entry that does not read back whole is a miss with
/// reason `invalid` and is removed; it is never a crash. Cache files skip fsync: a cache can
/// always be rebuilt.
///
/// Thread-safe; the agent consults it on its engine thread.
public final class ResponseCache: @unchecked Sendable {
  /// One stored response.
  public struct Entry: Sendable {
    public var key: String
    /// The workspace request name, for `cache ls` and `cache clear TARGET`.
    public var name: String
    public var status: Int
    public var httpVersion: String
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var url: String
    public var createdAt: Date
    public var expiresAt: Date
    public var version: Int
    public var sensitiveDigest: String?
    public var appVersion: String
    var generation: String

    public var etag: String? { headers["ETag"] }
    public var lastModified: String? { headers["Last-Modified"] }
    public func age(at now: Date) -> Double { max(0, now.timeIntervalSince(createdAt)) }
  }

  /// What a lookup found.
  public enum Lookup: Sendable {
    case fresh(Entry)
    /// An entry that can no longer be served as fresh, kept for revalidation and `staleIfError`.
    case expired(Entry)
    case miss(CacheOutcome.Reason)
  }

  /// An entry as `cache ls` shows it (no body).
  public struct Listing: Sendable {
    public var key: String
    public var name: String
    public var url: String
    public var status: Int
    public var bytes: Int
    public var createdAt: Date
    public var expiresAt: Date
  }

  public let folder: URL
  public let sizeLimit: Int
  public let appVersion: String
  /// Entries expired for longer than this are swept (kept meanwhile for revalidation).
  public let sweepAfter: Double
  private let lock = NSLock()
  private var memory: [String: Entry] = [:]
  private var memoryOrder: [String] = []
  private var memoryBytes = 0
  private let memoryLimit: Int
  private var index: [String: (bytes: Int, used: Date)]?
  private var folderExists = false

  public init(
    folder: URL, sizeLimit: Int = 256 << 20, memoryLimit: Int = 32 << 20,
    appVersion: String = reqbenchVersion, sweepAfter: Double = 86_400
  ) {
    self.folder = folder
    self.sizeLimit = sizeLimit
    self.memoryLimit = memoryLimit
    self.appVersion = appVersion
    self.sweepAfter = sweepAfter
  }

  // MARK: - Lookup

  /// The entry for `request` under `policy`, checked against its version, sensitive value and
  /// the reqbench version.
  public func lookup(_ request: Request, policy: CachePolicy, now: Date = Date()) -> Lookup {
    guard policy.isEnabled else { return .miss(.disabled) }
    let key = CacheKey.key(for: request, policy: policy)
    guard let entry = read(key) else {
      return .miss(exists(key) ? .invalid : .absent)
    }
    if entry.appVersion != appVersion { return .miss(.appVersionMismatch) }
    if entry.version != policy.version { return .miss(.versionMismatch) }
    if entry.sensitiveDigest != ResponseCache.digest(policy.sensitive) { return .miss(.sensitiveMismatch) }
    // A creation date in the future (the clock was set back) is not trusted as fresh.
    if entry.createdAt > now.addingTimeInterval(1) || now >= entry.expiresAt { return .expired(entry) }
    return .fresh(entry)
  }

  // MARK: - Store

  /// Stores a validated response for `request` (never called for failures or downloads) and
  /// returns the entry; nil when the response says `Cache-Control: no-store` or cannot be written.
  @discardableResult
  public func store(
    _ response: Response, for request: Request, policy: CachePolicy, now: Date = Date()
  ) -> Entry? {
    guard policy.isEnabled, !ResponseCache.forbidsStoring(response) else { return nil }
    guard let body = try? response.body.bytes() else { return nil }
    let key = CacheKey.key(for: request, policy: policy)
    let redaction = Redaction(secrets: request.secrets)
    var headers = HTTPHeaders()
    for field in response.headers.fields { headers.add(field.name, redaction.apply(field.value)) }
    let entry = Entry(
      key: key, name: request.name, status: response.status, httpVersion: response.httpVersion,
      headers: headers, body: body, url: redaction.apply(request.url), createdAt: now,
      expiresAt: now.addingTimeInterval(policy.seconds), version: policy.version,
      sensitiveDigest: ResponseCache.digest(policy.sensitive), appVersion: appVersion,
      generation: String(UInt64.random(in: .min ... .max), radix: 16))
    let inputs = redaction.apply(CacheKey.inputs(for: request, policy: policy))
    guard write(entry, inputs: inputs) else { return nil }
    remember(entry)
    return entry
  }

  /// Renews an entry the server confirmed (304): fresh for another `policy.seconds`, with the
  /// 304's headers merged in, the request's `secrets` masked in them as `store` masks them.
  @discardableResult
  public func renew(
    _ entry: Entry, with headers: HTTPHeaders, policy: CachePolicy, secrets: [String], now: Date = Date()
  ) -> Entry {
    var renewed = entry
    let redaction = Redaction(secrets: secrets)
    for field in headers.fields where !["content-length", "content-encoding", "transfer-encoding"].contains(field.name.lowercased()) {
      renewed.headers[field.name] = redaction.apply(field.value)
    }
    renewed.createdAt = now
    renewed.expiresAt = now.addingTimeInterval(policy.seconds)
    renewed.generation = String(UInt64.random(in: .min ... .max), radix: 16)
    if write(renewed, inputs: "") { remember(renewed) }
    return renewed
  }

  static func forbidsStoring(_ response: Response) -> Bool {
    response.headers.values("Cache-Control").joined(separator: ",").lowercased()
      .split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == "no-store" }
  }

  static func digest(_ value: String?) -> String? {
    value.map { SHA256.hex(Array($0.utf8)) }
  }

  // MARK: - Listing and clearing

  /// Every readable entry, newest first.
  public func list() -> [Listing] {
    keysOnDisk().compactMap { key in
      guard let entry = read(key, remember: false) else { return nil }
      return Listing(
        key: key, name: entry.name, url: entry.url, status: entry.status, bytes: entry.body.count,
        createdAt: entry.createdAt, expiresAt: entry.expiresAt)
    }.sorted { $0.createdAt > $1.createdAt }
  }

  /// Removes every entry, or those of one request name; returns how many.
  @discardableResult
  public func clear(name: String? = nil) -> Int {
    var removed = 0
    for key in keysOnDisk() {
      if let name, read(key, remember: false)?.name != name { continue }
      remove(key)
      removed += 1
    }
    return removed
  }

  /// Removes entries expired for longer than `sweepAfter` and stray files.
  public func sweep(now: Date = Date()) {
    for key in keysOnDisk() {
      guard let entry = read(key, remember: false) else {
        remove(key)
        continue
      }
      if now.timeIntervalSince(entry.expiresAt) > sweepAfter { remove(key) }
    }
  }

  // MARK: - Files

  private func metadataURL(_ key: String) -> URL { folder.appendingPathComponent(key + ".json") }

  private func bodyURL(_ key: String, _ generation: String) -> URL {
    folder.appendingPathComponent("\(key).\(generation).body")
  }

  private func exists(_ key: String) -> Bool { FileManager.default.fileExists(atPath: metadataURL(key).path) }

  private func keysOnDisk() -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.map { String($0.dropLast(5)) }
  }

  private func write(_ entry: Entry, inputs: String) -> Bool {
    do {
      if !folderExists {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        folderExists = true
      }
      let hadMetadata = exists(entry.key)
      let old = hadMetadata ? read(entry.key, remember: false)?.generation : nil
      try CacheFile.write(entry.body, to: bodyURL(entry.key, entry.generation))
      let metadata = JSONObject([
        ("format", 1), ("key", .string(entry.key)), ("name", .string(entry.name)),
        ("generation", .string(entry.generation)), ("version", .number(entry.version)),
        ("sensitive", entry.sensitiveDigest.map { .string($0) } ?? .null),
        ("createdAt", .number(entry.createdAt.timeIntervalSince1970)),
        ("expiresAt", .number(entry.expiresAt.timeIntervalSince1970)),
        ("appVersion", .string(entry.appVersion)), ("status", .number(entry.status)),
        ("httpVersion", .string(entry.httpVersion)),
        ("headers", .array(entry.headers.fields.map { .array([.string($0.name), .string($0.value)]) })),
        ("url", .string(entry.url)), ("inputs", .string(inputs)),
        ("bodyBytes", .number(entry.body.count)), ("bodySha256", .string(SHA256.hex(entry.body))),
      ])
      try CacheFile.write(Array((JSONSerializer.compact(.object(metadata)) + "\n").utf8), to: metadataURL(entry.key))
      if let old {
        if old != entry.generation { unlink(bodyURL(entry.key, old).path) }
      } else if hadMetadata {
        // The previous metadata was unreadable (damaged, or a write killed half-way): remove
        // whatever bodies of this key are left, except the new one.
        removeBodies(of: entry.key, except: entry.generation)
      }
      trackStored(entry.key, bytes: entry.body.count)
      return true
    } catch {
      return false
    }
  }

  private func read(_ key: String, remember: Bool = true) -> Entry? {
    if let cached = lock.withLock({ memory[key] }) {
      if remember { touch(key) }
      return cached
    }
    guard let data = FileManager.default.contents(atPath: metadataURL(key).path),
      case .object(let meta)? = try? JSONParser.parse(Array(data)),
      meta["format"]?.intValue == 1,
      let generation = meta["generation"]?.stringValue,
      let created = meta["createdAt"]?.doubleValue, let expires = meta["expiresAt"]?.doubleValue,
      let status = meta["status"]?.intValue, let bytes = meta["bodyBytes"]?.intValue,
      let digest = meta["bodySha256"]?.stringValue,
      let body = FileManager.default.contents(atPath: bodyURL(key, generation).path).map(Array.init),
      body.count == bytes, body.count > 1 << 20 || SHA256.hex(body) == digest
    else {
      return nil
    }
    var headers = HTTPHeaders()
    for field in meta["headers"]?.arrayValue ?? [] {
      if let pair = field.arrayValue, pair.count == 2, let name = pair[0].stringValue, let value = pair[1].stringValue {
        headers.add(name, value)
      }
    }
    let entry = Entry(
      key: key, name: meta["name"]?.stringValue ?? "", status: status,
      httpVersion: meta["httpVersion"]?.stringValue ?? "HTTP/1.1", headers: headers, body: body,
      url: meta["url"]?.stringValue ?? "", createdAt: Date(timeIntervalSince1970: created),
      expiresAt: Date(timeIntervalSince1970: expires), version: meta["version"]?.intValue ?? 0,
      sensitiveDigest: meta["sensitive"]?.stringValue, appVersion: meta["appVersion"]?.stringValue ?? "",
      generation: generation)
    if remember { self.remember(entry) }
    return entry
  }

  private func remove(_ key: String) {
    if let generation = read(key, remember: false)?.generation { unlink(bodyURL(key, generation).path) }
    unlink(metadataURL(key).path)
    removeBodies(of: key, except: nil)
    lock.withLock {
      if let entry = memory.removeValue(forKey: key) { memoryBytes -= entry.body.count }
      memoryOrder.removeAll { $0 == key }
      index?[key] = nil
    }
  }

  /// Bodies of any generation of `key` (a write killed half-way leaves one behind).
  private func removeBodies(of key: String, except keep: String?) {
    for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    where name.hasPrefix(key + ".") && name.hasSuffix(".body") && name != keep.map({ "\(key).\($0).body" }) {
      unlink(folder.appendingPathComponent(name).path)
    }
  }

  // MARK: - Memory LRU and the size limit

  private func remember(_ entry: Entry) {
    guard entry.body.count <= memoryLimit / 4 else { return }
    lock.withLock {
      if let old = memory[entry.key] { memoryBytes -= old.body.count }
      memory[entry.key] = entry
      memoryBytes += entry.body.count
      memoryOrder.removeAll { $0 == entry.key }
      memoryOrder.append(entry.key)
      while memoryBytes > memoryLimit, let oldest = memoryOrder.first {
        memoryOrder.removeFirst()
        if let evicted = memory.removeValue(forKey: oldest) { memoryBytes -= evicted.body.count }
      }
    }
  }

  private func touch(_ key: String) {
    lock.withLock {
      memoryOrder.removeAll { $0 == key }
      memoryOrder.append(key)
      index?[key]?.used = Date()
    }
  }

  /// Records a stored entry's size; evicts the least recently used entries over the limit.
  private func trackStored(_ key: String, bytes: Int) {
    let victims: [String] = lock.withLock {
      if index == nil {
        var built: [String: (bytes: Int, used: Date)] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        where name.hasSuffix(".body") {
          let parts = name.split(separator: ".")
          guard let first = parts.first else { continue }
          let attributes = try? FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(name).path)
          let size = (attributes?[.size] as? NSNumber)?.intValue ?? 0
          let used = attributes?[.modificationDate] as? Date ?? .distantPast
          built[String(first)] = (size, used)
        }
        index = built
      }
      index?[key] = (bytes, Date())
      var total = index?.values.reduce(0) { $0 + $1.bytes } ?? 0
      var evict: [String] = []
      for (candidate, info) in (index ?? [:]).sorted(by: { $0.value.used < $1.value.used }) where total > sizeLimit {
        guard candidate != key else { continue }
        evict.append(candidate)
        total -= info.bytes
      }
      return evict
    }
    for key in victims { remove(key) }
  }
}

/// Cache files: atomic by rename, without fsync (a cache is always rebuildable).
enum CacheFile {
  struct WriteError: Error {}

  static func write(_ bytes: [UInt8], to url: URL) throws {
    let temporary = url.deletingLastPathComponent().path
      + "/.\(url.lastPathComponent).tmp-\(String(UInt64.random(in: .min ... .max), radix: 16))"
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw WriteError() }
    var offset = 0
    while offset < bytes.count {
      let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
      if written < 0 {
        if errno == EINTR { continue }
        close(fd)
        unlink(temporary)
        throw WriteError()
      }
      offset += written
    }
    close(fd)
    if rename(temporary, url.path) != 0 {
      unlink(temporary)
      throw WriteError()
    }
  }
}
