import Testing

@testable import RequestEngine

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

  @Test func compileErrorsAreReported() {
    #expect(throws: JQ.Failure.self) { try JQ.run(".users[", input: body) }
    do {
      _ = try JQ.run(".users[", input: body)
    } catch {
      #expect(error.message.contains("syntax error") || error.message.contains("compile"))
    }
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

  /// Issue 18, item 2: libjq takes lengths as `int`; a body over 2 GiB passed whole aborted in
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
}
