import Formats
import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

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
    // The URL and query as HTTPie sends them, the body as json.dumps writes it, HTTPie's headers
    // in its order (HTTPieConformanceTests sends them).
    #expect(r.url == "http://localhost:3000/users?page=2&per=10")
    #expect(r.query == JSONObject())
    #expect(r.headers.fields.map(\.name) == ["Connection", "Accept", "Content-Type", "X-Trace", "X-Empty"])
    #expect(r.headers["X-Trace"] == "abc" && r.headers["X-Empty"] == "")
    #expect(r.headers["Accept"] == "application/json, */*;q=0.5")
    #expect(
      r.body
        == .text(#"{"name": "ada", "age": 36, "admin": true, "tags": ["a", "b"], "address": {"city": "London"}}"#, contentType: nil))
    #expect(r.name == "post-users")
  }

  @Test func theMethodFollowsTheItemsAndTheSchemeTheProgram() throws {
    let get = try one("http example.org/status")
    #expect(get.method == .GET && get.url == "http://example.org/status" && get.body == nil)
    #expect(get.headers["Accept"] == "*/*" && get.headers["Connection"] == "keep-alive", "no data: HTTPie's default Accept")
    #expect(try one("https api.test/users name=x").method == .POST)
    #expect(try one("https api.test/users name=x").url == "https://api.test/users")
    #expect(try one("xhs api.test/x").url == "https://api.test/x")
    #expect(try one("$ http :/health").url == "http://localhost/health")
    #expect(try one("http delete localhost:8080/users/1").method == .DELETE)
    #expect(try one("/usr/bin/http PUT {{baseURL}}/users/1 name=ada").url == "{{baseURL}}/users/1")
  }

  @Test func formsMultipartAndRaw() throws {
    let form = try one("http --form POST :3000/login user=ada 'note=a b'")
    #expect(form.body == .text("user=ada&note=a+b", contentType: nil))
    #expect(form.headers["Content-Type"] == "application/x-www-form-urlencoded; charset=utf-8")
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
    #expect(raw.body == .text(#"{"a": [1, 2]}"#, contentType: nil) && raw.headers["Content-Type"] == "application/json")
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
    #expect(error("http POST :3000/x data=@body.json").contains("does not read a value from a file at import (HTTPie's =@)"))
    #expect(error("http :3000/x q==@q.txt").contains("(HTTPie's ==@)"))
    #expect(error("http :3000/x X-Data:@h.txt").contains("(HTTPie's :@)"))
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
    #expect(typed.template.body == .text(#"{"name": "ada", "bio": "a b", "age": 36}"#, contentType: nil))
    #expect(typed.location == SourceLocation(line: 1, column: 1))
    let get = try #require(RequestText.drafts(from: "127.0.0.1:8080/search q==reqbench").imported.templates.first)
    #expect(get.method == .GET && get.url == "http://127.0.0.1:8080/search?q=reqbench")
    do {
      _ = try RequestText.drafts(from: "POST :3000/users name=ada =oops", source: "new request")
      Issue.record("no error")
    } catch {
      // The column of `=oops` in the line as typed.
      #expect(error.description == #"new request:1:27: "=oops" has no name before ="#)
    }
  }
}
