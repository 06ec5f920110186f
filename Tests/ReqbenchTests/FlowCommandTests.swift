import Foundation
import RequestEngine
import TestSupport
import Testing

@Suite("reqbench run: batches and chains")
struct FlowCommandTests {
  func workspace() throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rb-" + uniqueKey())
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let path = dir.appendingPathComponent("f.json").path
    try """
      {"version": 1, "baseURL": "\(try TestServer.fixture.baseURL)",
       "requests": [
         {"name": "auth/login", "method": "POST", "url": "/auth/login", "body": {"json": {"user": "ada", "password": "lovelace"}}},
         {"name": "users/me", "url": "/me", "auth": {"bearer": "{{token}}"}},
         {"name": "users/get", "url": "/users/{{id}}"},
         {"name": "broken", "url": "/status/500"}
       ],
       "chains": [{"name": "login-flow", "steps": [
         {"request": "auth/login", "capture": {"token": ".token", "uid": ".user.id"}},
         {"request": "users/me"},
         {"request": "users/get", "vars": {"id": "{{uid}}"}}]}],
       "batches": [{"name": "smoke", "members": ["users/get", "login-flow", "broken"], "policy": "allSettled"}]}
      """.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test func aChainInJSON() throws {
    let result = try runProcess(try reqbenchBinary, ["run", try workspace(), "login-flow", "--var", "id=1", "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    let lines = try result.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
    #expect(lines.filter { $0["event"] == "step" }.map { $0["step"]?.intValue } == [1, 2, 3])
    #expect(lines.contains { $0["event"] == "captured" && $0["values"]?["uid"] == "1" })
    let finished = lines.filter { $0["event"] == "finished" }
    #expect(finished.map { $0["chain"] } == ["login-flow", "login-flow", "login-flow"])
    #expect(finished.map { $0["step"]?.intValue } == [1, 2, 3])
    let summary = try #require(lines.last)
    let chain = try #require(summary["results"]?.arrayValue?.first)
    #expect(chain["kind"] == "chain")
    #expect(chain["state"] == "succeeded")
    #expect(chain["steps"]?.arrayValue?.count == 3)
    #expect(chain["steps"]?.arrayValue?.first?["captured"]?["uid"] == "1")
    #expect(chain["captured"]?["token"]?.stringValue?.isEmpty == false)
  }

  // Every event of a batch's exchanges carries the batch's name (started and progress too, which
  // the agent sends with only an id); a chain's step events inside it carry the batch as well.
  @Test func aBatchInJSON() throws {
    let result = try runProcess(try reqbenchBinary, ["run", try workspace(), "smoke", "--var", "id=2", "--json"])
    #expect(result.status == 1, "\(result.stderr)")
    let lines = try result.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
    let exchangeEvents = lines.filter { ["queued", "started", "progress", "finished"].contains($0["event"]?.stringValue ?? "") }
    let kinds = Set(exchangeEvents.compactMap { $0["event"]?.stringValue })
    #expect(kinds.isSuperset(of: ["queued", "started", "finished"]))
    for event in exchangeEvents {
      #expect(event["batch"] == "smoke", "\(JSONSerializer.compact(event))")
      #expect(event["name"]?.stringValue?.isEmpty == false, "\(JSONSerializer.compact(event))")
    }
    let started = lines.filter { $0["event"] == "started" }
    #expect(started.count == 5)
    #expect(started.filter { $0["chain"] == "login-flow" }.compactMap { $0["step"]?.intValue }.sorted() == [1, 2, 3])
    #expect(Set(started.compactMap { $0["name"]?.stringValue }) == ["users/get", "auth/login", "users/me", "broken"])
    let steps = lines.filter { $0["event"] == "step" }
    #expect(steps.count == 3)
    #expect(steps.allSatisfy { $0["batch"] == "smoke" && $0["chain"] == "login-flow" })
    let ended = lines.filter { $0["event"] == "stepFinished" }
    #expect(ended.map { $0["step"]?.intValue } == [1, 2, 3])
    #expect(ended.allSatisfy { $0["batch"] == "smoke" && $0["state"] == "succeeded" })
    let members = lines.filter { $0["event"] == "member" }
    #expect(members.compactMap { $0["index"]?.intValue }.sorted() == [0, 1, 2])
    #expect(members.map { $0["done"]?.intValue } == [1, 2, 3])
    let summary = try #require(lines.last)
    let batch = try #require(summary["results"]?.arrayValue?.first)
    #expect(batch["kind"] == "batch")
    #expect(batch["fromCache"] == false)
    #expect(batch["succeeded"]?.intValue == 2 && batch["failed"]?.intValue == 1 && batch["cancelled"]?.intValue == 0)
  }

  @Test func aBatchInLines() throws {
    let result = try runProcess(try reqbenchBinary, ["run", try workspace(), "smoke", "--var", "id=2"])
    #expect(result.status == 1)
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(lines.contains { $0.hasPrefix("✓ 200  smoke › users/get") })
    #expect(lines.contains { $0.hasPrefix("✓ 200  smoke › login-flow 3/3 › users/get") })
    #expect(lines.contains { $0.hasPrefix("✗ 500  smoke › broken") })
    #expect(lines.contains { $0.hasPrefix("✗ batch smoke  4/5 succeeded") || $0.hasPrefix("✗ batch smoke  2/3 succeeded") })
    #expect(result.stderr.contains("0 succeeded, 1 failed, 0 cancelled"))
  }

  @Test func resumeAChainFromAStep() throws {
    let ws = try workspace()
    let result = try runProcess(try reqbenchBinary, ["run", ws, "login-flow", "--from-step", "3", "--var", "uid=2", "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    let summary = try JSONParser.parse(String(try #require(result.stdout.split(separator: "\n").last)))
    let steps = try #require(summary["results"]?.arrayValue?.first?["steps"]?.arrayValue)
    #expect(steps.map { $0["step"]?.intValue } == [3])
    #expect(steps.first?["url"]?.stringValue?.hasSuffix("/users/2") == true)
    let past = try runProcess(try reqbenchBinary, ["run", ws, "login-flow", "--from-step", "9"])
    #expect(past.status == 2)
    #expect(past.stderr.contains("has 3 steps"))
    let notAChain = try runProcess(try reqbenchBinary, ["run", ws, "broken", "--from-step", "2"])
    #expect(notAChain.status == 2)
  }

  @Test func unknownFlowTargetsSuggest() throws {
    let result = try runProcess(try reqbenchBinary, ["run", try workspace(), "login-flw"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("did you mean \"login-flow\"?"))
  }
}
