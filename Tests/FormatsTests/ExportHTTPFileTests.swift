import Formats
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

@Suite(".http export")
struct ExportHTTPFileTests {
  /// Request shapes the `.http` format can carry.
  let templates: [RequestTemplate] = [
    RequestTemplate(
      name: "users/get", url: "{{host}}/users/{{id}}",
      query: JSONObject([("verbose", "1"), ("q", "café & {{term}}"), ("flag", nil)]),
      headers: ["Accept": "application/json", "X-Trace": "{{trace}}"]),
    RequestTemplate(
      name: "users/create", method: .POST, url: "https://api.test/users",
      body: .json([
        "name": "O'Brien", "tags": ["a", "b"], "n": .number("1.50"), "note": "l1\nl2 ###",
      ])),
    RequestTemplate(
      name: "login", method: .POST, url: "https://api.test/login",
      body: .form(JSONObject([("user", "ada@example.com"), ("pass", "p&ss word={{pw}}")])),
      auth: .basic(user: "{{user}}", password: "pa:ss word")),
    RequestTemplate(
      name: "note", method: .PUT, url: "https://api.test/notes/1",
      body: .text("# Title\n\nSome *text*.", contentType: "text/markdown")),
    RequestTemplate(
      name: "plain text", method: .PATCH, url: "https://api.test/p",
      body: .text("hi", contentType: nil),
      timeout: 5, followRedirects: false),
    RequestTemplate(
      name: "gone", method: .DELETE, url: "/relative/{{id}}", headers: ["Accept": ""]),
    RequestTemplate(name: "probe", method: .HEAD, url: "https://api.test/"),
  ]

  @Test func exportThenImportGivesEqualTemplates() throws {
    let text = HTTPFileExporter.text(for: templates)
    let imported = try HTTPFileImporter.parse(text, file: "export.http")
    #expect(imported.templates.count == templates.count)
    for (original, read) in zip(templates, imported.templates) {
      #expect(read.name == original.name)
      #expect(read.method == original.method)
      #expect(read.url == original.url)
      #expect(read.query == original.query)
      #expect(read.headers == original.headers)
      #expect(read.body == original.body)
      #expect(read.auth == original.auth)
      #expect(read == original, "\(original.name)")
    }
  }

