import CCurl
import Foundation

/// A cookie jar: libcurl's own cookie store, shared by every easy handle of the agent that sends
/// a request with this jar (a `CURLSH` with `CURL_LOCK_DATA_COOKIE`). Which cookie goes to which
/// request, and what a `Set-Cookie` does to the store (domain and path matching, expiry,
/// `Secure`, `HttpOnly`, `SameSite`, public suffixes), is curl's; this class only attaches the
/// share to transfers and reads and edits the store with `CURLINFO_COOKIELIST` and
/// `CURLOPT_COOKIELIST`.
///
/// The share's lock callbacks (in the C shim) make it safe to read or edit the jar from any
/// thread while the engine thread's transfers use it. The jar is in memory only: keeping it on
/// disk is its owner's (`Workspace`'s `CookieJarFile`), told by `onChange` when an exchange
/// received a `Set-Cookie`.
///
/// ```swift
/// let jar = CookieJar()
/// var request = Request(name: "login", url: "http://127.0.0.1:8080/cookies/set?session=abc")
/// request.cookieJar = jar
/// _ = agent.sendAndWait(request)
/// jar.cookies.map(\.name)  // ["session"]
/// ```
public final class CookieJar: @unchecked Sendable, Equatable {
  private let share: OpaquePointer
  private let lock = NSLock()
  private var changes: UInt64 = 0
  private var changeHandler: (@Sendable () -> Void)?

  /// Which jar this is, the same in every process (a workspace's jar is named for its
  /// environment): part of a request's `credentialIdentity`, so a response cached for one jar's
  /// session is not served to another's.
  public let name: String
  /// How many cookies the jar keeps (browsers' bounds by default): enforced when cookies are
  /// added and after each exchange that received a `Set-Cookie`.
  public let limits: CookieLimits
  /// When the jar first held each cookie (by `Cookie.key`): the age `limits` evicts by.
  private var ordinals: [String: UInt64] = [:]
  private var nextOrdinal: UInt64 = 0

  public init(name: String = "default", limits: CookieLimits = .browsers) {
    self.name = name
    self.limits = limits
    Curl.initializeOnce()
    // rb_cookie_share_new fails only when out of memory.
    guard let share = rb_cookie_share_new() else { preconditionFailure("curl_share_init failed: out of memory") }
    self.share = share
  }

  deinit { rb_cookie_share_free(share) }

  public static func == (a: CookieJar, b: CookieJar) -> Bool { a === b }

  /// The `CURLSH` transfers attach (`CURLOPT_SHARE`).
  var curlShare: UnsafeMutableRawPointer? { rb_cookie_share_handle(share) }

  // MARK: - Reading and editing

  /// Every cookie curl holds (expired ones until curl drops them), sorted by domain, path, name.
  public var cookies: [Cookie] {
    withEasyHandle { handle in
      var list: UnsafeMutablePointer<curl_slist>?
      guard rb_easy_getinfo_slist(handle, CURLINFO_COOKIELIST, &list) == CURLE_OK else { return [] }
      defer { curl_slist_free_all(list) }
      var found: [Cookie] = []
      var node = list
      while let current = node {
        if let data = current.pointee.data, let cookie = Cookie(netscapeLine: String(cString: data)) {
          found.append(cookie)
        }
        node = current.pointee.next
      }
      return found.sorted { ($0.domain, $0.path, $0.name) < ($1.domain, $1.path, $1.name) }
    }
  }

  /// Every cookie, oldest first (the order the jar's file keeps, so the next process knows
  /// which are the oldest).
  public var cookiesOldestFirst: [Cookie] {
    let all = cookies
    return lock.withLock {
      note(all, whole: true)
      return all.sorted { ordinals[$0.key, default: 0] < ordinals[$1.key, default: 0] }
    }
  }

  /// Adds cookies, oldest first (curl replaces one of the same domain, path and name; an expired
  /// one removes it), within the jar's `limits`: a list over them (a jar file of a million lines)
  /// is cut before curl sees it, so adding is linear in the list. Returns how many the jar holds
  /// now of those given.
  @discardableResult
  public func add(_ cookies: [Cookie]) -> Int {
    guard !cookies.isEmpty else { return 0 }
    // One of each key, at the place it first had, with its last value.
    var position: [String: Int] = [:]
    var unique: [Cookie] = []
    unique.reserveCapacity(cookies.count)
    for cookie in cookies {
      if let index = position[cookie.key] {
        unique[index] = cookie
      } else {
        position[cookie.key] = unique.count
        unique.append(cookie)
      }
    }
    // An expired cookie is given to curl all the same: it removes the one it replaces.
    let now = Date()
    let evicted = limits.evictions(oldestFirst: unique, now: now)
    let given = evicted.isEmpty ? unique : unique.filter { !evicted.contains($0.key) || $0.isExpired(at: now) }
    lock.withLock { note(given, whole: false) }
    withEasyHandle { handle in
      for cookie in given {
        _ = cookie.netscapeLine.withCString { rb_easy_setopt_pointer(handle, CURLOPT_COOKIELIST, $0) }
      }
    }
    enforceLimits()
    let keys = Set(given.map(\.key))
    return self.cookies.filter { keys.contains($0.key) }.count
  }

