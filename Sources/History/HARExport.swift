import Base
import Foundation
import RequestEngine
import Workspace

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// History entries as a HAR 1.2 file (`reqbench history WS --har > session.har`), the format of
/// Chrome's and Firefox's network panels and of HAR tools.
///
/// ```swift
/// let entries = try store.entries(matching: query).entries
/// let report = HARExport.write(entries, from: store) { bytes in output.write(bytes) }
/// ```
/// Entries are written oldest first by start (HAR's order). What the history stored is what goes out:
/// secrets are already masked (`••••`), in the URL, headers, bodies and error messages alike.
/// Bodies are `text` when they are UTF-8 and base64 (`"encoding": "base64"`) otherwise; a body
/// kept in a file is streamed from it in 1 MB pieces, never loaded whole. Timings come from
/// curl's: `blocked` is the time queued in the agent, `dns`, `connect` (TLS included, as HAR
/// wants), `ssl`, `send` (curl does not measure it: 0), `wait` (to the first byte) and
/// `receive`; `time` is their sum. Fields HAR has no place for are `_name` (the request's name
/// in the workspace), `_state` and `_error`.
public enum HARExport {
  /// What went wrong on the way: bodies that could not be read are left out, with a comment.
  public struct Report: Sendable {
    public var problems: [String] = []
  }

