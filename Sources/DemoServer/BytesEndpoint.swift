import Base

/// Deterministic pseudo-random content: byte `i` of (seed, version) is always the same, and any
/// range can be generated without the bytes before it (a counter-based SplitMix64).
struct ByteGenerator: Sendable {
  private let key: UInt64

  init(seed: UInt64, version: UInt64) {
    key = Self.mix(seed ^ Self.mix(version &+ 0x5DEE_CE66_D1CE_4E5B))
  }

  @inline(__always)
  static func mix(_ value: UInt64) -> UInt64 {
    var z = value &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  @inline(__always)
  func word(_ index: UInt64) -> UInt64 {
    Self.mix(key &+ index &* 0xD1B5_4A32_D192_ED03)
  }

  /// Fills `buffer` with the content bytes starting at `offset`.
  func fill(_ buffer: UnsafeMutableRawBufferPointer, offset: Int) {
    guard let base = buffer.baseAddress, buffer.count > 0 else { return }
    var position = 0
    var wordIndex = UInt64(offset / 8)
    var skip = offset % 8
    if skip != 0 {
      let w = word(wordIndex).littleEndian
      withUnsafeBytes(of: w) { bytes in
        while skip < 8, position < buffer.count {
          base.storeBytes(of: bytes[skip], toByteOffset: position, as: UInt8.self)
          skip += 1
          position += 1
        }
      }
      wordIndex += 1
    }
    while buffer.count - position >= 8 {
      base.storeBytes(of: word(wordIndex).littleEndian, toByteOffset: position, as: UInt64.self)
      position += 8
      wordIndex += 1
    }
    if position < buffer.count {
      let w = word(wordIndex).littleEndian
      withUnsafeBytes(of: w) { bytes in
        var i = 0
        while position < buffer.count {
          base.storeBytes(of: bytes[i], toByteOffset: position, as: UInt8.self)
          i += 1
          position += 1
        }
      }
    }
  }

  func bytes(offset: Int, count: Int) -> [UInt8] {
    [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
      fill(UnsafeMutableRawBufferPointer(buffer), offset: offset)
      initialized = count
    }
  }

  /// `seed=S`: a decimal number, or any other text (hashed).
  static func seed(from text: String?) -> UInt64 {
    guard let text, !text.isEmpty else { return 0 }
    return UInt64(text) ?? fnv1a(text)
  }
}

/// A parsed `Range` header against a representation of `size` bytes.
enum ByteRange: Equatable {
  /// Serve the whole representation (no Range, or one we ignore: multiple ranges, bad syntax).
  case full
  case partial(start: Int, end: Int)  // inclusive
  case unsatisfiable

  init(header: String, size: Int) {
    let trimmed = header.trimmingSpaces
    guard trimmed.lowercased().hasPrefix("bytes=") else {
      self = .full
      return
    }
    let spec = trimmed.dropFirst(6).trimmingSpaces
    guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else {
      self = .full
      return
    }
    let first = Substring(spec[..<dash].trimmingSpaces)
    let last = Substring(spec[spec.index(after: dash)...].trimmingSpaces)
    if first.isEmpty {
      guard let suffix = parseSaturatingInt(last) else {
        self = .full
        return
      }
      if suffix == 0 || size == 0 {
        self = .unsatisfiable
      } else {
        self = .partial(start: max(0, size - suffix), end: size - 1)
      }
      return
    }
    guard let start = parseSaturatingInt(first) else {
      self = .full
      return
    }
    var end = size - 1
    if !last.isEmpty {
      guard let value = parseSaturatingInt(last), value >= start else {
        self = .full
        return
      }
      end = min(value, size - 1)
    }
    self = start >= size ? .unsatisfiable : .partial(start: start, end: end)
  }
}

extension App {
  /// Fixed date for Last-Modified of version 0; each later version is one day newer.
  static let lastModifiedBase = 1_735_689_600  // 2025-01-01T00:00:00Z

