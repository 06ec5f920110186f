import Foundation

/// The request as curl put it on the wire: its request line and every header it wrote (`Host`,
/// `User-Agent`, `Content-Length`, `Cookie`, `Range`… included), read from curl's debug
/// function (`CURLINFO_HEADER_OUT`), and a description of the body. What `http -v` prints above
/// the response. Secrets are masked (`••••`) with the request's own secrets, as errors are.
///
/// After redirects (or a Digest challenge, a proxy's CONNECT) curl sent several requests: this is
/// the last one, the one the response answers; `count` says how many there were.
public struct SentRequest: Sendable, Equatable {
  /// The request head as curl wrote it, CRLF line ends, without the blank line that ends it
  /// (over HTTP/2, curl's HTTP/1-style rendering: `GET /x HTTP/2`, `Host: …`).
  public var head: String
  /// The head was longer than `SentRequest.headLimit` and is cut there.
  public var headTruncated: Bool
  public var body: SentBody
  /// Requests curl sent for this attempt (1, or more after redirects).
  public var count: Int

  /// The most of a head that is kept.
  public static let headLimit = 64 << 10
  /// The most of an in-memory body that is kept (`SentBody.bytes` says the full size).
  public static let bodyLimit = 64 << 10

  public init(head: String, headTruncated: Bool = false, body: SentBody, count: Int = 1) {
    self.head = head
    self.headTruncated = headTruncated
    self.body = body
    self.count = count
  }

  /// `GET /users/1 HTTP/1.1`.
  public var requestLine: String {
    String(head.prefix { !$0.isNewline })
  }

  /// The header fields in the order curl sent them (duplicates kept).
  public var headers: HTTPHeaders {
    var headers = HTTPHeaders()
    for line in head.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\r\n" || $0 == "\n" }).dropFirst() {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers.add(
        String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingWhitespace())
    }
    return headers
  }

  /// The method of the request line (after a 301/302/303 curl may have turned a POST into a GET).
  var method: Substring {
    // On the UTF-8 bytes: a method is ASCII, and walking Characters cost more than the rest.
    head[..<(head.utf8.firstIndex { $0 == 0x20 || $0 == 0x0D || $0 == 0x0A } ?? head.endIndex)]
  }

  /// Builds the record of what was sent from the raw head bytes curl handed over, the body bytes
  /// curl counted as sent (`uploaded`, CURLINFO_SIZE_UPLOAD_T: none means no body went, whatever
  /// the request held) and the request the engine gave curl (its body's bytes, its secrets).
  init(rawHead: [UInt8], truncated: Bool, count: Int, request: Request, uploaded: Int64) {
    var end = rawHead.count
    while end > 0, rawHead[end - 1] == 0x0A || rawHead[end - 1] == 0x0D { end -= 1 }
    let redaction = Redaction(secrets: request.secrets)
    let text = String(decoding: rawHead[0..<end], as: UTF8.self)
    head = request.secrets.isEmpty ? text : redaction.apply(text)
    headTruncated = truncated
    self.count = count
    body = .none
    guard uploaded > 0 else { return }
    body = SentBody(request.body, uploaded: uploaded, redaction: request.secrets.isEmpty ? nil : redaction)
  }
}

/// The body of a sent request, as far as it is worth keeping: the bytes of an in-memory body (up
/// to `SentRequest.bodyLimit`), or what a streamed body read (files are described, not copied).
public enum SentBody: Sendable, Equatable {
  case none
  /// The first bytes (secrets masked when the body is text) and the size of the whole body.
  case bytes([UInt8], total: Int)
  /// A file body: its path and size when it was sent.
  case file(path: String, size: Int64)
  /// A multipart body's parts (text values masked; file parts by path).
  case multipart([MultipartPart])

  /// `body` as curl sent it: `uploaded` bytes of it (its first ones, of an in-memory body).
  init(_ body: RequestBody, uploaded: Int64, redaction: Redaction?) {
    if let stream = body.stream {
      switch stream {
      case .file(let path):
        var info = stat()
        self = .file(path: path, size: stat(path, &info) == 0 ? Int64(info.st_size) : 0)
      case .multipart(let parts):
        guard let redaction else {
          self = .multipart(parts)
          return
        }
        self = .multipart(parts.map { part in
          var masked = part
          masked.value = part.value.map(redaction.apply)
          return masked
        })
      }
      return
    }
    let sent = Int(min(uploaded, Int64(body.bytes.count)))
    guard sent > 0 else {
      self = .none
      return
    }
    var kept = Array(body.bytes.prefix(min(sent, SentRequest.bodyLimit)))
    if let redaction, let text = String(validating: kept, as: UTF8.self) {
      kept = Array(redaction.apply(text).utf8)
    }
    self = .bytes(kept, total: Int(uploaded))
  }
}

/// Collects the heads curl sends on one transfer (engine thread, from the debug function).
struct SentHeads {
  private(set) var raw: [UInt8] = []
  private(set) var truncated = false
  private(set) var count = 0
  /// The current head ended (its blank line arrived): the next bytes begin another request.
  private var complete = true
  /// The last four bytes handed over, to see the blank line that ends a head.
  private var lastBytes: UInt32 = 0

  mutating func append(_ bytes: UnsafeRawBufferPointer) {
    if complete {
      raw.removeAll(keepingCapacity: true)
      truncated = false
      count += 1
      complete = false
    }
    let room = SentRequest.headLimit - raw.count
    if bytes.count > room {
      raw.append(contentsOf: bytes.prefix(max(0, room)))
      truncated = true
    } else {
      raw.append(contentsOf: bytes)
    }
    // curl hands over a whole head at once; a head that came in pieces ends at its blank line.
    for byte in bytes.suffix(4) { lastBytes = lastBytes << 8 | UInt32(byte) }
    complete = lastBytes == 0x0D0A_0D0A || lastBytes & 0xFFFF == 0x0A0A
  }

  func sent(for request: Request, uploaded: Int64) -> SentRequest? {
    guard count > 0 else { return nil }
    return SentRequest(rawHead: raw, truncated: truncated, count: count, request: request, uploaded: uploaded)
  }
}