  /// Writes the HAR of `entries` (any order; written by start, oldest first) through `write`.
  @discardableResult
  public static func write(
    _ entries: [HistoryEntry], from store: HistoryStore, to write: ([UInt8]) -> Void
  ) -> Report {
    var report = Report()
    let creator = JSONObject([("name", .string("reqbench")), ("version", .string(reqbenchVersion))])
    write(Array(#"{"log":{"version":"1.2","creator":"#.utf8))
    write(Array(JSONSerializer.compact(.object(creator)).utf8))
    write(Array(#","entries":["#.utf8))
    // By startedDateTime, oldest first (HAR 1.2's preferred order): exchanges run side by side
    // finish in another order than they start.
    let ordered = entries.sorted { a, b in
      let startA = a.startedAt ?? a.queuedAt, startB = b.startedAt ?? b.queuedAt
      return startA != startB ? startA < startB : HistoryEntry.newerFirst(b, a)
    }
    for (index, entry) in ordered.enumerated() {
      if index > 0 { write(Array(",\n".utf8)) }
      writeEntry(entry, from: store, to: write, report: &report)
    }
    write(Array("]}}\n".utf8))
    return report
  }

  private static func writeEntry(
    _ entry: HistoryEntry, from store: HistoryStore, to write: ([UInt8]) -> Void,
    report: inout Report
  ) {
    let timings = self.timings(entry)
    let time = [timings.blocked, timings.dns, timings.connect, timings.send, timings.wait, timings.receive]
      .filter { $0 >= 0 }.reduce(0, +)
    var head = JSONObject()
    head["startedDateTime"] = .string(iso8601(entry.startedAt ?? entry.queuedAt))
    head["time"] = number(time)
    head["request"] = .object(request(entry, from: store, report: &report))
    var text = JSONSerializer.compact(.object(head))
    text.removeLast()  // the closing brace: the response follows
    write(Array(text.utf8))

    var response = JSONObject()
    response["status"] = .number(entry.status ?? 0)
    response["statusText"] = .string(entry.status.flatMap(ReasonPhrases.phrase) ?? "")
    response["httpVersion"] = .string(entry.httpVersion ?? "")
    response["cookies"] = .array(entry.responseHeaders.values("Set-Cookie").map(setCookie))
    response["headers"] = headers(entry.responseHeaders)
    var responseText = JSONSerializer.compact(.object(response))
    responseText.removeLast()
    write(Array((#","response":"# + responseText + #","content":"#).utf8))
    writeContent(entry, from: store, to: write, report: &report)
    var tail = JSONObject()
    tail["redirectURL"] = .string(entry.responseHeaders["Location"] ?? "")
    tail["headersSize"] = .number(-1)
    tail["bodySize"] = .number(entry.status == nil ? -1 : entry.bytes)
    var tailText = JSONSerializer.compact(.object(tail))
    tailText.removeFirst()
    write(Array(("," + tailText).utf8))

    var rest = JSONObject()
    rest["cache"] = .object(JSONObject())
    rest["timings"] = .object(
      JSONObject([
        ("blocked", number(timings.blocked)), ("dns", number(timings.dns)),
        ("connect", number(timings.connect)), ("send", number(timings.send)),
        ("wait", number(timings.wait)), ("receive", number(timings.receive)),
        ("ssl", number(timings.ssl)),
      ]))
    rest["_name"] = .string(entry.name)
    rest["_state"] = .string(entry.state.rawValue)
    if let error = entry.error { rest["_error"] = .string(error.message) }
    var restText = JSONSerializer.compact(.object(rest))
    restText.removeFirst()
    write(Array(("," + restText).utf8))
  }

  private static func request(_ entry: HistoryEntry, from store: HistoryStore, report: inout Report) -> JSONObject {
    var request = JSONObject()
    request["method"] = .string(entry.method.rawValue)
    request["url"] = .string(entry.url)
    request["httpVersion"] = .string(entry.sentHTTPVersion ?? entry.httpVersion ?? "HTTP/1.1")
    // The headers as curl sent them (Host, User-Agent, Content-Length… as on the wire, secrets
    // masked); for an entry without them, the request's own and its content type.
    var headers = entry.sentHeaders
    if entry.sentHead == nil, let type = entry.requestContentType, !headers.contains("Content-Type") {
      headers.add("Content-Type", type)
    }
    request["cookies"] = .array(cookies(headers["Cookie"]))
    request["headers"] = self.headers(headers)
    request["queryString"] = .array(query(entry.url))
    if entry.requestBodyBytes > 0 || entry.requestContentType != nil {
      var post = JSONObject()
      post["mimeType"] = .string(entry.requestContentType ?? "")
      do throws(FileError) {
        let bytes = try store.requestBody(of: entry)
        if let text = String(validating: bytes, as: UTF8.self) {
          post["text"] = .string(text)
        } else {
          // HAR 1.2 has no encoding for request bodies: base64, said in the comment.
          post["text"] = .string(Data(bytes).base64EncodedString())
          post["comment"] = .string("base64")
        }
      } catch {
        post["text"] = .string("")
        post["comment"] = .string("request body not readable: \(error.message)")
        report.problems.append("\(entry.name) (\(entry.id)): \(error.message)")
      }
      request["postData"] = .object(post)
    }
    request["headersSize"] = .number(-1)
    request["bodySize"] = .number(entry.requestBodyBytes)
    return request
  }

  /// `{"size":…,"mimeType":…,"text":…[,"encoding":"base64"]}`, the text streamed.
  private static func writeContent(
    _ entry: HistoryEntry, from store: HistoryStore, to write: ([UInt8]) -> Void,
    report: inout Report
  ) {
    var content = JSONObject()
    content["size"] = .number(entry.bytes)
    content["mimeType"] = .string(entry.responseHeaders["Content-Type"] ?? "x-unknown")
    var head = JSONSerializer.compact(.object(content))
    head.removeLast()
    write(Array(head.utf8))
    defer { write(Array("}".utf8)) }
    guard entry.bodyKept else {
      write(Array(#","comment":"body not kept: larger than the history may hold""#.utf8))
      return
    }
    guard entry.storedBodyBytes > 0 else { return }
    let total = entry.storedBodyBytes
    func slice(_ offset: Int, _ count: Int) throws(FileError) -> [UInt8] {
      try store.body(of: entry, range: offset..<(offset + count))
    }
    var inString = false
    do throws(FileError) {
      // Text when every byte is UTF-8 (checked first, piece by piece), base64 otherwise.
      var utf8 = true
      var carry: [UInt8] = []
      var offset = 0
      while utf8 && offset < total {
        let piece = carry + (try slice(offset, min(pieceSize, total - offset)))
        offset += piece.count - carry.count
        let cut = offset < total ? completeUTF8Prefix(piece) : piece.count
        utf8 = String(validating: piece[..<cut], as: UTF8.self) != nil
        carry = Array(piece[cut...])
      }
      if utf8 && carry.isEmpty {
        write(Array(#","text":""#.utf8))
        inString = true
        offset = 0
        while offset < total {
          let piece = carry + (try slice(offset, min(pieceSize, total - offset)))
          offset += piece.count - carry.count
          let cut = offset < total ? completeUTF8Prefix(piece) : piece.count
          let quoted = JSONSerializer.quote(String(decoding: piece[..<cut], as: UTF8.self))
          write(Array(quoted.utf8.dropFirst().dropLast()))
          carry = Array(piece[cut...])
        }
      } else {
        write(Array(#","encoding":"base64","text":""#.utf8))
        inString = true
        offset = 0
        // Pieces of a multiple of 3 bytes encode without padding in between.
        let size = pieceSize / 3 * 3
        while offset < total {
          let piece = try slice(offset, min(size, total - offset))
          write(Array(Data(piece).base64EncodedString().utf8))
          offset += piece.count
        }
      }
      write(Array(#"""#.utf8))
    } catch {
      // Whatever was written of the text ends there; the comment says why it is short.
      report.problems.append("\(entry.name) (\(entry.id)): \(error.message)")
      if inString { write(Array(#"""#.utf8)) }
      write(Array((#","comment":"# + JSONSerializer.quote("body not readable: \(error.message)")).utf8))
    }
  }

  private static let pieceSize = 1 << 20

  /// The length of the longest prefix of `bytes` that does not end inside a UTF-8 sequence.
  static func completeUTF8Prefix(_ bytes: [UInt8]) -> Int {
    var start = bytes.count
    // Back up over continuation bytes (at most 3) to the lead byte of the last sequence.
    while start > 0 && bytes.count - start < 4 && bytes[start - 1] & 0xC0 == 0x80 { start -= 1 }
    guard start > 0 else { return bytes.count }
    let lead = bytes[start - 1]
    let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
    let available = bytes.count - (start - 1)
    return available >= length ? bytes.count : start - 1
  }

  /// HAR's phases in milliseconds from curl's cumulative times (-1: does not apply).
  struct Timings {
    var blocked = -1.0, dns = -1.0, connect = -1.0, ssl = -1.0
    var send = 0.0, wait = 0.0, receive = 0.0
  }

  static func timings(_ entry: HistoryEntry) -> Timings {
    var timings = Timings()
    if let started = entry.startedAt {
      timings.blocked = max(0, started.timeIntervalSince(entry.queuedAt) * 1000)
    }
    guard let t = entry.timing else {
      timings.wait = entry.durationMs
      return timings
    }
    let connected = max(t.connect, t.tls)
    timings.dns = max(0, t.dns) * 1000
    timings.connect = max(0, connected - t.dns) * 1000
    timings.ssl = t.tls > 0 ? max(0, t.tls - t.connect) * 1000 : -1
    timings.wait = max(0, t.firstByte - connected) * 1000
    timings.receive = max(0, t.total - max(t.firstByte, connected)) * 1000
    return timings
  }

  private static func number(_ value: Double) -> JSONValue {
    .number((value * 1000).rounded() / 1000)
  }

  package static func headers(_ headers: HTTPHeaders) -> JSONValue {
    .array(headers.fields.map { .object(JSONObject([("name", .string($0.name)), ("value", .string($0.value))])) })
  }

  package static func query(_ url: String) -> [JSONValue] {
    guard let mark = url.firstIndex(of: "?") else { return [] }
    var text = url[url.index(after: mark)...]
    if let hash = text.firstIndex(of: "#") { text = text[..<hash] }
    let pairs =
      QueryDecoder.pairs(String(text), form: false)
      ?? text.split(separator: "&").map { piece in
        let parts = piece.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        return (key: String(parts[0]), value: parts.count > 1 ? String(parts[1]) : nil)
      }
    return pairs.map { .object(JSONObject([("name", .string($0.key)), ("value", .string($0.value ?? ""))])) }
  }

  /// `a=1; b=2` as HAR cookies.
  package static func cookies(_ header: String?) -> [JSONValue] {
    guard let header else { return [] }
    return header.split(separator: ";").compactMap { piece in
      let pair = piece.trimmingCharacters(in: .whitespaces)
      guard !pair.isEmpty else { return nil }
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      return .object(JSONObject([
        ("name", .string(String(parts[0]))), ("value", .string(parts.count > 1 ? String(parts[1]) : "")),
      ]))
    }
  }

  /// A `Set-Cookie` value as a HAR cookie: name, value and the attributes HAR names.
  private static func setCookie(_ value: String) -> JSONValue {
    let parts = value.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
    let pair = (parts.first ?? "").split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
    var cookie = JSONObject([
      ("name", .string(pair.first.map(String.init) ?? "")),
      ("value", .string(pair.count > 1 ? String(pair[1]) : "")),
    ])
    for attribute in parts.dropFirst() {
      let item = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      let key = item[0].lowercased()
      let text = item.count > 1 ? String(item[1]) : ""
      switch key {
      case "path": cookie["path"] = .string(text)
      case "domain": cookie["domain"] = .string(text)
      case "expires": cookie["expires"] = .string(text)
      case "httponly": cookie["httpOnly"] = .bool(true)
      case "secure": cookie["secure"] = .bool(true)
      default: break
      }
    }
    return .object(cookie)
  }


  /// `2026-11-30T01:46:36.123Z`.
  public static func iso8601(_ date: Date) -> String {
    let seconds = min(max(0, date.timeIntervalSince1970), HistoryRow.latestTime)
    let milliseconds = Int((seconds * 1000).rounded(.down))
    var whole = time_t(milliseconds / 1000)
    var parts = tm()
    gmtime_r(&whole, &parts)
    func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
    let fraction = milliseconds % 1000
    let millis = fraction < 10 ? "00\(fraction)" : fraction < 100 ? "0\(fraction)" : "\(fraction)"
    return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
      + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(millis)Z"
  }
}
