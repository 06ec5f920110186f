import Foundation
import RequestEngine

/// The bytes of a response body as the viewer reads them: the body's array when the agent kept
/// it in memory, or a read-only mapping of the file it spilled a big body to. Opening a spilled
/// 50 MB body reads nothing: the kernel brings in the pages the screen touches as it is drawn.
///
/// The mapping is private and read-only; it stays valid after the `SpilledFile` closes its
/// descriptor (the mapping holds the inode) and is unmapped when the last reference goes. An empty file, or
/// one that cannot be mapped, is read instead.
public final class BodyBytes: @unchecked Sendable {
  /// In-memory bytes (empty when mapped).
  private let array: [UInt8]
  /// The mapped file, when mapped.
  private let mapped: UnsafeBufferPointer<UInt8>?
  public let count: Int

  public init(_ bytes: [UInt8]) {
    array = bytes
    mapped = nil
    count = bytes.count
  }

  /// The body as it is: a spilled body is mapped, not read.
  public convenience init(_ body: ResponseBody) {
    switch body {
    case .memory(let bytes):
      self.init(bytes)
    case .file(let file):
      if let mapping = BodyBytes.map(descriptor: file.descriptor) {
        self.init(mapping: mapping)
      } else {
        self.init((try? body.bytes()) ?? [])
      }
    }
  }

  private init(mapping: UnsafeBufferPointer<UInt8>) {
    array = []
    mapped = mapping
    count = mapping.count
  }

  deinit {
    if let mapped, let base = mapped.baseAddress {
      munmap(UnsafeMutableRawPointer(mutating: base), mapped.count)
    }
  }

  /// Whether the bytes are a mapping of a file (rather than in memory).
  public var isMapped: Bool { mapped != nil }

  public var isEmpty: Bool { count == 0 }

  public subscript(i: Int) -> UInt8 {
    if let mapped { return mapped[i] }
    return array[i]
  }

  /// The bytes of `range` as text (invalid UTF-8 replaced).
  public func string(_ range: Range<Int>) -> String {
    withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
  }

  /// A copy of the bytes of `range`.
  public func copy(_ range: Range<Int>) -> [UInt8] {
    withUnsafeBufferPointer { Array($0[range]) }
  }

  /// A copy of the first `limit` bytes (all of them when there are fewer).
  public func prefix(_ limit: Int) -> [UInt8] {
    copy(0..<min(max(0, limit), count))
  }

  /// All the bytes, contiguous, for the duration of `body`.
  public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
    if let mapped { return try body(mapped) }
    return try array.withUnsafeBufferPointer(body)
  }

  /// A private read-only mapping of the whole open file (a spilled body has no name, only its
  /// descriptor); the mapping outlives the descriptor. Nil when it is empty or cannot be mapped.
  static func map(descriptor fd: Int32) -> UnsafeBufferPointer<UInt8>? {
    var info = stat()
    guard fstat(fd, &info) == 0, info.st_size > 0 else { return nil }
    let size = Int(info.st_size)
    guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0),
      address != UnsafeMutableRawPointer(bitPattern: -1)
    else { return nil }
    return UnsafeBufferPointer(start: address.bindMemory(to: UInt8.self, capacity: size), count: size)
  }
}
