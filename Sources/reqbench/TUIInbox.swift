import Foundation
import Synchronization
import Workbench
import Workspace

// What the UI thread waits on besides the terminal: the inbox other threads post messages to, and
// the jq program the Events tab reuses.

/// The last jq program compiled for the Events tab (`Command.filter` with `events`): each run
/// over the events that came since the last one costs only their own run, not a compile.
final class JQProgramCache: Sendable {
  private let last = Mutex<JQ.Program?>(nil)

  func program(_ expression: String) throws(JQ.Failure) -> JQ.Program {
    if let last = last.withLock({ $0 }), last.source == expression { return last }
    let made = try JQ.Program(expression)
    last.withLock { $0 = made }
    return made
  }
}

/// Messages from other threads to the UI thread: a locked list plus a wake-up byte on a pipe
/// (written only when the list was empty, so a burst of events costs one wake-up), and the
/// request to quit now that a termination signal makes (`terminate`).
final class MessageInbox: Sendable {
  private struct State {
    var messages: [Msg] = []
    var terminated = false
  }
  private let state = Mutex(State())
  let readFD: Int32
  private let writeFD: Int32

  init() {
    var fds: [Int32] = [0, 0]
    if pipe(&fds) != 0 { fds = [-1, -1] }
    readFD = fds[0]
    writeFD = fds[1]
    _ = fcntl(readFD, F_SETFL, fcntl(readFD, F_GETFL) | O_NONBLOCK)
    _ = fcntl(writeFD, F_SETFL, fcntl(writeFD, F_GETFL) | O_NONBLOCK)
  }

  deinit {
    close(readFD)
    close(writeFD)
  }

  func post(_ msg: Msg) { post([msg]) }

  /// Posts `batch` as one: the UI thread takes all of it or none of it.
  func post(_ batch: [Msg]) {
    guard !batch.isEmpty else { return }
    let wake = state.withLock {
      $0.messages.append(contentsOf: batch)
      return $0.messages.count == batch.count
    }
    if wake {
      var byte: UInt8 = 1
      _ = write(writeFD, &byte, 1)
    }
  }

  /// A termination signal came (`Signals.Interruption`'s handler, on a dispatch queue): the UI
  /// thread wakes and quits.
  func terminate() {
    state.withLock { $0.terminated = true }
    var byte: UInt8 = 1
    _ = write(writeFD, &byte, 1)
  }

  var terminationRequested: Bool { state.withLock { $0.terminated } }

  func takeAll() -> [Msg] {
    var scratch = [UInt8](repeating: 0, count: 64)
    while read(readFD, &scratch, scratch.count) > 0 {}
    return state.withLock {
      let taken = $0.messages
      $0.messages.removeAll(keepingCapacity: true)
      return taken
    }
  }
}
