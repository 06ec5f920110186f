import Foundation
import RequestEngine
import TestSupport
import Testing

/// The cookie jar end to end: two `run` processes sharing the jar in the state
/// folder, the jar read by real `curl -b` and a file `curl -c` wrote read by reqbench, the
/// `cookies` command, `--no-cookies` and `"cookies": false`, the masking in `--json` and history,
/// against httpbin's `/cookies/set`, `/cookies` and `/cookies/delete`.
@Suite("reqbench cookies")
struct CookiesCommandTests {
  let folder: URL
  let workspace: String
  let port: Int

  init() throws {
    folder = scratchURL("rb-cookies")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    port = try #require(URLComponents(string: try TestServer.httpbin.url("/"))?.port)
    workspace = folder.appendingPathComponent("api.json").path
    try """
    {"version": 1, "name": "api", "baseURL": "http://127.0.0.1:\(port)",
     "resolve": ["localhost:\(port):127.0.0.1"],
     "environments": {"dev": {"user": "dev"}, "prod": {"user": "prod"}},
     "requests": [
       {"name": "login", "url": "/cookies/set?session=abc123&user={{user}}"},
       {"name": "whoami", "url": "/cookies"},
       {"name": "whoami-localhost", "url": "http://localhost:\(port)/cookies"},
       {"name": "logout", "url": "/cookies/delete?session"},
       {"name": "anonymous", "url": "/cookies", "cookies": false},
       {"name": "brief", "url": "/response-headers?Set-Cookie=brief%3D1%3B%20Max-Age%3D4"},
       {"name": "slow", "url": "/delay/3"},
       {"name": "cart", "url": "/cookies/set?cart=1"},
       {"name": "late", "url": "/response-headers?Set-Cookie=late%3D1%3B%20Max-Age%3D99999999999999999999"}
     ],
     "chains": [{"name": "slow-then-cart", "steps": [{"request": "slow"}, {"request": "cart"}]}]}
    """.write(toFile: workspace, atomically: true, encoding: .utf8)
  }

  func reqbench(_ args: [String], stdin: String? = nil) throws -> ProcessResult {
    try runProcess(try reqbenchBinary, args, stdin: stdin, currentDirectory: folder)
  }

  /// What httpbin's `/cookies` saw, from `run`'s stdout.
  func cookiesSeen(_ result: ProcessResult) throws -> [String: String] {
    let object = try #require(try JSONParser.parse(result.stdout)["cookies"]?.objectValue, "\(result.stdout) \(result.stderr)")
    var seen: [String: String] = [:]
    for (name, value) in object.members { seen[name] = value.stringValue }
    return seen
  }

  var devJar: URL { folder.appendingPathComponent(".reqbench/api/cookies/env-dev.txt") }

  @Test func aLoginInOneRunIsSentByTheNextRunAndCurlReadsTheJar() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let login = try reqbench(["run", workspace, "login", "--env", "dev"])
    #expect(login.status == 0, "\(login.stderr)")
    #expect(try cookiesSeen(login) == ["session": "abc123", "user": "dev"])

    // The jar: curl's Netscape format, 0600 in a 0700 folder.
    let text = try String(contentsOf: devJar, encoding: .utf8)
    #expect(text.hasPrefix("# Netscape HTTP Cookie File\n"))
    #expect(text.contains("127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tabc123\n"))
    let mode = try #require(try FileManager.default.attributesOfItem(atPath: devJar.path)[.posixPermissions] as? Int)
    #expect(mode == 0o600)
    let folderMode = try FileManager.default.attributesOfItem(atPath: devJar.deletingLastPathComponent().path)[.posixPermissions] as? Int
    #expect(folderMode == 0o700)

