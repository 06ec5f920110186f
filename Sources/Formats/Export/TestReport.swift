import Base
import Foundation
import History
import RequestEngine
import Workspace

/// What `reqbench run --junit FILE` and `--report json|tap|junit` write: the run as test
/// results, one case per exchange or chain step, the batch or chain (or the requests named on
/// their own) as the suite.
///
/// The values are already what may be shown: `run` builds them from its results with the
/// secrets masked. Writing is pure, so the three formats are tested without a run:
///
/// ```swift
/// let report = TestReport(suites: [TestReport.Suite(name: "smoke", cases: [
///   TestReport.Case(name: "users/list", classname: "smoke", time: 0.012, result: .passed)])])
/// report.junitXML()  // <testsuites …><testsuite name="smoke" tests="1" …>
/// ```
public struct TestReport: Sendable, Equatable {
  public enum Format: String, Sendable, CaseIterable {
    case json, tap, junit
  }

  /// How a case ended. A check of ours that did not hold (the status, the JSON shape, a chain
  /// capture) is a failure; what stopped the exchange itself (no connection, a request that
  /// could not be built) is an error, as Hurl tells its assertion failures from its runtime
  /// errors; what never ran or was cancelled is skipped.
  public enum Outcome: Sendable, Equatable {
    case passed
    /// `type`: the error kind (`status`, `validation`, `capture`); `details`: the lines that say
    /// what happened and where.
    case failed(type: String, message: String, details: String)
    case error(type: String, message: String, details: String)
    case skipped(message: String)
  }

  public struct Case: Sendable, Equatable {
    public var name: String
    public var classname: String
    /// Seconds.
    public var time: Double
    public var outcome: Outcome

    public init(name: String, classname: String, time: Double, outcome: Outcome) {
      self.name = name
      self.classname = classname
      self.time = time
      self.outcome = outcome
    }
  }

  public struct Suite: Sendable, Equatable {
    public var name: String
    /// When it started.
    public var timestamp: Date
    /// Seconds, start to end (a batch's members run at once: less than the sum of its cases).
    public var time: Double
    public var cases: [Case]

    public init(name: String, timestamp: Date = Date(timeIntervalSince1970: 0), time: Double = 0, cases: [Case]) {
      self.name = name
      self.timestamp = timestamp
      self.time = time
      self.cases = cases
    }

    public var failures: Int { cases.count { if case .failed = $0.outcome { true } else { false } } }
    public var errors: Int { cases.count { if case .error = $0.outcome { true } else { false } } }
    public var skipped: Int { cases.count { if case .skipped = $0.outcome { true } else { false } } }
  }

  public var suites: [Suite]

  public init(suites: [Suite]) { self.suites = suites }

  public var tests: Int { suites.reduce(0) { $0 + $1.cases.count } }
  public var failures: Int { suites.reduce(0) { $0 + $1.failures } }
  public var errors: Int { suites.reduce(0) { $0 + $1.errors } }
  public var skipped: Int { suites.reduce(0) { $0 + $1.skipped } }
  /// The longest suite: suites run at the same time.
  public var time: Double { suites.map(\.time).max() ?? 0 }

  public func render(_ format: Format) -> String {
    switch format {
    case .json: JSONSerializer.pretty(json()) + "\n"
    case .tap: tap()
    case .junit: junitXML()
    }
  }

  // MARK: - JUnit XML

  /// JUnit XML as Jenkins reads it (its xunit plugin's `junit-10.xsd`, which
  /// `Tests/Fixtures/junit/` holds; GitLab reads the same elements): `<testsuites>`, a
  /// `<testsuite>` per suite, a `<testcase>` per case with `<failure>`, `<error>` or `<skipped>`.
  public func junitXML() -> String {
    var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    out += "<testsuites name=\"reqbench\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"\(errors)\""
    out += " time=\"\(Self.seconds(time))\">\n"
    for (index, suite) in suites.enumerated() {
      out += "  <testsuite name=\"\(Self.attribute(suite.name))\" tests=\"\(suite.cases.count)\""
      out += " failures=\"\(suite.failures)\" errors=\"\(suite.errors)\" skipped=\"\(suite.skipped)\""
      out += " time=\"\(Self.seconds(suite.time))\" timestamp=\"\(HARExport.iso8601(suite.timestamp))\" id=\"\(index)\">\n"
      for testCase in suite.cases {
        out += "    <testcase name=\"\(Self.attribute(testCase.name))\" classname=\"\(Self.attribute(testCase.classname))\""
        out += " time=\"\(Self.seconds(testCase.time))\""
        switch testCase.outcome {
        case .passed:
          out += "/>\n"
        case .failed(let type, let message, let details), .error(let type, let message, let details):
          let element = if case .failed = testCase.outcome { "failure" } else { "error" }
          out += ">\n      <\(element) type=\"\(Self.attribute(type))\" message=\"\(Self.attribute(message))\">"
          out += XMLText.escaped(details) + "</\(element)>\n    </testcase>\n"
        case .skipped(let message):
          out += ">\n      <skipped message=\"\(Self.attribute(message))\"/>\n    </testcase>\n"
        }
      }
      out += "  </testsuite>\n"
    }
    out += "</testsuites>\n"
    return out
  }

