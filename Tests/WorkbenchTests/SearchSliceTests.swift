import Foundation
import RequestEngine
import Testing
import Workbench

/// A search through a big body runs a slice at a time (`continueSearch` → `searchContinue`), so
/// keys and frames go on meanwhile, and Esc stops it.
@Suite("update: searching a big body")
struct SearchSliceTests {
  /// A text body of 50,000 lines whose only "needle" is on the last one.
  func bigState() throws -> AppState {
    var state = try demoState()
    var lines = (0..<49_999).map { "line \($0) of a long log" }
    lines.append("the needle is here")
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/log")
    send(&state, .key(.enter))
    let events = Scenario.exchange(
      id: 1, request: request, body: lines.joined(separator: "\n"), contentType: "text/plain", duration: 0.01)
    for msg in events { send(&state, msg) }
    _ = keys(&state, "3/")
    _ = keys(&state, "needle")
    return state
  }

  @Test func aSearchGoesOnASliceAtATime() throws {
    var state = try bigState()
    #expect(send(&state, .key(.enter)) == [.continueSearch])
    #expect(state.viewer.searching != nil)
    #expect(state.message?.text.hasPrefix("/needle: searching… ") == true)
    var slices = 1
    while state.viewer.searching != nil, slices < 100 {
      // Keys still work between slices.
      _ = keys(&state, "j")
      _ = send(&state, .searchContinue)
      slices += 1
    }
    #expect(slices == 3, "50,000 lines in slices of \(AppState.searchSlice)")
    #expect(state.viewer.matchLine == 49_999)
    #expect(state.message?.text == "/needle: line 50000")
    // The next search starts where the match is and finds it again at once (it wraps).
    #expect(send(&state, .key(.char("n"))) == [.continueSearch])
  }

  @Test func escapeStopsASearch() throws {
    var state = try bigState()
    _ = send(&state, .key(.enter))
    send(&state, .key(.escape))
    #expect(state.viewer.searching == nil)
    #expect(state.message?.text == "/needle: search stopped")
    #expect(send(&state, .searchContinue) == [])
    #expect(state.viewer.matchLine == nil)
  }
}
