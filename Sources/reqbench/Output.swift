import Foundation

/// Buffered writes to a file descriptor (stdout), flushed explicitly: Swift 6 forbids touching
/// C's `stdout` global, and `print` would flush per line on a pipe anyway.
final class Output: @unchecked Sendable {
  static let standard = Output(fd: STDOUT_FILENO)

  private let fd: Int32
  private let lock = NSLock()
  private var buffer: [UInt8] = []

  init(fd: Int32) { self.fd = fd }

  func write(_ text: String) { write(Array(text.utf8)) }

  func line(_ text: String) { write(text + "\n") }

  func write(_ bytes: [UInt8]) {
    lock.withLock {
      buffer.append(contentsOf: bytes)
      if buffer.count >= 1 << 16 { flushLocked() }
    }
  }

  func flush() { lock.withLock { flushLocked() } }

  private func flushLocked() {
    var offset = 0
    while offset < buffer.count {
      let n = buffer[offset...].withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        break  // a closed pipe: nothing more can be written
      }
      offset += n
    }
    buffer.removeAll(keepingCapacity: true)
  }
}
