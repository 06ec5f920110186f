import Foundation
import RequestEngine
import TestSupport
import Testing

/// The request as curl sent it (`ExchangeResult.sent`), checked against what the fixture server
/// says it received.
@Suite struct SentRequestTests {
  @Test func theHeadIsWhatCurlWroteWithSecretsMasked() throws {
    let agent = Agent()
    let secret = "s3cr3t-" + uniqueKey()
    let url = try fixture("/headers?token=\(secret)")
    var request = Request(
      name: "h", url: url, headers: ["X-Api-Key": secret, "Cookie": "session=abc"], secrets: [secret])
    request.timeouts.idle = 10
    let result = agent.sendAndWait(request)
    #expect(result.state == .succeeded)
    let sent = try #require(result.sent)
    #expect(sent.requestLine == "GET /headers?token=•••• HTTP/1.1")
    #expect(!sent.head.contains(secret))
    let headers = sent.headers
    let host = try #require(URLComponents(string: url)).host!
    #expect(headers["Host"]?.hasPrefix(host + ":") == true)
    #expect(headers["User-Agent"] == Agent.Configuration.defaultUserAgent)
    #expect(headers["Accept"] == "*/*")  // curl's own default
    #expect(headers["Accept-Encoding"] != nil)
    #expect(headers["X-Api-Key"] == Redaction.mask)
    #expect(headers["Cookie"] == "session=abc")
    #expect(headers["Expect"] == nil)
    #expect(sent.body == .none)
    #expect(sent.count == 1)
    // Every header the server received is in the record, in curl's spelling.
    let received = try result.json()
    guard case .object(let echoed)? = received["headers"] else {
      Issue.record("no headers in \(received)")
      return
    }
    for key in echoed.keys {
      #expect(headers.contains(key), "\(key) was received but is not in the sent head")
    }
  }

  @Test func aBodyIsKeptWithItsLengthAndSecretsMasked() throws {
    let agent = Agent()
    let secret = "pw-" + uniqueKey()
    let body = #"{"user":"ada","password":"\#(secret)"}"#
    let request = Request(
      method: .POST, url: try fixture("/anything"), body: .text(body, contentType: "application/json"),
      secrets: [secret])
    let result = agent.sendAndWait(request)
    let sent = try #require(result.sent)
    #expect(sent.requestLine == "POST /anything HTTP/1.1")
    #expect(sent.headers["Content-Length"] == String(body.utf8.count))
    #expect(sent.headers["Content-Type"] == "application/json")
    let masked = Array(body.replacingOccurrences(of: secret, with: Redaction.mask).utf8)
    #expect(sent.body == .bytes(masked, total: body.utf8.count))
  }

  @Test func aLargeBodyIsKeptUpToTheBound() throws {
    let agent = Agent()
    let bytes = [UInt8](repeating: UInt8(ascii: "x"), count: SentRequest.bodyLimit + 100)
    let result = agent.sendAndWait(
      Request(method: .PUT, url: try fixture("/anything"), body: RequestBody(bytes: bytes, contentType: "text/plain")))
    guard case .bytes(let kept, let total)? = result.sent?.body else {
      Issue.record("no body in \(String(describing: result.sent))")
      return
    }
    #expect(kept.count == SentRequest.bodyLimit)
    #expect(total == bytes.count)
  }

  @Test func afterARedirectItIsTheLastRequestAndItsBody() throws {
    let agent = Agent()
    let request = Request(
      method: .POST, url: try fixture("/redirect-to?url=/get&status=302"), body: .text("hello"))
    let result = agent.sendAndWait(request)
    #expect(result.response?.status == 200)
    let sent = try #require(result.sent)
    #expect(sent.count == 2)
    #expect(sent.requestLine == "GET /get HTTP/1.1")  // curl turns a POST into a GET on a 302
    #expect(sent.body == .none)
  }

  @Test func streamedBodiesAreDescribedNotCopied() throws {
    let agent = Agent()
    let folder = scratchURL("sent")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("blob.bin").path
    try Data(repeating: 7, count: 3000).write(to: URL(fileURLWithPath: file))

    let put = agent.sendAndWait(Request(method: .PUT, url: try fixture("/upload"), body: .file(file)))
    #expect(put.sent?.body == .file(path: file, size: 3000))
    #expect(put.sent?.headers["Content-Length"] == "3000")

    let parts: [MultipartPart] = [.field("note", "hi"), .file("blob", path: file, contentType: "application/octet-stream")]
    let post = agent.sendAndWait(Request(method: .POST, url: try fixture("/upload"), body: .multipart(parts)))
    #expect(post.sent?.body == .multipart(parts))
    #expect(post.sent?.headers["Content-Type"]?.hasPrefix("multipart/form-data; boundary=") == true)
  }

  @Test func nothingIsRecordedWhenNothingWasSent() throws {
    let agent = Agent()
    let result = agent.sendAndWait(Request(url: "http://127.0.0.1:1/nothing-listens"))
    #expect(result.state == .failed)
    #expect(result.sent == nil)
  }

  @Test func overHTTP2ItIsCurlsRenderingOfTheRequest() throws {
    let ca = try #require(
      ProcessInfo.processInfo.environment["REQBENCH_TLS_CA"], "REQBENCH_TLS_CA is not set: run the tests with `bash .ci/test`")
    let agent = Agent()
    let result = agent.sendAndWait(Request(url: try TestServer.nginxTLS.url("/1k.bin"), tls: TLSSettings(caFile: ca)))
    #expect(result.response?.httpVersion == "HTTP/2")
    let sent = try #require(result.sent)
    #expect(sent.requestLine == "GET /1k.bin HTTP/2")
    #expect(sent.headers["Host"] != nil)
  }

  @Test func aDedupWaiterHasThePrimarysRecord() throws {
    let agent = Agent()
    let recorder = EventRecorder(agent)
    let url = try fixture("/delay/0.3?key=" + uniqueKey())
    agent.send(Request(name: "a", url: url))
    agent.send(Request(name: "b", url: url))
    #expect(recorder.waitForFinished(count: 2))
    let results = recorder.finished
    #expect(Set(results.map(\.deduplicated)) == [false, true])
    #expect(results[0].sent != nil)
    #expect(results[0].sent == results[1].sent)
  }
}
