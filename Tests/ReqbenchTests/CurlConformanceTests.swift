import Foundation
import TestSupport
import Testing

/// What reqbench sends for an imported curl command is what curl itself sends: each command is
/// run by the curl binary and, imported with `reqbench import curl`, by `reqbench run`, against
/// the same byte-recording server (`RecordingServer`); the request line, the headers in order
/// and the body bytes must be the same. The User-Agent is reqbench's own, by design; a multipart
/// boundary is random in both, so it is compared as `BOUNDARY`.
@Suite("curl conformance", .serialized)
struct CurlConformanceTests {
  /// Files the commands name (`-d @body.txt`, `-F file=@a.png`, `-T upload.bin`), written into
  /// the folder both curl and the workspace work in.
  static let files: [String: [UInt8]] = [
    "body.txt": Array("line one\r\nline two\nkey=va lue\n".utf8),
    "data.json": Array("{\n  \"a\": [1, 2],\n  \"b\": \"x\"\n}\n".utf8),
    "upload.bin": [0, 1, 2, 255, 10, 13, 65],
    "note.txt": Array("a note\n".utf8),
  ]

  /// Runs `arguments` (with `URL` standing for the recording server's address, `ADDR` for its
  /// `127.0.0.1:PORT`) through curl and through reqbench; the two requests as the server got them.
  func bothSend(_ arguments: [String], path: String = "/x") throws -> (
    curl: RecordingServer.Recorded, reqbench: RecordingServer.Recorded
  ) {
    let server = try RecordingServer()
    defer { server.stop() }
    let address = server.baseURL.replacingOccurrences(of: "http://", with: "")
    let args = arguments.map {
      $0.replacingOccurrences(of: "URL", with: server.baseURL + path).replacingOccurrences(of: "ADDR", with: address)
    }
    let folder = scratchURL("rb-conformance")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    for (name, bytes) in Self.files { try Data(bytes).write(to: folder.appendingPathComponent(name)) }

    let curl = try runProcess(
      URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "-o", "/dev/null"] + args, currentDirectory: folder, timeout: 30)
    #expect(curl.status == 0, "curl: \(curl.stderr)")
    let sentByCurl = try #require(server.waitFor(1).first, "curl sent nothing")
    server.clear()

