import Foundation
import RequestEngine
import TestSupport
import Testing

/// `reqbench history` against state folders written here in the history's file format (format
/// version 1: a JSON metadata line, then the request body and the inline response body).
@Suite("reqbench history")
struct HistoryCommandTests {
  let root: URL
  let workspace: URL

  init() throws {
    root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "rb-history-" + uniqueKey())
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    workspace = root.appendingPathComponent("api.json")
    try """
    {"version": 1, "name": "api", "baseURL": "http://127.0.0.1:8080",
     "requests": [{"name": "get-user", "url": "/users/1"}, {"name": "broken", "url": "/status/500"},
                  {"name": "users/create", "method": "POST", "url": "/users"}]}
    """.write(to: workspace, atomically: true, encoding: .utf8)
  }

  /// The default state folder's history: `.reqbench/api/history` beside the workspace.
  var history: URL { root.appendingPathComponent(".reqbench/api/history") }

  /// Writes one entry file, as the history store does.
  @discardableResult
  func record(
    _ name: String, at date: Date, exchange: Int = 1, in folder: URL? = nil, method: String = "GET",
    state: String = "succeeded", status: Int? = 200, body: String = "{}",
    error: (kind: String, message: String)? = nil, fromCache: Bool = false
  ) throws -> String {
    let seconds = date.timeIntervalSince1970
    let id = "T\(Int(seconds * 1_000_000))-\(exchange)-0000abcd"
    let folderName = name.replacingOccurrences(of: "/", with: "%2F")
    let directory = (folder ?? history).appendingPathComponent(folderName)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = #""http://127.0.0.1:8080/\#(name)""#
    let response =
      status.map {
        #"{"status":\#($0),"httpVersion":"HTTP/1.1","headers":[["Content-Type","application/json"]],"effectiveURL":\#(url),"redirectCount":0,"timing":{"dns":0,"connect":0.0001,"tls":0,"firstByte":0.002,"total":0.0031},"bytesSent":0,"body":{"bytes":\#(body.utf8.count),"stored":"inline"}}"#
      } ?? "null"
    let failure =
      error.map { #"{"kind":"\#($0.kind)","message":"\#($0.message)","status":null,"path":null}"# }
      ?? "null"
    let line =
      #"{"version":1,"id":"\#(id)","name":"\#(name)","exchange":\#(exchange),"state":"\#(state)","queuedAt":\#(seconds - 0.0041),"startedAt":\#(seconds - 0.0031),"finishedAt":\#(seconds),"attempts":1,"fromCache":\#(fromCache),"deduplicated":false,"request":{"method":"\#(method)","url":\#(url),"headers":[["Accept","*/*"]],"contentType":null,"bodyBytes":0},"response":\#(response),"error":\#(failure)}"#
    try Data((line + "\n" + (status == nil ? "" : body)).utf8)
      .write(to: directory.appendingPathComponent(id + ".entry"))
    return id
  }

  func history(_ args: [String]) throws -> ProcessResult {
    try runProcess(try reqbenchBinary, ["history"] + args, environment: ["TZ": "UTC"])
  }

  /// `HH:MM:SS` in UTC when `date` is on `now`'s UTC day, else `YYYY-MM-DD`.
  func shownTime(_ date: Date, now: Date = Date()) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    func two(_ n: Int?) -> String { String(format: "%02d", n ?? 0) }
    let clock = "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second))"
    if calendar.isDate(date, inSameDayAs: now) { return clock }
    return "\(parts.year ?? 0)-\(two(parts.month))-\(two(parts.day)) " + clock
  }

  // MARK: - The table

  @Test func listsEveryExchangeNewestFirstAsATable() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let now = Date()
    let old = Date(timeIntervalSince1970: 1_577_934_245)  // 2020-01-02 03:04:05 UTC
    try record("get-user", at: now - 30, exchange: 1, body: #"{"id":1,"name":"Ada"}"#)
    try record(
      "broken", at: now - 20, exchange: 2, state: "failed", status: 500, body: "status 500",
      error: ("status", "status 500 is outside 200-299"))
    try record(
      "users/create", at: now - 10, exchange: 3, method: "POST", state: "cancelled", status: nil,
      error: ("cancelled", "cancelled"))
    try record("get-user", at: old, exchange: 4, status: 200, fromCache: true)
    try record(
      "removed-since", at: now - 40, exchange: 5, state: "failed", status: nil,
      error: ("transport", "cannot connect"))

    let result = try history([workspace.path])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stderr.isEmpty)
    // Today's times are the time of day; an older one has its date too, and sets the width.
    func time(_ date: Date) -> String { shownTime(date).padding(toLength: 19, withPad: " ", startingAt: 0) }
    let expected = [
      "TIME                 NAME           METHOD  STATUS      SIZE   DURATION  RESULT",
      "\(time(now - 10))  users/create   POST    ---          0 B     3.1 ms  cancelled",
      "\(time(now - 20))  broken         GET     500         10 B     3.1 ms  status 500 is outside 200-299",
      "\(time(now - 30))  get-user       GET     200         21 B     3.1 ms  ok",
      "\(time(now - 40))  removed-since  GET     ---          0 B     3.1 ms  cannot connect",
      "2020-01-02 03:04:05  get-user       GET     200          2 B     3.1 ms  ok (from cache)",
    ]
    #expect(result.stdout.split(separator: "\n").map(String.init) == expected)
  }

  @Test func limitKeepsTheNewest() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let now = Date()
    for i in 1...30 { try record("get-user", at: now - Double(100 - i), exchange: i) }
    let lines = try history([workspace.path]).stdout.split(separator: "\n")
    #expect(lines.count == 1 + 20, "20 by default, after the header")
    let three = try history([workspace.path, "--limit", "3", "--json"])
    let exchanges = try three.stdout.split(separator: "\n").map {
      try JSONParser.parse(String($0))["id"]?.stringValue ?? ""
    }
    #expect(exchanges.count == 3)
    #expect(exchanges.map { $0.split(separator: "-")[1] } == ["30", "29", "28"])
  }

  // MARK: - JSON

  @Test func jsonIsOneObjectPerExchange() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let date = Date(timeIntervalSince1970: 1_796_000_000.25)
    let id = try record(
      "broken", at: date, exchange: 2, state: "failed", status: 500, body: "status 500",
      error: ("status", "status 500 is outside 200-299"))
    try record("get-user", at: date - 5, exchange: 1)

    let result = try history([workspace.path, "--json"])
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(lines.count == 2)
    #expect(
      lines[0]
        == #"{"id":"\#(id)","date":"2026-11-30T00:53:20.250Z","name":"broken","method":"GET","url":"http://127.0.0.1:8080/broken","state":"failed","status":500,"bytes":10,"durationMs":3.1,"fromCache":false,"attempts":1,"bodyKept":true,"error":{"kind":"status","message":"status 500 is outside 200-299"}}"#
    )
    let second = try JSONParser.parse(lines[1])
    #expect(second["name"]?.stringValue == "get-user")
    #expect(second["error"] == .null)
  }

  // MARK: - Targets and state folders

  @Test func aTargetListsOnlyItsRequest() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let now = Date()
    try record("get-user", at: now - 3, exchange: 1)
    try record("users/create", at: now - 2, exchange: 2, method: "POST", status: 201)
    try record("get-user", at: now - 1, exchange: 3)

    let result = try history([workspace.path, "users/create", "--json"])
    #expect(result.status == 0)
    let names = try result.stdout.split(separator: "\n").map {
      try JSONParser.parse(String($0))["name"]?.stringValue
    }
    #expect(names == ["users/create"])
  }

  @Test func aTargetThatIsNotARequestIsAnError() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    try record("removed-since", at: Date(), exchange: 1)
    let result = try history([workspace.path, "get-usr"])
    #expect(result.status == 2)
    #expect(result.stdout.isEmpty)
    #expect(
      result.stderr.hasPrefix(
        #"reqbench: no request named "get-usr" in \#(workspace.path); did you mean "get-user"?"#))
    // History of a request no longer in the workspace is listed with every other one.
    #expect(try history([workspace.path]).stdout.contains("removed-since"))
    #expect(try history([workspace.path, "removed-since"]).status == 2)
  }

  @Test func stateDirReadsAnotherFolder() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let other = root.appendingPathComponent("elsewhere")
    try record("get-user", at: Date(), exchange: 7, in: other.appendingPathComponent("history"))
    let result = try history([workspace.path, "--state-dir", other.path, "--json"])
    #expect(result.status == 0)
    #expect(result.stdout.split(separator: "\n").count == 1)
    let inline = try history([workspace.path, "--state-dir=\(other.path)"])
    #expect(inline.stdout.contains("get-user"))
    // The default folder has nothing.
    let none = try history([workspace.path])
    #expect(none.status == 0 && none.stdout.isEmpty)
  }

  @Test func noHistoryYetIsSaidOnStderr() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let result = try history([workspace.path])
    #expect(result.status == 0)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.hasPrefix("reqbench: no history yet for \(workspace.path) (kept in "))
    #expect(!FileManager.default.fileExists(atPath: history.path), "listing creates no folder")
    let target = try history([workspace.path, "broken"])
    #expect(target.status == 0)
    #expect(
      target.stderr.hasPrefix(#"reqbench: no history yet for "broken" in \#(workspace.path)"#))
  }

  @Test func damagedEntriesAreSkipped() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let now = Date()
    try record("get-user", at: now - 2, exchange: 1)
    let damaged = try record("get-user", at: now - 1, exchange: 2, body: "a longer body")
    let file = history.appendingPathComponent("get-user/\(damaged).entry")
    let bytes = try Data(contentsOf: file)
    try bytes.prefix(bytes.count / 2).write(to: file)
    try Data("{not json\n".utf8).write(to: history.appendingPathComponent("get-user/x.entry"))

    let result = try history([workspace.path, "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    #expect(result.stdout.split(separator: "\n").count == 1)
  }

  // MARK: - Errors

  @Test func aBrokenWorkspaceIsAnError() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let broken = root.appendingPathComponent("broken.json")
    try #"{"version": 1, "requests": [}"#.write(to: broken, atomically: true, encoding: .utf8)
    let result = try history([broken.path])
    #expect(result.status == 2)
    #expect(result.stderr.hasPrefix("\(broken.path):1:"))
    let missing = try history([root.appendingPathComponent("nope.json").path])
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("nope.json: no such workspace; `reqbench "))
  }

  @Test(arguments: [
    ([], "history needs a workspace file"),
    (["api.json", "--limit", "0"], "--limit needs a number of 1 or more"),
    (["api.json", "--limit"], "--limit needs a value"),
    (["api.json", "--since", "1h"], #"unknown option "--since""#),
    (["api.json", "a", "b"], "history takes one target at most"),
  ])
  func usageErrors(args: [String], message: String) throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let result = try history(args)
    #expect(result.status == 2)
    #expect(result.stderr.contains(message), "\(result.stderr)")
  }

  /// The workspace's `"history": {"perRequest": N}` bounds what `run` keeps: the oldest go.
  /// A folder target (`users/`) lists the history of every request in it, as `run` runs them.
  @Test func aFolderTargetListsEveryRequestInIt() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let now = Date()
    try record("users/create", at: now - 10, exchange: 1, method: "POST")
    try record("get-user", at: now - 20, exchange: 2)
    try record("users/create", at: now - 30, exchange: 3, method: "POST")
    let result = try history([workspace.path, "users/", "--json"])
    #expect(result.status == 0, "\(result.stderr)")
    let names = result.stdout.split(separator: "\n").compactMap { try? JSONParser.parse(String($0))["name"]?.stringValue }
    #expect(names == ["users/create", "users/create"])
    #expect(try history([workspace.path, "nope/"]).status == 2)
  }

  @Test func theWorkspacesBoundDropsTheOldest() throws {
    let ws = root.appendingPathComponent("small.json")
    try """
      {"version": 1, "baseURL": "\(try TestServer.fixture.baseURL)", "history": {"perRequest": 2, "maxMB": 50},
       "requests": [{"name": "n", "url": "/anything", "query": {"i": "{{i}}"}}]}
      """.write(to: ws, atomically: true, encoding: .utf8)
    for i in 1...4 {
      let run = try runProcess(try reqbenchBinary, ["run", ws.path, "n", "--var", "i=\(i)"])
      #expect(run.status == 0, "\(run.stderr)")
    }
    let listed = try runProcess(try reqbenchBinary, ["history", ws.path, "--json"])
    let urls = listed.stdout.split(separator: "\n").compactMap { try? JSONParser.parse(String($0))["url"]?.stringValue }
    #expect(urls.count == 2, "\(listed.stdout)")
    #expect(urls.map { $0.hasSuffix("i=4") || $0.hasSuffix("i=3") } == [true, true], "\(urls)")
  }

  @Test func historyBoundsAreValidated() throws {
    let ws = root.appendingPathComponent("bad.json")
    try #"{"version": 1, "history": {"perRequest": -1, "maxMB": 0, "days": 3}, "requests": []}"#
      .write(to: ws, atomically: true, encoding: .utf8)
    let run = try runProcess(try reqbenchBinary, ["history", ws.path])
    #expect(run.status == 2)
    #expect(run.stderr.contains("history.perRequest: must be 0 or more, found -1"), "\(run.stderr)")
    #expect(run.stderr.contains("history.maxMB: must be more than 0"), "\(run.stderr)")
    #expect(run.stderr.contains(#"history.days: unknown key"#), "\(run.stderr)")
  }

  @Test func helpDescribesTheCommand() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let result = try history(["--help"])
    #expect(result.status == 0)
    #expect(result.stdout.hasPrefix("Usage: reqbench history WORKSPACE [TARGET]"))
  }
}
