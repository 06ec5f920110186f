// The response cache's lookup and store; its listing, clearing and sweeping are in
// ResponseCache+Housekeeping.swift, its files and in-memory LRU in ResponseCache+Files.swift, the
// file helpers in CacheFile.swift, the sweep's stamp in SweepStamp.swift.

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
  var swept = false
  let sweeping = DispatchGroup()
  /// When this object last renewed each entry's body modification time.
  var touchedAt: [String: Date] = [:]
  let lock = NSLock()
  var memory: [String: Entry] = [:]
  var memoryOrder: [String] = []
  var memoryBytes = 0
  let memoryLimit: Int
  var index: [String: (bytes: Int, used: Date)]?
  var folderExists = false

  /// The metadata's format. 2: the key holds the request's user (`CacheKey`); an entry of an
  /// earlier format may hold one user's response under a key another user's request computes,
  /// so it reads as damaged and is removed like one.
  static let format = 2

  /// Where the key of the digests of `sensitive` and `namespace` values comes from, asked the
  /// first time one is needed (`digestKey`): a run that caches nothing sensitive or namespaced
  /// never makes the state folder's key file.
  let digestKeySource: @Sendable () -> [UInt8]
  let digestKeyLock = NSLock()
  var madeDigestKey: [UInt8]?

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
  var digestKey: [UInt8] {
    digestKeyLock.withLock {
      if let key = madeDigestKey { return key }
      let key = digestKeySource()
      madeDigestKey = key
      return key
    }
  }

  /// The key `CacheKey` needs for `request` under `policy`: only a namespace and credentials
  /// are keyed there, so an anonymous request without one never makes the key file.
  func cacheKeyDigestKey(_ request: Request, _ policy: CachePolicy) -> [UInt8] {
    policy.namespace == nil && request.credentialIdentity.isEmpty ? [] : digestKey
  }
}
