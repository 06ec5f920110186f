import Foundation
import RequestEngine
import TestSupport
import Testing

/// CR, LF and NUL never reach curl: the engine refuses a request whose URL, header names or
/// values, content type, multipart part headers or Digest user would carry one (a `usage`
/// error, nothing sent), whoever built it.
@Suite("Header injection")
struct HeaderInjectionTests {
  let agent = Agent()

  @Test func theCheckFindsEveryLineThatGoesOnTheWire() {
    #expect(LineBreaks.find(in: "plain value") == nil)
    #expect(LineBreaks.find(in: "ab\r\nX-Injected: 1") == .carriageReturn)
    #expect(LineBreaks.find(in: "ab\nX-Injected: 1") == .lineFeed)
    #expect(LineBreaks.find(in: "ab\0") == .nul)
    let ok = Request(url: "http://127.0.0.1:1/x", headers: ["X-K": "v"])
    #expect(ok.lineBreakProblem() == nil)

    var header = ok
    header.headers["X-K"] = "ab\r\nX-Injected: 1"
    #expect(
      header.lineBreakProblem()
        == #"header "X-K" contains CR (\r); CR, LF and NUL are not allowed in methods, URLs and headers: they would end the line on the wire"#)
    var name = ok
    name.headers = HTTPHeaders([("X-A\nX-Injected", "1")])
    #expect(name.lineBreakProblem()?.hasPrefix(#"the name of header "X-A\nX-Injected" contains LF (\n)"#) == true)
    var url = ok
    url.url = "http://127.0.0.1:1/x\r\nX-Injected: 1"
    #expect(url.lineBreakProblem()?.hasPrefix(#"url contains CR (\r)"#) == true)
    var type = ok
    type.body = .text("x", contentType: "text/plain\r\nX-Injected: 1")
    #expect(type.lineBreakProblem()?.hasPrefix("the body's content type contains CR") == true)
    var part = ok
    part.body = .multipart([.field("a", "1"), .field("b\r\nX-Injected: 1", "2")])
    #expect(part.lineBreakProblem()?.hasPrefix("the name of multipart part 2 contains CR") == true)
    var digest = ok
    digest.digest = DigestCredentials(user: "ada\0", password: "p")
    #expect(digest.lineBreakProblem()?.hasPrefix(#"the digest user name contains NUL (\0)"#) == true)
  }

  /// Before the check, the fixture received `X-Injected: 1` as a header of its own.
  @Test func aHeaderValueWithCRLFIsRefusedBeforeAnythingIsSent() throws {
    let key = uniqueKey("inject")
    let result = agent.sendAndWait(
      Request(url: try fixture("/anything/h?key=\(key)"), headers: ["X-K": "ab\r\nX-Injected: 1"]))
    #expect(result.state == .failed)
    #expect(result.error?.kind == .usage)
    #expect(result.error?.message.hasPrefix(#"header "X-K" contains CR (\r)"#) == true, "\(result.error?.message ?? "")")
    #expect(result.response == nil)
    #expect(try hits(key) == 0)
  }

  // A 2 MB token in a header is more than curl sends: a request error naming the header, said
  // before anything is sent (curl's "out of memory" was read as a response header too long).
  @Test func aHeaderOverCurlsLimitIsARequestErrorNotAResponseOne() throws {
    let key = uniqueKey("huge")
    let token = String(repeating: "S", count: 2_000_000)
    let result = agent.sendAndWait(Request(url: try fixture("/anything?key=\(key)"), headers: ["X-K": token]))
    #expect(result.state == .failed)
    #expect(result.error?.kind == .usage)
    #expect(
      result.error?.message
        == #"the request's URL and headers are 1.9 MB, more than curl sends (1 MB in all): header "X-K" alone is 1.9 MB; nothing was sent"#,
      "\(result.error?.message ?? "")")
    #expect(try hits(key) == 0)
    // Within curl's limit it goes, and the server has its say (the fixture takes 64 KB of head).
    let fits = agent.sendAndWait(
      Request(url: try fixture("/anything?key=\(key)"), headers: ["X-K": String(repeating: "S", count: 900_000)]))
    #expect(fits.response?.status == 431, "\(fits.error?.message ?? "")")
  }

  @Test func everyKindOfLineIsRefused() throws {
    let key = uniqueKey("inject")
    let base = try fixture("/anything/h?key=\(key)")
    var requests: [Request] = []
    requests.append(Request(url: base + "%0A", headers: HTTPHeaders([("X-A\r\nX-Injected", "1")])))
    var type = Request(method: .POST, url: base)
    type.body = .text("x", contentType: "text/plain\nX-Injected: 1")
    requests.append(type)
    var part = Request(method: .POST, url: base)
    part.body = .multipart([.field("a", "1", contentType: "text/plain\r\nX-Injected: 1")])
    requests.append(part)
    var digest = Request(url: base)
    digest.digest = DigestCredentials(user: "ada\r\nX-Injected: 1", password: "p")
    requests.append(digest)
    for request in requests {
      let result = agent.sendAndWait(request)
      #expect(result.error?.kind == .usage, "\(result.error?.message ?? "sent")")
    }
    #expect(try hits(key) == 0)
  }
}
