import Base
import Foundation
import RequestEngine
import TerminalUI
import Workspace

/// One line of the response viewer's `Request` tab.
struct SentLine: Sendable, Equatable {
  enum Kind: Sendable, Equatable {
    /// `POST /users HTTP/1.1`.
    case requestLine
    /// `Name: value`, the name drawn as a key.
    case header(name: String, value: String)
    /// A line of the body's text.
    case body
    /// What the tab says about the request (a cut body, a file, redirects).
    case note
  }

  var kind: Kind
  var text: String

  static func note(_ text: String) -> SentLine { SentLine(kind: .note, text: text) }
}

/// The `Request` tab: the request as curl put it on the wire (`ExchangeResult.sent`, read from
/// curl's debug function: the request line and every header it wrote, `Host`, `User-Agent`,
/// `Content-Length`, cookies included), then a blank line and the body, as `http -v` prints it
/// above the response. Secrets are masked by the engine when it records what was sent
/// (`SentRequest`); the view masks the request's secrets once more, as it does the response.
/// A response from history shows the request as it was recorded (curl's own headers are not in
/// the recording).
extension AppState {
  func sentLines(_ row: ExchangeRow) -> [SentLine] {
    if let history = viewer.history { return Self.recordedLines(history) }
    guard let result = row.result, row.state.isTerminal || result.sent != nil else {
      return [.note(row.state == .queued ? "not sent yet" : "sending… what curl sent shows when the exchange ends")]
    }
    guard let sent = result.sent else {
      if result.fromCache { return [.note("answered from the cache: nothing was sent")] }
      return [.note("nothing was sent" + (result.error.map { ": " + $0.message } ?? ""))]
    }
    return Self.lines(sent)
  }

  /// The lines of what curl sent.
  static func lines(_ sent: SentRequest) -> [SentLine] {
    var lines: [SentLine] = []
    if sent.count > 1 {
      lines.append(.note("the last of \(sent.count) requests curl sent (redirects, an auth challenge): the one answered"))
    }
    let cookies = sent.cookieNames.map(ControlEscaping.visible)
    if !cookies.isEmpty {
      lines.append(.note("cookie\(cookies.count == 1 ? "" : "s") sent: \(cookies.joined(separator: ", "))"))
    }
    lines.append(SentLine(kind: .requestLine, text: sent.requestLine))
    for field in sent.headers {
      lines.append(SentLine(kind: .header(name: field.name, value: field.value), text: "\(field.name): \(field.value)"))
    }
    if sent.headTruncated { lines.append(.note("… the head is longer than \(Formatting.bytes(SentRequest.headLimit)): cut there")) }
    switch sent.body {
    case .none:
      break
    case .bytes(let bytes, let total):
      lines.append(SentLine(kind: .body, text: ""))
      if let text = String(validating: bytes, as: UTF8.self) {
        lines += bodyLines(text)
        if bytes.count < total {
          lines.append(.note("… the first \(Formatting.bytes(bytes.count)) of \(Formatting.bytes(total)) shown"))
        }
      } else {
        lines.append(.note("binary body, \(Formatting.bytes(total)) (not shown)"))
      }
    case .file(let path, let size):
      lines.append(SentLine(kind: .body, text: ""))
      lines.append(.note("body read from \(path) (\(Formatting.bytes(Int(size))))"))
    case .multipart(let parts):
      lines.append(SentLine(kind: .body, text: ""))
      for part in parts {
        var text = "part \(part.name): "
        if let file = part.file {
          text += "file \(file)" + (part.filename.map { " as \($0)" } ?? "")
        } else {
          text += part.value ?? ""
        }
        if let type = part.contentType { text += " (\(type))" }
        lines.append(SentLine(kind: .body, text: text))
      }
    }
    return lines
  }

  /// A recorded request: its method and URL, its headers and body as history has them.
  static func recordedLines(_ history: HistoryView) -> [SentLine] {
    let entry = history.entry
    var lines: [SentLine] = [
      .note("as recorded in history (the headers curl adds itself, Host and User-Agent, are not recorded)"),
      SentLine(kind: .requestLine, text: "\(entry.method.rawValue) \(entry.url)"),
    ]
    for field in entry.requestHeaders {
      lines.append(SentLine(kind: .header(name: field.name, value: field.value), text: "\(field.name): \(field.value)"))
    }
    if let type = entry.requestContentType, entry.requestHeaders["Content-Type"] == nil {
      lines.append(SentLine(kind: .header(name: "Content-Type", value: type), text: "Content-Type: \(type)"))
    }
    if !history.requestBody.isEmpty {
      lines.append(SentLine(kind: .body, text: ""))
      if let text = String(validating: history.requestBody, as: UTF8.self) {
        lines += bodyLines(text)
      } else {
        lines.append(.note("binary body, \(Formatting.bytes(history.requestBody.count)) (not shown)"))
      }
    }
    return lines
  }

  /// A body's text as lines (CRLF, LF or CR ends); the empty line after a final line end dropped.
  static func bodyLines(_ text: String) -> [SentLine] {
    var pieces = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
    if pieces.count > 1, pieces.last?.isEmpty == true { pieces.removeLast() }
    return pieces.map { SentLine(kind: .body, text: String($0)) }
  }
}

extension Painter {
  func sentRequest(_ buffer: inout ScreenBuffer, _ area: Rect, _ row: ExchangeRow) {
    let lines = state.sentLines(row)
    let redaction = Self.redaction(row)
    let longest = lines.map { line -> Int in
      if case .header(let name, _) = line.kind { return TextWidth.of(name) }
      return 0
    }.max() ?? 0
    let nameWidth = Self.headerNameWidth(longest: longest, in: area)
    let scroll = min(state.viewer.scroll, max(0, lines.count - area.height))
    for (i, line) in lines.dropFirst(scroll).prefix(area.height).enumerated() {
      let y = area.y + i
      let text = redaction?.apply(line.text) ?? line.text
      switch line.kind {
      case .requestLine:
        buffer.putTruncated(text, x: area.x, y: y, style: theme.title, width: area.width)
      case .header(let name, let value):
        buffer.put(TextWidth.pad(name + ":", to: nameWidth + 1), x: area.x, y: y, style: theme.json(.key), maxWidth: area.width)
        buffer.putTruncated(
          redaction?.apply(value) ?? value, x: area.x + nameWidth + 2, y: y, width: area.width - nameWidth - 2)
      case .body:
        buffer.putTruncated(text, x: area.x, y: y, width: area.width)
      case .note:
        buffer.putTruncated(text, x: area.x, y: y, style: theme.dim, width: area.width)
      }
    }
  }
}
