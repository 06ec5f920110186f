import Foundation
import JSON
import Testing

/// The JSON parser accepts what RFC 8259 accepts and refuses the rest, case by case in the manner
/// of JSONTestSuite: `accepts` texts must parse (and parse to what Foundation's parser reads from
/// the same bytes), `refuses` texts must fail with an error, `eitherWay` texts (which the RFC leaves
/// to the parser) must not crash and must give a value or an error. The cases are written here;
/// JSONTestSuite's own parsing files, run against the parser by hand, agree with it (docs/testing.md,
/// "The JSON parser").
@Suite("JSON conformance")
struct JSONConformanceTests {
  static let accepts: [String] = [
    // Arrays.
    "[[]   ]", "[\"\"]", "[]", "[\"a\"]", "[false]", "[null, 1, \"1\", {}]", "[null]", "[1\n]",
    " [1]", "[1,null,null,null,2]", "[2] ", "[[[[[[[[[[[[[[[[[[[[\"deep\"]]]]]]]]]]]]]]]]]]]]",
    // Numbers.
    "[0e+1]", "[0e1]", "[ 4]", "[-0.000000000000000000000000000000000000000000000000000001]",
    "[20e1]", "[123e65]", "[-0]", "[-123]", "[-1]", "[1E22]", "[1E-2]", "[1E+2]", "[123e45]",
    "[123.456e78]", "[1e-2]", "[1e+2]", "[123]", "[123.456789]", "[-1e-999]",
    "[100000000000000000000000000000000000000000000000000000000000000000000000000000000000001]",
    // Objects.
    "{\"asd\":\"sdf\", \"dfg\":\"fgh\"}", "{\"asd\":\"sdf\"}", "{\"a\":\"b\",\"a\":\"c\"}",
    "{\"a\":\"b\",\"a\":\"b\"}", "{}", "{\"\":0}", "{\"foo\\u0000bar\": 42}",
    "{ \"min\": -1.0e+28, \"max\": 1.0e+28 }", "{\"x\":[{\"id\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}], \"id\": \"yy\"}",
    "{\"a\":[]}", "{\"title\":\"\\u041f\\u043e\\u043b\\u0442\\u043e\\u0440\\u0430\"}", "{\n\"a\": \"b\"\n}",
    // Strings.
    "[\"\\u0060\\u012a\\u12AB\"]", "[\"\\uD801\\udc37\"]", "[\"\\ud83d\\ude39\\ud83d\\udc8d\"]",
    "[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"]", "[\"\\\\u0000\"]", "[\"\\\"\"]", "[\"a/*b*/c/*d//e\"]",
    "[\"\\\\a\"]", "[\"\\\\n\"]", "[\"\\u0012\"]", "[\"\\uFFFF\"]", "[\"asd\"]", "[ \"asd\"]",
    "[\"\\uDBFF\\uDFFF\"]", "[\"new\\u00A0line\"]", "[\"\u{10FFFF}\"]", "[\"\u{FFFF}\"]",
    "[\"\\u0000\"]", "[\"\\u002c\"]", "[\"π\"]", "[\"\u{1BFFF}\"]", "[\"asd \"]", "\" \"",
    "[\"\\uD834\\uDd1e\"]", "[\"\\u0821\"]", "[\"\\u0123\"]", "[\"\u{2028}\"]", "[\"\u{2029}\"]",
    "[\"\\u0061\\u30af\\u30EA\\u30b9\"]", "[\"new\\u000Aline\"]", "[\"\u{7F}\"]", "[\"\\uA66D\"]",
    "[\"\\u005C\"]", "[\"⍂㈴⍂\"]", "[\"\\uDBFF\\uDFFE\"]", "[\"\\uD83F\\uDFFE\"]", "[\"\\u200B\"]",
    "[\"\\u2064\"]", "[\"\\uFDD0\"]", "[\"\\uFFFE\"]", "[\"\\u0022\"]", "[\"€𝄞\"]", "[\"aa\"]",
    // Scalars at the top and whitespace around them.
    "[\"a\"]\n", "false", "42", "-0.1", "null", "\"asd\"", "true", "\"\"", "[false]  ", " [] ",
    "{\"a\":1}\t", "\r\n[1]\r\n",
  ]

