import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// Draws the whole screen for a state. Pure: the same state always gives the same cells; only the
/// visible part of anything is laid out.
public func view(_ state: AppState, into buffer: inout ScreenBuffer) {
  let theme = Theme(colors: state.colors)
  buffer.fill(Rect(x: 0, y: 0, width: buffer.width, height: buffer.height))
  let layout = state.layout
  if layout.tooSmall {
    let lines = [
      "terminal too small",
      "reqbench needs \(Layout.minimumWidth)×\(Layout.minimumHeight), this one is \(state.width)×\(state.height)",
      "make the window larger, or press q to quit",
    ]
    for (i, line) in lines.enumerated() {
      let x = max(0, (buffer.width - TextWidth.of(line)) / 2)
      buffer.put(line, x: x, y: max(0, buffer.height / 2 - 1) + i, style: i == 0 ? theme.error : .plain)
    }
    return
  }
  let painter = Painter(state: state, theme: theme, layout: layout)
  painter.requests(&buffer)
  painter.editor(&buffer)
  painter.response(&buffer)
  painter.queue(&buffer)
  painter.statusBar(&buffer)
  switch state.overlay {
  case .help: painter.help(&buffer)
  case .confirmQuit: painter.confirmQuit(&buffer)
  case .unsavedChanges: painter.unsavedChanges(&buffer)
  case nil: break
  }
}

/// The drawing code, one method per pane.
struct Painter {
  let state: AppState
  let theme: Theme
  let layout: Layout

  func frame(_ buffer: inout ScreenBuffer, _ pane: Pane, suffix: String = "") {
    let focused = state.focus == pane
    buffer.box(
      layout.rect(of: pane), title: "\(pane.rawValue + 1) \(pane.title)\(suffix)",
      style: focused ? theme.focusedBorder : theme.border,
      titleStyle: focused ? theme.focusedBorder : theme.title)
  }

  func inner(_ pane: Pane) -> Rect { layout.rect(of: pane).inset(by: 1) }

  // MARK: Requests

