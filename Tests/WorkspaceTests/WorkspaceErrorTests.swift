import Foundation
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

@Suite struct WorkspaceErrorTests {
  @Test func aSyntaxErrorPointsAtLineAndColumn() throws {
    let error = try #require(
      loadError(
        """
        {
          "version": 1,
          "requests": [
            {"name": "a", "url": "/x",}
          ]
        }
        """, file: "demo.json"))
    #expect(error.kind == .syntax)
    #expect(error.location == RequestEngine.SourceLocation(line: 4, column: 31))
    #expect(error.description == "demo.json:4:31: trailing comma before '}'")
  }

  @Test func aMissingQuotePointsAtTheWord() throws {
    let error = try #require(loadError("{\n  \"version\": 1,\n  \"name\": demo\n}"))
    #expect(
      error.description
        == "test.json:3:11: unexpected character 'd'; expected a value")
  }

  @Test func everySemanticErrorIsReportedInFileOrder() throws {
    let error = try #require(
      loadError(
        """
        {
          "version": 1,
          "agent": {"maxConcurrent": 0},
          "requests": [
            {"name": "a", "url": "/a", "method": "FE TCH"},
            {"name": "b"},
            {"name": "a", "url": "/c", "timeout": "soon"},
            {"name": "d", "url": "/d", "body": {"jsn": {}}, "validate": {"json": {"id": "nubmer"}}}
          ]
        }
        """, file: "demo.json"))
    #expect(error.kind == .invalid)
    #expect(
      error.description == """
        demo.json:3:30: agent.maxConcurrent: must be 1 or more, found 0
        demo.json:5:42: requests[0].method: "FE TCH" is not a method: a method is one word of letters, digits and !#$%&'*+-.^_`|~ (GET, POST, PURGE…)
        demo.json:6:5: requests[1]: missing "url"; write an absolute URL or a path relative to "baseURL"
        demo.json:7:14: requests[2].name: another request is already named "a" (requests[0]); names must be unique
        demo.json:7:43: requests[2].timeout: expected a number, found string
        demo.json:8:48: requests[3].body.jsn: unknown body kind "jsn"; use "json", "form", "text", "multipart" or "file"
        demo.json:8:81: requests[3].validate.json.id: unknown type "nubmer"; use one of string, number, bool, object, array, null, any
        """)
    #expect(error.location == RequestEngine.SourceLocation(line: 3, column: 30))
    #expect(error.message == "agent.maxConcurrent: must be 1 or more, found 0")
  }

  @Test func wrongTypesSayWhatWasExpectedAndFound() throws {
    let error = try #require(
      loadError(
        """
        {"version": 1, "name": 5, "variables": [], "requests": [
        {"name": "a", "url": 7, "headers": {"Accept": 1}, "query": [], "followRedirects": "yes",
         "maxRedirects": 2.5, "priority": "urgent", "retry": {"max": -1},
         "validate": {"status": [299, 200], "strict": "no"}}]}
        """))
    #expect(
      error.problems.map(\.description) == [
        "1:24: name: expected a string, found number",
        "1:40: variables: expected an object, found array",
        "2:22: requests[0].url: expected a string, found number",
        "2:47: requests[0].headers.Accept: expected a string, found number",
        "2:60: requests[0].query: expected an object, found array",
        "2:83: requests[0].followRedirects: expected true or false, found string",
        "3:18: requests[0].maxRedirects: expected a whole number, found 2.5",
        "3:35: requests[0].priority: unknown priority \"urgent\"; use one of high, normal, low",
        "3:62: requests[0].retry.max: must be 0 or more, found -1",
        "4:25: requests[0].validate.status: a status range is [low, high], found [299, 200]",
        "4:47: requests[0].validate.strict: expected true or false, found string",
      ])
  }

  @Test func aMissingVersionIsReported() throws {
    let error = try #require(loadError(#"{"requests": []}"#))
    #expect(
      error.description
        == #"test.json:1:1: missing "version"; add "version": 1 at the top (this build reads workspace version 1)"#
    )
  }

  @Test func aNewerVersionSaysWhichVersionsThisBuildReads() throws {
    let error = try #require(loadError(#"{"version": 2, "requests": 5}"#))
    #expect(
      error.description
        == "test.json:1:13: version: this build reads workspace version 1, not 2; update reqbench to open this file"
    )
    #expect(
      error.problems.count == 1, "nothing else is checked in a version this build cannot read")
  }

  @Test func theTopLevelMustBeAnObject() throws {
    let error = try #require(loadError("[1, 2]"))
    #expect(error.description == "test.json:1:1: expected an object, found array")
  }

  @Test func missingNameAndBadBodiesAndAuth() throws {
    let error = try #require(
      loadError(
        """
        {"version": 1, "requests": [
        {"url": "/a"},
        {"name": "b", "url": "/b", "body": {"json": 1, "form": {}}},
        {"name": "c", "url": "/c", "body": {"form": {"x": null}}, "auth": {"ntlm": {}}},
        {"name": "d", "url": "/d", "body": {"json": {}, "contentType": "x"}, "auth": {"basic": {"user": "u"}}},
        {"name": "e", "url": "/e?{{oops", "body": {}}
        ]}
        """))
    #expect(
      error.problems.map(\.description) == [
        #"2:1: requests[0]: missing "name"; every request needs a unique name"#,
        "3:36: requests[1].body: a body has one kind, found json and form; keep one of them",
        "4:51: requests[2].body.form.x: expected a string, number or boolean, found null",
        #"4:76: requests[2].auth.ntlm: unknown auth kind "ntlm"; use {"basic": {"user": …, "password": …}}, {"digest": {"user": …, "password": …}}, {"bearer": "token"} or {"oauth2": {"grant": …, "tokenURL": …, "clientId": …}}"#,
        #"5:64: requests[3].body.contentType: "contentType" applies to text and file bodies; for a json body set a Content-Type header instead"#,
        #"5:88: requests[3].auth.basic: missing "password""#,
        #"6:22: requests[4].url: "{{" has no closing "}}"; write a variable as {{name}}, two braces as {{'{{'}}"#,
        #"6:43: requests[4].body: the body has no kind; use {"json": …}, {"form": {…}}, {"text": "…"}, {"multipart": […]} or {"file": "path"}"#,
      ])
  }

  @Test func theSelectedEnvironmentMustExist() throws {
    let error = try #require(
      loadError(
        #"{"version": 1, "environment": "prod", "environments": {"local": {}, "staging": {}}}"#))
    #expect(
      error.description
        == #"test.json:1:31: environment: no environment named "prod" in "environments"; use one of local, staging"#
    )
  }

  @Test func anUnreadableFileNamesTheFile() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let missing = directory.appendingPathComponent("nope.json")
    do {
      _ = try Workspace.load(from: missing)
      Issue.record("loading a missing file succeeded")
    } catch {
      #expect(error.kind == .unreadable)
      #expect(error.location == nil)
      #expect(
        error.description == "\(missing.path): cannot read the workspace: No such file or directory"
      )
    }
  }

  @Test func loadReportsThePathAsGiven() throws {
    let directory = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    try Data("{\"version\": 3}".utf8).write(to: directory.appendingPathComponent("w.json"))
    let url = URL(fileURLWithPath: "w.json", relativeTo: URL(fileURLWithPath: directory.path + "/"))
    do {
      _ = try Workspace.load(from: url)
      Issue.record("loading version 3 succeeded")
    } catch {
      #expect(error.description.hasPrefix("w.json:1:13: version: this build reads"))
    }
  }
}
