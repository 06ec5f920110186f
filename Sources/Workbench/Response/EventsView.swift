import Base
import Foundation
import RequestEngine
import Synchronization
import TerminalUI
import Workspace

/// The pretty-printed document of the event the Events tab details, made once per event shown
/// rather than once per frame: `view` asks it for the selected event, and while the list follows
/// a fast stream it is made at most once a frame, however many events came between two frames.
/// A memo only (the same event gives the same document), so drawing stays a function of the state.
public final class EventDetailMemo: Sendable {
  /// The event last made a document of, and that document.
  private let memo = Mutex<(key: (index: Int, size: Int, bytes: Int), document: BodyDocument)?>(nil)

  public init() {}

  /// The event's data as a document: JSON pretty-printed (lazily past `BodyDocument.prettyLimit`),
  /// other text line by line.
  func document(for event: StreamEvent) -> BodyDocument {
    memo.withLock { memo in
      let bytes = event.data.utf8.count
      if let (key, document) = memo, key.index == event.index, key.size == event.size, key.bytes == bytes {
        return document
      }
      let made = BodyDocument(bytes: Array(event.data.utf8), mediaType: nil)
      memo = ((event.index, event.size, bytes), made)
      return made
    }
  }
}

/// The Events tab: the column titles, one event a row (its index, time since the start, type,
/// size, the data's first line or jq's output for it), then the selected event's data.
extension Painter {
  /// `12.345 s` after the exchange's start.
  static func eventTime(_ seconds: Double) -> String { Formatting.decimal(seconds, places: 3) + " s" }

  /// The right side of the tab line: `following · 142 events · 3.1/s`, jq's expression first
  /// when shown.
  func eventsHints(_ log: StreamLog) -> String {
    var parts: [String] = []
    if let jq = state.viewer.events.jq {
      parts.append("jq " + jq.expression + (jq.shown ? "" : " running…") + " · Esc clears")
    }
    parts.append(state.viewer.events.isFollowing ? "following" : "held · F follows")
    var count = log.total == 1 ? "1 event" : "\(log.total) events"
    if log.dropped > 0 { count += " (last \(log.kept.count) kept)" }
    parts.append(count)
    if let last = log.last, last.seconds > 0, log.total > 1 {
      parts.append(Formatting.decimal(Double(log.total) / last.seconds, places: 1) + "/s")
    }
    return parts.joined(separator: " · ")
  }

  func events(_ buffer: inout ScreenBuffer, _ area: Rect, _ row: ExchangeRow, _ log: StreamLog) {
    let kept = log.kept
    guard !kept.isEmpty, area.height > 0, area.width > 0 else {
      buffer.putTruncated("no events yet", x: area.x, y: area.y, style: theme.dim, width: area.width)
      return
    }
    let rows = state.eventRows
    let (top, selected) = state.eventWindow(log)
    let shown = kept.dropFirst(top).prefix(rows.list)
    let redaction = Self.redaction(row)
    // Columns: the marker, the index, the time, the type (SSE only), the size, the data.
    let indexWidth = max(3, String(kept.last?.index ?? 0).count)
    let timeWidth = max(9, Self.eventTime(shown.last?.seconds ?? 0).count)
    let typeWidth = log.format == .sse ? min(16, max(4, shown.map { TextWidth.of(ControlEscaping.visible($0.type ?? "")) }.max() ?? 4)) : 0
    let sizeWidth = 9
    let dataX = area.x + 2 + indexWidth + 1 + timeWidth + 2 + (typeWidth > 0 ? typeWidth + 2 : 0) + sizeWidth + 2
    let dataWidth = max(0, area.x + area.width - dataX)
    var y = area.y
    let jq = state.viewer.events.jq.flatMap { $0.shown ? $0 : nil }
    if rows.detail > 0 {
      var titles = TextWidth.pad("#", to: indexWidth + 2, alignRight: true) + " " + TextWidth.pad("TIME", to: timeWidth, alignRight: true) + "  "
      if typeWidth > 0 { titles += TextWidth.pad("TYPE", to: typeWidth) + "  " }
      titles += TextWidth.pad("SIZE", to: sizeWidth, alignRight: true) + "  " + (jq.map { "JQ " + $0.expression } ?? "DATA")
      buffer.putTruncated(titles, x: area.x, y: y, style: theme.dim, width: area.width)
      y += 1
    }
    for (offset, event) in shown.enumerated() {
      let isSelected = top + offset == selected
      var x = area.x
      x += buffer.put(isSelected ? "▸ " : "  ", x: x, y: y, style: theme.title)
      x += buffer.put(TextWidth.pad(String(event.index), to: indexWidth, alignRight: true) + " ", x: x, y: y, style: theme.dim)
      x += buffer.put(TextWidth.pad(Self.eventTime(event.seconds), to: timeWidth, alignRight: true) + "  ", x: x, y: y, style: theme.dim)
      if typeWidth > 0 {
        buffer.putTruncated(ControlEscaping.visible(event.type ?? ""), x: x, y: y, style: theme.json(.key), width: typeWidth)
        x += typeWidth + 2
      }
      x += buffer.put(TextWidth.pad(Formatting.bytes(event.size), to: sizeWidth, alignRight: true) + "  ", x: x, y: y, style: theme.dim)
      let (text, style) = eventSummary(event, jq: jq, redaction: redaction)
      buffer.putTruncated(text, x: dataX, y: y, style: style, width: dataWidth)
      if isSelected {
        highlight(&buffer, Rect(x: area.x, y: y, width: area.width, height: 1), focused: state.focus == .response)
      }
      y += 1
    }
    guard rows.detail > 0 else { return }
    y = area.y + 1 + rows.list
    let event = kept[kept.startIndex + selected]
    detail(&buffer, Rect(x: area.x, y: y, width: area.width, height: rows.detail + 1), event, jq: jq, redaction: redaction)
  }

