#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Percent-decodes `text` byte-wise; a `%` not followed by two hex digits stays as it is. With
/// `plusAsSpace`, `+` becomes a space (form/query convention). Invalid UTF-8 decodes lossily.
func percentDecode(_ text: Substring, plusAsSpace: Bool) -> String {
  let bytes = Array(text.utf8)
  var out: [UInt8] = []
  out.reserveCapacity(bytes.count)
  var i = 0
  while i < bytes.count {
    let byte = bytes[i]
    if byte == UInt8(ascii: "%"), i + 2 < bytes.count,
      let high = hexDigitValue(bytes[i + 1]), let low = hexDigitValue(bytes[i + 2])
    {
      out.append(high << 4 | low)
      i += 3
    } else {
      out.append(plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
      i += 1
    }
  }
  return String(decoding: out, as: UTF8.self)
}

/// `a=1&b=x%20y&c` → [("a","1"), ("b","x y"), ("c","")], in order, duplicates kept.
func parseQuery(_ raw: String) -> [(name: String, value: String)] {
  var pairs: [(name: String, value: String)] = []
  for piece in raw.split(separator: "&", omittingEmptySubsequences: true) {
    if let eq = piece.firstIndex(of: "=") {
      pairs.append(
        (percentDecode(piece[..<eq], plusAsSpace: true), percentDecode(piece[piece.index(after: eq)...], plusAsSpace: true)))
    } else {
      pairs.append((percentDecode(piece, plusAsSpace: true), ""))
    }
  }
  return pairs
}

/// Wall-clock milliseconds since the epoch.
func epochMilliseconds() -> Double {
  var ts = timespec()
  clock_gettime(CLOCK_REALTIME, &ts)
  return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1_000_000
}

/// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) for seconds since the epoch.
func httpDate(_ seconds: Int) -> String {
  var t = time_t(seconds)
  var parts = tm()
  guard gmtime_r(&t, &parts) != nil else { return "Thu, 01 Jan 1970 00:00:00 GMT" }
  let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
  let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
  func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
  let day = days[Int(max(0, min(6, parts.tm_wday)))]
  let month = months[Int(max(0, min(11, parts.tm_mon)))]
  return "\(day), \(two(parts.tm_mday)) \(month) \(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
}

func currentHTTPDate() -> String {
  httpDate(Int(time(nil)))
}

/// A decimal non-negative integer made only of ASCII digits; nil on anything else or overflow.
func parseNonNegativeInt(_ text: Substring) -> Int? {
  guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
  return Int(text)
}

/// Like `parseNonNegativeInt` but saturates at `Int.max` instead of failing on overflow.
func parseSaturatingInt(_ text: Substring) -> Int? {
  guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
  return Int(text) ?? Int.max
}

/// A finite, non-negative number of seconds (`1`, `0.25`); nil otherwise.
func parseSeconds(_ text: String?) -> Double? {
  guard let text, let value = Double(text), value.isFinite, value >= 0 else { return nil }
  return value
}

/// 64-bit FNV-1a, for turning non-numeric seeds into numbers.
func fnv1a(_ text: String) -> UInt64 {
  var hash: UInt64 = 0xcbf2_9ce4_8422_2325
  for byte in text.utf8 {
    hash ^= UInt64(byte)
    hash = hash &* 0x0000_0100_0000_01b3
  }
  return hash
}