  func requests(_ buffer: inout ScreenBuffer) {
    frame(&buffer, .requests, suffix: state.requestFilter.isEmpty ? "" : " /\(state.requestFilter)")
    let area = inner(.requests)
    let rows = state.listRows
    let selected = state.selectedRequest?.name
    if rows.isEmpty {
      buffer.put(
        state.requestFilter.isEmpty ? "no requests" : "nothing matches; Esc clears",
        x: area.x + 1, y: area.y, style: theme.dim, maxWidth: area.width - 1)
      return
    }
    for (line, row) in rows.dropFirst(state.requestScroll).prefix(area.height).enumerated() {
      let y = area.y + line
      switch row {
      case .folder(let path, let depth):
        let name = String(path.split(separator: "/").last ?? "")
        buffer.put(
          String(repeating: "  ", count: depth) + "▾ " + name + "/", x: area.x, y: y, style: theme.folder,
          maxWidth: area.width)
      case .request(let name, let depth):
        guard let template = state.workspace.request(named: name) else { continue }
        var x = area.x + depth * 2
        let marker = state.unsaved.contains(name) ? "●" : " "
        x += buffer.put(marker, x: x, y: y, style: theme.unsaved)
        x += buffer.put(TextWidth.pad(template.method.rawValue, to: 7), x: x, y: y, style: theme.method(template.method))
        let leaf = String(name.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
        buffer.put(TextWidth.truncate(leaf, to: area.x + area.width - x), x: x, y: y, maxWidth: area.x + area.width - x)
        if name == selected {
          highlight(&buffer, Rect(x: area.x, y: y, width: area.width, height: 1), focused: state.focus == .requests)
        }
      case .flowsHeading:
        buffer.put("▾ batches and chains", x: area.x, y: y, style: theme.folder, maxWidth: area.width)
      case .flow(let name, let kind):
        var x = area.x + 2
        x += buffer.put(" " + TextWidth.pad(kind == .batch ? "BATCH" : "CHAIN", to: 7), x: x, y: y, style: theme.flow)
        buffer.put(name, x: x, y: y, maxWidth: area.x + area.width - x)
        if name == state.selectedFlow?.name {
          highlight(&buffer, Rect(x: area.x, y: y, width: area.width, height: 1), focused: state.focus == .requests)
        }
      }
    }
  }

  func highlight(_ buffer: inout ScreenBuffer, _ row: Rect, focused: Bool) {
    buffer.setStyle(row) { style in
      if focused { style.reverse = true } else { style.underline = true }
    }
  }

  // MARK: Editor

  func editor(_ buffer: inout ScreenBuffer) {
    let unsaved = state.selectedRequest.map { state.unsaved.contains($0.name) } ?? false
    frame(
      &buffer, .editor,
      suffix: state.selectedFlow.map { " · \($0.name)" }
        ?? state.selectedRequest.map { " · \($0.name)\(unsaved ? " ●" : "")" } ?? "")
    let area = inner(.editor)
    if let flow = state.selectedFlow {
      flowDefinition(&buffer, area, flow.name)
      return
    }
    guard let template = state.selectedRequest else {
      buffer.put("select a request on the left", x: area.x + 1, y: area.y, style: theme.dim)
      return
    }
    // The resolved request (variables filled in, secrets masked) above the fields.
    var resolved: Request?
    switch state.preparedSelection() {
    case .success(let request)?:
      let redacted = request.redacted()
      resolved = redacted
      var x = area.x + 1
      x += buffer.put("→ ", x: x, y: area.y, style: theme.dim)
      x += buffer.put(redacted.method.rawValue + " ", x: x, y: area.y, style: theme.method(redacted.method))
      buffer.put(redacted.url, x: x, y: area.y, style: theme.dim, maxWidth: area.x + area.width - x)
    case .failure(let error)?:
      buffer.put("✗ " + error.message, x: area.x + 1, y: area.y, style: theme.error, maxWidth: area.width - 1)
    case nil:
      break
    }
    let fields = template.editorFields
    let labelWidth = 11
    for (line, field) in fields.enumerated().dropFirst(state.editorScroll).prefix(max(0, area.height - 1)) {
      let y = area.y + 1 + line - state.editorScroll
      let isSelected = line == state.editorField
      var x = area.x + 1
      x += buffer.put(TextWidth.pad(field.label, to: labelWidth), x: x, y: y, style: theme.dim)
      if isSelected, let edit = state.editing {
        drawEdit(edit, &buffer, x: x, y: y, width: area.x + area.width - x)
        continue
      }
      var value = field.value
      if value.isEmpty {
        switch field.kind {
        case .addQuery: value = "+ add name=value"
        case .addHeader: value = "+ add Name: value"
        case .body: value = "none (E edits in $EDITOR)"
        default: value = "-"
        }
        buffer.put(value, x: x, y: y, style: theme.dim, maxWidth: area.x + area.width - x)
      } else if field.kind == .method, let method = HTTPMethod(rawValue: value) {
        buffer.put(value, x: x, y: y, style: theme.method(method))
      } else {
        x += buffer.put(value.replacingOccurrences(of: "\n", with: "⏎"), x: x, y: y, maxWidth: area.x + area.width - x)
        // A template's value as it will be sent, beside it.
        if value.contains("{{"), let shown = resolvedValue(of: field, in: template, resolved), x + 4 < area.x + area.width {
          buffer.put("  → " + shown, x: x, y: y, style: theme.dim, maxWidth: area.x + area.width - x)
        }
      }
      if isSelected {
        buffer.setStyle(Rect(x: area.x, y: y, width: area.width, height: 1)) { style in
          if state.focus == .editor { style.reverse = true } else { style.underline = true }
        }
      }
    }
  }

  /// A run of a batch or chain (the latest one of the selected batch or chain, or the one picked
  /// in the queue): members with their states, or each step with its status and the values it
  /// captured (a resumed run keeps the earlier steps' values).
  func flowRun(_ buffer: inout ScreenBuffer, _ name: String, _ run: FlowRow?) {
    frame(&buffer, .response, suffix: " · \(name)")
    let area = inner(.response)
    guard let run else {
      buffer.put("not run yet: Enter runs \(name)", x: area.x + 1, y: area.y, style: theme.dim)
      return
    }
    // Scrolled like a body (j/k, pages, g) when the viewer has the focus.
    let lines = state.flowRunLines(name, run)
    let scroll = min(state.viewer.scroll, max(0, lines.count - area.height))
    for (i, line) in lines.dropFirst(scroll).prefix(area.height).enumerated() {
      let style: Style
      switch line.kind {
      case .state(let lineState): style = theme.state(lineState)
      case .plain: style = .plain
      case .dim: style = theme.dim
      case .error: style = theme.error
      }
      buffer.put(line.text, x: area.x + 1, y: area.y + i, style: style, maxWidth: area.width - 1)
    }
  }

  /// A batch's members or a chain's steps (with their captures) in the editor pane.
  func flowDefinition(_ buffer: inout ScreenBuffer, _ area: Rect, _ name: String) {
    var lines: [(String, Style)] = []
    if let batch = state.workspace.batch(named: name) {
      lines.append(("batch · \(batch.policy.rawValue) · \(batch.concurrency) at a time · Enter runs it, c cancels", theme.dim))
      for member in batch.members {
        let kind = state.workspace.chain(named: member) != nil ? "chain" : "request"
        lines.append(("  \(member)  (\(kind))", .plain))
      }
      if batch.members.isEmpty { lines.append(("  no members: it succeeds at once", theme.dim)) }
    } else if let chain = state.workspace.chain(named: name) {
      lines.append(("chain · Enter runs it, c cancels, r resumes from the failed step", theme.dim))
      for (i, step) in chain.steps.enumerated() {
        var text = "  \(i + 1). \(step.request)"
        if !step.vars.isEmpty { text += "  vars " + step.vars.map { "\($0.name)=\($0.value)" }.joined(separator: " ") }
        if !step.capture.isEmpty {
          text += "  capture " + step.capture.map { "\($0.name) ← \($0.source.text)" }.joined(separator: ", ")
        }
        lines.append((text, .plain))
      }
    }
    for (i, line) in lines.prefix(area.height).enumerated() {
      buffer.put(line.0, x: area.x + 1, y: area.y + i, style: line.1, maxWidth: area.width - 1)
    }
  }

  /// What a header, query parameter or auth field holds once variables are filled in (secrets
  /// masked), taken from the prepared request.
  func resolvedValue(of field: EditorField, in template: RequestTemplate, _ request: Request?) -> String? {
    guard let request else { return nil }
    switch field.kind {
    case .header(let i):
      guard template.headers.fields.indices.contains(i) else { return nil }
      return request.headers[template.headers.fields[i].name]
    case .auth:
      return request.headers["Authorization"]
    case .query(let i):
      guard template.query.members.indices.contains(i) else { return nil }
      let query = URLResolver.split(request.url).query ?? ""
      let prefix = QueryEncoder.encodeComponent(template.query.members[i].key) + "="
      return query.split(separator: "&").first { $0.hasPrefix(prefix) }.map(String.init)
    default:
      return nil
    }
  }

  func drawEdit(_ edit: LineEdit, _ buffer: inout ScreenBuffer, x: Int, y: Int, width: Int) {
    let chars = Array(edit.text)
    // Scroll horizontally so the cursor stays visible.
    let start = max(0, edit.cursor - max(1, width - 2))
    let visible = String(chars[min(start, chars.count)...])
    // Selected text (a prompt's last value) is drawn reversed: typing replaces it.
    buffer.put(visible, x: x, y: y, style: edit.selected ? Style(reverse: true) : Style(underline: true), maxWidth: width)
    if edit.selected { return }
    let cursorX = x + TextWidth.of(String(chars[min(start, chars.count)..<edit.cursor]))
    if cursorX < x + width {
      var cell = buffer[cursorX, y]
      if cell.text.isEmpty || cell.text == " " { cell.text = " " }
      cell.style.reverse = true
      buffer[cursorX, y] = cell
    }
  }

  // MARK: Response

  func response(_ buffer: inout ScreenBuffer) {
    if let flow = state.selectedFlow, state.focus == .requests || state.focus == .editor {
      flowRun(&buffer, flow.name, state.flows.first { $0.name == flow.name })
      return
    }
    if let run = state.viewer.flow, let flow = state.flowRow(run) {
      flowRun(&buffer, flow.name, flow)
      return
    }
    var row = state.shownExchange
    if let history = state.viewer.history {
      // An earlier response: drawn like a finished exchange.
      row = ExchangeRow(
        id: history.result.id, name: history.entry.name, method: history.entry.method, url: history.entry.url,
        state: history.entry.state, status: history.entry.status, result: history.result)
    }
    var suffix = row.map { " · \($0.name)" } ?? ""
    if let history = state.viewer.history {
      suffix += " · history \(history.position + 1)/\(history.count) · " + Painter.dateText(history.entry.date)
    }
    frame(&buffer, .response, suffix: suffix)
    let area = inner(.response)
    guard let row else {
      buffer.put("send a request (Enter) or pick one in the queue", x: area.x + 1, y: area.y, style: theme.dim)
      return
    }
    // Summary line.
    var x = area.x + 1
    let response = row.result?.response
    switch row.state {
    case .queued, .running:
      x += buffer.put(glyph(row.state) + " " + row.state.rawValue, x: x, y: area.y, style: theme.state(row.state))
      if row.state == .running { x += buffer.put("  " + progressText(row), x: x, y: area.y, style: theme.dim) }
    default:
      if let response {
        x += buffer.put(Formatting.status(response.status), x: x, y: area.y, style: theme.status(response.status))
        // The queue's time; after retries, the last attempt's beside it.
        var time = ""
        if let (total, last) = row.time {
          time = Formatting.milliseconds(total * 1000)
          if let last { time += " (\(row.result?.attempts ?? 1) attempts; last \(Formatting.milliseconds(last * 1000)))" }
        }
        x += buffer.put(
          "  \(Formatting.bytes(row.bytes))  \(time)  \(response.httpVersion)", x: x, y: area.y, style: theme.dim)
        if let cache = row.result?.cache, row.result?.fromCache == true {
          x += buffer.put(
            "  " + Painter.cacheText(cache, mode: row.result?.request.cache?.mode), x: x, y: area.y, style: theme.badge)
        }
      }
      if let error = row.result?.error {
        x += buffer.put((response == nil ? "" : "  ") + glyph(row.state) + " " + error.message, x: x, y: area.y,
          style: theme.state(row.state), maxWidth: area.x + area.width - x)
      } else if let failure = row.flowFailure {
        x += buffer.put("  " + glyph(.failed) + " " + failure.message, x: x, y: area.y,
          style: theme.state(.failed), maxWidth: area.x + area.width - x)
      }
    }
    // Tabs.
    var tx = area.x + 1
    for tab in ViewerState.Tab.allCases {
      let label = tab == state.viewer.tab ? "[\(tab.title)]" : " \(tab.title) "
      tx += buffer.put(label, x: tx, y: area.y + 1, style: tab == state.viewer.tab ? theme.title : theme.dim)
      tx += 1
    }
    let hints = state.viewer.filter.map { "jq \($0) · Esc clears" } ?? (state.viewer.wrap ? "wrap" : "")
    if !hints.isEmpty {
      let w = TextWidth.of(hints)
      buffer.put(hints, x: max(tx, area.x + area.width - w - 1), y: area.y + 1, style: theme.dim)
    }
    let content = Rect(x: area.x + 1, y: area.y + 2, width: max(0, area.width - 1), height: max(0, area.height - 2))
    switch state.viewer.tab {
    case .body: body(&buffer, content, row)
    case .headers: headers(&buffer, content, response, row)
    case .timing: timing(&buffer, content, row)
    }
  }

  /// `from cache, 42 s old` (`stale`, `revalidated` when so).
  static func cacheText(_ cache: CacheOutcome, mode: CachePolicy.Mode?) -> String {
    var text = "from cache"
    if let age = cache.ageSeconds { text += ", " + Formatting.age(age) + " old" }
    if cache.stale {
      if mode == .staleIfError {
        text += ", stale (the network failed" + (cache.staleBecause.map { ": " + $0 } ?? "") + ")"
      } else {
        text += ", stale (served without the network)"
      }
    }
    if cache.revalidated { text += ", revalidated" }
    return text
  }

  /// `2026-11-30 10:13:20` in UTC: history dates (the view has no clock or time zone to ask).
  static func dateText(_ date: Date) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
    let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    func two(_ n: Int?) -> String { String(n ?? 0).leftPadded(2) }
    return "\(c.year ?? 0)-\(two(c.month))-\(two(c.day)) \(two(c.hour)):\(two(c.minute)):\(two(c.second)) UTC"
  }

