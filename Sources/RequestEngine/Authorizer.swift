/// Supplies a request's `Authorization` header when the engine is about to send it, and a new one
/// when the server refuses the one sent with a 401 (once per exchange): how OAuth 2.0 bearer
/// tokens reach requests (`Workspace/OAuth2/OAuth2Tokens.swift` makes these). The design of
/// Alamofire's `AuthenticationInterceptor`: the exchange waits (queued, nothing on the wire)
/// while the authorizer gets its credential, which it may fetch through the same agent as an
/// exchange of its own; every request that waits for the same token waits for one fetch.
///
/// The engine calls `authorize` on its own thread; it must not block: it calls `done` once, on any
/// thread, now or later. `rejected` is the header value the server answered 401 to (nil for the
/// first attempt): the authorizer renews it (refresh, or a new fetch) instead of handing it back.
/// `send` sends a request through the same agent (the token request, shown as an exchange of
/// its own) and calls back with its result on the engine thread.
public final class Authorizer: @unchecked Sendable, Equatable {
  /// What `done` receives: the `Authorization` header value (`Bearer …`) and the secrets it
  /// carries (masked wherever the request is shown), or the error that ends the exchange.
  public typealias Outcome = Result<Authorization, ExchangeError>
  public typealias Send = @Sendable (Request, @escaping @Sendable (ExchangeResult) -> Void) -> Void
  public typealias Authorize = @Sendable (
    _ rejected: String?, _ send: @escaping Send, _ done: @escaping @Sendable (Outcome) -> Void
  ) -> Void

  /// Names the credential in errors and events (`oauth2 › users/get`).
  public let label: String
  /// Who the credential is: two requests whose authorizers have the same identity are sent as
  /// the same user (an OAuth 2.0 block's token URL, client, user, scope and audience), and only
  /// those may share a transfer (`ExchangeIdentity`) or a cached response (`CacheKey`). Never the
  /// credential itself. Without one given, each authorizer is an identity of its own.
  public let identity: String
  /// What the authorizer was made from (an `OAuth2Client`), for a caller that asks it directly
  /// (`reqbench auth`).
  public let context: (any Sendable)?
  private let authorizeBody: Authorize

  public init(label: String, identity: String? = nil, context: (any Sendable)? = nil, authorize: @escaping Authorize) {
    self.label = label
    self.identity = identity ?? "unique " + (0..<2).map { _ in String(UInt64.random(in: .min ... .max), radix: 16) }.joined()
    self.context = context
    self.authorizeBody = authorize
  }

  public func authorize(rejected: String?, send: @escaping Send, done: @escaping @Sendable (Outcome) -> Void) {
    authorizeBody(rejected, send, done)
  }

  public static func == (a: Authorizer, b: Authorizer) -> Bool { a === b }
}

/// An `Authorization` header value and the secrets in it (the token).
public struct Authorization: Sendable, Equatable {
  public var header: String
  public var secrets: [String]

  public init(header: String, secrets: [String]) {
    self.header = header
    self.secrets = secrets
  }
}

extension ExchangeResult {
  /// This result with the string values of the response's top-level JSON `fields` masked in its
  /// body and added to its request's secrets (so every surface that masks them masks these too).
  /// A body that is not JSON in memory is replaced by a note: it cannot be shown safely.
  public func maskingResponseFields(_ fields: [String]) -> ExchangeResult {
    guard let response, !fields.isEmpty else { return self }
    var copy = self
    guard case .memory(let bytes) = response.body, let object = (try? JSONParser.parse(bytes))?.objectValue else {
      if response.body.count > 0 {
        copy.response?.body = .memory(Array("(not shown: this response may hold credentials)".utf8))
      }
      return copy
    }
    let values = fields.compactMap { object[$0]?.stringValue }.filter { !$0.isEmpty }
    guard !values.isEmpty else { return self }
    copy.request.secrets += values
    if let text = String(validating: bytes, as: UTF8.self) {
      copy.response?.body = .memory(Array(Redaction(secrets: values).apply(text).utf8))
    }
    return copy
  }
}
