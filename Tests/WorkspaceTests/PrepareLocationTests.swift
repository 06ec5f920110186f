import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

/// A request that cannot be built says where in the workspace file: the field that could not be
/// filled in, else the request.
@Suite struct PrepareLocationTests {
  let text = """
    {
      "version": 1,
      "baseURL": "http://{{host}}/",
      "defaults": {"headers": {"X-Team": "{{team}}"}},
      "requests": [
        {"name": "absolute", "url": "http://127.0.0.1/{{nope}}"},
        {"name": "header", "url": "http://127.0.0.1/x",
         "headers": {"X-Key": "{{secret.zz}}"}},
        {"name": "relative", "url": "users"},
        {"name": "download", "url": "http://127.0.0.1/f", "download": {"to": "{{dir}}/f.bin"}}
      ]
    }
    """

  func error(_ name: String, variables: [String: String] = [:]) throws -> PrepareError {
    let workspace = try Workspace.parse(Array(text.utf8), file: "api.json")
    return try #require(prepareError(workspace, name, variables: variables))
  }

  @Test func aRequestFieldPointsAtItsValue() throws {
    let url = try error("absolute")
    #expect(url.file == "api.json")
    #expect(url.location == SourceLocation(line: 6, column: 33))
    #expect(
      url.description
        == #"api.json:6:33: absolute: undefined variable {{nope}} in url; define it with --var nope=… or in "variables""#)
    #expect(url.locatedMessage.hasPrefix("api.json:6:33: undefined variable {{nope}}"))
    #expect(try error("header").location == SourceLocation(line: 8, column: 27))
    #expect(try error("download").location == SourceLocation(line: 10, column: 74))
  }

  @Test func aWorkspaceFieldPointsIntoTheWorkspace() throws {
    // The base URL's {{host}}, then the default header's {{team}}.
    #expect(try error("relative").location == SourceLocation(line: 3, column: 14))
    #expect(try error("relative", variables: ["host": "h"]).location == SourceLocation(line: 4, column: 38))
  }

  @Test func aRequestNotInTheFileHasNoLocation() throws {
    var workspace = try Workspace.parse(Array(text.utf8), file: "api.json")
    workspace.requests.append(RequestTemplate(name: "added", url: "http://127.0.0.1/{{nope}}"))
    let added = try #require(prepareError(workspace, "added"))
    #expect(added.location == nil)
    #expect(added.description.hasPrefix("added: undefined variable {{nope}}"))
    // Nor has a workspace that was never read from a file.
    let made = Workspace(name: "m", requests: [RequestTemplate(name: "r", url: "{{u}}")])
    #expect(try #require(prepareError(made, "r")).description.hasPrefix("r: undefined variable {{u}}"))
  }
}
