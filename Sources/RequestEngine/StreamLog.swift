/// The events of an exchange kept in memory: the last `maxEvents`, within `maxBytes` of data
/// (older ones are dropped first; the whole stream is in the response body). Counts every event
/// seen.
public struct StreamLog: Sendable {
  public let format: StreamFormat
  public let maxEvents: Int
  public let maxBytes: Int
  /// The kept events, oldest first.
  public private(set) var events: [StreamEvent] = []
  private var head = 0
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

  /// The kept events, oldest first.
  public var kept: ArraySlice<StreamEvent> { events[head...] }

  /// Events seen but no longer kept.
  public var dropped: Int { total - (events.count - head) }

  /// The last event seen, when it is kept.
  public var last: StreamEvent? { head < events.count ? events.last : nil }

  public mutating func append(_ event: StreamEvent) {
    total += 1
    totalBytes += event.size
    events.append(event)
    keptBytes += event.data.utf8.count
    dropOldest()
  }

  /// The events of one hand-over, copied into the log together.
  public mutating func append(contentsOf new: [StreamEvent]) {
    for index in new.indices {
      totalBytes += new[index].size
      keptBytes += new[index].data.utf8.count
    }
    total += new.count
    events.append(contentsOf: new)
    dropOldest()
  }

  /// Drops the oldest events beyond the bounds.
  private mutating func dropOldest() {
    while events.count - head > maxEvents || (keptBytes > maxBytes && events.count - head > 1) {
      keptBytes -= events[head].data.utf8.count
      head += 1
    }
    // Drop the slots of events no longer kept now and then, not on every append.
    if head > 1024 && head * 2 > events.count {
      events.removeFirst(head)
      head = 0
    }
  }
}
