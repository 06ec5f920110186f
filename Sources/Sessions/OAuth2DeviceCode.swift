import Base
import Foundation
import RequestEngine
import Workspace

/// The device authorization grant (RFC 8628): ask the device endpoint for a user code, show it
/// with the verification URL (`show`), then poll the token endpoint as the server says: every
/// `interval` seconds (5 when it does not say), 5 s more after each `slow_down`, until a token,
/// `access_denied`, `expired_token` or the code's `expires_in`.
public enum OAuth2DeviceCode {
  /// What the device endpoint answered (§3.2).
  public struct Authorization: Sendable, Equatable {
    public var deviceCode: String
    public var userCode: String
    public var verificationURI: String
    public var verificationURIComplete: String?
    public var expiresIn: Double
    public var interval: Double
  }

  /// Runs the grant; `cancellation` stops the polling (checked before each poll, `done` then
  /// gets `cancelled`).
  public static func run(
    _ client: OAuth2Client, cancellation: OAuth2Cancellation? = nil, show: @escaping @Sendable (Authorization) -> Void, send: @escaping Authorizer.Send,
    done: @escaping @Sendable (Result<OAuth2Token, ExchangeError>) -> Void
  ) {
    guard case .deviceCode(let deviceURL) = client.grant else { return }
    @Sendable func fail(_ message: String) {
      done(.failure(ExchangeError(kind: .authorization, message: "\(client.label): " + message)))
    }
    var fields: [(String, String)] = []
    if let scope = client.scope, !scope.isEmpty { fields.append(("scope", scope)) }
    if let audience = client.audience, !audience.isEmpty { fields.append(("audience", audience)) }
    send(client.post(fields, to: deviceURL, step: "device")) { result in
      let response: Response
      let object: JSONObject?
      switch client.answer(of: result, step: "device", endpoint: "device endpoint") {
      case .failure(let error):
        done(.failure(error))
        return
      case .success(let answer): (response, object) = answer
      }
      guard (200...299).contains(response.status), let object, let deviceCode = object["device_code"]?.stringValue,
        let userCode = object["user_code"]?.stringValue, let uri = object["verification_uri"]?.stringValue
      else {
        let code = object?["error"]?.stringValue.map { ": " + ControlEscaping.visible(String($0.prefix(100))) } ?? ""
        fail("device: the device endpoint answered \(response.status)\(code)")
        return
      }
      let authorization = Authorization(
        deviceCode: deviceCode, userCode: userCode, verificationURI: uri,
        verificationURIComplete: object["verification_uri_complete"]?.stringValue,
        expiresIn: min(max(object["expires_in"]?.doubleValue ?? 600, 1), 3600),
        interval: min(max(object["interval"]?.doubleValue ?? 5, 0), 60))
      show(authorization)
      poll(client, authorization, deadline: Date().addingTimeInterval(authorization.expiresIn),
        interval: authorization.interval, cancellation: cancellation, send: send, done: done)
    }
  }

  /// One poll after `interval` seconds, then the next as the answer says (§3.4, §3.5).
  static func poll(
    _ client: OAuth2Client, _ authorization: Authorization, deadline: Date, interval: Double,
    cancellation: OAuth2Cancellation?,
    send: @escaping Authorizer.Send, done: @escaping @Sendable (Result<OAuth2Token, ExchangeError>) -> Void
  ) {
    WorkerThread.detached(name: "rb-device-poll") {
      Thread.sleep(forTimeInterval: interval)
      if cancellation?.isCancelled == true {
        done(.failure(OAuth2Cancellation.error(client)))
        return
      }
      guard Date() < deadline else {
        done(.failure(ExchangeError(
          kind: .authorization, message: "\(client.label): device: the user code expired before it was approved")))
        return
      }
      var request = client.post(
        [("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", authorization.deviceCode)],
        step: "token")
      request.secrets.append(authorization.deviceCode)
      send(request) { result in
        // A poll that did not get an answer of the endpoint's own (no answer, a redirect, one
        // too big) ends the grant as any token request does.
        let error = (try? client.answer(of: result, step: "token").get())?.object?["error"]?.stringValue
        switch error {
        case "authorization_pending":
          poll(client, authorization, deadline: deadline, interval: interval, cancellation: cancellation, send: send, done: done)
        case "slow_down":
          poll(
            client, authorization, deadline: deadline, interval: interval + 5, cancellation: cancellation, send: send,
            done: done)
        default:
          done(client.token(from: result, step: "token"))
        }
      }
    }
  }
}
