import RequestEngine
import Testing

@testable import Workspace
import WorkspaceTestSupport

/// A long request list is read in parts at once (`WorkspaceReader+RequestList.swift`): the result
/// and the problems are the same as one reader's, in the file's order.
@Suite struct RequestListReadingTests {
  /// A workspace of `count` requests, one a line (request `i` on line `i + 4`), with `edit` applied
  /// to the request objects' texts.
  func text(_ count: Int, edit: (Int, String) -> String = { $1 }) -> String {
    let requests = (0..<count).map { i in
      edit(i, #"    {"name": "r\#(i)", "method": "GET", "url": "/r/\#(i)"}"#)
    }
    return "{\n  \"version\": 1,\n  \"requests\": [\n" + requests.joined(separator: ",\n") + "\n  ]\n}\n"
  }

  @Test(arguments: [0, 1, 999, 1_999, 2_000, 2_001, 4_000, 10_001])
  func thePartsCoverTheListInOrder(count: Int) {
    let parts = WorkspaceReader.parts(of: count)
    #expect(parts.first?.lowerBound == 0)
    #expect(parts.last?.upperBound == count)
    for (a, b) in zip(parts, parts.dropFirst()) { #expect(a.upperBound == b.lowerBound) }
    #expect(parts.count <= 4)
    if parts.count > 1 { #expect(parts.allSatisfy { $0.count >= WorkspaceReader.requestsPerPart }) }
  }

  @Test func aLongListIsReadWholeAndInOrder() throws {
    let count = 4_321
    let ws = try Workspace.parse(Array(text(count).utf8), file: "long.json")
    #expect(ws.requests.count == count)
    #expect(ws.requests.map(\.name) == (0..<count).map { "r\($0)" })
    #expect(ws.requests[4_000].url == "/r/4000")
  }

  /// Problems in different parts, and a name repeated across parts, come in the file's order
  /// with their lines, whichever thread found them; nothing is kept of a list with a problem.
  @Test func problemsInEveryPartComeInTheFilesOrder() throws {
    let count = 4_000
    let broken = text(count) { i, line in
      switch i {
      case 10: line.replacingOccurrences(of: #""GET""#, with: #""FE TCH""#)
      case 2_500: line.replacingOccurrences(of: #""method": "GET", "#, with: #""method": 7, "#)
      case 3_999: line.replacingOccurrences(of: #""name": "r3999""#, with: #""name": "r5""#)
      default: line
      }
    }
    let error = try #require(throws: WorkspaceError.self) { try Workspace.parse(Array(broken.utf8), file: "t.json") }
    #expect(error.problems.map(\.location?.line) == [14, 2_504, 4_003])
    #expect(error.problems[0].message.contains("requests[10].method"))
    #expect(error.problems[1].message.contains("requests[2500].method"))
    #expect(error.problems[2].message.contains(#"another request is already named "r5" (requests[5])"#))
  }

  @Test func requestKeyNamesAreTheCasesNames() {
    typealias Key = WorkspaceReader.RequestKey
    #expect(Key.names == Key.allCases.map { "\($0)" })
    #expect(Key.allCases.count <= 64)  // one bit each in `KnownMembers`
  }

  /// The reader's starting point is the public initializer's defaults.
  @Test func aTemplateReadFromAnObjectStartsAtTheDefaults() {
    var read = RequestTemplate(source: JSONObject())
    let made = RequestTemplate(name: "", url: "")
    read.source = made.source
    #expect(read == made)
  }
}
