import Digest
import Foundation
import RequestEngine
import TerminalUI

/// RFC 7636: the code verifier and its S256 challenge.
public struct PKCE: Sendable, Equatable {
  public var verifier: String
  public var challenge: String { PKCE.challenge(for: verifier) }

  /// 32 random bytes, base64url: 43 characters (RFC 7636 §4.1).
  public static func random() -> PKCE { PKCE(verifier: base64URL(randomBytes(32))) }

  public init(verifier: String) { self.verifier = verifier }

  /// BASE64URL(SHA256(ASCII(verifier))) (§4.2).
  public static func challenge(for verifier: String) -> String {
    var hasher = SHA256()
    hasher.update(Array(verifier.utf8))
    return base64URL(hasher.finalize())
  }

  static func randomBytes(_ count: Int) -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
  }

  /// Base64 with the URL alphabet and no padding (RFC 4648 §5).
  static func base64URL(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
  }
}

/// The authorization code grant (RFC 6749 §4.1) for a native app (RFC 8252): a listener on
/// 127.0.0.1 takes the redirect, the authorization URL goes to the user (`open`: printed, and
/// `xdg-open` with a display), the `state` that comes back is checked, and the code is exchanged
/// at the token endpoint with the PKCE verifier.
public enum OAuth2AuthorizationCode {
  /// The authorization URL for `client`, sending the user back to `redirect`.
  public static func authorizationURL(
    _ client: OAuth2Client, redirect: String, state: String, pkce: PKCE?
  ) -> String? {
    guard case .authorizationCode(let base, _, _) = client.grant else { return nil }
    var fields = [("response_type", "code"), ("client_id", client.clientId), ("redirect_uri", redirect), ("state", state)]
    if let scope = client.scope, !scope.isEmpty { fields.append(("scope", scope)) }
    if let audience = client.audience, !audience.isEmpty { fields.append(("audience", audience)) }
    if let pkce { fields += [("code_challenge", pkce.challenge), ("code_challenge_method", "S256")] }
    let query = fields.map { QueryEncoder.encodeComponent($0.0) + "=" + QueryEncoder.encodeComponent($0.1) }.joined(separator: "&")
    return base + (base.contains("?") ? "&" : "?") + query
  }

  /// How long the listener waits for the redirect unless told otherwise, in seconds.
  public static let defaultTimeout: Double = 300

  /// Runs the grant: listens, hands the URL to `open`, waits up to `timeout` seconds for the
  /// redirect (or until `cancellation` says stop), checks it and exchanges the code through
  /// `send`. `done` runs once.
  public static func run(
    _ client: OAuth2Client, timeout: Double = defaultTimeout, cancellation: OAuth2Cancellation? = nil,
    open: @escaping @Sendable (String) -> Void,
    send: @escaping Authorizer.Send, done: @escaping @Sendable (Result<OAuth2Token, ExchangeError>) -> Void
  ) {
    @Sendable func fail(_ message: String) {
      done(.failure(ExchangeError(kind: .authorization, message: "\(client.label): authorize: " + message)))
    }
    guard case .authorizationCode(_, let usePKCE, let redirectURL) = client.grant else {
      fail("not an authorizationCode grant")
      return
    }
    let listener: LoopbackListener
    do {
      listener = try LoopbackListener(redirectURL: redirectURL)
    } catch {
      fail(error.message)
      return
    }
    let state = PKCE.base64URL(PKCE.randomBytes(16))
    let pkce = usePKCE ? PKCE.random() : nil
    guard let url = authorizationURL(client, redirect: listener.redirect, state: state, pkce: pkce) else {
      fail("not an authorizationCode grant")
      return
    }
    // The URL goes to the user while this thread waits: `open` may be slow, or (in tests) be
    // the browser that brings the redirect here.
    DispatchQueue.global().async { open(url) }
    Thread.detachNewThread {
      let answer = listener.waitForRedirect(timeout: timeout, cancelled: { cancellation?.isCancelled == true }) { query in
        if query["state"] != state { return (400, "reqbench: the state does not match this request; nothing was done.") }
        if query["code"] != nil { return (200, "reqbench: authorized. You can close this tab.") }
        return (400, "reqbench: the authorization was not given (\(query["error"] ?? "no code")).")
      }
      listener.close()
      if cancellation?.isCancelled == true {
        done(.failure(OAuth2Cancellation.error(client)))
        return
      }
      switch answer {
      case .failure(let timeout): fail(timeout.message)
      case .success(let query):
        guard query["state"] == state else {
          fail("the redirect's state does not match the one sent (a forged or stale redirect); nothing was exchanged")
          return
        }
        guard let code = query["code"] else {
          let error = query["error"] ?? "no code"
          let text = query["error_description"].map { " (\($0))" } ?? ""
          fail("the authorization server answered \(error)\(text)")
          return
        }
        var fields = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", listener.redirect)]
        if let pkce { fields.append(("code_verifier", pkce.verifier)) }
        var request = client.post(fields, step: "token")
        request.secrets += [code] + [pkce?.verifier].compactMap { $0 }
        send(request) { result in done(client.token(from: result, step: "token")) }
      }
    }
  }
}

