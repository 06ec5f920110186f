import Foundation

/// The project's one monotonic clock (CLOCK_MONOTONIC): for timeouts, throttling, pacing and
/// benchmarks, immune to the wall clock being set. The engine, the TUI's runtime, the benchmarks
/// and the demo server read it; `Date` is for what a person reads (a response's time, history).
public enum MonotonicClock {
  /// Seconds since an arbitrary start.
  public static func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
  }

  /// Nanoseconds since the same start (for benchmarks' sums of many short spans).
  public static func nanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
  }
}
