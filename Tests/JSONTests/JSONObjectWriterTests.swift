import RequestEngine
import TestSupport
import Testing

/// `JSONObjectWriter` writes what `JSONSerializer.compact` writes for the object of the same
/// members: checked member kind by member kind, and over seeded random members.
@Suite("JSONObjectWriter")
struct JSONObjectWriterTests {
  @Test func writesWhatTheSerializerWritesForTheSameMembers() {
    var line = JSONObjectWriter()
    line.member("s", "a \"q\" \\ é\n\u{1}\u{2028}")
    line.member("none", nil)
    line.member("n", -42)
    line.member("max", Int.max)
    line.member("min", Int.min)
    line.member("t", true)
    line.member("ms", tenths: 19)
    line.member("whole", tenths: 20)
    line.member("v", value: .array([.number(1), .null, .object(JSONObject([("k", "v")]))]))
    let expected = JSONValue.object(JSONObject([
      ("s", "a \"q\" \\ é\n\u{1}\u{2028}"), ("none", .null), ("n", .number(-42)), ("max", .number(Int.max)),
      ("min", .number(Int.min)), ("t", true), ("ms", .number(1.9)), ("whole", .number(2.0)),
      ("v", .array([.number(1), .null, .object(JSONObject([("k", "v")]))])),
    ]))
    var bytes = Array("x".utf8)
    line.end(appendingTo: &bytes)
    #expect(String(decoding: bytes, as: UTF8.self) == "x" + JSONSerializer.compact(expected))
    var empty: [UInt8] = []
    var nothing = JSONObjectWriter()
    nothing.end(appendingTo: &empty)
    #expect(empty == Array("{}".utf8))
  }

  /// Members written once (`membersText`) and put before others (`members`) give the object
  /// of all the members, in that order; a stream event's line is the same with its prefix
  /// written once for many events.
  @Test func membersWrittenOnceStartOtherObjects() {
    var first = JSONObjectWriter()
    first.member("event", "stream")
    first.member("id", 7)
    let prefix = first.membersText()
    #expect(String(decoding: prefix.text, as: UTF8.self) == #""event":"stream","id":7"#)
    var line = JSONObjectWriter()
    line.members(prefix)
    line.member("index", 2)
    var bytes: [UInt8] = []
    line.end(appendingTo: &bytes)
    #expect(String(decoding: bytes, as: UTF8.self) == #"{"event":"stream","id":7,"index":2}"#)
    var after = JSONObjectWriter()
    after.member("a", 1)
    after.members(prefix)
    after.members(JSONMembers())
    bytes = []
    after.end(appendingTo: &bytes)
    #expect(String(decoding: bytes, as: UTF8.self) == #"{"a":1,"event":"stream","id":7}"#)
    let afterIsASCII = after.isASCII
    #expect(afterIsASCII)
    // Members with non-ASCII text make every object they start non-ASCII (a request name with
    // a bidirectional control must still be escaped by `Output`), until the writer is reset.
    var named = JSONObjectWriter()
    named.member("name", "caf\u{E9}\u{202E}")
    let nonASCII = named.membersText()
    var started = JSONObjectWriter()
    started.member("a", 1)
    var states = [started.isASCII]
    started.members(nonASCII)
    states.append(started.isASCII)
    started.reset()
    states.append(started.isASCII)
    #expect(states == [true, false, true])

    // One writer for many lines: each starts empty.
    var kept = JSONObjectWriter()
    kept.member("long", String(repeating: "y", count: 600))
    bytes = []
    kept.end(appendingTo: &bytes)
    kept.reset()
    bytes = []
    kept.end(appendingTo: &bytes)
    #expect(bytes == Array("{}".utf8))
    kept.reset()
    kept.member("b", 2)
    bytes = []
    kept.end(appendingTo: &bytes)
    #expect(String(decoding: bytes, as: UTF8.self) == #"{"b":2}"#)

    let event = StreamEvent(format: .sse, index: 3, type: "tick", id: "4", data: "{\"n\":1}", size: 20, seconds: 0.0123)
    var whole = JSONObjectWriter()
    event.writeJSON(name: "t", exchange: ExchangeID(rawValue: 9), into: &whole)
    var shared = JSONObjectWriter()
    event.writeJSON(after: StreamEvent.jsonPrefix(name: "t", exchange: ExchangeID(rawValue: 9)), into: &shared)
    var a: [UInt8] = []
    var b: [UInt8] = []
    whole.end(appendingTo: &a)
    shared.end(appendingTo: &b)
    #expect(a == b)
    #expect(
      String(decoding: a, as: UTF8.self)
        == #"{"event":"stream","name":"t","id":9,"index":3,"type":"tick","eventId":"4","data":"{\"n\":1}","ms":12.3}"#)
  }

