import CCurl
import Foundation

/// Why a transfer failed below HTTP, from curl's error code (docs/engine-rules.md, "Transport
/// failures"). Every code has words of its own (`CurlCode.words`): a message never ends in a
/// bare "(curl error 27)".
public enum TransportFailure: Sendable, Equatable, Hashable {
  case cannotResolveHost
  case cannotConnect
  case timedOut
  case tlsHandshakeFailed
  case certificateNotTrusted
  /// The server's public key is not the pinned one (nothing was sent).
  case publicKeyNotPinned
  case connectionLost
  case tooManyRedirects
  case cannotWriteFile
  /// A response header line longer than curl accepts (100 KB): curl stopped reading.
  case responseHeaderTooLarge
  /// A redirect to a scheme other than http and https, refused (nothing was sent there).
  case redirectRefused
  /// The response body passed the request's `maxBodyMB`: the transfer was stopped.
  case bodyTooLarge
  /// Any other curl code: its words (`CurlCode.words`) and curl's own message, if it gave one.
  case other(code: Int, message: String)

  public init(curlCode: Int, message: String) {
    switch curlCode {
    case 5, 6: self = .cannotResolveHost
    case 7: self = .cannotConnect
    case 28: self = .timedOut
    case 35: self = .tlsHandshakeFailed
    case 60: self = .certificateNotTrusted
    case 90: self = .publicKeyNotPinned
    case 18, 52, 55, 56: self = .connectionLost
    case 47: self = .tooManyRedirects
    case 23: self = .cannotWriteFile
    default: self = .other(code: curlCode, message: message)
    }
  }

  public var summary: String {
    switch self {
    case .cannotResolveHost: "cannot resolve host"
    case .cannotConnect: "cannot connect"
    case .timedOut: "timed out"
    case .tlsHandshakeFailed: "TLS handshake failed"
    case .certificateNotTrusted: "certificate not trusted"
    case .publicKeyNotPinned: "the server's public key does not match the pinned key"
    case .connectionLost: "connection lost"
    case .tooManyRedirects: "too many redirects"
    case .cannotWriteFile: "cannot write file"
    case .responseHeaderTooLarge: "a response header line is longer than 100 KB (curl's limit); curl stopped reading the response"
    case .redirectRefused: "redirect refused"
    case .bodyTooLarge: "body too large"
    case .other(let code, let message):
      // curl's message adds what its words cannot (a host, a file); skip it when it says the same.
      CurlCode.words(code)
        + (message.isEmpty || message == CurlCode.curlText(code) ? "" : ": " + message)
        + " (curl error \(code))"
    }
  }

  public var isRetryable: Bool {
    switch self {
    case .cannotResolveHost, .cannotConnect, .timedOut, .tlsHandshakeFailed, .connectionLost: true
    case .certificateNotTrusted, .publicKeyNotPinned, .tooManyRedirects, .cannotWriteFile, .responseHeaderTooLarge,
      .redirectRefused, .bodyTooLarge, .other:
      false
    }
  }
}

/// Words for curl's error codes (CURLcode, libcurl-errors(3)), in the user's terms; the ones the
/// engine names itself (`TransportFailure`) have theirs there.
public enum CurlCode {
  /// What the code means, in a few words; never empty.
  public static func words(_ code: Int) -> String {
    switch code {
    case 0: "no error"
    case 1: "the URL's scheme is not supported (only http and https are)"
    case 2: "curl could not start the transfer"
    case 3: "the URL is malformed"
    case 4: "a feature this request needs is not built into libcurl"
    case 5: "cannot resolve the proxy's host"
    case 6: "cannot resolve host"
    case 7: "cannot connect"
    case 8: "the server's reply could not be parsed"
    case 9: "the server denied access"
    case 16: "HTTP/2 framing error"
    case 18: "the transfer ended before the whole body arrived"
    case 22: "the server returned an HTTP error"
    case 23: "cannot write the received data"
    case 25: "the upload failed"
    case 26: "cannot read the data to upload"
    case 27: "out of memory"
    case 28: "timed out"
    case 33: "the server does not support the requested range"
    case 34: "the POST failed"
    case 35: "TLS handshake failed"
    case 36: "the download cannot be resumed"
    case 37: "cannot read the file"
    case 42: "the transfer was stopped by reqbench"
    case 43: "curl was given a bad option value"
    case 45: "cannot use the network interface"
    case 47: "too many redirects"
    case 48: "curl does not know an option it was given"
    case 49: "curl was given a malformed option"
    case 52: "the server closed the connection without answering"
    case 53, 54, 66: "the TLS crypto engine cannot be used"
    case 55: "sending the request failed"
    case 56: "receiving the response failed"
    case 58: "the client certificate or key cannot be used"
    case 59: "the TLS cipher cannot be used"
    case 60: "certificate not trusted"
    case 61: "the response's content encoding is unknown or damaged"
    case 63: "the body is larger than the allowed size"
    case 65: "the request body cannot be sent again (it cannot be rewound)"
    case 67: "the login was refused"
    case 77: "cannot read the CA certificate file"
    case 80: "the TLS connection did not shut down cleanly"
    case 81: "the socket is not ready (try again)"
    case 82: "cannot read the certificate revocation list"
    case 83: "the certificate's issuer check failed"
    case 88: "a chunk callback failed"
    case 89: "no connection available"
    case 90: "the server's public key does not match the pinned key"
    case 91: "the certificate status is invalid"
    case 92: "HTTP/2 stream error"
    case 93: "libcurl was called from inside one of its callbacks"
    case 94: "an authentication step failed"
    case 95: "HTTP/3 error"
    case 96: "QUIC connection error"
    case 97: "the proxy handshake failed"
    case 98: "the server requires a client certificate"
    case 99: "waiting for the network failed"
    case 10...15, 17, 19, 21, 30, 31, 64, 84, 87: "FTP error"
    case 38, 39: "LDAP error"
    case 68...74: "TFTP error"
    case 78: "the remote file was not found"
    case 79: "SSH error"
    case 85, 86: "RTSP error"
    default: curlText(code).isEmpty ? "unknown curl error" : curlText(code)
    }
  }

