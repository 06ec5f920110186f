import Base
import Foundation
import RequestEngine
import Synchronization
import TerminalUI

/// Buffered writes to a file descriptor (stdout), flushed explicitly: Swift 6 forbids touching
/// C's `stdout` global, and `print` would flush per line on a pipe anyway.
///
/// What goes through it is either shown (`line`, `json`: escaped by `ControlEscaping`, always,
/// so a request name or a header from a server can never drive the terminal) or data a script
/// reads (`data`: a response body, an exported command, raw on a pipe and escaped on a
/// terminal).
package final class Output: Sendable {
  package static let standard = Output(fd: STDOUT_FILENO)

  private let fd: Int32
  /// What is written and not yet flushed, and the writer of `jsonObjects`' lines (kept: its
  /// memory is allocated once, not per line), behind one lock.
  private let state = Mutex(State())

  private struct State: ~Copyable {
    var pending: [UInt8] = []
    var objectWriter = JSONObjectWriter()
  }

  package init(fd: Int32) { self.fd = fd }

  /// Whether this output is a terminal.
  package var isTerminal: Bool { isatty(fd) == 1 }

  /// A line shown to a person (a table row, a result line, a usage text): every control
  /// character but the newline escaped.
  package func line(_ text: String) { write(Array((ControlEscaping.visibleLines(text) + "\n").utf8)) }

  /// One JSON value on a line (`--json` output): compact, with the controls JSON leaves raw (C1,
  /// the bidirectional controls) written as `\u` escapes.
  package func json(_ value: JSONValue) {
    jsonLine { JSONSerializer.compact(value, into: &$0) }
  }

  /// `count` JSON objects, a line each, written member by member (`JSONObjectWriter`) straight
  /// into the buffer with the same escaping as `json(_:)`; `write` is given each one's index.
  /// The lock is taken once for all of them (a hand-over of a stream holds thousands of events).
  package func jsonObjects(count: Int, _ write: (Int, inout JSONObjectWriter) -> Void) {
    state.withLock { state in
      for index in 0..<count {
        state.objectWriter.reset()
        write(index, &state.objectWriter)
        let ascii = state.objectWriter.isASCII
        Self.appendLine(to: &state.pending, ascii: ascii) { state.objectWriter.end(appendingTo: &$0) }
        flushIfFull(&state.pending)
      }
    }
  }

  private func jsonLine(_ write: (inout [UInt8]) -> Void) {
    state.withLock { state in
      Self.appendLine(to: &state.pending, ascii: false, write)
      flushIfFull(&state.pending)
    }
  }

  /// Serializes a line straight into the buffer (no line of its own to allocate and copy), with
  /// the controls JSON leaves raw escaped, and its newline. `ascii`: the writer knows the line
  /// is ASCII (no need to look).
  private static func appendLine(to buffer: inout [UInt8], ascii: Bool, _ write: (inout [UInt8]) -> Void) {
    let start = buffer.count
    write(&buffer)
    // Only non-ASCII text can hold the controls the serializer leaves raw (C1, bidi): ASCII
    // lines (most of them) stay as they are.
    if !ascii && Output.hasNonASCII(buffer, from: start) {
      let escaped = ControlEscaping.jsonEscaped(String(decoding: buffer[start...], as: UTF8.self))
      buffer.removeSubrange(start...)
      buffer.append(contentsOf: escaped.utf8)
    }
    buffer.append(0x0A)
  }

  /// Whether `bytes` from `start` on hold a byte of 0x80 or more, eight bytes at a time.
  private static func hasNonASCII(_ bytes: [UInt8], from start: Int) -> Bool {
    bytes.withUnsafeBytes { raw in
      var offset = start
      while offset + 8 <= raw.count {
        if raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return true }
        offset += 8
      }
      while offset < raw.count {
        if raw[offset] >= 0x80 { return true }
        offset += 1
      }
      return false
    }
  }

  /// Data as it is (a response body, an exported command or file) when this output is not a
  /// terminal; on a terminal, escaped (`ControlEscaping.visible(bytes:)`: newlines and tabs kept).
  package func data(_ bytes: [UInt8], escaped: Bool) {
    if escaped {
      write(Array(ControlEscaping.visible(bytes: bytes).utf8))
    } else {
      write(bytes)
    }
  }

  package func data(_ text: String) { data(Array(text.utf8), escaped: isTerminal) }

  private func write(_ bytes: [UInt8]) {
    state.withLock { state in
      state.pending.append(contentsOf: bytes)
      flushIfFull(&state.pending)
    }
  }

  package func flush() { state.withLock { flush(&$0.pending) } }

  /// Writes `buffer` out once it holds 64 KB (under the lock): one write for many lines.
  private func flushIfFull(_ buffer: inout [UInt8]) {
    if buffer.count >= 1 << 16 { flush(&buffer) }
  }

  /// Writes `buffer` out and empties it (under the lock).
  private func flush(_ buffer: inout [UInt8]) {
    Output.writeAll(fd, buffer)
    buffer.removeAll(keepingCapacity: true)
  }

  /// Writes every byte now, retrying short writes and EINTR; a closed pipe ends it quietly.
  /// (Not `FileHandle.write(_:)`: it stops the process, `try!`, when the write fails.)
  package static func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    var offset = 0
    while offset < bytes.count {
      let n = bytes[offset...].withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
      if n < 0 {
        if errno == EINTR { continue }
        return  // a closed pipe: nothing more can be written
      }
      offset += n
    }
  }
}
