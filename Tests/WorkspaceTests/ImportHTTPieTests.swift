import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace

/// `HTTPieImporter`: HTTPie's (and xh's) command lines as its documentation writes them, read
/// into requests the way HTTPie would send them; `RequestText` hands `http …` to it.
@Suite struct ImportHTTPieTests {
  func one(_ text: String) throws -> RequestTemplate {
    let imported = try HTTPieImporter.parse(text, file: "paste")
    #expect(imported.requests.count == 1)
    return try #require(imported.requests.first?.template)
  }

  func error(_ text: String) -> String {
    do {
      _ = try HTTPieImporter.parse(text, file: "paste")
      return "no error"
    } catch {
      return error.description
    }
  }

  @Test func itemsBecomeHeadersQueryAndAJSONBody() throws {
    let r = try one(#"http POST :3000/users?page=2 name=ada age:=36 admin:=true tags[]=a tags[]=b address[city]=London X-Trace:abc per==10 'X-Empty;'"#)
    #expect(r.method == .POST)
    #expect(r.url == "http://localhost:3000/users")
    #expect(r.query == JSONObject([("page", "2"), ("per", "10")]))
    #expect(r.headers["X-Trace"] == "abc" && r.headers["X-Empty"] == "")
    #expect(r.headers["Accept"] == "application/json, */*;q=0.5")
    #expect(
      r.body
        == .json(["name": "ada", "age": 36, "admin": true, "tags": ["a", "b"], "address": ["city": "London"]]))
    #expect(r.name == "post-users")
  }

  @Test func theMethodFollowsTheItemsAndTheSchemeTheProgram() throws {
    let get = try one("http example.org/status")
    #expect(get.method == .GET && get.url == "http://example.org/status" && get.body == nil)
    #expect(get.headers["Accept"] == nil, "no data: HTTPie's default Accept")
    #expect(try one("https api.test/users name=x").method == .POST)
    #expect(try one("https api.test/users name=x").url == "https://api.test/users")
    #expect(try one("xhs api.test/x").url == "https://api.test/x")
    #expect(try one("$ http :/health").url == "http://localhost/health")
    #expect(try one("http delete localhost:8080/users/1").method == .DELETE)
    #expect(try one("/usr/bin/http PUT {{baseURL}}/users/1 name=ada").url == "{{baseURL}}/users/1")
  }

  @Test func formsMultipartAndRaw() throws {
    let form = try one("http --form POST :3000/login user=ada 'note=a b'")
    #expect(form.body == .form(JSONObject([("user", "ada"), ("note", "a b")])))
    let upload = try one("http -f POST :3000/upload title=cv cv@files/cv.pdf 'photo@files/me.png;type=image/png'")
    #expect(
      upload.body
        == .multipart([
          MultipartField(name: "title", value: "cv"), MultipartField(name: "cv", file: "files/cv.pdf"),
          MultipartField(name: "photo", file: "files/me.png", type: "image/png"),
        ]))
    // A file item makes it multipart without --form, as HTTPie does.
    if case .multipart? = try one("http POST :3000/upload cv@cv.pdf").body {} else { Issue.record("not multipart") }
    let raw = try one(#"http --raw '{"a": [1, 2]}' POST :3000/x"#)
    #expect(raw.body == .json(["a": [1, 2]]))
  }

  @Test func authOptionsAndIgnoredOutputOptions() throws {
    #expect(try one("http -a ada:secret :3000/me").auth == .basic(user: "ada", password: "secret"))
    #expect(try one("http -A bearer -a tok-1 :3000/me").auth == .bearer("tok-1"))
    #expect(try one("http --auth-type=digest --auth=ada:pw :3000/me").auth == .digest(user: "ada", password: "pw"))
    let r = try one("http -v --pretty=all --print HBhb --timeout 2.5 --verify=no --follow --max-redirects 3 :3000/x")
    #expect(r.timeout == 2.5 && r.insecure && r.maxRedirects == 3)
  }

  @Test func mistakesSayWhatAndWhere() throws {
    #expect(error("http --proxy http:http://p :3000/x") == "paste:1:6: --proxy is not an HTTPie option reqbench can import; remove it to import the rest")
    // HTTPie's own rule: a first argument of letters is the method, in capitals.
    #expect(try one("http fEtch :3000/x").method.rawValue == "FETCH")
    #expect(error("http POST :3000/x 'age:=thirty'").contains("age:= takes JSON"))
    #expect(error("http POST :3000/x a=1 a[b]=2").contains("sets a field another item made a value of another type"))
    #expect(error("http POST :3000/x a[0]=1").contains("array indexes are not imported"))
    #expect(error("http POST :3000/x data=@body.json").contains("does not read a field's value from a file"))
    #expect(error("http POST :3000/x cv@/etc/passwd").hasPrefix("paste:1:19: cv@/etc/passwd:"))
    #expect(error("http :3000/x second-url").contains("is no request item"))
    #expect(error("http -a") == "paste:1:6: -a needs a value")
    #expect(error("http -v").contains("this HTTPie command has no URL"))
    #expect(error("http ftp://x/y").contains("only http and https URLs can be imported"))
  }

  /// `n` and a paste: `http …` is HTTPie's; its credentials move to the secrets file like a
  /// curl command's.
  @Test func requestTextHandsHTTPieCommandsToIt() throws {
    #expect(RequestText.kind(of: "http POST :3000/users name=ada") == .httpie)
    #expect(RequestText.kind(of: "xh :3000") == .httpie)
    #expect(RequestText.kind(of: "http://127.0.0.1/x") == .url)
    #expect(RequestText.kind(of: "curl http://x") == .curl)
    var imported = try RequestText.drafts(from: "http -A bearer -a tok-9 POST :3000/me name=ada").imported
    #expect(imported.requests[0].template.auth == .bearer("tok-9"))
    let moved = ImportedCredentials.extract(from: &imported, known: SecretsFile(), environment: [:])
    #expect(moved == [ImportedCredentials.Moved(name: "token", value: "tok-9")])
    #expect(imported.requests[0].template.auth == .bearer("{{secret.token}}"))
  }

