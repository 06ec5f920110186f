import Foundation

/// Runs this test binary again as a child, on `suite` alone and with `environment` added (the
/// crash tests' children see their variable and loop until killed), waits until `ready` holds
/// (checked every 50 ms, at most 30 s: a loaded machine starts the child slowly), then for a
/// random `pause` in microseconds, and kills it with SIGKILL. Returns whether SIGKILL ended it.
/// Throws `ChildNotReady` (after killing the child) when `ready` never held: the test then fails
/// instead of checking a child that never did what it is killed in the middle of.
public func killChildTest(
  suite: String, environment: [String: String], when ready: () -> Bool, pause: ClosedRange<UInt32>
) throws -> Bool {
  let child = try startChildTest(filter: suite, environment: environment)
  let deadline = Date().addingTimeInterval(30)
  var isReady = ready()
  while !isReady && Date() < deadline && child.isRunning {
    usleep(50_000)
    isReady = ready()
  }
  guard isReady else {
    let ended = !child.isRunning
    kill(child.processIdentifier, SIGKILL)
    child.waitUntilExit()
    throw ChildNotReady(suite: suite, exited: ended)
  }
  usleep(UInt32.random(in: pause))
  kill(child.processIdentifier, SIGKILL)
  child.waitUntilExit()
  return child.terminationReason == .uncaughtSignal
}

/// A child test that never reached its ready condition: it ended by itself (`exited`) or was
/// still not ready after 30 s.
public struct ChildNotReady: Error, CustomStringConvertible {
  public let suite: String
  public let exited: Bool
  public var description: String {
    "the child running \(suite) \(exited ? "ended" : "was still not ready after 30 s") before its ready condition held"
  }
}

/// Runs this test binary again as a child, on `filter` alone with `environment` added, and waits
/// for it (at most `timeout` seconds: then it is killed). Returns its exit status, or nil when a
/// signal ended it. For tests of what is process-wide (stopping every engine thread), which must
/// not meet the other tests of the parent process.
public func runChildTest(filter: String, environment: [String: String], timeout: Double = 60) throws -> Int32? {
  let child = try startChildTest(filter: filter, environment: environment)
  let deadline = Date().addingTimeInterval(timeout)
  while child.isRunning && Date() < deadline { usleep(20_000) }
  if child.isRunning { kill(child.processIdentifier, SIGKILL) }
  child.waitUntilExit()
  return child.terminationReason == .exit ? child.terminationStatus : nil
}

/// This test binary started again on the tests `filter` names, with `environment` added.
private func startChildTest(filter: String, environment: [String: String]) throws -> Process {
  let child = Process()
  child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
  child.arguments = ["--testing-library", "swift-testing", "--filter", filter]
  child.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
  child.standardOutput = FileHandle.nullDevice
  child.standardError = FileHandle.nullDevice
  try child.run()
  return child
}
