import Foundation
import RequestEngine
import TestSupport
import Testing

@Suite("reqbench run: batches and chains")
struct FlowCommandTests {
  func workspace() throws -> String {
    let dir = scratchURL("rb")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let path = dir.appendingPathComponent("f.json").path
    try """
      {"version": 1, "baseURL": "\(try TestServer.fixture.baseURL)",
       "requests": [
         {"name": "auth/login", "method": "POST", "url": "/auth/login", "body": {"json": {"user": "ada", "password": "lovelace"}}},
         {"name": "users/me", "url": "/me", "auth": {"bearer": "{{token}}"}},
         {"name": "users/get", "url": "/users/{{id}}"},
         {"name": "broken", "url": "/status/500"},
         {"name": "nobuild", "url": "/x/{{nowhere}}"}
       ],
       "chains": [{"name": "login-flow", "steps": [
         {"request": "auth/login", "capture": {"token": ".token", "uid": ".user.id"}},
         {"request": "users/me"},
         {"request": "users/get", "vars": {"id": "{{uid}}"}}]},
         {"name": "badcap", "steps": [{"request": "auth/login", "capture": {"token": ".nope"}}, {"request": "users/me"}]}],
       "batches": [{"name": "smoke", "members": ["users/get", "login-flow", "broken"], "policy": "allSettled"},
         {"name": "stopped", "members": ["nobuild", "login-flow"], "policy": "failFast"}]}
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
    // A chain member nests its steps.
    let chain = try #require(batch["members"]?.arrayValue?.first { $0["name"] == "login-flow" })
    #expect(chain["kind"] == "chain")
    #expect(chain["steps"]?.arrayValue?.map { $0["step"]?.intValue } == [1, 2, 3])
    #expect(chain["steps"]?.arrayValue?.first?["captured"]?["uid"] == "1")
    // A failed member's event carries its error.
    let failed = try #require(members.first { $0["name"] == "broken" })
    #expect(failed["state"] == "failed")
    #expect(failed["message"]?.stringValue?.hasPrefix("status 500") == true, "\(JSONSerializer.compact(failed))")
    #expect(members.first { $0["name"] == "login-flow" }?["kind"] == "chain")
  }

  // A step whose capture failed is a failed step everywhere: its `stepFinished`, the `flow`
  // event's and the summary's `steps[]`; the chain's line counts its every step.
  @Test func aFailedCaptureIsAFailedStep() throws {
    let ws = try workspace()
    let result = try runProcess(try reqbenchBinary, ["run", ws, "badcap", "--json"])
    #expect(result.status == 1, "\(result.stderr)")
    let lines = try result.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
    #expect(lines.filter { $0["event"] == "stepFinished" }.map { $0["state"] } == ["failed"])
    let flow = try #require(lines.first { $0["event"] == "flow" })
    let summary = try #require(lines.last?["results"]?.arrayValue?.first)
    for chain in [flow, summary] {
      #expect(chain["state"] == "failed")
      #expect(chain["failedStep"]?.intValue == 1)
      let step = try #require(chain["steps"]?.arrayValue?.first)
      #expect(step["state"] == "failed", "\(JSONSerializer.compact(step))")
      #expect(step["status"]?.intValue == 200)
      #expect(step["error"]?["kind"] == "capture")
    }
    let text = try runProcess(try reqbenchBinary, ["run", ws, "badcap"])
    #expect(text.status == 1)
    let line = try #require(text.stdout.split(separator: "\n").first { $0.hasPrefix("✗ chain badcap") })
    #expect(line.hasPrefix("✗ chain badcap  0/2 steps, failed at step 1 of 2 (auth/login): capture token: .nope found nothing"), "\(line)")
    let ok = try runProcess(try reqbenchBinary, ["run", ws, "login-flow"])
    #expect(ok.stdout.contains("✓ chain login-flow  3/3 steps"), "\(ok.stdout)")
    // The captured-value line.
    #expect(ok.stdout.split(separator: "\n").contains { $0.hasPrefix("  login-flow step 1 captured token=") && $0.hasSuffix(" uid=1") }, "\(ok.stdout)")
  }

  // A member fail fast stopped before it started keeps its kind; the failure is not named twice.
  @Test func aMemberStoppedBeforeItStartedKeepsItsKind() throws {
    let result = try runProcess(try reqbenchBinary, ["run", try workspace(), "stopped", "--json"])
    #expect(result.status == 1, "\(result.stderr)")
    let lines = try result.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
    let batch = try #require(lines.last?["results"]?.arrayValue?.first)
    let members = try #require(batch["members"]?.arrayValue)
    #expect(members.map { $0["kind"] } == ["request", "chain"])
    #expect(members.map { $0["state"] } == ["failed", "cancelled"])
    let message = try #require(batch["error"]?["message"]?.stringValue)
    // The place in the workspace file, then what is wrong: `nobuild failed: FILE:7:31: undefined…`.
    #expect(message.hasPrefix("nobuild failed: /"), "\(message)")
    #expect(message.contains(".json:7:31: undefined variable {{nowhere}} in url"), "\(message)")
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

  // `--from-step N` continues with what the last run of the chain captured: a chain fails at
  // step 2 (refused), then `--from-step 2` sends step 2 with step 1's token, without sending step
  // 1 again. The values are kept in the state folder, mode 0600, and never printed on resume.
  @Test func resumeReusesTheLastRunsCaptures() throws {
    let key = uniqueKey()
    let (ws, dir) = try workspaceFile(
      """
      {"version": 1, "baseURL": "\(try TestServer.fixture.baseURL)",
       "requests": [
         {"name": "login", "method": "POST", "url": "/auth/login?key=\(key)-login", "body": {"json": {"user": "ada", "password": "lovelace"}}},
         {"name": "me", "url": "{{mehost}}/me", "auth": {"bearer": "{{token}}"}}
       ],
       "chains": [{"name": "auth/flow", "steps": [
         {"request": "login", "capture": {"token": ".token", "uid": ".user.id"}}, {"request": "me"}]}]}
      """, named: "r.json")
    let failed = try runProcess(try reqbenchBinary, ["run", ws, "auth/flow", "--var", "mehost=http://127.0.0.1:1", "--json"])
    #expect(failed.status == 1, "\(failed.stderr)")
    let last = try #require(failed.stdout.split(separator: "\n").last)
    let token = try #require(try JSONParser.parse(String(last))["results"]?.arrayValue?.first?["captured"]?["token"]?.stringValue)
    let file = dir.appendingPathComponent(".reqbench/r/chains/auth%2Fflow.json")
    let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
    #expect(mode == 0o600)
    let resumed = try runProcess(
      try reqbenchBinary, ["run", ws, "auth/flow", "--from-step", "2", "--var", "mehost=\(try TestServer.fixture.baseURL)"])
    #expect(resumed.status == 0, "\(resumed.stdout)\n\(resumed.stderr)")
    #expect(resumed.stdout.contains("✓ 200  auth/flow 2/2 › me"), "\(resumed.stdout)")
    #expect(resumed.stdout.contains("✓ chain auth/flow  2/2 steps"), "\(resumed.stdout)")
    #expect(resumed.stderr.contains("auth/flow from step 2 with token, uid captured by its last run"), "\(resumed.stderr)")
    #expect(!resumed.stdout.contains(token) && !resumed.stderr.contains(token))
    #expect(try hits("\(key)-login") == 1)
    // An explicit --var wins over the kept value: a wrong token is refused.
    let given = try runProcess(
      try reqbenchBinary, ["run", ws, "auth/flow", "--from-step", "2", "--var", "mehost=\(try TestServer.fixture.baseURL)", "--var", "token=nope"])
    #expect(given.status == 1)
    #expect(given.stdout.contains("✗ 401"), "\(given.stdout)")
    #expect(try hits("\(key)-login") == 1)
  }

  // The demo's login chain, as workspaces/demo.json ships it, against the embedded
  // demo server: every capture (jq, header:ETag, status) finds its value.
  @Test func theDemoChainRunsAgainstTheDemoServer() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let server = Process()
    server.executableURL = try reqbenchBinary
    server.arguments = ["demo-server", "--port", "0"]
    let pipe = Pipe()
    server.standardOutput = pipe
    try server.run()
    defer { server.terminate(); server.waitUntilExit() }
    var first = ""
    while !first.contains("\n") {
      let data = PipeRead.some(pipe.fileHandleForReading.fileDescriptor)
      guard !data.isEmpty else { break }
      first += String(decoding: data, as: UTF8.self)
    }
    let host = try #require(first.split(separator: " ").last.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
    #expect(host.hasPrefix("http://127.0.0.1:"), "\(first)")
    let state = scratchURL("rb-demo-state").path
    let result = try runProcess(
      try reqbenchBinary,
      ["run", root.appendingPathComponent("workspaces/demo.json").path, "login-flow", "--var", "host=\(host)", "--state-dir", state, "--json"])
    #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
    let summary = try JSONParser.parse(String(try #require(result.stdout.split(separator: "\n").last)))
    let chain = try #require(summary["results"]?.arrayValue?.first)
    #expect(chain["state"] == "succeeded")
    #expect(chain["steps"]?.arrayValue?.count == 3)
    #expect(chain["captured"]?["uid"] == "1")
    #expect(chain["captured"]?["etag"] == "\"user-1\"")
    #expect(chain["captured"]?["code"] == "200")
    #expect(chain["captured"]?["token"]?.stringValue?.isEmpty == false)
  }

  @Test func unknownFlowTargetsSuggest() throws {
    let result = try runProcess(try reqbenchBinary, ["run", try workspace(), "login-flw"])
    #expect(result.status == 2)
    #expect(result.stderr.contains("did you mean \"login-flow\"?"))
  }
}
