import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A fresh path under the system's temporary folder for one test's files (`PREFIX-t-1a2b3c4d`,
/// not created), removed with everything in it when the test process exits, so a run of the
/// suite leaves nothing in /tmp whether or not a test removes its own. (A test that waits for a
/// message with a path in it on a fixed-width screen relies on the length staying as it is.)
public func scratchURL(_ prefix: String) -> URL {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent(uniqueKey(prefix + "-t"))
  Scratch.register(url)
  return url
}

/// `scratchURL`, created as an empty folder.
public func scratchFolder(_ prefix: String) throws -> URL {
  let url = scratchURL(prefix)
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  return url
}

/// The paths handed out, removed at exit (an `atexit` handler, installed with the first).
private enum Scratch {
  static let paths = Mutex<[String]>([])

  static func register(_ url: URL) {
    let first = paths.withLock { paths in
      paths.append(url.path)
      return paths.count == 1
    }
    if first { atexit { Scratch.removeAll() } }
  }

  static func removeAll() {
    for path in paths.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
  }
}
