import Foundation
import RequestEngine
import Testing
import TestSupport

/// The stream parser: the WHATWG event-stream rules and the
/// line formats, fed in every possible cut of the bytes. Pure: no server.
@Suite("Stream parser")
struct StreamParserTests {
  /// What an event is once its time and size are set aside.
  struct Seen: Equatable, CustomStringConvertible {
    var index: Int
    var type: String?
    var id: String?
    var data: String
    var truncated = false
    var description: String { "#\(index) \(type ?? "-") id=\(id ?? "-") \(data.debugDescription)\(truncated ? " truncated" : "")" }
  }

  static func seen(_ events: [StreamEvent]) -> [Seen] {
    events.map { Seen(index: $0.index, type: $0.type, id: $0.id, data: $0.data, truncated: $0.truncated) }
  }

  /// Everything the parser makes of `bytes` fed in the pieces `cuts` makes (offsets), then ended.
  static func parse(_ bytes: [UInt8], _ format: StreamFormat, cuts: [Int] = [], maxEventBytes: Int = 16 << 20) -> [StreamEvent] {
    var parser = StreamParser(format: format, maxEventBytes: maxEventBytes)
    var out: [StreamEvent] = []
    var start = 0
    for cut in cuts + [bytes.count] where cut >= start {
      out += parser.feed(Array(bytes[start..<cut]), at: Double(cut))
      start = cut
    }
    return out + parser.finish(at: Double(bytes.count))
  }

  /// The same events whatever the pieces: every single cut, and one byte at a time.
  static func expectSameAtEveryCut(_ text: String, _ format: StreamFormat, _ expected: [Seen], sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    let bytes = Array(text.utf8)
    #expect(seen(parse(bytes, format)) == expected, "whole", sourceLocation: sourceLocation)
    for cut in 0...bytes.count {
      let got = seen(parse(bytes, format, cuts: [cut]))
      if got != expected {
        Issue.record("cut at byte \(cut): \(got)", sourceLocation: sourceLocation)
        return
      }
    }
    #expect(seen(parse(bytes, format, cuts: Array(0...bytes.count))) == expected, "byte by byte", sourceLocation: sourceLocation)
  }

  @Test func theWHATWGRulesAtEverySplitOffset() {
    let text = "\u{FEFF}: a comment, then a heartbeat\n:\n"
      + "data: first\n\n"
      + "event: add\ndata: 73857293\ndata:second line\nid: 7\n\n"
      + "data\n\n"  // a field without a colon: data with an empty value
      + "data:  two spaces keep one\nunknown: ignored\n\n"
      + "id: 8\n\n"  // no data: nothing dispatched, the id still counts
      + "event: x\nretry: 2500\ndata: after id 8\n\n"
      + "id\ndata: id reset\n\n"
      + "data: ünïcødé ✓ 🦊\n\n"
      + "data: not ended by an empty line"
    StreamParserTests.expectSameAtEveryCut(text, .sse, [
      Seen(index: 0, type: "message", id: nil, data: "first"),
      Seen(index: 1, type: "add", id: "7", data: "73857293\nsecond line"),
      Seen(index: 2, type: "message", id: "7", data: ""),
      Seen(index: 3, type: "message", id: "7", data: " two spaces keep one"),
      Seen(index: 4, type: "x", id: "8", data: "after id 8"),
      Seen(index: 5, type: "message", id: "", data: "id reset"),
      Seen(index: 6, type: "message", id: "", data: "ünïcødé ✓ 🦊"),
    ])
  }

