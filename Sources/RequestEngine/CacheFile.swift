import Digest
import Foundation

/// Cache files: atomic by rename, without fsync (a cache is always rebuildable). `durable` adds
/// an fsync of the temporary file before the rename (the download sidecar: small state that is
/// not rebuildable).
enum CacheFile {
  struct WriteError: Error {}

  static func write(_ bytes: [UInt8], to url: URL, durable: Bool = false) throws {
    let temporary = url.deletingLastPathComponent().path
      + "/.\(url.lastPathComponent).tmp-\(String(UInt64.random(in: .min ... .max), radix: 16))"
    let fd = StateFiles.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: StateFiles.fileMode)
    guard fd >= 0 else { throw WriteError() }
    var offset = 0
    while offset < bytes.count {
      let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
      if written < 0 {
        if errno == EINTR { continue }
        close(fd)
        unlink(temporary)
        throw WriteError()
      }
      offset += written
    }
    if durable && fsync(fd) != 0 {
      close(fd)
      unlink(temporary)
      throw WriteError()
    }
    close(fd)
    if rename(temporary, url.path) != 0 {
      unlink(temporary)
      throw WriteError()
    }
  }
}

/// A file's identity and last change (inode, modification time in nanoseconds): two equal stamps
/// mean the file was not replaced or rewritten in between.
struct FileStamp: Equatable, Sendable {
  let inode: UInt64
  let modified: Int64

  init?(_ path: String) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    inode = UInt64(info.st_ino)
    modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
  }
}