  static let refuses: [String] = [
    // Arrays.
    "[1 true]", "[aå]", "[\"\": 1]", "[\"\"],", "[,1]", "[1,,2]", "[\"x\",,]", "[\"x\"]]", "[\"\",]",
    "[\"x\"", "[x", "[3[4]]", "[1:2]", "[,]", "[-]", "[   , \"\"]", "[\"a\",\n4\n,1,", "[1,]",
    "[1,,]", "[\"\u{0B}a\"\\f]", "[*]", "[\"\"", "[1,", "[1,\n1\n,1", "[{}", "[fals]", "[nul]",
    "[tru]",
    // Numbers.
    "[++1234]", "[+1]", "[+Inf]", "[-01]", "[-1.0.]", "[-2.]", "[-NaN]", "[.-1]", "[.2e-3]",
    "[0.1.2]", "[0.3e+]", "[0.3e]", "[0.e1]", "[0E+]", "[0E]", "[0e+]", "[0e]", "[1.0e+]",
    "[1.0e-]", "[1.0e]", "[1 000.0]", "[1eE2]", "[2.e+3]", "[2.e-3]", "[2.e3]", "[9.e+]", "[Inf]",
    "[NaN]", "[\u{FF11}]", "[1+2]", "[0x1]", "[0x42]", "[Infinity]", "[0e+-1]", "[-123.123foo]",
    "[123\u{E5}]", "[1e1\u{E5}]", "[0\u{E5}]", "[-Infinity]", "[-foo]", "[- 1]", "[-012]", "[-.123]",
    "[-1x]", "[1ea]", "[1.]", "[.123]", "[1.2a-3]", "[1.8011670033376514H-308]", "[012]",
    // Objects.
    "{[: \"x\"}", "{\"x\", null}", "{\"x\"::\"b\"}", "{🇨🇭}", "{\"a\" b}", "{key: 'value'}",
    "{\"\u{B9}\":\"0\",}", "{\"a\":\"a\" 123}", "{\"a\" \"b\"}", "{\"a\":", "{\"a\"", "{1:1}",
    "{9999E9999:1}", "{null:null,null:null}", "{\"id\":0,,,,,}", "{'a':0}", "{\"id\":0,}",
    "{\"a\":\"b\"}/**/", "{\"a\":\"b\"}/**//", "{\"a\":\"b\"}//", "{\"a\":\"b\"}/", "{\"a\":\"b\",,\"c\":\"d\"}",
    "{a: \"b\"}", "{\"a\":\"a", "{ \"foo\" : \"bar\", \"a\" }", "{\"a\":\"b\"}#", " ", "{\"a\":\"b\"}}",
    "{\"a\" : \"b\",}", "{\"a\":1 , }", "{,}", "{\"a\":/*comment*/\"b\"}", "{\"a\":\"b\"},",
    // Strings.
    "[\"\\uD800\\\"]", "[\"\\uD800\\u\"]", "[\"\\uD800\\u1\"]", "[\"\\uD800\\u1x\"]", "[é]",
    "[\"\\x00\"]", "[\"\\\\\\\"]", "[\"\\\t\"]", "[\"\\🌀\"]", "[\"\\\"]", "[\"\\u00A\"]",
    "[\"\\uD834\\uDd\"]", "[\"\\uD800\\uD800\\x\"]", "[\"\\a\"]", "[\"\\uqqqq\"]", "[\\u0020\"asd\"]",
    "[\\n]", "\"", "['single quote']", "abc", "[\"\\", "[\"new\nline\"]", "[\"\t\"]", "\"\\UA66D\"",
    "\"\"x", "[\"a\u{0}a\"]", "[\"\u{1F}\"]",
    // Structure.
    "", "<.>", "[<null>]", "[1]x", "[1]]", "[\"asd]", "a\u{E5}", "[True]", "1]", "{\"x\": true,",
    "[][]", "]", "[", "2@", "}", "{\"a\":\"b\"", "[{", "[\"a\"\n", "{]", "[1,2,3]{", "[\u{2060}]",
    "[\u{FEFF}]", "[\"a\"]\u{0}", "[\u{0C}]", "[\u{A0}1]", "{\"a\":true} \"x\"",
    "'", "*", "[\"a\" \"b\"]", "nul", "nulll", "tru", "truee", "[nulls]", "[\"\\{[\"\\{[\"\\{[\"\\{",
    "{\"a\" \u{0}}", "[1]\u{1}", "\u{0}",
  ]