  /// The examples of the WHATWG HTML specification's "Server-sent events" section (§9.2.5,
  /// "Parsing an event stream", and §9.2.6, "Interpreting an event stream"), as written there,
  /// with the events the specification says they fire.
  @Test func theSpecificationsExamplesAsWritten() {
    // Three messages, the second of two lines.
    StreamParserTests.expectSameAtEveryCut(
      "data: This is the first message.\n\ndata: This is the second message, it\ndata: has two lines.\n\n"
        + "data: This is the third message.\n\n", .sse,
      [
        Seen(index: 0, type: "message", id: nil, data: "This is the first message."),
        Seen(index: 1, type: "message", id: nil, data: "This is the second message, it\nhas two lines."),
        Seen(index: 2, type: "message", id: nil, data: "This is the third message."),
      ])
    // Named events.
    StreamParserTests.expectSameAtEveryCut(
      "event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\nevent: add\ndata: 113411\n\n", .sse,
      [
        Seen(index: 0, type: "add", id: nil, data: "73857293"),
        Seen(index: 1, type: "remove", id: nil, data: "2153"),
        Seen(index: 2, type: "add", id: nil, data: "113411"),
      ])
    // One event of three lines ("YHOO\n+2\n10").
    StreamParserTests.expectSameAtEveryCut(
      "data: YHOO\ndata: +2\ndata: 10\n\n", .sse, [Seen(index: 0, type: "message", id: nil, data: "YHOO\n+2\n10")])
    // A comment; an id; an id field without a value resets the last event id; of two spaces
    // after the colon only the first goes; the last block is not followed by a blank line here,
    // so it fires only when the stream goes on with one.
    StreamParserTests.expectSameAtEveryCut(
      ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n", .sse,
      [
        Seen(index: 0, type: "message", id: "1", data: "first event"),
        Seen(index: 1, type: "message", id: "", data: "second event"),
        Seen(index: 2, type: "message", id: "", data: " third event"),
      ])
    // `data` without a colon: the first block fires an event whose data is empty, the middle
    // block one whose data is a single newline; the last, not followed by a blank line, none.
    StreamParserTests.expectSameAtEveryCut(
      "data\n\ndata\ndata\n\ndata:", .sse,
      [Seen(index: 0, type: "message", id: nil, data: ""), Seen(index: 1, type: "message", id: nil, data: "\n")])
    // With and without the space after the colon: two identical events.
    StreamParserTests.expectSameAtEveryCut(
      "data:test\n\ndata: test\n\n", .sse,
      [Seen(index: 0, type: "message", id: nil, data: "test"), Seen(index: 1, type: "message", id: nil, data: "test")])
  }

  @Test(arguments: ["\r\n", "\r", "\n"]) func everyLineEnd(_ end: String) {
    let text = ["data: a", "data: b", "", "event: e", "data: c", "", ""].joined(separator: end)
    StreamParserTests.expectSameAtEveryCut(text, .sse, [
      Seen(index: 0, type: "message", id: nil, data: "a\nb"),
      Seen(index: 1, type: "e", id: nil, data: "c"),
    ])
  }

  @Test func mixedLineEndsAndACRAtAChunkEnd() {
    // CR then LF in the next piece is one line end, not an empty line between them.
    var parser = StreamParser(format: .sse)
    #expect(parser.feed(Array("data: a\r".utf8), at: 0).isEmpty)
    #expect(parser.feed(Array("\ndata: b\r".utf8), at: 1).isEmpty)
    let events = parser.feed(Array("\r".utf8), at: 2)
    #expect(StreamParserTests.seen(events) == [Seen(index: 0, type: "message", id: nil, data: "a\nb")])
    #expect(events.first?.seconds == 2)
  }

  @Test func retryAndIDRules() {
    var parser = StreamParser(format: .sse)
    _ = parser.feed(Array("retry: 1500\n\nretry: 12a\n\nretry:\n\nid: a\u{0}b\n\n".utf8), at: 0)
    #expect(parser.retryMilliseconds == 1500)  // "12a" and "" are not numbers; ignored
    #expect(parser.lastEventID == nil)  // an id with NUL is ignored
    _ = parser.feed(Array("id: 41\n\n".utf8), at: 0)
    #expect(parser.lastEventID == "41")
  }

  /// Field names are compared exactly, byte for byte: a name that only starts like one, or
  /// differs in case, is an unknown field and ignored.
  @Test func fieldNamesMatchExactly() {
    StreamParserTests.expectSameAtEveryCut(
      "Data: no\ndatas: no\nid2: 9\nevent : x\nretryx: 5\ndat: no\ndata: yes\n\n", .sse,
      [Seen(index: 0, type: "message", id: nil, data: "yes")])
    var parser = StreamParser(format: .sse)
    _ = parser.feed(Array("retryx: 5\nRETRY: 6\n\n".utf8), at: 0)
    #expect(parser.retryMilliseconds == nil)
  }

  @Test func aBOMOnlyAtTheStartAndNotHalfOfOne() {
    StreamParserTests.expectSameAtEveryCut("\u{FEFF}data: x\n\n", .sse, [Seen(index: 0, type: "message", id: nil, data: "x")])
    // Bytes that begin like a BOM but are not one are text of the first line.
    let bytes: [UInt8] = [0xEF, 0xBB] + Array("x\n".utf8)
    for cut in 0...bytes.count {
      let events = StreamParserTests.parse(bytes, .lines, cuts: [cut])
      #expect(events.map(\.data) == [String(decoding: [0xEF, 0xBB, 0x78], as: UTF8.self)], "cut \(cut)")
    }
  }

