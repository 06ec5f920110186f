import CSystem
import Foundation

/// Collects a response body in memory and moves it to a temporary file once it passes the memory
/// limit; stops at `maxBytes` (the request's `maxBodyMB`). The file has no name: it is unlinked
/// right after it is created and lives on as the open descriptor a `SpilledFile` keeps, so no
/// end of the process (SIGKILL, a crash) can leave it behind.
struct BodySink {
  private var memory: [UInt8] = []
  private var descriptor: Int32 = -1
  private var size = 0
  private(set) var memoryLimit: Int
  let directory: String
  /// The most the body may hold; `append` refuses more (`overLimit`).
  let maxBytes: Int64
  private(set) var error: String?
  /// The body passed `maxBytes`: the transfer was stopped.
  private(set) var overLimit = false
  /// The bytes of the spilled file whose writing to disk has been started (`startWriteback`).
  private(set) var writebackStarted = 0

  /// The size from which a body kept in memory is given room up to `memoryLimit` at once (at
  /// most `largeBodyRoom`: an agent configured for bodies of gigabytes in memory does not ask for
  /// that much address space up front).
  static let largeBody = 1 << 20
  static let largeBodyRoom = 64 << 20
  /// The most of a stream's body kept in memory (`beginStream`): a stream goes on for as
  /// long as the server likes; past this it goes to the file (where history can link it).
  static let streamMemoryLimit = 1 << 20
  /// A spilled file's pages are sent to the disk a megabyte at a time as they come
  /// (`startWriteback`): history keeps a spilled body by giving the file a name and an fsync
  /// (`SpilledFile.link`), which then waits for the last megabyte only, not for all of a long
  /// stream at its end (4.4 MB: an fsync of 3 ms became one of 0.7 ms).
  static let writebackChunk = 1 << 20

  /// The body is a stream's: kept in memory up to `streamMemoryLimit` only, then spilled.
  mutating func beginStream() {
    memoryLimit = min(memoryLimit, Self.streamMemoryLimit)
  }

  init(memoryLimit: Int, directory: String, maxBytes: Int64) {
    self.memoryLimit = memoryLimit
    self.directory = directory
    self.maxBytes = maxBytes
  }

  var count: Int { size }

  mutating func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
    guard Int64(size) + Int64(bytes.count) <= maxBytes else {
      overLimit = true
      return false
    }
    size += bytes.count
    if descriptor < 0 && memory.count + bytes.count <= memoryLimit {
      if memory.count + bytes.count > memory.capacity && memory.count >= Self.largeBody {
        // A large body: room up to the memory limit at once instead of doubling. It is address
        // space until written (the pages come as the bytes do), and no growth copies what came
        // before into new pages again.
        memory.reserveCapacity(min(memoryLimit, Self.largeBodyRoom))
      }
      memory.append(contentsOf: bytes)
      return true
    }
    if descriptor < 0 {
      guard let fd = SpilledFile.createAnonymous(in: directory) else {
        error = "cannot create a temporary file in \(directory): \(String(cString: strerror(errno)))"
        return false
      }
      descriptor = fd
      if !memory.isEmpty {
        let written = memory.withUnsafeBytes { SpilledFile.writeAll(fd, $0) }
        memory = []
        guard written else { return failedWrite() }
      }
    }
    guard SpilledFile.writeAll(descriptor, bytes) else { return failedWrite() }
    if size - writebackStarted >= Self.writebackChunk { startWriteback() }
    return true
  }

  /// Starts writing what was spilled since the last call to disk, without waiting for it (a hint:
  /// a file system that cannot is no error; the fsync, if one comes, does it all).
  private mutating func startWriteback() {
    _ = rb_start_writeback(descriptor, Int64(writebackStarted), Int64(size - writebackStarted))
    writebackStarted = size
  }

  private mutating func failedWrite() -> Bool {
    error = "cannot write the response body to a temporary file in \(directory): \(String(cString: strerror(errno)))"
    return false
  }

  /// Closes a spilled file that was never handed out (a cancelled transfer); it had no name.
  mutating func discard() {
    if descriptor >= 0 {
      close(descriptor)
      descriptor = -1
    }
  }

  mutating func finish() -> ResponseBody {
    if descriptor >= 0 {
      let file = SpilledFile(descriptor: descriptor, size: size)
      descriptor = -1
      return .file(file)
    }
    return .memory(memory)
  }
}
