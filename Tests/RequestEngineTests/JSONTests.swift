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
      _ = try JSONParser.parse(text)
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
}
