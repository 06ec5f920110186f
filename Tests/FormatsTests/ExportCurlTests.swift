import Formats
import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// Runs `script` with `/bin/sh -c`.
private func sh(_ script: String) throws -> ProcessResult {
  try runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script])
}

/// What the agent sends as `User-Agent` when a request sets none, and the export copies.
private let ua = "reqbench/\(reqbenchVersion)"

@Suite("curl export")
struct ExportCurlTests {
  @Test func theUserAgentIsReqbenchsUnlessTheRequestSetsOne() {
    #expect(CurlExporter.command(for: Request(url: "http://a.test/")).contains("\n  -A '\(ua)' \\\n"))
    let own = CurlExporter.command(for: Request(url: "http://a.test/", headers: ["user-agent": "mine/1"]))
    #expect(own.contains("-H 'user-agent: mine/1'") && !own.contains("-A "))
    let configured = CurlExporter.command(for: Request(url: "http://a.test/"), userAgent: "it's/2")
    #expect(configured.contains(#"-A 'it'\''s/2'"#))
  }

  @Test func aGetWithAQuery() {
    let request = Request(url: "http://a.test/search?q=caf%C3%A9&page=2")
    #expect(
      CurlExporter.command(for: request) == """
        curl 'http://a.test/search?q=caf%C3%A9&page=2' \\
          -A '\(ua)' \\
          --compressed \\
          -L --max-redirs 10
        """)
  }

  @Test func aJSONPost() {
    let request = Request(
      method: .POST, url: "http://a.test/users", headers: ["Accept": "application/json"],
      body: .json(["name": "O'Brien"]))
    #expect(
      CurlExporter.command(for: request) == #"""
        curl 'http://a.test/users' \
          -H 'Accept: application/json' \
          -A '\#(ua)' \
          -H 'Content-Type: application/json' \
          --data-binary '{"name":"O'\''Brien"}' \
          --compressed \
          -L --max-redirs 10
        """#)
  }

  @Test func headUsesHeadNotX() {
    let command = CurlExporter.command(for: Request(method: .HEAD, url: "http://a.test/x"))
    #expect(command.hasPrefix("curl --head 'http://a.test/x'"))
    #expect(!command.contains("-X"))
  }

  @Test func bodiesGoWhereTheEngineSendsThem() {
    // PUT, PATCH and POST send an empty body when they have one, and none without: -X then.
    let put = CurlExporter.command(for: Request(method: .PUT, url: "http://a.test/x", body: .text("", contentType: "text/plain")))
    #expect(put.hasPrefix("curl -X PUT 'http://a.test/x'"))
    #expect(put.contains("--data-binary ''"))
    #expect(!CurlExporter.command(for: Request(method: .PUT, url: "http://a.test/x")).contains("--data"))
    let post = CurlExporter.command(for: Request(method: .POST, url: "http://a.test/x"))
    #expect(post.hasPrefix("curl -X POST 'http://a.test/x'") && !post.contains("--data"))
    let empty = CurlExporter.command(for: Request(method: .POST, url: "http://a.test/x", body: .text("", contentType: "text/plain")))
    #expect(empty.contains("--data-binary ''") && !empty.contains("-X"))
    // DELETE only with a body; GET never.
    #expect(
      !CurlExporter.command(for: Request(method: .DELETE, url: "http://a.test/x")).contains(
        "--data"))
    #expect(
      CurlExporter.command(for: Request(method: .DELETE, url: "http://a.test/x", body: .text("x")))
        .contains("--data-binary 'x'"))
    // A GET with a body sends it, as the engine does: -X GET keeps curl from POSTing it.
    let get = CurlExporter.command(for: Request(method: .GET, url: "http://a.test/x", body: .text("x")))
    #expect(get.hasPrefix("curl -X GET ") && get.contains("--data-binary 'x'"))
  }

  @Test func multipartPartsSendExactlyTheirValues() {
    let request = Request(
      method: .POST, url: "http://a.test/upload",
      body: .multipart([
        .field("note", "hello world"),
        .field("at", "@etc/passwd"),
        .field("semi", "a;b"),
        .field("padded", " x "),
        .field("plain", "v", contentType: "text/plain"),
        .field("typed", #"<x;"y"\"#, contentType: "text/plain; charset=utf-8"),
        .file("photo", path: "/w/img/a.png"),
        .file("f", path: "/w/a;b.png", filename: "x,y.png", contentType: "image/png"),
      ]))
    let command = CurlExporter.command(for: request)
    #expect(
      command == #"""
        curl 'http://a.test/upload' \
          -A '\#(ua)' \
          -F 'note=hello world' \
          --form-string 'at=@etc/passwd' \
          --form-string 'semi=a;b' \
          --form-string 'padded= x ' \
          -F 'plain=v;type=text/plain' \
          -F 'typed="<x;\"y\"\\";type=text/plain; charset=utf-8' \
          -F 'photo=@/w/img/a.png' \
          -F 'f=@"/w/a;b.png";filename="x,y.png";type=image/png' \
          --compressed \
          -L --max-redirs 10
        """#)
  }

  @Test func fileBodiesAndDownloads() {
    let put = CurlExporter.command(
      for: Request(method: .PUT, url: "http://a.test/blob", body: .file("/w/blob.bin")))
    // A PUT uploads the file as -T does, as the engine sends it.
    #expect(
      put == """
        curl -X PUT 'http://a.test/blob' \\
          -A '\(ua)' \\
          -H 'Content-Type: application/octet-stream' \\
          -T '/w/blob.bin' \\
          --compressed \\
          -L --max-redirs 10
        """)
    // The engine sends a streamed body even with GET: -X keeps curl from switching to POST.
    #expect(
      CurlExporter.command(for: Request(url: "http://a.test/q", body: .file("/w/q.json", contentType: "application/json")))
        .hasPrefix("curl -X GET 'http://a.test/q'"))
    let download = CurlExporter.command(
      for: Request(url: "http://a.test/big.iso", download: DownloadTarget(path: "/w/downloads/big.iso")))
    #expect(download.contains("-o '/w/downloads/big.iso' -C -"))
    #expect(!download.contains("--compressed"))
  }

  @Test func aBodyStartingWithAtIsNotReadAsAFile() {
    let command = CurlExporter.command(
      for: Request(method: .POST, url: "http://a.test", body: .text("@etc/passwd")))
    #expect(command.contains("--data-raw '@etc/passwd'"))
  }

  @Test func optionsForRedirectsTLSAndTimeouts() {
    let request = Request(
      url: "http://a.test/[x]", timeouts: Timeouts(idle: 5, deadline: 2.5), followRedirects: false,
      insecure: true)
    #expect(
      CurlExporter.command(for: request) == """
        curl 'http://a.test/[x]' \\
          -A '\(ua)' \\
          --compressed \\
          -k \\
          --max-time 2.5 \\
          --connect-timeout 5 \\
          --globoff
        """)
    // `"compressed": false` leaves --compressed out; the proxy is -x and --noproxy.
    var plain = Request(url: "http://a.test", headers: ["Accept-Encoding": "identity"])
    plain.compressed = false
    plain.proxy = "http://proxy.test:3128"
    plain.noProxy = "localhost,.internal"
    let command = CurlExporter.command(for: plain)
    #expect(!command.contains("--compressed"))
    #expect(command.contains("-H 'Accept-Encoding: identity'"))
    #expect(command.contains("-x 'http://proxy.test:3128'") && command.contains("--noproxy 'localhost,.internal'"))
  }

  @Test func emptyHeaderValuesRemoveCurlsDefaults() {
    let command = CurlExporter.command(for: Request(url: "http://a.test", headers: ["Accept": ""]))
    #expect(command.contains("-H 'Accept:'"))
    // Any other header with an empty value is sent empty, as `-H 'Name;'` sends it.
    #expect(CurlExporter.command(for: Request(url: "http://a.test", headers: ["X-Empty": ""])).contains("-H 'X-Empty;'"))
  }

  @Test func quoting() {
    #expect(CurlExporter.quote("plain") == "'plain'")
    #expect(CurlExporter.quote("") == "''")
    #expect(CurlExporter.quote("a b") == "'a b'")
    #expect(CurlExporter.quote("it's $HOME `x` \\ \"q\"") == #"'it'\''s $HOME `x` \ "q"'"#)
  }

  /// Text the shell hands over unchanged: run `printf '%s' WORD` and compare.
  @Test func quotedWordsSurviveTheShell() throws {
    let word = "it's \"quoted\" $HOME `date` \\n \\ é 😀\nline2\ttab !*?[a]{b}~#;&|<>()"
    let result = try sh("printf '%s' " + CurlExporter.quote(word))
    #expect(result.status == 0)
    #expect(result.stdout == word)
  }

  /// Bytes no shell word can carry (a NUL, invalid UTF-8, control characters) are piped in by
  /// printf; the pipe gives back every byte.
  @Test func binaryBodiesArePipedThroughPrintf() throws {
    let bytes: [UInt8] = [0x00, 0xFF, 0x27, 0x25, 0x5C, 0x0A, 0x41, 0x1B, 0x31, 0x32, 0xC3, 0xA9]
    let request = Request(
      method: .POST, url: "http://a.test/upload",
      body: RequestBody(bytes: bytes, contentType: "application/octet-stream"))
    let command = CurlExporter.command(for: request)
    #expect(
      command.hasPrefix(
        #"printf '\000\377\047%%\\\012A\03312\303\251' | curl 'http://a.test/upload' \"#))
    #expect(command.contains("--data-binary @-"))
    let pipe = try #require(command.split(separator: " | ").first)
    let dump = try sh(pipe + " | od -An -v -tx1")
    let hex = dump.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    #expect(
      hex
        == bytes.map {
          String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16)
        }.joined(separator: " "))
  }

  @Test func aPipedBodyStartingWithADashIsNotAPrintfOption() throws {
    let bytes: [UInt8] = Array("-n\u{1}".utf8)
    let command = CurlExporter.command(
      for: Request(
        method: .POST, url: "http://a.test", body: RequestBody(bytes: bytes, contentType: nil)))
    #expect(command.hasPrefix(#"printf '\055n\001' | curl"#))
    let pipe = try #require(command.split(separator: " | ").first)
    #expect(
      try sh(pipe + " | od -An -tx1").stdout.split(whereSeparator: \.isWhitespace) == [
        "2d", "6e", "01",
      ])
  }

  @Test func secretsAreMaskedUnlessRevealed() {
    let request = Request(
      url: "http://a.test/x?key=s3cr3t", headers: ["X-Api-Key": "s3cr3t", "Accept": "text/plain"],
      secrets: ["s3cr3t"])
    let masked = CurlExporter.command(for: request)
    #expect(masked.contains("-H 'X-Api-Key: ••••'"))
    #expect(masked.contains("'http://a.test/x?key=••••'"))
    #expect(!masked.contains("s3cr3t"))
    let revealed = CurlExporter.command(for: request, revealSecrets: true)
    #expect(revealed.contains("-H 'X-Api-Key: s3cr3t'"))
  }

  @Test func secretsFromTheWorkspaceAreMasked() throws {
    let ws = try workspace(
      #"""
      {"version": 1, "requests": [
        {"name": "me", "url": "http://a.test/me", "headers": {"Authorization": "Bearer {{secret.token}}"}},
        {"name": "login", "method": "POST", "url": "http://a.test/login",
         "auth": {"basic": {"user": "ada", "password": "{{secret.pw}}"}}}
      ]}
      """#)
    let sources = VariableSources(
      processEnvironment: ["REQBENCH_SECRET_TOKEN": "t0k3n", "REQBENCH_SECRET_PW": "hunter2"])
    let me = try ws.prepare(try #require(ws.request(named: "me")), sources: sources)
    #expect(CurlExporter.command(for: me).contains("-H 'Authorization: Bearer ••••'"))
    #expect(
      CurlExporter.command(for: me, revealSecrets: true).contains(
        "-H 'Authorization: Bearer t0k3n'"))
    let login = try ws.prepare(try #require(ws.request(named: "login")), sources: sources)
    let masked = CurlExporter.command(for: login)
    #expect(masked.contains("-H 'Authorization: ") && masked.contains("••••"))
    #expect(!masked.contains(Data("ada:hunter2".utf8).base64EncodedString()))
    #expect(
      CurlExporter.command(for: login, revealSecrets: true)
        .contains("-H 'Authorization: Basic \(Data("ada:hunter2".utf8).base64EncodedString())'"))
  }
}
