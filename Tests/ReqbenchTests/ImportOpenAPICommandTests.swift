import Foundation
import RequestEngine
import TestSupport
import Testing

/// `reqbench import openapi` through the real binary: the OAI petstore imported, then run
/// against the fixture server (what it received is checked), a re-import's report, and an
/// error that writes nothing.
@Suite("reqbench import openapi")
struct ImportOpenAPICommandTests {
  func copy(_ fixture: String, into folder: URL, named name: String? = nil) throws -> String {
    let path = folder.appendingPathComponent(name ?? fixture).path
    try Data(contentsOf: fixtureFile("openapi/\(fixture)")).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// The petstore round trip: each imported request reaches the server as the description says.
  @Test func theImportedPetstoreRunsAgainstTheFixtureServer() throws {
    let (ws, folder) = try workspaceFile(#"{"version": 1, "requests": []}"#, named: "pets.json")
    defer { try? FileManager.default.removeItem(at: folder) }
    let spec = try copy("petstore.yaml", into: folder)
    let imported = try runProcess(try reqbenchBinary, ["import", "openapi", spec, "--into", ws])
    #expect(imported.status == 0, "\(imported.stderr)")
    #expect(imported.stderr.contains("imported pets/listPets (GET {{baseURL}}/pets)"))
    #expect(imported.stderr.contains("added environments: petstore.swagger.io"))
    let base = try TestServer.fixture.url("/anything/v1")
    let vars = ["--var", "baseURL=\(base)", "--var", "petId=7", "--no-history"]

    let list = try runProcess(try reqbenchBinary, ["run", ws, "pets/listPets"] + vars)
    #expect(list.status == 0, "\(list.stderr)")
    let listed = try JSONParser.parse(list.stdout)
    #expect(listed["method"]?.stringValue == "GET")
    #expect(listed["path"]?.stringValue == "/anything/v1/pets")
    #expect(listed["rawQuery"]?.stringValue == "")  // limit is optional: switched off

    let create = try runProcess(try reqbenchBinary, ["run", ws, "pets/createPets"] + vars)
    #expect(create.status == 0, "\(create.stderr)")
    let created = try JSONParser.parse(create.stdout)
    #expect(created["method"]?.stringValue == "POST")
    #expect(try JSONParser.parse(created["body"]?.stringValue ?? "") == JSONParser.parse(#"{"id": 0, "name": "string"}"#))
    #expect(created["headers"]?["Content-Type"]?.stringValue?.hasPrefix("application/json") ?? false)

    let show = try runProcess(try reqbenchBinary, ["run", ws, "pets/showPetById"] + vars)
    #expect(show.status == 0, "\(show.stderr)")
    #expect(try JSONParser.parse(show.stdout)["path"]?.stringValue == "/anything/v1/pets/7")
  }

  @Test func aReimportReportsWhatChanged() throws {
    let (ws, folder) = try workspaceFile(#"{"version": 1, "requests": []}"#, named: "pets.json")
    defer { try? FileManager.default.removeItem(at: folder) }
    let spec = try copy("petstore.yaml", into: folder)
    #expect(try runProcess(try reqbenchBinary, ["import", "openapi", spec, "--into", ws]).status == 0)
    let text = try String(contentsOf: URL(fileURLWithPath: spec), encoding: .utf8)
    try text.replacingOccurrences(of: "  /pets/{petId}:", with: "  /v2/pets/{petId}:")
      .write(toFile: spec, atomically: true, encoding: .utf8)
    let again = try runProcess(try reqbenchBinary, ["import", "openapi", spec, "--into", ws])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stderr.contains("unchanged pets/listPets"))
    #expect(again.stderr.contains("updated pets/showPetById: url"))
    #expect(!again.stderr.contains("imported "))
    let workspace = try JSONParser.parse(try String(contentsOfFile: ws, encoding: .utf8))
    #expect(workspace["requests"]?.arrayValue?.count == 3)
  }

  /// A bad description is reported at FILE:LINE:COLUMN, and the workspace is not touched.
  @Test func anErrorWritesNothing() throws {
    let before = #"{"version": 1, "requests": [{"name": "keep", "url": "http://127.0.0.1:1/"}]}"#
    let (ws, folder) = try workspaceFile(before, named: "w.json")
    defer { try? FileManager.default.removeItem(at: folder) }
    let spec = folder.appendingPathComponent("spec.yaml").path
    try "openapi: 3.0.0\ninfo: {title: T, version: '1'}\npaths:\n  /pets:\n    get:\n      responses: nope\n"
      .write(toFile: spec, atomically: true, encoding: .utf8)
    let result = try runProcess(try reqbenchBinary, ["import", "openapi", spec, "--into", ws])
    #expect(result.status == 2)
    #expect(result.stderr.contains("spec.yaml:6:18: paths./pets.get.responses: expected an object, found the string \"nope\""))
    #expect(try String(contentsOfFile: ws, encoding: .utf8) == before)
    // Standard input, JSON, --tag.
    let json = try String(contentsOf: fixtureFile("openapi/uspto.json"), encoding: .utf8)
    let tagged = try runProcess(try reqbenchBinary, ["import", "openapi", "-", "--into", ws, "--tag", "metadata"], stdin: json)
    #expect(tagged.status == 0, "\(tagged.stderr)")
    #expect(tagged.stderr.contains("imported metadata/list-data-sets"))
    #expect(!tagged.stderr.contains("search/"))
    let misuse = try runProcess(try reqbenchBinary, ["import", "har", spec, "--into", ws, "--tag", "x"])
    #expect(misuse.status == 2 && misuse.stderr.contains("--tag is for import openapi"))
  }
}
