import Base
import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// The response viewer: the summary line, the tabs (body, headers, timing, request), and a batch or chain
/// run when one is shown instead of an exchange.
extension Painter {
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
      // The key that sends where the focus is: in the editor Enter edits a field.
      let send = state.focus == .editor ? "send the request (s)" : "send a request (Enter)"
      buffer.putTruncated(send + " or pick one in the queue", x: area.x + 1, y: area.y, style: theme.dim, width: area.width - 1)
      return
    }
    // Summary line: its pieces one after the other, the last cut with … at the pane's edge.
    var x = area.x + 1
    let end = area.x + area.width
    let response = row.result?.response
    switch row.state {
    case .queued, .running:
      x += buffer.putTruncated(glyph(row.state) + " " + row.stateWord, x: x, y: area.y, style: theme.state(row.state), width: end - x)
      if row.state == .running {
        x += buffer.putTruncated("  " + progressText(row), x: x, y: area.y, style: theme.dim, width: end - x)
      }
      if let early = row.result, early.fromCache, let cache = early.cache, let response = early.response {
        // cacheThenNetwork: the cache's response is shown while the network's comes.
        x += buffer.putTruncated(
          "  showing " + Formatting.status(response.status) + " " + Painter.cacheText(cache, mode: early.request.cache?.mode)
            + "; the network's answer replaces it", x: x, y: area.y, style: theme.badge, width: end - x)
      }
      if let wait = row.retryWait {
        buffer.putTruncated(
          " in \(Formatting.milliseconds(wait.delay * 1000)): \(wait.reason.message)", x: x, y: area.y, style: theme.dim,
          width: end - x)
      }
    default:
      if let response {
        x += buffer.putTruncated(Formatting.status(response.status), x: x, y: area.y, style: theme.status(response.status), width: end - x)
        // The queue's time; after retries, the last attempt's beside it.
        var time = ""
        if let (total, last) = row.time {
          time = Formatting.milliseconds(total * 1000)
          if let last { time += " (\(row.result?.attempts ?? 1) attempts; last \(Formatting.milliseconds(last * 1000)))" }
        }
        x += buffer.putTruncated(
          "  \(Formatting.bytes(row.bytes))  \(time)  \(response.httpVersion)", x: x, y: area.y, style: theme.dim, width: end - x)
        if let cache = row.result?.cache, row.result?.fromCache == true {
          x += buffer.putTruncated(
            "  " + Painter.cacheText(cache, mode: row.result?.request.cache?.mode), x: x, y: area.y, style: theme.badge,
            width: end - x)
        } else if let cached = row.cachedDelivery {
          // cacheThenNetwork: the network's response replaced the cache's, shown first.
          let age = cached.ageSeconds.map { " (" + Formatting.age($0) + " old)" } ?? ""
          x += buffer.putTruncated(
            "  from cache first" + age
              + (row.state == .succeeded ? ", then refreshed from the network" : "; the network's answer failed"),
            x: x, y: area.y, style: theme.badge, width: end - x)
        }
      }
      if let error = row.result?.error {
        x += buffer.putTruncated((response == nil ? "" : "  ") + glyph(row.state) + " " + error.message, x: x, y: area.y,
          style: theme.state(row.state), width: end - x)
      } else if let failure = row.flowFailure {
        x += buffer.putTruncated("  " + glyph(.failed) + " " + failure.message, x: x, y: area.y,
          style: theme.state(.failed), width: end - x)
      }
    }
    // Tabs.
    var tx = area.x + 1
    let stream = state.shownStream
    let shownTab = state.shownTab
    for tab in ViewerState.Tab.allCases where tab != .events || stream != nil {
      let label = tab == shownTab ? "[\(tab.title)]" : " \(tab.title) "
      tx += buffer.put(label, x: tx, y: area.y + 1, style: tab == shownTab ? theme.title : theme.dim)
      tx += 1
    }
    var hints = state.viewer.filter.map { "jq \($0) · Esc clears" } ?? (state.viewer.wrap ? "wrap" : "")
    if shownTab == .events, let stream { hints = eventsHints(stream) }
    if !hints.isEmpty {
      let w = TextWidth.of(hints)
      let hx = max(tx, area.x + area.width - w - 1)
      buffer.putTruncated(hints, x: hx, y: area.y + 1, style: theme.dim, width: area.x + area.width - hx)
    }
    let content = Rect(x: area.x + 1, y: area.y + 2, width: max(0, area.width - 1), height: max(0, area.height - 2))
    switch shownTab {
    case .body: body(&buffer, content, row)
    case .events:
      if let stream { events(&buffer, content, row, stream) }
    case .headers: headers(&buffer, content, response, row)
    case .timing: timing(&buffer, content, row)
    case .request: sentRequest(&buffer, content, row)
    }
  }

  /// A run of a batch or chain (the latest one of the selected batch or chain, or the one picked
  /// in the queue): members with their states, or each step with its status and the values it
  /// captured (a resumed run keeps the earlier steps' values).
  func flowRun(_ buffer: inout ScreenBuffer, _ name: String, _ run: FlowRow?) {
    frame(&buffer, .response, suffix: " · \(name)")
    let area = inner(.response)
    guard let run else {
      buffer.putTruncated("not run yet: Enter runs \(name)", x: area.x + 1, y: area.y, style: theme.dim, width: area.width - 1)
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
      buffer.putTruncated(line.text, x: area.x + 1, y: area.y + i, style: style, width: area.width - 1)
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
    return text + (row.paused ? "  paused" : Self.speedText(p))
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
    if var download = row.result?.download {
      // A path a secret filled in (`download.to: "out/{{secret.k}}"`) is shown masked.
      download.file = Self.redaction(row)?.apply(download.file) ?? download.file
      var lines = Self.downloadLines(download)
      if row.superseded, download.resumable, !download.complete {
        lines[0] = lines[0].replacingOccurrences(of: "press r to resume", with: "resumed by a newer exchange")
      }
      for line in lines where area.height > 0 {
        buffer.putTruncated(line, x: area.x, y: area.y, style: download.complete ? theme.title : theme.dim, width: area.width)
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
          ? "no response" : row.downloadTarget.map { "downloading to " + (Self.redaction(row)?.apply($0) ?? $0) } ?? "waiting for the response…"
      ]
      if row.state == .failed, let error = row.result?.error {
        lines = ["no response: " + error.message] + (Painter.whatToTry(error, url: row.url).map { [$0] } ?? [])
      } else if row.state == .cancelled, let status = row.status {
        lines = ["cancelled after the server answered \(Formatting.status(status)); its body was not kept (r re-sends)"]
      }
      // Wrapped at their words: the reason and what to try are read whole.
      let rows = lines.flatMap { TextWidth.wordWrap($0, width: area.width) }
      for (i, row) in rows.enumerated() where i < area.height {
        buffer.putTruncated(row, x: area.x, y: area.y + i, style: theme.dim, width: area.width)
      }
      return
    }
    if document.kind == .empty {
      buffer.putTruncated("empty body", x: area.x, y: area.y, style: theme.dim, width: area.width)
      return
    }
    if let error = document.invalidJSON, area.height > 1 {
      // The response says JSON but it is not: the text as it came, below where it breaks.
      buffer.putTruncated(
        "not valid JSON: line \(error.location.line), column \(error.location.column): \(error.message)", x: area.x,
        y: area.y, style: theme.error, width: area.width)
      area.y += 1
      area.height -= 1
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

  /// A header list's name column, its colon included: the longest name's width, up to half the
  /// pane (a longer name is cut with "…").
  static func headerNameWidth(longest: Int, in area: Rect) -> Int { min(longest + 1, max(1, area.width / 2)) }

  func headers(_ buffer: inout ScreenBuffer, _ area: Rect, _ response: Response?, _ row: ExchangeRow) {
    guard let response else {
      buffer.putTruncated("no response headers", x: area.x, y: area.y, style: theme.dim, width: area.width)
      return
    }
    let redaction = Self.redaction(row)
    let fields = response.headers.fields
    let nameWidth = Self.headerNameWidth(longest: fields.map { TextWidth.of($0.name) }.max() ?? 0, in: area)
    for (line, field) in fields.dropFirst(state.viewer.scroll).prefix(area.height).enumerated() {
      buffer.put(TextWidth.pad(field.name + ":", to: nameWidth + 1), x: area.x, y: area.y + line, style: theme.json(.key))
      buffer.putTruncated(
        redaction?.apply(field.value) ?? field.value, x: area.x + nameWidth + 2, y: area.y + line,
        width: area.width - nameWidth - 2)
    }
  }

  func timing(_ buffer: inout ScreenBuffer, _ area: Rect, _ row: ExchangeRow) {
    guard let response = row.result?.response else {
      let text =
        switch row.state {
        case .cancelled:
          row.status.map { "cancelled after the server answered \(Formatting.status($0)) (no timing kept)" }
            ?? "cancelled before a response"
        case .failed: "failed before a response" + (row.result?.error.map { ": " + $0.message } ?? "")
        default: "no timing yet"
        }
      buffer.putTruncated(text, x: area.x, y: area.y, style: theme.dim, width: area.width)
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
      buffer.putTruncated(extra.joined(separator: " · "), x: area.x, y: area.y + lines.count + 1, style: theme.dim, width: area.width)
    }
  }
}
