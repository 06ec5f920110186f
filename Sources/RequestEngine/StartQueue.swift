/// The agent's queue (`AgentCore`'s): exchanges in start order, priority first, then arrival.
///
/// Kept sorted in an array whose front is taken by moving a head index rather than by shifting
/// the rest: a batch of 1,000 queued would otherwise move every exchange behind the one that
/// starts, on every start. Inserting behind its equals (the usual case: same priority, later
/// arrival) appends.
struct StartQueue {
  typealias Key = (priority: Priority, sequence: UInt64, id: ExchangeID)

  private var items: [Key] = []
  /// Where the queue starts in `items` (what is before it has started).
  private var head = 0

  var count: Int { items.count - head }
  var isEmpty: Bool { head == items.count }
  var ids: [ExchangeID] { items[head...].map(\.id) }

  /// The `position`th exchange to start (0: the next).
  subscript(position: Int) -> Key { items[head + position] }

  /// Puts `key` after every exchange that starts before it (binary search).
  mutating func insert(_ key: Key) {
    var low = head
    var high = items.count
    while low < high {
      let mid = (low + high) / 2
      if Self.startsBefore(key, items[mid]) { high = mid } else { low = mid + 1 }
    }
    items.insert(key, at: low)
  }

  mutating func remove(at position: Int) {
    if position == 0 {
      head += 1
      // Drops what has started once it is most of the array (amortised O(1) per start).
      if head == items.count {
        items.removeAll(keepingCapacity: true)
        head = 0
      } else if head >= 64 && head * 2 >= items.count {
        items.removeFirst(head)
        head = 0
      }
    } else {
      items.remove(at: head + position)
    }
  }

  mutating func remove(_ id: ExchangeID) {
    if let position = position(of: id) { remove(at: position) }
  }

  /// `heir` takes `id`'s place (a dedup hand-over).
  mutating func rename(_ id: ExchangeID, to heir: ExchangeID) {
    if let position = position(of: id) { items[head + position].id = heir }
  }

  private func position(of id: ExchangeID) -> Int? {
    items[head...].firstIndex { $0.id == id }.map { $0 - head }
  }

  private static func startsBefore(_ a: Key, _ b: Key) -> Bool {
    a.priority != b.priority ? a.priority > b.priority : a.sequence < b.sequence
  }
}
