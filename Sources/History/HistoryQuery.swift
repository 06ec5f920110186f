import Foundation
import Workspace

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Which history entries to list: `reqbench history WS [TARGET] --search TEXT --body --status
/// 2xx --since 1h --failed --limit N`, and the TUI's history overlay. Every condition given
/// must hold; entries come newest first.
///
/// ```swift
/// var query = HistoryQuery()
/// query.text = "users 404"                  // both words, in any searched field
/// query.statuses = try HistoryQuery.statuses(parsing: "4xx,500")
/// query.since = try HistoryQuery.date(parsing: "1h", now: Date())
/// let entries = try store.entries(matching: query)
/// ```
public struct HistoryQuery: Sendable, Equatable {
  /// Whose entries.
  public enum Requests: Sendable, Equatable {
    case all
    /// One request's.
    case named(String)
    /// Every request whose name starts with the folder (`users/`).
    case folder(String)
  }

  /// A `--status` item.
  public enum Status: Sendable, Equatable {
    /// `404`.
    case code(Int)
    /// `500-599`, `2xx` (`200-299`).
    case range(ClosedRange<Int>)
    /// `none`: no response (a transport failure, cancelled before an answer).
    case noResponse
  }

  public var requests: Requests = .all
  /// Words (split at white space) that must each appear in the entry's name, method, URL,
  /// status, error or response headers, as a word or the start of one: `user` finds
  /// `/users/1`, `users/1` finds the two words in that order. Empty: no condition.
  public var text = ""
  /// Whether a word may appear in the request or response body instead (bodies kept in the
  /// database, up to 1 MB, read as text).
  public var includeBodies = false
  /// Any of these statuses (none given: any status).
  public var statuses: [Status] = []
  /// Finished at or after this time.
  public var since: Date?
  /// Only exchanges that failed (an error, a status or validation failure; not cancelled ones).
  public var failedOnly = false
  /// At most this many entries, the newest; nil for all.
  public var limit: Int?

  public init(requests: Requests = .all, text: String = "", limit: Int? = nil) {
    self.requests = requests
    self.text = text
    self.limit = limit
  }

  /// The words of `text`.
  var words: [String] {
    text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
  }

  // MARK: - Parsing the command line's values

  /// What a `--status` or `--since` value could not be read as.
  public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
  }

  /// `2xx`, `404`, `500-599`, `none`, or several joined by commas (`4xx,5xx`).
  public static func statuses(parsing text: String) throws(ParseError) -> [Status] {
    var statuses: [Status] = []
    for item in text.split(separator: ",", omittingEmptySubsequences: false) {
      let part = item.trimmingCharacters(in: .whitespaces).lowercased()
      if part == "none" {
        statuses.append(.noResponse)
      } else if part.count == 3, part.hasSuffix("xx"), let digit = part.first?.wholeNumberValue,
        (1...5).contains(digit)
      {
        statuses.append(.range(digit * 100...digit * 100 + 99))
      } else if let code = Int(part), (100...999).contains(code) {
        statuses.append(.code(code))
      } else if case let bounds = part.split(separator: "-"), bounds.count == 2,
        let low = Int(bounds[0]), let high = Int(bounds[1]), (100...999).contains(low),
        (low...999).contains(high)
      {
        statuses.append(.range(low...high))
      } else {
        throw ParseError(
          message: "--status takes codes (404), classes (2xx), ranges (500-599) or none, "
            + "joined by commas; got \"\(text)\"")
      }
    }
    return statuses
  }

  /// `30s`, `15m`, `1h`, `2d`, `1w` before `now`; or a local date `2026-11-30` (its midnight),
  /// `2026-11-30T14:00` or `2026-11-30 14:00:05`.
  public static func date(parsing text: String, now: Date) throws(ParseError) -> Date {
    let value = text.trimmingCharacters(in: .whitespaces)
    let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
    if let unit = value.last, let seconds = units[unit], let amount = Double(value.dropLast()),
      amount.isFinite, amount >= 0, amount <= 100 * 365
    {
      return now.addingTimeInterval(-amount * seconds)
    }
    if let date = localDate(value) { return date }
    throw ParseError(
      message: "--since takes a duration (30m, 1h, 2d, 1w) or a date (2026-11-30, "
        + "2026-11-30T14:00); got \"\(text)\"")
  }

  /// `YYYY-MM-DD`, optionally `THH:MM[:SS]` (or a space before the time), in local time.
  private static func localDate(_ text: String) -> Date? {
    let parts = text.split(whereSeparator: { $0 == "T" || $0 == " " })
    guard (1...2).contains(parts.count) else { return nil }
    let day = parts[0].split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
    guard day.count == 3, let year = day[0], let month = day[1], let date = day[2],
      parts[0].count == 10, (1970...9999).contains(year), (1...12).contains(month),
      (1...31).contains(date)
    else { return nil }
    var clock = [0, 0, 0]
    if parts.count == 2 {
      let fields = parts[1].split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
      guard (2...3).contains(fields.count), !fields.contains(nil) else { return nil }
      for (i, field) in fields.enumerated() { clock[i] = field ?? 0 }
      guard (0...23).contains(clock[0]), (0...59).contains(clock[1]), (0...60).contains(clock[2])
      else { return nil }
    }
    var parts_ = tm()
    parts_.tm_year = Int32(year - 1900)
    parts_.tm_mon = Int32(month - 1)
    parts_.tm_mday = Int32(date)
    parts_.tm_hour = Int32(clock[0])
    parts_.tm_min = Int32(clock[1])
    parts_.tm_sec = Int32(clock[2])
    parts_.tm_isdst = -1
    let seconds = mktime(&parts_)
    // mktime normalizes 2026-02-31 to March: a day that does not exist is refused.
    guard seconds != -1, parts_.tm_mday == Int32(date), parts_.tm_mon == Int32(month - 1) else {
      return nil
    }
    return Date(timeIntervalSince1970: Double(seconds))
  }
}