  @Test func fileMultipartAndDownloadsRoundTrip() throws {
    var fetch = RequestTemplate(name: "fetch", url: "https://api.test/files/{{file}}")
    fetch.download = DownloadTemplate(to: "downloads/")
    let upload = RequestTemplate(
      name: "upload", method: .POST, url: "https://api.test/upload",
      body: .multipart([
        MultipartField(name: "note", value: "hello\nsecond; line"),
        MultipartField(name: "typed", value: "{\"a\": 1}", type: "application/json"),
        MultipartField(name: "photo", file: "img/a.png", type: "image/png"),
        MultipartField(name: #"doc "1""#, file: "docs/a.txt", filename: "report final.txt"),
        MultipartField(name: "empty", value: ""),
      ]))
    let templates = [
      upload,
      RequestTemplate(
        name: "put-file", method: .PUT, url: "https://api.test/blob",
        body: .file("data/a.zip", contentType: "application/zip")),
      RequestTemplate(
        name: "post-file", method: .POST, url: "https://api.test/blob",
        body: .file("data/blob.bin", contentType: nil)),
      fetch,
    ]
    let text = HTTPFileExporter.text(for: templates)
    #expect(
      text.hasPrefix(
        #"""
        ### upload
        POST https://api.test/upload
        Content-Type: multipart/form-data; boundary=reqbench-boundary

        --reqbench-boundary
        Content-Disposition: form-data; name="note"

        hello
        second; line
        --reqbench-boundary
        Content-Disposition: form-data; name="typed"
        Content-Type: application/json

        {"a": 1}
        --reqbench-boundary
        Content-Disposition: form-data; name="photo"; filename="a.png"
        Content-Type: image/png

        < img/a.png
        --reqbench-boundary
        Content-Disposition: form-data; name="doc \"1\""; filename="report final.txt"

        < docs/a.txt
        --reqbench-boundary
        Content-Disposition: form-data; name="empty"


        --reqbench-boundary--

        ### put-file
        PUT https://api.test/blob
        Content-Type: application/zip

        < data/a.zip

        """#))
    #expect(text.hasSuffix("GET https://api.test/files/{{file}}\n\n>>! downloads/\n"))
    let imported = try HTTPFileImporter.parse(text, file: "export.http")
    #expect(imported.templates == templates)
  }

  /// Every field reqbench knows survives an export and an import (the `# @reqbench` line).
  @Test func aRequestWithEveryFieldRoundTrips() throws {
    var every = RequestTemplate(
      name: "api/everything", method: .POST, url: "https://api.test/items/{{id}}",
      query: JSONObject([("q", "{{term}}")]), headers: ["X-Trace": "{{trace}}"],
      body: .json(["name": "{{who}}"]), auth: .bearer("{{secret.token}}"), timeout: 12,
      deadline: 90, priority: .high,
      validation: Validation(status: [200...299, 404...404], strict: true, requireBody: true),
      retry: RetryPolicy(max: 3, baseDelay: 0.5), followRedirects: false, maxRedirects: 3,
      insecure: true, useCDN: true,
      cache: CachePolicy(seconds: 300, version: 2, sensitive: "{{user}}", ignore: ["ts"], revalidate: true),
      dedup: false)
    every.throttle = 1024
    every.tls = TLSSettings(caFile: "certs/ca.pem", pinnedPublicKey: "sha256//abc=")
    var fetch = RequestTemplate(name: "fetch", url: "https://api.test/f", priority: .low)
    fetch.download = DownloadTemplate(to: "downloads/f.bin", sha256: String(repeating: "a", count: 64), trustLength: true)
    let text = HTTPFileExporter.text(for: [every, fetch])
    #expect(text.contains("\n# @reqbench {"))
    let imported = try HTTPFileImporter.parse(text, file: "export.http")
    #expect(imported.templates.count == 2)
    #expect(imported.templates.first == every)
    #expect(imported.templates.last == fetch)
    // The file still reads as plain .http: the directive is a comment other clients skip.
    #expect(text.contains("POST https://api.test/items/{{id}}\n    ?q={{term}}\n"))
  }

  @Test func aBadReqbenchLineIsReportedWhereItIs() {
    #expect(throws: ImportError.self) {
      try HTTPFileImporter.parse("### a\n# @reqbench {\"priority\": \"urgent\"}\nGET https://a.test/\n", file: "x.http")
    }
  }

  @Test func theText() {
    let variables = [
      Variable(name: "host", value: "https://api.test"), Variable(name: "unused", value: "x"),
      Variable(name: "id", value: "1"), Variable(name: "host", value: "https://other.test"),
    ]
    #expect(
      HTTPFileExporter.text(for: [templates[0], templates[2], templates[4]], variables: variables)
        == """
        @id = 1
        @host = https://other.test

        ### users/get
        GET {{host}}/users/{{id}}
            ?verbose=1
            &q=caf%C3%A9%20%26%20{{term}}
            &flag
        Accept: application/json
        X-Trace: {{trace}}

        ### login
        POST https://api.test/login
        Authorization: Basic {{user}} pa:ss word
        Content-Type: application/x-www-form-urlencoded

        user=ada%40example.com&pass=p%26ss%20word%3D{{pw}}

        ### plain text
        # @no-redirect
        # @timeout 5
        PATCH https://api.test/p
        Content-Type: text/plain; charset=utf-8

        hi

        """)
  }

  @Test func variablesOfTheWorkspaceComeBackAsVariables() throws {
    let text = HTTPFileExporter.text(
      for: [templates[0]], variables: [Variable(name: "host", value: "https://api.test")])
    let imported = try HTTPFileImporter.parse(text, file: "export.http")
    #expect(imported.variables == [Variable(name: "host", value: "https://api.test")])
  }

  @Test func aLoadedWorkspaceRoundTrips() throws {
    let ws = try workspace(fullExample)
    let text = HTTPFileExporter.text(for: ws.requests, variables: ws.variables)
    let imported = try HTTPFileImporter.parse(text, file: "export.http")
    for (original, read) in zip(ws.requests, imported.templates) {
      #expect(read.name == original.name)
      #expect(read.method == original.method)
      #expect(read.url == original.url)
      // Bearer auth is written as its header and in the @reqbench line: it reads back as auth.
      #expect(read.headers == original.headers)
      #expect(read.auth == original.auth)
      #expect(read.body?.kind == original.body?.kind)
      #expect(read.followRedirects == original.followRedirects)
      #expect(read.timeout == original.timeout)
    }
    // Query values that are not strings come back as their text.
    #expect(imported.templates[0].query == JSONObject([("verbose", "1"), ("page", "2")]))
  }

  /// Text that holds `{{` without being a variable is written `{{'{{'}}` and read back as that
  /// text; a text with `{{` and no `}}` is read as the characters the editors send.
  @Test func literalBracesRoundTrip() throws {
    let template = RequestTemplate(
      name: "braces", method: .POST, url: "https://api.test/t?x={{'{{'}}y}}", headers: ["X-Tpl": "{{'{{'}}name}}"],
      body: .text("Hello {{'{{'}}name}} and {{who}}", contentType: "text/plain"))
    let text = HTTPFileExporter.text(for: [template])
    let read = try #require(try HTTPFileImporter.parse(text, file: "export.http").templates.first)
    #expect(read.headers == template.headers)
    #expect(read.body == template.body)
    #expect(try Template(read.url).render { _ in "" } == "https://api.test/t?x={{y}}")
    let open = try HTTPFileImporter.parse("POST https://a.test\nContent-Type: text/plain\n\n{{ not closed\n", file: "x.http")
    #expect(open.templates.first?.body == .text("{{'{{'}} not closed", contentType: "text/plain"))
  }
}
