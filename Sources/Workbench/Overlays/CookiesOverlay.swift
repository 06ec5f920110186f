import Base
import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// `K`: the cookie jar of the environment in use (`CookieJars`, the one sends use): domain,
/// name, value (`••••` until `r` shows them), path and expiry. `d` deletes the highlighted
/// cookie, `D` twice clears the jar. The jar is read and edited by the runtime
/// (`Command.loadCookies`, `.removeCookie`, `.clearCookies`), which answers with what the jar
/// holds then (`Msg.cookiesLoaded`).
public struct CookiesOverlayState: Sendable, Equatable, OverlayList {
  public var selection = 0
  public var scroll = 0
  /// What the jar held when the runtime last read it; nil while it is being read.
  public var cookies: [Cookie]?
  /// The environment whose jar is shown (nil: none selected).
  public var environment: String?
  /// The values are shown (`r`); masked otherwise.
  public var revealed = false
  /// `D` was pressed once: a second `D` clears the jar, any other key keeps it.
  public var confirmingClear = false
  public init() {}
}

extension AppState {
  mutating func openCookiesOverlay() -> [Command] {
    var overlay = CookiesOverlayState()
    overlay.environment = environmentInUse
    open(overlay)
    return [.loadCookies(environment: environmentInUse)]
  }

  /// An exchange sent with a jar ended while the box is open: the jar is read again (a
  /// `Set-Cookie` on it or on a redirect hop may have changed it), the selection and `r` kept.
  func cookiesAfter(_ event: AgentEvent) -> [Command] {
    guard overlay == .cookies, case .finished(let result) = event, result.request.cookieJar != nil else { return [] }
    return [.loadCookies(environment: cookiesOverlay.environment)]
  }

  /// The runtime read (or changed) the jar of `environment`.
  mutating func cookiesLoaded(environment: String?, _ cookies: [Cookie]) {
    guard overlay == .cookies, environment == cookiesOverlay.environment else { return }
    cookiesOverlay.cookies = cookies
    cookiesOverlay.clamp(count: cookies.count, rows: cookieListRows)
  }

  mutating func handleCookiesOverlayKey(_ key: Key) -> [Command] {
    let action = Keymap.action(for: key, in: .cookies)
    let confirming = cookiesOverlay.confirmingClear
    cookiesOverlay.confirmingClear = false
    let cookies = cookiesOverlay.cookies ?? []
    if confirming, action != .clearCookies { message = StatusMessage("the cookies stay") }
    switch action {
    case .down?, .up?, .pageDown?, .pageUp?, .first?, .last?:
      if let action { _ = cookiesOverlay.move(action, count: cookies.count, rows: cookieListRows) }
    case .revealValues?:
      cookiesOverlay.revealed.toggle()
    case .deleteCookie?:
      guard cookies.indices.contains(cookiesOverlay.selection) else {
        message = StatusMessage("no cookie to delete")
        return []
      }
      let cookie = cookies[cookiesOverlay.selection]
      message = StatusMessage("deleted the cookie \(cookie.name) of \(cookie.host)")
      return [.removeCookie(environment: cookiesOverlay.environment, cookie)]
    case .clearCookies?:
      guard !cookies.isEmpty else {
        message = StatusMessage("the jar is empty")
        return []
      }
      guard confirming else {
        cookiesOverlay.confirmingClear = true
        message = StatusMessage("clear all \(cookies.count) cookies of \(jarLabel)? D again clears, any other key keeps them")
        return []
      }
      message = StatusMessage("cleared \(cookies.count) cookie\(cookies.count == 1 ? "" : "s") of \(jarLabel)")
      return [.clearCookies(environment: cookiesOverlay.environment)]
    case .closeOverlay?:
      closeOverlay()
    default:
      break
    }
    return []
  }

  /// `environment dev`, `the workspace (no environment)`.
  var jarLabel: String { cookiesOverlay.environment.map { "environment \($0)" } ?? "the workspace (no environment)" }

  var cookiesOverlayBox: OverlayBox {
    OverlayBox(screenWidth: width, screenHeight: height, margin: (4, 3), minimum: (40, 8))
  }

  /// Rows of cookies the overlay shows (below its heading line, above its keys).
  var cookieListRows: Int { cookiesOverlayBox.listRows }
}

