import Foundation
import History
import RequestEngine
import TerminalUI
import TestSupport
import Testing
import Workbench
import Workspace

/// The screen as text at 160×45 and 80×24. `RECORD_SNAPSHOTS=1 swift test --filter ViewSnapshots`
/// re-records `Snapshots/*.txt` (review the diff before committing).
@Suite("view snapshots")
struct ViewSnapshotTests {
  static let sizes = [(160, 45), (80, 24)]

  func scenario(_ scenario: Scenario, width: Int, height: Int) throws -> AppState {
    let base = try demoState(width: width, height: height)
    return scenario.state(workspace: base.workspace, file: base.workspaceFile, width: width, height: height)
  }

  func session(width: Int, height: Int) throws -> AppState { try scenario(.session, width: width, height: height) }

  @Test(arguments: sizes) func startScreen(width: Int, height: Int) throws {
    try assertSnapshot(try demoState(width: width, height: height), "start-\(width)x\(height)")
  }

  @Test(arguments: sizes) func aSession(width: Int, height: Int) throws {
    try assertSnapshot(try session(width: width, height: height), "session-\(width)x\(height)")
  }

  @Test(arguments: sizes) func helpOverlay(width: Int, height: Int) throws {
    var state = try demoState(width: width, height: height)
    _ = keys(&state, "?")
    try assertSnapshot(state, "help-\(width)x\(height)")
  }

  @Test(arguments: sizes) func headersAndTimingTabs(width: Int, height: Int) throws {
    var state = try session(width: width, height: height)
    _ = keys(&state, "3l")
    try assertSnapshot(state, "headers-\(width)x\(height)")
    _ = keys(&state, "l")
    try assertSnapshot(state, "timing-\(width)x\(height)")
  }

  @Test(arguments: sizes) func editingAField(width: Int, height: Int) throws {
    var state = try demoState(width: width, height: height)
    _ = keys(&state, "2jje")
    _ = keys(&state, "?debug=1")
    try assertSnapshot(state, "editing-\(width)x\(height)")
  }

  @Test(arguments: sizes) func promptsInTheStatusLine(width: Int, height: Int) throws {
    var state = try session(width: width, height: height)
    _ = keys(&state, "3/")
    _ = keys(&state, "grace")
    try assertSnapshot(state, "search-prompt-\(width)x\(height)")
    send(&state, .key(.enter))
    try assertSnapshot(state, "search-found-\(width)x\(height)")
    _ = keys(&state, "|")
    send(&state, .key(.ctrl("u")))
    _ = keys(&state, ".[].name")
    try assertSnapshot(state, "jq-prompt-\(width)x\(height)")
    send(&state, .key(.enter))
    send(&state, .filtered(expression: ".[].name", result: .success("\"Ada Lovelace\"\n\"Grace Hopper\"\n\"Alan Turing\"\n")))
    try assertSnapshot(state, "jq-filtered-\(width)x\(height)")
    send(&state, .key(.escape))
    _ = keys(&state, "w")
    try assertSnapshot(state, "write-prompt-\(width)x\(height)")
  }

