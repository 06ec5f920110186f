import Foundation
import TestSupport
import Testing

/// A workspace file's request goes on the wire as curl sends the same request: its URL's query
/// byte for byte, no Accept-Encoding with `"compressed": false`, an empty header sent empty, a
/// basic auth as its header, and through its own `proxy`. Each is compared with the curl
/// command that says the same, on the byte-recording server.
@Suite("workspace requests sent as written", .serialized)
struct WorkspaceSentAsWrittenTests {
  /// The request `request` (a JSON object, `URL` standing for the server's address) as
  /// `reqbench run` sends it, and `curlArguments` as curl sends them.
  func compare(_ request: String, with curlArguments: [String], sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
    let server = try RecordingServer()
    defer { server.stop() }
    let folder = scratchURL("rb-as-written")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let base = server.baseURL
    let workspace = folder.appendingPathComponent("w.json")
    try Data(#"{"version": 1, "name": "w", "requests": [\#(request.replacingOccurrences(of: "URL", with: base))]}"#.utf8)
      .write(to: workspace)
    let run = try runProcess(try reqbenchBinary, ["run", workspace.path, "r", "--no-history", "--no-cookies"], timeout: 30)
    #expect(run.status == 0, "run: \(run.stderr)", sourceLocation: sourceLocation)
    let sentByReqbench = try #require(server.waitFor(1).first, "reqbench sent nothing", sourceLocation: sourceLocation)
    server.clear()
    let curl = try runProcess(
      URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "-o", "/dev/null"] + curlArguments.map { $0.replacingOccurrences(of: "URL", with: base) },
      timeout: 30)
    #expect(curl.status == 0, "curl: \(curl.stderr)", sourceLocation: sourceLocation)
    let sentByCurl = try #require(server.waitFor(1).first, "curl sent nothing", sourceLocation: sourceLocation)
    let differences = sentByReqbench.differences(from: sentByCurl, ignoring: ["User-Agent"])
    #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))", sourceLocation: sourceLocation)
  }

  @Test func theQueryGoesByteForByte() throws {
    try compare(
      #"{"name": "r", "url": "URL/a?x=%2F&&y=+&z=https%3A%2F%2Fb.test&", "compressed": false}"#,
      with: ["URL/a?x=%2F&&y=+&z=https%3A%2F%2Fb.test&"])
    // A `query` member joins a query written in the URL after a `&`.
    try compare(
      #"{"name": "r", "url": "URL/a?x=%2f", "query": {"q": "a b"}, "compressed": false}"#, with: ["URL/a?x=%2f&q=a%20b"])
  }

  @Test func compressedFalseSendsNoAcceptEncodingAndTrueSendsCurls() throws {
    try compare(#"{"name": "r", "url": "URL/c", "compressed": false}"#, with: ["URL/c"])
    try compare(#"{"name": "r", "url": "URL/c"}"#, with: ["URL/c", "--compressed"])
    // An Accept-Encoding of the request's own is sent as written.
    try compare(
      #"{"name": "r", "url": "URL/c", "headers": {"Accept-Encoding": "gzip"}}"#,
      with: ["URL/c", "--compressed", "-H", "Accept-Encoding: gzip"])
  }

  @Test func emptyHeadersAndBasicAuthAsCurlSendsThem() throws {
    // A basic auth is its Authorization header, after the request's own headers (where `curl -u`
    // would put it right after Host).
    try compare(
      #"{"name": "r", "url": "URL/h", "compressed": false, "headers": {"X-Empty": "", "Accept": "", "X-A": "1"}, "auth": {"basic": {"user": "ada", "password": "pw"}}}"#,
      with: ["URL/h", "-H", "X-Empty;", "-H", "Accept:", "-H", "X-A: 1", "-H", "Authorization: Basic YWRhOnB3"])
  }

  @Test func bodiesWithoutAndWithBytes() throws {
    try compare(#"{"name": "r", "method": "POST", "url": "URL/p", "compressed": false}"#, with: ["-X", "POST", "URL/p"])
    try compare(
      #"{"name": "r", "method": "POST", "url": "URL/p", "compressed": false, "body": {"text": "a=\"1\"", "contentType": "application/x-www-form-urlencoded"}}"#,
      with: ["URL/p", "-d", #"a="1""#])
    try compare(
      #"{"name": "r", "method": "POST", "url": "URL/p", "compressed": false, "body": {"text": "{ \"b\": 1, \"a\": 2 }", "contentType": "application/json"}}"#,
      with: ["URL/p", "-d", #"{ "b": 1, "a": 2 }"#, "-H", "Content-Type: application/json"])
  }

  /// The recording server as an HTTP proxy: the request line carries the absolute URL, as from
  /// `curl -x`; `noProxy` sends the request past it.
  @Test func aRequestsOwnProxy() throws {
    try compare(
      #"{"name": "r", "url": "http://origin.invalid/p?q=%2F", "compressed": false, "proxy": "URL"}"#,
      with: ["http://origin.invalid/p?q=%2F", "-x", "URL"])
    try compare(
      #"{"name": "r", "url": "URL/direct", "compressed": false, "proxy": "http://127.0.0.1:9", "noProxy": "127.0.0.1"}"#,
      with: ["URL/direct", "-x", "http://127.0.0.1:9", "--noproxy", "127.0.0.1"])
  }
}
