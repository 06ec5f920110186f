import RequestEngine
import Workspace

// The header and URL options of a curl command: `-H` as curl reads it, `--url-query` and `-G`
// appended as curl 7.88 appends them, the proxy options. The command reader that calls these is
// in CurlImporter.swift.

extension CurlImporter.CommandReader {
    /// The headers in the order curl sends them, for a body of `bodyLength` bytes (nil: a file or
    /// multipart body, whose length is not known here): a written Content-Length goes only when
    /// it is that length, so it can never disagree with the bytes sent (curl sends it as written).
    func sentHeaders(bodyLength: Int?) -> [(name: String, value: String)] {
      // curl sends its own headers first (Range, User-Agent, Referer, Cookie), then the -H ones
      // in order; one of its own that a -H sets goes where the -H is. A copied Accept-Encoding
      // is sent as written (curl decodes under it with --compressed); Content-Length is computed.
      let written = Set(headers.map { HTTPHeaders.foldedName($0.name) })
      func own(_ name: String, _ value: String?) -> [(name: String, value: String)] {
        guard let value, !written.contains(HTTPHeaders.foldedName(name)) else { return [] }
        return [(name, value)]
      }
      var sent = own("Range", range.map { "bytes=" + $0 }) + own("User-Agent", userAgent)
      sent += own("Referer", referer)
      // Several -b join with `;`, as curl joins them.
      sent += own("Cookie", cookies.isEmpty ? nil : cookies.joined(separator: ";"))
      sent += headers.filter {
        HTTPHeaders.foldedName($0.name) != Array("content-length".utf8) || Int($0.value) == bodyLength
      }
      // `--json`'s Content-Type and Accept come after the -H headers, as curl adds them.
      if sawJSONOption {
        sent += own("Content-Type", "application/json") + own("Accept", "application/json")
      }
      return sent
    }

    mutating func header(_ text: String, at location: SourceLocation, flag: String)
      throws(ImportError)
    {
      if text.hasPrefix("@") {
        throw error(
          "\(flag) @file (headers from a file) is not supported; paste the headers", at: location)
      }
      guard let colon = text.firstIndex(of: ":") else {
        // `Name;` sends the header with an empty value (curl's syntax for it).
        if text.hasSuffix(";") {
          let name = text.dropLast().trimmingSpaces()
          guard WorkspaceReader.isValidHeaderName(name) else {
            throw error("\(JSONSerializer.quote(name)) is not a valid header name", at: location)
          }
          if HTTPHeaders.isAddedByCurl(name) {
            throw error(
              "\(flag) '\(text)' sends \(name) with an empty value, which reqbench cannot: an empty "
                + "\(name) removes curl's own; leave the option out or give it a value", at: location)
          }
          headers.append((name, ""))
          return
        }
        throw error(
          "\(flag) needs \"Name: value\", found \(JSONSerializer.quote(text))", at: location)
      }
      let name = text[..<colon].trimmingSpaces()
      guard WorkspaceReader.isValidHeaderName(name) else {
        throw error("\(JSONSerializer.quote(name)) is not a valid header name", at: location)
      }
      let value = text[text.index(after: colon)...].trimmingSpaces()
      // `Name:` removes a header curl adds itself (`Accept:`); any other it leaves unsent.
      if value.isEmpty, !HTTPHeaders.isAddedByCurl(name) { return }
      headers.append((name, value))
    }

    /// One `--url-query` value as curl 7.87+ reads it: `+content` as it is, else the forms of
    /// `--data-urlencode` (`name=content`, `=content`, `content`, `name@file`, `@file`).
    func urlQueryText(_ text: String, flag: String, at location: SourceLocation) throws(ImportError) -> String {
      if text.hasPrefix("+") { return String(text.dropFirst()) }
      return try dataText(.urlencode, text, flag: flag, at: location)
    }

    /// A `-x` / `--proxy` value: `host:port` or a URL of a scheme curl and reqbench speak.
    func proxyURL(_ text: String, flag: String, at location: SourceLocation) throws(ImportError) -> String {
      if let found = text.range(of: "://") {
        let scheme = text[..<found.lowerBound].lowercased()
        guard WorkspaceReader.proxySchemes.contains(scheme) else {
          throw error(
            "\(flag) \(JSONSerializer.quote(text)): the proxy scheme \(scheme) is not supported; use "
              + WorkspaceReader.proxySchemes.joined(separator: ", "), at: location)
        }
      }
      guard !text.isEmpty else { throw error("\(flag) needs a proxy such as http://host:3128", at: location) }
      return text
    }

    /// A `--request-target` value: what a workspace's `requestTarget` may be.
    func requestTarget(_ text: String, flag: String, at location: SourceLocation) throws(ImportError) -> String {
      guard WorkspaceReader.isRequestTarget(text) else {
        throw error("\(flag) needs a request target such as * or /path, found \(JSONSerializer.quote(text))", at: location)
      }
      return text
    }

}

extension CurlImporter {
  /// `query` after the URL's query as curl 7.88 appends `-G` data and `--url-query`: with `&`
  /// unless the query is empty or ends in `&`, the appended part's percent escapes in lower case
  /// (`%2F` → `%2f`: curl's URL parser rewrites them); the fragment dropped.
  static func appendQuery(_ query: String, to url: String) -> String {
    guard !query.isEmpty else { return url }
    var parts = URLResolver.split(url)
    parts.fragment = nil
    var lowered = ""
    var escape = 0
    for character in query {
      if character == "%" {
        escape = 2
        lowered.append(character)
      } else if escape > 0 {
        escape -= 1
        lowered.append(contentsOf: character.lowercased())
      } else {
        lowered.append(character)
      }
    }
    if let existing = parts.query, !existing.isEmpty {
      parts.query = existing + (existing.hasSuffix("&") ? "" : "&") + lowered
    } else {
      parts.query = lowered
    }
    return URLResolver.join(parts)
  }

  /// `proxy` with `user:password` as its user info (curl sends it as `Proxy-Authorization: Basic`
  /// either way), each percent-encoded as a URL's user info is.
  static func proxy(_ proxy: String, withCredentials credentials: String) -> String {
    let colon = credentials.firstIndex(of: ":")!
    let user = QueryEncoder.encodeComponent(String(credentials[..<colon]))
    let password = QueryEncoder.encodeComponent(String(credentials[credentials.index(after: colon)...]))
    let userInfo = user + ":" + password + "@"
    if let found = proxy.range(of: "://") {
      return String(proxy[..<found.upperBound]) + userInfo + String(proxy[found.upperBound...])
    }
    return "http://" + userInfo + proxy
  }

}
