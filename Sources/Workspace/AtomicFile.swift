import Foundation
import RequestEngine

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// A file that could not be read or written: which, and what the system said.
public struct FileError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The file as the caller named it.
  public var path: String
  /// What failed, e.g. `cannot create a temporary file in /srv: Permission denied`.
  public var message: String
  /// The system's reason alone (`No such file or directory`).
  public var reason: String

  public init(path: String, message: String, reason: String) {
    self.path = path
    self.message = message
    self.reason = reason
  }

  /// `PATH: message`.
  public var description: String { "\(path): \(message)" }

  /// What `StateFiles` reported, as the error the stores' callers get.
  public init(_ error: StateFileError) {
    self.init(path: error.path, message: error.message, reason: error.reason)
  }
}

/// Replaces files so that a reader (or a crash) sees the old content or the new, never a mix:
/// write a temporary file in the same directory, fsync it, rename it over the target, fsync the
/// directory.
///
/// ```swift
/// try AtomicFile.write(Array("{}\n".utf8), to: URL(fileURLWithPath: ".reqbench/demo/cache.json"))
/// ```
/// The target keeps its permissions (a new file gets 0666 minus the umask) unless `permissions`
/// is given, e.g. `0o600` for secrets. A symbolic link is followed (the file it names is
/// replaced) unless `links` is `.refuse`: then it is an error and nothing is written (the state
/// folder's files and the secrets file, which are never written through a link).
/// `durable: false` skips the two fsyncs: the rename is still atomic for readers and survives the
/// process being killed, but a power loss may lose the file (used for history, a log whose damaged
/// or missing entries are ignored; never for workspaces or secrets).
public enum AtomicFile {
  /// What a symbolic link at the target does.
  public enum Links: Sendable {
    /// The file it names is replaced (a workspace kept elsewhere and linked).
    case follow
    /// The write fails, saying so.
    case refuse
  }

  public static func write(
    _ data: Data, to url: URL, permissions: mode_t? = nil, durable: Bool = true, links: Links = .follow
  ) throws(FileError) {
    try write([UInt8](data), to: url, permissions: permissions, durable: durable, links: links)
  }

  public static func write(
    _ bytes: [UInt8], to url: URL, permissions: mode_t? = nil, durable: Bool = true, links: Links = .follow
  ) throws(FileError) {
    try write(to: url, permissions: permissions, durable: durable, links: links) { (output) throws(FileError) in
      try output(bytes[...])
    }
  }

  /// Writes the file from pieces `contents` hands to the function it is given, so a large file
  /// (a spilled response body copied into history) is never held whole; the same temporary file,
  /// fsync and rename as `write(_:to:)`. What `contents` throws leaves the target as it was.
  public static func write(
    to url: URL, permissions: mode_t? = nil, durable: Bool = true, links: Links = .follow,
    contents: (_ output: (ArraySlice<UInt8>) throws(FileError) -> Void) throws(FileError) -> Void
  ) throws(FileError) {
    let shownPath = url.relativePath
    func failure(_ what: String, _ code: Int32 = errno) -> FileError {
      let reason = FileAccess.describe(code)
      return FileError(path: shownPath, message: "\(what): \(reason)", reason: reason)
    }

    let target: String
    switch links {
    case .follow: target = FileAccess.followingSymlink(url.path)
    case .refuse:
      // The rename below replaces a link that appears meanwhile (it never writes through one).
      if StateFiles.isLink(url.path) {
        throw FileError(
          path: shownPath, message: "is a symbolic link; reqbench does not write through one here: remove it",
          reason: "symbolic link")
      }
      target = url.path
    }
    let directory = FileAccess.directory(of: target)
    let name = String(target.split(separator: "/").last ?? Substring(target))
    let temporary =
      directory + "/." + name + ".tmp-" + String(UInt64.random(in: .min ... .max), radix: 16)

    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
    guard fd >= 0 else { throw failure("cannot create a temporary file in \(directory)") }
    var written = false
    var isOpen = true
    defer {
      if isOpen { close(fd) }
      if !written { unlink(temporary) }
    }

    var mode = permissions
    if mode == nil {
      var info = stat()
      if stat(target, &info) == 0 { mode = info.st_mode & 0o7777 }
    }
    if let mode, fchmod(fd, mode) != 0 {
      throw failure("cannot set the permissions of the temporary file")
    }

    try contents { (bytes) throws(FileError) in
      var offset = bytes.startIndex
      while offset < bytes.endIndex {
        let count = bytes[offset...].withUnsafeBytes { posixWrite(fd, $0.baseAddress, $0.count) }
        if count < 0 {
          if errno == EINTR { continue }
          throw failure("cannot write the temporary file")
        }
        offset += count
      }
    }
    if durable && fsync(fd) != 0 { throw failure("cannot flush the temporary file to disk") }
    isOpen = false
    if close(fd) != 0 { throw failure("cannot close the temporary file") }
    if rename(temporary, target) != 0 { throw failure("cannot replace the file") }
    written = true
    guard durable else { return }
    try syncDirectory(directory, shownPath: shownPath)
  }

