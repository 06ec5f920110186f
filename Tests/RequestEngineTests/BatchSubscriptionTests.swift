import Foundation
import RequestEngine
import TestSupport
import Testing

/// `subscribeBatches`: the same events as `subscribe`, in the same order, handed over once per
/// pass of the engine loop; a completion runs after its `finished` event was handed over.
@Suite("Agent: batched event delivery")
struct BatchSubscriptionTests {
  @Test func batchesHoldTheSameEventsInOrderAndCompletionsComeAfter() throws {
    let agent = Agent()
    let single = LockedBox<[String]>([])
    let batched = LockedBox<[[String]]>([])
    agent.subscribe { event in single.mutate { $0.append(Self.label(event)) } }
    agent.subscribeBatches { events in batched.mutate { $0.append(events.map(Self.label)) } }
    let lateCompletions = LockedBox(0)
    let done = DispatchSemaphore(value: 0)
    let url = try fixture("/delay/0.05?key=\(uniqueKey())")
    for _ in 0..<40 {
      agent.send(Request(url: url, dedup: false)) { result in
        // The batch with this exchange's `finished` event was handed over already.
        let seen = batched.get().joined().contains("finished-\(result.id.rawValue)")
        if !seen { lateCompletions.mutate { $0 += 1 } }
        done.signal()
      }
    }
    for _ in 0..<40 { #expect(done.wait(timeout: .now() + 30) == .success) }
    agent.shutdown()
    #expect(Array(batched.get().joined()) == single.get())
    #expect(batched.get().count < single.get().count, "events were handed over several at a time")
    #expect(lateCompletions.get() == 0)
  }

  /// `finished-12`: the event's kind and exchange.
  static func label(_ event: AgentEvent) -> String {
    String(describing: event).prefix(while: { $0 != "(" }) + "-\(event.exchangeID.rawValue)"
  }
}