  func progressText(_ row: ExchangeRow) -> String {
    let p = row.progress
    var text: String
    if p.isUploading, let total = p.uploadTotal {
      text = "⇡ " + Formatting.bytes(Int(p.uploaded)) + " of " + Formatting.bytes(Int(total))
    } else {
      text = Formatting.bytes(Int(p.downloaded))
      if let total = p.downloadTotal, total > 0 { text += " of " + Formatting.bytes(Int(total)) }
    }
    if let started = row.startedAt, let now = state.now {
      text += "  " + Formatting.milliseconds(now.timeIntervalSince(started) * 1000)
    }
    return text + Self.speedText(p)
  }

  /// `  52.0 MB/s  ETA 11 s` once the speed is known.
  static func speedText(_ p: TransferProgress) -> String {
    guard let speed = p.bytesPerSecond, speed > 0 else { return "" }
    var text = "  " + Formatting.bytes(Int(speed)) + "/s"
    if let left = p.secondsLeft, left > 0 { text += "  ETA " + Formatting.milliseconds(left * 1000) }
    return text
  }

  /// What a download did with its file, for the viewer: where it went, how much, whether it can
  /// be resumed and why it started over.
  static func downloadLines(_ download: DownloadOutcome) -> [String] {
    var lines: [String] = []
    let size = Formatting.bytes(Int(download.bytes))
    if download.complete {
      lines.append("saved to \(download.file) (\(size))")
    } else if download.resumable {
      let of = download.totalBytes.map { " of " + Formatting.bytes(Int($0)) } ?? ""
      let percent = download.percent.map { " (\(Int($0))%)" } ?? ""
      lines.append("\(size)\(of)\(percent) kept for \(download.file): press r to resume")
    } else {
      lines.append("nothing saved to \(download.file)")
    }
    if download.resumedFrom > 0 {
      lines.append("resumed from \(Formatting.bytes(Int(download.resumedFrom))) (byte \(download.resumedFrom)) already on disk")
    }
    if let reason = download.restartReason {
      lines.append("started over from 0: " + Self.restartText(reason))
    }
    return lines
  }

