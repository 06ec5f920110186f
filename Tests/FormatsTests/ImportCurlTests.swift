// Over 500 lines because it is one suite: every curl option the importer reads, each beside the
// request it must make, so a new option's test sits with the others.
import Formats
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

/// Reads files from a dictionary instead of the disk.
private func files(_ contents: [String: String]) -> (String) throws(FileError) -> [UInt8] {
  { (path: String) throws(FileError) -> [UInt8] in
    guard let text = contents[path] else {
      throw FileError(
        path: path, message: "cannot read: No such file or directory",
        reason: "No such file or directory")
    }
    return Array(text.utf8)
  }
}

/// The one request a curl text imports to.
private func curl(
  _ text: String, files contents: [String: String] = [:],
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) throws -> RequestTemplate {
  let imported = try CurlImporter.parse(text, file: "paste.sh", readFile: files(contents))
  #expect(imported.requests.count == 1, sourceLocation: sourceLocation)
  return try #require(imported.requests.first, sourceLocation: sourceLocation).template
}

private func curlError(
  _ text: String, files contents: [String: String] = [:],
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> ImportError? {
  do {
    _ = try CurlImporter.parse(text, file: "paste.sh", readFile: files(contents))
    Issue.record("expected the import to fail", sourceLocation: sourceLocation)
    return nil
  } catch {
    return error
  }
}

private func headers(_ template: RequestTemplate) -> [String] {
  template.headers.fields.map { "\($0.name): \($0.value)" }
}

@Suite("curl import")
struct ImportCurlTests {
  // MARK: - Basics

  @Test func aBareURLIsAGetNamedAfterItsPath() throws {
    let t = try curl("curl https://api.test/v1/users/1")
    // Without --compressed curl asks for no compressed response, and neither does the request.
    var expected = RequestTemplate(name: "get-v1-users-1", url: "https://api.test/v1/users/1")
    expected.compressed = false
    #expect(t == expected)
    #expect(try curl("curl --compressed https://api.test/v1/users/1").compressed)
    #expect(try curl("curl --compressed --no-compressed https://api.test/v1/users/1").compressed == false)
  }

  @Test func theQuerySplitsOffInOrderWithDecodedValues() throws {
    let t = try curl("curl 'https://api.test/search?q=caf%C3%A9&page=2&flag#frag'")
    #expect(t.url == "https://api.test/search")
    #expect(t.query == JSONObject([("q", "café"), ("page", "2"), ("flag", nil)]))
  }

  @Test func aQueryThatDoesNotDecodeCleanlyStaysInTheURL() throws {
    #expect(try curl("curl 'https://a.test/x?a=1&a=2'").url == "https://a.test/x?a=1&a=2")
    #expect(try curl("curl 'https://a.test/x?q=a+b'").url == "https://a.test/x?q=a+b")
    #expect(try curl("curl 'https://a.test/x?bad=%zz'").query.isEmpty)
  }

  @Test func aURLWithoutSchemeIsHTTPAsCurlAssumes() throws {
    #expect(try curl("curl localhost:8080/health").url == "http://localhost:8080/health")
    #expect(
      curlError("curl ftp://files.test/a")?.message
        == "only http and https URLs can be imported, found ftp:")
  }

  @Test func theMethodIsExplicitElsePostWithDataElseGet() throws {
    #expect(try curl("curl -X put https://a.test").method == .PUT)
    #expect(try curl("curl --request DELETE https://a.test").method == .DELETE)
    #expect(try curl("curl -XPATCH https://a.test -d x").method == .PATCH)
    #expect(try curl("curl https://a.test -d x").method == .POST)
    #expect(try curl("curl -I https://a.test").method == .HEAD)
    #expect(try curl("curl --head https://a.test").method == .HEAD)
    #expect(try curl("curl https://a.test").method == .GET)
    // Any method, spelled as written (curl sends -X as it is).
    #expect(try curl("curl -X PROPFIND https://a.test").method.rawValue == "PROPFIND")
    #expect(try curl("curl -X wHat https://a.test").method.rawValue == "wHat")
    let error = curlError("curl -X 'PROP FIND' https://a.test")
    #expect(error?.location == SourceLocation(line: 1, column: 9))
    #expect(error?.message.hasPrefix("\"PROP FIND\" is not a method") == true)
  }

  // MARK: - Headers

  @Test func headersKeepTheirOrderAndSpelling() throws {
    let t = try curl(#"curl https://a.test -H 'X-One: 1' -H"x-two:  2 " --header 'Accept:'"#)
    #expect(headers(t) == ["X-One: 1", "x-two: 2", "Accept: "])
  }

  @Test func repeatedHeadersJoinAndAWrittenCookieWinsOverTheCookieOption() throws {
    // curl sends a Cookie header of -H's and then none of its -b cookies.
    let t = try curl(
      "curl https://a.test -H 'Accept: a' -H 'accept: b' -b 'a=1' --cookie 'b=2' -H 'Cookie: c=3'")
    #expect(headers(t) == ["accept: a, b", "Cookie: c=3"])
    // Several -b join with `;`, as curl joins them.
    #expect(headers(try curl("curl https://a.test -b 'a=1' -b 'b=2'")) == ["Cookie: a=1;b=2"])
  }

  @Test func contentLengthIsLeftOutAndAcceptEncodingSentAsWritten() throws {
    let t = try curl(
      "curl https://a.test -H 'Accept-Encoding: gzip, deflate, br' -H 'Content-Length: 3' -H 'A: b'"
    )
    #expect(headers(t) == ["Accept-Encoding: gzip, deflate, br", "A: b"])
  }

  @Test func userAgentRefererAndCookieOptionsAreHeaders() throws {
    let t = try curl(
      "curl https://a.test -A 'agent/1' -e 'https://from.test/;auto' -b 'sid=1; x=2'")
    // In curl's own order, before the -H headers: User-Agent, Referer, Cookie.
    #expect(
      headers(t) == ["User-Agent: agent/1", "Referer: https://from.test/", "Cookie: sid=1; x=2"])
    // An explicit header wins over the option, as in curl.
    #expect(headers(try curl("curl https://a.test -A a -H 'User-Agent: b'")) == ["User-Agent: b"])
  }

  @Test func badHeadersAreErrors() throws {
    #expect(
      curlError("curl https://a.test -H 'no colon'")?.message
        == #"-H needs "Name: value", found "no colon""#)
    // `Name;` sends an empty header; `Name:` removes one curl adds and leaves any other unsent.
    #expect(try headers(curl("curl https://a.test -H 'X-Empty;' -H 'X-Gone:' -H 'Accept:'")) == ["X-Empty: ", "Accept: "])
    #expect(
      curlError("curl https://a.test -H 'Accept;'")?.message.contains("sends Accept with an empty value") == true)
    #expect(
      curlError("curl https://a.test -H 'bad name: x'")?.message
        == #""bad name" is not a valid header name"#)
    #expect(
      curlError("curl https://a.test -H @headers.txt")?.location
        == SourceLocation(line: 1, column: 24))
    #expect(
      curlError("curl https://a.test -b cookies.txt")?.message.contains("reads cookies from a file")
        == true)
  }

  // MARK: - Bodies

  @Test func urlencodedDataBecomesAForm() throws {
    let t = try curl("curl https://a.test/login -d 'user=ada%40x.test' -d 'pass=a%20b%26c'")
    #expect(t.method == .POST)
    #expect(t.body == .form(JSONObject([("user", "ada@x.test"), ("pass", "a b&c")])))
    #expect(t.headers.isEmpty)
    // Data a form body would send otherwise (`+`, a quote reqbench encodes) is text, as written.
    #expect(
      try curl(#"curl https://a.test -d 'pass=a+b' -d 'foo="bar"'"#).body
        == .text(#"pass=a+b&foo="bar""#, contentType: "application/x-www-form-urlencoded"))
  }

  @Test func dataThatIsNotACleanFormStaysTextWithCurlsContentType() throws {
    let t = try curl(#"curl https://a.test -d '{"title":"x"}'"#)
    #expect(t.body == .text(#"{"title":"x"}"#, contentType: "application/x-www-form-urlencoded"))
    #expect(
      try curl("curl https://a.test -d 'a=1&a=2'").body
        == .text("a=1&a=2", contentType: "application/x-www-form-urlencoded"))
  }

  @Test func aJSONContentTypeMakesAJSONBodyAndTheRestatedHeaderGoes() throws {
    let t = try curl(
      #"curl https://a.test -H 'Content-Type: application/json' -d '{"n":1.0,"s":"x"}'"#)
    #expect(t.body == .json(["n": .number("1.0"), "s": "x"]))
    #expect(t.headers.isEmpty)
    // JSON text a JSON body would send otherwise (spaces, escapes) is text of that type.
    let spaced = try curl(
      #"curl https://a.test -H 'Content-Type: application/json' -d '{"n": 1, "s": "\u00e9"}'"#)
    #expect(spaced.body == .text(#"{"n": 1, "s": "\u00e9"}"#, contentType: "application/json"))
    #expect(spaced.headers.isEmpty)
    // A Content-Type followed by other headers stays where it is, so the order sent is kept.
    let before = try curl(#"curl https://a.test -H 'Content-Type: application/json' -H 'X: 1' -d '[1]'"#)
    #expect(before.body == .json([1]))
    #expect(headers(before) == ["Content-Type: application/json", "X: 1"])
    // A content type that says more than the body kind stays as a header.
    let charset = try curl(
      #"curl https://a.test -H 'content-type: application/json; charset=utf-8' -d '[1]'"#)
    #expect(charset.body == .json([1]))
    #expect(headers(charset) == ["content-type: application/json; charset=utf-8"])
    // JSON that does not parse is text of that type.
    let broken = try curl(#"curl https://a.test -H 'Content-Type: application/json' -d '{nope'"#)
    #expect(broken.body == .text("{nope", contentType: "application/json"))
    #expect(broken.headers.isEmpty)
  }

  @Test func otherContentTypesMakeTextBodies() throws {
    let t = try curl(
      "curl -X PUT https://a.test -H 'Content-Type: text/csv' --data-binary $'a,b\\n1,2'")
    #expect(t.body == .text("a,b\n1,2", contentType: "text/csv"))
    #expect(t.headers.isEmpty)
  }

  @Test func theJSONOptionSetsContentTypeAndAccept() throws {
    let t = try curl(#"curl --json '{"a":[1,2]}' https://a.test/items"#)
    #expect(t.method == .POST)
    #expect(t.body == .json(["a": [1, 2]]))
    // After the -H headers, as curl adds them.
    #expect(headers(t) == ["Content-Type: application/json", "Accept: application/json"])
    // The Content-Type, last, goes into the JSON body, which sends it there.
    #expect(headers(try curl("curl --json '{}' -H 'Accept: text/plain' https://a.test")) == ["Accept: text/plain"])
    #expect(try curl("curl --json 'nope' https://a.test").body == .text("nope", contentType: nil))
    #expect(try curl(#"curl --json '{"a": 1}' https://a.test"#).body == .text(#"{"a": 1}"#, contentType: nil))
  }

  @Test func dataOptionsReadFilesTheWayCurlDoes() throws {
    let contents = ["body.txt": "a=1\r\n&b=2\n", "raw.bin": "line1\nline2\n"]
    // Among several data options, -d @file drops carriage returns and newlines; --data-binary
    // keeps every byte.
    #expect(
      try curl("curl https://a.test -d @body.txt -d c=3", files: contents).body
        == .form(JSONObject([("a", "1"), ("b", "2"), ("c", "3")])))
    #expect(
      try curl(
        "curl https://a.test -H 'Content-Type: text/plain' --data-binary @raw.bin --data-binary x",
        files: contents
      ).body
        == .text("line1\nline2\n&x", contentType: "text/plain"))
    // --data-raw never reads a file.
    #expect(
      try curl("curl https://a.test --data-raw @raw.bin", files: contents).body
        == .text("@raw.bin", contentType: "application/x-www-form-urlencoded"))
    let missing = curlError("curl https://a.test \\\n  -d @nope.json -d a=1")
    #expect(
      missing?.description
        == "paste.sh:2:6: -d @nope.json: cannot read the file: No such file or directory")
    #expect(
      curlError("curl https://a.test --data-binary @-")?.message.contains("standard input") == true)
  }

  @Test func dataUrlencodeInAllItsForms() throws {
    let t = try curl(
      """
      curl https://a.test -H 'Content-Type: text/plain' \\
        --data-urlencode 'name=a b&c' --data-urlencode '=x/y' --data-urlencode 'plain é' \\
        --data-urlencode @msg.txt --data-urlencode 'file@msg.txt'
      """, files: ["msg.txt": "hi there\n"])
    #expect(
      t.body
        == .text(
          "name=a+b%26c&x%2Fy&plain+%C3%A9&hi+there%0A&file=hi+there%0A",
          contentType: "text/plain"))
  }

  @Test func getMovesTheDataIntoTheQuery() throws {
    let t = try curl(
      "curl -G 'https://a.test/search?lang=en' -d q=swift --data-urlencode 'tag=a b'")
    #expect(t.method == .GET)
    #expect(t.body == nil)
    // Appended as curl 7.88 appends it (a space is `+`), and kept in the URL as written.
    #expect(t.url == "https://a.test/search?lang=en&q=swift&tag=a+b")
    #expect(t.query.isEmpty)
  }

  // MARK: - Multipart, file bodies, downloads

  @Test func formOptionsBecomeAMultipartBodyInOrder() throws {
    let t = try curl(
      #"""
      curl https://a.test/upload -H 'Content-Type: multipart/form-data' \
        -F 'note=hello world ' -F 'photo=@img/a.png;type=image/png' \
        -F 'doc=@"docs/a;b.txt";filename="r,1.txt"' --form-string 'raw=@not-a-file;type=x' \
        -F 'msg=<msg.txt;type=text/markdown' -F 'q="a;b \"c\"";type=text/plain; charset=utf-8' \
        --form "f2=@$DIR/x.bin"
      """#, files: ["msg.txt": "# hi\n"])
    #expect(t.method == .POST)
    #expect(t.name == "post-upload")
    // The engine writes its own multipart Content-Type, with its boundary.
    #expect(t.headers.isEmpty)
    #expect(
      t.body
        == .multipart([
          MultipartField(name: "note", value: "hello world"),
          MultipartField(name: "photo", file: "img/a.png", type: "image/png"),
          MultipartField(name: "doc", file: "docs/a;b.txt", filename: "r,1.txt"),
          MultipartField(name: "raw", value: "@not-a-file;type=x"),
          // `<file`: a text field whose value curl reads from the file, read at import.
          MultipartField(name: "msg", value: "# hi\n", type: "text/markdown"),
          MultipartField(name: "q", value: #"a;b "c""#, type: "text/plain; charset=utf-8"),
          MultipartField(name: "f2", file: "{{DIR}}/x.bin"),
        ]))
    #expect(try curl("curl -X PUT https://a.test -F a=b").method == .PUT)
  }

  @Test func formErrorsNameTheOptionAndSayWhatToDo() {
    let absolute = curlError("curl https://a.test/upload -F 'file=@/tmp/a.png'")
    #expect(absolute?.location == SourceLocation(line: 1, column: 31))
    #expect(
      absolute?.message
        == #"-F "file=@/tmp/a.png": "/tmp/a.png" is absolute; paths are relative to the workspace's folder; "#
        + "copy the file into the workspace's folder and write its path relative to that folder")
    #expect(
      curlError("curl https://a.test -F 'f=@../a.png'")?.message.contains(
        #""../a.png" leaves the workspace's folder"#) == true)
    #expect(
      curlError("curl https://a.test -F 'f=@~/a.png'")?.message.contains("is absolute") == true)
    #expect(
      curlError("curl https://a.test -F 'a=x;y'")?.message
        == #"-F "a=x;y": curl would drop ";y" (it reads ;type= and ;filename=); to send a ';' in a "#
        + "value, write the value in double quotes, or use --form-string")
    #expect(
      curlError("curl https://a.test -F 'f=@a.png,b.png'")?.message.hasSuffix(
        "several files in one -F are not supported; write one -F per file") == true)
    #expect(
      curlError("curl https://a.test -F novalue")?.message.hasPrefix("-F needs name=value") == true)
    #expect(curlError("curl https://a.test -F 'f=@-'")?.message.contains("standard input") == true)
    #expect(
      curlError("curl https://a.test -F 'h=x;headers=X-A: 1'")?.message.hasSuffix(
        "headers= is not supported; remove it to import the rest") == true)
    #expect(
      curlError("curl https://a.test -F 'm=<nope.txt'")?.message.hasSuffix(
        "cannot read the file: No such file or directory") == true)
    let twoBodies = curlError("curl https://a.test -d a=1 -F 'f=@a.png'")
    #expect(twoBodies?.location == SourceLocation(line: 1, column: 28))
    #expect(
      twoBodies?.message == "-F and -d both set the body, and a request has one; keep one of them")
    #expect(curlError("curl -G https://a.test -F a=b")?.message.hasPrefix("-G moves data") == true)
  }

  @Test func oneFileDataOptionOrAnUploadIsAFileBody() throws {
    // curl's form type, unless a Content-Type header says otherwise (the header goes).
    let binary = try curl("curl https://a.test/blobs --data-binary @data/blob.bin")
    #expect(binary.method == .POST)
    #expect(binary.body == .file("data/blob.bin", contentType: "application/x-www-form-urlencoded"))
    let json = try curl("curl https://a.test -H 'Content-Type: application/json' --data-binary @body.json")
    #expect(json.body == .file("body.json", contentType: "application/json"))
    #expect(json.headers.isEmpty)
    // -d @file drops the file's CR and LF, as curl does: read at import.
    #expect(
      try curl("curl https://a.test -d @body.txt", files: ["body.txt": "a=1\r\n&b=2\n"]).body
        == .form(JSONObject([("a", "1"), ("b", "2")])))
    // -T: PUT, octet-stream, and a URL ending in / gets the file's name.
    let upload = try curl("curl -T 'isos/my disk.iso' https://a.test/up/")
    #expect(upload.method == .PUT)
    #expect(upload.url == "https://a.test/up/my%20disk.iso")
    #expect(upload.body == .file("isos/my disk.iso", contentType: nil))
    // curl sends no Content-Type with -T: an empty one keeps the file body's own out.
    #expect(headers(upload) == ["Content-Type: "])
    let post = try curl(
      "curl -X POST --upload-file x.bin -H 'Content-Type: image/png' https://a.test/x")
    #expect(post.method == .POST)
    #expect(post.body == .file("x.bin", contentType: "image/png"))

    #expect(
      curlError("curl https://a.test --data-binary @/etc/passwd")?.description
        == #"paste.sh:1:35: --data-binary @/etc/passwd: "/etc/passwd" is absolute; paths are relative "#
        + "to the workspace's folder; copy the file into the workspace's folder and write its path "
        + "relative to that folder")
    #expect(
      curlError("curl https://a.test -T /tmp/x.bin")?.message.hasPrefix(
        #"-T /tmp/x.bin: "/tmp/x.bin" is absolute"#) == true)
    #expect(curlError("curl https://a.test -T -")?.message.contains("standard input") == true)
    #expect(
      curlError("curl https://a.test -T a.bin -d x=1")?.message
        == "-d and -T both set the body, and a request has one; keep one of them")
  }

  @Test func outputOptionsBecomeADownload() throws {
    #expect(
      try curl("curl -o out/users.json https://a.test/users").download
        == DownloadTemplate(to: "out/users.json"))
    #expect(
      try curl("curl -C - --output big.iso https://a.test/big.iso").download
        == DownloadTemplate(to: "big.iso"))
    // -O: named after the URL, in downloads/.
    #expect(
      try curl("curl -O https://a.test/files/big.iso").download
        == DownloadTemplate(to: "downloads/"))
    #expect(
      try curl("curl -sLO https://a.test/files/big.iso").download
        == DownloadTemplate(to: "downloads/"))
    // Standard output and /dev/null keep nothing.
    #expect(try curl("curl -o - https://a.test").download == nil)
    #expect(try curl("curl -o /dev/null -w '%{http_code}' https://a.test").download == nil)

    let absolute = curlError("curl https://a.test -o /tmp/out.json")
    #expect(absolute?.location == SourceLocation(line: 1, column: 24))
    #expect(
      absolute?.message
        == #"-o /tmp/out.json: "/tmp/out.json" is absolute; paths are relative to the workspace's "#
        + "folder; write a path inside the workspace's folder, such as downloads/file.bin")
    #expect(
      curlError("curl https://a.test -o x -C 100")?.message
        == "-C 100: reqbench resumes a download from the bytes on disk by itself; write -C - or "
        + "leave it out")
  }

  @Test func importedStreamsSurviveASaveAndLoad() throws {
    let t = try curl(
      "curl https://a.test/u -F 'a=b;type=text/plain' -F 'f=@x/y.png;filename=z.png' -o out/r.json")
    var ws = Workspace(name: "w")
    _ = try ws.addImported(ImportedRequests(requests: [ImportedRequest(template: t, location: nil)]))
    let loaded = try #require(try workspace(text(ws.encoded())).requests.first)
    #expect(loaded.body == t.body)
    // -o on a POST is dropped: only GET downloads resume (a resume is a Range request).
    #expect(t.download == nil && loaded.download == nil)
  }

  @Test func aGetWithABodyIsImportedWithAWarning() throws {
    let imported = try CurlImporter.parse("curl -X GET https://a.test -d a=1", file: "paste.sh")
    #expect(imported.requests.first?.template.body == .form(JSONObject([("a", "1")])))
    #expect(
      imported.warnings == [
        "the GET request at paste.sh:1:1 has a body, which reqbench does not send with GET"
      ])
  }

  // MARK: - Auth, TLS, redirects, timeouts

  @Test func userBecomesBasicAuth() throws {
    #expect(
      try curl("curl -u 'ada:s3:cr et' https://a.test").auth
        == .basic(user: "ada", password: "s3:cr et"))
    #expect(try curl("curl --user key: https://a.test").auth == .basic(user: "key", password: ""))
    #expect(try curl("curl --oauth2-bearer tok https://a.test").auth == .bearer("tok"))
    #expect(
      curlError("curl -u ada https://a.test")?.message.hasPrefix("-u needs user:password") == true)
  }

  @Test func insecureRedirectsAndTimeouts() throws {
    let t = try curl(
      "curl -k -L --max-redirs 3 --max-time 12.5 --connect-timeout 4 --retry 2 https://a.test")
    #expect(t.insecure)
    #expect(t.followRedirects)
    #expect(t.maxRedirects == 3)
    #expect(t.deadline == 12.5)
    #expect(t.timeout == 4)
    #expect(t.retry == RetryPolicy(max: 2))
    #expect(
      curlError("curl -m soon https://a.test")?.message
        == #"-m needs a number of seconds above 0, found "soon""#)
  }

  /// Browsers' copies never carry -L, and the browser did follow: reqbench keeps following.
  @Test func withoutLocationRedirectsAreStillFollowed() throws {
    let t = try curl("curl https://a.test")
    #expect(t.followRedirects)
    #expect(t.maxRedirects == 10)
  }

  // MARK: - Options

  @Test func outputOnlyOptionsAreIgnored() throws {
    let t = try curl(
      "curl -s -S -v -i -f -N -# --silent --show-error --verbose --include --fail --no-progress-meter "
        + "-o - -w '%{http_code}' -D - --trace-ascii t.txt --compressed -g --http2 https://a.test"
    )
    #expect(t == RequestTemplate(name: "get-a.test", url: "https://a.test"))
  }

  @Test func shortOptionsCombineAndTakeAttachedValues() throws {
    let t = try curl("curl -sSLk -XPOST -H'X-A: 1' -dkey=value -uuser:pw https://a.test")
    #expect(t.method == .POST)
    #expect(t.insecure)
    #expect(headers(t) == ["X-A: 1"])
    #expect(t.body == .form(JSONObject([("key", "value")])))
    #expect(t.auth == .basic(user: "user", password: "pw"))
    // A value-taking letter in the middle takes the next word.
    #expect(try curl("curl -sX PUT https://a.test").method == .PUT)
  }

  @Test func theURLOptionAndDoubleDash() throws {
    #expect(try curl("curl --url https://a.test/x").url == "https://a.test/x")
    #expect(try curl("curl -s -- https://a.test/y").url == "https://a.test/y")
  }

  @Test func anUnsupportedOptionIsAnErrorNamingItAndWhereItIs() {
    let error = curlError("curl https://api.test/x \\\n  -H 'a: b' \\\n  --frobnicate")
    #expect(
      error?.description
        == "paste.sh:3:3: --frobnicate is not a curl option; remove it to import the rest"
    )
    #expect(curlError("curl -sSZ https://a.test")?.location == SourceLocation(line: 1, column: 9))
    #expect(
      curlError("curl --ntlm -u a:b https://a.test")?.message.hasPrefix("--ntlm (NTLM authentication)")
        == true)
    #expect(
      curlError("curl --anyauth https://a.test")?.message
        == "--anyauth is a curl option reqbench cannot import; remove it to import the rest")
    #expect(
      curlError("curl --request=POST https://a.test")?.message
        == "curl takes an option's value as the next word: write --request 'POST'")
    #expect(curlError("curl https://a.test -H")?.message == "-H needs a value")
  }

  // MARK: - Commands

  @Test func severalCommandsAreSeveralRequests() throws {
    let imported = try CurlImporter.parse(
      """
      # list, then create
      curl https://a.test/items
      curl https://a.test/items \\
        -d name=x
      $ curl -X DELETE https://a.test/items/1; curl https://a.test/items/2
      """, file: "paste.sh")
    #expect(
      imported.templates.map(\.name) == [
        "get-items", "post-items", "delete-items-1", "get-items-2",
      ])
    #expect(
      imported.requests.map(\.location) == [
        .init(line: 2, column: 1), .init(line: 3, column: 1), .init(line: 5, column: 3),
        .init(line: 5, column: 42),
      ])
  }

  @Test func commandErrors() {
    #expect(
      curlError("")?.description
        == "paste.sh:1:1: there is no curl command here; paste a command that starts with curl")
    #expect(
      curlError("wget https://a.test")?.description
        == #"paste.sh:1:1: expected a curl command, found "wget"; every command must start with curl"#
    )
    #expect(curlError("curl -s")?.message == "this curl command has no URL")
    #expect(
      curlError("curl https://a.test https://b.test")?.location
        == SourceLocation(line: 1, column: 21))
    #expect(
      curlError("curl 'https://a.test/{{$guid}}'")?.message.hasPrefix(
        "this request would not load in a workspace: url: ") == true)
  }

  // MARK: - Real copies

  @Test func chromeCopyAsCurl() throws {
    let t = try curl(
      #"""
      curl 'https://api.example.com/v1/orders?status=open&page=2' \
        -H 'accept: application/json, text/plain, */*' \
        -H 'accept-language: en-US,en;q=0.9,fr;q=0.8' \
        -H 'authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig' \
        -H 'content-type: application/json' \
        -b '_ga=GA1.1.123; session=s%3Aabc' \
        -H 'origin: https://app.example.com' \
        -H 'priority: u=1, i' \
        -H 'referer: https://app.example.com/orders' \
        -H 'sec-ch-ua: "Chromium";v="124", "Google Chrome";v="124", "Not-A.Brand";v="99"' \
        -H 'sec-ch-ua-mobile: ?0' \
        -H 'sec-ch-ua-platform: "Linux"' \
        -H 'sec-fetch-dest: empty' \
        -H 'sec-fetch-mode: cors' \
        -H 'sec-fetch-site: same-site' \
        -H 'user-agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36' \
        --data-raw $'{"note":"O\'Brien\'s order","lines":["a\\nb"],"emoji":"\\ud83d\\ude00","qty":2}' \
        --compressed
      """#)
    #expect(t.name == "post-v1-orders")
    #expect(t.method == .POST)
    #expect(t.url == "https://api.example.com/v1/orders")
    #expect(t.query == JSONObject([("status", "open"), ("page", "2")]))
    #expect(t.compressed)
    #expect(
      headers(t) == [
        "Cookie: _ga=GA1.1.123; session=s%3Aabc",
        "accept: application/json, text/plain, */*",
        "accept-language: en-US,en;q=0.9,fr;q=0.8",
        "authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig",
        "content-type: application/json",
        "origin: https://app.example.com",
        "priority: u=1, i",
        "referer: https://app.example.com/orders",
        #"sec-ch-ua: "Chromium";v="124", "Google Chrome";v="124", "Not-A.Brand";v="99""#,
        "sec-ch-ua-mobile: ?0",
        #"sec-ch-ua-platform: "Linux""#,
        "sec-fetch-dest: empty",
        "sec-fetch-mode: cors",
        "sec-fetch-site: same-site",
        "user-agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36",
      ])
    // The JSON as written, its \u escapes included.
    #expect(
      t.body
        == .text(#"{"note":"O'Brien's order","lines":["a\nb"],"emoji":"\ud83d\ude00","qty":2}"#, contentType: nil))
  }

  @Test func firefoxCopyAsCurl() throws {
    let t = try curl(
      "curl 'https://api.example.com/v1/login' -X POST -H 'User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0' -H 'Accept: */*' -H 'Accept-Language: en-US,en;q=0.5' -H 'Accept-Encoding: gzip, deflate, br' -H 'Content-Type: application/x-www-form-urlencoded' -H 'Origin: https://app.example.com' -H 'Connection: keep-alive' -H 'Referer: https://app.example.com/login' -H 'Cookie: csrftoken=abc123' -H 'Sec-Fetch-Dest: empty' -H 'Sec-Fetch-Mode: cors' -H 'Sec-Fetch-Site: same-origin' -H 'TE: trailers' --data-raw 'username=ada%40example.com&password=p%26ss+word&remember=on'"
    )
    #expect(t.name == "post-v1-login")
    #expect(t.method == .POST)
    #expect(
      t.body == .text("username=ada%40example.com&password=p%26ss+word&remember=on", contentType: nil))
    #expect(
      headers(t) == [
        "User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0",
        "Accept: */*", "Accept-Language: en-US,en;q=0.5", "Accept-Encoding: gzip, deflate, br",
        "Content-Type: application/x-www-form-urlencoded", "Origin: https://app.example.com",
        "Connection: keep-alive", "Referer: https://app.example.com/login",
        "Cookie: csrftoken=abc123", "Sec-Fetch-Dest: empty", "Sec-Fetch-Mode: cors",
        "Sec-Fetch-Site: same-origin", "TE: trailers",
      ])
  }

  @Test func apiDocsWithContinuationsAndEnvironmentVariables() throws {
    let imported = try CurlImporter.parse(
      #"""
      # Create a charge
      curl https://api.payments.test/v1/charges \
        -u "$PAYMENTS_KEY:" \
        -d amount=2000 \
        -d currency=usd \
        -d "description=Charge for ada@example.com"

      # Fetch it
      curl https://api.payments.test/v1/charges/ch_1 \
        -H "Authorization: Bearer ${PAYMENTS_KEY}"
      """#, file: "docs.sh")
    #expect(imported.requests.count == 2)
    let create = imported.templates[0]
    #expect(create.name == "post-v1-charges")
    #expect(create.auth == .basic(user: "{{PAYMENTS_KEY}}", password: ""))
    // Sent as written: a form body would encode the space and the `@`.
    #expect(
      create.body
        == .text(
          "amount=2000&currency=usd&description=Charge for ada@example.com",
          contentType: "application/x-www-form-urlencoded"))
    let fetch = imported.templates[1]
    #expect(fetch.name == "get-v1-charges-ch_1")
    #expect(headers(fetch) == ["Authorization: Bearer {{PAYMENTS_KEY}}"])
  }

  @Test func githubDocsStyle() throws {
    let t = try curl(
      #"""
      curl -L \
        -X POST \
        -H "Accept: application/vnd.github+json" \
        -H "Authorization: Bearer <YOUR-TOKEN>" \
        -H "X-GitHub-Api-Version: 2022-11-28" \
        https://api.github.com/repos/OWNER/REPO/issues \
        -d '{"title":"Found a bug","body":"I'\''m having a problem with this."}'
      """#)
    #expect(t.name == "post-OWNER-REPO-issues")
    // No Content-Type: curl sends its form type, so does the import (the body is not a form).
    #expect(
      t.body
        == .text(
          #"{"title":"Found a bug","body":"I'm having a problem with this."}"#,
          contentType: "application/x-www-form-urlencoded"))
    #expect(t.headers.count == 3)
  }
}
