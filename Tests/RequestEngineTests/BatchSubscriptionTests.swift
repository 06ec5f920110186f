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

  /// `kinds`: a subscriber gets only the kinds it asked for, in the same order, and a pass
  /// without any of them is not handed over; another subscriber of every kind on the same agent
  /// still gets everything; with only the narrow one, the ends are all there is.
  @Test func aSubscriberGetsOnlyTheKindsItAskedFor() throws {
    let url = try fixture("/delay/0.02?key=\(uniqueKey())")
    for alsoEverything in [true, false] {
      let agent = Agent()
      let ends = LockedBox<[[String]]>([])
      let everything = LockedBox<[String]>([])
      agent.subscribeBatches(kinds: [.finished, .retrying]) { events in ends.mutate { $0.append(events.map(Self.label)) } }
      if alsoEverything {
        agent.subscribeBatches { events in everything.mutate { $0.append(contentsOf: events.map(Self.label)) } }
      }
      let done = DispatchSemaphore(value: 0)
      var ids: [UInt64] = []
      for _ in 0..<10 { ids.append(agent.send(Request(url: url, dedup: false)) { _ in done.signal() }.rawValue) }
      for _ in 0..<10 { #expect(done.wait(timeout: .now() + 30) == .success) }
      agent.shutdown()
      #expect(ends.get().allSatisfy { !$0.isEmpty }, "no empty hand-over")
      #expect(Set(ends.get().joined()) == Set(ids.map { "finished-\($0)" }))
      if alsoEverything {
        #expect(everything.get().filter { $0.hasPrefix("finished-") } == Array(ends.get().joined()))
        #expect(everything.get().filter { $0.hasPrefix("queued-") }.count == 10)
        #expect(everything.get().filter { $0.hasPrefix("started-") }.count == 10)
      }
    }
  }

  /// `finished-12`: the event's kind and exchange.
  static func label(_ event: AgentEvent) -> String {
    String(describing: event).prefix(while: { $0 != "(" }) + "-\(event.exchangeID.rawValue)"
  }
}
