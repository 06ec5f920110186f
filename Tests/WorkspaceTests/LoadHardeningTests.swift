import Base
import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// A workspace from someone else: what it writes literally is checked when it is read, each
/// problem at FILE:LINE:COLUMN.
@Suite struct LoadHardeningTests {
  func problems(_ fixture: String) throws -> [String] {
    let url = fixtureFile(fixture)
    do {
      _ = try Workspace.load(from: url)
      Issue.record("\(fixture) loaded")
      return []
    } catch {
      #expect(error.kind == .invalid)
      return error.problems.map(\.description)
    }
  }

  /// CR, LF and NUL in header names and values, the method, the URL, the base URL, bearer auth
  /// and content types would end a header line early (a header or a request of the file's
  /// choosing); a body may hold them.
  @Test func lineBreaksAndNULsWrittenOnTheWireAreRefusedWhereTheyAre() throws {
    let found = try problems("hardening/literal-line-breaks.json")
    let rule = "; " + LineBreaks.rule
    #expect(found == [
      "3:14: baseURL: contains CR (\\r)" + rule,
      "4:41: defaults.headers[\"X-Default\"]: contains LF (\\n)" + rule,
      "6:62: requests[0].headers[\"X-K\"]: contains CR (\\r)" + rule,
      "7:75: requests[1].headers[\"X-K\\r\\nX-Injected\"]: contains CR (\\r)" + rule,
      "8:60: requests[2].headers[\"X-K\"]: contains NUL (\\0)" + rule,
      "9:28: requests[3].url: contains CR (\\r)" + rule,
      "10:34: requests[4].method: contains CR (\\r)" + rule,
      "11:63: requests[5].auth.bearer: contains CR (\\r)" + rule,
      "12:97: requests[6].body.contentType: contains CR (\\r)" + rule,
      "13:117: requests[7].body.multipart[0].type: contains LF (\\n)" + rule,
    ])
  }

  /// A refused request (or chain) is reported once, at its place: the chain steps and batch
  /// members that name it, or name the requests and chains read without a problem, are not
  /// reported as naming nothing. A name the file does not give still is.
  @Test func aRefusedRequestIsNotReportedAgainWhereItIsNamed() throws {
    let found = try problems("hardening/refused-request-references.json")
    #expect(found == [
      "5:71: requests[1].headers.X: contains CR (\\r); " + LineBreaks.rule,
      "9:69: chains[1].onFailure: use \"stop\" (the default) or \"continue\"",
      "10:44: chains[2].steps[0].request: no request named \"nope\"",
    ])
  }

  /// Every number has a range: one too large for what reads it (milliseconds for curl, bytes,
  /// a backoff, an expiry) is an error at its place, never a trap later.
  @Test func numbersOutOfRangeAreRefusedWhereTheyAre() throws {
    let found = try problems("hardening/out-of-range-numbers.json")
    #expect(found == [
      "3:30: agent.maxConcurrent: must be at most 1000, found 9223372036854775807",
      "3:65: agent.maxPerHost: must be at most 1000, found 4611686018427387904",
      "4:29: history.perRequest: must be at most 1000000, found 1e19",
      "4:44: history.maxMB: must be at most 1048576 MB, found 9223372036854775807",
      "5:20: retry.max: must be at most 100, found 1000000",
      "5:38: retry.delay: must be at most 3600 seconds (1 hour), found 1e16",
      "7:66: requests[0].timeout: must be at most 604800 seconds (7 days), found 1e16",
      "8:68: requests[1].deadline: must be at most 604800 seconds (7 days), found 9.3e15",
      "9:74: requests[2].cache.seconds: must be at most 315360000 seconds (10 years), found 1e300",
      "10:68: requests[3].throttle: must be at most 86400 seconds (1 day), found 1e300",
      "10:91: requests[3].maxRedirects: must be at most 1000, found 100000",
      "11:67: requests[4].timeout: must be a number of seconds above 0, or 0 for no idle timeout, found -1",
      "11:90: requests[4].retry.delay: must be 0 or more seconds, found -0.5",
      "14:59: batches[0].concurrency: must be at most 1000, found 1001",
    ])
  }

  /// The limits themselves load.
  @Test func theLargestValuesLoad() throws {
    let ws = try workspace(
      """
      {"version": 1, "agent": {"maxConcurrent": 1000, "maxPerHost": 1000},
       "history": {"perRequest": 1000000, "maxMB": 1048576}, "retry": {"max": 100, "delay": 3600},
       "requests": [{"name": "a", "url": "http://127.0.0.1:1/", "timeout": 604800, "deadline": 604800,
                     "throttle": 86400, "maxRedirects": 1000, "cache": {"seconds": 315360000}}]}
      """)
    #expect(ws.history.limits.totalBytes == 1_099_511_627_776)
    #expect(ws.requests[0].timeout == 604_800)
  }

  /// What reads these values holds at its bounds instead of trapping, for values that reach it
  /// from a library caller or a damaged state file rather than a checked workspace.
  @Test func readersOfNumbersSaturate() {
    #expect(Int(saturating: 1e300) == .max)
    #expect(Int(saturating: -1e300) == .min)
    #expect(Int(saturating: .nan) == 0)
    #expect(Int(saturating: -.infinity) == .min)
    #expect(Int(saturating: 9.2e18) == 9_200_000_000_000_000_000)
    #expect(Int64(saturating: 1e19) == .max)
    let policy = RetryPolicy(max: 100, baseDelay: 1e300)
    #expect(policy.delay(beforeRetry: 99) == RetryPolicy.longestDelay)
    #expect(RetryPolicy(baseDelay: .nan).delay(beforeRetry: 3) == 0)
    #expect(RetryPolicy(baseDelay: 0.5).delay(beforeRetry: 2) == 2)
    #expect(HistorySettings(maxMB: 1e300).limits.totalBytes == .max)
  }
}