    // A second process sends what the first one was given.
    let whoami = try reqbench(["run", workspace, "whoami", "--env", "dev"])
    #expect(try cookiesSeen(whoami) == ["session": "abc123", "user": "dev"])
    // Another environment has a jar of its own.
    #expect(try cookiesSeen(try reqbench(["run", workspace, "whoami", "--env", "prod"])) == [:])
    // The other host name on the same port gets nothing (curl's host-only rule).
    #expect(try cookiesSeen(try reqbench(["run", workspace, "whoami-localhost", "--env", "dev"])) == [:])
    // Real curl reads the jar.
    let curl = try runProcess(
      URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "-b", devJar.path, "http://127.0.0.1:\(port)/cookies"])
    #expect(try cookiesSeen(curl) == ["session": "abc123", "user": "dev"])

    // A logout (an expired Set-Cookie) in a third process removes it from the file.
    let logout = try reqbench(["run", workspace, "logout", "--env", "dev"])
    #expect(try cookiesSeen(logout) == ["user": "dev"])
    #expect(!(try String(contentsOf: devJar, encoding: .utf8)).contains("session"))
  }

  @Test func noCookiesAndCookiesFalseSendAndKeepNone() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    _ = try reqbench(["run", workspace, "login", "--env", "dev"])
    #expect(try cookiesSeen(try reqbench(["run", workspace, "anonymous", "--env", "dev"])) == [:])
    #expect(try cookiesSeen(try reqbench(["run", workspace, "whoami", "--env", "dev", "--no-cookies"])) == [:])
    // A login with --no-cookies keeps nothing.
    _ = try reqbench(["run", workspace, "login", "--env", "prod", "--no-cookies"])
    #expect(try cookiesSeen(try reqbench(["run", workspace, "whoami", "--env", "prod"])) == [:])
    // The workspace's "cookies": false turns it off for every request.
    let text = try String(contentsOfFile: workspace, encoding: .utf8)
    try text.replacingOccurrences(of: #""name": "api","#, with: #""name": "api", "cookies": false,"#)
      .write(toFile: workspace, atomically: true, encoding: .utf8)
    #expect(try cookiesSeen(try reqbench(["run", workspace, "whoami", "--env", "dev"])) == [:])
  }

  @Test func lsMasksValuesRmAndClearEditTheJar() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    _ = try reqbench(["run", workspace, "login", "--env", "dev"])
    let ls = try reqbench(["cookies", "ls", workspace, "--env", "dev"])
    #expect(ls.status == 0, "\(ls.stderr)")
    let lines = ls.stdout.split(separator: "\n").map(String.init)
    #expect(lines.first?.hasPrefix("DOMAIN     NAME     VALUE  PATH  EXPIRES  FLAGS") == true, "\(ls.stdout)")
    #expect(lines.contains("127.0.0.1  session  ••••   /     session  -"))
    #expect(!ls.stdout.contains("abc123"))
    let revealed = try reqbench(["cookies", "ls", workspace, "--env", "dev", "--reveal-secrets"])
    #expect(revealed.stdout.contains("abc123"))

    let rm = try reqbench(["cookies", "rm", workspace, "session", "--env", "dev"])
    #expect(rm.status == 0)
    #expect(rm.stderr == "removed 1 cookie\n")
    #expect(try cookiesSeen(try reqbench(["run", workspace, "whoami", "--env", "dev"])) == ["user": "dev"])
    let missing = try reqbench(["cookies", "rm", workspace, "session", "--env", "dev"])
    #expect(missing.status == 1)
    #expect(missing.stderr.contains("no cookie named \"session\""))

    // The workspace named relative to the current folder: the jar's path is too.
    let clear = try reqbench(["cookies", "clear", "api.json", "--env", "dev"])
    #expect(clear.stderr == "removed 1 cookie from .reqbench/api/cookies/env-dev.txt\n", "\(clear.stderr)")
    #expect(try cookiesSeen(try reqbench(["run", workspace, "whoami", "--env", "dev"])) == [:])
    #expect(try reqbench(["cookies", "ls", workspace, "--env", "dev"]).stderr.contains("no cookies in"))
  }

  @Test func importsWhatCurlWroteAndCookieLinesAndExportsBoth() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    // curl -c writes a jar; reqbench imports it.
    let curlJar = folder.appendingPathComponent("curl.txt").path
    _ = try runProcess(
      URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "-c", curlJar, "http://127.0.0.1:\(port)/cookies/set?from=curl"])
    let imported = try reqbench(["cookies", "import", "api.json", curlJar, "--env", "dev"])
    #expect(imported.status == 0, "\(imported.stderr)")
    #expect(imported.stderr == "imported 1 cookie into .reqbench/api/cookies/env-dev.txt\n")
    // Cookie: lines need the host they go to.
    let noDomain = try reqbench(["cookies", "import", workspace, "-", "--env", "dev"], stdin: "Cookie: a=1; b=2\n")
    #expect(noDomain.status == 2)
    #expect(noDomain.stderr.contains("-:1:1: a Cookie: line says no domain; add --domain HOST"))
    let lines = try reqbench(
      ["cookies", "import", "api.json", "-", "--env", "dev", "--domain", "127.0.0.1"], stdin: "Cookie: a=1; b=2\n")
    #expect(lines.stderr == "imported 2 cookies into .reqbench/api/cookies/env-dev.txt\n")
    #expect(try cookiesSeen(try reqbench(["run", workspace, "whoami", "--env", "dev"])) == ["from": "curl", "a": "1", "b": "2"])
    // A file that is no cookie file imports nothing and says where.
    let bad = try reqbench(["cookies", "import", workspace, "-", "--env", "dev"], stdin: "# comment\nnot a cookie\n")
    #expect(bad.status == 2)
    #expect(bad.stderr.contains("-:2:1: not a cookie"))

    let exported = try reqbench(["cookies", "export", workspace, "--env", "dev"])
    let exportedFile = folder.appendingPathComponent("exported.txt")
    try exported.stdout.write(to: exportedFile, atomically: true, encoding: .utf8)
    let curl = try runProcess(
      URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "-b", exportedFile.path, "http://127.0.0.1:\(port)/cookies"])
    #expect(try cookiesSeen(curl) == ["from": "curl", "a": "1", "b": "2"])
    let header = try reqbench(["cookies", "export", workspace, "--env", "dev", "--header"])
    #expect(header.stdout == "# 127.0.0.1 /\nCookie: a=1; b=2; from=curl\n")
  }

  // An expiry no calendar writes (curl keeps up to 2^63 - 1 seconds; a twenty-digit Max-Age
  // gives the same) reads as a date and "far future", not a count of days.
  @Test func anExpiryPastTheYear9999IsFarFuture() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    let jar = folder.appendingPathComponent("far.txt")
    try "127.0.0.1\tFALSE\t/\tFALSE\t9223372036854775807\tmax\t1\n".write(to: jar, atomically: true, encoding: .utf8)
    #expect(try reqbench(["cookies", "import", workspace, jar.path]).status == 0)
    let late = try reqbench(["run", workspace, "late", "--no-history"])
    #expect(late.status == 0, "\(late.stderr)")
    let ls = try reqbench(["cookies", "ls", workspace])
    let lines = ls.stdout.split(separator: "\n").filter { $0.contains("max") || $0.contains("late") }
    #expect(lines.count == 2, "\(ls.stdout)")
    #expect(lines.allSatisfy { $0.contains("9999-12-31, far future") }, "\(ls.stdout)")
    #expect(!ls.stdout.contains(" d)"))
  }

  @Test func anExpiredCookieIsNeitherSentNorKept() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    // Four seconds to live: the next process sends it even when the machine is loaded (a
    // second was not enough while the whole suite ran on two cores), then it expires.
    let set = Date()
    _ = try reqbench(["run", workspace, "brief", "--env", "dev"])
    #expect(try cookiesSeen(try reqbench(["run", workspace, "whoami", "--env", "dev"])) == ["brief": "1"])
    Thread.sleep(forTimeInterval: max(0, 5.2 - Date().timeIntervalSince(set)))
    #expect(try cookiesSeen(try reqbench(["run", workspace, "whoami", "--env", "dev"])) == [:])
    #expect(try reqbench(["cookies", "ls", workspace, "--env", "dev"]).stdout.isEmpty)
  }

  /// The jar file's merge between processes (docs/state-on-disk.md, cookies): a `run` that read the jar
  /// before another `run` logged out and a `cookies rm` removed a cookie writes after them, and
  /// neither cookie comes back; its own new cookie is kept.
  @Test func aCookieDeletedByOneRunOrByRmDoesNotComeBackFromAnotherRun() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    #expect(try reqbench(["run", workspace, "login", "--env", "dev"]).status == 0)
    // The long run: reads the jar {session, user}, waits 3 s at httpbin, then sets cart.
    let long = try RunningReqbench(["run", workspace, "slow-then-cart", "--env", "dev", "--json"], currentDirectory: folder)
    // Its first step has started (the jar was read for it) and waits at httpbin.
    #expect(long.read { $0.contains(#""event":"started""#) }, "the long run started: \(long.output)")
    // Meanwhile: a logout in another run, and `cookies rm user`.
    let logout = try reqbench(["run", workspace, "logout", "--env", "dev"])
    #expect(try cookiesSeen(logout) == ["user": "dev"])
    #expect(try reqbench(["cookies", "rm", workspace, "user", "--env", "dev"]).status == 0)
    let result = long.finish()
    #expect(long.process.terminationStatus == 0, "\(result.stderr)")
    // It had read the jar before: its first step went out with both cookies.
    let first = try #require(result.stdout.split(separator: "\n").first { $0.contains(#""event":"finished""#) })
    #expect(first.contains("session=••••; user=••••"), "the long run read the jar before the others changed it: \(first)")
    let names = Cookie.parseFile(try String(contentsOf: devJar, encoding: .utf8)).cookies.map(\.name)
    #expect(names == ["cart"], "neither the logged-out session nor the removed user came back")
  }

  @Test func jsonAndHistoryMaskCookieValuesUnlessRevealed() throws {
    defer { try? FileManager.default.removeItem(at: folder) }
    _ = try reqbench(["run", workspace, "login", "--env", "dev"])
    let json = try reqbench(["run", workspace, "whoami", "--env", "dev", "--json"])
    let finished = try #require(json.stdout.split(separator: "\n").first { $0.contains(#""event":"finished""#) })
    #expect(finished.contains(#"{"name":"Cookie","value":"session=••••; user=••••"}"#), "\(finished)")
    let revealed = try reqbench(["run", workspace, "whoami", "--env", "dev", "--json", "--reveal-secrets"])
    #expect(revealed.stdout.contains("session=abc123"))
    // History keeps the names: the head curl sent and the Set-Cookie of a response.
    _ = try reqbench(["run", workspace, "brief", "--env", "prod"])
    let har = try reqbench(["history", workspace, "--har"])
    #expect(har.status == 0, "\(har.stderr)")
    #expect(har.stdout.contains("session=••••"))
    #expect(har.stdout.contains("brief=••••; Max-Age=4"))
    #expect(!har.stdout.contains("Cookie: session=abc123"))
    #expect(!har.stdout.contains("\"value\":\"session=abc123"))
  }
}