  /// Removes what is over the jar's `limits`: expired cookies, then the oldest of a host over its
  /// share, then the oldest in the jar. Returns how many went.
  @discardableResult
  public func enforceLimits(now: Date = Date()) -> Int {
    let oldestFirst = cookiesOldestFirst
    let evicted = limits.evictions(oldestFirst: oldestFirst, now: now)
    guard !evicted.isEmpty else { return 0 }
    return remove { evicted.contains($0.key) }
  }

  /// Gives the cookies the jar did not know yet their age (after those it knew), and forgets the
  /// age of those it no longer holds when `all` is the whole jar. Under `lock`.
  private func note(_ all: [Cookie], whole: Bool) {
    for cookie in all where ordinals[cookie.key] == nil {
      nextOrdinal += 1
      ordinals[cookie.key] = nextOrdinal
    }
    if whole && ordinals.count > 2 * all.count + 64 {
      let present = Set(all.map(\.key))
      ordinals = ordinals.filter { present.contains($0.key) }
    }
  }

  /// Removes the cookies `shouldRemove` picks; returns how many went. (curl has no command to
  /// remove one cookie: the store is emptied and the others put back, so a `Set-Cookie` that
  /// lands in that moment may be lost.)
  @discardableResult
  public func remove(where shouldRemove: (Cookie) -> Bool) -> Int {
    let all = cookies
    let kept = all.filter { !shouldRemove($0) }
    guard kept.count < all.count else { return 0 }
    withEasyHandle { handle in
      _ = "ALL".withCString { rb_easy_setopt_pointer(handle, CURLOPT_COOKIELIST, $0) }
      for cookie in kept {
        _ = cookie.netscapeLine.withCString { rb_easy_setopt_pointer(handle, CURLOPT_COOKIELIST, $0) }
      }
    }
    return all.count - kept.count
  }

  /// Empties the jar.
  public func removeAll() {
    withEasyHandle { handle in
      _ = "ALL".withCString { rb_easy_setopt_pointer(handle, CURLOPT_COOKIELIST, $0) }
    }
  }

  /// An easy handle of its own attached to the share for one operation: curl reads and edits a
  /// shared store through any handle attached to it, under the share's locks.
  private func withEasyHandle<T>(_ body: (UnsafeMutableRawPointer) -> T) -> T {
    // curl_easy_init fails only when out of memory.
    guard let handle = curl_easy_init() else { preconditionFailure("curl_easy_init failed: out of memory") }
    defer {
      rb_easy_setopt_pointer(handle, CURLOPT_SHARE, nil)
      curl_easy_cleanup(handle)
    }
    rb_easy_setopt_pointer(handle, CURLOPT_SHARE, curlShare)
    _ = "".withCString { rb_easy_setopt_pointer(handle, CURLOPT_COOKIEFILE, $0) }
    return body(handle)
  }

  // MARK: - Changes

  /// How many exchanges changed the jar (or may have: they received a `Set-Cookie`) since it was
  /// made; an owner that saved at generation N has nothing new to save while it stays N.
  public var generation: UInt64 { lock.withLock { changes } }

  /// Called (on the engine thread) after an exchange received a `Set-Cookie`: keep it short.
  public func onChange(_ handler: @escaping @Sendable () -> Void) {
    lock.withLock { changeHandler = handler }
  }

  /// The engine: a transfer with this jar received a `Set-Cookie` (on the engine thread, before
  /// the next transfer of the exchange: each redirect's cookies are bounded before the next hop).
  func noteChanged() {
    enforceLimits()
    let handler = lock.withLock { () -> (@Sendable () -> Void)? in
      changes += 1
      return changeHandler
    }
    handler?()
  }
}

/// One cookie as curl's Netscape cookie file writes it: a line of seven fields separated by tabs
/// (domain, include subdomains, path, secure, expiry, name, value), `#HttpOnly_` before the
/// domain of an `HttpOnly` cookie. The format is curl's (`curl -b FILE` / `curl -c FILE`).
public struct Cookie: Sendable, Equatable, Hashable {
  /// As curl stores it: `.example.com` when it was set with a `Domain` attribute.
  public var domain: String
  /// Sent to subdomains of `domain` too (the `Domain` attribute was given).
  public var includeSubdomains: Bool
  public var path: String
  public var secure: Bool
  public var httpOnly: Bool
  /// Seconds since 1970 when it expires; 0 for a session cookie.
  public var expires: Int64
  public var name: String
  public var value: String

