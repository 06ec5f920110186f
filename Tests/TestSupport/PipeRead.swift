import Foundation

/// Reads from a pipe without Foundation's old `FileHandle` API: `readDataToEndOfFile()` and
/// `availableData` stop the whole test process (`try!`, `fatalError` in FileHandle.swift) when a
/// read is interrupted by a signal (EINTR), which a test runner that sends and receives signals
/// meets now and then. These retry EINTR and end, empty-handed, on any other error.
public enum PipeRead {
  /// Everything until end of file.
  public static func all(_ fd: Int32) -> Data {
    var data = Data()
    while true {
      let chunk = some(fd)
      if chunk.isEmpty { return data }
      data.append(chunk)
    }
  }

  /// What one read returns (it waits for at least a byte); empty at end of file or on an error.
  public static func some(_ fd: Int32) -> Data {
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count < 0 && errno == EINTR { continue }
      return count > 0 ? Data(buffer[0..<count]) : Data()
    }
  }
}
