import TestSupport
import Testing

@testable import RequestEngine

/// The agent's queue against a plain sorted array, through its head moves and compactions.
@Suite("StartQueue")
struct StartQueueTests {
  @Test func itKeepsStartOrderThroughHeadMovesAndCompactions() {
    var generator = SplitMix(seed: 16)
    var queue = StartQueue()
    var model: [StartQueue.Key] = []
    let priorities: [Priority] = [.low, .normal, .high]
    var sequence: UInt64 = 0
    var longest = 0
    func sorted(_ keys: [StartQueue.Key]) -> [ExchangeID] {
      keys.sorted { $0.priority != $1.priority ? $0.priority > $1.priority : $0.sequence < $1.sequence }.map(\.id)
    }
    for step in 0..<3_000 {
      switch generator.next() % 10 {
      case 0..<4:  // arrivals, in bursts like a batch's
        for _ in 0..<(1 + Int(generator.next() % 8)) {
          sequence += 1
          let key = (priority: priorities[Int(generator.next() % 3)], sequence: sequence, id: ExchangeID(rawValue: sequence))
          queue.insert(key)
          model.append(key)
        }
      case 4..<8:  // the front starts, a few at a time
        for _ in 0..<min(queue.count, 1 + Int(generator.next() % 8)) {
          let id = queue[0].id
          queue.remove(at: 0)
          model.removeAll { $0.id == id }
        }
      case 8 where queue.count > 0:  // one further back starts (its host was free)
        let position = Int(generator.next() % UInt64(queue.count))
        let id = queue[position].id
        queue.remove(at: position)
        model.removeAll { $0.id == id }
      case 9 where queue.count > 0:  // a cancel, or a hand-over
        let id = model[Int(generator.next() % UInt64(model.count))].id
        if generator.next() % 2 == 0 {
          queue.remove(id)
          model.removeAll { $0.id == id }
        } else {
          let heir = ExchangeID(rawValue: 1_000_000 + UInt64(step))
          queue.rename(id, to: heir)
          if let index = model.firstIndex(where: { $0.id == id }) { model[index].id = heir }
        }
      default:
        break
      }
      longest = max(longest, queue.count)
      guard queue.ids == sorted(model), queue.count == model.count else {
        Issue.record("step \(step): \(queue.ids) != \(sorted(model))")
        return
      }
    }
    #expect(longest > 128, "the queue never grew past the compaction threshold")
  }
}
