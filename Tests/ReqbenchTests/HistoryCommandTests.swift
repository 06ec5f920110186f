// Over 500 lines because it is the one suite of `reqbench history`'s outputs (list, search,
// filters, JSON, HAR, masking) against real exchanges; each test builds on the same fixtures.
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
    root = scratchURL("rb-history")
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

  /// The string `key` of each line of `history --json`'s output: a line that is not JSON, or
  /// has no such string, fails the test.
  func field(_ key: String, ofEachLine stdout: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> [String] {
    try stdout.split(separator: "\n").map { line in
      try #require(try JSONParser.parse(String(line))[key]?.stringValue, "\(key) of \(line)", sourceLocation: sourceLocation)
    }
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
    // The file history is moved into the database on first use, once.
    #expect(result.stderr.hasPrefix("reqbench: moved 5 history entries from \(history.path) into "), "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: history.path), "the old folder is gone")
    let again = try history([workspace.path])
    #expect(again.stderr.isEmpty && again.stdout == result.stdout)
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
    (["api.json", "--since", "soon"], "--since takes a duration (30m, 1h, 2d, 1w) or a date"),
    (["api.json", "--status", "2x"], "--status takes codes (404), classes (2xx)"),
    (["api.json", "--body"], "--body widens --search to the bodies; give --search TEXT too"),
    (["api.json", "--json", "--har"], "--json and --har are two output formats"),
    (["api.json", "--search", " "], "--search needs some text"),
    (["api.json", "--color"], #"unknown option "--color""#),
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
    let names = try field("name", ofEachLine: result.stdout)
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
    let urls = try field("url", ofEachLine: listed.stdout)
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

  // MARK: - Search, filters and HAR against real exchanges

  /// Real exchanges with httpbin, recorded by `reqbench run`, then searched, filtered and
  /// exported by `reqbench history`.
  @Test func searchFiltersAndHARAgainstRealExchanges() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let base = try TestServer.httpbin.baseURL
    let ws = root.appendingPathComponent("live.json")
    try """
    {"version": 1, "baseURL": "\(base)",
     "requests": [
       {"name": "users/get", "url": "/anything/users/1", "headers": {"X-Api-Key": "{{secret.key}}"}},
       {"name": "users/create", "method": "POST", "url": "/anything/users",
        "body": {"json": {"name": "Ada Lovelace", "key": "{{secret.key}}"}}},
       {"name": "teapot", "url": "/status/418"},
       {"name": "picture", "url": "/image/png"},
       {"name": "down", "url": "http://127.0.0.1:1/nothing"}
     ]}
    """.write(to: ws, atomically: true, encoding: .utf8)
    let secret = "k3y-" + uniqueKey("live")
    let set = try runProcess(try reqbenchBinary, ["secrets", "set", ws.path, "key"], stdin: secret + "\n")
    #expect(set.status == 0, "\(set.stderr)")
    let started = Date()
    let run = try runProcess(try reqbenchBinary, ["run", ws.path, "--all"])
    #expect(run.status == 1, "teapot and down fail: \(run.stderr)")

    func names(_ args: [String]) throws -> [String] {
      let result = try history([ws.path, "--json"] + args)
      #expect(result.status == 0, "\(args): \(result.stderr)")
      return try field("name", ofEachLine: result.stdout)
    }
    #expect(try Set(names(["--search", "users"])) == ["users/get", "users/create"])
    #expect(try names(["--search", "POST"]) == ["users/create"])
    // Not a bare "418": httpbin's random port is in every URL and may contain it (41897 did).
    #expect(try names(["--search", "status/418"]) == ["teapot"])
    #expect(try names(["--search", "cannot connect"]) == ["down"], "the error")
    #expect(try Set(names(["--search", "connect"])) == ["down", "users/get", "users/create", "teapot", "picture"], "Connection: keep-alive")
    #expect(try names(["--search", "image/png"]) == ["picture"], "a response header")
    #expect(try names(["--search", "Lovelace"]).isEmpty, "bodies only with --body")
    #expect(try names(["--search", "Lovelace", "--body"]) == ["users/create"], "the request body (and httpbin's echo)")
    #expect(try Set(names(["--status", "4xx,none"])) == ["teapot", "down"])
    #expect(try names(["--status", "418"]) == ["teapot"])
    #expect(try Set(names(["--failed"])) == ["teapot", "down"])
    #expect(try names(["--since", "1h"]).count == 5)
    #expect(try names(["--since", "2020-01-01", "--limit", "2"]).count == 2)
    #expect(try names(["users/", "--search", "anything"]).count == 2)
    let none = try history([ws.path, "--search", "nothing-like-this"])
    #expect(none.status == 0 && none.stdout.isEmpty && none.stderr.contains("no history of"), "\(none.stderr)")
    #expect(none.stderr.contains("(--body searches the bodies too)"), "a word only in a body: \(none.stderr)")
    let noneInBodies = try history([ws.path, "--search", "nothing-like-this", "--body"])
    #expect(noneInBodies.status == 0 && !noneInBodies.stderr.contains("--body"), "\(noneInBodies.stderr)")

    // HAR 1.2: parsed back and checked field by field.
    let har = try history([ws.path, "--har"])
    #expect(har.status == 0, "\(har.stderr)")
    #expect(!har.stdout.contains(secret), "the secret stays masked")
    let log = try #require(try JSONParser.parse(har.stdout)["log"])
    #expect(log["version"]?.stringValue == "1.2")
    #expect(log["creator"]?["name"]?.stringValue == "reqbench")
    let entries = try #require(log["entries"]?.arrayValue)
    #expect(entries.count == 5)
    var previous = ""
    for entry in entries {
      let started = try #require(entry["startedDateTime"]?.stringValue)
      #expect(started >= previous, "oldest first")
      previous = started
      #expect(started.hasSuffix("Z") && started.count == 24, "\(started)")
      for field in ["request", "response", "cache", "timings"] { #expect(entry[field]?.objectValue != nil, "\(field)") }
      let request = try #require(entry["request"])
      for field in ["method", "url", "httpVersion"] { #expect(request[field]?.stringValue != nil, "request.\(field)") }
      for field in ["cookies", "headers", "queryString"] { #expect(request[field]?.arrayValue != nil, "request.\(field)") }
      #expect(request["headersSize"]?.intValue == -1 && request["bodySize"]?.intValue != nil)
      let response = try #require(entry["response"])
      #expect(response["status"]?.intValue != nil && response["statusText"]?.stringValue != nil)
      for field in ["cookies", "headers"] { #expect(response[field]?.arrayValue != nil, "response.\(field)") }
      #expect(response["content"]?["size"]?.intValue != nil && response["content"]?["mimeType"]?.stringValue != nil)
      #expect(response["redirectURL"]?.stringValue != nil && response["headersSize"]?.intValue == -1)
      let timings = try #require(entry["timings"])
      var sum = 0.0
      for phase in ["send", "wait", "receive"] {
        let value = try #require(timings[phase]?.doubleValue, "\(phase)")
        #expect(value >= 0)
        sum += value
      }
      for phase in ["blocked", "dns", "connect"] {
        let value = try #require(timings[phase]?.doubleValue, "\(phase)")
        #expect(value >= -1)
        if value > 0 { sum += value }
      }
      let time = try #require(entry["time"]?.doubleValue)
      #expect(abs(time - sum) < 0.01, "time is the sum of the phases")
    }
    func entry(_ name: String) -> JSONValue? { entries.first { $0["_name"]?.stringValue == name } }
    let create = try #require(entry("users/create"))
    #expect(create["request"]?["method"]?.stringValue == "POST")
    #expect(create["request"]?["postData"]?["mimeType"]?.stringValue == "application/json")
    #expect(create["request"]?["postData"]?["text"]?.stringValue?.contains(#""key":"••••""#) == true)
    let echoed = try #require(create["response"]?["content"]?["text"]?.stringValue)
    #expect(try JSONParser.parse(echoed)["json"]?["name"]?.stringValue == "Ada Lovelace", "the body as text")
    let get = try #require(entry("users/get"))
    #expect(get["request"]?["headers"]?.arrayValue?.contains { $0["value"]?.stringValue == "••••" } == true)
    // The request headers are those curl sent (ExchangeResult.sent): what httpbin says it
    // received, Host and User-Agent included, the secret masked.
    let sent = try #require(get["request"]?["headers"]?.arrayValue)
    func sentValue(_ name: String) -> String? {
      sent.first { $0["name"]?.stringValue?.lowercased() == name.lowercased() }?["value"]?.stringValue
    }
    #expect(get["request"]?["httpVersion"]?.stringValue == "HTTP/1.1")
    let received = try #require(try JSONParser.parse(get["response"]?["content"]?["text"]?.stringValue ?? "")["headers"]?.objectValue)
    for (name, value) in received.members where name != "X-Api-Key" {
      #expect(sentValue(name) == value.stringValue, "\(name) as sent")
    }
    #expect(sentValue("Host") != nil && sentValue("User-Agent")?.hasPrefix("reqbench") == true, "\(sent)")
    #expect(sentValue("X-Api-Key") == "••••")
    // Nothing was sent to a port that refused the connection: the request's own headers.
    #expect(entry("down")?["request"]?["headers"]?.arrayValue?.contains { $0["name"]?.stringValue == "Host" } == false)
    let picture = try #require(entry("picture")?["response"]?["content"])
    #expect(picture["encoding"]?.stringValue == "base64")
    let png = try #require(Data(base64Encoded: picture["text"]?.stringValue ?? ""))
    #expect(png.count == picture["size"]?.intValue && png.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
    #expect(entry("teapot")?["response"]?["status"]?.intValue == 418)
    #expect(entry("down")?["response"]?["status"]?.intValue == 0)
    #expect(entry("down")?["_error"]?.stringValue?.contains("cannot connect") == true)
    #expect(started.timeIntervalSinceNow < 60)

    // A HAR library reads it: haralyzer (PyPI, in the tests' Python environment).
    let python = try #require(
      ProcessInfo.processInfo.environment["REQBENCH_TEST_PYTHON"],
      "REQBENCH_TEST_PYTHON is not set: run the tests with `bash .ci/test`, which installs haralyzer")
    let file = root.appendingPathComponent("session.har")
    try har.stdout.write(to: file, atomically: true, encoding: .utf8)
    let script = """
      import json, sys
      from haralyzer import HarParser
      parser = HarParser.from_file(sys.argv[1])
      entries = [e for page in [parser] for e in page.har_data["entries"]]
      from haralyzer import HarEntry
      parsed = [HarEntry(e) for e in entries]
      print(len(parsed), ",".join(sorted(str(e.status) for e in parsed)), ",".join(e.request.method for e in parsed))
      for e in parsed:
          assert e.startTime is not None and e.time >= 0
      """
    let checked = try runProcess(URL(fileURLWithPath: python), ["-c", script, file.path])
    #expect(checked.status == 0, "\(checked.stderr)")
    #expect(checked.stdout.hasPrefix("5 0,200,200,200,418 "), "\(checked.stdout)")
  }

  /// A token written into the workspace itself (a pasted curl's `Authorization`, a basic auth's
  /// password) is a secret all the same: httpbin echoes it back, and neither the history's files,
  /// nor its HAR, nor `run --json`, nor `export curl` holds it (`--reveal-secrets` shows it).
  @Test func aCredentialWrittenIntoTheWorkspaceIsMaskedLikeASecret() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let base = try TestServer.httpbin.baseURL
    let token = "tok-" + uniqueKey("pasted")
    let ws = root.appendingPathComponent("pasted.json")
    try """
    {"version": 1, "baseURL": "\(base)",
     "requests": [
       {"name": "echo", "url": "/anything", "headers": {"Authorization": "Bearer \(token)"}},
       {"name": "basic", "url": "/anything/basic",
        "auth": {"basic": {"user": "ada", "password": "pa55-\(token)"}}},
       {"name": "keyed", "url": "/anything/keyed?api_key=ak-\(token)&page=2",
        "query": {"access_token": "at-\(token)"}, "headers": {"X-Api-Key": "xk-\(token)"}}
     ]}
    """.write(to: ws, atomically: true, encoding: .utf8)
    let run = try runProcess(try reqbenchBinary, ["run", ws.path, "--all", "--json"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(!run.stdout.contains(token) && run.stdout.contains("Bearer ••••"), "\(run.stdout)")
    let har = try history([ws.path, "--har"])
    #expect(har.status == 0, "\(har.stderr)")
    #expect(!har.stdout.contains(token), "the header, the sent head and httpbin's echo")
    #expect(har.stdout.contains(#""Authorization\": \"Bearer ••••\""#), "the echo, masked")
    #expect(har.stdout.contains(#"{"name":"Authorization","value":"Bearer ••••"}"#), "the header as sent")
    #expect(har.stdout.contains(#"{"name":"Authorization","value":"Basic ••••"}"#), "basic auth as sent")
    #expect(har.stdout.contains(#"{"name":"X-Api-Key","value":"••••"}"#), "a key header as sent")
    #expect(har.stdout.contains(#"{"name":"api_key","value":"••••"}"#), "a key in the URL's query")
    #expect(har.stdout.contains(#"{"name":"access_token","value":"••••"}"#), "a key in the request's query")
    #expect(har.stdout.contains(#"{"name":"page","value":"2"}"#), "the rest of the query as it was")
    let state = root.appendingPathComponent(".reqbench/pasted")
    let files = try #require(FileManager.default.enumerator(at: state, includingPropertiesForKeys: nil)?.allObjects as? [URL])
    #expect(files.contains { $0.lastPathComponent == "history.sqlite" })
    let credentials = [
      token, "pa55-" + token, Data("ada:pa55-\(token)".utf8).base64EncodedString(), "ak-" + token, "at-" + token,
      "xk-" + token,
    ]
    for file in files {
      let bytes = try Data(contentsOf: file)
      for credential in credentials where bytes.range(of: Data(credential.utf8)) != nil {
        Issue.record("\(file.lastPathComponent) holds \(credential)")
      }
    }
    let export = try runProcess(try reqbenchBinary, ["export", "curl", ws.path, "echo", "basic", "keyed"])
    #expect(export.status == 0 && !export.stdout.contains(token), "\(export.stdout)")
    let revealed = try runProcess(try reqbenchBinary, ["export", "curl", ws.path, "echo", "--reveal-secrets"])
    #expect(revealed.stdout.contains("Bearer \(token)"), "\(revealed.stdout)")
  }

  /// A history database with damaged rows: the command lists the others, says how many it
  /// skipped, and never traps (a `finishedAt` of 1e300 once trapped it on every call).
  @Test func damagedRowsAreSkippedAndCounted() throws {
    defer { try? FileManager.default.removeItem(at: root) }
    let now = Date()
    for i in 1...3 { try record("get-user", at: now - Double(i), exchange: i) }
    #expect(try history([workspace.path]).status == 0, "migrated into the database")
    let database = root.appendingPathComponent(".reqbench/api/history.sqlite").path
    let damage = try runProcess(
      URL(fileURLWithPath: "/usr/bin/env"),
      ["python3", "-c", """
        import sqlite3, sys
        db = sqlite3.connect(sys.argv[1])
        db.execute("UPDATE entries SET finished_at = 1e300 WHERE exchange = 1")
        db.execute("UPDATE entries SET started_at = -1e300, bytes = -1 WHERE exchange = 2")
        db.commit()
        """, database])
    #expect(damage.status == 0, "\(damage.stderr)")
    for args in [[], ["--json"], ["--har"], ["--search", "get"], ["get-user"]] {
      let result = try history([workspace.path] + args)
      #expect(result.status == 0, "\(args): \(result.stderr)")
      #expect(result.stderr.contains("2 damaged history entries skipped"), "\(args): \(result.stderr)")
    }
  }
}
