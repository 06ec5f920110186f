import Foundation
import JSON

extension App {
  /// The request as JSON: `/get`, `/anything`, `/delay`, `/flaky` after its failures.
  func echo(_ request: ServerRequest) -> JSONValue {
    var fields: [(String, JSONValue)] = [
      ("method", .string(request.method)),
      ("path", .string(request.path)),
      ("target", .string(request.target)),
      ("httpVersion", .string(request.version)),
      ("query", request.queryJSON),
      ("rawQuery", .string(request.rawQuery)),
      ("headers", request.headersJSON),
      ("body", .string(String(decoding: request.body, as: UTF8.self))),
      ("bodyLength", .int(request.bodyLength)),
      ("bodySha256", .string(request.bodySha256)),
    ]
    if request.bodyTruncated { fields.append(("bodyTruncated", .bool(true))) }
    return .obj(fields)
  }

  func status(_ request: ServerRequest, _ rest: [String]) -> ServerResponse {
    guard rest.count == 1, let code = parseNonNegativeInt(Substring(rest[0])), (200...599).contains(code) else {
      return .error(400, "expected /status/{code} with a code in 200...599")
    }
    if code == 204 || code == 304 { return ServerResponse(status: code, body: .none) }
    if code == 205 { return ServerResponse(status: code) }
    var response = ServerResponse.text(code, "status \(code)")
    if code == 401 { response.headers.append(("WWW-Authenticate", #"Basic realm="fixture""#)) }
    return response
  }

  func delay(_ request: ServerRequest, _ rest: [String], _ context: Context) -> ServerResponse {
    guard rest.count == 1, let seconds = parseSeconds(rest[0]) else {
      return .error(400, "expected /delay/{seconds}")
    }
    guard context.sleep(min(seconds, 60)) else { return .dropped }
    return ServerResponse.json(200, echo(request))
  }

  func drip(_ request: ServerRequest, _ context: Context) -> ServerResponse {
    let count = request.queryValue("bytes").flatMap { parseNonNegativeInt(Substring($0)) } ?? 10
    let interval = min(parseSeconds(request.queryValue("interval")) ?? 0.1, 60)
    let delay = min(parseSeconds(request.queryValue("delay")) ?? 0, 60)
    guard count <= 10_000_000 else { return .error(400, "bytes must be at most 10000000") }
    guard context.sleep(delay) else { return .dropped }
    return ServerResponse(
      status: 200, headers: [("Content-Type", "application/octet-stream")],
      body: .stream(length: count) { stream in
        if interval <= 0 {
          try stream.write([UInt8](repeating: UInt8(ascii: "*"), count: count))
          return
        }
        for i in 0..<count {
          if i > 0, !stream.sleep(interval) { return stream.drop() }
          try stream.write([UInt8(ascii: "*")])
        }
      })
  }

  func stall(_ request: ServerRequest) -> ServerResponse {
    let total = 1_000_000
    let after = min(request.queryValue("after").flatMap { parseNonNegativeInt(Substring($0)) } ?? 0, total - 1)
    return ServerResponse(
      status: 200, headers: [("Content-Type", "application/octet-stream")],
      body: .stream(length: total) { stream in
        if after > 0 { try stream.write([UInt8](repeating: UInt8(ascii: "*"), count: after)) }
        _ = stream.sleep(120)
        stream.drop()
      })
  }

  func redirect(_ request: ServerRequest, _ countText: String) -> ServerResponse {
    // n hops in all, as httpbin makes: /redirect/1 goes straight to /get.
    guard let n = parseNonNegativeInt(Substring(countText)), (1...1000).contains(n) else {
      return .error(400, "expected /redirect/{n} with n in 1...1000")
    }
    let location = n == 1 ? "/get" : "/redirect/\(n - 1)"
    return ServerResponse(status: 302, headers: [("Location", location)])
  }

  func redirectTo(_ request: ServerRequest) -> ServerResponse {
    guard let url = request.queryValue("url"), !url.isEmpty else { return .error(400, "missing url") }
    var status = 302
    if let text = request.queryValue("status") {
      guard let code = parseNonNegativeInt(Substring(text)), (300...399).contains(code) else {
        return .error(400, "status must be in 300...399")
      }
      status = code
    }
    return ServerResponse(status: status, headers: [("Location", url)])
  }

  func basicAuth(_ request: ServerRequest, user: String, password: String) -> ServerResponse {
    if let credentials = Self.basicCredentials(request), credentials == (user + ":" + password) {
      return .json(200, .obj(["authenticated": .bool(true), "user": .string(user)]))
    }
    return ServerResponse.json(401, .obj(["authenticated": .bool(false)]))
      .header("WWW-Authenticate", #"Basic realm="fixture""#)
  }

  static func basicCredentials(_ request: ServerRequest) -> String? {
    guard let value = request.header("Authorization") else { return nil }
    let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
    guard parts.count == 2, parts[0].lowercased() == "basic",
      let data = Data(base64Encoded: String(parts[1]).trimmingSpaces)
    else { return nil }
    return String(decoding: data, as: UTF8.self)
  }

  static func bearerToken(_ request: ServerRequest) -> String? {
    guard let value = request.header("Authorization") else { return nil }
    let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
    guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
    let token = parts[1].trimmingSpaces
    return token.isEmpty ? nil : token
  }

  func bearer(_ request: ServerRequest) -> ServerResponse {
    guard let token = Self.bearerToken(request) else {
      return ServerResponse.json(401, .obj(["authenticated": .bool(false)])).header("WWW-Authenticate", "Bearer")
    }
    return .json(200, .obj(["authenticated": .bool(true), "token": .string(token)]))
  }

  /// `/flaky?key=K&fail_first=N&code=503[&retry_after=S]`.
  func flaky(_ request: ServerRequest, _ context: Context) -> ServerResponse {
    let failFirst = request.queryValue("fail_first").flatMap { parseNonNegativeInt(Substring($0)) } ?? 1
    var code = 503
    if let text = request.queryValue("code") {
      guard let value = parseNonNegativeInt(Substring(text)), (200...599).contains(value) else {
        return .error(400, "code must be in 200...599")
      }
      code = value
    }
    guard context.hasKey, context.hit <= failFirst else { return .json(200, echo(request)) }
    var response = ServerResponse.text(code, "flaky failure \(context.hit)")
    if let retryAfter = request.queryValue("retry_after") { response.headers.append(("Retry-After", retryAfter)) }
    return response
  }

  /// `/cache?key=K&etag=E&lm=DATE&max_age=S&no_store=1&no_cache=1&vary=NAME`: a JSON body counting the hits
  /// of K, with the validators and Cache-Control asked for; a matching `If-None-Match` or
  /// `If-Modified-Since` gets `304 Not Modified`. For the response cache's tests.
  func cache(_ request: ServerRequest, _ context: Context) -> ServerResponse {
    var headers: [(String, String)] = []
    let etag = request.queryValue("etag").map { "\"\($0)\"" }
    let lastModified = request.queryValue("lm")
    if let etag { headers.append(("ETag", etag)) }
    if let lastModified { headers.append(("Last-Modified", lastModified)) }
    if request.queryValue("no_store") == "1" {
      headers.append(("Cache-Control", "no-store"))
    } else if request.queryValue("no_cache") == "1" {
      headers.append(("Cache-Control", "no-cache"))
    } else if let maxAge = request.queryValue("max_age") {
      headers.append(("Cache-Control", "max-age=\(maxAge)"))
    }
    if let vary = request.queryValue("vary") { headers.append(("Vary", vary)) }
    let notModified =
      (etag != nil && request.header("If-None-Match") == etag)
      || (etag == nil && lastModified != nil && request.header("If-Modified-Since") == lastModified)
    if notModified { return ServerResponse(status: 304, headers: headers, body: .none) }
    var response = ServerResponse.json(
      200,
      .obj([
        "hit": .int(context.hit), "key": .string(request.queryValue("key") ?? ""),
        "vary": .string(request.queryValue("vary").flatMap { request.header($0) } ?? ""),
      ]))
    response.headers.append(contentsOf: headers)
    return response
  }

  func hits(_ request: ServerRequest) -> ServerResponse {
    guard let key = request.queryValue("key") else { return .error(400, "missing key") }
    return .json(200, .obj(["key": .string(key), "hits": .int(tracker.stats(key).hits)]))
  }

  func log(_ request: ServerRequest) -> ServerResponse {
    guard let key = request.queryValue("key") else { return .error(400, "missing key") }
    let entries = tracker.log(key).map { entry -> JSONValue in
      .obj([
        "method": .string(entry.method),
        "target": .string(entry.target),
        "headers": entry.headers,
        "start": .double(entry.start),
        "end": entry.end.map { .double($0) } ?? .null,
        "completed": .bool(entry.completed),
        "received": entry.received.map { .int($0) } ?? .null,
        "aborted": .bool(entry.aborted),
      ])
    }
    return .json(200, .array(entries))
  }

  func stats(_ request: ServerRequest) -> ServerResponse {
    guard let key = request.queryValue("key") else { return .error(400, "missing key") }
    let stats = tracker.stats(key)
    return .json(
      200,
      .obj(["hits": .int(stats.hits), "inFlight": .int(stats.inFlight), "maxInFlight": .int(stats.maxInFlight)]))
  }

  /// How a request's body is read, decided once its head is in. Every endpoint but `/upload` keeps
  /// up to 16 MiB of it in memory; `/upload` keeps none, parses `multipart/form-data` as it
  /// arrives and reads at `?rate=` bytes a second when asked.
  func bodyPlan(for request: ServerRequest) -> BodyPlan {
    guard request.pathSegments == ["upload"] else { return BodyPlan() }
    return BodyPlan(
      retainLimit: 0, multipart: MultipartParser(contentType: request.header("Content-Type")),
      rate: Self.uploadRate(request))
  }

  /// `?rate=B` of `/upload`: a finite number of bytes a second above 0; nil when absent or invalid.
  private static func uploadRate(_ request: ServerRequest) -> Double? {
    guard let text = request.queryValue("rate"), let value = Double(text), value.isFinite, value > 0 else {
      return nil
    }
    return value
  }

  /// `/upload[?rate=B]`, any method: what arrived. `contentLength` is the declared length (null
  /// when chunked or absent), `bodyLength` what was read, `sha256` the whole body's digest; `parts`
  /// lists a `multipart/form-data` body's parts (null for other bodies), `error` says why the
  /// multipart body was malformed (null when it was not).
  func upload(_ request: ServerRequest) -> ServerResponse {
    if request.queryValue("rate") != nil, Self.uploadRate(request) == nil { return .error(400, "rate must be > 0") }
    var contentLength: JSONValue = .null
    if request.headerValues("Transfer-Encoding").isEmpty, let declared = request.header("Content-Length"),
      let first = declared.split(separator: ",").first, let n = parseNonNegativeInt(Substring(first.trimmingSpaces))
    {
      contentLength = .int(n)
    }
    return .json(
      200,
      .obj([
        "method": .string(request.method),
        "contentType": request.header("Content-Type").map { .string($0) } ?? .null,
        "contentLength": contentLength,
        "bodyLength": .int(request.bodyLength),
        "sha256": .string(request.bodySha256),
        "parts": request.multipart.map { .array($0.parts.map(\.json)) } ?? .null,
        "error": request.multipart?.error.map { .string($0) } ?? .null,
      ]))
  }

  func text(_ request: ServerRequest) -> ServerResponse {
    let charset = request.queryValue("charset")?.lowercased()
    if charset == "iso-8859-1" || charset == "latin1" || charset == "latin-1" {
      return ServerResponse(
        status: 200, headers: [("Content-Type", "text/plain; charset=iso-8859-1")],
        body: .bytes([0x63, 0x61, 0x66, 0xE9]))
    }
    return ServerResponse.text(200, "café")
  }

  /// `/cookies` echoes the Cookie header; `/cookies/set?n=v` sets cookies; `/cookies/delete?n` expires them.
  func cookies(_ request: ServerRequest, _ rest: [String]) -> ServerResponse {
    let names = request.query.filter { $0.name != "key" }
    switch rest {
    case []:
      var fields: [(String, JSONValue)] = []
      for header in request.headerValues("Cookie") {
        for piece in header.split(separator: ";") {
          let pair = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
          let name = pair[0].trimmingSpaces
          guard !name.isEmpty else { continue }
          fields.append((name, .string(pair.count > 1 ? pair[1].trimmingSpaces : "")))
        }
      }
      return .json(200, .obj(["cookies": .obj(fields)]))
    case ["set"]:
      var response = ServerResponse.json(200, .obj(["cookies": .obj(names.map { ($0.name, JSONValue.string($0.value)) })]))
      for pair in names where Self.isCookieSafe(pair.name) && Self.isCookieSafe(pair.value) {
        response.headers.append(("Set-Cookie", "\(pair.name)=\(pair.value); Path=/"))
      }
      return response
    case ["delete"]:
      var response = ServerResponse.json(200, .obj(["deleted": .array(names.map { .string($0.name) })]))
      for pair in names where Self.isCookieSafe(pair.name) {
        response.headers.append(("Set-Cookie", "\(pair.name)=; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=0; Path=/"))
      }
      return response
    default:
      return .error(404, "not found: \(request.path)")
    }
  }

  private static func isCookieSafe(_ text: String) -> Bool {
    text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7f && $0 != ";" && $0 != "," && $0 != "\"" && $0 != "\\" }
  }
}

/// How the connection reads a request's body (see `App.bodyPlan`).
struct BodyPlan {
  /// Body bytes kept in memory for the handler; the rest is only counted and hashed.
  var retainLimit = ConnectionHandler.maxRetainedBody
  /// Parses the body as `multipart/form-data` while it is read.
  var multipart: MultipartParser? = nil
  /// Reads the body at about this many bytes a second.
  var rate: Double? = nil
}

/// Fixed bodies.
enum Content {
  static let html = """
    <!DOCTYPE html>
    <html lang="en">
    <head><meta charset="utf-8"><title>reqbench fixture</title></head>
    <body>
    <h1>reqbench fixture</h1>
    <p>A small HTML page, served as <code>text/html</code>.</p>
    </body>
    </html>

    """

  static let xml = """
    <?xml version="1.0" encoding="UTF-8"?>
    <slideshow title="Sample Slide Show" author="reqbench">
      <slide type="all"><title>Wake up to reqbench!</title></slide>
      <slide type="all"><title>Overview</title><item>Why reqbench is great</item></slide>
    </slideshow>

    """

  /// Everything a terminal must never be sent raw: CSI, OSC (title, clipboard), DCS, C0, the
  /// one-character C1 CSI, bidirectional overrides and isolates.
  static let escape =
    "plain text, then \u{1b}[31mred\u{1b}[0m, a bell \u{07}, a title change \u{1b}]0;title\u{07}, a backspace \u{08}, a carriage return \r and a NUL \u{00}.\n"
    + "a clipboard write \u{1b}]52;c;cHduZWQ=\u{07}, a DCS \u{1b}P1$qm\u{1b}\\, a C1 CSI \u{9b}31m, "
    + "an override \u{202e}lave\u{202c} and an isolate \u{2066}iso\u{2069}.\n"

  static let smallJSON: JSONValue = .obj([
    "name": "small.json",
    "description": .string("A small JSON file from the demo server."),
    "version": .int(3),
    "tags": .array([.string("demo"), .string("json"), .string("small")]),
    "nested": .obj(["ok": .bool(true), "ratio": .double(0.75), "nothing": .null]),
  ])
}
