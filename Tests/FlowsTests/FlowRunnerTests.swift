// Just over 500 lines because it is the engine's batch and chain scenarios as one suite, against
// one fixture server.
import Flows
import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// The engine's batch and chain scenarios (docs/engine-rules.md, "Scenarios"), against the fixture server.
///
/// Cases that do not apply (docs/testing.md has the full table):
/// - member callbacks and delegate order, a batch's accessories, all-settled's "cache complete"
///   callback: there are no callbacks, events are the API; `aBatchOfSuccesses` asserts their
///   order and `noMemberEventsAfterTheBatchFinished` that nothing follows the batch's `finished`.
/// - a batch started twice ("alreadyStarted"): a batch is started by name and every start is a
///   new run.
/// - dynamic chains: steps are declared; values flow through captures.
/// - adding a request to a chain twice: chains are declarative.
/// - no leak, a dropped run completes: `nothingRetainsARunAfterItEnds`.
@Suite("Batches and chains", .serialized)
struct FlowRunnerTests {
  let key = uniqueKey()

  func flows(_ extra: String = "") throws -> Workspace {
    try workspace(
      """
      {"version": 1, "baseURL": "\(try TestServer.fixture.baseURL)",
       "variables": {"myid": "5"}, "environment": "local",
       "environments": {"local": {"myid": "7"}},
       "requests": [
         {"name": "login", "method": "POST", "url": "/auth/login?key=\(key)-1",
          "body": {"json": {"user": "ada", "password": "lovelace"}}},
         {"name": "me", "url": "/me?key=\(key)-2", "auth": {"bearer": "{{token}}"}},
         {"name": "user", "url": "/users/{{id}}?key=\(key)-3"},
         {"name": "slow", "url": "/delay/3?key=\(key)-slow", "dedup": false},
         {"name": "broken", "url": "/status/500?key=\(key)-broken", "dedup": false},
         {"name": "broken2", "url": "/status/503?key=\(key)-broken", "dedup": false},
         {"name": "ok", "url": "/get?key=\(key)-ok", "dedup": false},
         {"name": "cached", "url": "/cache?key=\(key)-cached", "cache": {"seconds": 60}},
         {"name": "wait", "url": "/delay/2?key=\(key)-wait", "dedup": false},
         {"name": "unbuildable", "url": "/x/{{nowhere}}"},
         {"name": "echo-id", "url": "/get?key=\(key)-id", "query": {"id": "{{id}}"}, "dedup": false},
         {"name": "after", "url": "/get?key=\(key)-after", "dedup": false},
         {"name": "cached2", "url": "/cache?key=\(key)-cached2", "cache": {"seconds": 60}},
         {"name": "teapot", "url": "/status/418?key=\(key)-teapot", "validate": {"status": [418]}},
         {"name": "refused", "url": "http://127.0.0.1:1/refused", "dedup": false},
         {"name": "refused2", "url": "http://127.0.0.1:1/refused2", "dedup": false},
         {"name": "shapeless", "url": "/get?key=\(key)-shape", "validate": {"json": {"nope": "number"}}, "dedup": false},
         {"name": "huge-json", "url": "/hostile/json?mb=65&key=\(key)-huge", "dedup": false}
       ],
       "chains": [
         {"name": "login-flow", "steps": [
           {"request": "login", "capture": {"token": ".token", "uid": ".user.id", "code": "status", "type": "header:Content-Type"}},
           {"request": "me"},
           {"request": "user", "vars": {"id": "{{uid}}"}}]},
         {"name": "bad-capture", "steps": [
           {"request": "login", "capture": {"token": ".nope"}},
           {"request": "me"}]},
         {"name": "empty", "steps": []},
         {"name": "slow-chain", "steps": [{"request": "ok"}, {"request": "wait"}, {"request": "ok"}]},
         {"name": "cached-chain", "steps": [{"request": "cached"}, {"request": "ok"}]},
         {"name": "env-var", "steps": [{"request": "echo-id", "vars": {"id": "{{myid}}"}}]},
         {"name": "undefined-var", "steps": [
           {"request": "ok"}, {"request": "echo-id", "vars": {"id": "{{nowhere}}"}}, {"request": "ok"}]},
         {"name": "stop-on-500", "steps": [{"request": "ok"}, {"request": "broken"}, {"request": "after"}]},
         {"name": "no-header", "steps": [{"request": "ok", "capture": {"etag": "header:X-Nope"}}, {"request": "after"}]},
         {"name": "teapot-status", "steps": [{"request": "teapot", "capture": {"code": "status"}}, {"request": "after"}]},
         {"name": "stop-on-transport", "steps": [{"request": "ok"}, {"request": "refused"}, {"request": "after"}]},
         {"name": "stop-on-validation", "steps": [{"request": "ok"}, {"request": "shapeless"}, {"request": "after"}]},
         {"name": "go-on", "onFailure": "continue", "steps": [{"request": "ok"}, {"request": "broken"}, {"request": "ok"}]},
         {"name": "huge-capture", "steps": [{"request": "huge-json", "capture": {"x": ".a"}}, {"request": "after"}]}
       ],
       "batches": [
         {"name": "fast", "members": ["slow", "slow", "slow", "broken"], "policy": "failFast", "concurrency": 8},
         {"name": "settled", "members": ["ok", "broken", "login-flow", "ok"], "policy": "allSettled"},
         {"name": "twice", "members": ["broken", "broken2"], "policy": "failFast"},
         {"name": "none", "members": []},
         {"name": "all-ok", "members": ["ok", "login", "ok"]},
         {"name": "slow-batch", "members": ["slow", "slow", "slow", "slow", "slow"], "concurrency": 2},
         {"name": "settled-cancel", "members": ["ok", "broken", "ok", "ok", "slow"], "policy": "allSettled", "concurrency": 8},
         {"name": "all-cached", "members": ["cached", "cached2"]},
         {"name": "half-cached", "members": ["cached", "ok"]},
         {"name": "unbuilt", "members": ["slow", "unbuildable"], "policy": "failFast"},
         {"name": "refused-twice", "members": ["refused", "refused2"], "policy": "failFast"},
         {"name": "fast-with-chain", "members": ["slow", "slow-chain", "broken"], "policy": "failFast"}\(extra)
       ]}
      """)
  }

