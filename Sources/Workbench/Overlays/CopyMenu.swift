import Base
import Formats
import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// `y`: a small menu of what to copy to the terminal's clipboard (OSC 52, `Command.copy`): the
/// request as curl, as HTTPie, as `.http`, its URL, the request as it was sent (its request line and every
/// header curl wrote, as the `Request` tab shows them), the response body (or the jq output
/// shown), one of the response's headers. The status bar says what was copied and how many bytes.
///
/// The request is the one the response pane shows when it or the queue has the focus, else the
/// one selected in the list; it is prepared as a send would be (the environment in use, the
/// variables filled in), so the command, the URL and the `.http` text run elsewhere.
///
/// Secrets: the clipboard leaves reqbench (clipboard managers keep it, tmux keeps a buffer, an
/// ssh session hands it to another machine), so it is treated as an export: curl, HTTPie and the URL
/// have their secrets masked (`••••`) as `reqbench export curl` has; `.http` keeps
/// `{{secret.NAME}}` placeholders; the body and headers are copied as the viewer shows them
/// (a secret the server echoed masked), and the sent head as the `Request` tab shows it (the
/// engine recorded it with the request's secrets masked). Only the menu's own `curl, secrets included` entry puts
/// the secrets on the clipboard, and the status bar says so — as `--reveal-secrets` does.
public struct CopyMenuState: Sendable, Equatable, OverlayList {
  public var choices: [CopyChoice] = []
  public var selection = 0
  public var scroll = 0
  /// The request the request entries copy, by name.
  public var request: String?
  public init() {}
}

/// One entry of the copy menu.
public enum CopyChoice: Sendable, Equatable {
  case curl
  case curlWithSecrets
  /// An HTTPie command (secrets masked, as curl's).
  case httpie
  case http
  case url
  /// The request line and headers of what was sent for the response shown.
  case sentHead
  /// The response body shown, or the jq output when a filter is shown.
  case body(jqOutput: Bool)
  /// A response header (its value is what is copied).
  case header(name: String)

  /// The action of its letter key (`Keymap`), for the ones that have one.
  var action: Action? {
    switch self {
    case .curl: .copyCurl
    case .curlWithSecrets: .copyCurlWithSecrets
    case .httpie: .copyHTTPie
    case .http: .copyHTTP
    case .url: .copyURL
    case .sentHead: .copySentHead
    case .body: .copyBody
    case .header: nil
    }
  }
}

/// What the terminal's clipboard takes at most: OSC 52 goes through tmux and terminals as one
/// control string, which they cap (tmux at 1 MB of base64).
public let clipboardLimit = 512 << 10

extension AppState {
  /// The request the copy menu is about (see `CopyMenuState`).
  var copyRequestName: String? {
    if focus == .response || focus == .queue, let row = shownExchange {
      return viewer.history?.entry.name ?? row.name
    }
    return selectedRequest?.name
  }

  /// The response the body and header entries copy from: the one shown.
  private var copyResponse: (response: Response, row: ExchangeRow?)? {
    if let history = viewer.history, let response = history.result.response { return (response, nil) }
    guard let row = shownExchange, let response = row.result?.response else { return nil }
    return (response, row)
  }

  mutating func openCopyMenu() {
    var menu = CopyMenuState()
    menu.request = copyRequestName
    if menu.request != nil { menu.choices = [.curl, .curlWithSecrets, .httpie, .http, .url] }
    if copySentHead != nil { menu.choices.append(.sentHead) }
    if let (response, _) = copyResponse {
      menu.choices.append(.body(jqOutput: viewer.filteredText != nil))
      menu.choices += response.headers.fields.map { .header(name: $0.name) }
    } else if viewer.filteredText != nil {
      menu.choices.append(.body(jqOutput: true))
    }
    guard !menu.choices.isEmpty else {
      message = StatusMessage("nothing to copy: select a request or send one")
      return
    }
    open(menu)
  }

  var copyMenuBox: OverlayBox {
    OverlayBox(
      screenWidth: width, screenHeight: height, width: min(width - 4, 76),
      height: min(height - 2, copyMenu.choices.count + 5))
  }

  mutating func handleCopyMenuKey(_ key: Key) -> [Command] {
    guard let action = Keymap.action(for: key, in: .copyMenu) else { return [] }
    let choices = copyMenu.choices
    switch action {
    case .down, .up, .pageDown, .pageUp, .first, .last:
      _ = copyMenu.move(action, count: choices.count, rows: copyMenuBox.listRows)
      return []
    case .closeOverlay:
      closeOverlay()
      return []
    case .accept:
      guard choices.indices.contains(copyMenu.selection) else { return [] }
      return copy(choices[copyMenu.selection])
    default:
      guard let choice = choices.first(where: { $0.action == action }) else { return [] }
      return copy(choice)
    }
  }

