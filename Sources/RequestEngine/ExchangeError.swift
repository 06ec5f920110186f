/// Why a transfer failed below HTTP, from curl's error code (ENGINE.md's table).
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
    case .other(let code, let message): "\(message) (curl error \(code))"
    }
  }

  public var isRetryable: Bool {
    switch self {
    case .cannotResolveHost, .cannotConnect, .timedOut, .tlsHandshakeFailed, .connectionLost: true
    case .certificateNotTrusted, .publicKeyNotPinned, .tooManyRedirects, .cannotWriteFile, .other: false
    }
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
