/// `/hostile/…`: answers a hostile server gives, for the engine's hardening tests.
/// Each is bounded on the server's side too and stops when the client goes away.
///
/// - `/hostile/huge-length?bytes=N&every=S&length=L`: `Content-Length: L` (default
///   9000000000000000000), then N bytes (default 8), one every S seconds (default 0.5), then the
///   connection is dropped;
/// - `/hostile/endless?rate=B`: a chunked body of `a` that never ends (B bytes a second; 0 or absent:
///   as fast as it goes; at most 64 GiB);
/// - `/hostile/gzip-bomb?mb=N`: `Content-Encoding: gzip`, a valid gzip stream of N MiB of zeros
///   (default 2048) about a thousand times smaller, chunked;
/// - `/hostile/long-header?bytes=N`: one header line `X-Long` of N bytes (default 1 MiB);
/// - `/hostile/json?mb=N`: `{"a": "xxx…"}` of N MiB (default 65), with Content-Length;
/// - `/hostile/status?code=TEXT`: the status line `HTTP/1.1 TEXT OK` as written (e.g. a run of
///   digits), `Content-Length: 2` and `ok`.
extension App {
  func hostile(_ request: ServerRequest, _ rest: [String]) -> ServerResponse {
    switch rest {
    case ["huge-length"]: return hugeLength(request)
    case ["endless"]: return endless(request)
    case ["gzip-bomb"]: return gzipBomb(request)
    case ["long-header"]:
      let count = min(request.queryValue("bytes").flatMap { parseNonNegativeInt(Substring($0)) } ?? (1 << 20), 64 << 20)
      return ServerResponse.text(200, "ok").header("X-Long", String(repeating: "a", count: count))
    case ["json"]: return bigJSON(request)
    case ["status"]:
      let code = String((request.queryValue("code") ?? "200").unicodeScalars.filter { $0.value > 0x20 && $0.value < 0x7F })
      var response = ServerResponse(status: 200)
      response.raw = Array("HTTP/1.1 \(code) OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok".utf8)
      return response
    default:
      return .error(404, "not found: \(request.path)")
    }
  }

  private func hugeLength(_ request: ServerRequest) -> ServerResponse {
    let length = request.queryValue("length").flatMap { parseNonNegativeInt(Substring($0)) } ?? 9_000_000_000_000_000_000
    let count = min(request.queryValue("bytes").flatMap { parseNonNegativeInt(Substring($0)) } ?? 8, 1_000)
    let every = min(parseSeconds(request.queryValue("every")) ?? 0.5, 10)
    return ServerResponse(
      status: 200, headers: [("Content-Type", "application/octet-stream")],
      body: .stream(length: length) { stream in
        for i in 0..<count {
          if i > 0, !stream.sleep(every) { return stream.drop() }
          try stream.write([UInt8(ascii: "x")])
        }
        stream.drop()
      })
  }

  private func endless(_ request: ServerRequest) -> ServerResponse {
    let rate = request.queryValue("rate").flatMap { Double($0) }.flatMap { $0.isFinite && $0 > 0 ? $0 : nil }
    return ServerResponse(
      status: 200, headers: [("Content-Type", "application/octet-stream")],
      body: .stream(length: nil) { stream in
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 64 << 10)
        for _ in 0..<(1 << 20) {  // 64 GiB at most
          try stream.write(chunk)
          if let rate, !stream.sleep(Double(chunk.count) / rate) { return stream.drop() }
        }
      })
  }

  private func gzipBomb(_ request: ServerRequest) -> ServerResponse {
    let mb = min(request.queryValue("mb").flatMap { parseNonNegativeInt(Substring($0)) } ?? 2048, 1 << 20)
    return ServerResponse(
      status: 200, headers: [("Content-Type", "text/plain"), ("Content-Encoding", "gzip")],
      body: .stream(length: nil) { stream in try GzipZeros.write(megabytes: mb, to: stream) })
  }

  private func bigJSON(_ request: ServerRequest) -> ServerResponse {
    let mb = min(request.queryValue("mb").flatMap { parseNonNegativeInt(Substring($0)) } ?? 65, 4096)
    let head = Array(#"{"a": ""#.utf8)
    let tail = Array("\"}\n".utf8)
    let filler = mb * (1 << 20) - head.count - tail.count
    guard filler >= 0 else { return .error(400, "mb must be at least 1") }
    return ServerResponse(
      status: 200, headers: [("Content-Type", "application/json")],
      body: .stream(length: head.count + filler + tail.count) { stream in
        try stream.write(head)
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        var left = filler
        while left > 0 {
          let n = min(left, chunk.count)
          try stream.write(Array(chunk[0..<n]))
          left -= n
        }
        try stream.write(tail)
      })
  }
}

