import Foundation
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

/// A request's `compressed`, `proxy`, `noProxy` and `requestTarget`: read, checked with line and column, written
/// back, and prepared into the request the engine sends.
@Suite("workspace: compressed, proxy and noProxy")
struct ProxyAndCompressedFieldTests {
  @Test func readWrittenBackAndPrepared() throws {
    let text = """
      {"version": 1, "name": "w", "requests": [
      {"name": "a", "url": "http://a.test/x", "compressed": false, "proxy": "{{p}}", "noProxy": "localhost"}]}
      """
    let workspace = try Workspace.parse(Array(text.utf8), file: "w.json")
    let template = try #require(workspace.requests.first)
    #expect(template.compressed == false)
    #expect(template.proxy == "{{p}}")
    #expect(template.noProxy == "localhost")
    let request = try workspace.prepare(requestNamed: "a", variables: ["p": "http://127.0.0.1:3128"])
    #expect(request.compressed == false)
    #expect(request.proxy == "http://127.0.0.1:3128")
    #expect(request.noProxy == "localhost")
    // Written back as read; a request at its defaults writes none of them.
    let again = try Workspace.parse(workspace.encoded(), file: "w.json")
    #expect(again.requests.first?.proxy == "{{p}}" && again.requests.first?.compressed == false)
    let plain = try Workspace.parse(Array(#"{"version": 1, "name": "w", "requests": [{"name": "a", "url": "http://a.test"}]}"#.utf8), file: "w.json")
    let written = String(decoding: plain.encoded(), as: UTF8.self)
    #expect(!written.contains("compressed") && !written.contains("proxy"))
    #expect(try plain.prepare(requestNamed: "a").compressed)
  }

  @Test func badValuesAreErrorsAtTheirLineAndColumn() throws {
    let error = try #require(
      loadError(
        """
        {"version": 1, "name": "w", "requests": [
        {"name": "a", "url": "http://a.test", "proxy": "ftp://p.test",
         "compressed": "no", "noProxy": 3}]}
        """))
    #expect(
      error.problems.map(\.description) == [
        #"2:48: requests[0].proxy: the proxy scheme "ftp" is not one reqbench speaks; use http, https, socks4, socks4a, socks5, socks5h"#,
        "3:16: requests[0].compressed: expected true or false, found string",
        "3:33: requests[0].noProxy: expected a string, found number",
      ])
  }

  /// `requestTarget`: read, written back, prepared; a target with a space is an error at its
  /// place.
  @Test func aRequestTargetIsReadWrittenBackAndChecked() throws {
    let text = #"{"version": 1, "name": "w", "requests": [{"name": "o", "method": "OPTIONS", "url": "http://a.test/", "requestTarget": "*"}]}"#
    let workspace = try Workspace.parse(Array(text.utf8), file: "w.json")
    #expect(workspace.requests.first?.requestTarget == "*")
    #expect(try workspace.prepare(requestNamed: "o").requestTarget == "*")
    #expect(try Workspace.parse(workspace.encoded(), file: "w.json").requests.first?.requestTarget == "*")
    let error = try #require(
      loadError(#"{"version": 1, "name": "w", "requests": [{"name": "o", "url": "http://a.test/", "requestTarget": "/a b"}]}"#))
    #expect(
      error.problems.map(\.description) == [
        "1:98: requests[0].requestTarget: is not a request target (visible ASCII, no spaces: * for OPTIONS *, or /path?query)"
      ])
  }
}