  /// curl's own text for the code (curl_easy_strerror), lower-cased first letter as a clause.
  static func curlText(_ code: Int) -> String {
    guard let code = Int32(exactly: code), let text = curl_easy_strerror(CURLcode(UInt32(bitPattern: code))) else {
      return ""
    }
    return String(cString: text)
  }
}

/// Why an exchange did not succeed. The status, headers and body stay on the exchange's result.
public struct ExchangeError: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Kind: String, Sendable, Equatable {
    /// curl could not complete the transfer (see `transport`).
    case transport
    /// The status is outside the accepted range.
    case status
    /// The JSON shape validator failed (`path` names where).
    case validation
    /// The request could not be built (bad URL, bad template, bad option).
    case usage
    /// Cancelled by the user.
    case cancelled
    /// `cacheOnly` found no entry it may serve.
    case notCached
    /// Refused by the request's debounce window (`throttle`).
    case throttled
    /// The request's credential could not be had (an OAuth 2.0 token endpoint refused, or did
    /// not answer): nothing was sent.
    case authorization
  }

  public var kind: Kind
  public var message: String
  public var transport: TransportFailure?
  public var status: Int?
  /// The failing JSON path for validation errors.
  public var path: String?

  public init(
    kind: Kind, message: String, transport: TransportFailure? = nil, status: Int? = nil,
    path: String? = nil
  ) {
    self.kind = kind
    self.message = message
    self.transport = transport
    self.status = status
    self.path = path
  }

  public static func transport(_ failure: TransportFailure, detail: String? = nil) -> ExchangeError {
    var message = failure.summary
    if let detail, !detail.isEmpty, case .other = failure {} else if let detail, !detail.isEmpty {
      message += ": " + detail
    }
    return ExchangeError(kind: .transport, message: message, transport: failure)
  }

  public static func status(_ code: Int, accepted: Validation) -> ExchangeError {
    ExchangeError(
      kind: .status, message: "status \(code) is outside \(accepted.statusDescription)", status: code)
  }

  public static let cancelled = ExchangeError(kind: .cancelled, message: "cancelled")

  /// `body over 1024 MB: stopped; raise maxBodyMB or use download`.
  public static func bodyTooLarge(limit: Int64) -> ExchangeError {
    ExchangeError(
      kind: .transport, message: "body over \(megabytes(limit)) MB: stopped; raise maxBodyMB or use download",
      transport: .bodyTooLarge)
  }

  /// Bytes as the megabytes `maxBodyMB` is written in (1 MB = 1,048,576 bytes): `1024`, `0.5`.
  static func megabytes(_ bytes: Int64) -> String {
    let mb = Double(bytes) / 1_048_576
    if mb == mb.rounded() { return String(Int64(mb)) }
    return String(format: "%.2f", mb).replacingOccurrences(of: #"\.?0+$"#, with: "", options: .regularExpression)
  }

  public var description: String { message }

  /// This error with every secret in its message and JSON path replaced by `••••`. The agent
  /// applies it (with the request's secrets) to every error it reports, in `retrying` events and
  /// results, so what any surface prints of a failure (curl's message quoting a host name, a
  /// validator quoting a value) is masked already.
  public func redacted(by redaction: Redaction) -> ExchangeError {
    var copy = self
    copy.message = redaction.apply(message)
    copy.path = path.map(redaction.apply)
    if case .other(let code, let text) = transport {
      copy.transport = .other(code: code, message: redaction.apply(text))
    }
    return copy
  }
}