/// A gzip stream (RFC 1952) of zeros, written as DEFLATE fixed-Huffman blocks (RFC 1951
/// §3.2.6): one literal 0, then matches of length 258 at distance 1, 13 bits each, so 1 GiB
/// inflates from about 6.5 MB. The CRC-32 of the zeros is computed without them (`crc32Zeros`).
enum GzipZeros {
  static func write(megabytes: Int, to stream: BodyStream) throws(IOError) {
    let total = megabytes << 20
    // Header: magic, deflate, no flags, no time, unix.
    try stream.write([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3])
    var bits = BitWriter()
    bits.put(1, count: 1)  // BFINAL
    bits.put(1, count: 2)  // BTYPE 01: fixed Huffman
    var left = total
    if left > 0 {
      bits.code(0x30, count: 8)  // literal 0
      left -= 1
    }
    // 11 bits so far; one match makes 24 (byte aligned); then 8 matches are exactly 13 bytes.
    if left >= 258 {
      bits.match258()
      left -= 258
    }
    var unit = BitWriter()
    for _ in 0..<8 { unit.match258() }
    let block = unit.bytes
    try stream.write(bits.take())
    let repeats = left / (8 * 258)
    left -= repeats * 8 * 258
    let batch = 4096
    var page: [UInt8] = []
    page.reserveCapacity(block.count * batch)
    for _ in 0..<batch { page += block }
    var done = 0
    while done < repeats {
      let n = min(batch, repeats - done)
      try stream.write(n == batch ? page : Array(page[0..<(n * block.count)]))
      done += n
    }
    while left >= 258 {
      bits.match258()
      left -= 258
    }
    for _ in 0..<left { bits.code(0x30, count: 8) }
    bits.code(0, count: 7)  // end of block
    var tail = bits.flush()
    let crc = crc32Zeros(total)
    for shift in stride(from: 0, to: 32, by: 8) { tail.append(UInt8(truncatingIfNeeded: crc >> UInt32(shift))) }
    let size = UInt32(truncatingIfNeeded: total)
    for shift in stride(from: 0, to: 32, by: 8) { tail.append(UInt8(truncatingIfNeeded: size >> UInt32(shift))) }
    try stream.write(tail)
  }

  /// CRC-32 (IEEE, reflected, as gzip uses) of `count` zero bytes: the register's update for
  /// one zero byte is linear, so n bytes are its matrix to the n-th power (square and multiply).
  static func crc32Zeros(_ count: Int) -> UInt32 {
    // Column i of the one-byte operator: the register 1 << i after one zero byte.
    var byteOperator = [UInt32](repeating: 0, count: 32)
    for i in 0..<32 {
      var crc = UInt32(1) << UInt32(i)
      for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
      byteOperator[i] = crc
    }
    func apply(_ matrix: [UInt32], _ vector: UInt32) -> UInt32 {
      var out: UInt32 = 0
      for i in 0..<32 where vector & (UInt32(1) << UInt32(i)) != 0 { out ^= matrix[i] }
      return out
    }
    func multiply(_ a: [UInt32], _ b: [UInt32]) -> [UInt32] { b.map { apply(a, $0) } }
    var register: UInt32 = 0xFFFF_FFFF
    var power = byteOperator
    var n = count
    while n > 0 {
      if n & 1 == 1 { register = apply(power, register) }
      power = multiply(power, power)
      n >>= 1
    }
    return ~register
  }

  /// DEFLATE's bit order: values least significant bit first, Huffman codes most significant first.
  struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var current: UInt32 = 0
    private var used: UInt32 = 0

    mutating func put(_ value: UInt32, count: UInt32) {
      for i in 0..<count { bit((value >> i) & 1) }
    }

    mutating func code(_ value: UInt32, count: UInt32) {
      for i in (0..<count).reversed() { bit((value >> i) & 1) }
    }

    /// Length 258 (code 285, 8 bits, no extra bits), distance 1 (code 0, 5 bits).
    mutating func match258() {
      code(0xC5, count: 8)
      code(0, count: 5)
    }

    private mutating func bit(_ b: UInt32) {
      current |= b << used
      used += 1
      if used == 8 {
        bytes.append(UInt8(current))
        current = 0
        used = 0
      }
    }

    /// The whole bytes so far (the partial byte stays).
    mutating func take() -> [UInt8] {
      defer { bytes = [] }
      return bytes
    }

    /// Everything, the last byte padded with zeros.
    mutating func flush() -> [UInt8] {
      if used > 0 {
        bytes.append(UInt8(current))
        current = 0
        used = 0
      }
      return take()
    }
  }
}
