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

  /// The server echoes the secret back in the body: history keeps the body masked (so its stored
  /// size differs from the received one) and the entry is still listed by a later process.
  @Test func anEchoedSecretIsKeptMaskedInHistoryAndListed() throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let ws = dir.appendingPathComponent("echo.json")
    try """
      {"version": 1, "requests": [{"name": "echo", "url": "\(try TestServer.fixture.url("/anything"))",
        "headers": {"X-Token": "{{secret.x}}"}}]}
      """.write(to: ws, atomically: true, encoding: .utf8)
    let secret = "echoed-\(uniqueKey())"
    let environment = ["REQBENCH_SECRET_X": secret]
    let run = try runProcess(try reqbenchBinary, ["run", ws.path, "echo"], environment: environment)
    #expect(run.status == 0, "\(run.stderr)")
    // The body is printed as received: the server did get the secret.
    #expect(try JSONParser.parse(run.stdout)["headers"]?["X-Token"]?.stringValue == secret)
    #expect(!run.stderr.contains(secret))

    let table = try runProcess(try reqbenchBinary, ["history", ws.path], environment: environment)
    #expect(table.status == 0, "\(table.stderr)")
    let rows = table.stdout.split(separator: "\n").map(String.init)
    #expect(rows.count == 2, "\(table.stdout)\(table.stderr)")
    #expect(rows.last?.contains(" echo ") == true && rows.last?.hasSuffix("  ok") == true)
    // Listed again by another process: the entry survived the first one's reading of the folder.
    let json = try runProcess(try reqbenchBinary, ["history", ws.path, "echo", "--json"])
    let entry = try JSONParser.parse(json.stdout)
    #expect(entry["bytes"]?.intValue == run.stdout.utf8.count)  // the size as received

    let files = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil)?
      .compactMap { $0 as? URL } ?? []
    var entryFiles = 0
    for file in files {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue
      else { continue }
      if file.pathExtension == "entry" { entryFiles += 1 }
      let contents = (try? Data(contentsOf: file)) ?? Data()
      #expect(!String(decoding: contents, as: UTF8.self).contains(secret), "\(file.path) holds the secret")
    }
    #expect(entryFiles == 1)
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
