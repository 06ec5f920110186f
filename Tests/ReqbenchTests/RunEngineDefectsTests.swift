import Digest
import Foundation
import RequestEngine
import TestSupport
import Testing

/// `reqbench run` on the engine defects of issue 12 (a resume across a host change,
/// `Retry-After`, a redirect not followed) and what `--json` tells of the request as sent
/// (issue 11): the real binary against the fixture server.
@Suite("reqbench run: resume, retries, redirects, the request as sent")
struct RunEngineDefectsTests {
  func summary(_ stdout: String) throws -> JSONValue {
    try JSONParser.parse(String(try #require(stdout.split(separator: "\n").last)))
  }

  func firstResult(_ stdout: String) throws -> JSONValue {
    try #require(try summary(stdout)["results"]?.arrayValue?.first)
  }

  // Issue 11 ("see what was sent"): every result carries the request as curl sent it.
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
}
