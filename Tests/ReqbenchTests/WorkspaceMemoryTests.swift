import Foundation
import TestSupport
import Testing

/// Reading a workspace costs memory in proportion to its file: `run` of a 1 KB request beside a
/// request whose JSON body is 20 MB of small objects peaks at a few times the file more than the
/// same run without that body (the body's text is kept, not made into a value; as a value it
/// took about 15 times its text).
///
/// The peak is the `reqbench` process's own, as its parent sees it (`wait4`'s `ru_maxrss`), the
/// parent a small python3 that forks it: a process spawned by the test process itself would be
/// charged with the test process's memory (`posix_spawn` shares it until `exec`).
@Suite struct WorkspaceMemoryTests {
  /// Writes a workspace of the request `a` (1 KB from the fixture server) and, with `items`, the
  /// request `c` whose JSON body is `items` objects shaped `{"k": 1, "v": [1, 2, {"z": null}]}`,
  /// written a piece at a time; returns its path and size.
  func workspace(items: Int, in folder: URL) throws -> (path: String, bytes: Int) {
    let path = folder.appendingPathComponent("w\(items).json").path
    guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
      throw CocoaError(.fileWriteUnknown)
    }
    defer { try? file.close() }
    var written = 0
    func write(_ text: String) throws {
      try file.write(contentsOf: Data(text.utf8))
      written += text.utf8.count
    }
    try write(#"{"version": 1, "requests": [{"name": "a", "url": "\#(try TestServer.fixture.url("/bytes/1024"))"}"#)
    if items > 0 {
      try write(#", {"name": "c", "method": "POST", "url": "http://127.0.0.1:9/upload", "body": {"json": ["#)
      for start in stride(from: 0, to: items, by: 10_000) {
        let piece = (start..<min(start + 10_000, items)).map { #"{"k": \#($0), "v": [1, 2, {"z": null}]}"# }
        try write((start == 0 ? "" : ", ") + piece.joined(separator: ", "))
      }
      try write("]}}")
    }
    try write("]}\n")
    return (path, written)
  }

  /// The peak memory, in KB, of `reqbench run WORKSPACE a`.
  func peakOfRun(_ workspace: String, in folder: URL) throws -> Int {
    let script = """
      import os, sys
      pid = os.fork()
      if pid == 0:
          os.chdir(sys.argv[1])
          null = os.open(os.devnull, os.O_WRONLY)
          os.dup2(null, 1)
          os.execv(sys.argv[2], sys.argv[2:])
      _, status, usage = os.wait4(pid, 0)
      print(usage.ru_maxrss)
      sys.exit(os.waitstatus_to_exitcode(status))
      """
    let result = try runProcess(
      URL(fileURLWithPath: "/usr/bin/env"),
      ["python3", "-c", script, folder.path, try reqbenchBinary.path, "run", workspace, "a", "--no-history"], timeout: 120)
    #expect(result.status == 0, "\(result.stderr)")
    return Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
  }

  @Test func runningOneRequestOfALargeWorkspaceTakesAFewTimesItsFile() throws {
    let folder = scratchURL("memory")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let small = try workspace(items: 0, in: folder)
    let large = try workspace(items: 500_000, in: folder)
    #expect(large.bytes > 19_000_000 && large.bytes < 22_000_000)
    let smallPeak = try peakOfRun(small.path, in: folder)
    let largePeak = try peakOfRun(large.path, in: folder)
    #expect(smallPeak > 0 && largePeak > 0)
    let ratio = Double(largePeak - smallPeak) * 1024 / Double(large.bytes)
    // Kept as text the body costs about its file once more; as values it cost about 15 times.
    #expect(ratio < 4, "peak \(largePeak) KB against \(smallPeak) KB without the body: \(ratio)× the \(large.bytes)-byte file")
  }
}
