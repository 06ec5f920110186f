import Foundation
import Digest
/// Serves the requests of one connection, one after another (keep-alive, pipelining).
final class ConnectionHandler {
  private let socket: ClientSocket
  private let app: App
  private let isStopping: () -> Bool

  /// Largest request head (request line + headers).
  static let maxHeadBytes = 64 * 1024
  /// Request body bytes kept in memory (for the echo and JSON parsing); the rest is only counted
  /// and hashed.
  static let maxRetainedBody = 16 * 1024 * 1024

  /// `CONNECT host:port` (an HTTPS proxy's tunnel, for tests of `HTTPS_PROXY`): to loopback
  /// only; counted under the key `connect` with the target in `/log?key=connect`. Bytes are
  /// copied both ways until either side closes.
  private func tunnel(_ request: ServerRequest) {
    let token = app.tracker.begin(key: "connect", method: "CONNECT", target: request.target, headers: request.headersJSON).token
    var completed = false
    defer { app.tracker.end(token, completed: completed) }
    guard let colon = request.target.lastIndex(of: ":"), let port = UInt16(request.target[request.target.index(after: colon)...])
    else {
      refuse(400, "CONNECT needs host:port")
      return
    }
    let host = request.target[..<colon].trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    guard ["127.0.0.1", "localhost"].contains(host), inet_pton(AF_INET, "127.0.0.1", &address.sin_addr) == 1 else {
      refuse(403, "this test proxy tunnels to 127.0.0.1 only")
      return
    }
    let upstream = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard upstream >= 0 else { return }
    defer { close(upstream) }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard connected == 0 else {
      refuse(502, "cannot connect to \(request.target)")
      return
    }
    do {
      try socket.send(Array("HTTP/1.1 200 Connection Established\r\n\r\n".utf8))
    } catch {
      return
    }
    var fds = [pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0), pollfd(fd: upstream, events: Int16(POLLIN), revents: 0)]
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    pump: while !isStopping() {
      guard poll(&fds, 2, 200) >= 0 else { break }
      for (from, to) in [(0, 1), (1, 0)] where fds[from].revents != 0 {
        let n = chunk.withUnsafeMutableBytes { recv(fds[from].fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { break pump }
        var sent = 0
        while sent < n {
          let w = chunk.withUnsafeBytes { Glibc.send(fds[to].fd, $0.baseAddress! + sent, n - sent, Int32(MSG_NOSIGNAL)) }
          if w <= 0 { break pump }
          sent += w
        }
      }
    }
    completed = true
  }

  init(socket: ClientSocket, app: App, isStopping: @escaping () -> Bool) {
    self.socket = socket
    self.app = app
    self.isStopping = isStopping
  }

  func run() {
    while !isStopping() {
      guard serveOne() else { return }
    }
  }

  /// Serves one request; false when the connection is done.
  private func serveOne() -> Bool {
    let head: [UInt8]
    do {
      guard let bytes = try socket.readHead(limit: Self.maxHeadBytes) else { return false }
      head = bytes
    } catch .tooLarge {
      refuse(431, "request head too large")
      return false
    } catch {
      return false
    }

    var request: ServerRequest
    let framing: BodyFraming
    do {
      request = try parseRequestHead(head)
      try validateHost(of: request)
      framing = try bodyFraming(of: request)
    } catch {
      refuse(error.status, error.message)
      return false
    }

    if request.method == "CONNECT" {
      tunnel(request)
      return false
    }

    // Count it under its key as soon as the head is in.
    var tracking: (hit: Int, token: KeyTracker.Token)? = nil
    if let key = request.queryValue("key"), !App.uncountedPaths.contains(request.path) {
      tracking = app.tracker.begin(
        key: key, method: request.method, target: request.target, headers: request.headersJSON)
    }
    func finish(_ completed: Bool) {
      if let tracking { app.tracker.end(tracking.token, completed: completed) }
    }

    // Expect: 100-continue (RFC 9110 §10.1.1). `?expect=ignore` never sends the interim response;
    // `?expect=reject` answers 417.
    if let expect = request.header("Expect"), request.minorVersion >= 1 {
      let mode = request.queryValue("expect")
      if expect.lowercased() != "100-continue" || mode == "reject" {
        let sent = refuse(417, "expectation not supported: \(expect)")
        finish(sent)
        return false
      }
      if framing.hasBody, mode != "ignore" {
        do {
          try socket.send(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8))
        } catch {
          finish(false)
          return false
        }
      }
    }

    // The body: kept, parsed and paced as the endpoint asks (see `App.bodyPlan`).
    let plan = app.bodyPlan(for: request)
    var collector = BodyCollector(limit: plan.retainLimit)
    collector.multipart = plan.multipart
    socket.throttleBodyReads(plan.rate)
    defer { socket.throttleBodyReads(nil) }
    do {
      switch framing {
      case .none: break
      case .length(let n): try socket.readBody(count: n, into: &collector)
      case .chunked: try socket.readChunked(into: &collector)
      }
    } catch .malformed(let message) {
      if let tracking { app.tracker.bodyRead(tracking.token, received: collector.length, aborted: false) }
      finish(refuse(400, message))
      return false
    } catch {
      // The client went away (or went quiet) mid-body: log how far the upload got.
      if let tracking { app.tracker.bodyRead(tracking.token, received: collector.length, aborted: true) }
      finish(false)
      return false
    }
    if let tracking { app.tracker.bodyRead(tracking.token, received: collector.length, aborted: false) }
    request.body = collector.retained
    request.bodyLength = collector.length
    request.bodySha256 = hexString(collector.hasher.finalize())
    request.bodyTruncated = collector.truncated
    request.multipart = collector.multipart?.finish()

    let context = Context(socket: socket, hit: tracking?.hit ?? 0, hasKey: tracking != nil)
    let response = app.handle(request, context)
    let wantsKeepAlive = Self.wantsKeepAlive(request)
    let outcome = write(response, for: request, keepAlive: wantsKeepAlive) {
      if let tracking { app.tracker.leave(tracking.token) }
    }
    finish(outcome.completed)
    if outcome.completed && outcome.keepAlive { return true }
    if outcome.completed { socket.lingeringClose() } else { socket.drop() }
    return false
  }