  /// A fixture log of `count` requests, each of whose connections has ended.
  static func ended(_ log: JSONValue, count: Int) -> Bool {
    guard let entries = log.arrayValue, entries.count == count else { return false }
    return entries.allSatisfy { $0["end"]?.doubleValue != nil }
  }

  func run(
    _ name: String, in workspace: Workspace, agent: Agent = Agent(), fromStep: Int = 1, captured: [(String, String)] = [],
    sources: VariableSources = VariableSources(processEnvironment: [:])
  ) -> (FlowOutcome, [FlowEvent]) {
    let runner = FlowRunner(agent: agent, workspace: workspace, sources: sources)
    let done = DispatchSemaphore(value: 0)
    let box = LockedBox<(FlowOutcome?, [FlowEvent])>((nil, []))
    runner.start(name, fromStep: fromStep, captured: captured, events: { event in box.mutate { $0.1.append(event) } }) { outcome in
      box.mutate { $0.0 = outcome }
      done.signal()
    }
    if done.wait(timeout: .now() + 60) == .timedOut { Issue.record("\(name) did not end within 60 s") }
    let (outcome, events) = box.get()
    return (outcome ?? FlowOutcome(kind: .request, name: name, state: .failed), events)
  }

  // Continue on failure (XPNetworking's option): the failed step does not stop the chain; the chain fails,
  // naming the steps that did.
  @Test func aChainThatGoesOnAfterAFailure() throws {
    let (outcome, _) = run("go-on", in: try flows())
    #expect(outcome.state == .failed)
    #expect(outcome.steps.map(\.state) == [.succeeded, .failed, .succeeded])
    #expect(outcome.step == 2)
    #expect(outcome.message?.hasPrefix("1 of 3 steps failed (the chain went on): step 2 (broken): status 500") == true, "\(outcome.message ?? "")")
    #expect(try hits("\(key)-ok") == 2)
  }

