import Foundation
import RequestEngine
import TestSupport
import Testing

/// Hostile servers through the real binary, against the fixture server: a chain capture from a
/// server's response cannot add a header, and a redirect cannot take a secret to another origin
/// or reqbench to another scheme.
@Suite("Hostile servers, end to end")
struct HostileServerCommandTests {
  // A chain capture cannot inject a header: step 1's response echoes `\r\nX-Injected: fromserver`, the
  // chain captures it, and step 2 would put it in a header: refused before step 2 is sent.
  @Test func aChainCaptureCannotInjectAHeader() throws {
    let key = uniqueKey("inject")
    let (ws, _) = try workspaceFile(try injectingChainWorkspace(key: key))
    let result = try runProcess(try reqbenchBinary, ["run", ws, "chain", "--no-history"], timeout: 60)
    #expect(result.status != 0, "\(result.stderr)")
    // The step's failure is on the chain's line (stdout), the tally on stderr.
    #expect(
      (result.stdout + result.stderr).contains(
        #"header "X-Token": {{tok}} (captured from a server's response by an earlier step of the chain) contains CR (\r)"#),
      "\(result.stdout)\n\(result.stderr)")
    #expect(try hits(key) == 0)
    // What step 1 captured is shown on one line: the server's line break cannot start a line.
    #expect(!result.stdout.split(separator: "\n").contains { $0.hasPrefix("X-Injected") }, "\(result.stdout)")
    #expect(result.stdout.contains(#"captured tok=\r\nX-Injected"#), "\(result.stdout)")
  }

  // `X-Api-Key: {{secret.k}}` reaches the first origin, not the one a redirect points to
  // (httpbin, another port), while a plain header does.
  @Test func aSecretHeaderStaysBehindOnARedirectToAnotherOrigin() throws {
    let secret = "s3cr3t-\(uniqueKey())"
    let target = QueryEncoder.encodeComponent(try TestServer.httpbin.url("/headers"))
    let ws = try fixtureWorkspace(
      #"""
      {"name": "away", "url": "/redirect-to?url=\#(target)", "headers": {"X-Api-Key": "{{secret.k}}", "X-Plain": "visible"}},
      {"name": "home", "url": "/redirect-to?url=%2Fheaders", "headers": {"X-Api-Key": "{{secret.k}}"}}
      """#)
    let env = ["REQBENCH_SECRET_K": secret]
    let away = try runProcess(try reqbenchBinary, ["run", ws, "away", "--no-history"], environment: env)
    #expect(away.status == 0, "\(away.stderr)")
    let received = try #require(try JSONParser.parse(away.stdout)["headers"]?.objectValue, "\(away.stdout)")
    #expect(received["X-Plain"] == "visible")
    #expect(received["X-Api-Key"] == nil)
    #expect(!away.stdout.contains(secret) && !away.stderr.contains(secret))
    // The first origin gets it.
    let home = try runProcess(try reqbenchBinary, ["run", ws, "home", "--no-history"], environment: env)
    #expect(home.status == 0, "\(home.stderr)")
    #expect(try JSONParser.parse(home.stdout)["headers"]?["X-Api-Key"] != nil, "\(home.stdout)")
  }

  // A redirect to ftp:// is refused and the listener there gets nothing (before, reqbench
  // sent it `USER anonymous`).
  @Test func aRedirectToFTPIsRefused() throws {
    let listener = try LoopbackListener()
    let ws = try fixtureWorkspace(
      #"{"name": "ftp", "url": "/redirect-to?url=ftp%3A%2F%2F127.0.0.1%3A\#(listener.port)%2Fx"}"#)
    let result = try runProcess(try reqbenchBinary, ["run", ws, "ftp", "--no-history"])
    #expect(result.status == 1, "\(result.stderr)")
    #expect(
      result.stderr.contains("redirect refused: status 302 points to ftp://127.0.0.1:\(listener.port)/x; only http and https redirects are followed"),
      "\(result.stderr)")
    #expect(listener.connections() == 0)
  }
}
