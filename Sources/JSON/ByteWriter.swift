/// Bytes written through a pointer into memory this value owns, growing by doubling: the
/// JSON target's writers put bytes one at a time without `Array.append`'s checks on each.
/// Reserve room first (`reserve`), then `put` within it.
struct ByteWriter: ~Copyable {
  private var start: UnsafeMutablePointer<UInt8>
  private var capacity: Int
  private(set) var count = 0

  init(capacity: Int = 256) {
    self.capacity = max(capacity, 16)
    start = .allocate(capacity: self.capacity)
  }

  deinit { start.deallocate() }

  /// Empties it, keeping its memory.
  mutating func removeAll() { count = 0 }

  /// Room for `extra` more bytes.
  @inline(__always)
  mutating func reserve(_ extra: Int) {
    if count + extra > capacity { grow(to: count + extra) }
  }

  private mutating func grow(to needed: Int) {
    var size = capacity * 2
    while size < needed { size *= 2 }
    let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
    larger.update(from: start, count: count)
    start.deallocate()
    start = larger
    capacity = size
  }

  /// One byte, in room reserved before.
  @inline(__always)
  mutating func put(_ byte: UInt8) {
    start[count] = byte
    count += 1
  }

  /// Bytes, in room reserved before. A few (a key, a short value) are copied as two words that
  /// may overlap (4 to 16 bytes) or one by one (up to 3): a call of memcpy costs more than they do.
  @inline(__always)
  mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
    guard let base = bytes.baseAddress else { return }
    let n = bytes.count
    let target = UnsafeMutableRawPointer(start + count)
    let source = UnsafeRawPointer(base)
    if n >= 8 && n <= 16 {
      let head = source.loadUnaligned(as: UInt64.self)
      let tail = source.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
      target.storeBytes(of: head, as: UInt64.self)
      target.storeBytes(of: tail, toByteOffset: n - 8, as: UInt64.self)
    } else if n >= 4 && n < 8 {
      let head = source.loadUnaligned(as: UInt32.self)
      let tail = source.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
      target.storeBytes(of: head, as: UInt32.self)
      target.storeBytes(of: tail, toByteOffset: n - 4, as: UInt32.self)
    } else if n < 4 {
      for offset in 0..<n { start[count + offset] = base[offset] }
    } else {
      (start + count).update(from: base, count: n)
    }
    count += n
  }

  /// Bytes, reserving room for them.
  mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
    reserve(bytes.count)
    put(bytes)
  }

  mutating func append(_ text: StaticString) {
    text.withUTF8Buffer { append($0) }
  }

  /// The decimal digits of `value`, `-` first when negative: its length counted first, then
  /// written from the last digit back, two at a time from a table (numbers are in every line
  /// `run --json` prints: a stream's index and time).
  mutating func appendDecimal(_ value: Int) {
    reserve(20)
    if value < 0 { put(UInt8(ascii: "-")) }
    var rest = value.magnitude
    // At most 19 digits: the magnitude of an Int is at most 2^63.
    var length = 1
    var bound: UInt = 10
    while length < 19 && rest >= bound {
      length += 1
      bound &*= 10
    }
    var position = count + length
    count = position
    // A literal of many characters: its UTF-8 is in the binary, read through its pointer.
    let pairs = Self.digitPairs.utf8Start
    while rest >= 100 {
      let pair = Int(rest % 100) &* 2
      rest /= 100
      position -= 2
      start[position] = pairs[pair]
      start[position + 1] = pairs[pair + 1]
    }
    if rest >= 10 {
      let pair = Int(rest) &* 2
      start[position - 2] = pairs[pair]
      start[position - 1] = pairs[pair + 1]
    } else {
      start[position - 1] = UInt8(ascii: "0") &+ UInt8(rest)
    }
  }

  /// `00`, `01`, … `99`: the digits of each number below 100.
  private static var digitPairs: StaticString {
    """
    00010203040506070809101112131415161718192021222324252627282930313233343536373839\
    40414243444546474849505152535455565758596061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899
    """
  }

  /// The bytes written so far.
  func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
    try body(UnsafeBufferPointer(start: start, count: count))
  }
}