  static func restartText(_ reason: RestartReason) -> String {
    switch reason {
    case .rangeNotSupported: "the server ignored Range (rangeNotSupported)"
    case .resourceChanged: "the file changed on the server (resourceChanged)"
    case .badContentRange: "the server sent another range than asked (badContentRange)"
    case .noValidator: "the server gave no ETag or Last-Modified to resume against (noValidator)"
    case .invalidState: "the saved resume state was unreadable (invalidState)"
    }
  }

  func body(_ buffer: inout ScreenBuffer, _ area: Rect, _ row: ExchangeRow) {
    var area = area
    if let download = row.result?.download {
      var lines = Self.downloadLines(download)
      if row.superseded, download.resumable, !download.complete {
        lines[0] = lines[0].replacingOccurrences(of: "press r to resume", with: "resumed by a newer exchange")
      }
      for line in lines where area.height > 0 {
        buffer.put(
          TextWidth.truncate(line, to: area.width), x: area.x, y: area.y, style: download.complete ? theme.title : theme.dim,
          maxWidth: area.width)
        area.y += 1
        area.height -= 1
      }
      if row.result?.response?.body.count ?? 0 == 0 { return }
      area.y += 1
      area.height -= 1
    }
    guard let document = state.viewer.filtered ?? state.viewer.document else {
      var lines = [
        row.state.isTerminal
          ? "no response" : row.downloadTarget.map { "downloading to " + $0 } ?? "waiting for the response…"
      ]
      if row.state == .failed, let error = row.result?.error {
        lines = ["no response: " + error.message] + (Painter.whatToTry(error, url: row.url).map { [$0] } ?? [])
      }
      for (i, line) in lines.enumerated() where i < area.height {
        buffer.put(TextWidth.truncate(line, to: area.width), x: area.x, y: area.y + i, style: theme.dim)
      }
      return
    }
    if document.kind == .empty {
      buffer.put("empty body", x: area.x, y: area.y, style: theme.dim)
      return
    }
    var y = area.y
    var index = state.viewer.scroll
    let (count, _) = document.lineCount(atLeast: state.viewer.scroll + area.height)
    // A server may echo the request's secrets (httpbin's /anything): masked in each visible line
    // as it is drawn, so the screen never shows one (`w` still writes the body as received).
    let redaction = Self.redaction(row)
    // Line numbers as wide as the largest known (the whole document, or as far as it is indexed),
    // at least 5 digits, and one column before the text: never cut.
    let gutter = max(5, String(count).count) + 1
    let textWidth = max(1, area.width - gutter)
    while y < area.y + area.height && index < count {
      let line = redaction?.apply(document.line(index)) ?? document.line(index)
      let pieces = state.viewer.wrap ? TextWidth.wrap(ControlEscaping.visible(line), width: textWidth) : [line]
      for (n, piece) in pieces.enumerated() where y < area.y + area.height {
        if n == 0 {
          buffer.put(TextWidth.pad(String(index + 1), to: gutter - 1, alignRight: true), x: area.x, y: y, style: theme.dim)
        }
        drawBodyLine(piece, kind: document.kind, &buffer, x: area.x + gutter, y: y, width: textWidth)
        // Not wrapping: a line longer than the pane ends in a marker at its right edge.
        if !state.viewer.wrap, textWidth > 1, TextWidth.of(ControlEscaping.visible(piece)) > textWidth {
          buffer.put("›", x: area.x + gutter + textWidth - 1, y: y, style: theme.dim)
        }
        // The search: the current match's text reversed (and its line number), the other
        // matches on screen underlined.
        if let query = state.viewer.search, !query.isEmpty {
          let current = index == state.viewer.matchLine
          if current, n == 0 {
            buffer.setStyle(Rect(x: area.x, y: y, width: gutter - 1, height: 1)) { $0.reverse = true }
          }
          for (column, width) in Painter.matchColumns(in: ControlEscaping.visible(piece), query: query)
          where column < textWidth {
            buffer.setStyle(Rect(x: area.x + gutter + column, y: y, width: min(width, textWidth - column), height: 1)) {
              if current { $0.reverse = true } else { $0.underline = true }
            }
          }
        }
        y += 1
      }
      index += 1
    }
  }

  /// What to try after a transport failure, for the viewer.
  static func whatToTry(_ error: ExchangeError, url: String) -> String? {
    let host = URLComponents(string: url).flatMap { c in c.host.map { $0 + (c.port.map { ":\($0)" } ?? "") } }
    switch error.transport {
    case .cannotConnect:
      return "is the server\(host.map { " at " + $0 } ?? "") running? check the URL (or the environment's baseURL); r re-sends"
    case .cannotResolveHost:
      return "check the host name\(host.map { " (" + $0 + ")" } ?? "") and the network; r re-sends"
    case .timedOut:
      return "the server did not answer in time: raise the request's timeout, or r re-sends"
    case .connectionLost:
      return "the connection closed early; r re-sends (a download resumes)"
    case .certificateNotTrusted:
      return "the certificate is not trusted: set the request's tls.ca to the server's CA"
    default:
      return nil
    }
  }

  /// Where `query` occurs in `text` (case-insensitively): its columns and widths.
  static func matchColumns(in text: String, query: String) -> [(column: Int, width: Int)] {
    var found: [(Int, Int)] = []
    var start = text.startIndex
    var column = 0
    while start < text.endIndex, let range = text.range(of: query, options: .caseInsensitive, range: start..<text.endIndex) {
      column += TextWidth.of(String(text[start..<range.lowerBound]))
      let width = TextWidth.of(String(text[range]))
      found.append((column, width))
      column += width
      start = range.upperBound
      if range.isEmpty { break }
    }
    return found
  }

  func drawBodyLine(_ line: String, kind: BodyDocument.Kind, _ buffer: inout ScreenBuffer, x: Int, y: Int, width: Int) {
    guard kind == .json, state.viewer.filtered == nil else {
      buffer.put(line, x: x, y: y, maxWidth: width)
      return
    }
    var cx = x
    for span in JSONHighlight.spans(line) {
      let room = x + width - cx
      if room <= 0 { break }
      cx += buffer.put(String(span.text), x: cx, y: y, style: theme.json(span.role), maxWidth: room)
    }
  }

