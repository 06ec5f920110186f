import Base
import Foundation
import History
import RequestEngine
import TerminalUI
import Workspace

/// `H`: the history of every request in a box over the panes, newest first, filtered as you
/// type (the words of `reqbench history --search`: name, method, URL, status, error, response
/// headers). Enter shows the exchange in the response pane (where `[` and `]` go on from it);
/// Tab goes to the list, where `s` sends it again as recorded and `o` copies it into the
/// workspace as a new request. The runtime runs the searches in the background; only the answer
/// to the latest one is shown.
public struct HistoryOverlayState: Sendable, Equatable, OverlayList {
  public var filter = LineEdit("")
  /// Typing goes to the filter (true) or keys act on the list (false).
  public var typing = true
  public var selection = 0
  public var scroll = 0
  public var entries: [HistoryEntry] = []
  /// Damaged rows the last search skipped.
  public var damaged = 0
  /// The id of the latest search asked for, and whether its answer has come.
  var search = 0
  public var searching = false
  public var error: String?

  public init() {}
}

/// What to do with a history entry once its bodies are read.
enum HistoryOpening: Sendable, Equatable {
  case show, resend, copy
}

extension AppState {
  /// The entries the overlay asks for at most.
  static let historyOverlayLimit = 500

  mutating func openHistoryOverlay() -> [Command] {
    open(HistoryOverlayState())
    return searchHistory()
  }

  /// Asks the runtime for the entries matching the filter.
  mutating func searchHistory() -> [Command] {
    historyOverlay.search += 1
    historyOverlay.searching = true
    var query = HistoryQuery(text: historyOverlay.filter.text, limit: Self.historyOverlayLimit)
    query.requests = .all
    return [.searchHistory(query, id: historyOverlay.search)]
  }

  /// The runtime's answer to `searchHistory`: the latest one only.
  mutating func historyFound(id: Int, _ results: HistoryResults, error: String?) {
    guard overlay == .history, id == historyOverlay.search else { return }
    historyOverlay.searching = false
    historyOverlay.error = error
    historyOverlay.entries = results.entries
    historyOverlay.damaged = results.damaged
    historyOverlay.clamp(count: results.entries.count, rows: historyRows)
  }

  var historyOverlayContext: KeyContext { historyOverlay.typing ? .historyFilter : .historyList }

  mutating func handleHistoryOverlayKey(_ key: Key) -> [Command] {
    let context = historyOverlayContext
    guard let action = Keymap.action(for: key, in: context) else {
      // Typing: characters and the line-editing keys change the filter, and search again.
      guard historyOverlay.typing else { return [] }
      let before = historyOverlay.filter.text
      guard historyOverlay.filter.apply(key) else { return [] }
      guard historyOverlay.filter.text != before else { return [] }
      historyOverlay.selection = 0
      historyOverlay.scroll = 0
      return searchHistory()
    }
    switch action {
    case .down, .up, .pageDown, .pageUp, .first, .last:
      _ = historyOverlay.move(action, count: historyOverlay.entries.count, rows: historyRows)
      return []
    case .switchHistoryMode:
      historyOverlay.typing.toggle()
      return []
    case .back:
      if historyOverlay.typing && !historyOverlay.filter.text.isEmpty {
        historyOverlay.filter = LineEdit("")
        return searchHistory()
      }
      closeOverlay()
      return []
    case .view: return open(.show)
    case .resend: return open(.resend)
    case .openAsRequest: return open(.copy)
    default: return []
    }
  }

  /// Closes the overlay and asks for the selected entry's bodies; `historyShown` then shows it,
  /// sends it again or copies it.
  private mutating func open(_ opening: HistoryOpening) -> [Command] {
    let entries = historyOverlay.entries
    guard entries.indices.contains(historyOverlay.selection) else {
      message = StatusMessage(historyOverlay.searching ? "history: still searching" : "no history entry selected")
      return []
    }
    let entry = entries[historyOverlay.selection]
    closeOverlay()
    historyOpening = opening
    historyWanted = HistoryRequest(name: entry.name, position: -1)
    if opening == .show { focus = .response }
    return [.loadHistoryEntry(entry)]
  }

