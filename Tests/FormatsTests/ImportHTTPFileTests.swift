import Formats
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

private func http(_ text: String) throws -> ImportedRequests {
  try HTTPFileImporter.parse(text, file: "api.http")
}

private func httpError(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation)
  -> ImportError?
{
  do {
    _ = try HTTPFileImporter.parse(text, file: "api.http")
    Issue.record("expected the import to fail", sourceLocation: sourceLocation)
    return nil
  } catch {
    return error
  }
}

@Suite(".http import")
struct ImportHTTPFileTests {
  let file = """
    # The users API
    @host = https://api.test
    @api = {{host}}/v1
    @token = t0k3n

    ### get-user
    GET {{api}}/users/{{id}}?verbose=1 HTTP/1.1
    Accept: application/json
    Authorization: Bearer {{token}}

    ### Create a user
    # @name users/create
    POST {{api}}/users
    Content-Type: application/json
    // a comment between headers
    X-Trace: 1

    {
      "name": "Ada",
      "tags": ["a", "b"]
    }

    ###
    // @name search
    # @no-redirect
    # @timeout 5
    https://api.test/search
        ?q=caf%C3%A9
        &page=2

    ### login
    POST https://api.test/login
    Content-Type: application/x-www-form-urlencoded

    user=ada
    &pass=p%26ss

    ### note
    PUT https://api.test/notes/1
    Content-Type: text/markdown

    # Title

    Some *text*.

    <> 2024-05-01T120000.200.json
    """

  @Test func severalRequestsWithNamesHeadersAndBodies() throws {
    let imported = try http(file)
    #expect(
      imported.templates.map(\.name) == ["get-user", "users/create", "search", "login", "note"])
    #expect(imported.requests.map(\.location?.line) == [7, 13, 27, 32, 39])

    let get = imported.templates[0]
    #expect(get.method == .GET)
    #expect(get.url == "{{api}}/users/{{id}}")
    #expect(get.query == JSONObject([("verbose", "1")]))
    #expect(get.headers == ["Accept": "application/json", "Authorization": "Bearer {{token}}"])
    #expect(get.body == nil)

    let create = imported.templates[1]
    #expect(create.method == .POST)
    // Content-Type stays where it was written (before X-Trace); the body is sent as written.
    #expect(create.headers == ["Content-Type": "application/json", "X-Trace": "1"])
    #expect(create.body == .text("{\n  \"name\": \"Ada\",\n  \"tags\": [\"a\", \"b\"]\n}", contentType: nil))

    let search = imported.templates[2]
    #expect(search.method == .GET)
    #expect(search.url == "https://api.test/search")
    #expect(search.query == JSONObject([("q", "café"), ("page", "2")]))
    #expect(!search.followRedirects)
    #expect(search.timeout == 5)

    let login = imported.templates[3]
    #expect(login.body == .form(JSONObject([("user", "ada"), ("pass", "p&ss")])))
    #expect(login.headers.isEmpty)

