/// The events of an exchange kept in memory: the last `maxEvents`, within `maxBytes` of data
/// (older ones are dropped first; the whole stream is in the response body). Counts every event
/// seen.
///
/// The log keeps the hand-overs the events came in (the arrays the parser made, which the agent's
/// events carry too) rather than copies of the events: taking a hand-over of a thousand events
/// copies no event, and dropping the oldest moves none (a log of copies took a fifth of the
/// engine thread's instructions of a 100,000-event stream, an array of them that grew and was
/// compacted half the page faults of `run`). A hand-over goes when its last event is dropped, so
/// memory is the budget and at most one hand-over more (a dropped event's text lives on until
/// the rest of its hand-over goes).
public struct StreamLog: Sendable {
  public let format: StreamFormat
  public let maxEvents: Int
  public let maxBytes: Int
  /// The hand-overs, oldest first; those before `first` are emptied (dropped whole).
  private var chunks: [[StreamEvent]] = []
  /// Where each hand-over starts in the sequence of every event the log took.
  private var starts: [Int] = []
  private var first = 0
  /// The oldest kept event's place in `chunks[first]`.
  private var head = 0
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
  public var kept: Kept { Kept(chunks: chunks, starts: starts, first: first, head: head, count: count) }

  /// Events seen but no longer kept.
  public var dropped: Int { total - count }

  /// The last event seen, when it is kept.
  public var last: StreamEvent? { count > 0 ? chunks.last?.last : nil }

  public mutating func append(_ event: StreamEvent) {
    append(contentsOf: [event])
  }

  /// The events of one hand-over, taken into the log together (the array itself, not copies).
  public mutating func append(contentsOf new: [StreamEvent]) {
    guard !new.isEmpty else { return }
    total += new.count
    for index in new.indices { totalBytes += new[index].size }
    // Only the last `maxEvents` of a hand-over can stay: the others are counted, not kept.
    let chunk = new.count > maxEvents ? Array(new.suffix(maxEvents)) : new
    for index in chunk.indices { keptBytes += chunk[index].data.utf8.count }
    starts.append(chunks.isEmpty ? 0 : starts[chunks.count - 1] + chunks[chunks.count - 1].count)
    chunks.append(chunk)
    count += chunk.count
    while count > maxEvents || (keptBytes > maxBytes && count > 1) {
      keptBytes -= chunks[first][head].data.utf8.count
      head += 1
      count -= 1
      if head == chunks[first].count {
        chunks[first] = []
        first += 1
        head = 0
      }
    }
    // The emptied hand-overs' slots go now and then, not at every drop.
    if first > 64 && first * 2 > chunks.count {
      chunks.removeFirst(first)
      starts.removeFirst(first)
      first = 0
    }
  }

  /// The kept events as a collection (positions from 0, oldest first), sharing the log's
  /// hand-overs: reading one by position finds its hand-over by a binary search; going through
  /// them in order walks the hand-overs.
  public struct Kept: RandomAccessCollection, Sendable {
    fileprivate let chunks: [[StreamEvent]]
    fileprivate let starts: [Int]
    fileprivate let first: Int
    fileprivate let head: Int
    public let count: Int

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> StreamEvent {
      precondition(position >= 0 && position < count, "position \(position) of \(count) kept events")
      let wanted = starts[first] + head + position
      // The last hand-over that starts at or before the wanted event.
      var low = first
      var high = chunks.count - 1
      while low < high {
        let middle = (low + high + 1) / 2
        if starts[middle] <= wanted { low = middle } else { high = middle - 1 }
      }
      return chunks[low][wanted - starts[low]]
    }

    public func makeIterator() -> Iterator {
      Iterator(chunks: chunks, chunk: first, index: head, left: count)
    }

    public struct Iterator: IteratorProtocol {
      fileprivate let chunks: [[StreamEvent]]
      fileprivate var chunk: Int
      fileprivate var index: Int
      fileprivate var left: Int

      public mutating func next() -> StreamEvent? {
        guard left > 0 else { return nil }
        while index >= chunks[chunk].count {
          chunk += 1
          index = 0
        }
        defer {
          index += 1
          left -= 1
        }
        return chunks[chunk][index]
      }
    }
  }
}
