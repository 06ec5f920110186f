import Digest
import JSON

/// One request header line, name as received.
struct HeaderField: Sendable {
  var name: String
  var value: String
}

/// A parsed request: head fields, then the body once it has been read.
struct ServerRequest {
  var method: String
  /// The request-target exactly as received (origin-form, absolute-form when proxied, ...).
  var target: String
  /// 0 for HTTP/1.0, 1 for HTTP/1.1.
  var minorVersion: Int
  /// The path part of the target, still percent-encoded.
  var path: String
  var rawQuery: String
  var query: [(name: String, value: String)]
  var headers: [HeaderField]
  var body: [UInt8] = []
  var bodyLength = 0
  var bodySha256 = SHA256.hex([])
  var bodyTruncated = false
  /// The parts of a `multipart/form-data` body, when it was parsed as it arrived (`/upload`).
  var multipart: MultipartSummary?

  var isHead: Bool { method == "HEAD" }
  var version: String { "HTTP/1.\(minorVersion)" }

  /// The first value of a header (case-insensitive name).
  func header(_ name: String) -> String? {
    let lower = name.lowercased()
    return headers.first(where: { $0.name.lowercased() == lower })?.value
  }

  func headerValues(_ name: String) -> [String] {
    let lower = name.lowercased()
    return headers.filter { $0.name.lowercased() == lower }.map(\.value)
  }

  /// The last value of a query parameter.
  func queryValue(_ name: String) -> String? {
    query.last(where: { $0.name == name })?.value
  }

  /// The path's segments, each percent-decoded; empty segments dropped.
  var pathSegments: [String] {
    path.split(separator: "/", omittingEmptySubsequences: true).map { percentDecode($0, plusAsSpace: false) }
  }

  /// Headers as a JSON object: names as first received, repeated names joined with ", ".
  var headersJSON: JSONValue {
    var order: [String] = []
    var values: [String: (name: String, values: [String])] = [:]
    for field in headers {
      let lower = field.name.lowercased()
      if values[lower] == nil {
        order.append(lower)
        values[lower] = (field.name, [field.value])
      } else {
        values[lower]?.values.append(field.value)
      }
    }
    return .object(
      JSONObject(
        distinctKeys: order.compactMap { lower in
          values[lower].map { (key: $0.name, value: .string($0.values.joined(separator: ", "))) }
        }))
  }

  /// Query parameters as a JSON object: first-seen order, last value wins.
  var queryJSON: JSONValue {
    var order: [String] = []
    var values: [String: String] = [:]
    for pair in query {
      if values[pair.name] == nil { order.append(pair.name) }
      values[pair.name] = pair.value
    }
    return .object(JSONObject(distinctKeys: order.map { (key: $0, value: .string(values[$0] ?? "")) }))
  }
}

/// A request that cannot be served, with the status to answer it with.
struct RequestError: Error {
  var status: Int
  var message: String

  static func bad(_ message: String) -> RequestError { RequestError(status: 400, message: message) }
}

/// How the request body is delimited.
enum BodyFraming: Equatable {
  case none
  case length(Int)
  case chunked

  var hasBody: Bool {
    switch self {
    case .none: false
    case .length(let n): n > 0
    case .chunked: true
    }
  }
}

private func isTokenByte(_ b: UInt8) -> Bool {
  switch b {
  case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
    return true
  default:
    return "!#$%&'*+-.^_`|~".utf8.contains(b)
  }
}

/// Parses a request head (as returned by `ClientSocket.readHead`): request line, header lines.
func parseRequestHead(_ head: [UInt8]) throws(RequestError) -> ServerRequest {
  guard !head.contains(0) else { throw .bad("NUL byte in the request head") }
  var lines: [ArraySlice<UInt8>] = []
  for var line in head.split(separator: 0x0a, omittingEmptySubsequences: false) {
    if line.last == 0x0d { line = line.dropLast() }
    if line.contains(0x0d) { throw .bad("bare CR in the request head") }
    lines.append(line)
  }
  while let last = lines.last, last.isEmpty { lines.removeLast() }
  guard let requestLine = lines.first else { throw .bad("empty request") }

  // Request line: method SP request-target SP HTTP-version
  let parts = requestLine.split(separator: 0x20, omittingEmptySubsequences: false)
  guard parts.count == 3 else { throw .bad("malformed request line") }
  let methodBytes = parts[0]
  guard !methodBytes.isEmpty, methodBytes.allSatisfy(isTokenByte) else { throw .bad("malformed method") }
  let method = String(decoding: methodBytes, as: UTF8.self)

  let versionBytes = Array(parts[2])
  guard versionBytes.count == 8, versionBytes.starts(with: Array("HTTP/".utf8)),
    let major = hexDigitValue(versionBytes[5]), major <= 9, versionBytes[6] == UInt8(ascii: "."),
    let minor = hexDigitValue(versionBytes[7]), minor <= 9
  else { throw .bad("malformed HTTP version") }
  guard major == 1 else { throw RequestError(status: 505, message: "HTTP version not supported") }

  let targetBytes = parts[1]
  guard !targetBytes.isEmpty, targetBytes.allSatisfy({ $0 > 0x20 && $0 != 0x7f }) else {
    throw .bad("malformed request target")
  }
  let target = String(decoding: targetBytes, as: UTF8.self)
  let (path, rawQuery) = try splitTarget(target, method: method)

  var headers: [HeaderField] = []
  for line in lines.dropFirst() {
    guard let first = line.first else { throw .bad("empty header line") }
    if first == 0x20 || first == 0x09 { throw .bad("obsolete header line folding") }
    guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw .bad("header line without a colon") }
    let name = line[line.startIndex..<colon]
    guard !name.isEmpty, name.allSatisfy(isTokenByte) else { throw .bad("malformed header name") }
    var value = line[(colon + 1)...]
    while let b = value.first, b == 0x20 || b == 0x09 { value = value.dropFirst() }
    while let b = value.last, b == 0x20 || b == 0x09 { value = value.dropLast() }
    headers.append(HeaderField(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self)))
    guard headers.count <= 256 else { throw RequestError(status: 431, message: "too many header fields") }
  }

  return ServerRequest(
    method: method, target: target, minorVersion: Int(minor >= 1 ? 1 : 0), path: path, rawQuery: rawQuery,
    query: parseQuery(rawQuery), headers: headers)
}

