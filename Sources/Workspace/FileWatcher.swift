import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Tells when a file may have changed on disk, with inotify (Linux), for a `poll` loop.
///
/// ```swift
/// let watcher = try FileWatcher(watching: URL(fileURLWithPath: "api.json"))
/// // add watcher.fileDescriptor (POLLIN) to the poll set; when it is readable:
/// if watcher.drain() { /* WorkspaceFile.checkDisk(hasUnsavedEdits:) decides what to do */ }
/// ```
/// It watches the file's folder, not the file: editors and `git` replace a file by writing
/// another and renaming it over, which a watch on the file itself would lose. Events about other
/// names in the folder (the temporary files of the app's own atomic saves, for one) are drained
/// and ignored. Nothing runs in the background: the descriptor is readable when events are
/// queued, so an idle app sleeps in `poll`.
///
/// It lives in the `Workspace` library, beside `WorkspaceFile` whose checks it triggers, so the
/// TUI runtime uses it and the tests exercise it on real files; it is Linux-only, like the
/// rest of the app's runtime (elsewhere `init` fails).
public final class FileWatcher {
  /// Readable when events are waiting; the caller polls it and then calls `drain`.
  public let fileDescriptor: Int32
  /// The watched file's name in its folder.
  private let name: [UInt8]

  /// Starts watching `file` (which need not exist yet: its folder must).
  public init(watching file: URL) throws(FileError) {
    let folder = file.deletingLastPathComponent().path
    self.name = Array(file.lastPathComponent.utf8)
    #if os(Linux)
      let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
      guard fd >= 0 else {
        let reason = FileAccess.describe(errno)
        throw FileError(path: folder, message: "cannot watch the folder: \(reason)", reason: reason)
      }
      let mask =
        IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB
        | IN_DELETE_SELF | IN_MOVE_SELF
      guard inotify_add_watch(fd, folder, UInt32(mask)) >= 0 else {
        let reason = FileAccess.describe(errno)
        close(fd)
        throw FileError(path: folder, message: "cannot watch the folder: \(reason)", reason: reason)
      }
      self.fileDescriptor = fd
    #else
      throw FileError(path: folder, message: "cannot watch the folder: inotify needs Linux", reason: "not supported")
    #endif
  }

  deinit { close(fileDescriptor) }

  /// Reads every queued event without waiting; true when one concerned the watched file (or the
  /// folder itself moved or went away): then check the file.
  public func drain() -> Bool {
    var concerned = false
    var buffer = [UInt8](repeating: 0, count: 16 * 1024)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(fileDescriptor, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return concerned }
      if FileWatcher.events(in: buffer[0..<count], concern: name) { concerned = true }
    }
  }

  /// Whether any event in a block read from inotify names `name` or is about the folder itself.
  /// Each event is `struct inotify_event`: wd (4 bytes), mask (4), cookie (4), len (4), then
  /// `len` bytes of NUL-padded name.
  public static func events(in bytes: ArraySlice<UInt8>, concern name: [UInt8]) -> Bool {
    var offset = bytes.startIndex
    var concerned = false
    while offset + 16 <= bytes.endIndex {
      func word(_ at: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + at + $1]) << (8 * UInt32($1)) }
      }
      let mask = word(4)
      let length = Int(word(12))
      let nameStart = offset + 16
      let nameEnd = min(nameStart + length, bytes.endIndex)
      let eventName = bytes[nameStart..<nameEnd].prefix { $0 != 0 }
      #if os(Linux)
        let aboutFolder = mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED | IN_Q_OVERFLOW) != 0
      #else
        let aboutFolder = mask != 0
      #endif
      if aboutFolder || eventName.elementsEqual(name) { concerned = true }
      offset = nameStart + length
    }
    return concerned
  }
}
