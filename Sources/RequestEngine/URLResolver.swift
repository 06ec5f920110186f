/// Why a URL could not be built.
public struct URLError: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// RFC 3986 reference resolution (§5.2) and URL parts, as the engine needs them.
///
/// ```swift
/// try URLResolver.resolve("users/1", against: "http://api.test/v1/")  // http://api.test/v1/users/1
/// try URLResolver.resolve("/users", against: "http://api.test/v1/")   // http://api.test/users
/// ```
/// A reference is absolute only when it starts with a scheme (`httpEndpoint` is relative).
public enum URLResolver {
  public struct Parts: Sendable, Equatable {
    public var scheme: String?
    public var authority: String?
    public var path: String
    public var query: String?
    public var fragment: String?
  }

  /// Splits a URL reference into its five components (RFC 3986 Appendix B).
  public static func split(_ reference: String) -> Parts {
    // On the contiguous UTF-8 bytes with integer offsets (the delimiters are ASCII): searching
    // the String's UTF-8 view slice by slice was most of the cost of resolving a URL, which is
    // done for every request sent.
    var text = reference
    return text.withUTF8 { bytes in
      func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
      }
      func first(_ byte: UInt8, in range: Range<Int>) -> Int? {
        var i = range.lowerBound
        while i < range.upperBound {
          if bytes[i] == byte { return i }
          i += 1
        }
        return nil
      }
      var rest = 0..<bytes.count
      var fragment: String?
      if let hash = first(UInt8(ascii: "#"), in: rest) {
        fragment = string((hash + 1)..<rest.upperBound)
        rest = rest.lowerBound..<hash
      }
      var query: String?
      if let mark = first(UInt8(ascii: "?"), in: rest) {
        query = string((mark + 1)..<rest.upperBound)
        rest = rest.lowerBound..<mark
      }
      var scheme: String?
      var end = rest.lowerBound
      while end < rest.upperBound && bytes[end] != UInt8(ascii: ":") && bytes[end] != UInt8(ascii: "/") { end += 1 }
      if end < rest.upperBound, bytes[end] == UInt8(ascii: ":"), end > rest.lowerBound,
        isASCIILetter(bytes[rest.lowerBound]),
        bytes[rest.lowerBound..<end].allSatisfy({
          isASCIILetter($0) || isASCIIDigit($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E
        })
      {
        scheme = lowercased(string(rest.lowerBound..<end))
        rest = (end + 1)..<rest.upperBound
      }
      var authority: String?
      if rest.count >= 2, bytes[rest.lowerBound] == UInt8(ascii: "/"), bytes[rest.lowerBound + 1] == UInt8(ascii: "/") {
        let from = rest.lowerBound + 2
        let to = first(UInt8(ascii: "/"), in: from..<rest.upperBound) ?? rest.upperBound
        authority = string(from..<to)
        rest = to..<rest.upperBound
      }
      return Parts(scheme: scheme, authority: authority, path: string(rest), query: query, fragment: fragment)
    }
  }

  /// `text` in lower case; the text itself when it has no upper-case ASCII letter and nothing
  /// beyond ASCII (schemes and hosts nearly always: `lowercased()` was a tenth of the cost of
  /// resolving a URL).
  private static func lowercased(_ text: String) -> String {
    text.utf8.contains(where: { ($0 >= 0x41 && $0 <= 0x5A) || $0 >= 0x80 }) ? text.lowercased() : text
  }

