import Digest
import Foundation
import RequestEngine
import TestSupport
import Testing

/// The cache stores `sensitive` and `namespace` values as HMAC-SHA256 under a
/// key of its state folder, not as a plain sha256 anyone can match against guesses.
@Suite struct KeyedDigestTests {
  func hex(_ text: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = text.startIndex
    while index < text.endIndex {
      let next = text.index(index, offsetBy: 2)
      bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
      index = next
    }
    return bytes
  }

  /// RFC 4231 test cases 1, 2, 6 (a key longer than the block) and 7.
  @Test func hmacSHA256MatchesRFC4231() {
    let cases: [([UInt8], [UInt8], String)] = [
      ([UInt8](repeating: 0x0b, count: 20), Array("Hi There".utf8),
       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
      (Array("Jefe".utf8), Array("what do ya want for nothing?".utf8),
       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
      ([UInt8](repeating: 0xaa, count: 131), Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
      ([UInt8](repeating: 0xaa, count: 131),
       Array("This is a test using a larger than block-size key and a larger than block-size data. The key needs to be hashed before being used by the HMAC algorithm.".utf8),
       "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]
    for (key, message, expected) in cases {
      #expect(hexString(HMAC.sha256(key: key, message: message)) == expected)
    }
  }

  @Test func sensitiveAndNamespaceAreStoredAsKeyedDigests() throws {
    let folder = URL(fileURLWithPath: scratchURL("rb-hmac").path)
    defer { try? FileManager.default.removeItem(at: folder) }
    let key = [UInt8](repeating: 7, count: 32)
    let policy = CachePolicy(seconds: 600, sensitive: "user-ada", namespace: "tenant-a")
    let request = Request(url: "http://127.0.0.1:9/keyed", cache: policy)
    let response = Response(status: 200, headers: ["Content-Type": "text/plain"], body: .memory(Array("hi".utf8)))
    let cache = ResponseCache(folder: folder, digestKey: key)
    let entry = try #require(cache.store(response, for: request, policy: policy))
    let metadata = try String(contentsOf: folder.appendingPathComponent(entry.key + ".json"), encoding: .utf8)
    #expect(!metadata.contains(SHA256.hex(Array("user-ada".utf8))))
    #expect(!metadata.contains(SHA256.hex(Array("tenant-a".utf8))))
    #expect(metadata.contains(hexString(HMAC.sha256(key: key, message: Array("user-ada".utf8)))))
    #expect(metadata.contains(hexString(HMAC.sha256(key: key, message: Array("tenant-a".utf8)))))
    #expect(CacheKey.key(for: request, policy: policy, digestKey: key) == entry.key)
    // The same key reads it back; another key (another state folder's) does not match it.
    if case .fresh = ResponseCache(folder: folder, digestKey: key).lookup(request, policy: policy) {} else {
      Issue.record("the same key should hit")
    }
    if case .miss = ResponseCache(folder: folder, digestKey: [UInt8](repeating: 8, count: 32)).lookup(request, policy: policy) {} else {
      Issue.record("another key should miss")
    }
    #expect(cache.list().first?.namespaceDigest == cache.digest("tenant-a"))
  }
}
