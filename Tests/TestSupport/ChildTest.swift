import Foundation

/// Runs this test binary again as a child, on `suite` alone and with `environment` added (the
/// crash tests' children see their variable and loop until killed), waits until `ready` holds
/// (checked every 50 ms, at most 30 s: a loaded machine starts the child slowly), then for a
/// random `pause` in microseconds, and kills it with SIGKILL. Returns whether SIGKILL ended it.
public func killChildTest(
  suite: String, environment: [String: String], when ready: () -> Bool = { true }, pause: ClosedRange<UInt32>
) throws -> Bool {
  let child = Process()
  child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
  child.arguments = ["--testing-library", "swift-testing", "--filter", suite]
  child.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
  child.standardOutput = FileHandle.nullDevice
  child.standardError = FileHandle.nullDevice
  try child.run()
  let deadline = Date().addingTimeInterval(30)
  while Date() < deadline && !ready() { usleep(50_000) }
  usleep(UInt32.random(in: pause))
  kill(child.processIdentifier, SIGKILL)
  child.waitUntilExit()
  return child.terminationReason == .uncaughtSignal
}
