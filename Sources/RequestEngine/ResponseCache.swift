// Over 500 lines because it is one class: the cache's whole disk protocol (lookup, store,
// listing, clearing, sweeping, the in-memory LRU) shares its private state under one lock; its
// file helpers are in CacheFile.swift, the sweep's stamp in SweepStamp.swift.

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
/// The server has its say too: `Cache-Control: no-store` (and `Vary: *`) responses are never
/// stored, a `no-cache` response is stored but always revalidated (served only after a 304), and
/// the request headers a response's `Vary` names must match for the entry to be served
/// (`varyMismatch` otherwise). Freshness is the policy's `seconds` (YTK's cacheTimeInSeconds),
/// not the server's `max-age`: there is one cache, the app-level one, and no second HTTP cache
/// to consult.
///
/// Housekeeping: the first store of a process sweeps the folder in the background (entries
/// expired for more than `sweepAfter`, and bodies and temporary files that no metadata names,
/// left by a process killed mid-write); a hit read from disk renews its body file's
/// modification time, which is what the size limit's least-recently-used order goes by across
/// processes.
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
    /// Digest of the policy's namespace, nil without one.
    public var namespaceDigest: String?
    /// The response said `Cache-Control: no-cache`: served only after the server confirms it.
    public var mustRevalidate: Bool
    /// The request header values the response's `Vary` named, each as a digest (a header such
    /// as `Authorization` may hold a secret).
    public var varyValues: [(name: String, value: String)]
    /// Where the response came from after redirects, and how many there were.
    public var effectiveURL: String = ""
    public var redirectCount: Int = 0
    var generation: String
    /// The metadata file this entry was read from or written to (inode and modification time):
    /// a memory hit is served only while the file on disk is still the same.
    var stamp: FileStamp?

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
    public var namespaceDigest: String?
    /// The server said `no-cache`: revalidated before every use.
    public var mustRevalidate = false
  }

  public let folder: URL
  public let sizeLimit: Int
  public let appVersion: String
  /// Entries expired for longer than this are swept (kept meanwhile for revalidation).
  public let sweepAfter: Double
  /// Bodies and temporary files no metadata names are removed once this old (a younger one
  /// may belong to a write in progress in another process).
  public var strayAge: Double = 600
  private var swept = false
  private let sweeping = DispatchGroup()
  /// When this object last renewed each entry's body modification time.
  private var touchedAt: [String: Date] = [:]
  private let lock = NSLock()
  private var memory: [String: Entry] = [:]
  private var memoryOrder: [String] = []
  private var memoryBytes = 0
  private let memoryLimit: Int
  private var index: [String: (bytes: Int, used: Date)]?
  private var folderExists = false

  /// The metadata's format. 2: the key holds the request's user (`CacheKey`); an entry of an
  /// earlier format may hold one user's response under a key another user's request computes,
  /// so it reads as damaged and is removed like one.
  static let format = 2

  /// Where the key of the digests of `sensitive` and `namespace` values comes from, asked the
  /// first time one is needed (`digestKey`): a run that caches nothing sensitive or namespaced
  /// never makes the state folder's key file.
  private let digestKeySource: @Sendable () -> [UInt8]
  private let digestKeyLock = NSLock()
  private var madeDigestKey: [UInt8]?

  /// `digestKey` keys the digests stored for `sensitive` and `namespace` values: the command line
  /// and the TUI pass the state folder's own random key (`StateFolder.cacheDigestKey`), so the
  /// metadata cannot be matched against guessed values without it. It is evaluated on first use.
  public init(
    folder: URL, sizeLimit: Int = 256 << 20, memoryLimit: Int = 32 << 20,
    appVersion: String = reqbenchVersion, sweepAfter: Double = 86_400,
    digestKey: @autoclosure @escaping @Sendable () -> [UInt8] = []
  ) {
    self.digestKeySource = digestKey
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
    let key = CacheKey.key(for: request, policy: policy, digestKey: cacheKeyDigestKey(request, policy))
    guard let entry = read(key) ?? read(key) else {
      // Read twice: another process may have just replaced the entry under the first read.
      guard exists(key) else { return .miss(.absent) }
      retire(key, seen: nil)
      return .miss(.invalid)
    }
    if entry.appVersion != appVersion { return .miss(.appVersionMismatch) }
    if entry.version != policy.version { return .miss(.versionMismatch) }
    if entry.sensitiveDigest != digest(policy.sensitive) { return .miss(.sensitiveMismatch) }
    for stored in entry.varyValues where ResponseCache.varyDigest(request.headers[stored.name]) != stored.value {
      return .miss(.varyMismatch)
    }
    markUsed(key, generation: entry.generation)
    // A creation date in the future (the clock was set back) is not trusted as fresh.
    if entry.mustRevalidate || entry.createdAt > now.addingTimeInterval(1) || now >= entry.expiresAt {
      return .expired(entry)
    }
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
    var entry = Entry(
      key: "", name: request.name, status: response.status, httpVersion: response.httpVersion,
      headers: response.headers, body: body, url: "", createdAt: now, expiresAt: now, version: 0,
      sensitiveDigest: nil, appVersion: appVersion, namespaceDigest: nil,
      mustRevalidate: false, varyValues: [], generation: "")
    entry.effectiveURL = Redaction(secrets: request.secrets).apply(response.effectiveURL)
    entry.redirectCount = response.redirectCount
    return save(entry, for: request, policy: policy, now: now)
  }

  /// Stores `entry`'s response (status, headers, body) as the entry of `request` under
  /// `policy`: fresh from `now` for `policy.seconds`. YTK's `saveResponseDataToCacheFile`: a
  /// response fetched one way becomes the cached answer of another request.
  @discardableResult
  public func save(_ entry: Entry, for request: Request, policy: CachePolicy, now: Date = Date()) -> Entry? {
    guard policy.isEnabled else { return nil }
    let redaction = Redaction(secrets: request.secrets)
    var saved = entry
    saved.headers = HTTPHeaders(entry.headers.fields.map { ($0.name, redaction.apply($0.value)) })
    saved.key = CacheKey.key(for: request, policy: policy, digestKey: cacheKeyDigestKey(request, policy))
    saved.name = request.name
    saved.url = redaction.apply(request.url)
    saved.createdAt = now
    saved.expiresAt = now.addingTimeInterval(policy.seconds)
    saved.version = policy.version
    saved.sensitiveDigest = digest(policy.sensitive)
    saved.namespaceDigest = digest(policy.namespace)
    saved.appVersion = appVersion
    saved.mustRevalidate = ResponseCache.cacheControl(entry.headers).contains("no-cache")
    saved.varyValues = ResponseCache.varyNames(entry.headers).map { (name: $0, value: ResponseCache.varyDigest(request.headers[$0])) }
    saved.generation = String(UInt64.random(in: .min ... .max), radix: 16)
    let inputs = redaction.apply(CacheKey.inputs(for: request, policy: policy, digestKey: cacheKeyDigestKey(request, policy)))
    guard write(&saved, inputs: inputs) else { return nil }
    remember(saved)
    sweepOnce()
    return saved
  }

  /// Makes `target` a hit holding the response cached for `source` (YTK
  /// `testShareCacheUsingSavedData`). Nil when `source` has no valid entry.
  @discardableResult
  public func saveResponseData(
    from source: Request, policy sourcePolicy: CachePolicy, into target: Request, policy targetPolicy: CachePolicy,
    now: Date = Date()
  ) -> Entry? {
    switch lookup(source, policy: sourcePolicy, now: now) {
    case .fresh(let entry), .expired(let entry): save(entry, for: target, policy: targetPolicy, now: now)
    case .miss: nil
    }
  }

  /// Renews an entry the server confirmed (304): fresh for another `policy.seconds`, with the
  /// 304's headers merged in (masked of the request's secrets, as every saved header is).
  @discardableResult
  public func renew(
    _ entry: Entry, with headers: HTTPHeaders, for request: Request, policy: CachePolicy, now: Date = Date()
  ) -> Entry {
    var merged = entry
    for field in headers.fields where !["content-length", "content-encoding", "transfer-encoding"].contains(field.name.lowercased()) {
      merged.headers[field.name] = field.value
    }
    return save(merged, for: request, policy: policy, now: now) ?? merged
  }

  /// `no-store`, `Vary: *`, and `no-cache` without a validator to revalidate with.
  static func forbidsStoring(_ response: Response) -> Bool {
    let directives = cacheControl(response.headers)
    let unrevalidatable = response.headers["ETag"] == nil && response.headers["Last-Modified"] == nil
    return directives.contains("no-store") || varyNames(response.headers).contains("*")
      || (directives.contains("no-cache") && unrevalidatable)
  }

  /// The `Cache-Control` directives, lower-cased, without arguments.
  static func cacheControl(_ headers: HTTPHeaders) -> Set<String> {
    Set(
      headers.values("Cache-Control").joined(separator: ",").lowercased().split(separator: ",").map {
        String($0.split(separator: "=", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces)
      })
  }

  /// How a request header value a response varies on is stored and compared: a digest.
  static func varyDigest(_ value: String?) -> String { SHA256.hex(Array((value ?? "").utf8)) }

  /// The request header names a response's `Vary` lists, lower-cased (`*` included as is).
  static func varyNames(_ headers: HTTPHeaders) -> [String] {
    var seen = Set<String>()
    return headers.values("Vary").joined(separator: ",").split(separator: ",")
      .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
      .filter { !$0.isEmpty && seen.insert($0).inserted }
  }

  /// How sensitive values and namespaces are stored: HMAC-SHA256 under the cache's key, hex.
  public func digest(_ value: String?) -> String? {
    value.map { hexString(HMAC.sha256(key: digestKey, message: Array($0.utf8))) }
  }

  /// The digest key, made once (see `digestKeySource`).
  private var digestKey: [UInt8] {
    digestKeyLock.withLock {
      if let key = madeDigestKey { return key }
      let key = digestKeySource()
      madeDigestKey = key
      return key
    }
  }

  /// The key `CacheKey` needs for `request` under `policy`: only a namespace and credentials
  /// are keyed there, so an anonymous request without one never makes the key file.
  private func cacheKeyDigestKey(_ request: Request, _ policy: CachePolicy) -> [UInt8] {
    policy.namespace == nil && request.credentialIdentity.isEmpty ? [] : digestKey
  }

  // MARK: - Listing and clearing

  /// Every readable entry, newest first.
  /// Reads the metadata only (and the body's size on disk), never the bodies.
  public func list() -> [Listing] {
    keysOnDisk().compactMap { key in
      guard let data = try? StateFiles.read(metadataPath(key), limit: Self.metadataLimit),
        case .object(let meta)? = try? JSONParser.parse(data), meta["format"]?.intValue == ResponseCache.format,
        let generation = meta["generation"]?.stringValue, let bytes = meta["bodyBytes"]?.intValue,
        let created = meta["createdAt"]?.doubleValue, let expires = meta["expiresAt"]?.doubleValue,
        let status = meta["status"]?.intValue, let body = bodyPath(key, generation)
      else { return nil }
      var info = stat()
      guard lstat(body, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) == bytes else { return nil }
      var listing = Listing(
        key: key, name: meta["name"]?.stringValue ?? "", url: meta["url"]?.stringValue ?? "", status: status,
        bytes: bytes, createdAt: Date(timeIntervalSince1970: created), expiresAt: Date(timeIntervalSince1970: expires),
        namespaceDigest: meta["namespace"]?.stringValue)
      listing.mustRevalidate = meta["mustRevalidate"]?.boolValue ?? false
      return listing
    }.sorted { $0.createdAt > $1.createdAt }
  }

  /// Removes every entry, or those of one request name and/or one namespace; returns how many.
  /// Without a filter, damaged entries go too.
  @discardableResult
  public func clear(name: String? = nil, namespace: String? = nil) -> Int {
    var removed = 0
    for key in keysOnDisk() {
      if name != nil || namespace != nil {
        guard let entry = read(key, remember: false) else { continue }
        if let name, entry.name != name { continue }
        if let namespace, entry.namespaceDigest != digest(namespace) { continue }
      }
      remove(key)
      removed += 1
    }
    return removed
  }

  /// Removes entries expired for longer than `sweepAfter`, damaged entries, and bodies and
  /// temporary files no metadata names, once they are `strayAge` old.
  public func sweep(now: Date = Date()) {
    var named = Set<String>()
    for key in keysOnDisk() {
      if let entry = read(key, remember: false) {
        if now.timeIntervalSince(entry.expiresAt) > sweepAfter {
          retire(key, seen: entry.generation)
        } else {
          named.insert("\(key).\(entry.generation).body")
        }
      } else if age(of: metadataPath(key), now: now) > strayAge {
        retire(key, seen: nil)
      }
    }
    for name in StateFiles.list(folder.path)
    where (name.hasSuffix(".body") && !named.contains(name)) || (name.hasPrefix(".") && name.contains(".tmp-")) {
      let path = folder.path + "/" + name
      if age(of: path, now: now) > strayAge { unlink(path) }
    }
  }

  /// Sweeps once per cache object, in the background: when a command starts (`sweepIfDue`) or
  /// after the first store. `waitForSweep` (which `Agent.shutdown` calls) lets it finish, so a
  /// short `run` no longer cuts it off.
  private func sweepOnce(after stamp: Bool = false) {
    let first = lock.withLock {
      defer { swept = true }
      return !swept
    }
    guard first else { return }
    sweeping.enter()
    WorkerThread.detached(name: "rb-cache-sweep") {
      self.sweep()
      if stamp { SweepStamp(folder: self.folder.path).stamp() }
      self.sweeping.leave()
    }
  }

  /// Starts the sweep in the background unless a whole sweep ran less than `interval` seconds
  /// ago (`cache/.swept` records when): a command sweeps at its start, and a folder of many
  /// entries is read at most once an hour however many short runs there are.
  public func sweepIfDue(interval: Double = 3600, now: Date = Date()) {
    guard SweepStamp(folder: folder.path).isDue(interval: interval, now: now) else { return }
    sweepOnce(after: true)
  }

  /// Waits (at most `timeout` seconds) for a sweep in progress to end. A sweep cut off by the
  /// timeout leaves no stamp: the next command sweeps again.
  public func waitForSweep(timeout: Double = 10) {
    _ = sweeping.wait(timeout: .now() + timeout)
  }


  private func age(of path: String, now: Date) -> Double {
    var info = stat()
    guard lstat(path, &info) == 0 else { return 0 }
    return now.timeIntervalSince1970 - Double(info.st_mtim.tv_sec)
  }

  // MARK: - Files

  /// The largest metadata file read (headers and key inputs; more is damage).
  static let metadataLimit = 16 << 20

  /// `KEY.json`: keys are digests (`CacheKey`), or names listed in the folder.
  private func metadataPath(_ key: String) -> String { folder.path + "/" + key + ".json" }

  /// `KEY.GEN.body`, or nil when the generation (read from metadata) would make another path
  /// than a file of this folder: `StateFiles.path`.
  private func bodyPath(_ key: String, _ generation: String) -> String? {
    StateFiles.path("\(key).\(generation)", in: folder.path, suffix: ".body")
  }

  private func exists(_ key: String) -> Bool {
    var info = stat()
    return lstat(metadataPath(key), &info) == 0
  }

  /// The keys of the entries in the folder (not through a link: `StateFiles.list`).
  private func keysOnDisk() -> [String] {
    StateFiles.list(folder.path).compactMap { name in
      guard name.hasSuffix(".json") else { return nil }
      let key = String(name.dropLast(5))
      return StateFiles.isValidName(key) ? key : nil
    }
  }

  private func write(_ entry: inout Entry, inputs: String) -> Bool {
    do {
      if !folderExists {
        // Mode 0700 (the state folder too, when this makes it); a link there is refused.
        try StateFiles.folder(at: folder.path)
        folderExists = true
      }
      guard let bodyFile = bodyPath(entry.key, entry.generation) else { return false }
      let old = exists(entry.key) ? read(entry.key, remember: false)?.generation : nil
      try CacheFile.write(entry.body, to: URL(fileURLWithPath: bodyFile))
      let metadata = JSONObject([
        ("format", .number(ResponseCache.format)), ("key", .string(entry.key)), ("name", .string(entry.name)),
        ("generation", .string(entry.generation)), ("version", .number(entry.version)),
        ("sensitive", entry.sensitiveDigest.map { .string($0) } ?? .null),
        ("namespace", entry.namespaceDigest.map { .string($0) } ?? .null),
        ("mustRevalidate", .bool(entry.mustRevalidate)),
        ("vary", .array(entry.varyValues.map { .array([.string($0.name), .string($0.value)]) })),
        ("createdAt", .number(entry.createdAt.timeIntervalSince1970)),
        ("expiresAt", .number(entry.expiresAt.timeIntervalSince1970)),
        ("appVersion", .string(entry.appVersion)), ("status", .number(entry.status)),
        ("httpVersion", .string(entry.httpVersion)),
        ("headers", .array(entry.headers.fields.map { .array([.string($0.name), .string($0.value)]) })),
        ("url", .string(entry.url)), ("effectiveURL", .string(entry.effectiveURL)),
        ("redirectCount", .number(entry.redirectCount)), ("inputs", .string(inputs)),
        ("bodyBytes", .number(entry.body.count)), ("bodySha256", .string(SHA256.hex(entry.body))),
      ])
      try CacheFile.write(
        Array((JSONSerializer.compact(.object(metadata)) + "\n").utf8), to: URL(fileURLWithPath: metadataPath(entry.key)))
      if let old, old != entry.generation, let oldBody = bodyPath(entry.key, old) { unlink(oldBody) }
      // Bodies of damaged entries, or of writes killed half-way, are left to the sweep: one may
      // belong to another process's write in progress.
      entry.stamp = FileStamp(metadataPath(entry.key))
      trackStored(entry.key, bytes: entry.body.count)
      return true
    } catch {
      return false
    }
  }

  private func read(_ key: String, remember: Bool = true) -> Entry? {
    let stamp = FileStamp(metadataPath(key))
    if let cached = lock.withLock({ memory[key] }) {
      // Served from memory only while the metadata on disk is the one it came from: another
      // process (`cache clear`, a refresh) may have changed it.
      if stamp != nil, cached.stamp == stamp {
        if remember { touch(key) }
        return cached
      }
      forget(key)
    }
    guard let data = try? StateFiles.read(metadataPath(key), limit: Self.metadataLimit),
      case .object(let meta)? = try? JSONParser.parse(data),
      meta["format"]?.intValue == ResponseCache.format,
      let generation = meta["generation"]?.stringValue,
      let created = meta["createdAt"]?.doubleValue, let expires = meta["expiresAt"]?.doubleValue,
      let status = meta["status"]?.intValue, let bytes = meta["bodyBytes"]?.intValue, bytes >= 0,
      let digest = meta["bodySha256"]?.stringValue, let bodyFile = bodyPath(key, generation),
      let body = try? StateFiles.read(bodyFile, limit: bytes),
      body.count == bytes, body.count > 1 << 20 || SHA256.hex(body) == digest
    else {
      return nil
    }
    var headers = HTTPHeaders()
    for (name, value) in ResponseCache.pairs(meta["headers"]) { headers.add(name, value) }
    var entry = Entry(
      key: key, name: meta["name"]?.stringValue ?? "", status: status,
      httpVersion: meta["httpVersion"]?.stringValue ?? "HTTP/1.1", headers: headers, body: body,
      url: meta["url"]?.stringValue ?? "", createdAt: Date(timeIntervalSince1970: created),
      expiresAt: Date(timeIntervalSince1970: expires), version: meta["version"]?.intValue ?? 0,
      sensitiveDigest: meta["sensitive"]?.stringValue, appVersion: meta["appVersion"]?.stringValue ?? "",
      namespaceDigest: meta["namespace"]?.stringValue, mustRevalidate: meta["mustRevalidate"]?.boolValue ?? false,
      varyValues: ResponseCache.pairs(meta["vary"]).map { (name: $0.0, value: $0.1) }, generation: generation)
    entry.effectiveURL = meta["effectiveURL"]?.stringValue ?? entry.url
    entry.redirectCount = meta["redirectCount"]?.intValue ?? 0
    entry.stamp = stamp
    if remember { self.remember(entry) }
    return entry
  }

  /// `[["name", "value"], …]` from metadata.
  private static func pairs(_ value: JSONValue?) -> [(String, String)] {
    (value?.arrayValue ?? []).compactMap { field in
      guard let pair = field.arrayValue, pair.count == 2, let name = pair[0].stringValue,
        let value = pair[1].stringValue
      else { return nil }
      return (name, value)
    }
  }

  /// Removes an entry and every body of its key, whatever is there: `clear` and the size limit.
  private func remove(_ key: String) {
    if let generation = read(key, remember: false)?.generation, let body = bodyPath(key, generation) { unlink(body) }
    unlink(metadataPath(key))
    removeBodies(of: key, except: nil)
    forget(key)
  }

  /// Removes `key`'s entry only if it is still the one that was looked at (generation `seen`;
  /// nil: an unreadable one), safely against a store of the same key running at that moment in
  /// this process or another: the metadata is first renamed aside (atomic), then checked; an
  /// entry written in between is put back (with `link`, which never replaces an even newer one).
  /// The sweep and lookups use it; never a fresh entry is lost, never metadata left without its
  /// body.
  private func retire(_ key: String, seen: String?) {
    let aside = folder.path + "/.\(key).json.tmp-retired-\(String(UInt64.random(in: .min ... .max), radix: 16))"
    guard rename(metadataPath(key), aside) == 0 else { return }
    let found = ResponseCache.generation(inMetadataAt: aside)
    if found == seen {
      unlink(aside)
      if let seen, let body = bodyPath(key, seen) { unlink(body) }
      forget(key)
    } else {
      if link(aside, metadataPath(key)) != 0, let found {
        // An even newer entry is in place: the one set aside is stale.
        if ResponseCache.generation(inMetadataAt: metadataPath(key)) != found, let body = bodyPath(key, found) { unlink(body) }
      }
      unlink(aside)
    }
  }

  /// The generation a metadata file names, nil when it does not read as metadata.
  private static func generation(inMetadataAt path: String) -> String? {
    guard let data = try? StateFiles.read(path, limit: metadataLimit),
      case .object(let meta)? = try? JSONParser.parse(data), meta["format"]?.intValue == ResponseCache.format
    else { return nil }
    return meta["generation"]?.stringValue
  }

  private func forget(_ key: String) {
    lock.withLock {
      if let entry = memory.removeValue(forKey: key) { memoryBytes -= entry.body.count }
      memoryOrder.removeAll { $0 == key }
      index?[key] = nil
    }
  }

  /// Bodies of any generation of `key` (a write killed half-way leaves one behind).
  private func removeBodies(of key: String, except keep: String?) {
    for name in StateFiles.list(folder.path)
    where name.hasPrefix(key + ".") && name.hasSuffix(".body") && name != keep.map({ "\(key).\($0).body" }) {
      unlink(folder.path + "/" + name)
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
    }
  }

  /// A lookup found the entry: it is the most recently used, here and, through its body file's
  /// modification time, for the next process that builds the index.
  /// The file is touched at most once a minute per entry: the order across processes needs no
  /// finer grain, and a hit from memory then costs no system call.
  private func markUsed(_ key: String, generation: String) {
    let now = Date()
    let touch = lock.withLock { () -> Bool in
      index?[key]?.used = now
      guard now.timeIntervalSince(touchedAt[key] ?? .distantPast) >= 60 else { return false }
      touchedAt[key] = now
      return true
    }
    if touch, let body = bodyPath(key, generation) { utimensat(AT_FDCWD, body, nil, AT_SYMLINK_NOFOLLOW) }
  }

  /// Records a stored entry's size; evicts the least recently used entries over the limit.
  private func trackStored(_ key: String, bytes: Int) {
    let victims: [String] = lock.withLock {
      if index == nil {
        var built: [String: (bytes: Int, used: Date)] = [:]
        for name in StateFiles.list(folder.path) where name.hasSuffix(".body") {
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

