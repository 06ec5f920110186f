import CCurl
import Foundation

/// `Retry-After` (RFC 9110 §10.2.3) on a 429 or 503: how long the server asks the client to wait.
/// Either delay-seconds (`120`) or an HTTP-date (`Fri, 31 Dec 2027 23:59:59 GMT`, and the two
/// obsolete forms), read by curl's own date parser (`curl_getdate`). A date is measured against the
/// response's `Date` header when it has one (so a client clock that is off does not matter), else
/// against `now`. Pure: tests call it with hand-made headers.
enum RetryAfter {
  /// The statuses whose `Retry-After` the agent honours.
  static let statuses: Set<Int> = [429, 503]

  /// Seconds to wait (never negative), or nil without a usable header.
  static func seconds(_ headers: HTTPHeaders, now: Date) -> Double? {
    guard let value = headers["Retry-After"]?.trimmingWhitespace(), !value.isEmpty else { return nil }
    if value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
      // Digits only; a number too long for a Double's precision is simply huge (and capped).
      return Double(value)
    }
    guard let date = httpDate(value) else { return nil }
    let reference = headers["Date"].flatMap(httpDate) ?? now.timeIntervalSince1970
    return max(0, date - reference)
  }

  /// Seconds since 1970 of an HTTP-date, or nil when curl cannot read it.
  static func httpDate(_ text: String) -> Double? {
    let time = text.withCString { curl_getdate($0, nil) }
    return time < 0 ? nil : Double(time)
  }
}
