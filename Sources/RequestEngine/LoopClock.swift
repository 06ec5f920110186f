import Base

/// The engine loop's reading of the monotonic clock, taken before each `curl_multi_perform`: what
/// the transfer callbacks inside it use for idle tracking, progress throttling and speed. (One
/// clock read per loop instead of one per header line, body chunk and progress call.)
final class LoopClock {
  private(set) var now = MonotonicClock.now()
  func tick() { now = MonotonicClock.now() }
}
