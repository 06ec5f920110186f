import Foundation
import RequestEngine
import Testing
import Workbench

/// JSON above `BodyDocument.prettyLimit` is laid out lazily, in exactly the shape small bodies get
/// from `JSONSerializer.pretty`, and opening it scans nothing beyond what is drawn.
@Suite("view: large JSON bodies")
struct LargeJSONTests {
  /// About 1.5 MB of minified JSON with every kind of value: nested objects and arrays, empty
  /// containers, short and long arrays of scalars, escapes (`\uXXXX` with surrogate pairs, `\/`,
  /// `\t`, in values, keys and short arrays), raw DEL and U+2028, unicode, numbers, literals.
  static let big: [UInt8] = {
    var items: [String] = []
    for i in 0..<4000 {
      items.append(
        #"{"id":\#(i),"name":"user \"\#(i)\" \\ é 漢","tags":["a","b"],"scores":[1,2,3,4,5,6,7,8,9],"#
          + #""empty":{},"none":[],"ok":true,"gone":null,"ratio":-1.5e3,"#
          + #""nested":{"deep":{"deeper":[{"x":1},{"y":[true,false]}]},"list":[[1,2],[]]},"#
          + #""esc":"\u65e5\u672c\u8a9e \ud83d\ude00 a\/b\tc \u0001 \u2028 \u00e9\n","short":["\u00e9","\/","\t"],"#
          + "\"raw\":\"del \u{7F} sep \u{2028}\","
          + #""\u006b\u0065\u0079":1,"#
          + #""text":"\#(String(repeating: "x", count: 200))"}"#)
    }
    return Array(("{\"data\":[" + items.joined(separator: ",") + "],\"count\":4000}").utf8)
  }()

  @Test func theLazyLayoutIsThePrettyLayout() throws {
    #expect(Self.big.count > BodyDocument.prettyLimit)
    let document = BodyDocument(bytes: Self.big, mediaType: "application/json")
    #expect(document.kind == .json)
    let expected = JSONSerializer.pretty(try JSONParser.parse(Self.big)).split(separator: "\n", omittingEmptySubsequences: false)
    // Opening it laid out nothing: the first screen is known, the end is not.
    let first = document.lineCount(atLeast: 40)
    #expect(!first.exact && first.count < 1000)
    // Read out of order, as scrolling and `G` do: each line is the pretty one.
    for i in [0, 1, 2, 63, 64, 65, 500, 129, 10_000, 3] {
      #expect(document.line(i) == String(expected[i]), "line \(i)")
    }
    #expect(document.totalLineCount() == expected.count)
    for (i, line) in expected.enumerated() where document.line(i) != String(line) {
      Issue.record("line \(i): \(document.line(i)) != \(line)")
      break
    }
    #expect(document.find("user \\\"3999\\\"", from: 0, forward: true) != nil)
    // Escapes decoded as the small bodies' layout shows them.
    let esc = (0..<80).map { document.line($0) }.first { $0.contains("\"esc\"") }
    #expect(esc == #"      "esc": "日本語 😀 a/b\tc \u0001 \u2028 é\n","#)
    #expect((0..<80).map { document.line($0) }.contains(#"      "short": ["é", "/", "\t"],"#))
    #expect(document.find("日本語 😀", from: 0, forward: true) != nil)
  }

  @Test func highlightingAppliesToLargeJSON() {
    let document = BodyDocument(bytes: Self.big, mediaType: "application/json")
    #expect(document.line(3) == "      \"id\": 0,")
    let spans = JSONHighlight.spans(document.line(3))
    #expect(spans.contains { $0.role == .key && $0.text == "\"id\"" })
    #expect(spans.contains { $0.role == .number && $0.text == "0" })
  }

  @Test func largeTextThatOnlyLooksLikeJSONStaysText() {
    var log = Array("[INFO] started\n".utf8)
    while log.count <= BodyDocument.prettyLimit { log += Array("[INFO] a line of a log\n".utf8) }
    #expect(BodyDocument(bytes: log, mediaType: "text/plain").kind == .text)
    #expect(BodyDocument(bytes: log, mediaType: "text/plain").line(1) == "[INFO] a line of a log")
  }

  @Test func malformedLargeJSONIsLaidOutAsFarAsItGoes() {
    var bytes = Array("{\"a\":[".utf8)
    while bytes.count <= BodyDocument.prettyLimit { bytes += Array("{\"k\":1},".utf8) }
    bytes += Array("oops".utf8)  // no closing brackets
    let document = BodyDocument(bytes: bytes, mediaType: "application/json")
    #expect(document.line(0) == "{")
    #expect(document.line(1) == "  \"a\": [")
    #expect(document.line(2) == "    {")
    #expect(document.line(3) == "      \"k\": 1")
    let count = document.totalLineCount()
    #expect(document.line(count - 1).hasSuffix("oops"))
  }
}
