/// How a request uses the response cache (YTKRequest's cacheTimeInSeconds, cacheVersion,
/// cacheSensitiveData, ignoreCache and cacheFileNameFilter, with XPNetworking's modes).
///
/// ```json
/// "cache": {"seconds": 300, "version": 2, "sensitive": "{{user}}", "ignore": ["ts"],
///           "mode": "cacheElseNetwork", "revalidate": true}
/// ```
public struct CachePolicy: Sendable, Equatable, Hashable {
  public enum Mode: String, Sendable, CaseIterable, Hashable {
    /// A fresh entry answers without the network (YTK's default).
    case cacheElseNetwork
    /// Always the network; a success refreshes the entry (YTK's ignoreCache).
    case networkOnly
    /// The cached response at once, marked cached, then the fresh one.
    case cacheThenNetwork
    /// The network; when it fails, an expired entry, marked stale.
    case staleIfError
    /// Any entry, fresh or expired (marked stale), without the network; the network only when
    /// there is none (NSURLRequest's returnCacheDataElseLoad).
    case anyCacheElseNetwork
    /// Never the network: any entry, fresh or expired (marked stale), or a failure with kind
    /// `notCached` (NSURLRequest's returnCacheDataDontLoad: offline mode).
    case cacheOnly
  }

  /// How long an entry is fresh; 0 or less turns caching off.
  public var seconds: Double
  /// Entries of another version are misses (`versionMismatch`).
  public var version: Int
  /// A value (the user, a tenant) whose change invalidates the entry; stored as a digest only.
  public var sensitive: String?
  /// Query, form or JSON-body fields left out of the key (timestamps, nonces, signatures).
  public var ignore: [String]
  public var mode: Mode
  /// Revalidate an expired entry that has an ETag or Last-Modified with a conditional request.
  public var revalidate: Bool
  /// Request headers whose values are part of the key (as HTTP's `Vary`).
  public var vary: [String]
  /// A partition of the cache (a user, a tenant): entries of one namespace are invisible to
  /// another, and `ResponseCache.clear(namespace:)` removes only its own. Unlike `sensitive`,
  /// switching namespaces keeps the other's entries. Stored as a digest only.
  public var namespace: String?

  public init(
    seconds: Double, version: Int = 0, sensitive: String? = nil, ignore: [String] = [],
    mode: Mode = .cacheElseNetwork, revalidate: Bool = false, vary: [String] = [],
    namespace: String? = nil
  ) {
    self.seconds = seconds
    self.version = version
    self.sensitive = sensitive
    self.ignore = ignore
    self.mode = mode
    self.revalidate = revalidate
    self.vary = vary
    self.namespace = namespace
  }

  public var isEnabled: Bool { seconds > 0 }
}

/// Why a cached response was or was not used; part of every result of a request with a policy.
public struct CacheOutcome: Sendable, Equatable {
  public enum Reason: String, Sendable, Equatable {
    case fresh
    case expired, versionMismatch, sensitiveMismatch, appVersionMismatch, invalid, absent, disabled
    /// The entry was stored for other values of the request headers its response's `Vary` names.
    case varyMismatch
    /// Still within `seconds`, but the server said `Cache-Control: no-cache`: it is revalidated
    /// (a 304 serves it) before use.
    case noCache
    /// `networkOnly`, a re-send that ignores the cache, or `cacheThenNetwork`'s refresh after
    /// the cached delivery.
    case bypassed
  }

  /// Whether this delivery came from the cache.
  public var hit: Bool
  public var reason: Reason
  /// Age of the cached entry used (or found), in seconds.
  public var ageSeconds: Double?
  /// An expired entry served because the network failed (`staleIfError`).
  public var stale: Bool
  /// An expired entry the server confirmed with 304.
  public var revalidated: Bool
  /// Why a stale entry was served (`staleIfError`): the network's failure, secrets masked.
  public var staleBecause: String?
  /// The response was stored (or refreshed) in the cache.
  public var stored: Bool

  public init(
    hit: Bool, reason: Reason, ageSeconds: Double? = nil, stale: Bool = false, revalidated: Bool = false,
    stored: Bool = false
  ) {
    self.hit = hit
    self.reason = reason
    self.ageSeconds = ageSeconds
    self.stale = stale
    self.revalidated = revalidated
    self.stored = stored
  }
}
