/// HMAC-SHA256 (RFC 2104 with SHA-256, checked against RFC 4231's vectors): a keyed digest, so a
/// digest stored on disk (the cache's `sensitive` and `namespace` values) cannot be matched
/// against guesses by someone without the key.
///
/// ```swift
/// hexString(HMAC.sha256(key: key, message: Array("tenant-a".utf8)))
/// ```
public enum HMAC {
  public static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
    let blockSize = 64
    var block = key
    if block.count > blockSize {
      var hasher = SHA256()
      hasher.update(block)
      block = hasher.finalize()
    }
    block += [UInt8](repeating: 0, count: blockSize - block.count)
    var inner = SHA256()
    inner.update(block.map { $0 ^ 0x36 })
    inner.update(message)
    var outer = SHA256()
    outer.update(block.map { $0 ^ 0x5c })
    outer.update(inner.finalize())
    return outer.finalize()
  }
}