  /// Copies a choice (closing the menu), or says why it cannot.
  mutating func copy(_ choice: CopyChoice) -> [Command] {
    let what = copyDescription(choice)
    let copied = copyText(choice)
    closeOverlay()
    let text: String
    switch copied {
    case .success(let copied): text = copied
    case .failure(let error):
      message = StatusMessage("not copied: \(error.message)", isError: true)
      return []
    }
    let bytes = text.utf8.count
    guard bytes <= clipboardLimit else {
      message = StatusMessage(
        "not copied: \(what) is \(Formatting.bytes(bytes)), more than a terminal's clipboard takes (\(Formatting.bytes(clipboardLimit)))"
          + (choice == .body(jqOutput: false) || choice == .body(jqOutput: true) ? "; w writes it to a file" : ""),
        isError: true)
      return []
    }
    message = StatusMessage("copied \(what): \(bytes) byte\(bytes == 1 ? "" : "s") on the clipboard")
    return [.copy(text)]
  }

  /// How the status bar names what was copied.
  func copyDescription(_ choice: CopyChoice) -> String {
    let name = copyMenu.request ?? "the request"
    switch choice {
    case .curl: return "\(name) as curl, secrets ••••"
    case .curlWithSecrets: return "\(name) as curl, secrets included"
    case .httpie: return "\(name) as HTTPie, secrets ••••"
    case .http: return "\(name) as .http"
    case .url: return "the URL of \(name)"
    case .sentHead: return "\(name) as sent (request line and headers)"
    case .body(let jq): return jq ? "the jq output" : "the response body"
    case .header(let header): return "the \(header) header's value"
    }
  }

  /// The text a choice copies.
  func copyText(_ choice: CopyChoice) -> Result<String, FilterError> {
    switch choice {
    case .curl, .curlWithSecrets, .httpie, .url:
      return preparedCopyRequest().map { request in
        switch choice {
        case .curl: CurlExporter.command(for: request)
        case .httpie: HTTPieExporter.command(for: request)
        case .curlWithSecrets: CurlExporter.command(for: request, revealSecrets: true)
        default: request.redacted().url
        }
      }
    case .http:
      guard let name = copyMenu.request, let template = workspace.request(named: name) else {
        return .failure(FilterError("\(copyMenu.request ?? "the request") is not in the workspace"))
      }
      do {
        return .success(try HTTPFileExporter.text(for: [template], in: workspace, environment: environmentInUse))
      } catch {
        return .failure(FilterError(error.message))
      }
    case .sentHead:
      guard let head = copySentHead else { return .failure(FilterError("nothing was sent for the response shown")) }
      return .success(head)
    case .body(let jq):
      if jq, let output = viewer.filteredText { return .success(output) }
      guard let (response, row) = copyResponse else { return .failure(FilterError("no response body")) }
      guard response.body.count > 0 else {
        let file = row?.result?.download.map { ": the download went to \($0.file)" } ?? ""
        return .failure(FilterError("the response has no body" + file))
      }
      // Too big is said before a spilled body is read into memory.
      guard response.body.count <= clipboardLimit else {
        return .failure(FilterError(
          "the body is \(Formatting.bytes(response.body.count)), more than a terminal's clipboard takes (\(Formatting.bytes(clipboardLimit))); w writes it to a file"))
      }
      let bytes: [UInt8]
      do {
        bytes = try response.body.bytes()
      } catch {
        return .failure(FilterError("cannot read the body: \(error)"))
      }
      guard let text = String(validating: bytes, as: UTF8.self) else {
        return .failure(FilterError("the body is not text (\(Formatting.bytes(bytes.count))); w writes it to a file"))
      }
      // As the viewer shows it: a secret the server echoed stays masked.
      return .success(row.flatMap(Painter.redaction)?.apply(text) ?? text)
    case .header(let name):
      guard let (response, row) = copyResponse, let value = response.headers[name] else {
        return .failure(FilterError("no \(name) header"))
      }
      // The clipboard is an export: a cookie's value is a secret there (`session=••••`).
      return .success(CookieMasking.masked(header: name, row.flatMap(Painter.redaction)?.apply(value) ?? value))
    }
  }

