import Foundation
import JSON

/// Streamed responses: server-sent events and NDJSON, written as they happen.
///
/// - `/sse/ticker` (any method): `event: tick`, `id: N`, `data: {"tick":N,"at":"…"}` every
///   `interval` seconds (default 1), `count` events (0 or absent: until the client leaves),
///   starting after the request's `Last-Event-ID`. `heartbeat=S` writes a `: heartbeat` comment
///   every S seconds between events; `retry=MS` sends `retry: MS` first (`empty=1`: and ends
///   there, before any event); `drop_after=K` drops the
///   connection after K events of this connection; `eol=cr|crlf|lf` picks the line end; `bom=1`
///   starts with a BOM; `size=B` pads each event's data to about B bytes (`"pad":"xx…"`).
///   `interval=0` writes the events as fast as the socket takes them, 1,000 to a write. When the
///   `Last-Event-ID` is already the last of `count`, it answers 204 (EventSource stops there).
/// - `POST /sse/chat`: a chat-like completion streamed token by token, as LLM APIs do:
///   `data: {"choices":[{"delta":{"content":"…"}}]}` per token every `interval` s (0.05), then
///   `data: [DONE]`. The body's `"prompt"` is echoed in the answer.
/// - `/ndjson` (any method): `application/x-ndjson`, one `{"n":N,…}` a line, `count` (10) lines
///   every `interval` s (0.2; 0 writes them all at once).
extension App {
  func streamEndpoint(_ request: ServerRequest, _ rest: [String], _ context: Context) -> ServerResponse {
    switch rest {
    case ["ticker"]: return ticker(request)
    case ["chat"]:
      if let refused = requireMethod(request, ["POST"]) { return refused }
      return chat(request)
    default: return .error(404, "not found: \(request.path); try /sse/ticker or POST /sse/chat")
    }
  }

  private func streamNumber(_ request: ServerRequest, _ name: String, default value: Int, atMost limit: Int) -> Int? {
    guard let text = request.queryValue(name) else { return value }
    guard let n = parseNonNegativeInt(Substring(text)), n <= limit else { return nil }
    return n
  }

  func ticker(_ request: ServerRequest) -> ServerResponse {
    guard let count = streamNumber(request, "count", default: 0, atMost: 100_000_000),
      let dropAfter = streamNumber(request, "drop_after", default: 0, atMost: 100_000_000),
      let retry = streamNumber(request, "retry", default: 0, atMost: 3_600_000),
      let size = streamNumber(request, "size", default: 0, atMost: 16 << 20)
    else {
      return .error(400, "count, drop_after, retry and size must be whole numbers (count ≤ 100000000, size ≤ 16777216)")
    }
    let interval = min(parseSeconds(request.queryValue("interval")) ?? 1, 60)
    let heartbeat = min(parseSeconds(request.queryValue("heartbeat")) ?? 0, 60)
    let eol: String
    switch request.queryValue("eol") ?? "lf" {
    case "lf": eol = "\n"
    case "cr": eol = "\r"
    case "crlf": eol = "\r\n"
    default: return .error(400, "eol must be lf, cr or crlf")
    }
    // Resume after the last event the client saw (EventSource's reconnect).
    let first = (request.header("Last-Event-ID").flatMap { Int($0) } ?? 0) + 1
    let last = count == 0 ? Int.max : count
    // Nothing left after the client's last event: 204 tells an EventSource to stop reconnecting.
    if first > last { return ServerResponse(status: 204, body: .none) }
    let pad = size > 0 ? String(repeating: "x", count: size) : nil
    let bom = request.queryValue("bom") == "1"
    return ServerResponse(
      status: 200,
      headers: [("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-cache")],
      body: .stream(length: nil) { stream in
        var out = bom ? [0xEF, 0xBB, 0xBF] : [UInt8]()
        if request.queryValue("retry") != nil { out += Array("retry: \(retry)\(eol)\(eol)".utf8) }
        if !out.isEmpty { try stream.write(out) }
        out.removeAll(keepingCapacity: true)
        // `empty=1`: the stream ends before its first event (a server that drops at once).
        if request.queryValue("empty") == "1" { return }
        var sent = 0
        var n = first
        while n <= last {
          var data = "{\"tick\":\(n)"
          if let pad { data += ",\"pad\":\"\(pad)\"" }
          data += "}"
          out += Array("event: tick\(eol)id: \(n)\(eol)data: \(data)\(eol)\(eol)".utf8)
          sent += 1
          n += 1
          let dropping = dropAfter > 0 && sent >= dropAfter
          if interval > 0 || out.count >= 64 << 10 || n > last || dropping || sent % 1000 == 0 {
            try stream.write(out)
            out.removeAll(keepingCapacity: true)
          }
          if dropping { return stream.drop() }
          if interval > 0, n <= last {
            guard App.waitWithHeartbeats(stream, interval, heartbeat, eol) else { return stream.drop() }
          }
        }
      })
  }

