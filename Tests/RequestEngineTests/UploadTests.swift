import Digest
import Foundation
import RequestEngine
import TestSupport
import Testing

/// Engine scenario "Multipart and upload", against the fixture's `/upload` (which parses
/// multipart bodies as they stream and hashes every part) and httpbin.
@Suite("Streamed uploads", .serialized)
struct UploadTests {
  final class Files {
    let folder: String
    init() {
      folder = scratchURL("reqbench-up").path
      try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: folder) }

    /// A file of `size` deterministic pseudo-random bytes; returns its path and sha256.
    func make(_ name: String, size: Int) throws -> (path: String, sha256: String) {
      var generator = SplitMix(seed: UInt64(size))
      let bytes = (0..<size).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
      let path = folder + "/" + name
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      return (path, SHA256.hex(bytes))
    }
  }

  func answer(_ result: ExchangeResult) throws -> JSONValue {
    #expect(result.state == .succeeded, "\(result.error?.message ?? "")")
    return try result.json()
  }

  // Fields and a streamed file part, in order, with the right digest, type and length.
  @Test func multipartPartsArriveInOrder() throws {
    let files = Files()
    let image = try files.make("x.jpg", size: 3_000_000)
    let request = Request(
      method: .POST, url: try fixture("/upload"),
      body: .multipart([.field("a", "1"), .file("image", path: image.path, contentType: "image/jpeg")]))
    let json = try answer(Agent().sendAndWait(request))
    #expect(json["method"] == "POST")
    #expect(json["contentType"]?.stringValue?.hasPrefix("multipart/form-data; boundary=") == true)
    #expect(json["contentLength"] == json["bodyLength"])
    #expect(json["error"] == .null)
    let parts = try #require(json["parts"]?.arrayValue)
    #expect(parts.map { $0["name"]?.stringValue } == ["a", "image"])
    #expect(parts[0]["value"] == "1")
    #expect(parts[1]["filename"] == "x.jpg")
    #expect(parts[1]["type"] == "image/jpeg")
    #expect(parts[1]["size"]?.intValue == 3_000_000)
    #expect(parts[1]["sha256"]?.stringValue == image.sha256)
  }

  // PUT (and PATCH, DELETE) send a multipart body like POST does.
  @Test(arguments: [HTTPMethod.PUT, .PATCH, .DELETE])
  func otherMethodsCarryMultipartToo(method: HTTPMethod) throws {
    let files = Files()
    let doc = try files.make("doc.bin", size: 10_000)
    let request = Request(
      method: method, url: try fixture("/upload"),
      body: .multipart([.field("note", "hi"), .file("doc", path: doc.path, filename: "renamed.bin")]))
    let json = try answer(Agent().sendAndWait(request))
    #expect(json["method"]?.stringValue == method.rawValue)
    let parts = try #require(json["parts"]?.arrayValue)
    #expect(parts.map { $0["name"]?.stringValue } == ["note", "doc"])
    #expect(parts[1]["filename"] == "renamed.bin")
    #expect(parts[1]["sha256"]?.stringValue == doc.sha256)
  }

  // A file body streams the file's bytes, with its length and a default content type.
  @Test(arguments: [HTTPMethod.PUT, .POST])
  func aFileBodyIsTheFilesBytes(method: HTTPMethod) throws {
    let files = Files()
    let blob = try files.make("blob.bin", size: 2_500_000)
    let request = Request(method: method, url: try fixture("/upload"), body: .file(blob.path))
    let json = try answer(Agent().sendAndWait(request))
    #expect(json["method"]?.stringValue == method.rawValue)
    #expect(json["bodyLength"]?.intValue == 2_500_000)
    #expect(json["contentLength"]?.intValue == 2_500_000)
    #expect(json["sha256"]?.stringValue == blob.sha256)
    #expect(json["contentType"] == "application/octet-stream")
    #expect(json["parts"] == .null)
  }

  // httpbin agrees: form fields and files of a multipart body, the data of a file body.
  @Test func httpbinSeesTheFormAndTheFile() throws {
    let files = Files()
    let text = files.folder + "/note.txt"
    try Data("hello, httpbin".utf8).write(to: URL(fileURLWithPath: text))
    let multipart = try Agent().sendAndWait(
      Request(
        method: .POST, url: try httpbin("/anything"),
        body: .multipart([.field("who", "ada"), .file("note", path: text, contentType: "text/plain")]))
    ).json()
    #expect(multipart["form"]?["who"] == "ada")
    #expect(multipart["files"]?["note"] == "hello, httpbin")
    let raw = try Agent().sendAndWait(
      Request(method: .PUT, url: try httpbin("/anything"), body: .file(text, contentType: "text/plain"))
    ).json()
    #expect(raw["data"] == "hello, httpbin")
    #expect(raw["headers"]?["Content-Type"] == "text/plain")
  }

  // A throttled upload reports monotonic progress up to its length, with a speed.
  @Test func uploadProgressIsMonotonicToTheTotal() throws {
    let files = Files()
    let blob = try files.make("slow.bin", size: 8_000_000)
    let agent = Agent(configuration: Agent.Configuration(progressInterval: 0.05))
    let recorder = EventRecorder(agent)
    let result = agent.sendAndWait(
      Request(method: .PUT, url: try fixture("/upload?rate=4000000"), body: .file(blob.path)))
    #expect(result.state == .succeeded, "\(result.error?.message ?? "")")
    let progress = recorder.all.compactMap { if case .progress(_, let p) = $0 { p } else { nil } }
    #expect(progress.count >= 10, "\(progress.count) progress events")
    #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.uploaded <= $1.uploaded })
    #expect(progress.allSatisfy { $0.uploadTotal == 8_000_000 })
    #expect(progress.last?.uploaded == 8_000_000)
    #expect(progress.contains { ($0.bytesPerSecond ?? 0) > 0 })
    #expect(try result.json()["sha256"]?.stringValue == blob.sha256)
  }

  // Cancelling half way aborts on the wire: the server sees the body cut short.
  @Test func cancellingAnUploadAbortsOnTheWire() throws {
    let files = Files()
    let blob = try files.make("big.bin", size: 12_000_000)
    let key = uniqueKey()
    let agent = Agent(configuration: Agent.Configuration(progressInterval: 0.02))
    let recorder = EventRecorder(agent)
    let id = agent.send(Request(method: .PUT, url: try fixture("/upload?rate=4000000&key=\(key)"), body: .file(blob.path)))
    #expect(recorder.wait(timeout: 15) { events in
      events.contains { if case .progress(id, let p) = $0 { p.uploaded >= 6_000_000 } else { false } }
    })
    agent.cancel(id)
    #expect(recorder.waitForFinished(count: 1))
    #expect(recorder.finished.first?.state == .cancelled)
    #expect(recorder.finished.count == 1)
    // The server reads what the kernel had buffered, then sees the connection end (slowly on a
    // loaded machine: a 10 s wait was seen to end before the server had logged the exchange).
    var entry: JSONValue?
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline {
      entry = try fixtureJSON("/log?key=\(key)").arrayValue?.first
      if entry?["received"] != .null && entry?["received"] != nil { break }
      usleep(100_000)
    }
    #expect(entry?["aborted"] == true)
    #expect(entry?["completed"] == false)
    #expect((entry?["received"]?.intValue ?? .max) < 12_000_000)
  }

  // Streamed bodies key the cache (and de-duplication) by their files, never as "no body".
  @Test func streamedBodiesHaveKeysOfTheirOwn() throws {
    let files = Files()
    let a = try files.make("a.bin", size: 10)
    let b = try files.make("b.bin", size: 11)
    let policy = CachePolicy(seconds: 60)
    func key(_ body: RequestBody) -> String {
      CacheKey.key(for: Request(method: .POST, url: "http://127.0.0.1:9/u", body: body), policy: policy)
    }
    let keys = [
      key(.empty), key(.file(a.path)), key(.file(b.path)), key(.multipart([.file("f", path: a.path)])),
      key(.multipart([.file("g", path: a.path)])), key(.multipart([.field("f", "1")])),
    ]
    #expect(Set(keys).count == keys.count)
    #expect(key(.file(a.path)) == key(.file(a.path)))
  }

  // A missing file fails before anything is sent, naming the file.
  @Test func aMissingFileIsAUsageErrorAndNothingIsSent() throws {
    let key = uniqueKey()
    for body in [RequestBody.file("/nonexistent/blob.bin"), .multipart([.file("f", path: "/nonexistent/blob.bin")])] {
      let result = Agent().sendAndWait(Request(method: .POST, url: try fixture("/upload?key=\(key)"), body: body))
      #expect(result.state == .failed)
      #expect(result.error?.kind == .usage)
      #expect(result.error?.message == "cannot read /nonexistent/blob.bin: No such file or directory")
    }
    #expect(try hits(key) == 0)
  }

  // A folder (curl reads it as nothing, or waits the idle timeout), a pipe
  // (endless) and a device are not bodies: refused before anything is sent, as a file part too.
  @Test func aFolderOrAPipeIsNotABodyAndNothingIsSent() throws {
    let files = Files()
    let fifo = files.folder + "/pipe"
    #expect(mkfifo(fifo, 0o600) == 0)
    let key = uniqueKey()
    let cases: [(RequestBody, String)] = [
      (.file(files.folder), "cannot send \(files.folder): it is a folder; name a file"),
      (.multipart([.field("a", "1"), .file("f", path: files.folder)]), "cannot send \(files.folder): it is a folder; name a file"),
      (.file(fifo), "cannot send \(fifo): it is not a regular file; name a file"),
      (.file("/dev/zero"), "cannot send /dev/zero: it is not a regular file; name a file"),
    ]
    for (body, message) in cases {
      let request = Request(method: .PUT, url: try fixture("/upload?key=\(key)"), body: body)
      let result = Agent().sendAndWait(request)
      #expect(result.state == .failed)
      #expect(result.error?.kind == .usage)
      #expect(result.error?.message == message)
    }
    #expect(try hits(key) == 0)
  }

  // A HEAD with a body (curl sends it, then waits for a response body a HEAD
  // never gets) is refused before anything is sent, whatever the body.
  @Test func aHEADWithABodyIsRefused() throws {
    let files = Files()
    let blob = try files.make("blob.bin", size: 1000)
    let key = uniqueKey()
    for body in [RequestBody.file(blob.path), .multipart([.field("a", "1")]), RequestBody(bytes: Array("abc".utf8), contentType: nil)] {
      let result = Agent().sendAndWait(Request(method: .HEAD, url: try fixture("/upload?key=\(key)"), body: body))
      #expect(result.state == .failed)
      #expect(result.error?.kind == .usage)
      #expect(result.error?.message == "a HEAD request has no body; remove the body or use another method")
    }
    #expect(try hits(key) == 0)
    // Without a body a HEAD is sent as ever.
    let plain = Agent().sendAndWait(Request(method: .HEAD, url: try fixture("/bytes/10?key=\(key)")))
    #expect(plain.state == .succeeded, "\(plain.error?.message ?? "")")
    #expect(try hits(key) == 1)
  }
}