  @Test func sizesAndTimesAreTheEventsOwn() {
    var parser = StreamParser(format: .sse)
    let first = parser.feed(Array("data: ab\n".utf8), at: 1)
    let second = parser.feed(Array("\ndata: c\n\n".utf8), at: 2.5)
    #expect(first.isEmpty)
    #expect(second.map(\.size) == [10, 9])
    #expect(second.map(\.seconds) == [2.5, 2.5])
  }

  @Test func ndjsonAtEverySplitOffset() {
    let text = "{\"a\":1}\n\n  \n{\"b\":\"ü\"}\r\n[1,2]\n\"last, no line end\""
    StreamParserTests.expectSameAtEveryCut(text, .ndjson, [
      Seen(index: 0, type: nil, id: nil, data: "{\"a\":1}"),
      Seen(index: 1, type: nil, id: nil, data: "{\"b\":\"ü\"}"),
      Seen(index: 2, type: nil, id: nil, data: "[1,2]"),
      Seen(index: 3, type: nil, id: nil, data: "\"last, no line end\""),
    ])
  }

  @Test func jsonTextSequencesAtEverySplitOffset() {
    let text = "\u{1E}{\"a\":1}\n\u{1E}{\"b\":2}\n\u{1E}\n\u{1E}3"
    StreamParserTests.expectSameAtEveryCut(text, .jsonSeq, [
      Seen(index: 0, type: nil, id: nil, data: "{\"a\":1}"),
      Seen(index: 1, type: nil, id: nil, data: "{\"b\":2}"),
      Seen(index: 2, type: nil, id: nil, data: "3"),
    ])
  }

  /// The cap holds the same whether a long line comes whole in one piece (parsed where it is)
  /// or in pieces (kept until its end): every cut of a stream with lines over an 8-byte cap.
  @Test func theCapIsTheSameWholeOrInPieces() {
    for format in [StreamFormat.sse, .ndjson] {
      let text = format == .sse
        ? "event: tock-tock-tock\ndata: 0123456789abc\ndata: d\r\n\rdata: ok\n\n: comment that is long\ndata: 12345678\n\n"
        : "0123456789abc\nshort\r\n\r12345678\nlast-line-over-the-cap"
      let bytes = Array(text.utf8)
      let whole = StreamParserTests.parse(bytes, format, maxEventBytes: 8)
      #expect(whole.count == (format == .sse ? 3 : 4))
      #expect(whole.first?.truncated == true && whole.first?.data.utf8.count == 8, "\(whole)")
      for cut in 0...bytes.count {
        let pieces = StreamParserTests.parse(bytes, format, cuts: [cut], maxEventBytes: 8)
        #expect(pieces.map(\.data) == whole.map(\.data), "\(format) cut at \(cut)")
        #expect(pieces.map(\.truncated) == whole.map(\.truncated), "\(format) cut at \(cut)")
        #expect(pieces.map(\.size) == whole.map(\.size), "\(format) cut at \(cut)")
        #expect(pieces.map(\.type) == whole.map(\.type), "\(format) cut at \(cut)")
      }
      let bytewise = StreamParserTests.parse(bytes, format, cuts: Array(1..<bytes.count), maxEventBytes: 8)
      #expect(bytewise.map(\.data) == whole.map(\.data))
    }
  }

  @Test func aLongEventIsCutToTheLimitAndSaysSo() {
    let long = String(repeating: "x", count: 5000)
    let events = StreamParserTests.parse(Array("data: \(long)\ndata: more\n\ndata: next\n\n".utf8), .sse, maxEventBytes: 1000)
    #expect(events.count == 2)
    #expect(events[0].data.utf8.count == 1000)
    #expect(events[0].truncated)
    #expect(events[0].size == 6 + 5000 + 1 + 11 + 1)
    #expect(events[1].data == "next")
    #expect(!events[1].truncated)
    let lines = StreamParserTests.parse(Array("\(long)\nshort\n".utf8), .ndjson, maxEventBytes: 100)
    #expect(lines.map(\.data.utf8.count) == [100, 5])
    #expect(lines.map(\.truncated) == [true, false])
  }

  @Test func aOneMegabyteEventInSmallPieces() {
    let data = String(repeating: "0123456789abcdef", count: 65_536)  // 1 MiB
    let bytes = Array("id: big\ndata: \(data)\n\n".utf8)
    let cuts = Array(stride(from: 1, to: bytes.count, by: 16_381))
    let events = StreamParserTests.parse(bytes, .sse, cuts: cuts)
    #expect(events.count == 1)
    #expect(events.first?.data == data)
    #expect(events.first?.id == "big")
  }

