/// How long an SSE stream with `reconnect` waits before it connects again: the server's `retry`
/// (or the agent's `reconnectDelay`), never less than `floor`, doubled for each drop in a row of
/// a connection that brought no event, up to `backoffCap` (a server's longer `retry` is kept). A
/// stream that sends `retry: 0` and closes at once connects at most four times a second, then
/// ever more rarely; one that sends events between drops waits what it asked each time.
public enum ReconnectDelay {
  /// The shortest wait, whatever the server asks.
  public static let floor = 0.25
  /// The longest wait the backoff makes.
  public static let backoffCap = 30.0

  /// `asked`: seconds the server's `retry` (or the default) says; `emptyDrops`: connections in a
  /// row, this one included, that ended without an event.
  public static func seconds(asked: Double, emptyDrops: Int) -> Double {
    let base = max(floor, asked.isFinite ? asked : floor)
    guard emptyDrops > 1 else { return base }
    var backedOff = base
    for _ in 1..<min(emptyDrops, 32) where backedOff < backoffCap { backedOff *= 2 }
    return max(base, min(backedOff, backoffCap))
  }
}
