import Foundation

/// Sizes and durations as people read them; shared by the TUI and the `run` command's output.
public enum Formatting {
  public static func bytes(_ count: Int) -> String {
    if count < 1024 { return "\(count) B" }
    if count < 1024 * 1024 { return decimal(Double(count) / 1024, places: 1) + " KB" }
    if count < 1024 * 1024 * 1024 { return decimal(Double(count) / 1_048_576, places: 1) + " MB" }
    return decimal(Double(count) / 1_073_741_824, places: 2) + " GB"
  }

  /// `412.3 ms`, `11.00 s`; a day or more as an age (`3 d`): an ETA from a server's
  /// `Content-Length: 9000000000000000000` is a number of days, not a trap.
  public static func milliseconds(_ ms: Double) -> String {
    if ms < 1000 { return decimal(ms, places: 1) + " ms" }
    if ms < 86_400_000 { return decimal(ms / 1000, places: 2) + " s" }
    return age(ms / 1000)
  }

  /// `1.0 s`, `0.4 s`, `60.0 s`: a wait before a retry.
  public static func retryDelay(_ seconds: Double) -> String { decimal(seconds, places: 1) + " s" }

  /// `value` rounded to `places` decimals, without Foundation's slow `String(format:)`.
  /// Written right to left into a small buffer (twice as fast as joining strings; `run` formats
  /// two numbers for every line it prints).
  public static func decimal(_ value: Double, places: Int) -> String {
    let places = min(max(places, 0), 9)
    var scale = 1
    for _ in 0..<places { scale *= 10 }
    let scaled = Int(saturating: (abs(value) * Double(scale)).rounded())
    // At most 19 digits, the point and the sign.
    return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { buffer in
      var start = buffer.count
      var rest = scaled
      var digits = 0
      repeat {
        if digits == places && places > 0 {
          start -= 1
          buffer[start] = UInt8(ascii: ".")
        }
        start -= 1
        buffer[start] = UInt8(ascii: "0") + UInt8(rest % 10)
        rest /= 10
        digits += 1
      } while rest > 0 || digits <= places
      if value < 0 && scaled != 0 {
        start -= 1
        buffer[start] = UInt8(ascii: "-")
      }
      return String(decoding: UnsafeBufferPointer(rebasing: buffer[start...]), as: UTF8.self)
    }
  }

  /// `42 s`, `3 min`, `2 h`, `5 d` (an age from a damaged file, `1e300`, saturates).
  public static func age(_ seconds: Double) -> String {
    switch seconds {
    case ..<60: return "\(Int(saturating: seconds)) s"
    case ..<3600: return "\(Int(saturating: seconds / 60)) min"
    case ..<86_400: return "\(Int(saturating: seconds / 3600)) h"
    default: return "\(Int(saturating: seconds / 86_400)) d"
    }
  }

  /// The last moment written as a date, 9999-12-31 23:59:59 UTC: a cookie may expire as late as
  /// curl's 2^63 - 1 seconds (a `Max-Age` of twenty digits), which no calendar writes.
  public static let lastWrittenDate: Int64 = 253_402_300_799

  /// When a cookie that expires at `expires` (seconds since 1970, 0 for a session cookie) does:
  /// `session`, `expired`, `in 12 d`, `in 27 y`, or `far future` past the year 9999.
  public static func cookieExpiry(_ expires: Int64, now: Date) -> String {
    guard expires != 0 else { return "session" }
    guard expires <= lastWrittenDate else { return "far future" }
    let left = Double(expires) - now.timeIntervalSince1970
    if left <= 0 { return "expired" }
    return left >= 730 * 86_400 ? "in \(Int(left / (365.25 * 86_400))) y" : "in " + age(left)
  }

  /// The UTC date a cookie expires (`2026-12-01 21:05`), `9999-12-31, far future` past the year
  /// 9999; nil for a session cookie.
  public static func cookieExpiryDate(_ expires: Int64) -> String? {
    guard expires != 0 else { return nil }
    guard expires <= lastWrittenDate else { return "9999-12-31, far future" }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd HH:mm"
    return formatter.string(from: Date(timeIntervalSince1970: Double(expires)))
  }

  /// `200 OK`.
  public static func status(_ code: Int?) -> String {
    guard let code else { return "no status" }
    return reasons[code].map { "\(code) \($0)" } ?? "\(code)"
  }

  public static let reasons = ReasonPhrases.table
}
