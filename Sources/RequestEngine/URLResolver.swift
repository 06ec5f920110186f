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
    // Works on the UTF-8 view: the delimiters are ASCII, and UTF-8 indices are String indices.
    let utf8 = reference.utf8
    var rest = utf8[...]
    var fragment: String?
    if let hash = rest.firstIndex(of: UInt8(ascii: "#")) {
      fragment = String(reference[utf8.index(after: hash)...])
      rest = rest[..<hash]
    }
    var query: String?
    if let mark = rest.firstIndex(of: UInt8(ascii: "?")) {
      query = String(reference[utf8.index(after: mark)..<rest.endIndex])
      rest = rest[..<mark]
    }
    var scheme: String?
    if let colon = rest.firstIndex(where: { $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "/") }),
      rest[colon] == UInt8(ascii: ":")
    {
      let candidate = rest[..<colon]
      if let first = candidate.first, isASCIILetter(first),
        candidate.allSatisfy({ isASCIILetter($0) || isASCIIDigit($0) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E })
      {
        scheme = String(reference[candidate.startIndex..<candidate.endIndex]).lowercased()
        rest = rest[utf8.index(after: colon)...]
      }
    }
    var authority: String?
    if rest.starts(with: "//".utf8) {
      rest = rest.dropFirst(2)
      let end = rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex
      authority = String(reference[rest.startIndex..<end])
      rest = rest[end...]
    }
    return Parts(
      scheme: scheme, authority: authority, path: String(reference[rest.startIndex..<rest.endIndex]),
      query: query, fragment: fragment)
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
          "\"\(reference)\" is a relative URL and there is no base URL; set \"baseURL\" in the workspace or write an absolute URL"
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
    let parts = split(url)
    let scheme = parts.scheme ?? "http"
    var authority = (parts.authority ?? "").lowercased()
    if let at = authority.utf8.lastIndex(of: UInt8(ascii: "@")) {
      authority = String(authority[authority.utf8.index(after: at)...])
    }
    let bytes = authority.utf8
    let hasPort: Bool
    if bytes.first == UInt8(ascii: "[") {
      // [v6]:port
      hasPort = zip(bytes, bytes.dropFirst()).contains { $0 == UInt8(ascii: "]") && $1 == UInt8(ascii: ":") }
    } else {
      hasPort = bytes.contains(UInt8(ascii: ":"))
    }
    if !hasPort { authority += scheme == "https" ? ":443" : ":80" }
    return scheme + "://" + authority
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
