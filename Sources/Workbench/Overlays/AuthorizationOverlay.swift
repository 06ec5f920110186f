import Base
import Foundation
import TerminalUI

/// The interactive OAuth 2.0 grants in the TUI: what the user must do for a token a send is
/// waiting for. The runtime runs the grant (the loopback listener, the device-code polling) and
/// says what to show (`AuthorizationEvent.started`); the box shows the authorization URL, or the
/// verification URL and the user code, with the keys to copy them (`y`, `Y`: OSC 52, as the copy
/// menu does), open the URL with `xdg-open` (`o`; an authorization URL is opened at once when
/// there is a display) or cancel (`c`, Esc). The request waits, queued, and goes once the token
/// arrives (`ended`); the token requests show in the queue as `oauth2 › NAME` exchanges.
public struct PendingAuthorization: Sendable, Equatable {
  /// The runtime's number for this grant (`Command.cancelAuthorization` names it).
  public var id: Int
  /// `oauth2 › NAME`: the token's request.
  public var label: String
  public var step: AuthorizationStep
  /// When the wait ends: the listener gives up, or the device code expires.
  public var deadline: Date
  /// What became of opening the URL with `xdg-open` (nil: not asked).
  public var browser: BrowserOpening?

  public init(id: Int, label: String, step: AuthorizationStep, deadline: Date, browser: BrowserOpening? = nil) {
    self.id = id
    self.label = label
    self.step = step
    self.deadline = deadline
    self.browser = browser
  }

  /// The URL the user opens: the authorization URL, or the verification URL (the complete one,
  /// with the code in it, when the server gave one).
  public var url: String {
    switch step {
    case .browser(let url): url
    case .device(_, let verificationURL, let completeURL): completeURL ?? verificationURL
    }
  }
}

/// What the user does for an interactive grant.
public enum AuthorizationStep: Sendable, Equatable {
  /// `authorizationCode`: open `url`, authorize; the redirect comes back to 127.0.0.1.
  case browser(url: String)
  /// `deviceCode`: open `verificationURL` anywhere and enter `userCode` (RFC 8628 §3.3).
  case device(userCode: String, verificationURL: String, completeURL: String?)
}

/// Opening a URL with `xdg-open`.
public enum BrowserOpening: Sendable, Equatable {
  /// Asked; not answered yet.
  case opening
  /// `xdg-open` was started.
  case opened
  /// No `DISPLAY` or `WAYLAND_DISPLAY`: nothing to open it on.
  case noDisplay
  /// `xdg-open` could not be started (its reason).
  case failed(String)
}

/// What the runtime says of an interactive grant.
public enum AuthorizationEvent: Sendable, Equatable {
  /// A grant needs the user: show this.
  case started(PendingAuthorization)
  /// The answer to `Command.openInBrowser`.
  case browser(id: Int, BrowserOpening)
  /// The grant ended: the token came (nil), or why not (its message, with the step that failed).
  case ended(id: Int, error: String?)
}

extension AppState {
  mutating func authorizationEvent(_ event: AuthorizationEvent) -> [Command] {
    switch event {
    case .started(var pending):
      authorizations.removeAll { $0.id == pending.id }
      var commands: [Command] = []
      if case .browser(let url) = pending.step {
        pending.browser = .opening
        commands.append(.openInBrowser(id: pending.id, url: url))
      }
      authorizations.append(pending)
      // In place of whatever was open: the send waits for the user.
      open(AuthorizationOverlay())
      return commands
    case .browser(let id, let opening):
      guard let index = authorizations.firstIndex(where: { $0.id == id }) else { return [] }
      authorizations[index].browser = opening
      return []
    case .ended(let id, let error):
      guard let index = authorizations.firstIndex(where: { $0.id == id }) else { return [] }
      let label = authorizations.remove(at: index).label
      if authorizations.isEmpty, overlay == .authorization { closeOverlay() }
      message = error.map { StatusMessage($0, isError: true) } ?? StatusMessage("\(label): authorized; the request goes on")
      return []
    }
  }

  mutating func handleAuthorizationKey(_ key: Key) -> [Command] {
    guard let pending = authorizations.first else {
      closeOverlay()
      return []
    }
    switch Keymap.action(for: key, in: .authorization) {
    case .copyAuthorizationURL?:
      message = StatusMessage("copied the URL of \(pending.label)")
      return [.copy(pending.url)]
    case .copyUserCode?:
      guard case .device(let code, _, _) = pending.step else {
        message = StatusMessage("no code to enter: this grant is authorized in a browser (y copies its URL)")
        return []
      }
      message = StatusMessage("copied the code of \(pending.label)")
      return [.copy(code)]
    case .openInBrowser?:
      authorizations[0].browser = .opening
      return [.openInBrowser(id: pending.id, url: pending.url)]
    case .cancelAuthorization?:
      authorizations.removeFirst()
      if authorizations.isEmpty { closeOverlay() }
      message = StatusMessage("\(pending.label): authorization cancelled, and the request waiting for it")
      return [.cancelAuthorization(id: pending.id)]
    default:
      return []
    }
  }
}