  /// What masks the secrets of `row`'s request; nil when it has none.
  static func redaction(_ row: ExchangeRow) -> Redaction? {
    let secrets = row.secrets + (row.result?.request.secrets ?? [])
    return secrets.isEmpty ? nil : Redaction(secrets: secrets)
  }

  func headers(_ buffer: inout ScreenBuffer, _ area: Rect, _ response: Response?, _ row: ExchangeRow) {
    guard let response else {
      buffer.put("no response headers", x: area.x, y: area.y, style: theme.dim)
      return
    }
    let redaction = Self.redaction(row)
    let fields = response.headers.fields
    let nameWidth = min(28, (fields.map { TextWidth.of($0.name) }.max() ?? 0) + 1)
    for (line, field) in fields.dropFirst(state.viewer.scroll).prefix(area.height).enumerated() {
      buffer.put(TextWidth.pad(field.name + ":", to: nameWidth + 1), x: area.x, y: area.y + line, style: theme.json(.key))
      buffer.put(
        redaction?.apply(field.value) ?? field.value, x: area.x + nameWidth + 2, y: area.y + line,
        maxWidth: area.width - nameWidth - 2)
    }
  }

  func timing(_ buffer: inout ScreenBuffer, _ area: Rect, _ row: ExchangeRow) {
    guard let response = row.result?.response else {
      let text =
        switch row.state {
        case .cancelled: "cancelled before a response"
        case .failed: "failed before a response" + (row.result?.error.map { ": " + $0.message } ?? "")
        default: "no timing yet"
        }
      buffer.put(text, x: area.x, y: area.y, style: theme.dim, maxWidth: area.width)
      return
    }
    let t = response.timing
    // No TLS phase over plain HTTP (curl reports 0 for it).
    var phases: [(String, Double, Double)] = [("DNS", 0, t.dns), ("connect", t.dns, t.connect)]
    if t.tls > 0 { phases.append(("TLS", t.connect, max(t.connect, t.tls))) }
    phases += [("wait (TTFB)", max(t.connect, t.tls), t.firstByte), ("download", t.firstByte, t.total)]
    let barWidth = max(10, area.width - 32)
    var lines: [(String, String, Double, Double)] = phases.map { ($0.0, Formatting.milliseconds(($0.2 - $0.1) * 1000), $0.1, $0.2) }
    // After retries the phases are the last attempt's; the exchange's total (the queue's and the
    // summary line's) follows it.
    let attempts = row.result?.attempts ?? 1
    lines.append((attempts > 1 ? "last attempt" : "total", Formatting.milliseconds(t.total * 1000), 0, t.total))
    if attempts > 1, let (total, _) = row.time {
      lines.append(("all \(attempts)", Formatting.milliseconds(total * 1000), 0, t.total))
    }
    for (i, line) in lines.enumerated() where i < area.height {
      let y = area.y + i
      buffer.put(TextWidth.pad(line.0, to: 12), x: area.x, y: y, style: theme.dim)
      buffer.put(TextWidth.pad(line.1, to: 10, alignRight: true), x: area.x + 12, y: y)
      guard t.total > 0 else { continue }
      let start = Int(Double(barWidth) * line.2 / t.total)
      let end = max(start + 1, Int(Double(barWidth) * line.3 / t.total))
      buffer.put(String(repeating: "█", count: max(0, min(end, barWidth) - start)), x: area.x + 24 + start, y: y, style: theme.fg(.cyan))
    }
    var extra = ["redirects \(response.redirectCount)"]
    if response.bytesSent > 0 { extra.append("sent \(Formatting.bytes(Int(response.bytesSent)))") }
    extra += ["attempts \(row.result?.attempts ?? 1)", response.effectiveURL]
    if lines.count + 1 < area.height {
      buffer.put(extra.joined(separator: " · "), x: area.x, y: area.y + lines.count + 1, style: theme.dim, maxWidth: area.width)
    }
  }

  // MARK: Queue

  /// Column positions of the queue, shared by the header and the rows. The request name always
  /// keeps at least `minimumName` columns: on a narrow screen the progress column shrinks and
  /// then goes, then the time, then the size (0 width: not drawn).
  struct QueueColumns {
    static let minimumName = 25  // the method and 18 columns of name
    let state: Int, status: Int, name: Int, size: Int, time: Int, progress: Int, progressWidth: Int, end: Int
    let sizeWidth: Int, timeWidth: Int
    init(_ area: Rect) {
      end = area.x + area.width
      state = area.x
      status = state + 14
      name = status + 7
      let room = end - name - QueueColumns.minimumName
      // Wide enough on a wide screen for the bar, the speed and the ETA.
      var progressWidth = min(46, max(10, area.width * 3 / 10))
      var timeWidth = 11
      var sizeWidth = 10
      if room < progressWidth + timeWidth + sizeWidth {
        progressWidth = room - timeWidth - sizeWidth >= 10 ? room - timeWidth - sizeWidth : 0
      }
      if room < progressWidth + timeWidth + sizeWidth { timeWidth = 0 }
      if room < progressWidth + timeWidth + sizeWidth { sizeWidth = 0 }
      self.progressWidth = progressWidth
      self.timeWidth = timeWidth
      self.sizeWidth = sizeWidth
      progress = end - progressWidth
      time = progress - timeWidth
      size = time - sizeWidth
    }
  }

