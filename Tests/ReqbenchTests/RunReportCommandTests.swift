import Foundation
import RequestEngine
import TestSupport
import Testing

/// `reqbench run --junit FILE` and `--report json|tap|junit`, through the real binary against
/// the fixture server and httpbin; the XML is checked by libxml2 (`xmllint`) against the JUnit
/// schema Jenkins reads (`Tests/Fixtures/junit/junit-10.xsd`) and read back with XPath.
@Suite("reqbench run reports")
struct RunReportCommandTests {
  static let xmllint = URL(fileURLWithPath: "/usr/bin/xmllint")
  static let schema = fixtureFile("junit/junit-10.xsd").path

  /// A workspace of requests against the fixture, a chain whose first step's capture fails on a
  /// body full of what XML forbids, and a batch holding a request, a failing one and the chain.
  func workspace() throws -> (path: String, folder: URL) {
    let fixture = try TestServer.fixture.baseURL
    // A JSON body with a raw control character, `<`, `&` and `]]>`: XML may hold none of them raw.
    let hostile = Data("{\"a\": \"\u{1}<b>&]]>\u{7f}\"}".utf8).base64EncodedString()
    let text = """
      {
        "version": 1,
        "name": "reports",
        "baseURL": "\(fixture)",
        "requests": [
          {"name": "users/one", "url": "/users/1"},
          {"name": "broken", "url": "/status/500"},
          {"name": "down", "url": "http://127.0.0.1:1/nothing"},
          {"name": "hostile", "url": "\(try TestServer.httpbin.url("/base64/" + hostile))"},
          {"name": "after", "url": "/users/2"}
        ],
        "chains": [
          {"name": "flow", "steps": [
            {"request": "users/one", "capture": {"id": ".id"}},
            {"request": "hostile", "capture": {"x": ".missing"}},
            {"request": "after"}
          ]}
        ],
        "batches": [
          {"name": "smoke", "members": ["users/one", "broken", "flow"], "policy": "allSettled"}
        ]
      }
      """
    return try workspaceFile(text, named: "reports.json")
  }

  /// `xmllint --noout --schema junit-10.xsd FILE`: "FILE validates", or the test fails with why.
  func validate(_ file: String) throws {
    let result = try runProcess(Self.xmllint, ["--noout", "--schema", Self.schema, file])
    #expect(result.status == 0, "xmllint: \(result.stderr)")
    #expect(result.stderr.contains("validates"), "\(result.stderr)")
  }