  /// A row's text: the data's first line (`…` when more follow), or jq's outputs for the event.
  func eventSummary(_ event: StreamEvent, jq: EventsJQ?, redaction: Redaction?) -> (String, Style) {
    if let jq {
      switch jq.outputs[event.index] {
      case .success(let output)?:
        let values = output.split(separator: "\n").map(String.init)
        if values.isEmpty { return ("(no output)", theme.dim) }
        return (ControlEscaping.visible(redaction?.apply(values.joined(separator: " ")) ?? values.joined(separator: " ")), .plain)
      case .failure(let error)? where error.message.hasPrefix("the data is not JSON"):
        // `[DONE]` at the end of an LLM stream: not an error of the expression.
        return ("not JSON", theme.dim)
      case .failure(let error)?:
        return (Formatting.jqError(error.message), theme.error)
      case nil:
        return ("…", theme.dim)
      }
    }
    let data = redaction?.apply(event.data) ?? event.data
    let firstLine = data.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    var text = ControlEscaping.visible(String(firstLine.first ?? ""))
    if firstLine.count > 1 { text += " …" }
    if event.truncated { text += " (cut)" }
    return (text, .plain)
  }

  /// The selected event: a title line (index, type, id, size, time), jq's outputs for it when
  /// shown, then its data (JSON pretty-printed and highlighted), cut at the pane's end.
  func detail(_ buffer: inout ScreenBuffer, _ area: Rect, _ event: StreamEvent, jq: EventsJQ?, redaction: Redaction?) {
    var title = "── event \(event.index)"
    if let type = event.type { title += " · " + ControlEscaping.visible(type) }
    if let id = event.id { title += " · id " + ControlEscaping.visible(id) }
    title += " · " + Formatting.bytes(event.size) + " · at " + Self.eventTime(event.seconds)
    if event.truncated { title += " · data cut at \(Formatting.bytes(event.data.utf8.count))" }
    title += " "
    buffer.putTruncated(title, x: area.x, y: area.y, style: theme.dim, width: area.width)
    let ruleX = area.x + TextWidth.of(title)
    if ruleX < area.x + area.width {
      buffer.put(String(repeating: "─", count: area.x + area.width - ruleX), x: ruleX, y: area.y, style: theme.dim)
    }
    var y = area.y + 1
    let end = area.y + area.height
    if let jq, case .success(let output)? = jq.outputs[event.index] {
      for value in output.split(separator: "\n") where y < end {
        buffer.put("jq ", x: area.x, y: y, style: theme.key)
        buffer.putTruncated(redaction?.apply(String(value)) ?? String(value), x: area.x + 3, y: y, width: area.width - 3)
        y += 1
      }
    }
    let document = state.viewer.events.memo.document(for: event)
    let (count, _) = document.lineCount(atLeast: end - y + 1)
    var index = 0
    while y < end, index < count {
      let line = redaction?.apply(document.line(index)) ?? document.line(index)
      if index + 1 < count, y + 1 == end {
        buffer.putTruncated("… more lines (w writes the events as NDJSON)", x: area.x, y: y, style: theme.dim, width: area.width)
        return
      }
      if document.kind == .json {
        var cx = area.x
        for span in JSONHighlight.spans(line) {
          let room = area.x + area.width - cx
          if room <= 0 { break }
          cx += buffer.put(String(span.text), x: cx, y: y, style: theme.json(span.role), maxWidth: room)
        }
      } else {
        buffer.putTruncated(line, x: area.x, y: y, width: area.width)
      }
      y += 1
      index += 1
    }
  }
}
