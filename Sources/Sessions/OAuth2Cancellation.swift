import Foundation
import RequestEngine
import Workspace
import Synchronization

/// Stops an interactive grant the user gave up on (the TUI's `c` in the authorization box): the
/// redirect listener closes within a quarter of a second, the device code is polled no more.
/// The grant then calls its `done` with `cancelled` (`OAuth2Cancellation.error`), once.
///
/// ```swift
/// let cancellation = OAuth2Cancellation()
/// OAuth2AuthorizationCode.run(client, cancellation: cancellation, open: show, send: send, done: done)
/// cancellation.cancel()  // done(.failure(…authorize: cancelled…)) soon after
/// ```
public final class OAuth2Cancellation: Sendable {
  private let cancelled = Atomic(false)

  public init() {}

  public func cancel() { cancelled.store(true, ordering: .releasing) }

  public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

  /// What a cancelled grant ends with: `oauth2 › NAME: authorize: cancelled` (the request
  /// waiting for it ends cancelled).
  public static func error(_ client: OAuth2Client) -> ExchangeError {
    ExchangeError(kind: .cancelled, message: "\(client.label): authorize: cancelled")
  }
}
