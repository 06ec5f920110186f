import CSystem
import Foundation
@testable import RequestEngine
import TestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Where a response body goes while it comes: memory, then a nameless file whose pages are sent
/// to the disk a megabyte at a time (history keeps a stream's spilled body with an fsync that
/// then waits for the last megabyte only).
struct BodySinkTests {
  @Test func aSpilledStreamIsSentToDiskAMegabyteAtATimeAndKeptWhole() throws {
    let folder = try scratchFolder("rb-sink")
    var sink = BodySink(memoryLimit: 64 << 20, directory: folder.path, maxBytes: 1 << 30)
    sink.beginStream()  // 1 MB in memory, then the file
    var expected: [UInt8] = []
    let chunk = 64 << 10
    for index in 0..<40 {
      let piece = (0..<chunk).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) }
      expected += piece
      #expect(piece.withUnsafeBytes { sink.append($0) })
      if expected.count <= BodySink.streamMemoryLimit {
        #expect(sink.writebackStarted == 0)  // nothing on disk to write yet
      } else {
        // Never more than a megabyte behind the file's end, and started at chunk boundaries.
        #expect(expected.count - sink.writebackStarted < BodySink.writebackChunk)
      }
    }
    // 17 pieces spilled (1,114,112 bytes started), 16 more started, the last 7 not yet.
    #expect(sink.writebackStarted == 33 * chunk)
    #expect(sink.error == nil)
    guard case .file(let file) = sink.finish() else {
      Issue.record("a 2.5 MB stream should be in a file")
      return
    }
    #expect(file.size == expected.count)
    #expect(try file.read(offset: 0, count: file.size) == expected)
  }

  @Test func startingWritebackReachesTheKernel() throws {
    let folder = try scratchFolder("rb-sink")
    let fd = try #require(SpilledFile.createAnonymous(in: folder.path))
    defer { close(fd) }
    let bytes = [UInt8](repeating: 7, count: 200_000)
    #expect(bytes.withUnsafeBytes { SpilledFile.writeAll(fd, $0) })
    #expect(rb_start_writeback(fd, 0, Int64(bytes.count)) == 0)
    // A pipe has no pages to write: the call is made, and refused.
    var ends: [Int32] = [0, 0]
    #expect(pipe(&ends) == 0)
    defer {
      close(ends[0])
      close(ends[1])
    }
    #expect(rb_start_writeback(ends[0], 0, 4096) == -1)
    #expect(errno == ESPIPE)
  }
}