  func queue(_ buffer: inout ScreenBuffer) {
    frame(&buffer, .queue, suffix: state.exchanges.isEmpty ? "" : " · \(state.exchanges.count)")
    var area = inner(.queue)
    // The column header on top, then the batch and chain runs (the newest few, expanded ones
    // with their members or steps), then the exchanges.
    let c = QueueColumns(area)
    buffer.put("  STATE", x: c.state, y: area.y, style: theme.dim)
    buffer.put("STATUS", x: c.status, y: area.y, style: theme.dim)
    buffer.put("REQUEST", x: c.name, y: area.y, style: theme.dim)
    if c.sizeWidth > 0 { buffer.put(TextWidth.pad("SIZE", to: 9, alignRight: true), x: c.size, y: area.y, style: theme.dim) }
    if c.timeWidth > 0 { buffer.put(TextWidth.pad("TIME", to: 10, alignRight: true), x: c.time, y: area.y, style: theme.dim) }
    if c.progressWidth > 0 { buffer.put("PROGRESS", x: c.progress + 1, y: area.y, style: theme.dim) }
    let flowLines = state.queueFlowLines
    for (i, item) in state.queueFlowWindow.enumerated() {
      guard let flow = state.flowRow(item.run) else { continue }
      let y = area.y + 1 + i
      switch item {
      case .flow: flowRow(&buffer, flow, y: y, x: area.x, width: area.width)
      case .member(_, let index): memberRow(&buffer, flow, index, y: y, x: area.x, width: area.width)
      case .step(_, let index): stepRow(&buffer, flow, index, y: y, x: area.x, width: area.width)
      }
      if item == state.queueFlowSelection {
        buffer.setStyle(Rect(x: area.x, y: y, width: area.width, height: 1)) { style in
          if state.focus == .queue { style.reverse = true } else { style.underline = true }
        }
      }
    }
    // `area.y` stays the header's line: the exchanges start below it and the section.
    area.y += flowLines
    area.height -= flowLines
    if state.exchanges.isEmpty {
      buffer.put("nothing sent yet: Enter sends the selected request", x: area.x + 2, y: area.y + 1, style: theme.dim)
      return
    }
    for (line, row) in state.exchanges.enumerated().dropFirst(state.queueScroll).prefix(max(0, area.height - 1)) {
      let y = area.y + 1 + line - state.queueScroll
      // A chain step whose capture failed: the step failed, whatever its exchange did.
      let shownState = row.flowFailure == nil ? row.state : .failed
      let stateText = row.flowFailure?.state ?? (row.retrying ? "retrying \(row.attempt + 1)" : row.state.rawValue)
      buffer.put(glyph(shownState) + " " + stateText, x: c.state, y: y, style: theme.state(shownState), maxWidth: 13)
      buffer.put(row.status.map(String.init) ?? "-", x: c.status, y: y, style: theme.status(row.status))
      var x = c.name
      x += buffer.put(TextWidth.pad(row.method.rawValue, to: 7), x: x, y: y, style: theme.method(row.method))
      // Badges (served from the cache, merged with an identical request in flight, resumable)
      // keep their room: the name is cut (with "…") before they are.
      // On a narrow screen `resumable 17%` becomes `⟳ 17%` rather than push the name under 9.
      var badges = row.badges
      let room = c.size - x - 1
      let wanted = min(9, TextWidth.of(row.label))
      if room - badges.reduce(0, { $0 + TextWidth.of($1) + 3 }) < wanted {
        badges = badges.map { $0.hasPrefix("resumable") ? "⟳" + $0.dropFirst("resumable".count) : $0 }
      }
      let badgeRoom = badges.reduce(0) { $0 + TextWidth.of($1) + 3 }
      let nameRoom = max(min(wanted, room), room - badgeRoom)
      x += buffer.put(TextWidth.truncate(row.label, to: max(1, nameRoom)), x: x, y: y, maxWidth: max(1, nameRoom))
      for badge in badges where x + TextWidth.of(badge) + 3 <= c.size {
        x += 1
        x += buffer.put(" " + badge + " ", x: x, y: y, style: theme.badge)
      }
      if let error = row.result?.error, row.state == .failed, x + 2 < c.size - 1 {
        buffer.put(error.message, x: x + 2, y: y, style: theme.dim, maxWidth: c.size - x - 3)
      } else if let failure = row.flowFailure, x + 2 < c.size - 1 {
        buffer.put(failure.message, x: x + 2, y: y, style: theme.dim, maxWidth: c.size - x - 3)
      }
      let size = row.state == .queued ? "" : Formatting.bytes(row.bytes)
      if c.sizeWidth > 0 { buffer.put(TextWidth.pad(size, to: 9, alignRight: true), x: c.size, y: y) }
      let duration = row.time.map { Formatting.milliseconds($0.total * 1000) }
        ?? row.startedAt.flatMap { start in state.now.map { Formatting.milliseconds(max(0, $0.timeIntervalSince(start)) * 1000) } }
        ?? ""
      if c.timeWidth > 0 { buffer.put(TextWidth.pad(duration, to: 10, alignRight: true), x: c.time, y: y) }
      if row.state == .running, c.progressWidth > 0 {
        buffer.put(progressBar(row, width: c.progressWidth - 1), x: c.progress + 1, y: y, style: theme.state(row.state))
      }
      if line == state.queueSelection && state.queueFlowSelection == nil {
        buffer.setStyle(Rect(x: area.x, y: y, width: area.width, height: 1)) { style in
          if state.focus == .queue { style.reverse = true } else { style.underline = true }
        }
      }
    }
  }

  /// `⧉ smoke  batch  [████····] 2/3  ✓2 ✗0 ⊘0` or `⛓ login-flow  chain  step 2/3  ✓ ▶ ·`.
  func flowRow(_ buffer: inout ScreenBuffer, _ flow: FlowRow, y: Int, x: Int, width: Int) {
    var cx = x
    cx += buffer.put(glyph(flow.state) + " " + TextWidth.pad(flow.state.rawValue, to: 11), x: cx, y: y, style: theme.state(flow.state))
    cx += 1
    cx += buffer.put(state.expandedFlows.contains(flow.run) ? "▾ " : "▸ ", x: cx, y: y, style: theme.dim)
    cx += buffer.put((flow.kind == .batch ? "⧉ " : "⛓ ") + flow.name + "  ", x: cx, y: y, style: theme.flow, maxWidth: max(1, width / 3))
    switch flow.kind {
    case .batch:
      let total = max(flow.total, state.workspace.batch(named: flow.name)?.members.count ?? 0)
      let barWidth = 16
      let filled = total == 0 ? barWidth : barWidth * flow.done / total
      cx += buffer.put("[" + String(repeating: "█", count: filled) + String(repeating: "·", count: barWidth - filled) + "] ", x: cx, y: y, style: theme.state(flow.state))
      cx += buffer.put("\(flow.done)/\(total)  ✓\(flow.succeeded) ✗\(flow.failed) ⊘\(flow.cancelled)", x: cx, y: y)
    case .chain:
      let count = max(flow.steps, state.workspace.chain(named: flow.name)?.steps.count ?? 0)
      cx += buffer.put("step \(max(flow.step, flow.stepStates.keys.max() ?? 0))/\(count)  ", x: cx, y: y)
      for i in 1...max(1, count) where count > 0 {
        let stepState = FlowRow.stepState(flow, i)
        cx += buffer.put(glyph(stepState) + " ", x: cx, y: y, style: theme.state(stepState))
      }
      if let captured = flow.captured.last {
        buffer.put("  \(flow.captured.count) captured, last \(captured.name)", x: cx, y: y, style: theme.dim, maxWidth: x + width - cx)
      }
    case .request:
      break
    }
    if flow.state == .failed, let message = flow.outcome.flatMap(FlowRow.detail), cx + 4 < x + width {
      buffer.put("  " + message, x: cx, y: y, style: theme.dim, maxWidth: x + width - cx)
    }
  }

