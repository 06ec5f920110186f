import Formats
import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// `YAMLReader`: libyaml's events as the project's JSON value, with locations.
@Suite("YAML reader")
struct YAMLReaderTests {
  func read(_ text: String) throws -> JSONValue { try YAMLReader.parseDocument(Array(text.utf8)).root }

  func failure(_ text: String) -> YAMLError? {
    do {
      _ = try YAMLReader.parseDocument(Array(text.utf8))
      Issue.record("expected \(JSONSerializer.quote(text)) to fail")
      return nil
    } catch {
      return error
    }
  }

  @Test func plainScalarsFollowTheCoreSchema() throws {
    let value = try read(
      """
      a: ~
      b:
      c: null
      d: True
      e: false
      f: 42
      g: -007
      h: +3
      i: 0x1F
      j: 0o17
      k: 1.5
      l: .5
      m: 2.
      n: 1e3
      o: -1.25E-2
      p: .inf
      q: yes
      r: 1.0.0
      s: "42"
      t: 'true'
      u: !!str 7
      v: !!int "12"
      w: |
        two
        lines
      x: 12345678901234567890123
      """)
    let expected: [(String, JSONValue)] = [
      ("a", .null), ("b", .null), ("c", .null), ("d", .bool(true)), ("e", .bool(false)), ("f", .number("42")),
      ("g", .number("-7")), ("h", .number("3")), ("i", .number("31")), ("j", .number("15")), ("k", .number("1.5")),
      ("l", .number("0.5")), ("m", .number("2.0")), ("n", .number("1e3")), ("o", .number("-1.25e-2")),
      ("p", .string(".inf")), ("q", .string("yes")), ("r", .string("1.0.0")), ("s", .string("42")),
      ("t", .string("true")), ("u", .string("7")), ("v", .number("12")), ("w", .string("two\nlines\n")),
      ("x", .number("12345678901234567890123")),
    ]
    for (key, want) in expected { #expect(value[key] == want, "\(key)") }
    // Every number reads back as JSON.
    for (key, want) in expected { if case .number(let literal) = want { #expect((try? JSONParser.parse(literal)) != nil, "\(key)") } }
  }

  @Test func keysKeepTheirTextAndOrder() throws {
    let value = try read("responses:\n  '200': {}\n  404: {}\n  default: {}\n")
    #expect(value["responses"]?.objectValue?.keys == ["200", "404", "default"])
  }

  @Test func locationsPointAtEachValue() throws {
    let document = try YAMLReader.parseDocument(Array("openapi: 3.0.0\npaths:\n  /pets:\n    get:\n      responses: []\n".utf8))
    let responses = JSONPath.root.appending("paths").appending("/pets").appending("get").appending("responses")
    #expect(document.location(of: responses) == SourceLocation(line: 5, column: 18))
    #expect(document.location(of: JSONPath.root.appending("openapi")) == SourceLocation(line: 1, column: 10))
    // Columns count characters, not bytes.
    let wide = try YAMLReader.parseDocument(Array("é: [1, ü]\n".utf8))
    #expect(wide.location(of: JSONPath.root.appending("é").appending(1)) == SourceLocation(line: 1, column: 8))
  }

  @Test func aliasesCopyAndMergeKeysMerge() throws {
    let value = try read(
      """
      base: &base {a: 1, b: 2}
      copy: *base
      merged:
        <<: *base
        b: 3
        c: 4
      """)
    #expect(value["copy"] == value["base"])
    #expect(value["merged"] == JSONValue.object(JSONObject([("b", 3), ("c", 4), ("a", 1)])))
  }

  @Test func theErrorsSayWhereAndWhat() throws {
    let duplicate = try #require(failure("a: 1\nb: 2\na: 3\n"))
    #expect(duplicate.location == SourceLocation(line: 3, column: 1))
    #expect(duplicate.message.contains("the key \"a\" appears twice in this mapping (first at 1:1)"))
    let syntax = try #require(failure("a: [1, 2\nb: 3\n"))
    #expect(syntax.message.hasPrefix("not valid YAML: "))
    #expect(syntax.location.line >= 2)
    let two = try #require(failure("a: 1\n---\nb: 2\n"))
    #expect(two.message.contains("more than one YAML document"))
    #expect(two.location.line == 2)
    #expect(try #require(failure("x: *nothing\n")).message.contains("names no anchor"))
    #expect(try #require(failure("? [a, b]\n: 1\n")).message.contains("a key must be a scalar"))
    #expect(try #require(failure("")).message.contains("empty"))
  }

  /// A "billion laughs" document stops at `maxValues` instead of filling memory.
  @Test func aliasExpansionIsBounded() throws {
    var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
    for i in 1...9 { text += "a\(i): &a\(i) [" + Array(repeating: "*a\(i - 1)", count: 10).joined(separator: ", ") + "]\n" }
    let error = try #require(failure(text))
    #expect(error.message.contains("expands to more than \(YAMLReader.maxValues) values"))
  }

  /// The OpenAPI Initiative's examples come in YAML and JSON: both read as the same value.
  @Test func theYAMLAndJSONExamplesReadTheSame() throws {
    for name in ["petstore", "petstore-expanded", "api-with-examples", "uspto", "link-example", "callback-example"] {
      let yaml = try YAMLReader.parseDocument(Array(try Data(contentsOf: fixtureFile("openapi/\(name).yaml"))))
      let json = try JSONParser.parse(Array(try Data(contentsOf: fixtureFile("openapi/\(name).json"))))
      #expect(yaml.root == json, "\(name)")
    }
  }
}
