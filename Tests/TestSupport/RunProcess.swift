import CSpawn
import Foundation

/// What a program printed and how it ended.
public struct ProcessResult: Sendable {
  /// The exit status, or the number of the signal that killed it.
  public var status: Int32
  public var stdout: String
  public var stderr: String
  /// The signal that ended it; nil when it exited.
  public var signal: Int32?
}

public struct ProcessTimedOut: Error, CustomStringConvertible {
  public let command: String
  public let seconds: Double
  public var description: String { "`\(command)` was still running after \(Int(seconds)) s and was killed" }
}

/// Runs a program to completion and returns its exit status, stdout and stderr. A child still
/// running after `timeout` seconds is killed (SIGKILL) and the call throws: a hung child fails its
/// test, never the whole run.
///
/// Not `Foundation.Process`: on Linux it learns that a child ended from end-of-file on a socket the
/// child inherits, so a child that leaves a daemon behind (`tmux new-session` starting the tmux
/// server) is never seen to end and `waitUntilExit()` blocks for as long as the daemon lives; and
/// the child inherits the calling thread's blocked signals (a tmux server started that way never
/// reaps its panes and ignores SIGTERM). Here the child gets only stdin, stdout and stderr (every
/// other descriptor is closed), an empty signal mask and default SIGPIPE, and the parent waits
/// with `waitpid`.
public func runProcess(
  _ executable: URL, _ arguments: [String], environment: [String: String]? = nil,
  stdin: String? = nil, currentDirectory: URL? = nil, timeout: Double = 120
) throws -> ProcessResult {
  var program = executable.path
  var argv = [program] + arguments
  if let currentDirectory {
    program = "/usr/bin/env"
    argv = [program, "-C", currentDirectory.path] + argv
  }
  let command = argv.joined(separator: " ")
  let env = ProcessInfo.processInfo.environment.merging(environment ?? [:]) { $1 }

  var input: [Int32] = [-1, -1]
  var output: [Int32] = [-1, -1]
  var errors: [Int32] = [-1, -1]
  guard rb_pipe_cloexec(&input) == 0, rb_pipe_cloexec(&output) == 0, rb_pipe_cloexec(&errors) == 0 else {
    throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EMFILE)
  }
  var actions = posix_spawn_file_actions_t()
  posix_spawn_file_actions_init(&actions)
  defer { posix_spawn_file_actions_destroy(&actions) }
  posix_spawn_file_actions_adddup2(&actions, input[0], 0)
  posix_spawn_file_actions_adddup2(&actions, output[1], 1)
  posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
  rb_spawn_add_closefrom(&actions, 3)

  var attributes = posix_spawnattr_t()
  posix_spawnattr_init(&attributes)
  defer { posix_spawnattr_destroy(&attributes) }
  var noSignals = sigset_t()
  sigemptyset(&noSignals)
  var defaults = sigset_t()
  sigemptyset(&defaults)
  sigaddset(&defaults, SIGPIPE)
  posix_spawnattr_setsigmask(&attributes, &noSignals)
  posix_spawnattr_setsigdefault(&attributes, &defaults)
  posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

  let cArguments = argv.map { strdup($0) } + [nil]
  let cEnvironment = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
  defer { (cArguments + cEnvironment).forEach { free($0) } }
  var pid: pid_t = 0
  let spawned = posix_spawn(&pid, program, &actions, &attributes, cArguments, cEnvironment)
  close(input[0])
  close(output[1])
  close(errors[1])
  guard spawned == 0 else {
    close(input[1])
    close(output[0])
    close(errors[0])
    throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .ENOENT)
  }

  // The watchdog: the reads below end when the child (and whatever it left holding its stdout)
  // is gone.
  let timedOut = LockedBox(false)
  let watchdog = DispatchWorkItem {
    timedOut.set(true)
    kill(pid, SIGKILL)
  }
  DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)

  let stdinHandle = FileHandle(fileDescriptor: input[1], closeOnDealloc: true)
  if let stdin { try? stdinHandle.write(contentsOf: Data(stdin.utf8)) }
  try? stdinHandle.close()
  // Read both pipes at once so a full pipe never blocks the child.
  let errorData = LockedBox(Data())
  let group = DispatchGroup()
  group.enter()
  let errorFD = errors[0]
  DispatchQueue.global().async {
    errorData.set(PipeRead.all(errorFD))
    close(errorFD)
    group.leave()
  }
  let outputData = PipeRead.all(output[0])
  close(output[0])
  group.wait()

  var status: Int32 = 0
  while waitpid(pid, &status, 0) == -1 {
    guard errno == EINTR else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .ECHILD) }
  }
  watchdog.cancel()
  if timedOut.get() { throw ProcessTimedOut(command: command, seconds: timeout) }
  // The exit status, or the signal number when a signal ended it (as Foundation reports it).
  let signal = status & 0x7f
  return ProcessResult(
    status: signal == 0 ? (status >> 8) & 0xff : signal,
    stdout: String(decoding: outputData, as: UTF8.self), stderr: String(decoding: errorData.get(), as: UTF8.self),
    signal: signal == 0 ? nil : signal)
}

/// `runProcess` inside a network namespace of its own (`unshare --net`: no interface, not even
/// loopback, so no resolver either): what a program does when a name cannot be resolved, without
/// a DNS query leaving the machine. Needs root (CI has it); where `unshare` cannot make the
/// namespace the call throws, saying so: the test fails, it never skips.
public func runInEmptyNetwork(
  _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, timeout: Double = 60
) throws -> ProcessResult {
  let unshare = URL(fileURLWithPath: "/usr/bin/unshare")
  guard FileManager.default.isExecutableFile(atPath: unshare.path) else {
    throw NetworkNamespaceUnavailable(reason: "/usr/bin/unshare is missing (util-linux)")
  }
  let probe = try runProcess(unshare, ["--net", "/bin/true"], timeout: timeout)
  guard probe.status == 0 else {
    throw NetworkNamespaceUnavailable(reason: "`unshare --net` failed (status \(probe.status)): \(probe.stderr)")
  }
  return try runProcess(unshare, ["--net", "--", executable.path] + arguments, environment: environment, timeout: timeout)
}

public struct NetworkNamespaceUnavailable: Error, CustomStringConvertible {
  public let reason: String
  public var description: String {
    "cannot make an empty network namespace: \(reason); run the tests as root (CI does), which `unshare --net` needs"
  }
}