  /// The request line and headers sent for the response shown, one per line, as the `Request`
  /// tab shows them (masked the same way); nil when nothing was sent (not yet, from the cache).
  var copySentHead: String? {
    let lines: [SentLine]
    if let history = viewer.history {
      lines = Self.recordedLines(history)
    } else if let row = shownExchange, let sent = row.result?.sent {
      lines = Self.lines(sent).map { line in
        guard let redaction = Painter.redaction(row) else { return line }
        var masked = line
        masked.text = redaction.apply(line.text)
        return masked
      }
    } else {
      return nil
    }
    let head = lines.compactMap { line -> String? in
      switch line.kind {
      case .requestLine: line.text
      // The clipboard is an export: the cookies' values masked too (`Cookie: session=••••`).
      // `text` is `Name: value` with the request's secrets masked.
      case .header(let name, _): "\(name): " + CookieMasking.masked(header: name, String(line.text.dropFirst(name.count + 2)))
      case .body, .note: nil
      }
    }
    return head.isEmpty ? nil : head.joined(separator: "\n") + "\n"
  }

  /// The request prepared as a send would prepare it now; the exchange's own request when the
  /// workspace no longer has it.
  private func preparedCopyRequest() -> Result<Request, FilterError> {
    guard let name = copyMenu.request else { return .failure(FilterError("no request selected")) }
    guard let template = workspace.request(named: name) else {
      if let request = shownExchange?.result?.request, request.name == name { return .success(request) }
      return .failure(FilterError("\(name) is not in the workspace"))
    }
    do {
      return .success(try workspace.prepare(template, sources: sources))
    } catch {
      return .failure(FilterError(error.message))
    }
  }
}

extension Painter {
  func copyMenu(_ buffer: inout ScreenBuffer) {
    let menu = state.copyMenu
    let box = state.copyMenuBox
    let rect = box.rect
    buffer.fill(rect)
    buffer.box(
      rect, title: "Copy" + (menu.request.map { " · \($0)" } ?? ""), style: theme.focusedBorder,
      titleStyle: theme.focusedBorder)
    let inner = rect.inset(by: 1)
    buffer.putTruncated(
      "to the terminal's clipboard (OSC 52); secrets masked unless said", x: inner.x + 1, y: inner.y, style: theme.dim,
      width: inner.width - 2)
    let rows = box.listRows
    for row in 0..<rows {
      let index = menu.scroll + row
      guard menu.choices.indices.contains(index) else { break }
      let choice = menu.choices[index]
      let y = inner.y + 2 + row
      let key = choice.action.flatMap { Keymap.binding($0, in: .copyMenu)?.keyText } ?? ""
      buffer.put(TextWidth.pad(key, to: 3), x: inner.x + 1, y: y, style: theme.key)
      buffer.putTruncated(Self.copyLabel(choice, state), x: inner.x + 4, y: y, width: inner.width - 5)
      if index == menu.selection { highlight(&buffer, Rect(x: inner.x, y: y, width: inner.width, height: 1), focused: true) }
    }
    buffer.putTruncated(
      menu.footer(in: state).text, x: inner.x + 1, y: inner.y + inner.height - 1,
      style: theme.dim, width: inner.width - 2)
  }

  static func copyLabel(_ choice: CopyChoice, _ state: AppState) -> String {
    switch choice {
    case .curl: return "the request as curl (secrets ••••)"
    case .curlWithSecrets: return "the request as curl, secrets included"
    case .httpie: return "the request as HTTPie (secrets ••••)"
    case .http: return "the request as .http (secrets stay {{secret.NAME}})"
    case .url: return "the URL, resolved"
    case .sentHead:
      let count = (state.copySentHead?.split(separator: "\n").count ?? 1) - 1
      return "the request as sent: its request line and \(count) header\(count == 1 ? "" : "s")"
    case .body(let jq): return jq ? "the jq output shown" : "the response body"
    case .header(let name):
      let value = state.copyText(choice)
      return "header \(name): " + ControlEscaping.visible((try? value.get()) ?? "")
    }
  }
}

extension CopyMenuState: Overlay {
  static let id = OverlayID.copyMenu
  static var openedBy: Action? { .copy }

  static func open(_ app: inout AppState) -> [Command] {
    app.openCopyMenu()
    return []
  }

  func keyContext(in app: AppState) -> KeyContext { .copyMenu }
  static func update(_ key: Key, _ app: inout AppState) -> [Command] { app.handleCopyMenuKey(key) }
  func view(_ painter: Painter, _ buffer: inout ScreenBuffer) { painter.copyMenu(&buffer) }

  func footer(in app: AppState) -> Footer {
    var footer = Footer()
    footer.keys([(.down, .char("j")), (.up, .char("k"))], in: .copyMenu, joiner: " ", "select")
    footer.key(.accept, in: .copyMenu, "or the letter copies")
    footer.key(.closeOverlay, in: .copyMenu, "close")
    return footer
  }
}

extension OverlayID { public static let copyMenu = OverlayID("copyMenu") }

extension AppState {
  /// The copy menu's state (an empty one while it is closed).
  public internal(set) var copyMenu: CopyMenuState {
    get { self[overlay: CopyMenuState()] } set { self[overlay: CopyMenuState()] = newValue }
  }
}
