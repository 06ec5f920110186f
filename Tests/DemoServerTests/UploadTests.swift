import Digest
import Foundation
import Testing
import TestSupport

@testable import DemoServer

/// A multipart/form-data body built by hand.
struct MultipartBody {
  struct Part {
    var name: String
    var filename: String? = nil
    var type: String? = nil
    var content: [UInt8]
  }

  var boundary: String
  var parts: [Part]
  var preamble = ""
  var epilogue = ""

  var contentType: String { "multipart/form-data; boundary=\(boundary)" }

  var bytes: [UInt8] {
    var out = Array(preamble.utf8)
    for part in parts {
      var head = "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(part.name)\""
      if let filename = part.filename { head += "; filename=\"\(filename)\"" }
      head += "\r\n"
      if let type = part.type { head += "Content-Type: \(type)\r\n" }
      head += "\r\n"
      out += Array(head.utf8) + part.content + Array("\r\n".utf8)
    }
    out += Array("--\(boundary)--\r\n\(epilogue)".utf8)
    return out
  }
}

/// Feeds `bytes` to a fresh parser in pieces of `sizes` (cycled), then finishes.
func parse(_ bytes: [UInt8], boundary: String, sizes: [Int]) -> MultipartSummary {
  var parser = MultipartParser(boundary: boundary)
  var offset = 0
  var step = 0
  while offset < bytes.count {
    let end = min(bytes.count, offset + sizes[step % sizes.count])
    parser.feed(Array(bytes[offset..<end]))
    offset = end
    step += 1
  }
  return parser.finish()
}

/// Deterministic bytes, some of them CRs, LFs and dashes (near-delimiters).
func sampleBytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
  ByteGenerator(seed: seed, version: 0).bytes(offset: 0, count: count).map { byte -> UInt8 in
    switch byte % 16 {
    case 0: 0x0d
    case 1: 0x0a
    case 2: UInt8(ascii: "-")
    default: byte
    }
  }
}

/// The curl command-line tool, from PATH.
func curlExecutable() throws -> URL {
  let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
  for directory in path.split(separator: ":") {
    let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("curl")
    if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
  }
  throw RawClientError(description: "curl is not on PATH")
}

/// Polls `/log?key=` until its first entry has ended.
func finishedLogEntry(_ port: Int, key: String) throws -> [String: Any] {
  let log = try logEntries(port, key: key) { $0.first?["end"] as? Double != nil }
  guard let first = log.first, first["end"] as? Double != nil else {
    throw RawClientError(description: "no finished log entry for \(key): \(log)")
  }
  return first
}

/// Polls `/log?key=` every 50 ms until `done` holds of it, at most `timeout` seconds; returns the
/// last log read (the caller checks it).
func logEntries(_ port: Int, key: String, timeout: Double = 5, until done: ([[String: Any]]) -> Bool) throws -> [[String: Any]] {
  let deadline = Date().addingTimeInterval(timeout)
  var log = try fetch(port, "/log?key=\(key)").jsonArray()
  while !done(log) && Date() < deadline {
    Thread.sleep(forTimeInterval: 0.05)
    log = try fetch(port, "/log?key=\(key)").jsonArray()
  }
  return log
}

@Suite("multipart/form-data parser")
struct MultipartParserTests {
  static let boundary = "----reqbench-Boundary7MA4YWxkTrZu0gW"

  /// Content that keeps almost matching the delimiter: every prefix of it, and its CRs.
  static var trickyContent: [UInt8] {
    let delimiter = Array("\r\n--\(boundary)".utf8)
    var out: [UInt8] = []
    for length in 1..<delimiter.count {
      out += delimiter[0..<length] + [UInt8(ascii: "x")]
    }
    out += Array("\r\r\n\r\n-\r\n--\r\n---x".utf8) + Array("--\(boundary)".utf8)  // no CRLF before: content
    return out
  }

