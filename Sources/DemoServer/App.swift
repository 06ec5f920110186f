/// Routes requests to the fixture and demo endpoints. Shared by every connection thread.
///
/// Beyond the documented endpoints, a few extras exist for tests:
/// - any request: `?expect=ignore` never sends `100 Continue`; `?expect=reject` answers 417;
/// - `/flaky?...&retry_after=S` adds `Retry-After: S` to the failures;
/// - `/cookies` echoes the Cookie header, `/cookies/delete?name` expires cookies;
/// - `/cache?key=&etag=&lm=&max_age=&no_store=1&vary=` counts hits and answers conditional
///   requests with 304, for the response cache's tests;
/// - the echo JSON also has `httpVersion`, and `bodyTruncated: true` when the body was larger than
///   the 16 MiB kept in memory (`bodyLength` and `bodySha256` always cover the whole body);
/// - `/bytes`: `Last-Modified` moves one day per content version (so If-Range with the old date
///   fails after `change_after`), and `range=wrong` sends the bytes from offset 0 labelled
///   `Content-Range: bytes 0-(len-1)/n` (a consistent but wrong answer to the requested range);
/// - `/upload[?rate=B]` (any method) reports what arrived: lengths, the body's SHA-256 and, for
///   `multipart/form-data`, each part (name, filename, type, size, SHA-256, short text values),
///   parsed as the body streams in without keeping it; `rate` reads the body at about B bytes a
///   second (for upload progress and cancelling);
/// - `/log` entries also say how many body bytes were `received` and whether the body read was
///   `aborted` (the client closed the connection mid-body);
/// - `/hostile/…` answers as a hostile server would (a huge Content-Length, an endless body, a
///   gzip bomb, a 1 MB header line, a huge JSON body, a malformed status line): see
///   `HostileEndpoints.swift`.
final class App: Sendable {
  let tracker = KeyTracker()
  let users = UserStore()
  let demoCounters = DemoCounters()
  let oauth = DemoOAuth()

  /// Requests to these paths are never counted under their key.
  static let uncountedPaths: Set<String> = ["/hits", "/log", "/stats", "/hits/", "/log/", "/stats/"]

  func handle(_ request: ServerRequest, _ context: Context) -> ServerResponse {
    let segments = request.pathSegments
    guard let first = segments.first else {
      return request.path == "*" ? options(request) : index(request)
    }
    let rest = Array(segments.dropFirst())
    switch first {
    // Fixture endpoints
    case "get" where rest.isEmpty, "anything": return ServerResponse.json(200, echo(request))
    case "headers" where rest.isEmpty: return ServerResponse.json(200, .obj(["headers": request.headersJSON]))
    case "status": return status(request, rest)
    case "delay": return delay(request, rest, context)
    case "drip" where rest.isEmpty: return drip(request, context)
    case "stall" where rest.isEmpty: return stall(request)
    case "bytes" where rest.count == 1:
      guard let n = parseNonNegativeInt(Substring(rest[0])) else { return .error(400, "bad byte count: \(rest[0])") }
      return bytes(request, context, size: n, allowRate: true)
    case "redirect" where rest.count == 1: return redirect(request, rest[0])
    case "redirect-to" where rest.isEmpty: return redirectTo(request)
    case "basic-auth" where rest.count == 2: return basicAuth(request, user: rest[0], password: rest[1])
    case "bearer" where rest.isEmpty: return bearer(request)
    case "flaky" where rest.isEmpty: return flaky(request, context)
    case "cache" where rest.isEmpty: return cache(request, context)
    case "hits" where rest.isEmpty: return hits(request)
    case "log" where rest.isEmpty: return log(request)
    case "stats" where rest.isEmpty: return stats(request)
    case "html" where rest.isEmpty: return ServerResponse.text(200, Content.html, contentType: "text/html; charset=utf-8")
    case "xml" where rest.isEmpty: return ServerResponse.text(200, Content.xml, contentType: "application/xml")
    case "json-invalid" where rest.isEmpty: return ServerResponse.text(200, #"{"a": 1,"#, contentType: "application/json")
    case "empty" where rest.isEmpty: return ServerResponse(status: 200, headers: [("Content-Type", "application/json")])
    case "space" where rest.isEmpty: return ServerResponse.text(200, " ", contentType: "application/json")
    case "text" where rest.isEmpty: return text(request)
    case "escape" where rest.isEmpty:
      var response = ServerResponse.text(200, Content.escape)
      response.headers.append(("X-Escape", "\u{1b}]0;header title\u{07}\u{202e}"))
      return response
    case "cookies": return cookies(request, rest)
    case "upload" where rest.isEmpty: return upload(request)
    case "sse": return streamEndpoint(request, rest, context)
    case "ndjson" where rest.isEmpty: return ndjson(request)
    case "hostile": return hostile(request, rest)
    // Demo endpoints
    case "users": return usersEndpoint(request, rest)
    case "auth" where rest == ["login"]: return login(request)
    case "me" where rest.isEmpty: return me(request)
    case "oauth" where rest == ["token"]: return oauthToken(request)
    case "oauth" where rest == ["report"]: return oauthReport(request)
    case "slow" where rest.isEmpty: return slow(request, context)
    case "trickle" where rest.isEmpty: return trickle(request, context)
    case "flaky-demo" where rest.isEmpty: return flakyDemo(request)
    case "files" where rest == ["big.bin"]:
      let size: Int
      if let text = request.queryValue("size") {
        guard let n = parseNonNegativeInt(Substring(text)) else { return .error(400, "bad size: \(text)") }
        size = n
      } else {
        size = 50 * 1024 * 1024
      }
      return bytes(request, context, size: size, allowRate: false)
    case "files" where rest == ["small.json"]: return ServerResponse.json(200, Content.smallJSON)
    default:
      return .error(404, "not found: \(request.path)")
    }
  }

  private func options(_ request: ServerRequest) -> ServerResponse {
    ServerResponse(status: 204, headers: [("Allow", "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS")], body: .none)
  }
}

/// Checks the method; nil when allowed, else a 405 listing `allowed`.
func requireMethod(_ request: ServerRequest, _ allowed: [String]) -> ServerResponse? {
  var all = allowed
  if all.contains("GET"), !all.contains("HEAD") { all.append("HEAD") }
  if all.contains(request.method) { return nil }
  return ServerResponse.error(405, "method \(request.method) not allowed; use \(allowed.joined(separator: ", "))")
    .header("Allow", all.joined(separator: ", "))
}