  /// What an XPath expression gives on the file (xmllint's `--xpath`).
  func xpath(_ file: String, _ expression: String) throws -> String {
    let result = try runProcess(Self.xmllint, ["--xpath", expression, file])
    #expect(result.status == 0, "xmllint --xpath \(expression): \(result.stderr)")
    return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test func junitFileHasACasePerRequestWithFailuresErrorsAndTimes() throws {
    let (ws, folder) = try workspace()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("junit.xml").path
    let run = try runProcess(try reqbenchBinary, ["run", ws, "users/one", "broken", "down", "--junit", file])
    #expect(run.status == 1, "\(run.stderr)")
    // The usual lines are still printed.
    #expect(run.stdout.contains("✓ 200  users/one"))
    try validate(file)
    #expect(try xpath(file, "count(/testsuites/testsuite)") == "1")
    #expect(try xpath(file, "string(/testsuites/testsuite/@name)") == "reports")
    #expect(try xpath(file, "string(/testsuites/testsuite/@tests)") == "3")
    #expect(try xpath(file, "string(/testsuites/testsuite/@failures)") == "1")
    #expect(try xpath(file, "string(/testsuites/testsuite/@errors)") == "1")
    #expect(try xpath(file, "count(//testcase[@name='users/one']/*)") == "0")
    // A status outside the range is a failure (a check that did not hold), with the reason.
    #expect(try xpath(file, "string(//testcase[@name='broken']/failure/@type)") == "status")
    #expect(try xpath(file, "string(//testcase[@name='broken']/failure/@message)") == "status 500 is outside 200-299")
    #expect(try xpath(file, "string(//testcase[@name='broken']/failure)").contains(try TestServer.fixture.url("/status/500")))
    // No connection is an error (the exchange could not be made).
    #expect(try xpath(file, "string(//testcase[@name='down']/error/@type)") == "transport")
    #expect(try xpath(file, "string(//testcase[@name='down']/error/@message)").hasPrefix("cannot connect"))
    // Times in seconds, from the exchange.
    let time = try #require(Double(try xpath(file, "string(//testcase[@name='users/one']/@time)")))
    #expect(time > 0 && time < 30)
    #expect(try xpath(file, "string(//testcase[@name='users/one']/@classname)") == "reports")
  }

  @Test func batchAndChainAreSuitesWithStepsAsCasesAndUnsentStepsSkipped() throws {
    let (ws, folder) = try workspace()
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("junit.xml").path
    let run = try runProcess(try reqbenchBinary, ["run", ws, "smoke", "flow", "users/one", "--junit", file])
    #expect(run.status == 1, "\(run.stderr)")
    try validate(file)
    // smoke, its chain member, the chain on its own, the request on its own.
    #expect(try xpath(file, "count(/testsuites/testsuite)") == "4")
    #expect(try xpath(file, "string(/testsuites/testsuite[1]/@name)") == "smoke")
    #expect(try xpath(file, "string(/testsuites/testsuite[2]/@name)") == "smoke › flow")
    #expect(try xpath(file, "string(/testsuites/testsuite[3]/@name)") == "flow")
    #expect(try xpath(file, "string(/testsuites/testsuite[4]/@name)") == "reports")
    #expect(try xpath(file, "string(/testsuites/testsuite[1]/@tests)") == "2")
    #expect(try xpath(file, "string(/testsuites/testsuite[1]/testcase[@name='broken']/failure/@type)") == "status")
    // The chain: step 1 passed, step 2's capture found nothing (a failure), step 3 never sent.
    let flow = "/testsuites/testsuite[3]"
    #expect(try xpath(file, "string(\(flow)/@tests)") == "3")
    #expect(try xpath(file, "string(\(flow)/@failures)") == "1")
    #expect(try xpath(file, "string(\(flow)/@skipped)") == "1")
    #expect(try xpath(file, "count(\(flow)/testcase[@name='step 1: users/one']/*)") == "0")
    #expect(try xpath(file, "string(\(flow)/testcase[@name='step 2: hostile']/failure/@type)") == "capture")
    let reason = try xpath(file, "string(\(flow)/testcase[@name='step 2: hostile']/failure)")
    #expect(reason.contains("capture x: .missing"), "\(reason)")
    // The body's raw control characters could not be XML: they are U+FFFD; `<&]]>` survive as text.
    #expect(reason.contains("\u{FFFD}<b>&]]>\u{FFFD}"), "\(reason)")
    #expect(try xpath(file, "string(\(flow)/testcase[@name='step 3: after']/skipped/@message)") == "not run: the chain stopped at step 2")
    #expect(try xpath(file, "string(\(flow)/testcase[1]/@classname)") == "flow")
    #expect(try xpath(file, "string(/testsuites/@tests)") == "9")
  }

  @Test func reportTapAndJSONReplaceTheOutputOnStdout() throws {
    let (ws, folder) = try workspace()
    defer { try? FileManager.default.removeItem(at: folder) }

    let tap = try runProcess(try reqbenchBinary, ["run", ws, "flow", "broken", "--report", "tap"])
    #expect(tap.status == 1, "\(tap.stderr)")
    let lines = tap.stdout.split(separator: "\n").map(String.init)
    #expect(lines.prefix(2) == ["TAP version 13", "1..4"])
    #expect(lines.contains("ok 1 - flow › step 1: users/one"))
    #expect(lines.contains("not ok 2 - flow › step 2: hostile"))
    #expect(lines.contains("ok 3 - flow › step 3: after # SKIP not run: the chain stopped at step 2"))
    #expect(lines.contains("not ok 4 - reports › broken"))
    #expect(lines.contains("  severity: fail"))
    #expect(lines.contains(#"  message: "status 500 is outside 200-299""#))
    // Nothing but the report on stdout; the counts on stderr.
    #expect(!tap.stdout.contains("✗"))
    #expect(tap.stderr.contains("0 succeeded, 2 failed, 0 cancelled"))

    let json = try runProcess(try reqbenchBinary, ["run", ws, "users/one", "down", "--report", "json"])
    #expect(json.status == 1, "\(json.stderr)")
    let report = try JSONParser.parse(json.stdout)
    #expect(report["tests"]?.intValue == 2)
    #expect(report["errors"]?.intValue == 1)
    let cases = try #require(report["suites"]?.arrayValue?.first?["cases"]?.arrayValue)
    #expect(cases.map { $0["result"]?.stringValue } == ["passed", "error"])
    #expect(cases[1]["type"]?.stringValue == "transport")

    // One request: the body is not printed, the report is.
    let junit = try runProcess(try reqbenchBinary, ["run", ws, "users/one", "--report", "junit"])
    #expect(junit.status == 0, "\(junit.stderr)")
    #expect(junit.stdout.hasPrefix("<?xml"))
    #expect(!junit.stdout.contains("Ada"))
    let file = folder.appendingPathComponent("stdout.xml")
    try junit.stdout.write(to: file, atomically: true, encoding: .utf8)
    try validate(file.path)
  }

  @Test func aSecretInTheURLIsMaskedInTheReport() throws {
    let text = """
      {"version": 1, "baseURL": "\(try TestServer.fixture.baseURL)",
       "requests": [{"name": "leak", "url": "/status/404?token={{secret.token}}"}]}
      """
    let (ws, folder) = try workspaceFile(text, named: "api.json")
    defer { try? FileManager.default.removeItem(at: folder) }
    let secret = "s3cr3t-\(uniqueKey())"
    let set = try runProcess(try reqbenchBinary, ["secrets", "set", ws, "token"], stdin: secret + "\n")
    #expect(set.status == 0, "\(set.stderr)")
    let file = folder.appendingPathComponent("junit.xml").path
    let run = try runProcess(try reqbenchBinary, ["run", ws, "leak", "--junit", file, "--no-history"])
    #expect(run.status == 1)
    let xml = try String(contentsOfFile: file, encoding: .utf8)
    #expect(xml.contains("token=••••"), "\(xml)")
    #expect(!xml.contains(secret))
    for format in ["tap", "json", "junit"] {
      let shown = try runProcess(try reqbenchBinary, ["run", ws, "leak", "--report", format, "--no-history"])
      #expect(shown.stdout.contains("token=••••"), "\(format): \(shown.stdout)")
      #expect(!shown.stdout.contains(secret) && !shown.stderr.contains(secret), "\(format)")
    }
  }

  @Test func badReportOptionsAreUsageErrorsBeforeAnythingIsSent() throws {
    let (ws, folder) = try workspace()
    defer { try? FileManager.default.removeItem(at: folder) }
    let wrongFormat = try runProcess(try reqbenchBinary, ["run", ws, "users/one", "--report", "xml"])
    #expect(wrongFormat.status == 2)
    #expect(wrongFormat.stderr.contains(#"--report needs json, tap or junit, got "xml""#))
    let both = try runProcess(try reqbenchBinary, ["run", ws, "users/one", "--report", "tap", "--json"])
    #expect(both.status == 2)
    #expect(both.stderr.contains("choose one"))

    let missing = folder.appendingPathComponent("no/such/folder/junit.xml").path
    let noFolder = try runProcess(try reqbenchBinary, ["run", ws, "users/one", "--junit", missing])
    #expect(noFolder.status == 2)
    #expect(noFolder.stderr.contains("does not exist; create it first"), "\(noFolder.stderr)")
    #expect(noFolder.stdout.isEmpty)  // nothing was sent
    let intoWorkspace = try runProcess(try reqbenchBinary, ["run", ws, "smoke", "--junit", ws])
    #expect(intoWorkspace.status == 2)
    #expect(intoWorkspace.stderr.contains("is the workspace file"))
    #expect(try String(contentsOfFile: ws, encoding: .utf8).contains(#""name": "reports""#))
    let aFolder = try runProcess(try reqbenchBinary, ["run", ws, "users/one", "--junit", folder.path])
    #expect(aFolder.status == 2)
    #expect(aFolder.stderr.contains("that is a folder"))

    let help = try runProcess(try reqbenchBinary, ["run", "--help"])
    #expect(help.stdout.contains("--junit FILE"))
    #expect(help.stdout.contains("--report json|tap|junit"))
  }
}