  /// The RFC leaves these to the parser: huge exponents, lone surrogates, deep nesting.
  static let eitherWay: [String] = [
    "[1.0e+9999]", "[1.5e999]", "[-1e9999]", "[123123e100000]", "[-237462374673276894279832749832423479823246327846e-9999999]",
    "[\"\\uDADA\"]", "[\"\\uD888\\u1234\"]", "[\"\\uDd1e\\uD834\"]", "[\"\\uDFAA\"]", "[\"\\uD800\\n\"]",
    "[\"\\ud800abc\"]", "[\"\\uD800\"]", "[\"\\uD800\\uD800\\n\"]", "\"\\uDFAA\"",
    String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000),
    String(repeating: "{\"a\":", count: 10_000) + "1" + String(repeating: "}", count: 10_000),
  ]

  /// Bytes that are not UTF-8 inside a string, which RFC 8259 leaves to the parser: each
  /// becomes U+FFFD, as the response viewer shows them, and the rest of the text is read.
  static let notUTF8: [[UInt8]] = [
    [0x5B, 0x22, 0xFF, 0x22, 0x5D],  // ["ÿ"] as Latin-1
    [0x5B, 0x22, 0xC0, 0xAF, 0x22, 0x5D],  // an overlong /
    [0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D],  // a surrogate in UTF-8
    [0x5B, 0x22, 0xF4, 0xBF, 0xBF, 0xBF, 0x22, 0x5D],  // past U+10FFFF
    [0x5B, 0x22, 0xE6, 0x97, 0x22, 0x5D],  // cut short
    [0x5B, 0x22, 0x80, 0x22, 0x5D],  // a lone continuation byte
  ]

  @Test(arguments: accepts)
  func acceptsWhatTheRFCAccepts(_ text: String) throws {
    let ours: JSONValue
    do { ours = try JSONParser.parse(Array(text.utf8)) } catch {
      Issue.record("refused \(JSONSerializer.quote(text)): \(error)")
      return
    }
    let theirs = try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
    #expect(Self.same(ours, theirs), "\(JSONSerializer.quote(text)): \(ours) ≠ Foundation's \(theirs)")
  }

  @Test(arguments: refuses)
  func refusesWhatTheRFCRefuses(_ text: String) {
    #expect(throws: JSONSyntaxError.self, "accepted \(JSONSerializer.quote(text))") {
      try JSONParser.parse(Array(text.utf8))
    }
  }

  @Test(arguments: notUTF8)
  func readsBytesThatAreNotUTF8AsReplacementCharacters(_ bytes: [UInt8]) throws {
    let value = try JSONParser.parse(bytes)
    guard case .array(let items) = value, items.count == 1, case .string(let text) = items[0] else {
      Issue.record("\(bytes) read as \(value)")
      return
    }
    #expect(!text.isEmpty && text.unicodeScalars.allSatisfy { $0 == "\u{FFFD}" })
  }

  /// A byte order mark before the text (which RFC 8259 says not to write, and some editors do)
  /// is passed over; one anywhere else is an error.
  @Test func aByteOrderMarkIsReadOnlyAtTheStart() throws {
    #expect(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("{}".utf8)) == .object(JSONObject()))
    #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Array("[\u{FEFF}1]".utf8)) }
  }

  /// A key written twice is kept twice, in order, and written back as it came; a lookup finds
  /// the last member, as JavaScript and Foundation do. The files reqbench owns refuse it at
  /// the second key.
  @Test func aRepeatedKeyIsKeptAsWrittenOrRefusedWhereAsked() throws {
    let text = #"{"a":1,"b":true,"a":2}"#
    let value = try JSONParser.parse(text)
    #expect(value["a"] == .number("2"))
    #expect(value.objectValue?.keys == ["a", "b", "a"])
    #expect(JSONSerializer.compact(value) == text)
    let error = #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(text, duplicateKeys: .refused) }
    #expect(error?.message == #"duplicate key "a""#)
    #expect(error?.location == SourceLocation(line: 1, column: 17))
    let big = "{" + (0..<40).map { "\"k\($0)\": \($0)" }.joined(separator: ",") + ", \"k3\": 0}"
    #expect(try JSONParser.parse(big)["k3"] == .number("0"))
    #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(big, duplicateKeys: .refused) }
  }

  @Test(arguments: eitherWay)
  func answersWhatTheRFCLeavesOpenWithoutCrashing(_ text: String) {
    let bytes = Array(text.utf8)
    switch Result(catching: { () throws(JSONSyntaxError) -> JSONValue in try JSONParser.parse(bytes) }) {
    case .success(let value):
      // A number is kept as written, so a huge exponent stays what it was.
      if text.hasPrefix("[1.0e+9999]") { #expect(value == .array([.number("1.0e+9999")])) }
    case .failure(let error):
      #expect(!error.message.isEmpty)
      #expect(error.offset >= 0 && error.offset <= bytes.count)
    }
  }

  /// Whether our value is what Foundation read: numbers compared as doubles (Foundation has no
  /// literal), strings by their scalars, objects by their keys (Foundation's keep the last of a
  /// repeated key, as our lookups do).
  static func same(_ ours: JSONValue, _ theirs: Any) -> Bool {
    switch ours {
    case .null: return theirs is NSNull
    case .bool(let b): return (theirs as? Bool) == b
    case .number(let literal):
      guard let n = theirs as? NSNumber, let d = Double(literal) else { return false }
      return n.doubleValue == d || (n.doubleValue.isInfinite && d.isInfinite)
        || abs(n.doubleValue - d) <= abs(d) * 1e-15
    case .string(let s): return (theirs as? String).map { Array($0.unicodeScalars) == Array(s.unicodeScalars) } ?? false
    case .array(let items):
      guard let theirs = theirs as? [Any], theirs.count == items.count else { return false }
      return zip(items, theirs).allSatisfy { same($0, $1) }
    case .object(let object):
      guard let theirs = theirs as? [String: Any] else { return false }
      var last: [String: JSONValue] = [:]
      for (key, value) in object.members { last[key] = value }
      return last.count == theirs.count && last.allSatisfy { key, value in theirs[key].map { same(value, $0) } ?? false }
    }
  }
}