  /// Tenths are written as `JSONValue.number(Double(tenths) / 10)` writes the same number, over
  /// 10,000 seeded values from 0 to a year of milliseconds and a few edges.
  @Test func tenthsMatchTheDoubleFormatting() {
    var random = SplitMix(seed: 0x5EED)
    let edges = [0, 1, 9, 10, 11, 99, 100, 101, -1, -5, -10, -15, 315_360_000_000]
    let values = edges + (0..<10_000).map { _ in random.below(315_360_000_000) }
    for tenths in values {
      var line = JSONObjectWriter()
      line.member("ms", tenths: tenths)
      var bytes: [UInt8] = []
      line.end(appendingTo: &bytes)
      let expected = JSONSerializer.compact(.object(JSONObject([("ms", .number(Double(tenths) / 10))])))
      #expect(String(decoding: bytes, as: UTF8.self) == expected, "\(tenths)")
    }
  }

  /// Whole numbers at every length, both signs, the extremes and 10,000 seeded values of every
  /// magnitude are written as Swift writes them (the digits are counted first, then written two
  /// at a time from the end), under a key of one character and under longer ones.
  @Test func decimalsAtEveryLength() {
    var random = SplitMix(seed: 0xD161_7500)
    var values = [0, Int.max, Int.min, Int.min + 1]
    var power = 1
    for _ in 0..<18 {
      power *= 10
      values += [power - 1, power, power + 1, -(power - 1), -power, -(power + 1)]
    }
    values += (0..<10_000).map { _ in
      let magnitude = random.below(1 << (1 + random.below(62)))
      return random.below(2) == 0 ? magnitude : -magnitude
    }
    for value in values {
      var line = JSONObjectWriter()
      line.member("n", value)
      line.member("index", value)
      var bytes: [UInt8] = []
      line.end(appendingTo: &bytes)
      #expect(String(decoding: bytes, as: UTF8.self) == "{\"n\":\(value),\"index\":\(value)}", "\(value)")
    }
  }

  /// The one escaping routine: 2,000 seeded strings of quotes, backslashes, controls, DEL,
  /// U+2028/9, other non-ASCII and plain runs parse back to themselves, through the serializer
  /// and through the writer alike, and nothing but those is escaped.
  @Test func quotingRoundTrips() throws {
    var random = SplitMix(seed: 0x0B5E55ED)
    let pieces: [String] = ["\"", "\\", "\n", "\r", "\t", "\u{8}", "\u{C}", "\u{1}", "\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}",
                            "\u{2027}", "é", "€", "😀", "a", "plain text ", "{\"k\":1}"]
    for _ in 0..<2_000 {
      let text = (0..<random.below(12)).map { _ in pieces[random.below(pieces.count)] }.joined()
      let quoted = JSONSerializer.quote(text)
      #expect(try JSONParser.parse(quoted) == .string(text), "\(quoted)")
      var line = JSONObjectWriter()
      line.member("s", text)
      var bytes: [UInt8] = []
      line.end(appendingTo: &bytes)
      #expect(String(decoding: bytes, as: UTF8.self) == "{\"s\":" + quoted + "}")
      // What `Output` relies on to skip looking for C1 and bidirectional controls.
      let isASCII = line.isASCII  // (#expect cannot take a noncopyable value's property)
      #expect(isASCII == text.utf8.allSatisfy { $0 < 0x80 }, "\(quoted)")
      #expect(!quoted.contains("\u{2028}") && !quoted.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F })
      #expect(quoted.contains("€") == text.contains("€") && quoted.contains("\u{2027}") == text.contains("\u{2027}"))
    }
  }

  /// Every ASCII character and U+2028/9 alone: exactly the C0 controls, `"`, `\\`, DEL and the
  /// two separators are escaped, everything else is written as it is.
  @Test func exactlyTheseAreEscaped() throws {
    for value in Array(0..<128) + [0x2028, 0x2029, 0x2027, 0xE9] {
      let text = String(Unicode.Scalar(UInt32(value))!)
      let quoted = JSONSerializer.quote(text)
      let escaped = value < 0x20 || value == 0x22 || value == 0x5C || value == 0x7F || value == 0x2028 || value == 0x2029
      #expect((quoted != "\"" + text + "\"") == escaped, "\(value): \(quoted)")
      #expect(try JSONParser.parse(quoted) == .string(text))
    }
  }
}
