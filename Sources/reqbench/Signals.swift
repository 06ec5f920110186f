import CommandLineSupport
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Signal handling for the headless commands.
///
/// SIGINT, SIGTERM and SIGHUP are blocked by `main.swift` before any thread exists, so every
/// thread the process makes inherits the block and none of them can take the default action or
/// drop the signal. One that arrives early stays pending: the commands that handle them (`run`,
/// `demo-server`, the TUI) take it with `sigwait` on a thread of their own, which takes one
/// already pending at once, so a Ctrl-C in the first milliseconds of `run` is never lost. Every other command gives them back their default action
/// (`restoreDefaults`) before it starts anything. Children (`$EDITOR`) are spawned with an empty
/// mask and these signals at their default (CNcurses' shim).
///
/// The TUI: blocked, the signals never reach the handlers ncurses installs at `initscr` (which
/// would end the process from inside a signal handler); `Interruption` hands them to the
/// runtime's inbox (`MessageInbox.terminate`), and its loop quits as `q` then `y` would, from the
/// one thread that owns the terminal: transfers cancelled, the cookie jars written, history
/// recorded, the terminal restored, exit status 128 + the signal. While `$EDITOR` runs, one waits
/// until the editor ends. SIGWINCH and SIGTSTP stay ncurses's.
enum Signals {
  static let termination: [Int32] = [SIGINT, SIGTERM, SIGHUP]
  /// Sent by `Interruption.cancel` to its own waiting thread only (`pthread_kill`), which has it
  /// blocked: it ends the wait.
  static let wake: Int32 = SIGUSR2

  /// Blocks the termination signals in the calling thread: call it first thing in `main`.
  static func blockTermination() {
    setMask(SIG_BLOCK)
  }

  /// Unblocks them: a pending one then ends the process, as it would have on arrival.
  static func restoreDefaults() {
    setMask(SIG_UNBLOCK)
  }

  private static func setMask(_ how: Int32) {
    var set = sigset_t()
    sigemptyset(&set)
    for sig in termination + [wake] { sigaddset(&set, sig) }
    pthread_sigmask(how, &set, nil)
  }

  /// Blocks until SIGINT, SIGTERM or SIGHUP.
  static func waitForTermination() {
    let semaphore = DispatchSemaphore(value: 0)
    let watch = Interruption()
    watch.handle { semaphore.signal() }
    semaphore.wait()
    watch.cancel()
  }

  /// Watches SIGINT, SIGTERM and SIGHUP alike from the start of a command. Until `handle` is
  /// given what to do, one ends the process at once with 128 + the signal (nothing has been sent
  /// yet: the command is reading its files, or asking for a secret); then the handler runs (on a
  /// background queue) and cancels in-flight exchanges cleanly (a download keeps its partial
  /// data, history is written) whichever signal ends the command. Keep the watch alive.
  final class Interruption: @unchecked Sendable {
    private let state = Locked<(received: Int32?, handler: (@Sendable () -> Void)?, cancelled: Bool)>((nil, nil, false))
    /// The thread waiting in `sigwait` (a pthread of its own, not a dispatch signal source:
    /// libdispatch's worker threads start a timer that wakes the process every second).
    private let waiter: pthread_t?

    init() {
      let state = self.state
      // No `signal(sig, SIG_IGN)`: the signals are blocked in every thread, so the default
      // action cannot run, and setting SIG_IGN would discard one already pending (`sigwait`
      // takes a pending one at once).
      var thread = pthread_t()
      let box = Unmanaged.passRetained(WaiterBody(state: state))
      let made = pthread_create(&thread, nil, { context in
        let body = Unmanaged<WaiterBody>.fromOpaque(context!).takeRetainedValue()
        body.run()
        return nil
      }, box.toOpaque())
      if made == 0 {
        pthread_detach(thread)
        waiter = thread
      } else {
        box.release()
        waiter = nil
      }
    }

    /// The waiting thread's loop: each signal of the set runs the handler (or ends the process
    /// before there is one); `Signals.wake`, sent by `cancel`, ends the loop.
    private final class WaiterBody: @unchecked Sendable {
      let state: Locked<(received: Int32?, handler: (@Sendable () -> Void)?, cancelled: Bool)>
      init(state: Locked<(received: Int32?, handler: (@Sendable () -> Void)?, cancelled: Bool)>) { self.state = state }

      func run() {
        var set = sigset_t()
        sigemptyset(&set)
        for sig in Signals.termination { sigaddset(&set, sig) }
        sigaddset(&set, Signals.wake)
        pthread_sigmask(SIG_BLOCK, &set, nil)
        while true {
          var sig: Int32 = 0
          guard sigwait(&set, &sig) == 0 else { continue }
          if sig == Signals.wake {
            if state.get().cancelled { return }
            continue
          }
          let (handler, cancelled) = state.mutate { state -> ((@Sendable () -> Void)?, Bool) in
            if state.received == nil { state.received = sig }
            return (state.handler, state.cancelled)
          }
          if cancelled { continue }
          guard let handler else { _exit(128 + sig) }  // not exit: other threads run on
          handler()
        }
      }
    }

    /// What a signal does from now on.
    func handle(_ handler: @escaping @Sendable () -> Void) {
      state.mutate { $0.handler = handler }
    }

    /// Runs the handler once more if a signal already came: call it when everything the handler
    /// acts on has been started. A signal that came while they were being started found some
    /// not yet there to cancel (a `run` interrupted between its `handle` and its sends went on
    /// for the whole request); one that comes after this call finds them all.
    func handleAgainIfInterrupted() {
      let handler = state.mutate { state in state.received == nil ? nil : state.handler }
      handler?()
    }

    /// Whether a signal interrupted the command.
    var interrupted: Bool { state.get().received != nil }

    /// 128 + the signal that interrupted the command (130 for Ctrl-C).
    var exitStatus: Int32 { 128 + (state.get().received ?? SIGINT) }

    /// Stops watching: signals that come later stay pending, blocked.
    func cancel() {
      // Once: the waiting thread ends on the first wake, and a thread that has ended is not
      // one to signal.
      let first = state.mutate { state -> Bool in
        defer { state.cancelled = true }
        return !state.cancelled
      }
      if first, let waiter { pthread_kill(waiter, Signals.wake) }
    }
  }
}
