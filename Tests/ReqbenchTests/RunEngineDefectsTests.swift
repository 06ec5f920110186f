import Digest
import Foundation
import RequestEngine
import TestSupport
import Testing

/// `reqbench run` on a resume across a host change, `Retry-After`, a redirect not followed, and
/// what `--json` tells of the request as sent: the real binary against the fixture server.
@Suite("reqbench run: resume, retries, redirects, the request as sent")
struct RunEngineDefectsTests {
  func summary(_ stdout: String) throws -> JSONValue {
    try JSONParser.parse(String(try #require(stdout.split(separator: "\n").last)))
  }

  func firstResult(_ stdout: String) throws -> JSONValue {
    try #require(try summary(stdout)["results"]?.arrayValue?.first)
  }

  // `--var host=…` changes between two runs (here the same fixture server by two
  // names); the second run resumes the first one's partial file and leaves nothing behind.
  @Test func aDownloadResumesWhenTheHostChangesBetweenRuns() throws {
    let base = try TestServer.fixture.baseURL
    let port = try #require(URLComponents(string: base)?.port)
    let (ws, folder) = try workspaceFile(
      #"""
      {"version": 1, "baseURL": "{{host}}/",
       "requests": [{"name": "big", "url": "bytes/4000000?seed=run-host&rate=4000000", "download": {"to": "big.bin"}}]}
      """#)
    let running = try RunningReqbench(["run", ws, "big", "--json", "--var", "host=http://127.0.0.1:\(port)"])
    // (The last line may still be partial: a line that is not JSON yet is not the one.)
    let reached = running.read { output in
      output.split(separator: "\n").reversed().contains { line in
        guard let event = try? JSONParser.parse(String(line)) else { return false }
        return event["event"] == "progress" && (event["downloaded"]?.intValue ?? 0) > 1_300_000
      }
    }
    #expect(reached, "a third of the file was down: \(running.output.suffix(500))")
    kill(running.pid, SIGINT)
    running.finish()
    #expect(running.process.terminationStatus == 130)
    let downloads = folder.appendingPathComponent(".reqbench/w/downloads").path
    #expect(((try? FileManager.default.contentsOfDirectory(atPath: downloads)) ?? []).count == 2)

    let again = try runProcess(try reqbenchBinary, ["run", ws, "big", "--json", "--var", "host=http://localhost:\(port)"])
    #expect(again.status == 0, "\(again.stderr)")
    let result = try firstResult(again.stdout)
    #expect(result["status"]?.intValue == 206)
    #expect((result["resumedFrom"]?.intValue ?? 0) > 1_000_000)
    #expect(result["restartReason"] == .null)
    let expected = Agent().sendAndWait(Request(url: try TestServer.fixture.url("/bytes/4000000?seed=run-host")))
    #expect(
      SHA256.hex(Array(try Data(contentsOf: folder.appendingPathComponent("big.bin"))))
        == SHA256.hex(try #require(expected.response).body.bytes()))
    #expect(((try? FileManager.default.contentsOfDirectory(atPath: downloads)) ?? []) == [])
  }

  // See what was sent: every result carries the request as curl sent it.
  @Test func jsonResultsCarryTheRequestAsSent() throws {
    let ws = try fixtureWorkspace(
      #"{"name": "create", "method": "POST", "url": "/anything", "headers": {"X-Token": "{{secret.token}}"}, "body": {"json": {"name": "Ada"}}}"#)
    let result = try runProcess(
      try reqbenchBinary, ["run", ws, "create", "--json"], environment: ["REQBENCH_SECRET_TOKEN": "hunter2-sent"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(!result.stdout.contains("hunter2-sent"))
    let sent = try #require(try firstResult(result.stdout)["sent"])
    #expect(sent["request"]?.stringValue == "POST /anything HTTP/1.1")
    let headers = (sent["headers"]?.arrayValue ?? []).compactMap { header -> (String, String)? in
      guard let name = header["name"]?.stringValue, let value = header["value"]?.stringValue else { return nil }
      return (name.lowercased(), value)
    }
    let names = headers.map(\.0)
    for expected in ["host", "user-agent", "content-length", "content-type", "x-token"] {
      #expect(names.contains(expected), "\(expected) missing from \(names)")
    }
    #expect(headers.first { $0.0 == "x-token" }?.1 == Redaction.mask)
    #expect(sent["body"]?["text"]?.stringValue == #"{"name":"Ada"}"#)
    #expect(sent["body"]?["bytes"]?.intValue == 14)
    #expect(sent["requests"]?.intValue == 1)
  }

  // The server's `Retry-After` is the wait, and `run` says so on stderr.
  @Test func aRetryWaitIsToldWithTheServersDelay() throws {
    let key = uniqueKey()
    let ws = try fixtureWorkspace(
      #"{"name": "flaky", "url": "/flaky?key=\#(key)&fail_first=1&retry_after=1", "retry": {"max": 1, "delay": 0.05}}"#)
    let started = Date()
    let plain = try runProcess(try reqbenchBinary, ["run", ws, "flaky"])
    #expect(plain.status == 0, "\(plain.stderr)")
    #expect(Date().timeIntervalSince(started) >= 0.95)
    #expect(plain.stderr.contains("flaky: status 503 is outside 200-299; retrying in 1.0 s (attempt 2)\n"), "\(plain.stderr)")
    #expect(plain.stderr.contains("flaky: 200 OK, "))

    let json = try fixtureWorkspace(
      #"{"name": "flaky", "url": "/flaky?key=\#(uniqueKey())&fail_first=1&retry_after=1", "retry": {"max": 1, "delay": 0.05}}"#)
    let events = try runProcess(try reqbenchBinary, ["run", json, "flaky", "--json"])
    let retrying = try events.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
      .filter { $0["event"] == "retrying" }
    #expect(retrying.count == 1)
    #expect(retrying.first?["delayMs"]?.doubleValue == 1000)
    #expect(retrying.first?["attempt"]?.intValue == 2)
  }

  // `followRedirects: false` gets the 3xx, and that is a success (curl without -L).
  @Test func aRedirectNotFollowedIsASuccess() throws {
    let ws = try fixtureWorkspace(
      #"{"name": "moved", "url": "/redirect-to?url=/get&status=302", "followRedirects": false}"#)
    let result = try runProcess(try reqbenchBinary, ["run", ws, "moved"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.hasPrefix("moved: 302 Found, "), "\(result.stderr)")
  }
}
