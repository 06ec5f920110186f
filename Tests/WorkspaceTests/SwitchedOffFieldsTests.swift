import Formats
import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// Headers and query parameters switched off (`{"value": …, "enabled": false}`): read with
/// positions, written back format-preserving, left out of sends, exports and cache keys.
@Suite struct SwitchedOffFieldsTests {
  let original = """
    {
      "version": 1,
      "baseURL": "http://127.0.0.1:1/",
      "defaults": {"headers": {"X-Client": "reqbench", "X-Old": {"value": "1", "enabled": false}}},
      "requests": [
        {"name": "one-line", "url": "anything", "headers": {"Accept": "application/json", "X-Debug": "1"}, "query": {"page": 2, "q": "a b"}},
        {
          "name": "multi-line",
          "url": "anything/m",
          "headers": {
            "Accept": "text/plain",
            "X-Trace": {"value": "t-1", "enabled": false},
            "X-On": {"value": "on", "enabled": true}
          },
          "query": {
            "verbose": {"value": "1", "enabled": false},
            "filter": {"value": {"a": 1}, "enabled": false},
            "nested": {"value": "x", "other": 1}
          }
        }
      ]
    }

    """

  @Test func switchedOffEntriesAreReadAndKept() throws {
    let ws = try workspace(original)
    let multi = try #require(ws.request(named: "multi-line"))
    #expect(multi.headers == ["Accept": "text/plain", "X-Trace": "t-1", "X-On": "on"])
    #expect(!multi.isEnabled(header: "x-trace") && multi.isEnabled(header: "X-On"))
    #expect(multi.sentHeaders == ["Accept": "text/plain", "X-On": "on"])
    // Only an object of exactly value and enabled is an entry: "nested" is a nested parameter.
    #expect(multi.query.keys == ["verbose", "filter", "nested"])
    #expect(multi.query["filter"] == ["a": 1])
    #expect(multi.query["nested"] == ["value": "x", "other": 1])
    #expect(multi.sentQuery.keys == ["nested"])
    #expect(ws.defaults.sentHeaders == ["X-Client": "reqbench"])
    #expect(text(ws.encoded()) == original, "an unchanged file is written back byte for byte")
  }

