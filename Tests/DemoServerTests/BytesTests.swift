import Foundation
import Testing

@testable import DemoServer

@Suite("/bytes: deterministic content, validators, ranges, faults")
struct BytesTests {
  func expected(_ n: Int, seed: UInt64 = 0, version: UInt64 = 0, from: Int = 0, count: Int? = nil) -> [UInt8] {
    ByteGenerator(seed: seed, version: version).bytes(offset: from, count: count ?? n - from)
  }

  @Test func sameSizeAndSeedGiveTheSameBytes() throws {
    try withServer { server in
      let a = try fetch(server.port, "/bytes/1000?seed=7")
      let b = try fetch(server.port, "/bytes/1000?seed=7")
      let c = try fetch(server.port, "/bytes/1000?seed=8")
      #expect(a.status == 200)
      #expect(a.body.count == 1000)
      #expect(a.body == b.body)
      #expect(a.body != c.body)
      #expect(a.body == expected(1000, seed: 7))
      #expect(a.header("Content-Type") == "application/octet-stream")
      #expect(a.header("Accept-Ranges") == "bytes")
      #expect(a.header("ETag") == #""3e8-7-0""#)
      #expect(a.header("ETag") != c.header("ETag"))
      #expect(a.header("Last-Modified") == "Wed, 01 Jan 2025 00:00:00 GMT")
    }
  }

  @Test func generatorIsConsistentAtAnyOffset() {
    let whole = expected(1000, seed: 42)
    for start in [0, 1, 7, 8, 9, 500, 993, 999] {
      for count in [0, 1, 3, 8, 17] where start + count <= 1000 {
        #expect(expected(1000, seed: 42, from: start, count: count) == Array(whole[start..<(start + count)]))
      }
    }
    #expect(expected(64, version: 1) != expected(64, version: 0))
  }

  @Test func rangesGive206() throws {
    try withServer { server in
      let full = expected(1000)
      let open = try fetch(server.port, "/bytes/1000", headers: [("Range", "bytes=500-")])
      #expect(open.status == 206)
      #expect(open.header("Content-Range") == "bytes 500-999/1000")
      #expect(open.header("Content-Length") == "500")
      #expect(open.body == Array(full[500...]))
      let closed = try fetch(server.port, "/bytes/1000", headers: [("Range", "bytes=10-19")])
      #expect(closed.header("Content-Range") == "bytes 10-19/1000")
      #expect(closed.body == Array(full[10..<20]))
      let suffix = try fetch(server.port, "/bytes/1000", headers: [("Range", "bytes=-100")])
      #expect(suffix.header("Content-Range") == "bytes 900-999/1000")
      #expect(suffix.body == Array(full[900...]))
      let clamped = try fetch(server.port, "/bytes/1000", headers: [("Range", "bytes=990-5000")])
      #expect(clamped.header("Content-Range") == "bytes 990-999/1000")
      #expect(clamped.body.count == 10)
    }
  }

  @Test func unsatisfiableRangeGives416() throws {
    try withServer { server in
      let response = try fetch(server.port, "/bytes/1000", headers: [("Range", "bytes=1000-")])
      #expect(response.status == 416)
      #expect(response.header("Content-Range") == "bytes */1000")
      #expect(response.body.isEmpty)
      let zero = try fetch(server.port, "/bytes/1000", headers: [("Range", "bytes=-0")])
      #expect(zero.status == 416)
      // Unparsable or multiple ranges are ignored: the full body.
      #expect(try fetch(server.port, "/bytes/1000", headers: [("Range", "bytes=0-1,5-6")]).status == 200)
      #expect(try fetch(server.port, "/bytes/1000", headers: [("Range", "lines=1-2")]).status == 200)
    }
  }

