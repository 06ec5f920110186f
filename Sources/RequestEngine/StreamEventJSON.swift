extension StreamEvent {
  /// `{"event":"stream","name":…,"id":…,"index":…,"type":…,"eventId":…,"data":…,"ms":…}`: the
  /// event as `run --json` prints it and the TUI's `w` writes it (`type` and `eventId` are SSE's
  /// `event` and `id`, null for the line formats; `id` is the exchange's; `ms` since the
  /// exchange started, to a tenth; `"truncated": true` when the data was cut). Written member by
  /// member (a caller may add its own after them, then `end()`s the object): a stream of 100,000
  /// events is 100,000 of these lines.
  public func writeJSON(name: String, exchange: ExchangeID, into line: inout JSONObjectWriter) {
    writeJSON(after: Self.jsonPrefix(name: name, exchange: exchange), into: &line)
  }

  /// The members every line of one exchange's events starts with (`"event"`, `"name"`, `"id"`),
  /// written once for many events (`writeJSON(after:into:)`).
  public static func jsonPrefix(name: String, exchange: ExchangeID) -> JSONMembers {
    var prefix = JSONObjectWriter()
    prefix.member("event", "stream")
    prefix.member("name", name)
    prefix.member("id", Int(exchange.rawValue))
    return prefix.membersText()
  }

  /// `writeJSON`, with the members `jsonPrefix` wrote.
  public func writeJSON(after prefix: JSONMembers, into line: inout JSONObjectWriter) {
    line.members(prefix)
    line.member("index", index)
    line.member("type", type)
    line.member("eventId", id)
    line.member("data", data)
    line.member("ms", tenths: Int((seconds * 10_000).rounded()))
    if truncated { line.member("truncated", true) }
  }

  /// Events as NDJSON: one `writeJSON` object a line, each ended by a newline.
  public static func ndjson(_ events: some Sequence<StreamEvent>, name: String, exchange: ExchangeID) -> [UInt8] {
    var bytes: [UInt8] = []
    let prefix = jsonPrefix(name: name, exchange: exchange)
    for event in events {
      var line = JSONObjectWriter()
      event.writeJSON(after: prefix, into: &line)
      line.end(appendingTo: &bytes)
      bytes.append(0x0A)
    }
    return bytes
  }
}
