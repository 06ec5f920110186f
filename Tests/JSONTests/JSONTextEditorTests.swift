import RequestEngine
import Testing

/// The format-preserving writer over the parser's layout (`JSONParser.parseLayout`): what it
/// keeps of texts laid out in every way JSON allows.
@Suite("JSONTextEditor over the parser's layout")
struct JSONTextEditorTests {
  static let texts = [
    "{}", "[]", "{ }", "[\n\t]", " \r\n{\"a\":1}\r\n", "\u{FEFF}{\"a\" :\t[1 ,2 , {\"b\" : { } } ] }",
    "[[], [[ ]], {\"x\": [ \"s\\\"q\" , -1.50e+3, true, false, null ] }]",
    "{\n    \"a\": {\n        \"b\": [\n            1,\n            2\n        ]\n    },\n    \"c\": \"d\"\n}\n",
  ]

  @Test(arguments: texts)
  func anUnchangedValueIsWrittenBackByteForByte(text: String) throws {
    let bytes = Array(text.utf8)
    let value = try JSONParser.parse(bytes)
    #expect(JSONTextEditor.write(value, over: bytes) == bytes)
  }

  @Test func oneChangedValueChangesOnlyItsOwnText() throws {
    let text = "{ \"a\" :\t[1 ,2 , {\"b\" : { } } ] ,\n  \"c\":  \"d\" }"
    var value = try JSONParser.parse(text)
    value = ["a": [1, 3, ["b": [:]]], "c": "d"]
    #expect(JSONTextEditor.write(value, over: Array(text.utf8)).map { String(decoding: $0, as: UTF8.self) }
      == "{ \"a\" :\t[1 ,3 , {\"b\" : { } } ] ,\n  \"c\":  \"d\" }")
    value = ["a": [1, 2, ["b": ["new": true]]], "c": "d"]
    #expect(JSONTextEditor.write(value, over: Array(text.utf8)).map { String(decoding: $0, as: UTF8.self) }
      == "{ \"a\" :\t[1 ,2 , {\"b\" : {\"new\": true} } ] ,\n  \"c\":  \"d\" }")
  }

  @Test func invalidTextIsNotWrittenOver() {
    #expect(JSONTextEditor.write(["a": 1], over: Array("{\"a\": 1,}".utf8)) == nil)
  }
}
