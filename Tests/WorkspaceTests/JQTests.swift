import RequestEngine
import Testing

@testable import Workspace
import WorkspaceTestSupport

@Suite("jq")
struct JQTests {
  let body = Array(#"{"users": [{"id": 1, "name": "Ada"}, {"id": 2, "name": "Grace"}], "token": "t"}"#.utf8)

  @Test func selectsValues() throws {
    #expect(try JQ.run(".token", input: body) == "\"t\"\n")
    #expect(try JQ.run(".users[].name", input: body) == "\"Ada\"\n\"Grace\"\n")
    #expect(try JQ.run(".users[0]", input: body, pretty: false) == #"{"id":1,"name":"Ada"}"# + "\n")
    #expect(try JQ.run(".users | length", input: body) == "2\n")
  }

  @Test func prettyPrintsWithTwoSpaces() throws {
    #expect(try JQ.run(".users[1]", input: body) == "{\n  \"id\": 2,\n  \"name\": \"Grace\"\n}\n")
  }

  @Test func compileErrorsAreReported() throws {
    let error = try #require(throws: JQ.Failure.self) { try JQ.run(".users[", input: body) }
    #expect(error.message.contains("syntax error") || error.message.contains("compile"), "\(error.message)")
  }

  @Test func runtimeErrorsAndInvalidInput() {
    do {
      _ = try JQ.run(".token.x", input: body)
      Issue.record("expected an error")
    } catch {
      #expect(error.message.contains("Cannot index string"))
    }
    do {
      _ = try JQ.run(".", input: Array("<html>".utf8))
      Issue.record("expected an error")
    } catch {
      #expect(error.message.hasPrefix("the body is not JSON"))
    }
  }

  /// libjq takes lengths as `int`; a body over 2 GiB passed whole aborted in
  /// jv_parse.c (a crash). The shim feeds it in pieces: over 2 GiB is an ordinary answer (here a
  /// parse error at its start: parsing 2 GiB of valid JSON takes libjq a minute and a half).
  @Test func aBodyOver2GiBIsNoCrash() throws {
    var big = [UInt8](repeating: UInt8(ascii: " "), count: (1 << 31) + 100)
    big[0] = UInt8(ascii: "<")
    #expect(throws: JQ.Failure.self) { try JQ.run(".a", input: big) }
  }

  /// Values, strings and numbers cut across piece boundaries parse as whole: the same answers
  /// one byte at a time as at once.
  @Test func aBodyFedInPiecesParsesTheSame() throws {
    let text = Array(#"  {"users": [{"id": 12345, "name": "Ada é Lovelace"}, {"id": 2.5e3, "name": "Grace"}], "t": true}  "#.utf8)
    for piece in [1, 2, 3, 7, 64] {
      #expect(try JQ.run(".users[].id", input: text, pretty: false, pieceSize: piece) == "12345\n2500\n")
      #expect(try JQ.run(".users[0].name", input: text, pretty: false, pieceSize: piece) == #""Ada é Lovelace""# + "\n")
      #expect(try JQ.run(".", input: Array(" 12".utf8), pretty: false, pieceSize: piece) == "12\n")
      #expect(throws: JQ.Failure.self) { try JQ.run(".", input: Array("1 2".utf8), pretty: false, pieceSize: piece) }
      #expect(throws: JQ.Failure.self) { try JQ.run(".", input: Array(#"{"a": "#.utf8), pretty: false, pieceSize: piece) }
    }
  }

  @Test func parseErrorsDoNotEchoTheBody() throws {
    let body = Array(("{\"a\": 1, " + String(repeating: "z", count: 10_000)).utf8)
    do {
      _ = try JQ.run(".", input: body)
      Issue.record("expected an error")
    } catch {
      #expect(error.message.hasPrefix("the body is not JSON"))
      #expect(error.message.count < 200, "\(error.message.prefix(300))")
    }
    #expect(throws: JQ.Failure.self) { try JQ.run(".", input: []) }
    #expect(throws: JQ.Failure.self) { try JQ.run(".", input: Array("1 2".utf8)) }
    #expect(try JQ.run(".", input: Array(" 12 ".utf8)) == "12\n")
  }

  /// A stream's events: the program compiled once, each event's outputs (compact) or its own
  /// error; only a program that does not compile throws.
  @Test func runsOverEachInputCompiledOnce() throws {
    let events = [
      #"{"choices":[{"delta":{"content":"Hel"}}]}"#, #"{"choices":[{"delta":{"content":"lo\u001e"}}]}"#, "[DONE]",
      #"{"choices":[]}"#, #"{"choices":"x"}"#, "",
    ]
    let results = try JQ.runEach(".choices[0].delta.content", inputs: events)
    #expect(results.count == 6)
    #expect(try results[0].get() == "\"Hel\"\n")
    #expect(try results[1].get() == "\"lo\\u001e\"\n")
    #expect(throws: JQ.Failure.self) { try results[2].get() }
    #expect(try results[3].get() == "null\n")
    #expect(throws: JQ.Failure.self) { try results[4].get() }
    #expect(throws: JQ.Failure.self) { try results[5].get() }
    #expect(try JQ.runEach(".[]", inputs: ["[1,2]", "[]"]).map { try $0.get() } == ["1\n2\n", ""])
    #expect(throws: JQ.Failure.self) { try JQ.runEach(".[", inputs: ["{}"]) }
    #expect(try JQ.runEach(".", inputs: []).isEmpty)
    // 10,000 events in one call: one compile (jq 1.6 takes milliseconds for each).
    let many = (0..<10_000).map { #"{"n":\#($0)}"# }
    let outputs = try JQ.runEach(".n", inputs: many)
    #expect(try outputs[9_999].get() == "9999\n")
    // A program kept for the next events: each run costs only its inputs.
    let program = try JQ.Program(".n + 1")
    #expect(program.runEach([#"{"n":1}"#]).map { try? $0.get() } == ["2\n"])
    #expect(program.runEach([#"{"n":2}"#, "nope", #"{"n":"x"}"#]).map { try? $0.get() } == ["3\n", nil, nil])
    #expect(program.runEach([]).isEmpty)
    #expect(throws: JQ.Failure.self) { try JQ.Program("{") }
  }

  /// What the TUI's `w` writes for a stream: `run --json`'s stream lines.
  @Test func eventsAsNDJSON() {
    let events = [
      StreamEvent(format: .sse, index: 0, type: "tick", id: "1", data: #"{"tick":1}"#, size: 30, seconds: 0.01234),
      StreamEvent(format: .ndjson, index: 1, type: nil, id: nil, data: "x\u{1b}", size: 3, seconds: 1, truncated: true),
    ]
    #expect(
      String(decoding: StreamEvent.ndjson(events, name: "ticker", exchange: ExchangeID(rawValue: 7)), as: UTF8.self)
        == #"{"event":"stream","name":"ticker","id":7,"index":0,"type":"tick","eventId":"1","data":"{\"tick\":1}","ms":12.3}"#
        + "\n"
        + #"{"event":"stream","name":"ticker","id":7,"index":1,"type":null,"eventId":null,"data":"x\u001b","ms":1000,"truncated":true}"#
        + "\n")
  }
}