  static var body: MultipartBody {
    MultipartBody(
      boundary: boundary,
      parts: [
        .init(name: "a", content: Array("1".utf8)),
        .init(name: "empty", content: []),
        .init(name: "image", filename: "photo.jpg", type: "image/jpeg", content: sampleBytes(5000)),
        .init(name: "tricky", filename: "tricky.bin", type: "application/octet-stream", content: trickyContent),
        .init(name: "text", type: "text/plain; charset=utf-8", content: Array("héllo\r\nworld".utf8)),
        .init(name: "exactly4k", content: [UInt8](repeating: UInt8(ascii: "z"), count: 4096)),
        .init(name: "long", content: [UInt8](repeating: UInt8(ascii: "y"), count: 4097)),
      ],
      preamble: "This is the preamble. --\(boundary) is not a delimiter here.\r\n",
      epilogue: "epilogue, ignored\r\n--\(boundary)\r\n")
  }

  static var expectedParts: [MultipartPart] { expectedParts(body) }

  static func expectedParts(_ body: MultipartBody) -> [MultipartPart] {
    body.parts.map { part in
      let isValue = part.filename == nil && part.content.count <= 4096
      return MultipartPart(
        name: part.name, filename: part.filename, contentType: part.type, size: part.content.count,
        sha256: SHA256.hex(part.content), value: isValue ? String(decoding: part.content, as: UTF8.self) : nil)
    }
  }

  @Test func wholeBody() {
    let summary = parse(Self.body.bytes, boundary: Self.boundary, sizes: [Int.max / 2])
    #expect(summary.error == nil)
    #expect(summary.parts == Self.expectedParts)
    #expect(summary.parts.first?.value == "1")
    #expect(summary.parts.last?.value == nil)
  }

  @Test(arguments: [[1], [2], [3], [7], [13], [64], [4096], [1, 7, 4096, 2, 65_536, 5]])
  func chunked(sizes: [Int]) {
    let summary = parse(Self.body.bytes, boundary: Self.boundary, sizes: sizes)
    #expect(summary.error == nil)
    #expect(summary.parts == Self.expectedParts)
  }

  /// Splits the body in two at every offset around each delimiter, so each delimiter (and its
  /// CRLFs and close `--`) straddles a chunk boundary at every possible position.
  @Test func delimiterStraddlingEveryChunkBoundary() {
    var body = Self.body
    body.parts.removeAll { $0.content.count > 1000 }  // the short parts (with the tricky one) will do
    let bytes = body.bytes
    let expected = Self.expectedParts(body)
    let delimiter = Array("--\(Self.boundary)".utf8)
    var starts: [Int] = []
    var i = 0
    while i + delimiter.count <= bytes.count {
      if bytes[i] == delimiter[0], Array(bytes[i..<(i + delimiter.count)]) == delimiter { starts.append(i) }
      i += 1
    }
    #expect(starts.count >= body.parts.count + 2)
    var offsets = Set<Int>()
    for start in starts {
      for offset in max(0, start - 3)...min(bytes.count, start + delimiter.count + 4) { offsets.insert(offset) }
    }
    for split in offsets.sorted() {
      var parser = MultipartParser(boundary: Self.boundary)
      parser.feed(Array(bytes[..<split]))
      parser.feed(Array(bytes[split...]))
      let summary = parser.finish()
      #expect(summary.error == nil, "split at \(split)")
      #expect(summary.parts == expected, "split at \(split)")
    }
    // Three pieces: the delimiter itself cut in two places.
    for start in starts.prefix(3) {
      for a in start..<(start + delimiter.count) {
        var parser = MultipartParser(boundary: Self.boundary)
        parser.feed(Array(bytes[..<a]))
        parser.feed(Array(bytes[a..<(a + 2)]))
        parser.feed(Array(bytes[(a + 2)...]))
        #expect(parser.finish().parts == expected, "split at \(a), \(a + 2)")
      }
    }
  }

  @Test func largeFilePartIsCountedNotKept() {
    var parser = MultipartParser(boundary: "b")
    parser.feed(Array("--b\r\nContent-Disposition: form-data; name=\"f\"; filename=\"big.bin\"\r\n\r\n".utf8))
    let chunk = [UInt8](repeating: 0x41, count: 64 * 1024)
    var hasher = SHA256()
    for _ in 0..<64 {  // 4 MiB
      parser.feed(chunk)
      hasher.update(chunk)
    }
    parser.feed(Array("\r\n--b--".utf8))
    let summary = parser.finish()
    #expect(summary.error == nil)
    #expect(summary.parts.count == 1)
    #expect(summary.parts.first?.size == 4 * 1024 * 1024)
    #expect(summary.parts.first?.sha256 == hexString(hasher.finalize()))
    #expect(summary.parts.first?.value == nil)
  }

