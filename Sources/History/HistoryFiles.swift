import Foundation
import RequestEngine
import Workspace

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// The file operations of the history store that `AtomicFile` and `FileAccess` do not cover:
/// copying a spilled body without loading it (through `AtomicFile`), reading a file's first line or a slice of it, and
/// listing, stating and removing files. Every error is a `FileError` naming the file.
enum HistoryFiles {
  /// Mode of every history file and folder: responses may hold tokens and personal data.
  static let fileMode: mode_t = StateFiles.fileMode

  /// Whether `name` is an `AtomicFile` temporary file: `.NAME.tmp-HEX`.
  static func isTemporary(_ name: String) -> Bool {
    name.hasPrefix(".") && name.contains(".tmp-")
  }

  /// Which file a path names (device and inode), to see that it was replaced.
  struct Identity: Equatable {
    var device: UInt64
    var inode: UInt64
  }

  static func identity(_ path: String) -> Identity? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
  }

  /// Whether `path` is a folder, not a link to one.
  static func isDirectory(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
  }

  /// The names in a folder (without `.` and `..`); empty when it cannot be read or is a link
  /// (`StateFiles.list`).
  static func list(_ path: String) -> [String] {
    StateFiles.list(path)
  }

  /// Size and modification time of a regular file; nil for anything else or a missing file.
  static func regularFile(_ path: String) -> (size: Int, modified: Double)? {
    var info = stat()
    guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    #if canImport(Darwin)
      let modified = info.st_mtimespec
    #else
      let modified = info.st_mtim
    #endif
    return (Int(info.st_size), Double(modified.tv_sec) + Double(modified.tv_nsec) / 1e9)
  }

  /// Removes a file; a file that is already gone is not an error.
  static func remove(_ path: String) {
    unlink(path)
  }

  /// Gives a spilled body the name `target` without copying it: linked (the name appears with
  /// the whole file, as a rename would make it), its bytes fsynced, the folder fsynced, all
  /// before the row that refers to it (a power loss in between leaves a file no row refers to,
  /// which the writer's sweep removes). False when it cannot be linked (`SpilledFile.link`): the
  /// caller copies it.
  static func link(_ file: SpilledFile, to target: URL, permissions: mode_t) throws(FileError) -> Bool {
    guard fchmod(file.descriptor, permissions) == 0, file.link(to: target.path) else { return false }
    try AtomicFile.syncDirectory(target.deletingLastPathComponent().path, shownPath: target.relativePath)
    return true
  }

  /// Copies the file at `source` to `target` through `AtomicFile` (fsynced, renamed over the
  /// target), reading it in 1 MB chunks so it is never loaded whole; with a `masker`, secrets are
  /// masked on the way. Returns the bytes written.
  @discardableResult
  static func copy(
    from source: String, to target: URL, permissions: mode_t, masking masker: SecretMasker? = nil
  ) throws(FileError) -> Int {
    func failure(_ code: Int32 = errno) -> FileError {
      let reason = FileAccess.describe(code)
      return FileError(path: source, message: "cannot read the response body: \(reason)", reason: reason)
    }
    let input = open(source, O_RDONLY | O_CLOEXEC)
    guard input >= 0 else { throw failure() }
    defer { close(input) }
    var masker = masker.flatMap { $0.isEmpty ? nil : $0 }
    var total = 0
    try AtomicFile.write(to: target, permissions: permissions, links: .refuse) { (output) throws(FileError) in
      var chunk = [UInt8](repeating: 0, count: 1 << 20)
      while true {
        let count = chunk.withUnsafeMutableBytes { posixRead(input, $0.baseAddress, $0.count) }
        if count < 0 {
          if errno == EINTR { continue }
          throw failure()
        }
        if count == 0 { break }
        let piece: ArraySlice<UInt8>
        if masker != nil, let masked = masker?.feed(chunk[0..<count]) {
          piece = masked[...]
        } else {
          piece = chunk[0..<count]
        }
        try output(piece)
        total += piece.count
      }
      if let rest = masker?.finish() {
        try output(rest[...])
        total += rest.count
      }
    }
    return total
  }

  /// What `readFirstLine` found: the line without its `\n`, and the file's size.
  struct FirstLine {
    var line: [UInt8]
    var fileSize: Int
  }

  /// The bytes before the first `\n` of a file, reading no more than needed (in 16 KB chunks) and
  /// at most `limit` bytes; nil when the file cannot be read or has no `\n` within the limit.
  static func readFirstLine(_ path: String, limit: Int) -> FirstLine? {
    let fd = StateFiles.open(path, O_RDONLY | O_NONBLOCK)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
    var line: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16 * 1024)
    while line.count < limit {
      let count = chunk.withUnsafeMutableBytes { posixRead(fd, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        return nil
      }
      if count == 0 { return nil }
      if let newline = chunk[0..<count].firstIndex(of: 0x0A) {
        line.append(contentsOf: chunk[0..<newline])
        return line.count <= limit ? FirstLine(line: line, fileSize: Int(info.st_size)) : nil
      }
      line.append(contentsOf: chunk[0..<count])
    }
    return nil
  }

  /// `count` bytes of the regular file at `path` from `offset` (never through a link, never a
  /// FIFO: `StateFiles.openRegular`); an error when the file is shorter.
  static func read(_ path: String, offset: Int, count: Int) throws(FileError) -> [UInt8] {
    func failure(_ code: Int32) -> FileError {
      let reason = FileAccess.describe(code)
      return FileError(path: path, message: "cannot read: \(reason)", reason: reason)
    }
    let opened: (descriptor: Int32, info: stat)?
    do throws(StateFileError) {
      opened = try StateFiles.openRegular(path)
    } catch {
      throw FileError(error)
    }
    guard let fd = opened?.descriptor else { throw failure(ENOENT) }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: count)
    var done = 0
    while done < count {
      let n = bytes[done...].withUnsafeMutableBytes {
        pread(fd, $0.baseAddress, $0.count, off_t(offset + done))
      }
      if n < 0 {
        if errno == EINTR { continue }
        throw failure(errno)
      }
      if n == 0 {
        throw FileError(
          path: path,
          message: "the file ends after \(offset + done) bytes; \(offset + count) were expected",
          reason: "truncated")
      }
      done += n
    }
    return bytes
  }
}

// The POSIX call, under a name that the method called `read` does not shadow.
private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
  read(fd, buffer, count)
}