  /// An expanded batch's member: `    ✓ users/get  200  12.3 ms`.
  func memberRow(_ buffer: inout ScreenBuffer, _ flow: FlowRow, _ index: Int, y: Int, x: Int, width: Int) {
    let names = state.workspace.batch(named: flow.name)?.members ?? []
    let name = names.indices.contains(index) ? names[index] : "member \(index + 1)"
    let memberState = FlowRow.memberState(flow, index)
    let outcome = flow.members[index]
    var cx = x + 4
    cx += buffer.put(glyph(memberState) + " " + TextWidth.pad(memberState.rawValue, to: 11), x: cx, y: y, style: theme.state(memberState))
    cx += buffer.put(name, x: cx, y: y, style: state.workspace.chain(named: name) != nil ? theme.flow : .plain, maxWidth: max(1, width / 3))
    var details: [String] = []
    if let status = outcome?.exchange?.response?.status { details.append(String(status)) }
    if let outcome, outcome.kind == .chain { details.append("\(outcome.steps.filter { $0.state == .succeeded }.count)/\(outcome.steps.count) steps") }
    if let outcome, let detail = FlowRow.detail(outcome) { details.append(detail) }
    if !details.isEmpty, cx + 4 < x + width {
      buffer.put("  " + details.joined(separator: "  "), x: cx, y: y, style: theme.dim, maxWidth: x + width - cx)
    }
  }

  /// An expanded chain's step: `    ✓ 1. auth/login  uid=1 token=…`.
  func stepRow(_ buffer: inout ScreenBuffer, _ flow: FlowRow, _ step: Int, y: Int, x: Int, width: Int) {
    let steps = state.workspace.chain(named: flow.name)?.steps ?? []
    let request = steps.indices.contains(step - 1) ? steps[step - 1].request : "step \(step)"
    let stepState = FlowRow.stepState(flow, step)
    var cx = x + 4
    cx += buffer.put(glyph(stepState) + " " + TextWidth.pad(stepState.rawValue, to: 11), x: cx, y: y, style: theme.state(stepState))
    cx += buffer.put("\(step). \(request)", x: cx, y: y, maxWidth: max(1, width / 3))
    var details = flow.captured.filter { $0.step == step }.map { "\($0.name)=\(Painter.short($0.value))" }
    if let outcome = flow.outcome?.steps.first(where: { $0.step == step }) {
      if let detail = FlowRow.detail(outcome) { details.append(detail) }
    }
    if !details.isEmpty, cx + 4 < x + width {
      buffer.put("  " + details.joined(separator: " "), x: cx, y: y, style: theme.dim, maxWidth: x + width - cx)
    }
  }

  static func short(_ value: String) -> String { value.count > 24 ? String(value.prefix(21)) + "…" : value }

  func progressBar(_ row: ExchangeRow, width: Int) -> String {
    let p = row.progress
    let speed = Self.speedText(p)
    // The bar leaves room for the speed and ETA when the column is wide enough.
    let barSpace = width - speed.count >= 14 ? width - speed.count : width
    let inner = max(1, barSpace - 2)
    guard let fraction = p.fraction else {
      let moved = p.downloaded > 0 ? "⇣ " + Formatting.bytes(Int(p.downloaded)) : (p.uploaded > 0 ? "⇡ " + Formatting.bytes(Int(p.uploaded)) : "waiting")
      return "[" + TextWidth.pad(moved, to: inner) + "]" + (barSpace < width ? speed : "")
    }
    let percent = (p.isUploading ? " ⇡" : " ") + "\(Int(fraction * 100))%"
    let barWidth = max(1, inner - percent.count)
    let filled = Int((Double(barWidth) * fraction).rounded())
    return "[" + String(repeating: "█", count: filled) + String(repeating: "·", count: barWidth - filled) + "]" + percent
      + (barSpace < width ? speed : "")
  }

  // MARK: Status bar and overlays

  func statusBar(_ buffer: inout ScreenBuffer) {
    let area = layout.status
    if let prompt = state.prompt {
      let x = buffer.put(prompt.label + ": ", x: area.x, y: area.y, style: theme.key)
      // What the line-editing keys do, at the right when there is room.
      let hint = prompt.input.selected ? "typing replaces · ← edits · Esc cancels" : "Ctrl-U clears · Esc cancels"
      let hintWidth = TextWidth.of(hint) + 1
      var width = area.width - x
      if width - hintWidth >= 30 {
        buffer.put(hint, x: area.x + area.width - hintWidth, y: area.y, style: theme.dim)
        width -= hintWidth + 1
      }
      drawEdit(prompt.input, &buffer, x: x, y: area.y, width: width)
      return
    }
    let environment = state.sources.environment ?? state.workspace.environment
    var left = " \(state.workspace.name)"
    if let environment { left += " · env \(environment)" }
    if !state.unsaved.isEmpty { left += " · \(state.unsaved.count) unsaved" }
    var x = buffer.put(left, x: area.x, y: area.y, style: theme.title)
    let counts = " · \(state.runningCount) running · \(state.queuedCount) queued · \(state.failedCount) failed "
    x += buffer.put(counts, x: x, y: area.y, style: state.failedCount > 0 ? theme.error : theme.dim)
    if let message = state.message {
      buffer.put(
        " " + TextWidth.truncate(message.text, to: area.width - x - 1), x: x, y: area.y,
        style: message.isError ? theme.error : .plain, maxWidth: area.width - x)
    } else {
      buffer.put(" " + Painter.fit(hints, width: area.width - x - 1), x: x, y: area.y, style: theme.dim, maxWidth: area.width - x)
    }
  }