  /// `/bytes/{n}` and `/files/big.bin`: deterministic bytes with validators, Range and faults.
  func bytes(_ request: ServerRequest, _ context: Context, size: Int, allowRate: Bool) -> ServerResponse {
    guard size <= 1 << 40 else { return .error(400, "at most 1 TiB, please") }
    let seed = ByteGenerator.seed(from: request.queryValue("seed"))
    var version: UInt64 = 0
    if let text = request.queryValue("change_after") {
      guard let changeAfter = parseNonNegativeInt(Substring(text)) else { return .error(400, "bad change_after") }
      guard context.hasKey else { return .error(400, "change_after needs a key") }
      if context.hit > changeAfter { version = 1 }
    }
    let generator = ByteGenerator(seed: seed, version: version)

    // Validators.
    let validators = request.queryValue("validators") != "none"
    let etagMode = request.queryValue("etag") ?? "strong"
    let opaque = "\"\(String(size, radix: 16))-\(String(seed, radix: 16))-\(String(version, radix: 16))\""
    var etag: String? = nil
    if validators, etagMode != "none" { etag = etagMode == "weak" ? "W/" + opaque : opaque }
    let lastModified = validators ? httpDate(Self.lastModifiedBase + Int(version) * 86_400) : nil

    var headers: [(String, String)] = [("Content-Type", "application/octet-stream")]
    let rangeMode = request.queryValue("range") ?? "on"
    headers.append(("Accept-Ranges", rangeMode == "off" ? "none" : "bytes"))
    if let etag { headers.append(("ETag", etag)) }
    if let lastModified { headers.append(("Last-Modified", lastModified)) }

    // Range / If-Range (RFC 9110 §14.2, §13.1.5). Only GET and HEAD honour Range.
    var status = 200
    var start = 0
    var length = size
    if rangeMode != "off", request.method == "GET" || request.method == "HEAD", let rangeHeader = request.header("Range") {
      var rangeApplies = true
      // ifrange=ignore: a hostile server that answers a Range with 206 whatever If-Range says,
      // with the current content's validators and bytes (a spliced file if the client appends).
      if request.queryValue("ifrange") != "ignore", let ifRange = request.header("If-Range")?.trimmingSpaces {
        if ifRange.hasPrefix("\"") || ifRange.hasPrefix("W/") {
          // Strong comparison: a weak tag never matches.
          rangeApplies = etag != nil && !(etag ?? "").hasPrefix("W/") && ifRange == etag
        } else {
          rangeApplies = lastModified != nil && ifRange == lastModified
        }
      }
      if rangeApplies {
        switch ByteRange(header: rangeHeader, size: size) {
        case .full:
          break
        case .unsatisfiable:
          return ServerResponse(status: 416, headers: headers + [("Content-Range", "bytes */\(size)")])
        case .partial(let first, let last):
          status = 206
          length = last - first + 1
          // range=wrong: claims (and sends) the bytes from 0, whatever was asked for.
          start = rangeMode == "wrong" ? 0 : first
          headers.append(("Content-Range", "bytes \(start)-\(start + length - 1)/\(size)"))
        }
      }
    }

    // Faults and pacing.
    var sendLimit = length
    var dropAfter = false
    if let text = request.queryValue("close_at") {
      guard let percent = parseNonNegativeInt(Substring(text)), percent <= 100 else {
        return .error(400, "close_at must be in 0...100")
      }
      sendLimit = Int((Double(length) * Double(percent) / 100).rounded(.down))
      dropAfter = true
    }
    // close_every=N: every response longer than N bytes drops after N of them, so a client that
    // resumes gets N more bytes per attempt and finally the rest.
    if let text = request.queryValue("close_every") {
      guard let limit = parseNonNegativeInt(Substring(text)), limit > 0 else {
        return .error(400, "close_every must be > 0")
      }
      if length > limit {
        sendLimit = limit
        dropAfter = true
      }
    }
    let chunked = ["1", "true", "yes"].contains(request.queryValue("chunked") ?? "")
    var rate: Double? = nil
    if allowRate, let text = request.queryValue("rate") {
      guard let value = Double(text), value.isFinite, value > 0 else { return .error(400, "rate must be > 0") }
      rate = value
    }

    let bodyStart = start
    let bodyLimit = sendLimit
    let pacing = rate
    return ServerResponse(
      status: status, headers: headers,
      body: .stream(length: chunked ? nil : length) { stream in
        try Self.streamBytes(
          generator, from: bodyStart, count: bodyLimit, rate: pacing, to: stream)
        if dropAfter { stream.drop() }
      })
  }

  /// Writes `count` generated bytes from `offset` in chunks of up to 64 KiB, at about `rate` B/s.
  private static func streamBytes(
    _ generator: ByteGenerator, from offset: Int, count: Int, rate: Double?, to stream: BodyStream
  ) throws(IOError) {
    let chunkSize = 64 * 1024
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 8)
    defer { buffer.deallocate() }
    var sent = 0
    let began = MonotonicClock.now()
    // With a rate, send about 20 slices a second.
    let slice = rate.map { Int(min(Double(chunkSize), max(1, $0 / 20))) } ?? chunkSize
    while sent < count {
      if let rate {
        let due = began + Double(sent) / rate
        let wait = due - MonotonicClock.now()
        if wait > 0, !stream.sleep(wait) {
          stream.drop()
          return
        }
      }
      let n = min(slice, count - sent)
      let part = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<n])
      generator.fill(part, offset: offset + sent)
      try stream.write(UnsafeRawBufferPointer(part))
      sent += n
    }
  }
}
