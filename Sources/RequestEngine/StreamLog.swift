/// The events of an exchange kept in memory: the last `maxEvents`, within `maxBytes` of data
/// (older ones are dropped first; the whole stream is in the response body). Counts every event
/// seen.
///
/// The kept events are a ring: it grows to `maxEvents` slots and then each new event takes the
/// slot of the oldest, so a stream of hours copies no event twice and touches no new memory once
/// the ring is full (a stream of 100,000 events grew and compacted an array that took half the
/// page faults of `run`).
public struct StreamLog: Sendable {
  public let format: StreamFormat
  public let maxEvents: Int
  public let maxBytes: Int
  /// The slots; the kept events are `count` of them from `oldest` on, wrapping round.
  private var ring: [StreamEvent] = []
  private var oldest = 0
  private var count = 0
  /// Data bytes of the kept events.
  public private(set) var keptBytes = 0
  /// Every event seen, kept or not.
  public private(set) var total = 0
  /// Bytes of every event seen (as sent).
  public private(set) var totalBytes = 0
  /// The SSE last event id at the end.
  public var lastEventID: String?
  /// Times the engine connected again after the stream dropped (`reconnect`).
  public var reconnects = 0

  public init(format: StreamFormat, maxEvents: Int = 10_000, maxBytes: Int = 32 << 20) {
    self.format = format
    self.maxEvents = max(1, maxEvents)
    self.maxBytes = max(1, maxBytes)
  }

  /// The kept events, oldest first, at positions from 0.
  public var kept: Kept { Kept(ring: ring, oldest: oldest, count: count) }

  /// Events seen but no longer kept.
  public var dropped: Int { total - count }

  /// The last event seen, when it is kept.
  public var last: StreamEvent? { count > 0 ? ring[slot(count - 1)] : nil }

  public mutating func append(_ event: StreamEvent) {
    total += 1
    totalBytes += event.size
    keep(event)
  }

  /// The events of one hand-over, taken into the log together.
  public mutating func append(contentsOf new: [StreamEvent]) {
    total += new.count
    // Only the last `maxEvents` of a hand-over can stay: the others are counted, not kept.
    let first = max(new.startIndex, new.endIndex - maxEvents)
    for index in new.indices {
      totalBytes += new[index].size
      if index >= first { keep(new[index]) }
    }
  }

  /// The ring's slot of the kept event at `position` (0 is the oldest).
  private func slot(_ position: Int) -> Int {
    let slot = oldest + position
    return slot < ring.count ? slot : slot - ring.count
  }

  private mutating func keep(_ event: StreamEvent) {
    if count == maxEvents { dropOldest() }
    if count < ring.count {
      ring[slot(count)] = event
    } else if oldest == 0 {
      ring.append(event)  // the ring is still growing
    } else {
      // Full below `maxEvents` after the byte budget dropped some: laid out from slot 0 again,
      // with room to grow.
      ring = Array(kept) + [event]
      oldest = 0
    }
    count += 1
    keptBytes += event.data.utf8.count
    while keptBytes > maxBytes && count > 1 { dropOldest() }
  }

  private mutating func dropOldest() {
    keptBytes -= ring[oldest].data.utf8.count
    // The slot lets go of the event's text now (a large one must not outlive the budget).
    ring[oldest].data = ""
    ring[oldest].type = nil
    ring[oldest].id = nil
    oldest = oldest + 1 == ring.count ? 0 : oldest + 1
    count -= 1
  }

  /// The kept events as a collection (positions from 0, oldest first), sharing the log's ring.
  public struct Kept: RandomAccessCollection, Sendable {
    fileprivate let ring: [StreamEvent]
    fileprivate let oldest: Int
    public let count: Int

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> StreamEvent {
      precondition(position >= 0 && position < count, "position \(position) of \(count) kept events")
      let slot = oldest + position
      return ring[slot < ring.count ? slot : slot - ring.count]
    }
  }
}