  /// HTTPie's arguments typed without `http` at `n` (`POST :3000/users name=ada`): a request
  /// item after the URL says so; `METHOD URL HTTP/1.1` stays an `.http` request line, and an
  /// error points into the line as typed.
  @Test func itsArgumentsWithoutTheProgramAreReadAsHTTPieReadsThem() throws {
    #expect(RequestText.kind(of: "POST :3000/users name=ada age:=36") == .httpieArguments)
    #expect(RequestText.kind(of: "api.test/users X-Trace:abc") == .httpieArguments)
    #expect(RequestText.kind(of: "GET https://a.test/x HTTP/1.1") == .http)
    #expect(RequestText.kind(of: "POST :3000/users") == .methodAndURL)
    let typed = try #require(RequestText.drafts(from: "post :3000/users name=ada 'bio=a b' age:=36 X-Trace:abc").imported.requests.first)
    let command = try one("http post :3000/users name=ada 'bio=a b' age:=36 X-Trace:abc")
    #expect(typed.template == command)
    #expect(typed.template.body == .json(["name": "ada", "bio": "a b", "age": 36]))
    #expect(typed.location == SourceLocation(line: 1, column: 1))
    let get = try #require(RequestText.drafts(from: "127.0.0.1:8080/search q==reqbench").imported.templates.first)
    #expect(get.method == .GET && get.url == "http://127.0.0.1:8080/search" && get.query == JSONObject([("q", "reqbench")]))
    do {
      _ = try RequestText.drafts(from: "POST :3000/users name=ada =oops", source: "new request")
      Issue.record("no error")
    } catch {
      // The column of `=oops` in the line as typed.
      #expect(error.description == #"new request:1:27: "=oops" has no name before ="#)
    }
  }

  /// Real HTTPie (Debian's `httpie`) prints the request each command sends (`--offline`: nothing
  /// is sent); the imported request, prepared, sends the same method, path and query, headers
  /// and body (HTTPie's own defaults aside: its User-Agent, Accept-Encoding, Connection, and
  /// `Accept: */*`, which curl sends too).
  @Test(arguments: [
    "http POST :3000/users?page=2 name=ada age:=36 admin:=true tags[]=a tags[]=b address[city]=London X-Trace:abc per==10 'X-Empty;'",
    "http --form PUT :3000/login user=ada 'note=a&b c'",
    "http DELETE example.org/users/1 Authorization:Token-1 q==x",
    "http :3000/search q==reqbench limit==5 Accept:text/html",
    "https PATCH api.test/users/7 meta:='{\"n\": [1, 2]}' name=Ada",
  ])
  func theImportSendsWhatHTTPieItselfWould(_ command: String) throws {
    var words = try ShellWords.split(command)[0].map(\.text)
    let program = words.removeFirst()
    let printed = try runProcess(
      URL(fileURLWithPath: "/usr/bin/" + program), ["--ignore-stdin", "--offline", "--print=HB"] + words)
    #expect(printed.status == 0 && !printed.stdout.isEmpty, "\(printed.stdout)\(printed.stderr)")
    // The request line, the headers, a blank line, the body (CRLF as sent; "\r\n" is one
    // Character in Swift, so lines are split on the bytes).
    let output = printed.stdout.replacingOccurrences(of: "\r\n", with: "\n")
    let blank = try #require(output.range(of: "\n\n"), "\(output)")
    let body = String(output[blank.upperBound...]).trimmingCharacters(in: .newlines)
    let lines = output[..<blank.lowerBound].split(separator: "\n").map(String.init)
    #expect(lines.count >= 4, "\(output)")
    let requestLine = try #require(lines.first).split(separator: " ").map(String.init)

    let template = try one(command)
    var ws = try workspace(#"{"version": 1, "requests": []}"#)
    try ws.addRequest(template)
    let request = try ws.prepare(requestNamed: template.name)
    #expect(request.method.rawValue == requestLine[0])
    let parts = URLResolver.split(request.url)
    #expect(parts.path + (parts.query.map { "?" + $0 } ?? "") == requestLine[1], "\(request.url)")
    let ignored: Set<String> = ["user-agent", "accept-encoding", "connection", "content-length", "host", "content-type"]
    for line in lines.dropFirst() {
      let colon = try #require(line.firstIndex(of: ":"))
      let name = String(line[..<colon])
      let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
      if ignored.contains(name.lowercased()) || (name == "Accept" && value == "*/*") { continue }
      #expect(request.headers[name] == value, "\(name): \(value) (imported: \(request.headers[name] ?? "none"))")
    }
    let sentType = lines.first { $0.lowercased().hasPrefix("content-type:") }
    #expect(
      sentType.map { $0.dropFirst("content-type:".count).split(separator: ";")[0].trimmingCharacters(in: .whitespaces) }
        == request.body.contentType.map { $0.split(separator: ";")[0].trimmingCharacters(in: .whitespaces) })
    let sent = String(decoding: request.body.bytes, as: UTF8.self)
    switch template.body {
    case .json?:
      #expect(try JSONParser.parse(sent) == JSONParser.parse(body), "\(sent) against \(body)")
    case .form?:
      #expect(QueryDecoder.object(sent, form: true) == QueryDecoder.object(body, form: true), "\(sent) against \(body)")
    case nil:
      #expect(body.isEmpty && sent.isEmpty)
    default:
      Issue.record("a body this test does not compare: \(String(describing: template.body))")
    }
  }
}