extension Painter {
  func cookiesOverlay(_ buffer: inout ScreenBuffer) {
    let rect = state.cookiesOverlayBox.rect
    let overlay = state.cookiesOverlay
    buffer.fill(rect)
    buffer.box(rect, title: "Cookies · \(state.jarLabel)", style: theme.focusedBorder, titleStyle: theme.focusedBorder)
    let inner = rect.inset(by: 1)
    let width = inner.width - 2
    let x = inner.x + 1
    guard let cookies = overlay.cookies else {
      buffer.putTruncated("reading the jar…", x: x, y: inner.y, style: theme.dim, width: width)
      return
    }
    let now = state.now ?? Date()
    let domains = cookies.map { ControlEscaping.visible(($0.includeSubdomains ? "." : "") + $0.host) }
    let names = cookies.map { ControlEscaping.visible($0.name) }
    let values = cookies.map { overlay.revealed ? ControlEscaping.visible($0.value) : Redaction.mask }
    let paths = cookies.map { ControlEscaping.visible($0.path) }
    let expiries = cookies.map { Self.cookieExpiry($0, now: now) }
    func column(_ cells: [String], heading: String, most: Int) -> Int {
      min(most, max(TextWidth.of(heading), cells.map(TextWidth.of).max() ?? 0) + 2)
    }
    let domainWidth = column(domains, heading: "DOMAIN", most: 30)
    let nameWidth = column(names, heading: "NAME", most: 24)
    let pathWidth = column(paths, heading: "PATH", most: 16)
    let expiryWidth = column(expiries, heading: "EXPIRES", most: 22)
    // The values as wide as the longest (shown) one, the rest of the row at most.
    let valueWidth = max(8, min(width - domainWidth - nameWidth - pathWidth - expiryWidth, column(values, heading: "VALUE", most: width)))
    let heading =
      TextWidth.pad("DOMAIN", to: domainWidth) + TextWidth.pad("NAME", to: nameWidth)
      + TextWidth.pad("VALUE", to: valueWidth) + TextWidth.pad("PATH", to: pathWidth) + "EXPIRES"
    buffer.putTruncated(heading, x: x, y: inner.y, style: theme.dim, width: width)
    if cookies.isEmpty {
      let why =
        !state.workspace.cookies
        ? "cookies are off for this workspace (\"cookies\": false)"
        : state.sources.cookies == nil ? "cookies are off (--no-cookies)" : "no cookies: a response's Set-Cookie lands here"
      buffer.putTruncated(why, x: x, y: inner.y + 2, style: theme.dim, width: width)
    }
    for row in 0..<state.cookieListRows {
      let index = overlay.scroll + row
      guard cookies.indices.contains(index) else { break }
      let y = inner.y + 1 + row
      var column = x
      for (text, cellWidth, style) in [
        (domains[index], domainWidth, theme.dim), (names[index], nameWidth, theme.key), (values[index], valueWidth, Style.plain),
        (paths[index], pathWidth, theme.dim), (expiries[index], expiryWidth, theme.dim),
      ] {
        buffer.putTruncated(text, x: column, y: y, style: style, width: max(1, min(cellWidth - 1, inner.x + inner.width - 1 - column)))
        column += cellWidth
        if column >= inner.x + inner.width - 1 { break }
      }
      if index == overlay.selection { highlight(&buffer, Rect(x: inner.x, y: y, width: inner.width, height: 1), focused: true) }
    }
    buffer.putTruncated(
      overlay.footer(in: state).text,
      x: x, y: inner.y + inner.height - 1, style: theme.dim, width: width)
  }

  /// `session`, or how long until it expires (`expired` once it has, `far future` past 9999).
  static func cookieExpiry(_ cookie: Cookie, now: Date) -> String {
    Formatting.cookieExpiry(cookie.expires, now: now)
  }
}

extension CookiesOverlayState: Overlay {
  static let id = OverlayID.cookies
  static var openedBy: Action? { .showCookies }
  static func open(_ app: inout AppState) -> [Command] { app.openCookiesOverlay() }
  func keyContext(in app: AppState) -> KeyContext { .cookies }
  static func update(_ key: Key, _ app: inout AppState) -> [Command] { app.handleCookiesOverlayKey(key) }
  func view(_ painter: Painter, _ buffer: inout ScreenBuffer) { painter.cookiesOverlay(&buffer) }

  func footer(in app: AppState) -> Footer {
    var footer = Footer()
    if let cookies { footer.text("\(cookies.count) cookie\(cookies.count == 1 ? "" : "s")") }
    footer.key(.deleteCookie, in: .cookies, "delete")
    footer.key(.clearCookies, in: .cookies, "clear all")
    footer.key(.revealValues, in: .cookies, (revealed ? "hide" : "show") + " values")
    footer.key(.closeOverlay, in: .cookies, "close")
    return footer
  }
}

extension OverlayID { public static let cookies = OverlayID("cookies") }

extension AppState {
  /// The cookie overlay's state (a fresh one while it is closed).
  public internal(set) var cookiesOverlay: CookiesOverlayState {
    get { self[overlay: CookiesOverlayState()] } set { self[overlay: CookiesOverlayState()] = newValue }
  }
}