/// Splits a request-target into its (still encoded) path and raw query.
private func splitTarget(_ target: String, method: String) throws(RequestError) -> (String, String) {
  var rest = Substring(target)
  if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
  if rest.hasPrefix("/") {
    // origin-form
  } else if rest == "*" {
    guard method == "OPTIONS" else { throw .bad("'*' is only valid with OPTIONS") }
    return ("*", "")
  } else if let schemeEnd = rest.range(of: "://"),
    ["http", "https"].contains(rest[..<schemeEnd.lowerBound].lowercased())
  {
    // absolute-form (a proxy request): drop scheme and authority
    let afterAuthority = rest[schemeEnd.upperBound...]
    guard let pathStart = afterAuthority.firstIndex(where: { $0 == "/" || $0 == "?" }) else {
      guard !afterAuthority.isEmpty else { throw .bad("absolute-form target without a host") }
      return ("/", "")
    }
    guard pathStart > afterAuthority.startIndex else { throw .bad("absolute-form target without a host") }
    rest = afterAuthority[pathStart...]
    if rest.hasPrefix("?") { rest = "/" + rest }
  } else if method == "CONNECT" {
    return (target, "")  // authority-form
  } else {
    throw .bad("malformed request target")
  }
  if let question = rest.firstIndex(of: "?") {
    return (String(rest[..<question]), String(rest[rest.index(after: question)...]))
  }
  return (String(rest), "")
}

/// Decides how the body is delimited (RFC 9112 §6.3) and rejects ambiguous framing.
func bodyFraming(of request: ServerRequest) throws(RequestError) -> BodyFraming {
  let transferEncodings = request.headerValues("Transfer-Encoding")
  let contentLengths = request.headerValues("Content-Length")
  if !transferEncodings.isEmpty {
    guard contentLengths.isEmpty else { throw .bad("both Transfer-Encoding and Content-Length") }
    let codings = transferEncodings.joined(separator: ",").split(separator: ",")
      .map { $0.trimmingSpaces.lowercased() }.filter { !$0.isEmpty }
    guard codings.last == "chunked" else { throw .bad("Transfer-Encoding does not end in chunked") }
    guard codings.count == 1 else {
      throw RequestError(status: 501, message: "transfer codings other than chunked are not supported")
    }
    return .chunked
  }
  guard !contentLengths.isEmpty else { return .none }
  var length: Int? = nil
  for value in contentLengths.joined(separator: ",").split(separator: ",", omittingEmptySubsequences: false) {
    guard let n = parseNonNegativeInt(Substring(value.trimmingSpaces)) else { throw .bad("malformed Content-Length") }
    if let length, length != n { throw .bad("conflicting Content-Length values") }
    length = n
  }
  guard let length else { throw .bad("malformed Content-Length") }
  return length == 0 ? .none : .length(length)
}

/// Checks the Host header (exactly one in HTTP/1.1).
func validateHost(of request: ServerRequest) throws(RequestError) {
  let hosts = request.headerValues("Host")
  if hosts.count > 1 { throw .bad("more than one Host header") }
  if request.minorVersion >= 1, hosts.isEmpty { throw .bad("HTTP/1.1 request without a Host header") }
  if let host = hosts.first, host.contains(where: { $0 == " " || $0 == "\t" || $0 == "/" }) {
    throw .bad("malformed Host header")
  }
}

extension StringProtocol {
  var trimmingSpaces: String {
    var s = Substring(self)
    while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
    while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
    return String(s)
  }
}
