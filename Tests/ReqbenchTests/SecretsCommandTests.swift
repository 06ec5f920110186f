import Foundation
import RequestEngine
import TestSupport
import Testing

/// `reqbench secrets` and secrets in `reqbench run`, through the real binary.
@Suite("reqbench secrets")
struct SecretsCommandTests {
  func folder() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("rb-sec-" + uniqueKey())
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
  }

  @Test func aSecretIsSentButNeverWrittenOrPrinted() throws {
    let dir = try folder()
    let ws = dir.appendingPathComponent("api.json")
    let text = """
      {"version": 1, "baseURL": "\(try TestServer.fixture.baseURL)",
       "requests": [{"name": "me", "url": "/anything?token={{secret.token}}",
                     "headers": {"Authorization": "Bearer {{secret.token}}"}}]}
      """
    try text.write(to: ws, atomically: true, encoding: .utf8)
    let secret = "s3cr3t-\(uniqueKey())"
    let set = try runProcess(try reqbenchBinary, ["secrets", "set", ws.path, "token"], stdin: secret + "\n")
    #expect(set.status == 0, "\(set.stderr)")
    #expect(set.stderr.contains("saved secret token"))

    let list = try runProcess(try reqbenchBinary, ["secrets", "ls", ws.path])
    #expect(list.stdout == "token = ••••\n")

    let run = try runProcess(try reqbenchBinary, ["run", ws.path, "me", "--json"])
    #expect(run.status == 0, "\(run.stderr)")
    // The server got the real value…
    let finished = try #require(run.stdout.split(separator: "\n").last)
    #expect(!finished.contains(secret))
    #expect(finished.contains("token=••••"))
    // …and nothing the app wrote or printed holds it, except the secrets file.
    #expect(!run.stderr.contains(secret))
    #expect(try String(contentsOf: ws, encoding: .utf8) == text)
    let secretsFile = dir.appendingPathComponent("api.secrets.json")
    #expect(try String(contentsOf: secretsFile, encoding: .utf8).contains(secret))
    let files = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil)?
      .compactMap { $0 as? URL } ?? []
    for file in files where file.path != secretsFile.path {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
      let contents = (try? Data(contentsOf: file)) ?? Data()
      #expect(!String(decoding: contents, as: UTF8.self).contains(secret), "\(file.path) holds the secret")
    }

    // The body (the server's echo) is shown as received: it is the server's data.
    let single = try runProcess(try reqbenchBinary, ["run", ws.path, "me"])
    let echo = try JSONParser.parse(single.stdout)
    #expect(echo["headers"]?["Authorization"]?.stringValue == "Bearer \(secret)")
  }

  @Test func theEnvironmentWinsOverTheSecretsFile() throws {
    let dir = try folder()
    let ws = dir.appendingPathComponent("w.json")
    try """
      {"version": 1, "requests": [{"name": "r", "url": "\(try TestServer.fixture.url("/anything"))",
        "headers": {"X-Key": "{{secret.api-key}}"}}]}
      """.write(to: ws, atomically: true, encoding: .utf8)
    let run = try runProcess(
      try reqbenchBinary, ["run", ws.path, "r"], environment: ["REQBENCH_SECRET_API_KEY": "from-env"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(try JSONParser.parse(run.stdout)["headers"]?["X-Key"] == "from-env")
  }

  @Test func usageErrors() throws {
    let missing = try runProcess(try reqbenchBinary, ["secrets", "set", "/nonexistent.json", "x"], stdin: "v")
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("no such workspace file"))
    let noAction = try runProcess(try reqbenchBinary, ["secrets"])
    #expect(noAction.status == 2)
    #expect(noAction.stderr.contains("reqbench secrets set WORKSPACE NAME"))
  }
}
