import Foundation

/// The engine loop's reading of the monotonic clock, taken before each `curl_multi_perform`: what
/// the transfer callbacks inside it use for idle tracking, progress throttling and speed. (One
/// clock read per loop instead of one per header line, body chunk and progress call.)
final class LoopClock {
  private(set) var now = monotonicNow()
  func tick() { now = monotonicNow() }
}

/// Monotonic seconds (CLOCK_MONOTONIC): for timeouts and throttling, immune to clock changes.
func monotonicNow() -> Double {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