  /// After `historyShown` put the entry in the viewer: what the overlay asked for beyond it.
  mutating func followUp(_ opening: HistoryOpening, _ view: HistoryView) -> [Command] {
    switch opening {
    case .show: return []
    case .resend: return resend(view)
    case .copy:
      copyAsRequest(view)
      return []
    }
  }

  /// The recorded request as a new request of the workspace (unsaved), after the original, with
  /// its method, URL, headers and body (JSON when it parses, else text). A masked value (`••••`:
  /// a secret, a credential) is the workspace's own when its request still has that header (or
  /// URL): `Bearer {{secret.token}}`, or the token as written there. Others stay masked: the
  /// message says to fill them in.
  private mutating func copyAsRequest(_ view: HistoryView) {
    let entry = view.entry
    let name = workspace.uniqueName(entry.name)
    let original = workspace.request(named: entry.name)
    var headers = HTTPHeaders()
    for field in entry.requestHeaders.fields {
      let own = field.value.contains(Redaction.mask) ? original?.headers[field.name] : nil
      headers.add(field.name, own ?? field.value)
    }
    let url = entry.url.contains(Redaction.mask) ? original?.url ?? entry.url : entry.url
    var template = RequestTemplate(name: name, method: entry.method, url: url, headers: headers)
    if !view.requestBody.isEmpty || entry.requestContentType != nil {
      let type = entry.requestContentType
      if type?.contains("json") == true, let json = try? JSONParser.parse(view.requestBody) {
        template.body = .json(json)
      } else if let text = String(validating: view.requestBody, as: UTF8.self) {
        template.body = .text(text, contentType: type)
      } else {
        message = StatusMessage("not copied: the recorded body of \(entry.name) is not text", isError: true)
        return
      }
    }
    guard addNewRequest(template, placement: workspace.request(named: entry.name) == nil ? .inFolder : .after(entry.name))
    else { return }
    focus = .requests
    let masked = (template.url + template.headers.fields.map(\.value).joined()).contains(Redaction.mask)
    message = StatusMessage(
      "copied as \(name) (unsaved; Ctrl-S saves)" + (masked ? "; fill in the masked secrets (••••)" : ""))
  }

  var historyOverlayBox: OverlayBox {
    OverlayBox(screenWidth: width, screenHeight: height, margin: (4, 2), minimum: (20, 8))
  }

  /// Rows of entries the overlay shows.
  var historyRows: Int { historyOverlayBox.listRows }
}

extension Painter {
  /// The overlay: a filter line, the entries (time, status, method, name, URL, size, time taken),
  /// and the keys.
  func historyOverlay(_ buffer: inout ScreenBuffer, _ history: HistoryOverlayState) {
    let rect = state.historyOverlayBox.rect
    buffer.fill(rect)
    let count = history.searching ? "searching…" : "\(history.entries.count)\(history.entries.count == AppState.historyOverlayLimit ? "+" : "")"
    buffer.box(rect, title: "History · \(count)", style: theme.focusedBorder, titleStyle: theme.focusedBorder)
    let inner = rect.inset(by: 1)
    let filterLine = "filter: " + history.filter.text
    buffer.put(
      TextWidth.truncate(filterLine, to: inner.width - 2), x: inner.x + 1, y: inner.y,
      style: history.typing ? .plain : theme.dim)
    if history.typing {
      let cursorX = inner.x + 1 + TextWidth.of("filter: " + String(history.filter.text.prefix(history.filter.cursor)))
      if cursorX < inner.x + inner.width { buffer.setStyle(Rect(x: cursorX, y: inner.y, width: 1, height: 1)) { $0.reverse = true } }
    }
    let listTop = inner.y + 2
    let rows = state.historyRows
    if let error = history.error {
      buffer.put(TextWidth.truncate("history: \(error)", to: inner.width - 2), x: inner.x + 1, y: listTop, style: theme.error)
    } else if history.entries.isEmpty && !history.searching {
      let empty = history.filter.text.isEmpty ? "no history yet: sent requests are recorded here" : "nothing in history matches"
      buffer.put(empty, x: inner.x + 1, y: listTop, style: theme.dim)
    }
    let nameWidth = min(28, max(8, inner.width / 5))
    for row in 0..<rows {
      let index = history.scroll + row
      guard history.entries.indices.contains(index) else { break }
      let entry = history.entries[index]
      let status = entry.status.map(String.init) ?? (entry.state == .cancelled ? "⊘" : "✗")
      let prefix =
        Painter.dateText(entry.date) + "  " + TextWidth.pad(status, to: 3) + "  "
        + TextWidth.pad(entry.method.rawValue, to: 7) + TextWidth.pad(TextWidth.truncate(entry.name, to: nameWidth), to: nameWidth) + "  "
      let suffix = "  " + Formatting.bytes(entry.bytes) + "  " + Formatting.milliseconds(entry.durationMs)
      let urlWidth = max(0, inner.width - 2 - TextWidth.of(prefix) - TextWidth.of(suffix))
      let line = prefix + TextWidth.pad(TextWidth.truncate(entry.url, to: urlWidth), to: urlWidth) + suffix
      let y = listTop + row
      let style: Style = entry.state == .failed ? theme.error : .plain
      buffer.put(TextWidth.truncate(line, to: inner.width - 2), x: inner.x + 1, y: y, style: style)
      if index == history.selection {
        highlight(&buffer, Rect(x: inner.x, y: y, width: inner.width, height: 1), focused: !history.typing)
      }
    }
    let keys = history.footer(in: state).text
    buffer.put(TextWidth.truncate(keys, to: inner.width - 2), x: inner.x + 1, y: inner.y + inner.height - 1, style: theme.dim)
  }
}