  /// Waits `interval` seconds, writing a `: heartbeat` comment every `heartbeat` seconds; false
  /// when the client went away or the server stops.
  private static func waitWithHeartbeats(_ stream: BodyStream, _ interval: Double, _ heartbeat: Double, _ eol: String) -> Bool {
    guard heartbeat > 0, heartbeat < interval else { return stream.sleep(interval) }
    var left = interval
    while left > heartbeat {
      guard stream.sleep(heartbeat), (try? stream.write(Array(": heartbeat\(eol)".utf8))) != nil else { return false }
      left -= heartbeat
    }
    return stream.sleep(left)
  }

  func chat(_ request: ServerRequest) -> ServerResponse {
    let prompt: String
    if request.body.isEmpty {
      prompt = "hello"
    } else if let body = try? JSONParser.parse(request.body), case .string(let text)? = body["prompt"] {
      prompt = text
    } else {
      return .error(400, "expected a JSON body like {\"prompt\": \"hello\"}")
    }
    let interval = min(parseSeconds(request.queryValue("interval")) ?? 0.05, 10)
    let answer = "You said: \(prompt). Streams arrive one token at a time, so you can watch them."
    var tokens: [String] = []
    var word = ""
    for character in answer {
      word.append(character)
      if character == " " {
        tokens.append(word)
        word = ""
      }
    }
    if !word.isEmpty { tokens.append(word) }
    return ServerResponse(
      status: 200,
      headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")],
      body: .stream(length: nil) { stream in
        for (i, token) in tokens.enumerated() {
          if i > 0, interval > 0, !stream.sleep(interval) { return stream.drop() }
          let delta = JSONValue.obj([
            "id": .string("chat-1"), "index": .int(i),
            "choices": .array([.obj(["delta": .obj(["content": .string(token)])])]),
          ])
          try stream.write(Array("data: ".utf8) + delta.compact() + Array("\n\n".utf8))
        }
        try stream.write(Array("data: [DONE]\n\n".utf8))
      })
  }

  func ndjson(_ request: ServerRequest) -> ServerResponse {
    guard let count = streamNumber(request, "count", default: 10, atMost: 100_000_000) else {
      return .error(400, "count must be a whole number up to 100000000")
    }
    let interval = min(parseSeconds(request.queryValue("interval")) ?? 0.2, 60)
    return ServerResponse(
      status: 200, headers: [("Content-Type", "application/x-ndjson")],
      body: .stream(length: nil) { stream in
        var out: [UInt8] = []
        for n in 1...max(1, count) where count > 0 {
          out += JSONValue.obj(["n": .int(n), "level": .string(n % 5 == 0 ? "warn" : "info"), "message": .string("line \(n)")])
            .compact() + [0x0A]
          if interval > 0 || out.count >= 64 << 10 || n == count {
            try stream.write(out)
            out.removeAll(keepingCapacity: true)
          }
          if interval > 0, n < count, !stream.sleep(interval) { return stream.drop() }
        }
      })
  }
}