extension Painter {
  /// The box: what to open, the code, what became of `xdg-open`, the wait, the keys.
  func authorizationOverlay(_ buffer: inout ScreenBuffer) {
    guard let pending = state.authorizations.first else { return }
    let width = min(buffer.width - 4, 100)
    let textWidth = width - 6
    var lines: [(String, Style)] = []
    func wrapped(_ text: String, _ style: Style) {
      for line in Self.wrap(ControlEscaping.visible(text), width: textWidth) { lines.append((line, style)) }
    }
    let left = max(0, pending.deadline.timeIntervalSince(state.now ?? pending.deadline))
    let wait = state.now == nil ? "" : " · gives up in " + Self.minutesAndSeconds(left)
    switch pending.step {
    case .browser(let url):
      wrapped("Authorize in a browser: open this URL (y copies it).", .plain)
      lines.append(("", .plain))
      wrapped(url, .plain)
      lines.append(("", .plain))
      switch pending.browser {
      case .opened?: wrapped("opened with xdg-open", theme.dim)
      case .noDisplay?: wrapped("no display here (DISPLAY, WAYLAND_DISPLAY): open it in a browser", theme.dim)
      case .failed(let reason)?: wrapped("xdg-open failed: \(reason)", theme.error)
      case .opening?, nil: break
      }
      wrapped("waiting for the redirect to 127.0.0.1" + wait, theme.dim)
    case .device(let code, let verificationURL, let completeURL):
      wrapped("On any device, open this URL" + (completeURL == nil ? " (y copies it)" : ""), .plain)
      lines.append(("", .plain))
      wrapped(verificationURL, .plain)
      lines.append(("", .plain))
      wrapped("and enter the code (Y copies it):", .plain)
      wrapped(code, theme.key)
      if let completeURL {
        lines.append(("", .plain))
        wrapped("or open this one, with the code in it (y copies it):", theme.dim)
        wrapped(completeURL, theme.dim)
      }
      lines.append(("", .plain))
      if case .failed(let reason)? = pending.browser { wrapped("xdg-open failed: \(reason)", theme.error) }
      wrapped("waiting for the approval (polling the token endpoint)" + wait, theme.dim)
    }
    let keys = AuthorizationOverlay().footer(in: state).text
    let height = min(buffer.height - 2, lines.count + 5)
    let rect = Rect(x: (buffer.width - width) / 2, y: max(0, (buffer.height - height) / 2), width: width, height: height)
    buffer.fill(rect)
    let more = state.authorizations.count > 1 ? " (1 of \(state.authorizations.count))" : ""
    buffer.box(
      rect, title: "OAuth 2.0 · " + ControlEscaping.visible(pending.label) + more, style: theme.focusedBorder,
      titleStyle: theme.focusedBorder)
    // The keys line stays; what does not fit above it is cut from the bottom.
    for (i, (line, style)) in lines.prefix(max(0, height - 5)).enumerated() {
      buffer.putTruncated(line, x: rect.x + 3, y: rect.y + 2 + i, style: style, width: textWidth)
    }
    buffer.putTruncated(keys, x: rect.x + 3, y: rect.y + height - 2, style: theme.dim, width: textWidth)
  }

  /// `4 min 32 s`, `9 s`, with no-break spaces: the wrap keeps it on one line.
  static func minutesAndSeconds(_ seconds: Double) -> String {
    let whole = Int(saturating: seconds.rounded(.up))
    return (whole >= 60 ? "\(whole / 60) min \(whole % 60) s" : "\(whole) s").replacingOccurrences(of: " ", with: "\u{a0}")
  }

  /// `text` in lines of at most `width` columns: broken at spaces, and a word longer than a line
  /// (a URL) wherever the line ends.
  static func wrap(_ text: String, width: Int) -> [String] {
    guard width > 0 else { return [text] }
    var lines: [String] = []
    var line = ""
    var used = 0
    for word in text.split(separator: " ", omittingEmptySubsequences: false) {
      let wordWidth = TextWidth.of(String(word))
      if used > 0, used + 1 + wordWidth <= width {
        line += " " + word
        used += 1 + wordWidth
        continue
      }
      if used > 0 {
        lines.append(line)
        line = ""
        used = 0
      }
      for character in word {
        let w = TextWidth.of(String(character))
        if used + w > width, used > 0 {
          lines.append(line)
          line = ""
          used = 0
        }
        line.append(character)
        used += w
      }
    }
    if !line.isEmpty || lines.isEmpty { lines.append(line) }
    return lines
  }
}

/// The box of the first grant waiting (`AppState.authorizations`); it has no state of its own.
struct AuthorizationOverlay: Overlay {
  static let id = OverlayID.authorization
  func keyContext(in app: AppState) -> KeyContext { .authorization }
  static func update(_ key: Key, _ app: inout AppState) -> [Command] { app.handleAuthorizationKey(key) }
  func view(_ painter: Painter, _ buffer: inout ScreenBuffer) { painter.authorizationOverlay(&buffer) }

  func footer(in app: AppState) -> Footer {
    var footer = Footer()
    footer.key(.copyAuthorizationURL, in: .authorization, "copy the URL")
    if case .device? = app.authorizations.first?.step {
      footer.key(.copyUserCode, in: .authorization, "copy the code")
      footer.key(.openInBrowser, in: .authorization, "open it here")
    } else {
      footer.key(.openInBrowser, in: .authorization, "open it" + (app.authorizations.first?.browser == .opened ? " again" : ""))
    }
    footer.key(.cancelAuthorization, in: .authorization, "cancel")
    return footer
  }
}

extension OverlayID { public static let authorization = OverlayID("authorization") }