    let note = imported.templates[4]
    #expect(note.body == .text("# Title\n\nSome *text*.", contentType: "text/markdown"))
  }

  @Test func fileVariablesBecomeVariablesWithEarlierOnesFilledIn() throws {
    let imported = try http(file)
    #expect(
      imported.variables == [
        Variable(name: "host", value: "https://api.test"),
        Variable(name: "api", value: "https://api.test/v1"),
        Variable(name: "token", value: "t0k3n"),
      ])
  }

  @Test func withoutANameTheMethodAndPathNameTheRequest() throws {
    let imported = try http(
      "GET https://api.test/orders/7\n\n###\nDELETE https://api.test/orders/7\n")
    #expect(imported.templates.map(\.name) == ["get-orders-7", "delete-orders-7"])
  }

  @Test func theClientsBasicAuthSpellingBecomesAuth() throws {
    let imported = try http(
      """
      GET https://a.test/1
      Authorization: Basic {{user}} {{pass}}

      ###
      GET https://a.test/2
      Authorization: Basic ada:pa ss

      ###
      GET https://a.test/3
      Authorization: Basic YWRhOnBhc3M=
      """)
    #expect(imported.templates[0].auth == .basic(user: "{{user}}", password: "{{pass}}"))
    #expect(imported.templates[0].headers.isEmpty)
    #expect(imported.templates[1].auth == .basic(user: "ada", password: "pa ss"))
    #expect(imported.templates[2].auth == nil)
    #expect(imported.templates[2].headers == ["Authorization": "Basic YWRhOnBhc3M="])
  }

  @Test func aBodyWithoutContentTypeIsText() throws {
    let t = try #require(try http("POST https://a.test\n\nhello\nworld\n\n\n").templates.first)
    #expect(t.body == .text("hello\nworld", contentType: nil))
  }

  @Test func crlfLinesAreRead() throws {
    let t = try #require(
      try http("POST https://a.test\r\nContent-Type: application/json\r\n\r\n{\"a\":1}\r\n")
        .templates.first)
    #expect(t.body == .json(["a": 1]))
  }

  @Test func malformedFilesAreReportedWithLineAndColumn() throws {
    #expect(
      httpError("GET https://a.test\nAccept application/json\n")?.description
        == "api.http:2:1: expected a header \"Name: value\" or a blank line before the body")
    #expect(
      httpError("### x\n  fetch https://a.test\n")?.description
        == "api.http:2:3: expected a request line \"METHOD URL\""
    )
    #expect(httpError("GET https://a.test/a b\n")?.location == SourceLocation(line: 1, column: 22))
    let noBlankLine = httpError("POST https://a.test\n\"a\": 1\n")
    #expect(noBlankLine?.location == SourceLocation(line: 2, column: 1))
    #expect(
      noBlankLine?.message.hasSuffix("leave a blank line between the headers and the body") == true)
    // httpyac reads a JSON body right after the headers, without the blank line.
    #expect(try http("POST https://a.test\nContent-Type: application/json\n{\"a\":1}\n").templates[0].body == .json(["a": 1]))
    #expect(
      httpError("@ bad name = 1\nGET https://a.test")?.location
        == SourceLocation(line: 1, column: 1))
    #expect(
      httpError("@novalue\nGET https://a.test")?.message
        == "expected a variable definition \"@name = value\"")
    #expect(
      httpError("# nothing here\n")?.description.hasPrefix("api.http:1:1: there is no request here")
        == true)
    #expect(
      httpError("GET https://a.test/{{$guid}}")?.location == SourceLocation(line: 1, column: 20))
  }

  @Test func fileBodiesMultipartBodiesAndDownloads() throws {
    let imported = try http(
      #"""
      ### upload
      POST https://a.test/upload
      Content-Type: multipart/form-data; boundary="XyZ"

      --XyZ
      Content-Disposition: form-data; name="note"

      hello
      second line
      --XyZ
      Content-Disposition: form-data; name="photo"; filename="me.png"
      Content-Type: image/png

      < ./img/a.png
      --XyZ
      Content-Disposition: form-data; name="doc \"1\""; filename="a.txt"

      < docs/a.txt
      --XyZ--

      ### put-file
      PUT https://a.test/blob
      Content-Type: application/zip

      < ./data/a.zip

      ### octets
      POST https://a.test/blob
      Content-Type: application/octet-stream

      < blob.bin

      ### fetch
      GET https://a.test/files/big.bin

      >>! downloads/big.bin
      """#)
    let t = imported.templates
    #expect(t.map(\.name) == ["upload", "put-file", "octets", "fetch"])
    // The multipart Content-Type goes: reqbench sends its own boundary.
    #expect(t[0].headers.isEmpty)
    #expect(
      t[0].body
        == .multipart([
          MultipartField(name: "note", value: "hello\nsecond line"),
          MultipartField(name: "photo", file: "./img/a.png", type: "image/png", filename: "me.png"),
          // The file's own name is what is sent anyway.
          MultipartField(name: #"doc "1""#, file: "docs/a.txt"),
        ]))
    #expect(t[1].body == .file("./data/a.zip", contentType: "application/zip"))
    #expect(t[1].headers.isEmpty)
    #expect(t[2].body == .file("blob.bin", contentType: nil))
    #expect(t[3].download == DownloadTemplate(to: "downloads/big.bin"))
    #expect(t[3].body == nil)
  }

  @Test func fileAndMultipartErrors() {
    let absolute = httpError("POST https://a.test\nContent-Type: application/json\n\n< /etc/body.json\n")
    #expect(
      absolute?.description
        == #"api.http:4:1: "/etc/body.json" is absolute; paths are relative to the workspace's folder; "#
        + "copy the file into the workspace's folder and write its path relative to that folder")
    #expect(
      httpError("POST https://a.test\n\n< ../body.json\n")?.message.contains("leaves the workspace's folder")
        == true)
    #expect(
      httpError("POST https://a.test\n\n<@ ./body.json\n")?.message.hasPrefix("<@ ./body.json: the file is read when") == true)
    #expect(
      httpError("POST https://a.test\n\n< a.json\nmore\n")?.location
        == SourceLocation(line: 4, column: 1))
    #expect(
      httpError("GET https://a.test\n\n>> /tmp/out.json\n")?.message.hasSuffix(
        "write a path inside the workspace's folder, such as downloads/file.bin") == true)
    let noBoundary = httpError(
      "POST https://a.test\nContent-Type: multipart/form-data\n\n--x\nContent-Disposition: form-data; name=\"a\"\n\nb\n--x--\n")
    #expect(noBoundary?.message.hasPrefix("a multipart/form-data body needs a boundary") == true)
    let noName = httpError(
      "POST https://a.test\nContent-Type: multipart/form-data; boundary=x\n\n--x\nContent-Type: text/plain\n\nb\n--x--\n")
    #expect(noName?.location == SourceLocation(line: 4, column: 1))
    #expect(noName?.message.hasPrefix("this part has no name") == true)
    let preamble = httpError(
      "POST https://a.test\nContent-Type: multipart/form-data; boundary=x\n\nname=a\n")
    #expect(preamble?.message == "expected --x, the line that starts a part")
    let absolutePart = httpError(
      "POST https://a.test\nContent-Type: multipart/form-data; boundary=x\n\n--x\nContent-Disposition: form-data; name=\"f\"\n\n< /a.png\n--x--\n")
    #expect(absolutePart?.location == SourceLocation(line: 7, column: 1))
  }

  @Test func aResponseScriptIsLeftOutAndItsRequestImported() throws {
    let imported = try http(
      "GET https://a.test\n\n> {%\n  client.global.set('t', response.body.token);\n%}\n")
    #expect(imported.templates.map(\.url) == ["https://a.test"])
    #expect(imported.templates[0].body == nil)
    #expect(imported.warnings.first?.hasPrefix("api.http:3:1: the response handler script is left out") == true)
  }

  /// A part of 100,000 lines (most of them blank) is read whole: reading it used to copy the part
  /// once a line (quadratic: 100 KB took 22 s), and blank lines before a body were dropped one by
  /// one from the front.
  @Test func aMultipartPartOfManyLinesIsReadWhole() throws {
    let lines = 100_000
    let text =
      "POST https://a.test/upload\nContent-Type: multipart/form-data; boundary=XX\n\n"
      + String(repeating: "\n", count: lines) + "--XX\nContent-Disposition: form-data; name=\"note\"\n\n"
      + "hello" + String(repeating: "\nx", count: lines) + "\n--XX--\n"
    let imported = try HTTPFileImporter.parse(text, file: "big.http")
    guard case .multipart(let fields)? = imported.requests.first?.template.body else {
      Issue.record("expected a multipart body")
      return
    }
    #expect(fields.map(\.name) == ["note"])
    let value = try #require(fields.first?.value)
    #expect(value.split(separator: "\n", omittingEmptySubsequences: false).count == lines + 1)
    #expect(value.hasPrefix("hello\nx\nx"))
  }
}
