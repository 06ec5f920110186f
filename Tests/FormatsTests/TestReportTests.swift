import Formats
import Foundation
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

/// `TestReport`'s three formats, without a run: counts, times, escaping.
@Suite("test reports")
struct TestReportTests {
  let report = TestReport(suites: [
    TestReport.Suite(
      name: "smoke", timestamp: Date(timeIntervalSince1970: 1_764_547_200), time: 1.5,
      cases: [
        TestReport.Case(name: "users/list", classname: "smoke", time: 0.0124, outcome: .passed),
        TestReport.Case(
          name: "broken", classname: "smoke", time: 0.2,
          outcome: .failed(type: "status", message: "status 500 is outside 200-299", details: "GET /status/500\n500")),
        TestReport.Case(
          name: "down #1", classname: "smoke", time: 0,
          outcome: .error(type: "transport", message: "cannot connect", details: "a\u{1}b<&>\"'")),
        TestReport.Case(name: "later", classname: "smoke", time: 0, outcome: .skipped(message: "not run: stop\nhere")),
      ]),
    TestReport.Suite(name: "empty", time: 0, cases: []),
  ])

  @Test func countsAddUpPerSuiteAndOverall() {
    #expect(report.tests == 4)
    #expect(report.failures == 1 && report.errors == 1 && report.skipped == 1)
    #expect(report.suites[1].cases.isEmpty && report.suites[1].failures == 0)
    #expect(report.time == 1.5)
  }

  @Test func junitEscapesTextAndKeepsAttributesOnOneLine() {
    let xml = report.junitXML()
    #expect(xml.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"#))
    #expect(xml.contains(#"<testsuites name="reqbench" tests="4" failures="1" errors="1" time="1.500">"#))
    #expect(xml.contains(
      #"<testsuite name="smoke" tests="4" failures="1" errors="1" skipped="1" time="1.500" timestamp="2025-12-01T00:00:00.000Z" id="0">"#))
    #expect(xml.contains(#"<testcase name="users/list" classname="smoke" time="0.012"/>"#))
    #expect(xml.contains(#"<failure type="status" message="status 500 is outside 200-299">GET /status/500"# + "\n500</failure>"))
    // A control character XML cannot hold becomes U+FFFD; markup characters are entities.
    #expect(xml.contains("<error type=\"transport\" message=\"cannot connect\">a\u{FFFD}b&lt;&amp;&gt;&quot;&apos;</error>"))
    #expect(xml.contains(#"<skipped message="not run: stop here"/>"#))
    #expect(xml.contains(#"<testsuite name="empty" tests="0" failures="0" errors="0" skipped="0" time="0.000""#))
    #expect(!xml.contains("\u{1}"))
  }

  @Test func tapNumbersEveryCaseAndSaysWhyInYAML() {
    let lines = report.tap().split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(lines.prefix(3) == ["TAP version 13", "1..4", "ok 1 - smoke › users/list"])
    #expect(lines.contains("not ok 2 - smoke › broken"))
    #expect(lines.contains(#"  details: "GET /status/500\n500""#))
    #expect(lines.contains("  duration_ms: 200.000"))
    // `#` would start a directive: escaped in a description.
    #expect(lines.contains("not ok 3 - smoke › down \\#1"))
    #expect(lines.contains("  severity: error"))
    #expect(lines.contains("ok 4 - smoke › later # SKIP not run: stop here"))
    #expect(lines.last == "")
  }

  @Test func jsonHoldsTheSameResults() throws {
    let value = try JSONParser.parse(report.render(.json))
    #expect(value["tests"]?.intValue == 4)
    let cases = try #require(value["suites"]?.arrayValue?.first?["cases"]?.arrayValue)
    #expect(cases.map { $0["result"]?.stringValue } == ["passed", "failed", "error", "skipped"])
    #expect(cases[0]["time"]?.doubleValue == 0.012)
    #expect(cases[2]["details"]?.stringValue == "a\u{1}b<&>\"'")
  }

  @Test func timesAreSecondsWithThreeDecimalsNeverNegative() {
    #expect(TestReport(suites: [TestReport.Suite(name: "s", time: -3, cases: [])]).junitXML().contains(#"time="0.000""#))
    #expect(TestReport(suites: [TestReport.Suite(name: "s", time: .infinity, cases: [])]).junitXML().contains(#"time="0.000""#))
    #expect(TestReport(suites: [TestReport.Suite(name: "s", time: 61.0006, cases: [])]).junitXML().contains(#"time="61.001""#))
  }
}