  @Test(arguments: sizes) func historyInTheViewer(width: Int, height: Int) throws {
    var state = try session(width: width, height: height)
    _ = keys(&state, "3")
    let request = Request(name: "users/list", method: .GET, url: "http://127.0.0.1:8080/users?page=1")
    let events = Scenario.exchange(id: 2, request: request, body: #"[{"id": 1, "name": "Ada"}]"#, duration: 0.0042)
    guard case .agent(.finished(var result)) = events[3] else {
      Issue.record("the exchange's fourth event is not its result: \(events[3])")
      return
    }
    result.finishedAt = Scenario.epoch.addingTimeInterval(-86_400)
    let folder = scratchURL("rb-snap")
    defer { try? FileManager.default.removeItem(at: folder) }
    let store = HistoryStore(stateFolder: folder)
    try store.record(result, name: "users/list")
    let entry = try #require(try store.entries(for: "users/list").first)
    _ = keys(&state, "3[")
    send(&state, .historyShown(HistoryView(entry: entry, body: try store.body(of: entry), position: 1, count: 3), error: nil))
    try assertSnapshot(state, "history-\(width)x\(height)")
  }

  @Test(arguments: sizes) func quitConfirmation(width: Int, height: Int) throws {
    var state = try session(width: width, height: height)
    _ = keys(&state, "q")
    try assertSnapshot(state, "quit-\(width)x\(height)")
  }

  @Test(arguments: sizes) func unsavedChangesOnQuit(width: Int, height: Int) throws {
    var state = try demoState(width: width, height: height)
    _ = keys(&state, "2jje")
    _ = keys(&state, "?debug=1")
    send(&state, .key(.enter))
    _ = keys(&state, "q")
    try assertSnapshot(state, "unsaved-\(width)x\(height)")
  }

  @Test(arguments: sizes) func theQueueFocused(width: Int, height: Int) throws {
    var state = try session(width: width, height: height)
    _ = keys(&state, "4j")
    try assertSnapshot(state, "queue-\(width)x\(height)")
  }

  @Test func resolvedValuesBesideTemplatesWithSecretsMasked() throws {
    var state = try demoState(width: 120, height: 30)
    let me = try #require(state.visibleRequests.firstIndex { $0.name == "auth/me" })
    state.workspace.requests[me].auth = .bearer("{{secret.token}}")
    state.workspace.requests[me].headers["X-Key"] = "{{secret.token}}"
    moveDown(&state, to: "auth/me")
    var buffer = ScreenBuffer(width: 120, height: 30)
    view(state, into: &buffer)
    #expect(!buffer.text.contains("s3cr3t"))
    #expect(buffer.text.contains("X-Key: {{secret.token}}  → ••••"))
    try assertSnapshot(state, "secrets-120x30")
  }

  @Test func tooSmall() throws {
    var state = try demoState()
    send(&state, .resize(width: 50, height: 12))
    try assertSnapshot(state, "too-small-50x12")
  }

  @Test func controlCharactersFromTheServerAreEscaped() throws {
    var state = try demoState(width: 100, height: 30)
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/escape")
    send(&state, .key(.enter))
    for msg in exchangeEvents(
      id: 1, request: request, body: "\u{1b}[31mred\u{1b}[0m\n\u{1b}]0;title\u{07}bell\u{9b}2J\n", contentType: "text/plain")
    {
      send(&state, msg)
    }
    var buffer = ScreenBuffer(width: 100, height: 30)
    view(state, into: &buffer)
    for y in 0..<buffer.height {
      for x in 0..<buffer.width {
        let cell = buffer[x, y]
        #expect(!cell.text.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
      }
    }
    #expect(buffer.text.contains(#"\x1b[31mred\x1b[0m"#))
    try assertSnapshot(state, "escapes-100x30")
  }

  @Test(arguments: sizes) func downloadsAndUploads(width: Int, height: Int) throws {
    try assertSnapshot(try scenario(.downloads, width: width, height: height), "downloads-\(width)x\(height)")
  }

  @Test func binaryBodiesAreAHexDump() throws {
    var state = try demoState(width: 120, height: 30)
    send(&state, .key(.enter))
    let bytes = (0..<64).map { UInt8($0 * 4 % 256) }
    let request = Request(name: "users/list", url: "http://127.0.0.1:8080/bytes")
    var events = exchangeEvents(id: 1, request: request, body: "", contentType: "application/octet-stream")
    if case .agent(.finished(var result)) = events[3] {
      result.response?.body = .memory(bytes)
      events[3] = .agent(.finished(result))
    } else {
      Issue.record("the exchange's fourth event is not its result: \(events[3])")
    }
    for msg in events { send(&state, msg) }
    #expect(state.viewer.document?.kind == .binary)
    try assertSnapshot(state, "hex-120x30")
  }
}
