import Formats
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

/// The one request a curl command imports to, and the import's warnings.
private func imported(_ text: String, files: [String: String] = [:]) throws -> (template: RequestTemplate, warnings: [String]) {
  let result = try CurlImporter.parse(text, file: "paste.sh") { (path: String) throws(FileError) -> [UInt8] in
    guard let contents = files[path] else {
      throw FileError(path: path, message: "cannot read", reason: "No such file or directory")
    }
    return Array(contents.utf8)
  }
  let template = try #require(result.requests.first).template
  return (template, result.warnings)
}

private func importError(_ text: String) -> String? {
  do {
    _ = try CurlImporter.parse(text, file: "paste.sh")
    return nil
  } catch {
    return error.description
  }
}

/// curl's long options as curl reads them (prefixes, `--no-`), and the options that shape the
/// URL, the headers and the proxy: `--url-query`, `--range`, `-x`, `--noproxy`, `-X`.
@Suite("curl import: options as curl reads them")
struct ImportCurlOptionsTests {
  @Test func aLongOptionMayBeShortenedAsCurlAllows() throws {
    let t = try imported("curl --sil --max-red 3 --user-ag agent/1 --head https://a.test/x").template
    #expect(t.maxRedirects == 3)
    #expect(t.method == .HEAD)
    #expect(t.headers["User-Agent"] == "agent/1")
    // The whole name wins over longer names it starts (--data, not --data-raw).
    #expect(try imported("curl --data a=1 https://a.test").template.body != nil)
  }

  @Test func anAmbiguousPrefixIsAnErrorNamingTheCandidates() {
    #expect(
      importError("curl --loc https://a.test")
        == "paste.sh:1:6: --loc is ambiguous: curl has --local-port, --location, --location-trusted; write the whole option")
    #expect(
      importError("curl --dat x https://a.test")?.contains("curl has --data, --data-ascii, --data-binary, --data-raw, --data-urlencode;")
        == true)
  }

  @Test func noTurnsASwitchOffAndTheLastWins() throws {
    #expect(try imported("curl -L --no-location https://a.test").template.followRedirects == false)
    #expect(try imported("curl --no-location -L https://a.test").template.followRedirects)
    #expect(try imported("curl -k --no-insecure https://a.test").template.insecure == false)
    // After --no- curl takes the whole name only, and only a switch.
    #expect(importError("curl --no-loc https://a.test")?.contains("--no-loc is not a curl option") == true)
    #expect(importError("curl --no-data x https://a.test")?.contains("takes a value") == true)
  }

  @Test func theMethodIsKeptAsSpelled() throws {
    #expect(try imported("curl -X wHat https://a.test").template.method.rawValue == "wHat")
    // A common method in another case is that method in a workspace: the import says so.
    let lower = try imported("curl -X get https://a.test")
    #expect(lower.template.method == .GET)
    #expect(lower.warnings.contains { $0.contains("-X get is sent as GET") })
  }

  @Test func urlQueryAppendsAsCurlDoes() throws {
    let t = try imported(
      "curl 'https://a.test/x?y=1' --url-query 'q=a b/é' --url-query '+r=a%2Fb&c' --url-query '=x/y' --url-query n@f.txt",
      files: ["f.txt": "v\n"]
    ).template
    #expect(t.url == "https://a.test/x?y=1&q=a+b%2f%c3%a9&r=a%2fb&c&x%2fy&n=v%0a")
    #expect(t.query.isEmpty)
    #expect(
      importError("curl -G -d a=1 --url-query b=2 https://a.test")?.contains("curl 7.88 sends the -G data and drops --url-query")
        == true)
  }

  @Test func aQueryThatWouldChangeStaysInTheURLAsWritten() throws {
    for url in ["https://a.test/x?a=%2F", "https://a.test/x?a=1&&b=2", "https://a.test/x?a=1&", "https://a.test/x?q=a+b",
      "https://a.test/x?r=https%3A%2F%2Fb.test", "https://a.test/x?a=1&a=2"]
    {
      let t = try imported("curl '\(url)'").template
      #expect(t.url == url)
      #expect(t.query.isEmpty)
    }
    // A query that encodes back to its bytes is the request's parameters.
    let clean = try imported("curl 'https://a.test/x?page=2&q=caf%C3%A9&flag'").template
    #expect(clean.url == "https://a.test/x")
    #expect(clean.query == JSONObject([("page", "2"), ("q", "café"), ("flag", nil)]))
  }

  @Test func rangeIsARangeHeader() throws {
    let t = try imported("curl -H 'X: 1' -r 0-99 https://a.test").template
    #expect(t.headers.fields.map(\.name) == ["Range", "X"])
    #expect(t.headers["Range"] == "bytes=0-99")
    #expect(try imported("curl --range -500 https://a.test").template.headers["Range"] == "bytes=-500")
    #expect(importError("curl -r bytes=1 https://a.test")?.contains("-r needs a byte range") == true)
  }

  @Test func aProxyIsTheRequestsProxy() throws {
    let t = try imported("curl -x http://proxy.test:3128 --noproxy localhost,.internal https://a.test").template
    #expect(t.proxy == "http://proxy.test:3128")
    #expect(t.noProxy == "localhost,.internal")
    #expect(try imported("curl --proxy proxy.test:8080 https://a.test").template.proxy == "proxy.test:8080")
    #expect(try imported("curl --proxy socks5h://127.0.0.1:1080 https://a.test").template.proxy == "socks5h://127.0.0.1:1080")
    #expect(importError("curl -x ftp://p.test https://a.test")?.contains("the proxy scheme ftp is not supported") == true)
  }
}