  /// An attribute value on one line (a parser would turn its line breaks into spaces anyway).
  private static func attribute(_ text: String) -> String {
    XMLText.escaped(text.split(whereSeparator: \.isNewline).joined(separator: " "))
  }

  /// `0.012`: seconds with three decimals, never negative (the schema's `SUREFIRE_TIME`).
  static func seconds(_ value: Double) -> String {
    let milliseconds = value.isFinite ? Int(min(max(0, value), 1e12) * 1000 + 0.5) : 0
    let fraction = milliseconds % 1000
    return "\(milliseconds / 1000)." + (fraction < 10 ? "00" : fraction < 100 ? "0" : "") + "\(fraction)"
  }

  // MARK: - TAP

  /// TAP version 13: `ok N - suite › case`, `not ok` with a YAML block saying why, `# SKIP` for
  /// what did not run.
  public func tap() -> String {
    var out = "TAP version 13\n1..\(tests)\n"
    var number = 0
    for suite in suites {
      for testCase in suite.cases {
        number += 1
        let description = Self.tapDescription(suite.name == testCase.name ? suite.name : "\(suite.name) › \(testCase.name)")
        switch testCase.outcome {
        case .passed:
          out += "ok \(number) - \(description)\n"
        case .skipped(let message):
          out += "ok \(number) - \(description) # SKIP \(Self.tapDescription(message))\n"
        case .failed(let type, let message, let details), .error(let type, let message, let details):
          let severity = if case .failed = testCase.outcome { "fail" } else { "error" }
          out += "not ok \(number) - \(description)\n"
          out += "  ---\n"
          // JSON strings are YAML flow scalars: whatever the text holds, the block stays YAML.
          out += "  message: \(JSONSerializer.quote(message))\n"
          out += "  severity: \(severity)\n"
          out += "  type: \(JSONSerializer.quote(type))\n"
          out += "  duration_ms: \(Self.seconds(testCase.time * 1000))\n"
          out += "  details: \(JSONSerializer.quote(details))\n"
          out += "  ...\n"
        }
      }
    }
    return out
  }

  /// One line with no `#` that TAP would read as a directive.
  private static func tapDescription(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline).joined(separator: " ").replacingOccurrences(of: "#", with: "\\#")
  }

  // MARK: - JSON

  /// `{"tests": N, "failures": …, "suites": [{"name": …, "cases": [{"name": …, "result":
  /// "passed" | "failed" | "error" | "skipped", "type": …, "message": …, "details": …}]}]}`.
  public func json() -> JSONValue {
    .object(JSONObject([
      ("tests", .number(tests)), ("failures", .number(failures)), ("errors", .number(errors)),
      ("skipped", .number(skipped)), ("time", .number(Self.rounded(time))),
      ("suites", .array(suites.map { suite in
        .object(JSONObject([
          ("name", .string(suite.name)), ("timestamp", .string(HARExport.iso8601(suite.timestamp))),
          ("time", .number(Self.rounded(suite.time))), ("tests", .number(suite.cases.count)),
          ("failures", .number(suite.failures)), ("errors", .number(suite.errors)), ("skipped", .number(suite.skipped)),
          ("cases", .array(suite.cases.map(Self.json))),
        ]))
      })),
    ]))
  }

  private static func json(_ testCase: Case) -> JSONValue {
    var object = JSONObject([
      ("name", .string(testCase.name)), ("classname", .string(testCase.classname)),
      ("time", .number(rounded(testCase.time))),
    ])
    switch testCase.outcome {
    case .passed:
      object["result"] = "passed"
    case .failed(let type, let message, let details), .error(let type, let message, let details):
      object["result"] = if case .failed = testCase.outcome { "failed" } else { "error" }
      object["type"] = .string(type)
      object["message"] = .string(message)
      object["details"] = .string(details)
    case .skipped(let message):
      object["result"] = "skipped"
      object["message"] = .string(message)
    }
    return .object(object)
  }

  private static func rounded(_ seconds: Double) -> Double {
    seconds.isFinite ? (max(0, seconds) * 1000).rounded() / 1000 : 0
  }
}
