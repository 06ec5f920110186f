import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// When a folder was last swept: an empty file (`.swept`) whose modification time is the end of
/// the last whole sweep. A command sweeps at its start only when the stamp is older than the
/// interval, so a folder of many names (the cache, a full /tmp) is read once in a while, not by
/// every short `run`. A missing or unreadable stamp means the sweep is due.
public struct SweepStamp: Sendable {
  public let path: String

  /// The stamp `.swept` in `folder`.
  public init(folder: String) {
    path = folder + "/.swept"
  }

  /// True when no whole sweep ended less than `interval` seconds before `now`.
  public func isDue(interval: Double, now: Date) -> Bool {
    var info = stat()
    guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return true }
    return now.timeIntervalSince1970 - Double(info.st_mtim.tv_sec) >= interval
  }

  /// Records that a whole sweep ended now (creates the stamp, mode 0600, or touches it). The
  /// stamp has no content, so there is nothing to write atomically; a folder that is not there
  /// (yet) gets no stamp and is swept again next time. A link there is not followed (nothing
  /// outside the folder is created or touched).
  public func stamp() {
    let fd = StateFiles.open(path, O_WRONLY | O_CREAT | O_NONBLOCK)
    guard fd >= 0 else { return }
    futimens(fd, nil)
    close(fd)
  }
}