extension HistoryOverlayState: Overlay {
  static let id = OverlayID.history
  static var openedBy: Action? { .openHistory }
  static func open(_ app: inout AppState) -> [Command] { app.openHistoryOverlay() }
  func keyContext(in app: AppState) -> KeyContext { typing ? .historyFilter : .historyList }
  static func update(_ key: Key, _ app: inout AppState) -> [Command] { app.handleHistoryOverlayKey(key) }

  /// A paste while typing goes into the filter.
  static func paste(_ text: String, _ app: inout AppState) -> [Command] {
    guard app.historyOverlay.typing else { return [] }
    app.historyOverlay.filter.paste(text)
    app.historyOverlay.selection = 0
    app.historyOverlay.scroll = 0
    return app.searchHistory()
  }

  func view(_ painter: Painter, _ buffer: inout ScreenBuffer) { painter.historyOverlay(&buffer, self) }

  func footer(in app: AppState) -> Footer {
    var footer = Footer()
    if damaged > 0 { footer.text("\(damaged) damaged skipped") }
    if typing {
      footer.text("type to filter")
      footer.keys([(.up, .up), (.down, .down)], in: .historyFilter, "select")
      footer.key(.view, in: .historyFilter, "show")
      // Esc clears a typed filter first (`handleHistoryOverlayKey`), then closes.
      footer.key(.back, in: .historyFilter, filter.text.isEmpty ? "close" : "clears the filter")
      footer.key(.switchHistoryMode, in: .historyFilter, "to the list (", after: "")
      footer.key(.resend, .char("s"), in: .historyList, "re-send", after: ", ")
      footer.key(.openAsRequest, in: .historyList, "open as new request", after: "")
      footer.text(")")
    } else {
      footer.keys([(.down, .char("j")), (.up, .char("k"))], in: .historyList, joiner: " ", "select")
      footer.key(.view, in: .historyList, "show")
      footer.key(.resend, .char("s"), in: .historyList, "send again")
      footer.key(.openAsRequest, in: .historyList, "open as new request")
      footer.keys([(.switchHistoryMode, .tab), (.switchHistoryMode, .char("/"))], in: .historyList, joiner: " or ", "filter")
      footer.key(.back, in: .historyList, "close")
    }
    return footer
  }
}

extension OverlayID { public static let history = OverlayID("history") }

extension AppState {
  /// The history overlay's state (a fresh one while it is closed).
  public internal(set) var historyOverlay: HistoryOverlayState {
    get { self[overlay: HistoryOverlayState()] } set { self[overlay: HistoryOverlayState()] = newValue }
  }
}
