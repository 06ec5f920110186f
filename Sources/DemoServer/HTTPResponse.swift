import JSON

/// A response as a handler builds it; the connection frames and writes it.
struct ServerResponse {
  enum Body {
    /// A complete body, sent with Content-Length.
    case bytes([UInt8])
    /// No body and no Content-Length (204, 304).
    case none
    /// A body written by the closure: with Content-Length when `length` is known, else chunked.
    /// The closure may write fewer bytes (the connection is then closed) or drop the connection.
    case stream(length: Int?, write: (BodyStream) throws -> Void)
  }

  var status: Int
  var headers: [(String, String)] = []
  var body: Body = .bytes([])
  /// Close the connection after this response.
  var closeConnection = false
  /// Send nothing at all; just drop the connection.
  var dropConnection = false
  /// Send these bytes as the whole response, unframed and as they are, then close (a hostile
  /// status line; see `App.hostile`).
  var raw: [UInt8]? = nil

  init(status: Int, headers: [(String, String)] = [], body: Body = .bytes([])) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  static func text(_ status: Int, _ text: String, contentType: String = "text/plain; charset=utf-8") -> ServerResponse {
    ServerResponse(status: status, headers: [("Content-Type", contentType)], body: .bytes(Array(text.utf8)))
  }

  static func json(_ status: Int, _ value: JSONValue) -> ServerResponse {
    ServerResponse(status: status, headers: [("Content-Type", "application/json")], body: .bytes(value.serialized()))
  }

  static func error(_ status: Int, _ message: String) -> ServerResponse {
    json(status, .obj(["error": .string(message)]))
  }

  static var dropped: ServerResponse {
    var r = ServerResponse(status: 0)
    r.dropConnection = true
    return r
  }

  func header(_ name: String, _ value: String) -> ServerResponse {
    var copy = self
    copy.headers.append((name, value))
    return copy
  }
}

/// Where a streamed body goes: frames chunks when chunked, counts what was written.
final class BodyStream {
  let socket: ClientSocket
  let chunked: Bool
  private(set) var written = 0
  private var staging: [UInt8] = []

  init(socket: ClientSocket, chunked: Bool) {
    self.socket = socket
    self.chunked = chunked
  }

  var dropped: Bool { socket.dropped }

  func write(_ buffer: UnsafeRawBufferPointer) throws(IOError) {
    guard buffer.count > 0 else { return }
    if chunked {
      staging.removeAll(keepingCapacity: true)
      staging.append(contentsOf: String(buffer.count, radix: 16).utf8)
      staging.append(contentsOf: [0x0d, 0x0a])
      staging.append(contentsOf: buffer)
      staging.append(contentsOf: [0x0d, 0x0a])
      try socket.send(staging)
    } else {
      try socket.send(buffer)
    }
    written += buffer.count
  }

  func write(_ bytes: [UInt8]) throws(IOError) {
    let result = bytes.withUnsafeBytes { raw in Result { () throws(IOError) in try write(raw) } }
    try result.get()
  }

  /// See `ClientSocket.sleep`: false when the server stops or the client goes away.
  func sleep(_ seconds: Double) -> Bool { socket.sleep(seconds) }

  /// Drops the connection (shutdown, then close when the handler returns).
  func drop() { socket.drop() }
}

func reasonPhrase(_ status: Int) -> String {
  switch status {
  case 100: "Continue"
  case 101: "Switching Protocols"
  case 200: "OK"
  case 201: "Created"
  case 202: "Accepted"
  case 203: "Non-Authoritative Information"
  case 204: "No Content"
  case 205: "Reset Content"
  case 206: "Partial Content"
  case 300: "Multiple Choices"
  case 301: "Moved Permanently"
  case 302: "Found"
  case 303: "See Other"
  case 304: "Not Modified"
  case 305: "Use Proxy"
  case 307: "Temporary Redirect"
  case 308: "Permanent Redirect"
  case 400: "Bad Request"
  case 401: "Unauthorized"
  case 402: "Payment Required"
  case 403: "Forbidden"
  case 404: "Not Found"
  case 405: "Method Not Allowed"
  case 406: "Not Acceptable"
  case 407: "Proxy Authentication Required"
  case 408: "Request Timeout"
  case 409: "Conflict"
  case 410: "Gone"
  case 411: "Length Required"
  case 412: "Precondition Failed"
  case 413: "Content Too Large"
  case 414: "URI Too Long"
  case 415: "Unsupported Media Type"
  case 416: "Range Not Satisfiable"
  case 417: "Expectation Failed"
  case 418: "I'm a teapot"
  case 421: "Misdirected Request"
  case 422: "Unprocessable Content"
  case 425: "Too Early"
  case 426: "Upgrade Required"
  case 428: "Precondition Required"
  case 429: "Too Many Requests"
  case 431: "Request Header Fields Too Large"
  case 451: "Unavailable For Legal Reasons"
  case 500: "Internal Server Error"
  case 501: "Not Implemented"
  case 502: "Bad Gateway"
  case 503: "Service Unavailable"
  case 504: "Gateway Timeout"
  case 505: "HTTP Version Not Supported"
  case 507: "Insufficient Storage"
  case 511: "Network Authentication Required"
  default:
    switch status / 100 {
    case 1: "Informational"
    case 2: "Success"
    case 3: "Redirection"
    case 4: "Client Error"
    default: "Server Error"
    }
  }
}

/// Header names and values must not break the framing: CR, LF and NUL become spaces.
func sanitizeHeaderText(_ text: String) -> String {
  guard text.utf8.contains(where: { $0 == 0x0d || $0 == 0x0a || $0 == 0 }) else { return text }
  return String(text.map { $0 == "\r" || $0 == "\n" || $0 == "\r\n" || $0 == "\0" ? " " : $0 })
}