  @Test func ifRangeMatchesOnlyTheCurrentValidators() throws {
    try withServer { server in
      let etag = try #require(try fetch(server.port, "HEAD", "/bytes/1000").header("ETag"))
      let matching = try fetch(server.port, "/bytes/1000", headers: [("Range", "bytes=100-"), ("If-Range", etag)])
      #expect(matching.status == 206)
      let stale = try fetch(server.port, "/bytes/1000", headers: [("Range", "bytes=100-"), ("If-Range", #""old""#)])
      #expect(stale.status == 200)
      #expect(stale.body == expected(1000))
      let date = try fetch(
        server.port, "/bytes/1000", headers: [("Range", "bytes=100-"), ("If-Range", "Wed, 01 Jan 2025 00:00:00 GMT")])
      #expect(date.status == 206)
      let oldDate = try fetch(
        server.port, "/bytes/1000", headers: [("Range", "bytes=100-"), ("If-Range", "Tue, 31 Dec 2024 00:00:00 GMT")])
      #expect(oldDate.status == 200)
      // A weak ETag never satisfies If-Range.
      let weak = try fetch(server.port, "/bytes/1000?etag=weak")
      let weakTag = try #require(weak.header("ETag"))
      #expect(weakTag.hasPrefix("W/\""))
      let weakRange = try fetch(
        server.port, "/bytes/1000?etag=weak", headers: [("Range", "bytes=100-"), ("If-Range", weakTag)])
      #expect(weakRange.status == 200)
    }
  }

  @Test func validatorSwitches() throws {
    try withServer { server in
      let noETag = try fetch(server.port, "/bytes/10?etag=none")
      #expect(noETag.header("ETag") == nil)
      #expect(noETag.header("Last-Modified") != nil)
      let none = try fetch(server.port, "/bytes/10?validators=none")
      #expect(none.header("ETag") == nil)
      #expect(none.header("Last-Modified") == nil)
    }
  }

  @Test func rangeOffAndRangeWrong() throws {
    try withServer { server in
      let off = try fetch(server.port, "/bytes/1000?range=off", headers: [("Range", "bytes=500-")])
      #expect(off.status == 200)
      #expect(off.body == expected(1000))
      #expect(off.header("Content-Range") == nil)
      #expect(off.header("Accept-Ranges") == "none")
      let wrong = try fetch(server.port, "/bytes/1000?range=wrong", headers: [("Range", "bytes=500-")])
      #expect(wrong.status == 206)
      #expect(wrong.header("Content-Range") == "bytes 0-499/1000")
      #expect(wrong.body == expected(1000, count: 500))
    }
  }

  @Test func closeAtDropsTheConnectionPartWay() throws {
    try withServer { server in
      let connection = try RawConnection(port: server.port)
      try connection.sendRequest("GET", "/bytes/100000?close_at=30")
      let response = try connection.readResponse()
      #expect(response.status == 200)
      #expect(response.header("Content-Length") == "100000")
      #expect(response.truncated)
      #expect(response.body == expected(100_000, count: 30_000))
      let ranged = try fetch(server.port, "/bytes/1000?close_at=50", headers: [("Range", "bytes=100-299")])
      #expect(ranged.status == 206)
      #expect(ranged.body == expected(1000, from: 100, count: 100))
      #expect(ranged.truncated)
    }
  }

  @Test func chunkedTransferEncoding() throws {
    try withServer { server in
      let connection = try RawConnection(port: server.port)
      try connection.sendRequest("GET", "/bytes/150000?chunked=1&seed=3")
      let response = try connection.readResponse()
      #expect(response.header("Transfer-Encoding") == "chunked")
      #expect(response.header("Content-Length") == nil)
      #expect(response.body == expected(150_000, seed: 3))
      // The connection is still good after the last chunk.
      try connection.sendRequest("GET", "/bytes/5?chunked=1&close_at=60")
      let cut = try connection.readResponse()
      #expect(cut.truncated)
      #expect(cut.body == expected(5, count: 3))
    }
  }

  @Test func changeAfterChangesVersionAndValidators() throws {
    try withServer { server in
      let key = "ca-\(UUID().uuidString.prefix(8))"
      let first = try fetch(server.port, "/bytes/1000?key=\(key)&change_after=1")
      let etag = try #require(first.header("ETag"))
      let resumed = try fetch(
        server.port, "/bytes/1000?key=\(key)&change_after=1", headers: [("Range", "bytes=500-"), ("If-Range", etag)])
      #expect(resumed.status == 200)
      #expect(resumed.header("ETag") != etag)
      #expect(resumed.header("Last-Modified") != first.header("Last-Modified"))
      #expect(resumed.body == expected(1000, version: 1))
      #expect(resumed.body != first.body)
      #expect(try fetch(server.port, "/bytes/10?change_after=1").status == 400)  // needs a key
    }
  }

  @Test func rateTricklesTheBody() throws {
    try withServer { server in
      let start = Date()
      let response = try fetch(server.port, "/bytes/2000?rate=4000")
      #expect(response.body == expected(2000))
      let took = elapsed(since: start)
      #expect(took > 0.35 && took < 2, "took \(took)")
    }
  }

  @Test func largeBodiesStream() throws {
    try withServer { server in
      let connection = try RawConnection(port: server.port)
      try connection.sendRequest("GET", "/files/big.bin?size=20000000&rate=1")  // rate is ignored here
      let head = try connection.readHead()
      #expect(head.header("Content-Length") == "20000000")
      #expect(head.header("ETag") != nil)
      var total = 0
      while total < 20_000_000 {
        let got = try connection.readBytes(min(1 << 20, 20_000_000 - total))
        if got.isEmpty { break }
        total += got.count
      }
      #expect(total == 20_000_000)
    }
  }
}