  var hints: [String] {
    if state.editing != nil { return ["Enter keeps", "Esc cancels"] }
    switch state.focus {
    case .requests: return ["Enter send", "S no cache", "/ filter", "c cancel", "E body", "? help", "q quit"]
    case .editor: return ["e edit field", "E body in $EDITOR", "s send", "Ctrl-S save", "? help", "q quit"]
    case .response: return ["/ search", "n/N next", "| jq", "w write", "W wrap", "←/→ tabs", "[ ] history", "? help", "q quit"]
    case .queue:
      if state.queueFlowSelection != nil {
        return ["c cancel the run", "r resume a chain", "Enter/→/← members and steps", "? help", "q quit"]
      }
      return ["c cancel", "r re-send / resume", "C cancel all", "Enter view", "? help", "q quit"]
    }
  }

  /// Hints joined with ` · ` in `width` columns: whole hints dropped from the end (never one cut
  /// mid-word), `? help` and `q quit` the last to go.
  static func fit(_ hints: [String], width: Int) -> String {
    var kept = hints
    let essential: Set<String> = ["? help", "q quit"]
    while TextWidth.of(kept.joined(separator: " · ")) > width {
      if let last = kept.lastIndex(where: { !essential.contains($0) }) {
        kept.remove(at: last)
      } else if !kept.isEmpty {
        kept.removeFirst()
      } else {
        break
      }
    }
    return kept.joined(separator: " · ")
  }

  static let helpLines: [(String, String)] = [
    ("Tab / Shift-Tab, 1–4", "move between panes"),
    ("↑ ↓ j k, PgUp PgDn, g G", "move, page, first, last (also Home End, Ctrl-D Ctrl-U)"),
    ("Enter or s", "send the selected request"),
    ("Enter (queue)", "show the exchange in the response pane"),
    ("S", "send it ignoring the cache (and refresh the cached response)"),
    ("c", "cancel the selected exchange or run"),
    ("C", "cancel everything"),
    ("r", "re-send a failure; resume a download or chain"),
    ("e", "edit the field (Enter keeps, Esc cancels, empty removes)"),
    ("E", "edit the body in $EDITOR"),
    ("/", "filter requests / search the response"),
    ("n  N", "next / previous match"),
    ("|", "filter the JSON body with jq (Esc clears)"),
    ("w  W", "write the body to a file / wrap long lines"),
    ("← →  h l", "response tabs; queue: show / hide a batch's members, a chain's steps"),
    ("[  ]", "older / newer responses from history; s sends the one shown again"),
    ("Esc", "close a prompt, stop a search or jq, clear a filter or jq, leave history"),
    ("in a prompt", "the last value comes selected: typing replaces it, ← → edit it"),
    ("Ctrl-U  Ctrl-K", "in a prompt: clear before / after the cursor (Ctrl-A Ctrl-E: start, end)"),
    ("Ctrl-S", "save the workspace"),
    ("mouse", "click selects and focuses, the wheel scrolls"),
    ("q  Ctrl-C", "quit (asks while transfers run or edits are unsaved)"),
    ("? F1", "this help"),
  ]

  /// Rows of keys the help overlay shows at a screen height (the rest scroll).
  static func helpRows(height: Int) -> Int {
    min(height - 2, helpLines.count + 4) - 4
  }

  func help(_ buffer: inout ScreenBuffer) {
    let lines = Painter.helpLines
    let keyWidth = (lines.map { TextWidth.of($0.0) }.max() ?? 0) + 2
    let natural = 4 + keyWidth + (lines.map { TextWidth.of($0.1) }.max() ?? 0)
    let width = min(buffer.width - 4, natural)
    let height = min(buffer.height - 2, lines.count + 4)
    let rows = Painter.helpRows(height: buffer.height)
    let first = min(state.helpScroll, max(0, lines.count - rows))
    let rect = Rect(x: (buffer.width - width) / 2, y: max(0, (buffer.height - height) / 2), width: width, height: height)
    buffer.fill(rect)
    let scrolls = rows < lines.count
    let title =
      scrolls ? "Keys \(first + 1)–\(first + rows)/\(lines.count) · j k scroll · other keys close" : "Keys · any key closes"
    buffer.box(rect, title: TextWidth.truncate(title, to: width - 4), style: theme.focusedBorder, titleStyle: theme.focusedBorder)
    for (i, line) in lines.dropFirst(first).prefix(rows).enumerated() {
      buffer.put(TextWidth.pad(line.0, to: keyWidth), x: rect.x + 2, y: rect.y + 2 + i, style: theme.key)
      let room = width - 4 - keyWidth
      buffer.put(TextWidth.truncate(line.1, to: room), x: rect.x + 2 + keyWidth, y: rect.y + 2 + i, maxWidth: room)
    }
    if scrolls {
      let more = (first > 0 ? "↑" : " ") + (first + rows < lines.count ? "↓" : " ")
      buffer.put(more, x: rect.x + width - 4, y: rect.y + height - 1, style: theme.focusedBorder)
    }
  }

  func confirmQuit(_ buffer: inout ScreenBuffer) {
    let count = state.runningCount + state.queuedCount
    let text =
      (count == 1 ? "1 transfer is still running." : "\(count) transfers are still running.")
      + " Cancel \(count == 1 ? "it" : "them") and quit? (y/n)"
    dialog(&buffer, title: "Quit", [text, "Ctrl-C again quits"])
  }

  func unsavedChanges(_ buffer: inout ScreenBuffer) {
    let count = state.unsaved.count
    let names = state.unsaved.sorted().joined(separator: ", ")
    dialog(
      &buffer, title: "Unsaved changes",
      [
        (count == 1 ? "1 request has unsaved changes: " : "\(count) requests have unsaved changes: ") + names,
        "s save and quit · d discard and quit · Esc stay",
      ])
  }

  /// A box in the middle of the screen, lines ellipsized to fit.
  func dialog(_ buffer: inout ScreenBuffer, title: String, _ lines: [String]) {
    let width = min(buffer.width - 4, (lines.map(TextWidth.of).max() ?? 0) + 6)
    let rect = Rect(x: (buffer.width - width) / 2, y: buffer.height / 2 - 2, width: width, height: lines.count + 4)
    buffer.fill(rect)
    buffer.box(rect, title: title, style: theme.error, titleStyle: theme.error)
    for (i, line) in lines.enumerated() {
      buffer.put(TextWidth.truncate(line, to: width - 6), x: rect.x + 3, y: rect.y + 2 + i, style: i == 0 ? .plain : theme.dim)
    }
  }
}