  /// Makes a new name in `directory` durable (a rename, a link): fsyncs the directory. Some file
  /// systems cannot fsync a directory (EINVAL): not an error.
  package static func syncDirectory(_ directory: String, shownPath: String) throws(FileError) {
    let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard directoryFD >= 0 else { return }
    let result = fsync(directoryFD)
    let code = errno
    close(directoryFD)
    if result != 0 && code != EINVAL {
      let reason = FileAccess.describe(code)
      throw FileError(
        path: shownPath, message: "saved, but cannot flush the directory \(directory) to disk: \(reason)", reason: reason)
    }
  }
}

/// Plain file reads with the system's reason on failure.
public enum FileAccess {
  package static func read(_ url: URL) throws(FileError) -> [UInt8] {
    let path = url.path
    func failure() -> FileError {
      let reason = describe(errno)
      return FileError(path: url.relativePath, message: "cannot read: \(reason)", reason: reason)
    }
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw failure() }
    defer { close(fd) }
    var info = stat()
    let size = fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFREG ? Int(info.st_size) : 0
    return try read(descriptor: fd, path: url.relativePath, expectedSize: size)
  }

  /// Everything left to read from an open descriptor (stdin too: EINTR is retried, where
  /// Foundation's `readDataToEndOfFile()` would stop the process); `path` names it in the error.
  /// `expectedSize` (a regular file's size) is the room made at once: the bytes are not grown
  /// into (which doubles the array, holding the old one and the new one, up to three times the
  /// file, while it copies).
  public static func read(descriptor fd: Int32, path: String, expectedSize: Int = 0) throws(FileError) -> [UInt8] {
    func failure() -> FileError {
      let reason = describe(errno)
      return FileError(path: path, message: "cannot read: \(reason)", reason: reason)
    }
    var bytes: [UInt8] = []
    if expectedSize > 0 { bytes.reserveCapacity(expectedSize) }
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBufferPointer { posixRead(fd, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw failure()
      }
      if count == 0 { return bytes }
      bytes.append(contentsOf: chunk[0..<count])
    }
  }

  package static func describe(_ code: Int32) -> String {
    String(cString: strerror(code))
  }

  static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    let directory = String(path[..<slash])
    return directory.isEmpty ? "/" : directory
  }

  /// The path a chain of symbolic links ends at (the path itself when it is not a link).
  static func followingSymlink(_ path: String) -> String {
    var path = path
    for _ in 0..<40 {
      var info = stat()
      guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFLNK else { return path }
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
      let count = readlink(path, &buffer, buffer.count - 1)
      guard count > 0 else { return path }
      let link = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      path = link.hasPrefix("/") ? link : directory(of: path) + "/" + link
    }
    return path
  }
}

// The POSIX calls, under names the `write` / `read` methods above do not shadow.
private func posixWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
  write(fd, buffer, count)
}

private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
  read(fd, buffer, count)
}