  private static func isASCIILetter(_ byte: UInt8) -> Bool {
    (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
  }

  private static func isASCIIDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

  public static func join(_ parts: Parts) -> String {
    var out = ""
    if let scheme = parts.scheme { out += scheme + ":" }
    if let authority = parts.authority { out += "//" + authority }
    out += parts.path
    if let query = parts.query { out += "?" + query }
    if let fragment = parts.fragment { out += "#" + fragment }
    return out
  }

  /// Resolves `reference` against `base`. An absolute reference is returned as is (normalized);
  /// a relative one needs an absolute `http`/`https` base.
  public static func resolve(_ reference: String, against base: String?) throws(URLError) -> String {
    let trimmed = reference.trimmingWhitespace()
    let r = split(trimmed)
    let target: Parts
    if r.scheme != nil {
      target = Parts(
        scheme: r.scheme, authority: r.authority, path: removeDotSegments(r.path), query: r.query,
        fragment: r.fragment)
    } else {
      guard let base, !base.trimmingWhitespace().isEmpty else {
        throw URLError(
          "\"\(reference)\" is relative and there is no base URL: write an absolute URL, or set \"baseURL\" in the workspace"
        )
      }
      let b = split(base.trimmingWhitespace())
      guard b.scheme != nil, b.authority != nil else {
        throw URLError("the base URL \"\(base)\" is not absolute; write it as http://host[:port]/path")
      }
      var t = Parts(scheme: b.scheme, authority: nil, path: "", query: nil, fragment: r.fragment)
      if r.authority != nil {
        t.authority = r.authority
        t.path = removeDotSegments(r.path)
        t.query = r.query
      } else {
        t.authority = b.authority
        if r.path.isEmpty {
          t.path = b.path
          t.query = r.query ?? b.query
        } else {
          if r.path.hasPrefix("/") {
            t.path = removeDotSegments(r.path)
          } else {
            t.path = removeDotSegments(merge(base: b, path: r.path))
          }
          t.query = r.query
        }
      }
      target = t
    }
    try validateHTTP(target, original: reference)
    var result = target
    if result.path.isEmpty { result.path = "/" }
    result.fragment = nil  // fragments are never sent
    return join(result)
  }

  /// Appends an encoded query string with `&` or `?` as needed (never two `?`).
  public static func appendQuery(_ query: String, to url: String) -> String {
    guard !query.isEmpty else { return url }
    var parts = split(url)
    if let existing = parts.query, !existing.isEmpty {
      parts.query = existing + "&" + query
    } else {
      parts.query = query
    }
    return join(parts)
  }

  /// `scheme://host:port` of an absolute URL, lower-cased, with the default port made explicit:
  /// the key of the agent's per-host limit.
  /// Computed for every request the agent queues: on UTF-8 bytes, no Foundation string search.
  public static func hostKey(of url: String) -> String {
    var text = url
    if let key = text.withUTF8(plainHostKey) { return key }
    let parts = split(url)
    let scheme = parts.scheme ?? "http"
    var authority = lowercased(parts.authority ?? "")
    if let at = authority.utf8.lastIndex(of: UInt8(ascii: "@")) {
      authority = String(authority[authority.utf8.index(after: at)...])
    }
    if !hasPort(authority.utf8) { authority += scheme == "https" ? ":443" : ":80" }
    return scheme + "://" + authority
  }

  /// Whether an authority (after any user info) names its port: `host:port`, `[v6]:port`.
  private static func hasPort(_ authority: some Collection<UInt8>) -> Bool {
    if authority.first == UInt8(ascii: "[") {
      return zip(authority, authority.dropFirst()).contains { $0 == UInt8(ascii: "]") && $1 == UInt8(ascii: ":") }
    }
    return authority.contains(UInt8(ascii: ":"))
  }

  /// `hostKey` of the usual URL, `scheme://authority…` with nothing in the scheme and authority
  /// to lower-case, made from its bytes in one pass and one String (`split` makes five); nil for
  /// any other, which `hostKey` takes apart as a whole.
  private static func plainHostKey(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
    func isLower(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }
    var i = 0
    guard i < bytes.count, isLower(bytes[i]) else { return nil }
    while i < bytes.count, bytes[i] != UInt8(ascii: ":") {
      let byte = bytes[i]
      guard isLower(byte) || isASCIIDigit(byte) || byte == 0x2B || byte == 0x2D || byte == 0x2E else { return nil }
      i += 1
    }
    let schemeEnd = i
    guard schemeEnd + 2 < bytes.count, bytes[schemeEnd + 1] == UInt8(ascii: "/"), bytes[schemeEnd + 2] == UInt8(ascii: "/")
    else { return nil }
    var host = schemeEnd + 3
    var end = host
    while end < bytes.count {
      let byte = bytes[end]
      if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
      if (byte >= 0x41 && byte <= 0x5A) || byte >= 0x80 { return nil }
      if byte == UInt8(ascii: "@") { host = end + 1 }
      end += 1
    }
    let authority = UnsafeBufferPointer(rebasing: bytes[host..<end])
    let scheme = UnsafeBufferPointer(rebasing: bytes[0..<schemeEnd])
    let port: StaticString = hasPort(authority) ? "" : (scheme.elementsEqual("https".utf8) ? ":443" : ":80")
    return port.withUTF8Buffer { port in
      String(unsafeUninitializedCapacity: scheme.count + 3 + authority.count + port.count) { out in
        var n = 0
        func put(_ part: UnsafeBufferPointer<UInt8>) {
          for byte in part {
            out[n] = byte
            n += 1
          }
        }
        put(scheme)
        put(UnsafeBufferPointer(rebasing: bytes[schemeEnd..<(schemeEnd + 3)]))  // "://"
        put(authority)
        put(port)
        return n
      }
    }
  }

  private static func merge(base: Parts, path: String) -> String {
    if base.authority != nil && base.path.isEmpty { return "/" + path }
    if let slash = base.path.lastIndex(of: "/") {
      return String(base.path[...slash]) + path
    }
    return path
  }

  /// RFC 3986 §5.2.4.
  public static func removeDotSegments(_ path: String) -> String {
    guard hasDotSegment(path) else { return path }  // the usual case: nothing to remove
    var input = Substring(path)
    var output: [Substring] = []
    var result = ""
    while !input.isEmpty {
      if input.hasPrefix("../") {
        input = input.dropFirst(3)
      } else if input.hasPrefix("./") {
        input = input.dropFirst(2)
      } else if input.hasPrefix("/./") {
        input = input.dropFirst(2)
      } else if input == "/." {
        input = "/"
      } else if input.hasPrefix("/../") {
        input = input.dropFirst(3)
        if !output.isEmpty { output.removeLast() }
      } else if input == "/.." {
        input = "/"
        if !output.isEmpty { output.removeLast() }
      } else if input == "." || input == ".." {
        input = ""
      } else {
        let start = input.hasPrefix("/") ? input.index(after: input.startIndex) : input.startIndex
        let end = input[start...].firstIndex(of: "/") ?? input.endIndex
        output.append(input[..<end])
        input = input[end...]
      }
    }
    for segment in output { result += segment }
    return result
  }

  /// Whether a segment of `path` is `.` or `..` (what `removeDotSegments` rewrites).
  static func hasDotSegment(_ path: String) -> Bool {
    var length = 0
    var dots = 0
    for byte in path.utf8 {
      if byte == UInt8(ascii: "/") {
        if length > 0 && length == dots && dots <= 2 { return true }
        length = 0
        dots = 0
      } else {
        length += 1
        if byte == UInt8(ascii: ".") { dots += 1 }
      }
    }
    return length > 0 && length == dots && dots <= 2
  }

  private static func validateHTTP(_ parts: Parts, original: String) throws(URLError) {
    guard let scheme = parts.scheme, scheme == "http" || scheme == "https" else {
      throw URLError(
        "\"\(original)\" uses the scheme \"\(parts.scheme ?? "")\"; only http and https are supported")
    }
    guard let authority = parts.authority, !authority.isEmpty else {
      throw URLError("\"\(original)\" has no host; write it as \(scheme)://host/path")
    }
    if let bad = (authority + parts.path + (parts.query ?? "")).unicodeScalars.first(where: {
      $0.value <= 0x20 || $0.value == 0x7F
    }) {
      throw URLError(
        "\"\(original)\" contains \(bad == " " ? "a space" : "a control character"); percent-encode it (a space is %20)"
      )
    }
  }
}

extension String {
  func trimmingWhitespace() -> String {
    // Fast path: nothing to trim at either end (the usual case), checked on UTF-8 bytes.
    if let first = utf8.first, let last = utf8.last, first > 0x20, first < 0x80, last > 0x20, last < 0x80 {
      return String(self)
    }
    let scalars = unicodeScalars
    guard let start = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
    let end = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
    var out = String.UnicodeScalarView()
    out.append(contentsOf: scalars[start...end])
    return String(out)
  }
}
