import Base
import Foundation
import RequestEngine
import TestSupport
import Sessions
import Testing
import Workspace
import WorkspaceTestSupport

/// The authorization code grant's loopback listener (RFC 8252 §7.3) among other clients: only
/// the redirect with the grant's state ends its wait. In `OAuth2ServerTests`, serialized.
extension OAuth2ServerTests {
  /// The loopback listener of the authorization code grant, while the user is at the browser:
  /// clients that send nothing or half a request line and stay, a redirect with another state,
  /// another path, a request line of 20 KB, bytes that are not HTTP, a request that stops short.
  /// Each is answered (or held apart) and the real redirect still ends the wait, at once.
  @Test func theRedirectListenerAnswersStrayRequestsAndWaitsForItsOwn() throws {
    let base = try server()
    let client = OAuth2Client(
      grant: .authorizationCode(authorizationURL: base + "/authorize", pkce: true, redirectURL: nil),
      tokenURL: base + "/token", clientId: "web", clientSecret: "web-secret", scope: "profile", label: "oauth2 › code")
    let answers = LockedBox<[String: String]>([:])
    let held = LockedBox<[Int32]>([])
    defer { for fd in held.get() { close(fd) } }
    let approve = browser()
    let started = MonotonicClock.now()
    let result = authorize(client) { url in
      let redirect = URLComponents(string: url)?.queryItems?.first { $0.name == "redirect_uri" }?.value ?? ""
      let port = URLComponents(string: redirect)?.port ?? 0
      held.set((0..<8).map { _ in rawConnection(port) } + [rawConnection(port, sending: "GET /callback?code=x")])
      answers.set([
        "another state": rawStatusLine(port, "GET /callback?code=evil&state=WRONG HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
        "no state": rawStatusLine(port, "GET /callback?code=x HTTP/1.1\r\n\r\n"),
        "another path": rawStatusLine(port, "GET /favicon.ico HTTP/1.1\r\n\r\n"),
        "a long line": rawStatusLine(port, "GET /callback?code=" + String(repeating: "A", count: 20_000) + " HTTP/1.1\r\n\r\n"),
        "not HTTP": rawStatusLine(port, "\u{16}\u{03}\u{01}\u{02}\u{00}\r\n\r\n"),
        "cut short": rawStatusLine(port, "GET /callback?state=x", thenStop: true),
      ])
      approve(url)
    }
    let seconds = MonotonicClock.now() - started
    let token = try result.get()
    #expect(seconds < 10, "the redirect took \(seconds) s")
    #expect(answers.get() == [
      "another state": "HTTP/1.1 400 Bad Request", "no state": "HTTP/1.1 400 Bad Request",
      "another path": "HTTP/1.1 404 Not Found", "a long line": "HTTP/1.1 400 Bad Request",
      "not HTTP": "HTTP/1.1 400 Bad Request", "cut short": "HTTP/1.1 400 Bad Request",
    ])
    let agent = Agent()
    defer { agent.shutdown() }
    #expect(agent.sendAndWait(Request(url: base + "/api/me", headers: ["Authorization": token.header])).response?.status == 200)
  }
}

/// A TCP connection to 127.0.0.1:`port` that has sent `text` (5 s timeouts); -1 when it failed.
private func rawConnection(_ port: Int, sending text: String = "") -> Int32 {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  guard fd >= 0 else { return -1 }
  var timeout = timeval(tv_sec: 5, tv_usec: 0)
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = UInt16(clamping: port).bigEndian
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  let connected = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
  }
  let bytes = Array(text.utf8)
  var sent = 0
  while connected == 0, sent < bytes.count {
    let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    guard n > 0 else { break }
    sent += n
  }
  guard connected == 0, sent == bytes.count else {
    close(fd)
    return -1
  }
  return fd
}

/// The status line the listener at `port` answers `text` with (`thenStop`: the client shuts its
/// side after it, mid-request); "" when none came within 5 s.
private func rawStatusLine(_ port: Int, _ text: String, thenStop: Bool = false) -> String {
  let fd = rawConnection(port, sending: text)
  guard fd >= 0 else { return "" }
  defer { close(fd) }
  if thenStop { shutdown(fd, Int32(SHUT_WR)) }
  var answer: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 4096)
  while !answer.contains(10), answer.count < 65536 {
    let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
    guard n > 0 else { break }
    answer += buffer[..<n]
  }
  return String(decoding: answer.prefix { $0 != 13 && $0 != 10 }, as: UTF8.self)
}
