import RequestEngine
import Testing

/// The three-way merge (`JSONMerge`): each side's changes kept, both sides' changes of one value a
/// conflict named by its path, named arrays matched by name.
@Suite("JSONMerge")
struct JSONMergeTests {
  func merged(_ base: JSONValue?, _ mine: JSONValue, _ theirs: JSONValue) -> JSONValue? {
    if case .merged(let value) = JSONMerge.merge(base: base, mine: mine, theirs: theirs) { return value }
    return nil
  }

  @Test func eachSidesChangesAreKept() {
    let base: JSONValue = ["a": 1, "b": 1, "c": ["x": 1, "y": 1], "gone": true, "alsoGone": 1]
    let mine: JSONValue = ["a": 2, "b": 1, "c": ["x": 2, "y": 1], "alsoGone": 1, "mineNew": "m"]
    let theirs: JSONValue = ["a": 1, "b": 3, "c": ["x": 1, "y": 3], "gone": true, "theirsNew": "t"]
    #expect(merged(base, mine, theirs) == ["a": 2, "b": 3, "c": ["x": 2, "y": 3], "theirsNew": "t", "mineNew": "m"])
    // The same change on both sides is no conflict; an unchanged side takes the other's.
    #expect(merged(base, mine, mine) == mine)
    #expect(merged(base, base, theirs) == theirs)
    #expect(merged(base, mine, base) == mine)
  }

  @Test func bothChangingOneValueIsAConflictNamedByItsPath() {
    let base: JSONValue = ["a": 1, "env": ["dev": ["host": "a"]], "list": [1, 2]]
    let mine: JSONValue = ["a": 2, "env": ["dev": ["host": "b"]], "list": [1, 2, 3]]
    let theirs: JSONValue = ["a": 3, "env": ["dev": ["host": "c"]], "list": [0, 1, 2]]
    #expect(JSONMerge.merge(base: base, mine: mine, theirs: theirs) == .conflicts(["a", "env.dev.host", "list"]))
    // Removed on one side, changed on the other.
    #expect(JSONMerge.merge(base: ["a": ["x": 1]], mine: [:], theirs: ["a": ["x": 2]]) == .conflicts(["a"]))
    #expect(JSONMerge.merge(base: ["a": 1], mine: 2, theirs: 3) == .conflicts(["(root)"]))
  }

  @Test func namedArraysMergeByName() {
    func request(_ name: String, _ url: String) -> JSONValue { ["name": .string(name), "url": .string(url)] }
    let base: JSONValue = ["requests": [request("a", "/a"), request("b", "/b"), request("c", "/c")]]
    // Mine: b edited, d added after b, c deleted. Theirs: a edited, e added first.
    let mine: JSONValue = ["requests": [request("a", "/a"), request("b", "/b2"), request("d", "/d")]]
    let theirs: JSONValue = ["requests": [request("e", "/e"), request("a", "/a2"), request("b", "/b"), request("c", "/c")]]
    #expect(
      merged(base, mine, theirs)
        == ["requests": [request("e", "/e"), request("a", "/a2"), request("b", "/b2"), request("d", "/d")]])
    // The same request edited on both sides: named in the conflict.
    let clash: JSONValue = ["requests": [request("a", "/a"), request("b", "/b3"), request("c", "/c")]]
    #expect(JSONMerge.merge(base: base, mine: mine, theirs: clash) == .conflicts(["requests[b].url"]))
    // Unnamed elements: the array is one value.
    #expect(JSONMerge.merge(base: ["l": [1]], mine: ["l": [1, 2]], theirs: ["l": [0, 1]]) == .conflicts(["l"]))
  }

  @Test func fromNothingBothSidesObjectsMerge() {
    #expect(merged(nil, ["a": 1], ["b": 2]) == ["b": 2, "a": 1])
    #expect(JSONMerge.merge(base: nil, mine: ["a": 1], theirs: ["a": 2]) == .conflicts(["a"]))
  }
}
