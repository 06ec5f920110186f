import RequestEngine

/// The largest value each number of the workspace file may have. Every number is range-checked
/// when the file is read (an error at FILE:LINE:COLUMN), so no later arithmetic on it (seconds to
/// milliseconds for curl, megabytes to bytes, a retry's backoff, an expiry date) can overflow.
/// The limits are far beyond any real use and are listed in the user guide's workspace file page (docs/requests.md, Limits).
public enum ValueLimits {
  /// `timeout` and `deadline`: 7 days.
  public static let seconds = 604_800.0
  /// `retry.delay`: one hour (the backoff doubles it per attempt, up to `retryBackoff`).
  public static let retryDelay = 3_600.0
  /// The longest wait between two attempts, however many there were: one day.
  public static let retryBackoff = RetryPolicy.longestDelay
  /// `retry.max`.
  public static let retries = 100
  /// `agent.maxConcurrent`, `agent.maxPerHost`, a batch's `concurrency` (and `run --concurrency`).
  public static let concurrency = 1_000
  /// `maxRedirects`.
  public static let redirects = 1_000
  /// `history.perRequest`.
  public static let historyEntries = 1_000_000
  /// `history.maxMB`: one terabyte.
  public static let historyMB = 1_048_576.0
  /// `cache.seconds`: ten years.
  public static let cacheSeconds = 315_360_000.0
  /// `throttle`: one day.
  public static let throttleSeconds = 86_400.0

  /// `604800` for whole numbers, as the messages write them.
  static func text(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
  }

  /// `604800 seconds (7 days)`: a limit in seconds with its size in words.
  static func seconds(_ value: Double) -> String {
    let units: [(Double, String)] = [(31_536_000, "year"), (86_400, "day"), (3_600, "hour")]
    guard let (size, name) = units.first(where: { value >= $0.0 && (value / $0.0).rounded() == value / $0.0 })
    else { return "\(text(value)) seconds" }
    let count = Int(value / size)
    return "\(text(value)) seconds (\(count) \(name)\(count == 1 ? "" : "s"))"
  }
}