  @Test func theLogKeepsTheLastEventsWithinItsBudget() {
    var log = StreamLog(format: .sse, maxEvents: 100, maxBytes: 1000)
    for index in 0..<100_000 {
      log.append(StreamEvent(format: .sse, index: index, type: "message", id: nil, data: "event \(index)", size: 20, seconds: 0))
      #expect(log.keptBytes <= 1000)
    }
    #expect(log.total == 100_000)
    #expect(log.kept.count <= 100)
    #expect(log.kept.last?.index == 99_999)
    #expect(log.kept.first.map { 100_000 - $0.index } == log.kept.count)
    #expect(log.dropped == 100_000 - log.kept.count)
    #expect(log.totalBytes == 2_000_000)
  }

  /// Events appended a hand-over at a time (as the engine does) leave the log as appending them
  /// one by one does: the same kept events, counts and bytes.
  @Test func theLogTakesAHandOverAsItTakesEachEvent() {
    var one = StreamLog(format: .sse, maxEvents: 100, maxBytes: 1000)
    var batched = StreamLog(format: .sse, maxEvents: 100, maxBytes: 1000)
    var random = SplitMix(seed: 0x10C)
    var index = 0
    for _ in 0..<2_000 {
      let events = (0..<random.below(40)).map { _ -> StreamEvent in
        defer { index += 1 }
        return StreamEvent(
          format: .sse, index: index, type: "message", id: nil, data: String(repeating: "x", count: random.below(30)),
          size: 10 + index % 7, seconds: 0)
      }
      for event in events { one.append(event) }
      batched.append(contentsOf: events)
      #expect(batched.keptBytes <= 1000)
    }
    #expect(batched.kept.map(\.index) == one.kept.map(\.index))
    #expect(batched.total == one.total && batched.totalBytes == one.totalBytes)
    #expect(batched.keptBytes == one.keptBytes && batched.dropped == one.dropped)
  }

  /// The log against a plain model (an array that drops its oldest while over either bound):
  /// hand-overs of every size (larger than the log's count too), events of every size (some over
  /// the byte budget alone), the kept events (in order and by position), counts and bytes the
  /// same after each.
  @Test func theLogKeepsWhatAPlainListKeeps() {
    var random = SplitMix(seed: 0x4196)
    for (maxEvents, maxBytes) in [(1, 50), (7, 60), (16, 10_000), (100, 300)] {
      var log = StreamLog(format: .sse, maxEvents: maxEvents, maxBytes: maxBytes)
      var model: [StreamEvent] = []
      var index = 0
      for _ in 0..<600 {
        let events = (0..<random.below(random.below(4) == 0 ? 3 * maxEvents + 2 : 5)).map { _ -> StreamEvent in
          defer { index += 1 }
          return StreamEvent(
            format: .sse, index: index, type: "t", id: String(index),
            data: String(repeating: "x", count: random.below(random.below(10) == 0 ? 2 * maxBytes : 12)),
            size: 5 + index % 3, seconds: 0)
        }
        if random.below(2) == 0 { log.append(contentsOf: events) } else { for event in events { log.append(event) } }
        for event in events {
          model.append(event)
          while model.count > maxEvents || (model.reduce(0) { $0 + $1.data.utf8.count } > maxBytes && model.count > 1) {
            model.removeFirst()
          }
        }
        #expect(log.kept.map(\.index) == model.map(\.index), "\(maxEvents) \(maxBytes)")
        #expect(Array(log.kept) == model)
        let kept = log.kept
        #expect(kept.indices.map { kept[$0] } == model, "read by position")
        #expect(log.keptBytes == model.reduce(0) { $0 + $1.data.utf8.count })
        #expect(log.last == model.last && log.total == index && log.dropped == index - model.count)
      }
    }
  }

  @Test func recognisedByContentType() {
    #expect(StreamFormat(contentType: "text/event-stream; charset=utf-8") == .sse)
    #expect(StreamFormat(contentType: "Application/X-NDJSON") == .ndjson)
    #expect(StreamFormat(contentType: "application/jsonl") == .ndjson)
    #expect(StreamFormat(contentType: "application/json-seq") == .jsonSeq)
    #expect(StreamFormat(contentType: "application/json") == nil)
    #expect(StreamFormat(contentType: "text/plain") == nil)
    #expect(StreamFormat(contentType: " \tTEXT/Event-Stream \t; charset=utf-8") == .sse)
    #expect(StreamFormat(contentType: "text/event-stream2") == nil)
    #expect(StreamFormat(contentType: "") == nil)
    #expect(StreamFormat(contentType: ";text/event-stream") == nil)
  }
}
