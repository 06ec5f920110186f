import Foundation

/// A thread of its own that runs the work it is given one piece at a time, in order, some of it
/// after a delay; between pieces it sleeps on a condition, so a process with nothing to do
/// wakes for nothing.
///
/// The engine and the TUI use this (and `detached` for one-off work) instead of libdispatch's
/// queues: on Linux the first piece of work libdispatch hands to one of its worker threads
/// starts its pool monitor, a timer on the manager thread that fires every second for as long as
/// the process lives, whether or not there is work. An idle TUI would wake once a second.
/// (`DispatchSemaphore` and `sync` on a private queue use no worker thread and stay allowed.)
public final class WorkerThread: @unchecked Sendable {
  private final class State: @unchecked Sendable {
    let condition = NSCondition()
    /// Work in the order it becomes due; `due` nil is now.
    var jobs: [(due: Date?, order: Int, work: @Sendable () -> Void)] = []
    var order = 0
    var started = false
    var stopping = false
  }

  private let state = State()
  private let name: String

  /// `name` names the thread (`ps -L`, debuggers): at most 15 bytes, Linux's limit.
  public init(name: String) {
    self.name = name
  }

  deinit {
    state.condition.lock()
    state.stopping = true
    state.condition.signal()
    state.condition.unlock()
  }

  /// Runs `work` on the thread after what was given before.
  public func async(_ work: @escaping @Sendable () -> Void) {
    enqueue(due: nil, work)
  }

  /// Runs `work` on the thread once `seconds` have passed (and what was due before it ran).
  public func after(seconds: Double, _ work: @escaping @Sendable () -> Void) {
    enqueue(due: Date().addingTimeInterval(max(0, seconds)), work)
  }

  /// Runs `work` on the thread after what was given before, and waits for it: what `work`
  /// touches is touched by one thread at a time, as on a serial queue.
  public func sync<T>(_ work: () -> T) -> T {
    withoutActuallyEscaping(work) { work in
      // The job holds the box, and the box lets go of `work` before `done` is signalled: by
      // the time this returns nothing holds `work` any more.
      let box = SyncJob(work)
      let done = DispatchSemaphore(value: 0)
      enqueue(due: nil) {
        box.run()
        done.signal()
      }
      done.wait()
      return box.result!
    }
  }

  private final class SyncJob<T>: @unchecked Sendable {
    private var work: (() -> T)?
    var result: T?
    init(_ work: @escaping () -> T) { self.work = work }
    func run() {
      let work = self.work
      self.work = nil
      result = work?()
    }
  }

  /// Runs `work` once on a new thread of its own, which ends with it.
  public static func detached(name: String, _ work: @escaping @Sendable () -> Void) {
    // Named from inside: Foundation names a thread only when it is the current one.
    Thread {
      Thread.current.name = name
      work()
    }.start()
  }

  /// Runs `work(0)` … `work(iterations - 1)` at once, the first on the calling thread and each
  /// other on a thread of its own, and returns when all have (`DispatchQueue.concurrentPerform`
  /// without libdispatch's worker threads).
  public static func concurrentPerform(iterations: Int, _ work: (Int) -> Void) {
    guard iterations > 1 else {
      if iterations == 1 { work(0) }
      return
    }
    withoutActuallyEscaping(work) { work in
      nonisolated(unsafe) let run = work
      let done = DispatchSemaphore(value: 0)
      for index in 1..<iterations {
        detached(name: "rb-perform") {
          run(index)
          done.signal()
        }
      }
      run(0)
      for _ in 1..<iterations { done.wait() }
    }
  }

  private func enqueue(due: Date?, _ work: @escaping @Sendable () -> Void) {
    let state = self.state
    state.condition.lock()
    state.order += 1
    let job = (due: due, order: state.order, work: work)
    // Immediate work goes after the immediate work before it and before anything delayed.
    let place = state.jobs.firstIndex { other in
      switch (other.due, due) {
      case (nil, _): return false
      case (.some, nil): return true
      case (.some(let theirs), .some(let mine)): return theirs > mine
      }
    } ?? state.jobs.endIndex
    state.jobs.insert(job, at: place)
    let start = !state.started
    state.started = true
    state.condition.signal()
    state.condition.unlock()
    if start {
      let name = self.name
      Thread {
        Thread.current.name = name
        WorkerThread.loop(state)
      }.start()
    }
  }

  /// Takes the work that is due and runs it; sleeps until the next is due or new work comes;
  /// ends when the owner is gone and nothing is left that is due.
  private static func loop(_ state: State) {
    while true {
      state.condition.lock()
      var work: (@Sendable () -> Void)?
      while work == nil {
        if let first = state.jobs.first {
          if let due = first.due, due > Date() {
            if state.stopping { state.jobs.removeAll() } else { _ = state.condition.wait(until: due) }
            continue
          }
          work = state.jobs.removeFirst().work
        } else if state.stopping {
          state.condition.unlock()
          return
        } else {
          state.condition.wait()
        }
      }
      state.condition.unlock()
      work?()
    }
  }
}