/// A one-shot HTTP listener on 127.0.0.1 for the redirect (RFC 8252 §7.3): it answers the first
/// request to its path and gives back the query.
final class LoopbackListener: @unchecked Sendable {
  struct Failure: Error { var message: String }
  let redirect: String
  private let path: String
  private var fd: Int32

  init(redirectURL: String?) throws(Failure) {
    var port: UInt16 = 0
    var path = "/callback"
    if let redirectURL {
      let parts = URLResolver.split(redirectURL)
      guard let components = URLComponents(string: redirectURL), components.scheme == "http",
        components.host == "127.0.0.1", parts.scheme != nil
      else {
        throw Failure(message: "redirectURL must be http://127.0.0.1:PORT/PATH (a loopback redirect, RFC 8252), not \(redirectURL)")
      }
      port = UInt16(clamping: components.port ?? 0)
      if !components.path.isEmpty { path = components.path }
    }
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw Failure(message: "cannot open a socket: \(String(cString: strerror(errno)))") }
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0, listen(fd, 4) == 0 else {
      let reason = String(cString: strerror(errno))
      Glibc.close(fd)
      throw Failure(message: "cannot listen on 127.0.0.1:\(port) for the redirect: \(reason)")
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    withUnsafeMutablePointer(to: &address) {
      _ = $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    self.fd = fd
    self.path = path
    redirect = "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))\(path)"
  }

  /// Waits for a request to the redirect's path (others get a 404), answers it with what
  /// `respond` says of its query, and returns the query; gives up after `timeout` seconds, or
  /// within a quarter of a second of `cancelled` saying so.
  func waitForRedirect(
    timeout: Double, cancelled: () -> Bool = { false }, respond: ([String: String]) -> (Int, String)
  ) -> Result<[String: String], ListenerTimeout> {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      let left = deadline.timeIntervalSinceNow
      if left <= 0 { return .failure(ListenerTimeout(message: "no redirect came back within \(Int(timeout)) s")) }
      if cancelled() { return .failure(ListenerTimeout(message: "cancelled")) }
      var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, Int32(min(left, 0.25) * 1000)) > 0 else { continue }
      let client = accept(fd, nil, nil)
      guard client >= 0 else { continue }
      defer { Glibc.close(client) }
      // The request line, at most 8 KB, within 5 s.
      var buffer = [UInt8](repeating: 0, count: 8192)
      var count = 0
      let readDeadline = Date().addingTimeInterval(5)
      while count < buffer.count, !buffer[..<count].contains(10), Date() < readDeadline {
        var reader = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
        guard poll(&reader, 1, 500) > 0 else { continue }
        let offset = count
        let n = buffer.withUnsafeMutableBytes { bytes -> Int in
          guard let base = bytes.baseAddress else { return -1 }
          return recv(client, base + offset, bytes.count - offset, 0)
        }
        if n <= 0 { break }
        count += n
      }
      let line = String(decoding: buffer[..<count].prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
      let words = line.split(separator: " ")
      guard words.count >= 2, let components = URLComponents(string: String(words[1])), components.path == path else {
        reply(client, 404, "not found")
        continue
      }
      var query: [String: String] = [:]
      for item in components.queryItems ?? [] { query[item.name] = item.value ?? "" }
      let (status, text) = respond(query)
      reply(client, status, text)
      return .success(query)
    }
  }

  struct ListenerTimeout: Error { var message: String }

  private func reply(_ client: Int32, _ status: Int, _ text: String) {
    let body = "<!doctype html><meta charset=utf-8><title>reqbench</title><p>\(XMLText.escaped(text))</p>\n"
    let head = "HTTP/1.1 \(status) \(status == 200 ? "OK" : status == 404 ? "Not Found" : "Bad Request")\r\n"
      + "Content-Type: text/html; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
    let bytes = Array((head + body).utf8)
    _ = bytes.withUnsafeBytes { send(client, $0.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
  }

  func close() {
    if fd >= 0 { Glibc.close(fd) }
    fd = -1
  }
}