  @Test func headerVariants() {
    let text = [
      "\r\n--b  \t\r\n",  // a leading CRLF, transport padding after the boundary
      "content-disposition: form-data; name=\"q\\\"uote\"; filename=\"a \\\"b\\\".txt\"\r\n",
      "CONTENT-TYPE:text/plain\r\n",
      "X-Other: ignored\r\n\r\n",
      "one\r\n",
      "--b\r\n",
      "Content-Disposition: form-data; name=plain; filename*=UTF-8''na%C3%AFve.txt\r\n\r\n",
      "two\r\n",
      "--b\r\n",
      "\r\n",  // no headers at all
      "three\r\n",
      "--b--",
    ].joined()
    let summary = parse(Array(text.utf8), boundary: "b", sizes: [5])
    #expect(summary.error == nil)
    #expect(summary.parts.map(\.name) == ["q\"uote", "plain", nil])
    #expect(summary.parts.map(\.filename) == ["a \"b\".txt", "naïve.txt", nil])
    #expect(summary.parts.map(\.contentType) == ["text/plain", nil, nil])
    #expect(summary.parts.map(\.size) == [3, 3, 5])
    #expect(summary.parts.map(\.value) == [nil, nil, "three"])
  }

  @Test func boundaryFromContentType() {
    #expect(MultipartParser(contentType: "application/json") == nil)
    #expect(MultipartParser(contentType: nil) == nil)
    var quoted = MultipartParser(contentType: #"Multipart/Form-Data; charset=utf-8; BOUNDARY="a b:c""#)
    quoted?.feed(Array("--a b:c\r\nContent-Disposition: form-data; name=x\r\n\r\n1\r\n--a b:c--\r\n".utf8))
    let x = MultipartPart(name: "x", size: 1, sha256: SHA256.hex([0x31]), value: "1")
    #expect(quoted?.finish() == MultipartSummary(parts: [x]))
    var missing = MultipartParser(contentType: "multipart/form-data")
    #expect(missing?.finish().error == "multipart/form-data without a boundary parameter")
    var long = MultipartParser(contentType: "multipart/form-data; boundary=\(String(repeating: "x", count: 71))")
    #expect(long?.finish().error == "invalid multipart boundary")
  }

  @Test func malformedBodiesReportAnError() {
    func error(_ text: String) -> MultipartSummary {
      parse(Array(text.utf8), boundary: "b", sizes: [1])
    }
    let unclosed = error("--b\r\nContent-Disposition: form-data; name=a\r\n\r\nvalue without an end")
    #expect(unclosed.error == "body ended inside a part (missing closing boundary)")
    #expect(unclosed.parts.map(\.value) == ["value without an end"])
    let heldBack = error("--b\r\nContent-Disposition: form-data; name=a\r\n\r\nabc\r\n--")
    #expect(heldBack.error == "body ended inside a part (missing closing boundary)")
    #expect(heldBack.parts.first?.value == "abc\r\n--")  // the unfinished delimiter was content
    #expect(error("--b\r\nContent-Disposition: form-data; name=a\r\n").error?.contains("headers") == true)
    let unclosedAfterBoundary = error("--b\r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n--b")
    #expect(unclosedAfterBoundary.error == "body ended after a boundary (missing closing boundary)")
    #expect(error("no delimiter at all").error == "no multipart boundary found in the body")
    #expect(error("").error == "no multipart boundary found in the body")
    #expect(error("--bx\r\n\r\n1\r\n--b--").error == "malformed delimiter line (boundary followed by other text)")
    #expect(error("--b\r\nno colon here\r\n\r\n1\r\n--b--").error == "malformed part header line (no colon)")
    #expect(error("--b\r\n\r\n1\r\n--b-x").error == "malformed close delimiter")
    let hugeHeaders = "--b\r\nX: " + String(repeating: "h", count: 9000) + "\r\n\r\n\r\n--b--"
    #expect(error(hugeHeaders).error == "part header block larger than 8192 bytes")
    // After an error the rest is ignored, and the parts before it are kept.
    let partial = error("--b\r\nContent-Disposition: form-data; name=a\r\n\r\n1\r\n--b\r\nbad\r\n\r\n2\r\n--b--")
    #expect(partial.parts.map(\.name) == ["a"])
    #expect(partial.error == "malformed part header line (no colon)")
  }
}

@Suite("/upload")
struct UploadTests {
  @Test func curlMultipartForm() throws {
    try withServer { server in
      let directory = scratchURL("upload")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: directory) }
      let image = sampleBytes(1024 * 1024 + 17, seed: 9)
      let file = directory.appendingPathComponent("photo.jpg")
      try Data(image).write(to: file)
      let result = try runProcess(
        try curlExecutable(),
        [
          "-sS", "-F", "a=1", "-F", "image=@\(file.path);type=image/jpeg", "-F", "note=<\(file.path)",
          "\(server.baseURL)/upload",
        ])
      #expect(result.status == 0, "\(result.stderr)")
      let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
      #expect(json["method"] as? String == "POST")
      #expect((json["contentType"] as? String)?.hasPrefix("multipart/form-data; boundary=") == true)
      #expect(json["contentLength"] as? Int == json["bodyLength"] as? Int)
      #expect(json["error"] is NSNull)
      let parts = try #require(json["parts"] as? [[String: Any]])
      #expect(parts.map { $0["name"] as? String } == ["a", "image", "note"])
      #expect(parts[0]["value"] as? String == "1")
      #expect(parts[0]["filename"] is NSNull && parts[0]["type"] is NSNull)
      #expect(parts[0]["size"] as? Int == 1)
      #expect(parts[1]["filename"] as? String == "photo.jpg")
      #expect(parts[1]["type"] as? String == "image/jpeg")
      #expect(parts[1]["size"] as? Int == image.count)
      #expect(parts[1]["sha256"] as? String == SHA256.hex(image))
      #expect(parts[1]["value"] == nil)
      // `<file` sends the contents as a plain field: too long for a value.
      #expect(parts[2]["filename"] is NSNull)
      #expect(parts[2]["size"] as? Int == image.count)
      #expect(parts[2]["value"] == nil)
    }
  }

  @Test func handBuiltMultipartInChunkedPieces() throws {
    try withServer { server in
      let body = MultipartParserTests.body
      let bytes = body.bytes
      let connection = try RawConnection(port: server.port)
      try connection.send(
        "POST /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: \(body.contentType)\r\n"
          + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
      // Odd chunk sizes, each sent on its own, so delimiters straddle reads on the server.
      var offset = 0
      var step = 0
      let sizes = [1, 7, 4096, 3, 13, 999]
      while offset < bytes.count {
        let end = min(bytes.count, offset + sizes[step % sizes.count])
        let size = Array(String(end - offset, radix: 16).utf8)
        try connection.send(size + [0x0d, 0x0a] + bytes[offset..<end] + [0x0d, 0x0a])
        offset = end
        step += 1
      }
      try connection.send("0\r\n\r\n")
      let response = try connection.readResponse()
      #expect(response.status == 200)
      let json = try response.json()
      #expect(json["contentLength"] is NSNull)
      #expect(json["bodyLength"] as? Int == bytes.count)
      #expect(json["sha256"] as? String == SHA256.hex(bytes))
      #expect(json["error"] is NSNull)
      let parts = try #require(json["parts"] as? [[String: Any]])
      let expected = MultipartParserTests.expectedParts
      #expect(parts.count == expected.count)
      for (part, want) in zip(parts, expected) {
        #expect(part["name"] as? String == want.name)
        #expect(part["filename"] as? String == want.filename)
        #expect(part["type"] as? String == want.contentType)
        #expect(part["size"] as? Int == want.size)
        #expect(part["sha256"] as? String == want.sha256)
        #expect(part["value"] as? String == want.value)
      }
    }
  }

  @Test func malformedMultipartIsReportedNotRefused() throws {
    try withServer { server in
      let body = Array("--b\r\nContent-Disposition: form-data; name=a\r\n\r\ncut short".utf8)
      let response = try fetch(
        server.port, "POST", "/upload", headers: [("Content-Type", "multipart/form-data; boundary=b")], body: body)
      #expect(response.status == 200)
      let json = try response.json()
      #expect(json["error"] as? String == "body ended inside a part (missing closing boundary)")
      #expect((json["parts"] as? [[String: Any]])?.first?["value"] as? String == "cut short")
      let noBoundary = try fetch(
        server.port, "POST", "/upload", headers: [("Content-Type", "multipart/form-data")], body: body)
      #expect(try noBoundary.json()["error"] as? String == "multipart/form-data without a boundary parameter")
      #expect(try noBoundary.json()["parts"] as? [Any] != nil)
    }
  }

  @Test func rawPutBody() throws {
    try withServer { server in
      let body = sampleBytes(1_000_003, seed: 3)
      let response = try fetch(
        server.port, "PUT", "/upload", headers: [("Content-Type", "application/octet-stream")], body: body)
      #expect(response.status == 200)
      let json = try response.json()
      #expect(json["method"] as? String == "PUT")
      #expect(json["contentType"] as? String == "application/octet-stream")
      #expect(json["contentLength"] as? Int == body.count)
      #expect(json["bodyLength"] as? Int == body.count)
      #expect(json["sha256"] as? String == SHA256.hex(body))
      #expect(json["parts"] is NSNull)
      #expect(json["error"] is NSNull)
      // No body at all, any method.
      let empty = try fetch(server.port, "GET", "/upload").json()
      #expect(empty["method"] as? String == "GET")
      #expect(empty["contentType"] is NSNull && empty["contentLength"] is NSNull)
      #expect(empty["bodyLength"] as? Int == 0)
      #expect(empty["sha256"] as? String == SHA256.hex([]))
      #expect(try fetch(server.port, "PUT", "/upload?rate=0", body: [1]).status == 400)
      #expect(try fetch(server.port, "PUT", "/upload?rate=fast", body: [1]).status == 400)
      let index = try fetchJSON(server.port, "/")
      let paths = (index["endpoints"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
      #expect(paths.contains { $0.hasPrefix("/upload") })
    }
  }

  @Test func rateThrottlesTheBodyRead() throws {
    try withServer { server in
      let key = freshKey()
      let body = sampleBytes(64 * 1024, seed: 4)
      let rate = 40_000.0
      let start = Date()
      let response = try fetch(server.port, "PUT", "/upload?rate=\(Int(rate))&key=\(key)", body: body)
      let seconds = elapsed(since: start)
      #expect(response.status == 200)
      #expect(try response.json()["sha256"] as? String == SHA256.hex(body))
      let expected = Double(body.count) / rate  // about 1.6 s
      #expect(seconds >= expected * 0.5, "took \(seconds) s, expected about \(expected) s")
      #expect(seconds < expected * 4 + 2, "took \(seconds) s, expected about \(expected) s")
      let entry = try finishedLogEntry(server.port, key: key)
      #expect(entry["received"] as? Int == body.count)
      #expect(entry["aborted"] as? Bool == false)
      #expect(entry["completed"] as? Bool == true)
    }
  }

  /// The client sends part of the declared body, then closes: the log shows the abort and how far
  /// the upload got (throttled and not).
  @Test(arguments: ["", "&rate=20000"])
  func abortedUploadIsLogged(extra: String) throws {
    try withServer { server in
      let key = freshKey()
      let sent = sampleBytes(30_000, seed: 5)
      do {
        let connection = try RawConnection(port: server.port)
        try connection.send(
          "PUT /upload?key=\(key)\(extra) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\n")
        try connection.send(sent)
        // In flight meanwhile (the server has read the head): the body is still being read.
        let during = try logEntries(server.port, key: key) { !$0.isEmpty }
        #expect(during.count == 1, "\(during)")
        #expect(during.first?["received"] is NSNull)
        #expect(during.first?["aborted"] as? Bool == false)
        withExtendedLifetime(connection) {}
      }  // the connection closes here, mid-body
      let entry = try finishedLogEntry(server.port, key: key)
      #expect(entry["aborted"] as? Bool == true)
      #expect(entry["received"] as? Int == sent.count)
      #expect(entry["completed"] as? Bool == false)
      #expect(entry["method"] as? String == "PUT")
      #expect(try fetchJSON(server.port, "/stats?key=\(key)")["inFlight"] as? Int == 0)
      // Requests without a body log `received: 0`.
      _ = try fetch(server.port, "/get?key=\(key)")
      let log = try fetch(server.port, "/log?key=\(key)").jsonArray()
      #expect(log.last?["received"] as? Int == 0)
      #expect(log.last?["aborted"] as? Bool == false)
    }
  }
}
