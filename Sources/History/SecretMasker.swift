import RequestEngine
import Workspace

/// Replaces every occurrence of the secrets in a stream of bytes by the mask (`••••`), fed in
/// chunks of any size: a secret split across two chunks is still found. For bodies, which may be
/// any bytes (`Redaction` works on text).
///
/// ```swift
/// var masker = SecretMasker(secrets: ["tok-123"])
/// var out = masker.feed(Array("a=tok".utf8))   // "a=": "tok" may begin a secret
/// out += masker.feed(Array("-123&b".utf8))      // "••••&", "b" held back
/// out += masker.finish()                        // "b"
/// ```
struct SecretMasker {
  private let secrets: [[UInt8]]
  private let mask = Array(Redaction.mask.utf8)
  /// Bytes held back because a secret may begin there and end in the next chunk.
  private var carry: [UInt8] = []
  /// The longest secret's length.
  private let longest: Int

  /// Longer secrets are tried first, so a secret that contains another is masked whole.
  init(secrets: [String]) {
    self.secrets = Set(secrets.filter { !$0.isEmpty }).map { Array($0.utf8) }
      .sorted { $0.count != $1.count ? $0.count > $1.count : $0.lexicographicallyPrecedes($1) }
    longest = self.secrets.first?.count ?? 0
  }

  /// Whether there is anything to mask.
  var isEmpty: Bool { secrets.isEmpty }

  /// `bytes` masked in one go.
  static func masked(_ bytes: [UInt8], secrets: [String]) -> [UInt8] {
    guard !secrets.isEmpty else { return bytes }  // the usual case: no masker to make
    var masker = SecretMasker(secrets: secrets)
    guard !masker.isEmpty else { return bytes }
    return masker.feed(bytes) + masker.finish()
  }

  /// The masked bytes of `chunk` that are settled; up to one secret's length less one is held
  /// back for the next call.
  mutating func feed<C: Collection<UInt8>>(_ chunk: C) -> [UInt8] {
    carry.append(contentsOf: chunk)
    return scan(final: false)
  }

  /// The rest, at the end of the stream.
  mutating func finish() -> [UInt8] {
    scan(final: true)
  }

  private mutating func scan(final: Bool) -> [UInt8] {
    let bytes = carry
    // Below `limit` every secret fits in what is here, so each position is decided.
    let limit = final ? bytes.count : bytes.count - (longest - 1)
    var out: [UInt8] = []
    out.reserveCapacity(max(0, limit))
    var i = 0
    scanning: while i < limit {
      let byte = bytes[i]
      for secret in secrets
      where secret[0] == byte && i + secret.count <= bytes.count
        && bytes[i..<(i + secret.count)].elementsEqual(secret)
      {
        out.append(contentsOf: mask)
        i += secret.count
        continue scanning
      }
      out.append(byte)
      i += 1
    }
    carry = i < bytes.count ? Array(bytes[i...]) : []
    return out
  }
}
