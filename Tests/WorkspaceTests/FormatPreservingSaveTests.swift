import Formats
import Foundation
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

/// A save writes the model over the file's own text: what did not change keeps its bytes.
@Suite struct FormatPreservingSaveTests {
  /// A workspace in a hand-formatted style: one-line environments, variables, defaults
  /// and requests, aligned values, four-space indentation, unknown keys.
  let handFormatted = """
    {
        "version": 1,
        "x-owner":  {"team": "api"},
        "baseURL": "{{host}}/api",
        "cdnURL": "{{cdn}}",
        "environment": "local",
        "environments": {
            "local":   {"host": "http://127.0.0.1:8080", "cdn": "http://127.0.0.1:8081", "user": "ada"},
            "staging": {"host": "https://staging.example.com", "cdn": "https://cdn.example.com", "user": "bob"}
        },
        "variables": {"id": "1", "limit": 10},
        "defaults": {"headers": {"X-Client": "reqbench"}, "query": {"v": "2"}},
        "requests": [
            {"name": "users/get", "method": "get", "url": "/users/{{id}}", "useCDN": false, "timeout": 30.0,
             "headers": {"Authorization": "Bearer {{secret.token}}"}, "x-note": "kept"},
            {"name": "users/list", "url": "/users", "query": {"page": "1"}}
        ]
    }

    """

  /// The lines of `new` that are not in `old`, and those of `old` not in `new` (a line diff that
  /// is enough for edits that keep the order of lines).
  func changedLines(_ old: String, _ new: String) -> (removed: [String], added: [String]) {
    let a = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    let b = new.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    var prefix = 0
    while prefix < a.count, prefix < b.count, a[prefix] == b[prefix] { prefix += 1 }
    var suffix = 0
    while suffix < a.count - prefix, suffix < b.count - prefix,
      a[a.count - 1 - suffix] == b[b.count - 1 - suffix]
    {
      suffix += 1
    }
    return (Array(a[prefix..<(a.count - suffix)]), Array(b[prefix..<(b.count - suffix)]))
  }

  @Test func anUnchangedWorkspaceIsWrittenBackByteForByte() throws {
    let ws = try workspace(handFormatted)
    #expect(text(ws.encoded()) == handFormatted)
    let compact = #"{"version":1,"name":"n","requests":[{"name":"a","url":"/x"}]}"#
    #expect(text(try workspace(compact).encoded()) == compact)
  }

  @Test func anImportAddsOnlyTheNewRequest() throws {
    var ws = try workspace(handFormatted)
    let curl = try CurlImporter.parse(
      #"curl https://a.test/items -H 'Accept: application/json' -d 'n=1'"#, file: "paste.sh")
    _ = try ws.addImported(curl)
    let out = text(ws.encoded())
    let diff = changedLines(handFormatted, out)
    // The last request gains a comma; the new request follows on one line, like its neighbours.
    #expect(diff.removed == [#"        {"name": "users/list", "url": "/users", "query": {"page": "1"}}"#])
    #expect(
      diff.added == [
        #"        {"name": "users/list", "url": "/users", "query": {"page": "1"}},"#,
        #"        {"name": "post-items", "method": "POST", "url": "https://a.test/items", "headers": {"Accept": "application/json"}, "body": {"form": {"n": "1"}}, "compressed": false}"#,
      ])
    #expect(try workspace(out).request(named: "post-items")?.url == "https://a.test/items")
  }

  @Test func editingOneFieldChangesOnlyThatValue() throws {
    var ws = try workspace(handFormatted)
    ws.requests[0].url = "/people/{{id}}"
    let out = text(ws.encoded())
    #expect(out == handFormatted.replacingOccurrences(of: "/users/{{id}}", with: "/people/{{id}}"))

    var other = try workspace(handFormatted)
    other.environments[1].variables[2].value = "eve"
    #expect(
      text(other.encoded())
        == handFormatted.replacingOccurrences(of: #""user": "bob""#, with: #""user": "eve""#))
  }

  @Test func addedAndRemovedMembersFollowTheirNeighbours() throws {
    var ws = try workspace(handFormatted)
    ws.requests[1].timeout = 5
    ws.requests[1].query = JSONObject([(key: "page", value: "2")])
    ws.requests[0].deadline = 60
    ws.variables.append(Variable(name: "tenant", value: "acme"))
    let out = text(ws.encoded())
    let diff = changedLines(handFormatted, out)
    #expect(
      diff.added == [
        #"    "variables": {"id": "1", "limit": 10, "tenant": "acme"},"#,
        #"    "defaults": {"headers": {"X-Client": "reqbench"}, "query": {"v": "2"}},"#,
        #"    "requests": ["#,
        #"        {"name": "users/get", "method": "get", "url": "/users/{{id}}", "useCDN": false, "timeout": 30.0,"#,
        #"         "headers": {"Authorization": "Bearer {{secret.token}}"}, "x-note": "kept", "deadline": 60},"#,
        #"        {"name": "users/list", "url": "/users", "query": {"page": "2"}, "timeout": 5}"#,
      ])
    #expect(try workspace(out).requests[1].timeout == 5)
  }

  @Test func aNewNestedValueInAMultiLineFileUsesItsIndentation() throws {
    let pretty = """
      {
      \t"version": 1,
      \t"requests": [
      \t\t{
      \t\t\t"name": "a",
      \t\t\t"url": "/x"
      \t\t}
      \t]
      }
      """
    var ws = try workspace(pretty)
    ws.requests[0].cache = CachePolicy(seconds: 60)
    #expect(
      text(ws.encoded()) == """
        {
        \t"version": 1,
        \t"requests": [
        \t\t{
        \t\t\t"name": "a",
        \t\t\t"url": "/x",
        \t\t\t"cache": {
        \t\t\t\t"seconds": 60
        \t\t\t}
        \t\t}
        \t]
        }
        """)
  }

  @Test func removingAndReorderingKeepsTheOtherRequestsText() throws {
    var ws = try workspace(handFormatted)
    try ws.deleteRequest(named: "users/get")
    let out = text(ws.encoded())
    #expect(out.contains(#"        {"name": "users/list", "url": "/users", "query": {"page": "1"}}"#))
    #expect(!out.contains("users/get"))
    #expect(try workspace(out).requests.map(\.name) == ["users/list"])
  }

  @Test func aSaveToDiskKeepsTheText() throws {
    let dir = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    let url = dir.appendingPathComponent("demo.json")
    try Data(handFormatted.utf8).write(to: url)
    var ws = try Workspace.load(from: url)
    ws.requests[1].url = "/users/all"
    try ws.save(to: url)
    let saved = String(decoding: try Data(contentsOf: url), as: UTF8.self)
    #expect(saved == handFormatted.replacingOccurrences(of: #""/users""#, with: #""/users/all""#))
  }
}
