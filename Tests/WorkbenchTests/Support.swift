import Foundation
import RequestEngine
import TerminalUI
import Testing
import Workbench
import Workspace

/// The demo workspace of the repository, with `host` pointing nowhere real (no traffic in these tests).
func demoState(width: Int = 160, height: Int = 45) throws -> AppState {
  let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
  let file = root.appendingPathComponent("workspaces/demo.json")
  let workspace = try Workspace.load(from: file)
  let sources = VariableSources(
    overrides: ["host": "http://127.0.0.1:8080"], processEnvironment: [:],
    secrets: SecretsFile(values: [("token", "s3cr3t")]))
  var state = AppState(workspace: workspace, workspaceFile: "workspaces/demo.json", sources: sources, width: width, height: height)
  state.colors = true
  return state
}

/// The screen a state draws, as text.
func screenText(_ state: AppState) -> String {
  var buffer = ScreenBuffer(width: state.width, height: state.height)
  view(state, into: &buffer)
  return buffer.text
}

/// Applies messages and returns every command they produced.
@discardableResult
func send(_ state: inout AppState, _ messages: Msg...) -> [Command] {
  messages.flatMap { update(&state, $0) }
}

/// Presses ↓ in the request list until the request `name` is selected (at most once a row).
func moveDown(_ state: inout AppState, to name: String) {
  for _ in 0..<state.selectableCount where state.selectedRequest?.name != name { send(&state, .key(.down)) }
  #expect(state.selectedRequest?.name == name)
}

func keys(_ state: inout AppState, _ text: String) -> [Command] {
  text.flatMap { update(&state, .key(.char($0))) }
}

let epoch = Date(timeIntervalSince1970: 1_790_000_000)

/// Agent events for one exchange that ends with `status` and `body`.
func exchangeEvents(
  id: UInt64, request: Request, status: Int? = 200, body: String = #"{"id": 1, "name": "Ada Lovelace"}"#,
  contentType: String = "application/json", state: ExchangeState = .succeeded, error: ExchangeError? = nil,
  duration: Double = 0.0123
) -> [Msg] {
  let exchange = ExchangeID(rawValue: id)
  var headers = HTTPHeaders()
  headers["Content-Type"] = contentType
  headers["Content-Length"] = String(body.utf8.count)
  let response = status.map {
    Response(
      status: $0, httpVersion: "HTTP/1.1", headers: headers, body: .memory(Array(body.utf8)),
      effectiveURL: request.url, redirectCount: 0,
      timing: Timing(dns: 0.0001, connect: 0.0003, tls: 0, firstByte: 0.009, total: duration), bytesSent: 80)
  }
  let result = ExchangeResult(
    id: exchange, request: request, state: state, response: response, error: error, attempts: 1,
    queuedAt: epoch, startedAt: epoch, finishedAt: epoch.addingTimeInterval(duration))
  return [
    .agent(.queued(exchange, request)), .agent(.started(exchange, attempt: 1)),
    .agent(.headers(exchange, status: status ?? 0, headers: headers)), .agent(.finished(result)),
  ]
}

/// The view of a state as text, compared with `Snapshots/NAME.txt`. `RECORD_SNAPSHOTS=1`
/// re-records them.
func assertSnapshot(
  _ state: AppState, _ name: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws {
  var buffer = ScreenBuffer(width: state.width, height: state.height)
  view(state, into: &buffer)
  let text = buffer.text + "\n"
  let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Snapshots/\(name).txt")
  if ProcessInfo.processInfo.environment["RECORD_SNAPSHOTS"] == "1" {
    try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try text.write(to: file, atomically: true, encoding: .utf8)
    return
  }
  guard let expected = try? String(contentsOf: file, encoding: .utf8) else {
    Issue.record("no snapshot \(name).txt; run with RECORD_SNAPSHOTS=1 to record it", sourceLocation: sourceLocation)
    return
  }
  if text != expected {
    let got = text.split(separator: "\n", omittingEmptySubsequences: false)
    let want = expected.split(separator: "\n", omittingEmptySubsequences: false)
    let line = Array(zip(got, want)).firstIndex { $0 != $1 } ?? min(got.count, want.count)
    Issue.record(
      "snapshot \(name) differs at line \(line + 1):\n  got:  \(line < got.count ? got[line] : "")\n  want: \(line < want.count ? want[line] : "")\n(RECORD_SNAPSHOTS=1 re-records)",
      sourceLocation: sourceLocation)
  }
}
