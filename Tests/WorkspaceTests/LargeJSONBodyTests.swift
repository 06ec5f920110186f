import Foundation
import RequestEngine
import Testing

@testable import Workspace
import WorkspaceTestSupport

/// A JSON body of 64 KB of text or more is kept as its text when a workspace is read
/// (`StoredBody.deferredJSON`) and made a value when used: everything else about it is as for any
/// body (its value, errors and their places, placeholders, saves that keep its text).
@Suite struct LargeJSONBodyTests {
  /// `count` objects: about 40 bytes of text each.
  static func items(_ count: Int, template: String = "") -> String {
    "[" + (0..<count).map { #"{"k": \#($0), "v": [1, 2.50, {"z": null, "s": "x\u00e9\#(template)"}]}"# }.joined(separator: ", ") + "]"
  }

  static func text(body: String) -> String {
    """
    {
      "version": 1,
      "requests": [
        {"name": "a", "url": "http://127.0.0.1:9/a"},
        {"name": "big", "method": "POST", "url": "http://127.0.0.1:9/b", "body": {"json": \(body)}, "timeout": 5},
        {"name": "z", "url": "http://127.0.0.1:9/z"}
      ]
    }

    """
  }

  @Test func aLargeBodyIsKeptAsTextAndIsTheSameValue() throws {
    let body = LargeJSONBodyTests.items(3_000)
    let ws = try Workspace.parse(Array(LargeJSONBodyTests.text(body: body).utf8), file: "w.json")
    guard case .deferredJSON(let text) = ws.requests[1].storedBody else {
      Issue.record("the body was made a value: \(ws.requests[1].storedBody)")
      return
    }
    #expect(text.bytes.count == body.utf8.count)
    #expect(ws.requests[1].body == .json(try JSONParser.parse(body)))
    #expect(ws.requests[1].timeout == 5)
    // A small body is a value as before.
    let small = try Workspace.parse(Array(LargeJSONBodyTests.text(body: LargeJSONBodyTests.items(3)).utf8), file: "w.json")
    guard case .template(.json?) = small.requests[1].storedBody else {
      Issue.record("a small body was kept as text")
      return
    }
    // Read twice, the workspaces are equal; a template holding the value is equal to it.
    let again = try Workspace.parse(Array(LargeJSONBodyTests.text(body: body).utf8), file: "w.json")
    #expect(again == ws)
    var made = ws.requests[1]
    made.body = .json(try JSONParser.parse(body))
    #expect(made == ws.requests[1])
  }

  /// Saved, the body's text is written back byte for byte, whatever else changed; a changed
  /// body is written anew.
  @Test func aSaveKeepsTheBodysTextAndWritesAChangedOne() throws {
    let original = LargeJSONBodyTests.text(body: LargeJSONBodyTests.items(3_000))
    var ws = try Workspace.parse(Array(original.utf8), file: "w.json")
    #expect(String(decoding: ws.encoded(), as: UTF8.self) == original)
    try ws.modifyRequest(named: "z") { $0.timeout = 9 }
    try ws.renameRequest("big", to: "large")
    let edited = String(decoding: try ws.checkedEncoding(file: "w.json"), as: UTF8.self)
    #expect(edited == original.replacingOccurrences(of: #""name": "big""#, with: #""name": "large""#)
      .replacingOccurrences(of: #""url": "http://127.0.0.1:9/z"}"#, with: #""url": "http://127.0.0.1:9/z", "timeout": 9}"#))
    try ws.modifyRequest(named: "large") { $0.body = .json(["replaced": true]) }
    let replaced = try Workspace.parse(ws.encoded(), file: "w.json")
    #expect(replaced.requests[1].body == .json(["replaced": true]))
  }

  /// Its placeholders are filled in when it is sent, and a bad one is an error at its place
  /// when the file is read, as in any body.
  @Test func placeholdersInALargeBodyAreCheckedAndFilledIn() throws {
    let ws = try Workspace.parse(
      Array(LargeJSONBodyTests.text(body: LargeJSONBodyTests.items(2_000, template: "{{who}}")).utf8), file: "w.json")
    guard case .deferredJSON = ws.requests[1].storedBody else {
      Issue.record("the body was made a value")
      return
    }
    let request = try ws.prepare(requestNamed: "big", variables: ["who": "ada"])
    let sent = String(decoding: request.body.bytes, as: UTF8.self)
    #expect(sent.hasPrefix(#"[{"k":0,"v":[1,2.50,{"z":null,"s":"xéada"}]}"#))

    var broken = LargeJSONBodyTests.items(2_000)
    broken.replace(#""k": 1500,"#, with: #""k{{": 1500,"#)
    let error = try #require(throws: WorkspaceError.self) {
      try Workspace.parse(Array(LargeJSONBodyTests.text(body: broken).utf8), file: "w.json")
    }
    #expect(error.problems.map(\.message) == [
      #"requests[1].body.json[1500]["k{{"]: "{{" has no closing "}}"; write a variable as {{name}}, two braces as {{'{{'}}"#
    ])
  }