  public init(
    domain: String, includeSubdomains: Bool = false, path: String = "/", secure: Bool = false,
    httpOnly: Bool = false, expires: Int64 = 0, name: String, value: String
  ) {
    self.domain = domain
    self.includeSubdomains = includeSubdomains
    self.path = path
    self.secure = secure
    self.httpOnly = httpOnly
    self.expires = expires
    self.name = name
    self.value = value
  }

  /// A line of a Netscape cookie file; nil for a comment, a blank line or a line that is not one.
  public init?(netscapeLine line: Substring) {
    var text = line
    while let last = text.last, last == "\r" || last == "\n" { text.removeLast() }
    var httpOnly = false
    if text.hasPrefix("#HttpOnly_") {
      httpOnly = true
      text = text.dropFirst("#HttpOnly_".count)
    } else if text.hasPrefix("#") {
      return nil
    }
    let fields = text.split(separator: "\t", omittingEmptySubsequences: false)
    // A cookie without a value has six fields in some writers.
    guard fields.count == 7 || fields.count == 6, !fields[0].isEmpty, !fields[5].isEmpty,
      let expires = Int64(fields[4])
    else { return nil }
    self.init(
      domain: String(fields[0]), includeSubdomains: fields[1].uppercased() == "TRUE", path: String(fields[2]),
      secure: fields[3].uppercased() == "TRUE", httpOnly: httpOnly, expires: expires, name: String(fields[5]),
      value: fields.count == 7 ? String(fields[6]) : "")
  }

  public init?(netscapeLine line: String) { self.init(netscapeLine: line[...]) }

  /// The line of a Netscape cookie file, as curl writes it.
  public var netscapeLine: String {
    let shownDomain = includeSubdomains && !domain.hasPrefix(".") ? "." + domain : domain
    return (httpOnly ? "#HttpOnly_" : "") + shownDomain + "\t" + (includeSubdomains ? "TRUE" : "FALSE") + "\t" + path
      + "\t" + (secure ? "TRUE" : "FALSE") + "\t" + String(expires) + "\t" + name + "\t" + value
  }

  /// The host name without the leading dot of a domain cookie.
  public var host: String { domain.hasPrefix(".") ? String(domain.dropFirst()) : domain }

  /// What makes two cookies the same one (a newer replaces an older): domain, path and name.
  public var key: String { host.lowercased() + "\t" + path + "\t" + name }

  public var isSession: Bool { expires == 0 }

  public func isExpired(at now: Date) -> Bool {
    expires != 0 && Double(expires) <= now.timeIntervalSince1970
  }

  /// The cookies of a Netscape cookie file's text; `rejected` counts lines that are neither a
  /// cookie, a comment nor blank.
  public static func parseFile(_ text: String) -> (cookies: [Cookie], rejected: Int) {
    var cookies: [Cookie] = []
    var rejected = 0
    for line in text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
      if let cookie = Cookie(netscapeLine: line) {
        cookies.append(cookie)
      } else if !line.hasPrefix("#") && !line.allSatisfy(\.isWhitespace) {
        rejected += 1
      }
    }
    return (cookies, rejected)
  }

  /// A Netscape cookie file of `cookies`, with the header curl writes (so `curl -b` and tools
  /// that look for it read it).
  public static func file(_ cookies: [Cookie]) -> String {
    var text = "# Netscape HTTP Cookie File\n# https://curl.se/docs/http-cookies.html\n# Written by reqbench.\n\n"
    for cookie in cookies { text += cookie.netscapeLine + "\n" }
    return text
  }
}

/// Cookie values are secrets (session tokens): `Cookie` and `Set-Cookie` header values with every
/// value masked and the names and attributes kept (`session=••••; Path=/; HttpOnly`), for
/// history, `--json` and exports.
public enum CookieMasking {
  /// `a=1; b=2` → `a=••••; b=••••`.
  public static func cookieHeader(_ value: String) -> String {
    value.split(separator: ";", omittingEmptySubsequences: false).map { pair -> String in
      guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
      return String(pair[...equals]) + Redaction.mask
    }.joined(separator: ";")
  }

  /// `s=abc; Path=/; HttpOnly` → `s=••••; Path=/; HttpOnly`: the cookie's value only.
  public static func setCookieHeader(_ value: String) -> String {
    guard let equals = value.firstIndex(of: "=") else { return value }
    let rest = value[value.index(after: equals)...]
    let end = rest.firstIndex(of: ";") ?? rest.endIndex
    return String(value[...equals]) + Redaction.mask + String(rest[end...])
  }

