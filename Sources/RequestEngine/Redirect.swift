/// How the engine follows a redirect. curl's own following (CURLOPT_FOLLOWLOCATION) is off: curl
/// drops only `Authorization` and `Cookie` when the host changes and would carry every other
/// header, `X-Api-Key: {{secret.k}}` included, to wherever a server points. The engine sends each
/// hop itself, built here from the one before, so the rules live in one place:
///
/// - only 301, 302, 303, 307 and 308 with a `Location` are followed (others are the answer);
/// - only to http and https (`redirectRefused` otherwise: a server cannot send reqbench to `ftp://`
///   or `file://`; curl is also limited to http and https, CURLOPT_PROTOCOLS_STR);
/// - at most `maxRedirects` hops (`too many redirects`);
/// - 303 becomes GET (HEAD stays HEAD), and so do 301 and 302 after a POST (as browsers do); the
///   body and its headers (`Content-Type`, `Content-Encoding`, `Content-Language`,
///   `Content-Location`) go; 307 and 308 repeat the method and the body (a streamed body is
///   read again from its file);
/// - to another origin (scheme, host or port), `Authorization`, `Proxy-Authorization`, `Cookie`,
///   a `Host` of the user's, every header whose name or value holds one of the request's secrets,
///   and Digest credentials are dropped, and stay dropped for the hops after;
/// - a deadline (`timeouts.deadline`) is the whole exchange's: each hop gets what is left.
///
/// ```swift
/// let next = try Redirect.next(after: request, status: 302, location: "http://other.test/x", hop: 1).get()
/// ```
public enum Redirect {
  /// The statuses that are followed.
  public static let followedStatuses: Set<Int> = [301, 302, 303, 307, 308]

  /// Headers that describe a request body, dropped when the redirect changes the method to GET.
  static let bodyHeaders = ["Content-Type", "Content-Length", "Content-Encoding", "Content-Language", "Content-Location"]

  /// Headers that belong to the first origin, dropped on the way to another: credentials (curl
  /// drops `Authorization` and `Cookie` too, browsers all three) and a `Host` of the user's (curl
  /// sends it to the first host only).
  static let originHeaders = ["Authorization", "Proxy-Authorization", "Cookie", "Host"]

  /// The request of hop number `hop` (1 for the first redirect), which follows `request`'s
  /// `status` response to `location` (absolute, as curl resolved it: CURLINFO_REDIRECT_URL).
  public static func next(after request: Request, status: Int, location: String, hop: Int)
    -> Result<Request, ExchangeError>
  {
    let scheme = (URLResolver.split(location).scheme ?? "").lowercased()
    guard scheme == "http" || scheme == "https" else {
      let shown = location.count > 200 ? String(location.prefix(200)) + "…" : location
      return .failure(
        ExchangeError(
          kind: .transport,
          message: "redirect refused: status \(status) points to \(shown); only http and https redirects are followed",
          transport: .redirectRefused))
    }
    guard hop <= request.maxRedirects else {
      return .failure(
        .transport(.tooManyRedirects, detail: "more than \(request.maxRedirects) (the last pointed to \(location))"))
    }
    var next = request
    next.url = location
    let toGET = status == 303 ? request.method != .HEAD : (status == 301 || status == 302) && request.method == .POST
    if toGET {
      next.method = .GET
      next.body = .empty
      for name in bodyHeaders { next.headers[name] = nil }
      // The body's own type rode on RequestBody: an empty header removed curl's default; a GET
      // needs neither.
    }
    if !sameOrigin(request.url, location) {
      for name in originHeaders { next.headers[name] = nil }
      let secrets = request.secrets.filter { !$0.isEmpty }
      if !secrets.isEmpty {
        next.headers = HTTPHeaders(
          next.headers.fields.filter { field in
            !secrets.contains { field.value.contains($0) || field.name.contains($0) }
          }.map { ($0.name, $0.value) })
      }
      next.digest = nil
    }
    return .success(next)
  }

  /// Whether two absolute URLs have the same scheme, host and port (default ports made explicit).
  public static func sameOrigin(_ a: String, _ b: String) -> Bool {
    URLResolver.hostKey(of: a) == URLResolver.hostKey(of: b)
  }
}

extension Timing {
  /// A hop's times counted from the exchange's start, `earlier` seconds of hops before it. As
  /// curl counts a redirected transfer: name lookup, connect and TLS are the last hop's own; the
  /// first byte and the total add up over the hops.
  func after(_ earlier: Double) -> Timing {
    guard earlier > 0 else { return self }
    var shifted = self
    shifted.firstByte += earlier
    shifted.total += earlier
    return shifted
  }
}