  /// A large body that is not valid JSON fails with the error, at the place, that reading it
  /// as a value gives.
  @Test func aLargeBodysSyntaxErrorIsTheParsersError() throws {
    let body = LargeJSONBodyTests.items(3_000)
    // Each past the first 64 KB of the body, where it is read without being made.
    let last = #"{"k": 2999, "v": [1, 2.50, {"z": null, "s": "x\u00e9"}]}"#
    for (broken, message) in [
      (body.replacingOccurrences(of: last, with: #"{"k": 2999, "v": [1, 2.50, {"z": null, "z": "x\u00e9"}]}"#), #"duplicate key "z""#),
      (body.replacingOccurrences(of: last, with: #"{"k": 2999,, "v": 1}"#), "unexpected character ','; expected a key in double quotes"),
      (String(body.dropLast()), "unexpected character '}'; expected ',' or ']'"),
      (body.replacingOccurrences(of: last, with: #"{"k": nul}"#), "unexpected character 'n'; expected a value (strings need double quotes)"),
      (body.replacingOccurrences(of: last, with: "{\"k\": \"a\nb\"}"), "unterminated string (a line break inside a string must be written \\n)"),
      (body.replacingOccurrences(of: last, with: "{" + (0..<40).map { #""m\#($0)": \#($0)"# }.joined(separator: ", ") + #", "m7": 0}"#), #"duplicate key "m7""#),
    ] {
      let text = LargeJSONBodyTests.text(body: broken)
      var expected: JSONSyntaxError?
      do { _ = try JSONParser.parse(text, duplicateKeys: .refused) } catch { expected = error }
      let error = try #require(throws: WorkspaceError.self) { try Workspace.parse(Array(text.utf8), file: "w.json") }
      #expect(error.problems.count == 1)
      #expect(error.problems.first?.message == expected?.message)
      #expect(error.problems.first?.message.hasPrefix(message) == true, "\(error.problems)")
      #expect(error.problems.first?.location == expected?.location)
    }
    // Seeded mutations past the first 64 KB: whatever the parser says of the text, the reader
    // says the same, at the same place.
    let pieces: [String] = ["{", "}", "[", "]", ",", ":", "\"", "\\", " ", "0", "-", "e", "n", "\n", "\u{1}"]
    var seed: UInt64 = 0x2545_F491_4F6C_DD1D
    var compared = 0
    for _ in 0..<40 {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      var bytes = Array(body.utf8)
      let place = 70_000 + Int(seed >> 33) % (bytes.count - 70_000)
      let piece = Array(pieces[Int(seed >> 8) % pieces.count].utf8)
      switch seed % 3 {
      case 0: bytes.insert(contentsOf: piece, at: place)
      case 1: bytes.remove(at: place)
      default: bytes.replaceSubrange(place..<place + 1, with: piece)
      }
      let text = LargeJSONBodyTests.text(body: String(decoding: bytes, as: UTF8.self))
      var expected: JSONSyntaxError?
      do { _ = try JSONParser.parse(text, duplicateKeys: .refused) } catch { expected = error }
      guard let expected else { continue }
      compared += 1
      let error = try #require(throws: WorkspaceError.self) { try Workspace.parse(Array(text.utf8), file: "w.json") }
      #expect(error.problems.map(\.message) == [expected.message])
      #expect(error.problems.first?.location == expected.location)
    }
    #expect(compared >= 20, "\(compared) of 40 mutations broke the text")
    // As deep as a value may be, and no deeper.
    let deep = String(repeating: "[", count: 508) + "1" + String(repeating: "]", count: 508)
    let padded = "[" + String(repeating: "0, ", count: 30_000) + deep + "]"
    #expect(throws: WorkspaceError.self) { try Workspace.parse(Array(LargeJSONBodyTests.text(body: padded).utf8), file: "w.json") }
    let shallower = "[" + String(repeating: "0, ", count: 30_000) + deep.dropFirst().dropLast() + "]"
    #expect(try Workspace.parse(Array(LargeJSONBodyTests.text(body: shallower).utf8), file: "w.json").requests.count == 3)
  }
}
