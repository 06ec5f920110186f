import Foundation
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

/// Changing a body's type or an auth type keeps what can be kept, and a save writes only that.
@Suite struct BodyAndAuthKindTests {
  func request(_ body: BodyTemplate?, headers: HTTPHeaders = [:]) -> RequestTemplate {
    RequestTemplate(name: "r", method: .POST, url: "/r", headers: headers, body: body)
  }

  func converted(_ body: BodyTemplate?, to kind: BodyKind, file: String? = nil) throws -> BodyTemplate? {
    var template = request(body)
    try template.setBodyKind(kind, file: file)
    #expect(template.bodyKind == kind)
    return template.body
  }

  @Test func toJSON() throws {
    #expect(try converted(nil, to: .json) == .json([:]))
    #expect(try converted(.text(#" {"a": [1, 2]} "#, contentType: nil), to: .json) == .json(["a": [1, 2]]))
    #expect(try converted(.text("not json", contentType: nil), to: .json) == .json("not json"))
    #expect(try converted(.text("", contentType: "text/plain"), to: .json) == .json([:]))
    #expect(try converted(.form(JSONObject([("a", "1"), ("n", 2)])), to: .json) == .json(["a": "1", "n": 2]))
    #expect(
      try converted(.multipart([MultipartField(name: "note", value: "hi"), MultipartField(name: "f", file: "a.png")]), to: .json)
        == .json(["note": "hi"]))
    #expect(try converted(.file("a.bin", contentType: nil), to: .json) == .json([:]))
  }

  @Test func toForm() throws {
    #expect(try converted(nil, to: .form) == .form(JSONObject()))
    #expect(
      try converted(.json(["a": "x", "n": 1, "ok": true, "list": [1, 2], "nil": nil]), to: .form)
        == .form(JSONObject([("a", "x"), ("n", 1), ("ok", true), ("list", "[1,2]"), ("nil", "")])))
    #expect(try converted(.json([1, 2]), to: .form) == .form(JSONObject()))
    #expect(try converted(.text("a=1&b=x%20y", contentType: nil), to: .form) == .form(JSONObject([("a", "1"), ("b", "x y")])))
    #expect(try converted(.multipart([MultipartField(name: "note", value: "hi")]), to: .form) == .form(JSONObject([("note", "hi")])))
  }

  @Test func toMultipart() throws {
    #expect(try converted(nil, to: .multipart) == .multipart([]))
    #expect(
      try converted(.form(JSONObject([("a", "1"), ("n", 2)])), to: .multipart)
        == .multipart([MultipartField(name: "a", value: "1"), MultipartField(name: "n", value: "2")]))
    #expect(
      try converted(.file("data/a.png", contentType: "image/png"), to: .multipart)
        == .multipart([MultipartField(name: "file", file: "data/a.png", type: "image/png")]))
  }

  @Test func toText() throws {
    #expect(try converted(nil, to: .text) == .text("", contentType: nil))
    #expect(try converted(.json(["a": 1]), to: .text) == .text("{\n  \"a\": 1\n}", contentType: "application/json"))
    #expect(
      try converted(.form(JSONObject([("a", "x y"), ("b", "&")])), to: .text)
        == .text("a=x%20y&b=%26", contentType: "application/x-www-form-urlencoded"))
  }

  /// What is sent stays the same bytes and type when JSON or a form becomes text.
  @Test func textFromJSONOrAFormSendsTheSame() throws {
    let ws = Workspace(name: "w", baseURL: "http://127.0.0.1:1/")
    for body: BodyTemplate in [.json(["a": [1, "x"]]), .form(JSONObject([("a", "x y"), ("n", 3)]))] {
      var template = request(body)
      let before = try ws.prepare(template).body
      try template.setBodyKind(.text)
      let after = try ws.prepare(template).body
      #expect(after.contentType == before.contentType)
      if case .json(let value) = body {
        #expect(try JSONParser.parse(after.bytes) == value)
      } else {
        #expect(after.bytes == before.bytes)
      }
    }
  }

  @Test func toFileNeedsAPath() throws {
    #expect(throws: WorkspaceEditError("a file body needs the file's path, relative to the workspace's folder")) {
      try converted(nil, to: .file)
    }
    #expect(throws: WorkspaceEditError("a file body needs the file's path, relative to the workspace's folder")) {
      try converted(.json([:]), to: .file)
    }
    #expect(throws: WorkspaceEditError("\"/etc/passwd\" is absolute; paths are relative to the workspace's folder")) {
      try converted(.json([:]), to: .file, file: "/etc/passwd")
    }
    #expect(try converted(.json([:]), to: .file, file: "data/a.bin") == .file("data/a.bin", contentType: nil))
    #expect(try converted(.text("x", contentType: "text/csv"), to: .file, file: "a.csv") == .file("a.csv", contentType: "text/csv"))
    #expect(
      try converted(.multipart([MultipartField(name: "f", file: "a.png", type: "image/png")]), to: .file)
        == .file("a.png", contentType: "image/png"))
    #expect(try converted(.file("a.bin", contentType: nil), to: .file, file: "b.bin") == .file("b.bin", contentType: nil))
    #expect(try converted(.json([:]), to: .none) == nil)
  }

  @Test func aContentTypeHeaderGoesForKindsThatSendTheirOwn() throws {
    var template = request(.text("a", contentType: nil), headers: ["Content-Type": "text/plain", "Accept": "*/*"])
    try template.setBodyKind(.text)
    #expect(template.headers["Content-Type"] == "text/plain")
    try template.setBodyKind(.json)
    #expect(template.headers == ["Accept": "*/*"])
  }

  @Test func aChangedBodyTypeIsTheOnlyChangeInTheFile() throws {
    let original = """
      {"version": 1, "requests": [
        {"name": "r", "method": "POST", "url": "/r", "body": {"form": {"a": "1"}}, "x-note": "kept"}
      ]}
      """
    var ws = try workspace(original)
    try ws.modifyRequest(named: "r") { try? $0.setBodyKind(.json) }
    #expect(text(ws.encoded()) == original.replacingOccurrences(of: #"{"form": {"a": "1"}}"#, with: #"{"json": {"a": "1"}}"#))
    try ws.modifyRequest(named: "r") { try? $0.setBodyKind(.form) }
    #expect(text(ws.encoded()) == original)
  }

  @Test func aTypedJSONTextBecomesAJSONBody() {
    #expect(BodyTemplate.typed(#"{"name": "Ada"}"# + "\n") == .json(["name": "Ada"]))
    #expect(BodyTemplate.typed("  [1, 2]\n\n") == .json([1, 2]))
    // Not an object or array, or not JSON: text, without the editor's last line break.
    #expect(BodyTemplate.typed("hello\n") == .text("hello", contentType: nil))
    #expect(BodyTemplate.typed("a\nb\r\n") == .text("a\nb", contentType: nil))
    #expect(BodyTemplate.typed("42\n") == .text("42", contentType: nil))
    #expect(BodyTemplate.typed(#"{"broken": "#) == .text(#"{"broken": "#, contentType: nil))
    #expect(BodyTemplate.typed(" \n") == nil)
  }

  @Test func authKinds() {
    var template = request(nil)
    #expect(template.authKind == .none)
    template.setAuthKind(.basic)
    #expect(template.auth == .basic(user: "", password: ""))
    template.auth = .basic(user: "ada", password: "{{secret.pw}}")
    template.setAuthKind(.digest)
    #expect(template.auth == .digest(user: "ada", password: "{{secret.pw}}"))
    template.setAuthKind(.basic)
    #expect(template.auth == .basic(user: "ada", password: "{{secret.pw}}"))
    template.setAuthKind(.bearer)
    #expect(template.auth == .bearer(""))
    template.auth = .bearer("{{token}}")
    template.setAuthKind(.bearer)
    #expect(template.auth == .bearer("{{token}}"))
    template.setAuthKind(.none)
    #expect(template.auth == nil)
  }

  @Test func anAuthTypeChangeIsTheOnlyChangeInTheFile() throws {
    let original = #"{"version": 1, "requests": [{"name": "r", "url": "/r", "auth": {"basic": {"user": "ada", "password": "p"}}}]}"#
    var ws = try workspace(original)
    try ws.modifyRequest(named: "r") { $0.setAuthKind(.digest) }
    #expect(text(ws.encoded()) == original.replacingOccurrences(of: #"{"basic""#, with: #"{"digest""#))
    #expect(try workspace(text(ws.encoded())).requests[0].auth == .digest(user: "ada", password: "p"))
  }
}