    let workspace = folder.appendingPathComponent("w.json").path
    let command = "curl " + args.map(Self.shellQuote).joined(separator: " ")
    let imported = try runProcess(
      try reqbenchBinary, ["import", "curl", "-", "--into", workspace, "--name", "c"], stdin: command, timeout: 30)
    #expect(imported.status == 0, "import: \(imported.stderr)")
    let run = try runProcess(try reqbenchBinary, ["run", workspace, "c", "--no-history", "--no-cookies"], timeout: 30)
    #expect(run.status == 0, "run: \(run.stderr)")
    let sentByReqbench = try #require(server.waitFor(1).first, "reqbench sent nothing: \(run.stderr)")
    return (Self.fixedBoundary(sentByCurl), Self.fixedBoundary(sentByReqbench))
  }

  static func shellQuote(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }

  /// `request` with its multipart boundary (from its Content-Type) written `BOUNDARY…` of the
  /// same length, in the header and the body.
  static func fixedBoundary(_ request: RecordingServer.Recorded) -> RecordingServer.Recorded {
    guard let type = request.header("Content-Type"), type.hasPrefix("multipart/"),
      let range = type.range(of: "boundary=")
    else { return request }
    let boundary = String(type[range.upperBound...])
    let fixed = "BOUNDARY" + String(repeating: "-", count: max(0, boundary.count - 8))
    var copy = request
    copy.headers = request.headers.map { header in
      var header = header
      header.value = header.value.replacingOccurrences(of: boundary, with: fixed)
      return header
    }
    copy.body = replacing(Array(boundary.utf8), with: Array(fixed.utf8), in: request.body)
    return copy
  }

  /// `bytes` with every `old` (never empty) replaced by `new`.
  static func replacing(_ old: [UInt8], with new: [UInt8], in bytes: [UInt8]) -> [UInt8] {
    var out: [UInt8] = []
    var i = 0
    while i < bytes.count {
      if i + old.count <= bytes.count, bytes[i..<(i + old.count)].elementsEqual(old) {
        out += new
        i += old.count
      } else {
        out.append(bytes[i])
        i += 1
      }
    }
    return out
  }

  func expectSame(_ arguments: [String], path: String = "/x", sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
    let (curl, reqbench) = try bothSend(arguments, path: path)
    let differences = reqbench.differences(from: curl, ignoring: ["User-Agent"])
    #expect(differences.isEmpty, "\(arguments.joined(separator: " ")):\n\(differences.joined(separator: "\n"))", sourceLocation: sourceLocation)
  }

  // A body goes whatever the method (Elasticsearch's _search is a GET with a body).
  @Test func aGETWithABody() throws {
    try expectSame(["-X", "GET", "URL", "-H", "Content-Type: application/json", "-d", #"{"query": {"match_all": {}}}"#])
  }

  /// Bodies as written: only `--data-urlencode` encodes; JSON keeps its spaces, key order and
  /// escapes; `-d` pieces join with `&`; `-d @file` drops CR and LF, `--data-binary @file` not.
  @Test(arguments: [
    ["URL", "-d", #"foo="bar""#],
    ["URL", "-d", "a=1", "-d", "b=2&c", "--data-raw", "@at"],
    ["URL", "-d", #"{"b": 1,  "a": "\u00e9\/"}"#, "-H", "Content-Type: application/json"],
    ["URL", "-H", "Content-Type: application/json", "-H", "X-After: 1", "-d", #"{"a":1}"#],
    ["URL", "-H", "X-Before: 1", "-H", "content-type: application/json; charset=utf-8", "-d", #"{"a":1}"#],
    ["URL", "-H", "Content-Type: application/x-www-form-urlencoded", "-H", "X-A: 1", "-d", "a=1&b=x y"],
    ["URL", "--data-ascii", "a=%41+b", "--data-binary", "c d"],
    ["URL", "-d", "@body.txt"],
    ["URL", "-d", "@body.txt", "-d", "x=1"],
    ["URL", "--data-binary", "@body.txt"],
    ["URL", "--data-binary", "@data.json", "-H", "Content-Type: application/json"],
    ["URL", "--data-urlencode", "name=a b&c/é", "--data-urlencode", "=x+y", "--data-urlencode", "plain text"],
    ["URL", "--data-urlencode", "note@note.txt", "--data-urlencode", "@note.txt"],
    ["URL", "--json", #"{"a": [1, 2]}"#],
    ["URL", "--json", "{\"a\":", "--json", "1}", "-H", "Accept: text/plain"],
    ["URL", "-d", ""],
    ["URL", "-X", "PUT", "-d", "x=1", "-H", "Content-Type: text/plain"],
    ["URL", "-X", "DELETE", "-d", #"{"ids":[1,2]}"#],
    ["URL", "-d", "x", "-H", "Content-Type:"],
  ])
  func bodiesAsWritten(_ arguments: [String]) throws {
    try expectSame(arguments)
  }

  /// URLs as written: the query keeps its bytes (`%2F`, `&&`, a trailing `&`, `+`), `-G` and
  /// `--url-query` append as curl does.
  @Test(arguments: [
    ["URL?a=%2F&&b=+&"],
    ["URL?redirect=https%3A%2F%2Fx.test%2Fa&q=caf%C3%A9"],
    ["URL?x=1&x=2&flag"],
    ["URL?b=2&a=1"],
    ["URL?q=a+b&s=%20"],
    ["URL?", "-G", "-d", "q=1"],
    ["URL?a=%2F", "-G", "-d", "q=%2F", "--data-urlencode", "z=a/b é"],
    ["URL?y=1#frag", "-G", "-d", "q=1"],
    ["URL?y=1", "--url-query", "q=a b/é", "--url-query", "+r=a%2Fb&c", "--url-query", "=x/y", "--url-query", "plain"],
    ["URL?y=1&", "--url-query", "n@note.txt"],
    ["-G", "URL", "--data-urlencode", "q=name:\"ada lovelace\""],
  ])
  func urlsAsWritten(_ arguments: [String]) throws {
    try expectSame(arguments, path: "/a/b")
  }

  /// The headers curl adds itself, in its places, and no other: no Accept-Encoding without
  /// `--compressed`, Referer and Cookie before the -H headers, an empty `X;` sent, `X:` removing.
  @Test(arguments: [
    ["URL"],
    ["URL", "--compressed"],
    ["URL", "--compressed", "-H", "Accept-Encoding: gzip, br", "-H", "X: 1"],
    ["URL", "-H", "accept-encoding: identity"],
    ["URL", "-e", "https://ref.test/", "-b", "a=1", "-b", "b=2", "-H", "X-A: 1", "-A", "agent/1"],
    ["URL", "-H", "X-A: 1", "-H", "Referer: https://mine.test/", "-e", "https://ref.test/"],
    ["URL", "-H", "X-Empty;", "-H", "Accept:", "-H", "X-Gone:", "-H", "Host: example.test"],
    ["URL", "-H", "X-Spaced:   a  b  ", "-H", "x-lower:c", "-H", "X-Tab:\tq"],
    ["URL", "-H", "Accept: application/vnd.github+json", "-H", "Authorization: Bearer ghp_x", "-H", "X-GitHub-Api-Version: 2022-11-28"],
    ["-X", "wHat", "URL"],
    ["-X", "POST", "URL"],
    ["-X", "PUT", "URL", "-H", "Content-Type: application/json"],
    ["-I", "URL"],
    ["URL", "--sil", "--max-red", "3", "--user-ag", "x", "--no-progress-meter", "--no-buffer"],
    ["URL", "-T", "upload.bin"],
    ["URL", "-T", "note.txt", "-H", "Content-Type: text/plain", "-H", "X-A: 1"],
  ])
  func headersAsCurlSendsThem(_ arguments: [String]) throws {
    try expectSame(arguments)
  }

  /// Commands as API documentation and browsers write them.
  @Test(arguments: [
    // Stripe (without its `-u`: curl sends those credentials right after Host, reqbench after the
    // other headers; docs/import-export.md says so)
    ["URL", "-d", "amount=2000", "-d", "currency=usd", "-d", "payment_method_types[]=card", "-d", "metadata[order_id]=6735"],
    // Twilio
    ["-X", "POST", "URL", "--data-urlencode", "Body=Hi there, ✓", "--data-urlencode", "From=+15017122661",
     "--data-urlencode", "To=+15558675310", "-H", "Authorization: Basic QUNYWFhYOmF1dGhfdG9rZW4="],
    // GitHub
    ["-L", "-X", "POST", "-H", "Accept: application/vnd.github+json", "-H", "Authorization: Bearer <YOUR-TOKEN>",
     "-H", "X-GitHub-Api-Version: 2022-11-28", "URL", "-d", #"{"title":"Found a bug","body":"I'm having a problem with this.","labels":["bug"]}"#],
    // Elasticsearch
    ["-X", "GET", "URL?pretty", "-H", "Content-Type: application/json", "-d",
     "\n{\n  \"query\": {\n    \"match\": { \"message\": \"this is a test\" }\n  }\n}\n"],
    // Chrome's Copy as cURL
    ["URL?page=2&sort=-created", "-H", "accept: application/json, text/plain, */*", "-H", "accept-language: en-US,en;q=0.9",
     "-H", "cookie: session=abc; theme=dark", "-H", "referer: https://app.test/list", "-H", "sec-ch-ua: \"Chromium\";v=\"124\"",
     "-H", "sec-fetch-mode: cors", "-H", "user-agent: Mozilla/5.0", "--compressed"],
    ["URL", "-H", "content-type: application/json", "-H", "origin: https://app.test", "--data-raw", #"{"name":"Ada","tags":["x"]}"#, "--compressed"],
    // Firefox's Copy as cURL
    ["URL", "-X", "POST", "-H", "User-Agent: Mozilla/5.0", "-H", "Accept: */*", "-H", "Accept-Language: en-US,en;q=0.5",
     "-H", "Accept-Encoding: gzip, deflate, br", "-H", "Content-Type: application/x-www-form-urlencoded",
     "-H", "Connection: keep-alive", "--data-raw", "username=ada%40example.com&password=p%26ss+word"],
  ])
  func realWorldCommands(_ arguments: [String]) throws {
    try expectSame(arguments)
  }

  /// Multipart bodies: the parts, their headers and bytes, in order (the boundary aside).
  @Test(arguments: [
    ["URL", "-F", "a=b", "-F", "c=d;type=text/plain"],
    ["URL", "-F", "file=@note.txt", "-F", "bin=@upload.bin;type=application/octet-stream;filename=x.bin"],
    ["URL", "-F", "text=<note.txt", "--form-string", "raw=@not-a-file;x"],
    ["URL", "-X", "PUT", "-F", "a=1", "-H", "X-A: 2"],
  ])
  func multipart(_ arguments: [String]) throws {
    try expectSame(arguments)
  }

  /// `-x` sends through the proxy: the recording server, as an HTTP proxy, sees the absolute
  /// request target, as from curl.
  @Test func throughAProxy() throws {
    try expectSame(["http://origin.invalid/p?q=%2F", "-x", "URL", "-H", "X-A: 1"], path: "")
    try expectSame(["http://origin.invalid/p", "--proxy", "ADDR", "--noproxy", "localhost,.test"], path: "")
  }

  /// `--request-target` replaces the URL's path and query on the request line: `OPTIONS *`, the
  /// asterisk form, and an absolute form sent to an origin.
  @Test func aRequestTargetOfItsOwn() throws {
    try expectSame(["-X", "OPTIONS", "--request-target", "*", "URL"])
    try expectSame(["--request-target", "/other?a=%2F&&", "URL"])
  }
}