  @Test func aBadEntryIsAnErrorAtItsPlace() throws {
    func problems(_ headers: String) -> [String] {
      let file = #"{"version": 1, "requests": [{"name": "a", "url": "/a", "headers": \#(headers)}]}"#
      return loadError(file)?.problems.map(\.description) ?? []
    }
    #expect(problems(#"{"X": {"enabled": false}}"#) == [
      #"1:73: requests[0].headers.X: missing "value"; a header is "value" or {"value": "value", "enabled": false}"#
    ])
    #expect(problems(#"{"X": {"value": "1", "enabled": "no"}}"#) == [
      "1:99: requests[0].headers.X.enabled: expected true or false, found string"
    ])
    #expect(problems(#"{"X": {"value": "1", "on": true}}"#) == [
      "1:94: requests[0].headers.X.on: unknown header setting; use value and enabled"
    ])
    #expect(problems(#"{"X": {"value": 1, "enabled": false}}"#) == [
      "1:83: requests[0].headers.X.value: expected a string, found number"
    ])
    #expect(problems(#"{"X": {"value": "{{a", "enabled": false}}"#).first?.hasPrefix("1:83: requests[0].headers.X.value: ") == true)
    let query = #"{"version": 1, "requests": [{"name": "a", "url": "/a", "query": {"q": {"value": "{{", "enabled": false}}}]}"#
    #expect(loadError(query)?.problems.first?.description.hasPrefix("1:81: requests[0].query.q.value: ") == true)
  }

  @Test func switchingOffAndOnWritesOnlyThatEntry() throws {
    var ws = try workspace(original)
    try ws.modifyRequest(named: "one-line") {
      $0.setEnabled(false, header: "x-debug")
      $0.setEnabled(false, query: "q")
    }
    let off = text(ws.encoded())
    #expect(
      off
        == original.replacingOccurrences(
          of: #""X-Debug": "1"}, "query": {"page": 2, "q": "a b"}}"#,
          with: #""X-Debug": {"value": "1", "enabled": false}}, "query": {"page": 2, "q": {"value": "a b", "enabled": false}}}"#))
    #expect(try workspace(off).request(named: "one-line")?.sentHeaders == ["Accept": "application/json"])

    // In an object written one member a line, a switched-off entry stays on its line.
    try ws.modifyRequest(named: "multi-line") {
      $0.setEnabled(false, header: "Accept")
      $0.setEnabled(true, header: "X-Trace")
      $0.setEnabled(true, query: "verbose")
    }
    #expect(
      text(ws.encoded())
        == off.replacingOccurrences(
          of: #""Accept": "text/plain","#, with: #""Accept": {"value": "text/plain", "enabled": false},"#
        ).replacingOccurrences(of: #""X-Trace": {"value": "t-1", "enabled": false},"#, with: #""X-Trace": "t-1","#)
        .replacingOccurrences(of: #""verbose": {"value": "1", "enabled": false},"#, with: #""verbose": "1","#))

    // Back as they were: the file as it was.
    try ws.modifyRequest(named: "one-line") {
      $0.setEnabled(true, header: "X-Debug")
      $0.setEnabled(true, query: "q")
    }
    try ws.modifyRequest(named: "multi-line") {
      $0.setEnabled(true, header: "accept")
      $0.setEnabled(false, header: "X-Trace")
      $0.setEnabled(false, query: "verbose")
    }
    #expect(text(ws.encoded()) == original)
  }

  @Test func aValueEditedWhileOffStaysOff() throws {
    var ws = try workspace(original)
    try ws.modifyRequest(named: "multi-line") { $0.headers["X-Trace"] = "t-2" }
    #expect(
      text(ws.encoded())
        == original.replacingOccurrences(
          of: #""X-Trace": {"value": "t-1", "enabled": false}"#, with: #""X-Trace": {"value": "t-2", "enabled": false}"#))
  }

  /// What arrived at httpbin's `/anything`: switched-off headers and parameters are not sent,
  /// and a switched-off request header lets the workspace default through.
  @Test func switchedOffEntriesAreNotSent() throws {
    let base = try TestServer.httpbin.baseURL
    let ws = try workspace(
      #"""
      {"version": 1, "baseURL": "\#(base)/",
       "defaults": {"headers": {"X-Client": "reqbench", "X-Old": {"value": "1", "enabled": false}},
                    "query": {"d": {"value": "1", "enabled": false}}},
       "requests": [
        {"name": "echo", "url": "anything/switch",
         "headers": {"X-Sent": "yes", "X-Debug": {"value": "1", "enabled": false},
                     "X-Client": {"value": "mine", "enabled": false}},
         "query": {"page": "2", "verbose": {"value": "1", "enabled": false}}}
       ]}
      """#)
    let request = try ws.prepare(requestNamed: "echo")
    #expect(request.url == "\(base)/anything/switch?page=2")
    let agent = Agent()
    defer { agent.shutdown() }
    let result = agent.sendAndWait(request)
    let response = try #require(result.response, "\(String(describing: result.error))")
    let echo = try JSONParser.parse(try response.body.bytes())
    #expect(echo["args"] == ["page": "2"])
    let headers = try #require(echo["headers"]?.objectValue)
    #expect(headers["X-Sent"] == "yes")
    #expect(headers["X-Client"] == "reqbench")
    #expect(headers["X-Debug"] == nil)
    #expect(headers["X-Old"] == nil)
  }

  @Test func switchedOffEntriesAreNotExportedNorInTheCacheKey() throws {
    let ws = try workspace(
      #"""
      {"version": 1, "baseURL": "http://127.0.0.1:1/",
       "requests": [
        {"name": "with", "url": "items", "cache": {"seconds": 60},
         "headers": {"Accept": "application/json", "X-Debug": {"value": "{{secret.debug}}", "enabled": false}},
         "query": {"page": "2", "verbose": {"value": "1", "enabled": false}}},
        {"name": "without", "url": "items", "cache": {"seconds": 60},
         "headers": {"Accept": "application/json"}, "query": {"page": "2"}}
       ]}
      """#)
    // Its secret is not needed: a switched-off header is not filled in.
    let with = try ws.prepare(requestNamed: "with")
    let without = try ws.prepare(requestNamed: "without")
    #expect(with.headers == without.headers)
    #expect(with.url == without.url)
    let policy = try #require(with.cache)
    #expect(CacheKey.key(for: with, policy: policy) == CacheKey.key(for: without, policy: policy))

    let curl = CurlExporter.command(for: with, revealSecrets: false)
    #expect(!curl.contains("X-Debug") && !curl.contains("verbose"))
    #expect(curl.contains("page=2"))
    let http = try HTTPFileExporter.text(for: [try #require(ws.request(named: "with"))], in: ws)
    #expect(!http.contains("X-Debug") && !http.contains("verbose") && !http.contains("secret"))
    #expect(http.contains("Accept: application/json"))
    #expect(http.contains("?page=2"))
  }
}

extension SwitchedOffFieldsTests {
  /// Headers written one to a line, all plain: the switched-off one still takes one line.
  @Test func aSwitchedOffHeaderAmongPlainOnesStaysOnItsLine() throws {
    let plain = """
      {
        "version": 1,
        "requests": [
          {
            "name": "a",
            "url": "/a",
            "headers": {
              "Accept": "application/json",
              "X-Debug": "1"
            }
          }
        ]
      }

      """
    var ws = try workspace(plain)
    try ws.modifyRequest(named: "a") { $0.setEnabled(false, header: "X-Debug") }
    #expect(
      text(ws.encoded())
        == plain.replacingOccurrences(of: #""X-Debug": "1""#, with: #""X-Debug": {"value": "1", "enabled": false}"#))
  }
}
