import Foundation

/// How many cookies a jar keeps, as browsers bound theirs (Firefox and Chrome: 180 a domain,
/// about 3,000 in all; RFC 6265 §6.1 asks for at least 50 and 3,000): a server, or a chain of
/// redirects each planting 50, cannot grow a jar without bound, and every later command that
/// loads it stays quick. What goes first follows RFC 6265 §5.3 step 12: expired cookies, then the
/// oldest of a host over its share, then the oldest in the jar. A cookie's age is when the jar
/// first held it (a new value keeps it, as the RFC's creation time does); `CookieJar` keeps that
/// order, and its file keeps the oldest first, so the age survives from one process to the next.
public struct CookieLimits: Sendable, Equatable {
  /// At most this many cookies of one host (`Cookie.host`, case-insensitive).
  public var perHost: Int
  /// At most this many cookies in the jar.
  public var total: Int

  public init(perHost: Int = 180, total: Int = 3000) {
    self.perHost = perHost
    self.total = total
  }

  public static let browsers = CookieLimits()

  /// The keys (`Cookie.key`) of the cookies to remove from `cookies`, given oldest first.
  public func evictions(oldestFirst cookies: [Cookie], now: Date = Date()) -> Set<String> {
    var evicted = Set<String>()
    var live: [Cookie] = []
    live.reserveCapacity(cookies.count)
    for cookie in cookies {
      if cookie.isExpired(at: now) { evicted.insert(cookie.key) } else { live.append(cookie) }
    }
    // Per host: counted from the newest, so the oldest over the share go.
    var perHostCount: [String: Int] = [:]
    var kept: [Cookie] = []
    kept.reserveCapacity(live.count)
    for cookie in live.reversed() {
      let host = cookie.host.lowercased()
      let count = perHostCount[host, default: 0]
      if count >= perHost {
        evicted.insert(cookie.key)
      } else {
        perHostCount[host] = count + 1
        kept.append(cookie)
      }
    }
    // `kept` is newest first: what is past the total is the oldest.
    if kept.count > total {
      for cookie in kept[total...] { evicted.insert(cookie.key) }
    }
    return evicted
  }

  /// `cookies` (oldest first) without those `evictions` names, in the same order.
  public func kept(oldestFirst cookies: [Cookie], now: Date = Date()) -> [Cookie] {
    let evicted = evictions(oldestFirst: cookies, now: now)
    return evicted.isEmpty ? cookies : cookies.filter { !evicted.contains($0.key) }
  }
}
