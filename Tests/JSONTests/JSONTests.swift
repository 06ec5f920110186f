import Base
import RequestEngine
import Testing

@Suite("JSON")
struct JSONTests {
  @Test func roundTripsKeyOrderAndNumberLiterals() throws {
    let text = #"{"z":1.0,"a":[true,false,null],"n":10000000000000000001,"s":"é\n\"x\""}"#
    let value = try JSONParser.parse(text)
    #expect(value.objectValue?.keys == ["z", "a", "n", "s"])
    #expect(JSONSerializer.compact(value) == text)
  }

  @Test func prettyKeepsShortScalarArraysOnOneLine() throws {
    let value = try JSONParser.parse(#"{"status":[200,299],"o":{"k":"v"}}"#)
    #expect(JSONSerializer.pretty(value) == "{\n  \"status\": [200, 299],\n  \"o\": {\n    \"k\": \"v\"\n  }\n}")
  }

  @Test(arguments: [
    ("{\n  \"a\": 1,\n}", 3, 1, "trailing comma before '}'"),
    ("{\n  \"a\" 1\n}", 2, 7, "unexpected character '1'; expected ':' after the key"),
    ("[1, 2", 1, 6, "unexpected end of input; expected ',' or ']'"),
    ("{\"a\": tru}", 1, 7, "unexpected character 't'; expected a value (strings need double quotes)"),
    ("{\"é\": 01}", 1, 8, "invalid number: leading zero"),
    ("{\"a\":1, \"a\":2}", 1, 9, "duplicate key \"a\""),
    ("", 1, 1, "the document is empty; expected a JSON value"),
  ])
  func reportsLineAndColumn(text: String, line: Int, column: Int, message: String) {
    do {
      _ = try JSONParser.parse(text, duplicateKeys: .refused)
      Issue.record("expected a syntax error")
    } catch {
      #expect(error.location == SourceLocation(line: line, column: column))
      #expect(error.message == message)
    }
  }

  @Test func recordsWhereEveryValueStarts() throws {
    let doc = try JSONParser.parseDocument(Array("{\n  \"requests\": [\n    {\"method\": \"GET\"}\n  ]\n}".utf8))
    let path = JSONPath.root.appending("requests").appending(0).appending("method")
    #expect(doc.locations[path] == SourceLocation(line: 3, column: 16))
    #expect(path.description == "$.requests[0].method")
  }

  @Test func surrogatePairs() throws {
    #expect(try JSONParser.parse(#""\ud83d\ude00""#) == .string("😀"))
  }

  @Test func quoteEscapesWhatJSONAndTerminalsNeedAndKeepsTheRest() {
    // C0 controls, DEL and the line and paragraph separators escaped; other text (multi-byte
    // included, the C1 controls left to ControlEscaping) kept byte for byte.
    #expect(JSONSerializer.quote("a\"b\\c\n\r\t\u{08}\u{0C}\u{01}\u{1F}\u{7F}") == #""a\"b\\c\n\r\t\b\f\u0001\u001f\u007f""#)
    #expect(JSONSerializer.quote("x\u{2028}y\u{2029}z") == #""x\u2028y\u2029z""#)
    #expect(JSONSerializer.quote("é€😀\u{2027}\u{202A}\u{85}") == "\"é€😀\u{2027}\u{202A}\u{85}\"")
    #expect(JSONSerializer.quote("") == "\"\"")
    // A run of plain bytes on each side of an escape, at the very start and end.
    #expect(JSONSerializer.quote("\n" + String(repeating: "a", count: 100) + "\u{2028}") == "\"\\n" + String(repeating: "a", count: 100) + "\\u2028\"")
  }

  @Test func compactIntoABufferAppendsTheSameText() throws {
    let value = try JSONParser.parse(#"{"a": [1, 2.5, "x\ny"], "b": {"c": null, "d": true}, "é": "€"}"#)
    var buffer = Array("prefix ".utf8)
    JSONSerializer.compact(value, into: &buffer)
    #expect(String(decoding: buffer, as: UTF8.self) == "prefix " + JSONSerializer.compact(value))
    #expect(JSONSerializer.compact(value) == #"{"a":[1,2.5,"x\ny"],"b":{"c":null,"d":true},"é":"€"}"#)
  }
}