  private static func wantsKeepAlive(_ request: ServerRequest) -> Bool {
    let tokens = request.headerValues("Connection").joined(separator: ",").lowercased()
      .split(separator: ",").map { $0.trimmingSpaces }
    if tokens.contains("close") { return false }
    return request.minorVersion >= 1 || tokens.contains("keep-alive")
  }

  /// Answers an unusable request with a short text body and closes. Returns whether it was sent.
  @discardableResult
  private func refuse(_ status: Int, _ message: String) -> Bool {
    var response = ServerResponse.text(status, "\(reasonPhrase(status).lowercased()): \(message)\n")
    response.closeConnection = true
    let outcome = writeSimple(response)
    if outcome { socket.lingeringClose() }
    return outcome
  }

  private func writeSimple(_ response: ServerResponse) -> Bool {
    guard case .bytes(let body) = response.body else { return false }
    var head = Self.head(status: response.status, headers: response.headers)
    head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
    do {
      try socket.send(Array(head.utf8) + body)
      return true
    } catch {
      return false
    }
  }

  private static func head(status: Int, headers: [(String, String)]) -> String {
    var head = "HTTP/1.1 \(status) \(reasonPhrase(status))\r\nDate: \(currentHTTPDate())\r\nServer: reqbench-demo\r\n"
    for (name, value) in headers {
      head += "\(sanitizeHeaderText(name)): \(sanitizeHeaderText(value))\r\n"
    }
    return head
  }

  private struct Outcome {
    var completed: Bool
    var keepAlive: Bool
  }

  /// Frames and writes a response. `completed` when every byte went out as framed.
  /// `beforeLastSend` runs just before the bytes that complete the response are sent.
  private func write(
    _ response: ServerResponse, for request: ServerRequest, keepAlive requested: Bool,
    beforeLastSend: () -> Void = {}
  ) -> Outcome {
    if response.dropConnection {
      socket.drop()
      return Outcome(completed: false, keepAlive: false)
    }
    if let raw = response.raw {
      beforeLastSend()
      let sent = (try? socket.send(raw)) != nil
      return Outcome(completed: sent, keepAlive: false)
    }
    var keepAlive = requested && !response.closeConnection && !isStopping()
    let status = response.status
    let bodyless = (100..<200).contains(status) || status == 204 || status == 304
    var head = Self.head(status: status, headers: response.headers)
    var inlineBody: [UInt8] = []
    var streamWriter: ((BodyStream) throws -> Void)? = nil
    var streamLength: Int? = nil
    var chunked = false

    switch response.body {
    case .none:
      break
    case .bytes(let bytes):
      if !bodyless {
        head += "Content-Length: \(bytes.count)\r\n"
        if !request.isHead { inlineBody = bytes }
      }
    case .stream(let length, let writer):
      if !bodyless {
        if let length {
          head += "Content-Length: \(length)\r\n"
        } else if request.minorVersion >= 1 {
          head += "Transfer-Encoding: chunked\r\n"
          chunked = true
        } else {
          keepAlive = false  // HTTP/1.0: the body ends when the connection does
        }
        if !request.isHead {
          streamWriter = writer
          streamLength = length
        }
      }
    }
    if keepAlive {
      if request.minorVersion == 0 { head += "Connection: keep-alive\r\n" }
    } else {
      head += "Connection: close\r\n"
    }
    head += "\r\n"

    do {
      var out = Array(head.utf8)
      if inlineBody.count <= 64 * 1024 {
        out += inlineBody
        if streamWriter == nil { beforeLastSend() }
        try socket.send(out)
      } else {
        try socket.send(out)
        beforeLastSend()
        try socket.send(inlineBody)
      }
      if let streamWriter {
        let stream = BodyStream(socket: socket, chunked: chunked)
        try streamWriter(stream)
        if stream.dropped { return Outcome(completed: false, keepAlive: false) }
        if let streamLength, stream.written != streamLength {
          return Outcome(completed: false, keepAlive: false)
        }
        beforeLastSend()
        if chunked { try socket.send(Array("0\r\n\r\n".utf8)) }
      }
      return Outcome(completed: true, keepAlive: keepAlive)
    } catch {
      return Outcome(completed: false, keepAlive: false)
    }
  }
}

/// What a handler may use besides the request: waiting, and its key's hit number.
struct Context {
  let socket: ClientSocket
  /// This request's hit number under its `key` (1 for the first); 0 without a key.
  let hit: Int
  let hasKey: Bool

  /// Waits; false when the server stops or the client hangs up (the handler should then drop).
  func sleep(_ seconds: Double) -> Bool { socket.sleep(seconds) }
}
