import CommandLineSupport
import Foundation
import RequestEngine
import Sessions
import Synchronization
import Workbench
import Workspace

/// Opening a URL in the user's browser: `xdg-open URL` (found on `PATH`), only when there is a
/// display (`DISPLAY` or `WAYLAND_DISPLAY`), its output dropped (it never reaches the terminal).
/// The one opener of `auth`, `run`, `flow` and the TUI.
enum Browser {
  static func open(_ url: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> BrowserOpening {
    guard !(environment["DISPLAY"] ?? "").isEmpty || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty else {
      return .noDisplay
    }
    let opener = Process()
    opener.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    opener.arguments = ["xdg-open", url]
    opener.standardInput = FileHandle.nullDevice
    opener.standardOutput = FileHandle.nullDevice
    opener.standardError = FileHandle.nullDevice
    do {
      try opener.run()
    } catch {
      return .failed("\(error.localizedDescription)")
    }
    return .opened
  }
}

/// The interactive OAuth 2.0 grants of the TUI (`OAuth2Tokens.interactive`): each runs as `run`
/// and `auth` run it, but says what to show through the inbox (`Msg.authorization`) instead of
/// stderr, and can be cancelled from the box (`Command.cancelAuthorization`). Its `done` runs
/// once: a grant cancelled here ends at once, and what it says later is dropped.
final class TUIAuthorizations: Sendable {
  private typealias Grant = (
    client: OAuth2Client, cancellation: OAuth2Cancellation, done: @Sendable (Result<OAuth2Token, ExchangeError>) -> Void
  )
  private let inbox: MessageInbox
  /// The grants going on, by id, and the last id given.
  private let state = Mutex<(lastID: Int, running: [Int: Grant])>((0, [:]))

  init(inbox: MessageInbox) { self.inbox = inbox }

  /// Runs `client`'s grant (authorizationCode or deviceCode).
  func run(
    _ client: OAuth2Client, send: @escaping Authorizer.Send,
    done: @escaping @Sendable (Result<OAuth2Token, ExchangeError>) -> Void
  ) {
    let cancellation = OAuth2Cancellation()
    let id = state.withLock {
      $0.lastID += 1
      $0.running[$0.lastID] = (client, cancellation, done)
      return $0.lastID
    }
    let inbox = self.inbox
    let finish: @Sendable (Result<OAuth2Token, ExchangeError>) -> Void = { [self] result in
      guard let entry = state.withLock({ $0.running.removeValue(forKey: id) }) else { return }
      inbox.post(.authorization(.ended(id: id, error: result.failureMessage)))
      entry.done(result)
    }
    switch client.grant {
    case .authorizationCode:
      OAuth2AuthorizationCode.run(
        client, cancellation: cancellation,
        open: { url in
          let deadline = Date().addingTimeInterval(OAuth2AuthorizationCode.defaultTimeout)
          inbox.post(.authorization(.started(PendingAuthorization(id: id, label: client.label, step: .browser(url: url), deadline: deadline))))
        }, send: send, done: finish)
    case .deviceCode:
      OAuth2DeviceCode.run(
        client, cancellation: cancellation,
        show: { code in
          let step = AuthorizationStep.device(
            userCode: code.userCode, verificationURL: code.verificationURI, completeURL: code.verificationURIComplete)
          let deadline = Date().addingTimeInterval(code.expiresIn)
          inbox.post(.authorization(.started(PendingAuthorization(id: id, label: client.label, step: step, deadline: deadline))))
        }, send: send, done: finish)
    case .clientCredentials, .password:
      finish(.failure(ExchangeError(kind: .authorization, message: "\(client.label): not an interactive grant")))
    }
  }

  /// The user cancelled grant `id`: its request fails now, the grant stops.
  func cancel(_ id: Int) {
    guard let entry = state.withLock({ $0.running.removeValue(forKey: id) }) else { return }
    entry.cancellation.cancel()
    entry.done(.failure(OAuth2Cancellation.error(entry.client)))
  }

  /// Quitting: every grant stops (the listeners close).
  func cancelAll() {
    let ids = state.withLock { Array($0.running.keys) }
    for id in ids { cancel(id) }
  }
}

extension Result where Failure == ExchangeError {
  /// The error's message, nil on success.
  var failureMessage: String? {
    if case .failure(let error) = self { return error.message }
    return nil
  }
}