  // Steps strictly one after another, values flowing into the next requests.
  @Test func aChainCapturesAndRunsStrictlyInOrder() throws {
    let (outcome, events) = run("login-flow", in: try flows())
    #expect(outcome.state == .succeeded, "\(outcome.message ?? "")")
    try #require(outcome.steps.map(\.state) == [.succeeded, .succeeded, .succeeded])
    let captured = Dictionary(uniqueKeysWithValues: outcome.captured.map { ($0.name, $0.value) })
    #expect(captured["uid"] == "1")
    #expect(captured["code"] == "200")
    #expect(captured["type"]?.hasPrefix("application/json") == true)
    #expect((captured["token"]?.count ?? 0) > 8)
    #expect(outcome.steps[2].exchange?.request.url.contains("/users/1?") == true)
    #expect(events.filter { if case .step = $0 { true } else { false } }.count == 3)
    // The fixture saw each step start after the previous one had ended.
    let logs = try (1...3).map { try #require(try fixtureJSON("/log?key=\(key)-\($0)").arrayValue?.first) }
    for i in 1..<3 {
      let previousEnd = try #require(logs[i - 1]["end"]?.doubleValue)
      let start = try #require(logs[i]["start"]?.doubleValue)
      #expect(start >= previousEnd)
    }
  }

  // A failed capture: the chain stops, later steps are never sent.
  @Test func aFailedCaptureStopsTheChainAndShowsTheBody() throws {
    let (outcome, _) = run("bad-capture", in: try flows())
    #expect(outcome.state == .failed)
    #expect(outcome.step == 1)
    let message = try #require(outcome.steps.first?.message)
    #expect(message.contains("capture token: .nope found nothing in the body: {"))
    #expect(message.contains("\"token\""))
    #expect(try hits("\(key)-2") == 0)
  }

  // A capture reads at most 64 MB (it loads and parses the whole body; a 2 GiB
  // body took 4.2 GB of memory). Over it the step fails, naming the size, and the chain stops.
  @Test func aCaptureRefusesABodyOver64MB() throws {
    let (outcome, _) = run("huge-capture", in: try flows())
    #expect(outcome.state == .failed)
    #expect(outcome.step == 1)
    let message = try #require(outcome.steps.first?.message)
    #expect(message.hasPrefix("capture x: .a: the body is 65.0 MB, over the 64 MB a capture reads; capture from a smaller response"), "\(message)")
    #expect(try hits("\(key)-after") == 0)
  }

  // A step's `vars` are filled in from every source: here the selected environment.
  @Test func aStepVarReadsTheEnvironment() throws {
    let (outcome, _) = run("env-var", in: try flows())
    #expect(outcome.state == .succeeded, "\(outcome.message ?? "")")
    let url = try #require(outcome.steps.first?.exchange?.request.url)
    #expect(url.contains("id=7"), "\(url)")
  }

  // A step's own `vars` are the most specific values: they win over `--var` for that step, and
  // are filled in with `--var` like any template.
  @Test func aStepVarWinsOverTheCommandLine() throws {
    let flows = try flows()
    let (outcome, _) = run("env-var", in: flows, sources: VariableSources(overrides: ["id": "1"], processEnvironment: [:]))
    #expect(outcome.steps.first?.exchange?.request.url.contains("id=7") == true)
    let (given, _) = run("env-var", in: flows, sources: VariableSources(overrides: ["myid": "9"], processEnvironment: [:]))
    #expect(given.steps.first?.exchange?.request.url.contains("id=9") == true)
  }

  // An undefined variable in a step's `vars` fails the chain at that step, naming the variable,
  // the step and the chain; nothing of it is sent and the later steps never run.
  @Test func anUndefinedStepVarFailsTheChainBeforeSending() throws {
    let (outcome, _) = run("undefined-var", in: try flows())
    #expect(outcome.state == .failed)
    #expect(outcome.step == 2)
    let message = try #require(outcome.message)
    #expect(message.contains("{{nowhere}}"), "\(message)")
    #expect(message.contains("vars.id of step 2 (echo-id) of chain \"undefined-var\""), "\(message)")
    #expect(outcome.steps.map(\.state) == [.succeeded, .failed])
    #expect(try hits("\(key)-id") == 0)
    #expect(try hits("\(key)-ok") == 1)
  }

  // An empty chain succeeds at once (pinned).
  @Test func anEmptyChainSucceeds() throws {
    #expect(run("empty", in: try flows()).0.state == .succeeded)
  }

  // Resume: from the failed step, with the values captured so far.
  @Test func aChainResumesFromAStep() throws {
    let (outcome, _) = run("login-flow", in: try flows(), fromStep: 3, captured: [("uid", "2"), ("token", "x")])
    #expect(outcome.state == .succeeded)
    #expect(outcome.steps.count == 1)
    #expect(outcome.steps[0].step == 3)
    #expect(outcome.steps[0].exchange?.request.url.contains("/users/2?") == true)
    #expect(try hits("\(key)-1") == 0)
  }

  // Fail fast: the first failure cancels the others on the wire at once.
  @Test func failFastCancelsSiblingsOnTheWire() throws {
    let start = Date()
    let (outcome, _) = run("fast", in: try flows())
    // The siblings answer after 3 s: ending well before that means they were cancelled (a bound
    // with room for a loaded machine; this is not a speed measurement).
    #expect(Date().timeIntervalSince(start) < 2.5)
    #expect(outcome.state == .failed)
    #expect(outcome.message?.hasPrefix("broken failed: status 500") == true)
    #expect(outcome.members.filter { $0.state == .cancelled }.count == 3)
    // The fixture logs a connection's end when it sees it close.
    #expect(try fixtureEventually("/log?key=\(key)-slow") { Self.ended($0, count: 3) }, "the fixture saw 3 closed")
    let log = try #require(try fixtureJSON("/log?key=\(key)-slow").arrayValue)
    #expect(log.count == 3)
    #expect(log.allSatisfy { $0["completed"] == false })
    // On the wire soon after the failure, long before the 3 s answer: the fixture saw the
    // connections close (well under 100 ms on a quiet machine; 1 s leaves room for load).
    let failedAt = try #require(try fixtureJSON("/log?key=\(key)-broken").arrayValue?.first?["end"]?.doubleValue)
    let closedAt = log.compactMap { $0["end"]?.doubleValue }
    #expect(closedAt.count == 3)
    print("fail-fast: siblings closed \(closedAt.map { $0 - failedAt }) ms after the failure")
    #expect(closedAt.allSatisfy { $0 - failedAt < 1000 })
  }

  // Two members failing together give one batch failure, naming the first failure
  // delivered.
  @Test func twoFailuresGiveOneBatchFailure() throws {
    for _ in 0..<5 {
      let (outcome, events) = run("twice", in: try flows())
      #expect(outcome.state == .failed)
      #expect(events.filter { if case .finished = $0 { true } else { false } }.count == 1)
      let firstFailed = events.compactMap { event -> String? in
        if case .member(_, _, _, _, let member) = event, member.state == .failed { member.name } else { nil }
      }.first
      let first = try #require(firstFailed)
      #expect(outcome.message?.hasPrefix("\(first) failed: status 50") == true, "\(outcome.message ?? "")")
      // The other one failed too (after) or was cancelled; either way one batch failure.
      #expect(outcome.members.filter { $0.state == .failed }.first?.name == first)
    }
  }

  // A step failing on its status stops the chain; step 3 never reaches the fixture.
  @Test func aChainStopsOnAStatusFailure() throws {
    let (outcome, events) = run("stop-on-500", in: try flows())
    #expect(outcome.state == .failed)
    #expect(outcome.step == 2)
    #expect(outcome.steps.map(\.state) == [.succeeded, .failed])
    #expect(outcome.message?.hasPrefix("step 2 (broken) failed: status 500") == true, "\(outcome.message ?? "")")
    #expect(events.filter { if case .step = $0 { true } else { false } }.count == 2)
    // Each step reports its end, the failed one too.
    let ended = events.compactMap { if case .stepFinished(_, _, let step) = $0 { step.state } else { nil } }
    #expect(ended == [.succeeded, .failed])
    usleep(100_000)
    #expect(try hits("\(key)-after") == 0)
  }

  // A `header:` capture that finds no such header fails the step and stops the chain; a
  // `status` capture takes the status of any response the step accepts.
  @Test func headerAndStatusCaptures() throws {
    let (outcome, _) = run("no-header", in: try flows())
    #expect(outcome.state == .failed)
    #expect(outcome.steps.first?.errorKind == "capture")
    #expect(outcome.steps.first?.message == "capture etag: the response has no header X-Nope")
    #expect(try hits("\(key)-after") == 0)
    let (teapot, _) = run("teapot-status", in: try flows())
    #expect(teapot.state == .succeeded, "\(teapot.message ?? "")")
    #expect(teapot.steps.first?.captured.map(\.value) == ["418"])
  }

  // All settled: every member runs to its end; members may be chains.
  @Test func allSettledRunsEveryMember() throws {
    let (outcome, events) = run("settled", in: try flows())
    #expect(outcome.state == .failed)
    #expect(outcome.members.map(\.state) == [.succeeded, .failed, .succeeded, .succeeded])
    #expect(outcome.members[2].kind == .chain)
    #expect(outcome.message?.hasPrefix("1 of 4 failed, first broken") == true)
    let progress = events.compactMap { if case .member(_, _, let done, let total, _) = $0 { "\(done)/\(total)" } else { nil } }
    #expect(progress == ["1/4", "2/4", "3/4", "4/4"])
  }

  // An empty batch completes at once.
  @Test func anEmptyBatchSucceeds() throws {
    #expect(run("none", in: try flows()).0.state == .succeeded)
  }

  // Cancelling a batch cancels what runs and starts nothing more. Five slow members,
  // two at a time: the two running are closed on the wire, the three queued never go out.
  @Test func cancellingABatch() throws {
    let workspace = try flows()
    let runner = FlowRunner(agent: Agent(), workspace: workspace, sources: VariableSources(processEnvironment: [:]))
    let done = DispatchSemaphore(value: 0)
    let box = LockedBox<FlowOutcome?>(nil)
    let run = runner.start("slow-batch") { box.set($0); done.signal() }
    #expect(try fixtureEventually("/hits?key=\(key)-slow") { $0["hits"]?.intValue == 2 }, "two members on the wire")
    run.cancel()
    #expect(done.wait(timeout: .now() + 1) == .success)
    let outcome = try #require(box.get())
    #expect(outcome.state == .cancelled)
    #expect(outcome.members.count == 5)
    #expect(outcome.members.allSatisfy { $0.state == .cancelled })
    #expect(try fixtureEventually("/log?key=\(key)-slow") { Self.ended($0, count: 2) }, "the fixture saw 2 closed")
    let log = try #require(try fixtureJSON("/log?key=\(key)-slow").arrayValue)
    #expect(log.count == 2)
    #expect(log.allSatisfy { $0["completed"] == false })
    #expect(try hits("\(key)-slow") == 2)
  }

  // Only successes give one batch success, after the last member; every member keeps its
  // response.
  @Test func aBatchOfSuccesses() throws {
    let (outcome, events) = run("all-ok", in: try flows())
    #expect(outcome.state == .succeeded)
    #expect(outcome.message == nil)
    #expect(outcome.members.map(\.name) == ["ok", "login", "ok"])
    for member in outcome.members {
      #expect(member.exchange?.response?.status == 200)
      #expect(try member.exchange?.response?.body.bytes().isEmpty == false)
    }
    #expect(outcome.members[1].exchange?.request.url.contains("/auth/login") == true)
    let finished = events.indices.filter { if case .finished = events[$0] { true } else { false } }
    #expect(finished == [events.count - 1])
    let members = events.compactMap { if case .member(_, _, let done, _, _) = $0 { done } else { nil } }
    #expect(members == [1, 2, 3])
  }

  // A batch is from the cache iff every member was a cache hit.
  @Test func aBatchIsFromTheCacheWhenEveryMemberIs() throws {
    let folder = scratchURL("rb-flow-cache")
    defer { try? FileManager.default.removeItem(at: folder) }
    let agent = Agent(configuration: .init(cache: ResponseCache(folder: folder)))
    let workspace = try flows()
    let first = run("all-cached", in: workspace, agent: agent).0
    #expect(first.state == .succeeded)
    #expect(first.fromCache == false)
    let second = run("all-cached", in: workspace, agent: agent).0
    #expect(second.members.map { $0.exchange?.fromCache } == [true, true])
    #expect(second.fromCache == true)
    let mixed = run("half-cached", in: workspace, agent: agent).0
    #expect(mixed.members.map { $0.exchange?.fromCache } == [true, false])
    #expect(mixed.fromCache == false)
    #expect(FlowOutcome(kind: .batch, name: "none", state: .succeeded).fromCache == false)
  }

  // All settled with a cancelled member: it lists succeeded, failed and cancelled members.
  @Test func allSettledListsACancelledMember() throws {
    let agent = Agent()
    // The slow member is cancelled on its own as soon as it is queued.
    agent.subscribe { event in
      if case .queued(let id, let request) = event, request.name == "slow" { agent.cancel(id) }
    }
    let (outcome, _) = run("settled-cancel", in: try flows(), agent: agent)
    #expect(outcome.state == .failed)
    let states = outcome.members.map(\.state)
    #expect(states.indices.filter { states[$0] == .succeeded } == [0, 2, 3])
    #expect(states.indices.filter { states[$0] == .failed } == [1])
    #expect(states.indices.filter { states[$0] == .cancelled } == [4])
    #expect(outcome.message?.hasPrefix("1 of 5 failed, first broken") == true, "\(outcome.message ?? "")")
  }

  // Cancelling during step 2 cancels it and starts nothing more.
  @Test func cancellingAChainDuringAStep() throws {
    let runner = FlowRunner(agent: Agent(), workspace: try flows(), sources: VariableSources(processEnvironment: [:]))
    let done = DispatchSemaphore(value: 0)
    let box = LockedBox<FlowOutcome?>(nil)
    let run = runner.start("slow-chain") { box.set($0); done.signal() }
    #expect(try fixtureEventually("/hits?key=\(key)-wait") { $0["hits"]?.intValue == 1 }, "step 2 (2 s) is running")
    run.cancel()
    #expect(done.wait(timeout: .now() + 1) == .success)
    let outcome = try #require(box.get())
    #expect(outcome.state == .cancelled)
    #expect(outcome.steps.map(\.state) == [.succeeded, .cancelled])
    usleep(200_000)
    #expect(try hits("\(key)-ok") == 1)  // step 3 never went out
  }

  // A step served from the cache advances the chain normally.
  @Test func aCachedStepAdvancesTheChain() throws {
    let folder = scratchURL("rb-flow-cache")
    let agent = Agent(configuration: .init(cache: ResponseCache(folder: folder)))
    let workspace = try flows()
    _ = run("cached-chain", in: workspace, agent: agent)
    let (outcome, _) = run("cached-chain", in: workspace, agent: agent)
    #expect(outcome.state == .succeeded)
    #expect(outcome.steps.first?.exchange?.fromCache == true)
    #expect(try hits("\(key)-cached") == 1)
  }

  // A member that cannot be built fails a fail-fast batch; what started is cancelled.
  @Test func anUnbuildableMemberFailsTheBatch() throws {
    let start = Date()
    let (outcome, _) = run("unbuilt", in: try flows())
    // Before the started member's 3 s answer: it was cancelled, not waited for.
    #expect(Date().timeIntervalSince(start) < 2.5)
    #expect(outcome.state == .failed)
    #expect(outcome.message?.contains("undefined variable {{nowhere}}") == true)
    #expect(outcome.members.first?.state == .cancelled)
  }

  // Nothing retains a run once it has ended (finished or cancelled), and a run
  // whose caller dropped its handle still completes: the work in flight holds it until then.
  @Test func nothingRetainsARunAfterItEnds() throws {
    let runner = FlowRunner(agent: Agent(), workspace: try flows(), sources: VariableSources(processEnvironment: [:]))
    func released(_ run: () -> FlowRunner.Run?) -> Bool {
      for _ in 0..<100 where run() != nil { usleep(10_000) }
      return run() == nil
    }
    for name in ["login-flow", "settled"] {
      let done = DispatchSemaphore(value: 0)
      let box = LockedBox<FlowOutcome?>(nil)
      weak var dropped: FlowRunner.Run?
      dropped = runner.start(name) { box.set($0); done.signal() }
      #expect(dropped != nil, "\(name): the running flow holds its run")
      #expect(done.wait(timeout: .now() + 10) == .success, "\(name): a dropped run still completes")
      #expect(box.get()?.name == name)
      #expect(released { dropped }, "\(name): the ended run is released")
    }
    // Cancelled.
    let done = DispatchSemaphore(value: 0)
    weak var cancelled: FlowRunner.Run?
    do {
      let run = runner.start("slow-batch") { _ in done.signal() }
      cancelled = run
      #expect(try fixtureEventually("/hits?key=\(key)-slow") { $0["hits"]?.intValue == 2 }, "two members on the wire")
      run.cancel()
    }
    #expect(done.wait(timeout: .now() + 2) == .success)
    #expect(released { cancelled }, "the cancelled run is released")
  }

  // A step failing on transport (a refused connection) stops the chain.
  @Test func aChainStopsOnATransportFailure() throws {
    let (outcome, _) = run("stop-on-transport", in: try flows())
    #expect(outcome.state == .failed)
    #expect(outcome.step == 2)
    #expect(outcome.steps.map(\.state) == [.succeeded, .failed])
    #expect(outcome.steps.last?.errorKind != "capture")
    #expect(outcome.steps.last?.exchange?.response == nil)
    usleep(100_000)
    #expect(try hits("\(key)-after") == 0)
  }

  // A step whose response fails validation stops the chain.
  @Test func aChainStopsOnAValidationFailure() throws {
    let (outcome, _) = run("stop-on-validation", in: try flows())
    #expect(outcome.state == .failed)
    #expect(outcome.step == 2)
    #expect(outcome.steps.map(\.state) == [.succeeded, .failed])
    #expect(outcome.steps.last?.errorKind == "validation", "\(outcome.steps.last?.errorKind ?? "")")
    usleep(100_000)
    #expect(try hits("\(key)-after") == 0)
  }

  // Two members refused by a closed port fail at once, within the same millisecond or so;
  // one batch failure, naming the first member delivered.
  @Test func twoImmediateFailuresInTheSameMillisecond() throws {
    for _ in 0..<10 {
      let (outcome, events) = run("refused-twice", in: try flows())
      #expect(outcome.state == .failed)
      #expect(events.filter { if case .finished = $0 { true } else { false } }.count == 1)
      let delivered = events.compactMap { event -> FlowOutcome? in
        if case .member(_, _, _, _, let member) = event { member } else { nil }
      }
      let first = try #require(delivered.first { $0.state == .failed })
      #expect(outcome.message?.hasPrefix("\(first.name) failed: ") == true, "\(outcome.message ?? "")")
      #expect(outcome.errorKind == "member")
    }
  }

  // No further events after the batch failure: members cancelled by fail fast (a chain's
  // steps among them) report before the batch's `finished`, never after it.
  @Test func noMemberEventsAfterTheBatchFinished() throws {
    let (outcome, events) = run("fast-with-chain", in: try flows())
    #expect(outcome.state == .failed)
    usleep(300_000)
    let finished = events.indices.filter { if case .finished = events[$0] { true } else { false } }
    #expect(finished == [events.count - 1], "events after the batch finished: \(events.count - 1 - (finished.first ?? 0))")
    #expect(outcome.members.map(\.kind) == [.request, .chain, .request])
  }

  // A capture's jq expression is compiled when the workspace is read: a syntax error is a load
  // error at the expression, not a failure after step 1 was sent; jq's shell hint is left out.
  @Test func aCaptureThatDoesNotCompileIsALoadError() throws {
    let error = try #require(
      loadError(
        """
        {"version": 1, "requests": [{"name": "a", "url": "http://h.test/"}],
         "chains": [{"name": "c", "steps": [
           {"request": "a", "capture": {"ok": ".token", "bad": ".token |||"}}]}]}
        """))
    let text = error.description
    #expect(text == "test.json:3:56: chains[0].steps[0].capture.bad: .token ||| does not compile: jq: error: syntax error, unexpected '|' at line 1", "\(text)")
    #expect(text.contains("syntax error"), "\(text)")
    #expect(!text.contains("Unix shell quoting"), "\(text)")
    #expect(error.problems.count == 1)
    let jqError = try #require(throws: JQ.Failure.self) { try JQ.run(".x |||", input: Array("{}".utf8)) }
    #expect(!jqError.message.contains("Unix shell quoting"), "\(jqError.message)")
  }

  @Test func badReferencesAreLoadErrors() throws {
    let error = loadError(
      #"{"version": 1, "requests": [{"name": "a", "url": "http://h.test/"}], "chains": [{"name": "c", "steps": [{"request": "nope"}]}], "batches": [{"name": "a", "members": ["c", "zzz"]}]}"#)
    let text = error?.description ?? ""
    #expect(text.contains("chains[0].steps[0].request: no request named \"nope\""))
    #expect(text.contains("batches[0].name: \"a\" is already the name of a request, batch or chain"))
  }
}
