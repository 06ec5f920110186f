import Foundation
import RequestEngine
import TerminalUI
import Testing
import Workbench
import Workspace

/// A download path that a secret filled in (`"download": {"to": "out/{{secret.k}}.bin"}`) is
/// masked on the screen and in the status bar, as `run` masks it.
@Suite struct SecretPathTests {
  func screen(_ state: AppState) -> String {
    var buffer = ScreenBuffer(width: state.width, height: state.height)
    view(state, into: &buffer)
    return buffer.text
  }

  @Test func aDownloadPathMadeFromASecretIsMaskedEverywhereItIsShown() throws {
    var state = try demoState()
    var big = Request(
      name: "files/big", url: "http://127.0.0.1:8080/bytes/100",
      download: DownloadTarget(path: "/w/s3cr3t.bin"))
    big.secrets = ["s3cr3t"]
    let first = ExchangeID(rawValue: 3)
    send(&state, .agent(.queued(first, big)), .agent(.started(first, attempt: 1)))
    #expect(!screen(state).contains("s3cr3t"))
    send(&state, .agent(.finished(ExchangeResult(
      id: first, request: big, state: .cancelled, response: nil, error: .cancelled, queuedAt: epoch,
      startedAt: epoch, finishedAt: epoch, download: DownloadOutcome(
        file: "/w/s3cr3t.bin", bytes: 53, totalBytes: 100, resumedFrom: 0, restartReason: nil,
        resumable: true, complete: false)))))
    _ = keys(&state, "4g")
    let kept = screen(state)
    #expect(kept.contains("kept for /w/••••.bin"), "\(kept)")
    #expect(!kept.contains("s3cr3t"))
    #expect(keys(&state, "r").count == 1)
    let again = ExchangeID(rawValue: 4)
    send(&state, .agent(.queued(again, big)), .agent(.started(again, attempt: 1)))
    send(&state, .agent(.finished(ExchangeResult(
      id: again, request: big, state: .succeeded, response: nil, error: nil, queuedAt: epoch,
      startedAt: epoch, finishedAt: epoch, download: DownloadOutcome(
        file: "/w/s3cr3t.bin", bytes: 100, totalBytes: 100, resumedFrom: 53, restartReason: nil,
        resumable: false, complete: true)))))
    #expect(state.message == StatusMessage("files/big: saved to /w/••••.bin (100 B)"))
    let saved = screen(state)
    #expect(saved.contains("saved to /w/••••.bin"), "\(saved)")
    #expect(!saved.contains("s3cr3t"))
  }
}