  /// Whether a header is `Cookie` (ASCII case folded, as header names compare).
  public static func isCookieName(_ name: some StringProtocol) -> Bool {
    HTTPHeaders.sameName(name, "Cookie")
  }

  static func isSetCookieName(_ name: some StringProtocol) -> Bool {
    HTTPHeaders.sameName(name, "Set-Cookie")
  }

  /// The value of a header named `name` as exports show it: a `Cookie` or `Set-Cookie` value
  /// masked, any other as it is.
  public static func masked(header name: String, _ value: String) -> String {
    if isCookieName(name) { return cookieHeader(value) }
    if isSetCookieName(name) { return setCookieHeader(value) }
    return value
  }

  /// `headers` with every `Cookie` and `Set-Cookie` value masked.
  /// Whether `headers` hold a `Cookie` or `Set-Cookie` field.
  static func hasCookieField(_ headers: HTTPHeaders) -> Bool {
    headers.fields.contains(where: { isCookieName($0.name) || isSetCookieName($0.name) })
  }

  public static func masked(_ headers: HTTPHeaders) -> HTTPHeaders {
    guard hasCookieField(headers) else { return headers }
    var out = HTTPHeaders()
    for field in headers.fields {
      if isCookieName(field.name) {
        out.add(field.name, cookieHeader(field.value))
      } else if isSetCookieName(field.name) {
        out.add(field.name, setCookieHeader(field.value))
      } else {
        out.add(field.name, field.value)
      }
    }
    return out
  }

  /// A request head (`GET / HTTP/1.1` and its header lines) with its `Cookie` lines masked.
  public static func maskedHead(_ head: String) -> String {
    guard hasCookieLine(head) else { return head }
    var lines: [String] = []
    for line in head.split(separator: "\r\n", omittingEmptySubsequences: false) {
      if let colon = line.firstIndex(of: ":"), isCookieName(line[..<colon]) {
        let value = line[line.index(after: colon)...].drop { $0 == " " }
        lines.append(String(line[...colon]) + " " + cookieHeader(String(value)))
      } else {
        lines.append(String(line))
      }
    }
    return lines.joined(separator: "\r\n")
  }

  /// Whether a line of `head` starts with `Cookie:` (in any case): one pass over its bytes. (A
  /// case-insensitive search of the text through Foundation was a tenth of the instructions of
  /// recording 1,000 exchanges, whether or not they sent cookies.)
  static func hasCookieLine(_ head: String) -> Bool {
    head.utf8.withContiguousStorageIfAvailable(hasCookieLine) ?? hasCookieLine(Array(head.utf8))
  }

  private static func hasCookieLine(_ head: some Collection<UInt8>) -> Bool {
    let name: StaticString = "cookie:"
    var matched = 0  // bytes of `name` matched from this line's start; -1: this line is not one
    for byte in head {
      if byte == UInt8(ascii: "\n") {
        matched = 0
        continue
      }
      guard matched >= 0 else { continue }
      let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
      guard lower == name.utf8Start[matched] else {
        matched = -1
        continue
      }
      matched += 1
      if matched == name.utf8CodeUnitCount { return true }
    }
    return false
  }

  /// The names of the cookies a `Cookie` header value sends (`a=1; b=2` → `["a", "b"]`).
  public static func names(inCookieHeader value: String) -> [String] {
    value.split(separator: ";").compactMap { pair in
      let name = pair.split(separator: "=", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces) }
      return name?.isEmpty == false ? name : nil
    }
  }
}

extension SentRequest {
  /// The names of the cookies this request sent (its `Cookie` headers), in order.
  public var cookieNames: [String] {
    headers.values("Cookie").flatMap(CookieMasking.names(inCookieHeader:))
  }

  /// This record with its `Cookie` values masked.
  public var cookiesMasked: SentRequest {
    var copy = self
    copy.head = CookieMasking.maskedHead(head)
    return copy
  }
}

extension ExchangeResult {
  /// This result with every `Cookie` and `Set-Cookie` value masked: the request's headers, the
  /// head curl sent, the response's headers. What history and `--json` keep unless the user asks
  /// for secrets.
  public var cookiesMasked: ExchangeResult {
    // Most exchanges carry no cookie: nothing is copied or rebuilt for them (this runs for every
    // exchange `run` prints and history records).
    guard CookieMasking.hasCookieField(request.headers) || response.map({ CookieMasking.hasCookieField($0.headers) }) == true
      || sent.map({ CookieMasking.hasCookieLine($0.head) }) == true
    else { return self }
    var copy = self
    copy.request.headers = CookieMasking.masked(request.headers)
    copy.sent = sent?.cookiesMasked
    copy.response?.headers = CookieMasking.masked(response?.headers ?? HTTPHeaders())
    return copy
  }
}
