import Foundation
import RequestEngine
import TestSupport
import Testing

/// `reqbench secrets` and secrets in `reqbench run`, through the real binary.
@Suite("reqbench secrets")
struct SecretsCommandTests {
  func folder() throws -> URL {
    let dir = scratchURL("rb-sec")
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
    let events = run.stdout.split(separator: "\n").map(String.init)
    #expect(events.count >= 4)  // queued, started, finished, summary
    let finished = try #require(events.last)
    #expect(finished.contains("token=••••"))
    #expect(events.first?.contains(#""event":"queued""#) == true)
    #expect(events.first?.contains("token=••••") == true)
    // Nothing the app printed or wrote holds it, except the secrets file.
    for line in events + run.stderr.split(separator: "\n").map(String.init) {
      #expect(!line.contains(secret), "printed: \(line)")
    }
    // The exchange is in the history, masked.
    let history = try runProcess(try reqbenchBinary, ["history", ws.path, "--json"])
    #expect(history.status == 0, "\(history.stderr)")
    let entries = history.stdout.split(separator: "\n").map(String.init)
    #expect(entries.count == 1)
    #expect(entries.first?.contains(#""name":"me""#) == true)
    #expect(entries.first?.contains("token=••••") == true)
    #expect(!history.stdout.contains(secret) && !history.stderr.contains(secret))
    #expect(try String(contentsOf: ws, encoding: .utf8) == text)
    let secretsFile = dir.appendingPathComponent("api.secrets.json")
    #expect(try String(contentsOf: secretsFile, encoding: .utf8).contains(secret))
    let files = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil)?
      .compactMap { $0 as? URL } ?? []
    for file in files where file.path != secretsFile.path {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
      let contents = try Data(contentsOf: file)
      #expect(!String(decoding: contents, as: UTF8.self).contains(secret), "\(file.path) holds the secret")
    }

    // The body (the server's echo) is shown as received: it is the server's data.
    let single = try runProcess(try reqbenchBinary, ["run", ws.path, "me"])
    let echo = try JSONParser.parse(single.stdout)
    #expect(echo["headers"]?["Authorization"]?.stringValue == "Bearer \(secret)")
  }

  /// A secret inside an environment variable's value (`"auth": "Bearer {{secret.token}}"`) is
  /// sent, and masked in --json output, history and exported curl commands like any other.
  @Test func aSecretInsideAVariableIsSentAndMasked() throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let ws = dir.appendingPathComponent("nested.json")
    try """
      {"version": 1, "baseURL": "{{host}}", "environment": "local",
       "environments": {"local": {"host": "\(try TestServer.fixture.baseURL)", "auth": "Bearer {{secret.token}}"}},
       "requests": [{"name": "me", "url": "/anything", "headers": {"Authorization": "{{auth}}"}}]}
      """.write(to: ws, atomically: true, encoding: .utf8)
    let secret = "nested-\(uniqueKey())"
    let environment = ["REQBENCH_SECRET_TOKEN": secret]
    let plain = try runProcess(try reqbenchBinary, ["run", ws.path, "me"], environment: environment)
    #expect(plain.status == 0, "\(plain.stderr)")
    #expect(try JSONParser.parse(plain.stdout)["headers"]?["Authorization"]?.stringValue == "Bearer \(secret)")
    let run = try runProcess(try reqbenchBinary, ["run", ws.path, "me", "--json"], environment: environment)
    #expect(run.status == 0, "\(run.stderr)")
    let history = try runProcess(try reqbenchBinary, ["history", ws.path, "--json"], environment: environment)
    #expect(history.status == 0 && history.stdout.contains(#""name":"me""#), "\(history.stdout)")
    let export = try runProcess(try reqbenchBinary, ["export", "curl", ws.path, "me"], environment: environment)
    #expect(export.status == 0, "\(export.stderr)")
    #expect(export.stdout.contains("Bearer ••••") || export.stdout.contains("{{secret.token}}"), "\(export.stdout)")
    for output in [run.stdout, run.stderr, history.stdout, history.stderr, export.stdout, export.stderr] {
      #expect(!output.contains(secret), "printed: \(output)")
    }
    let files = FileManager.default.enumerator(at: dir, includingPropertiesForKeys: nil)?
      .compactMap { $0 as? URL } ?? []
    for file in files {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue
      else { continue }
      let contents = String(decoding: try Data(contentsOf: file), as: UTF8.self)
      #expect(!contents.contains(secret), "\(file.path) holds the secret")
    }
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
    var databases = 0
    for file in files {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory), !isDirectory.boolValue
      else { continue }
      if file.lastPathComponent == "history.sqlite" { databases += 1 }
      let contents = try Data(contentsOf: file)
      #expect(!String(decoding: contents, as: UTF8.self).contains(secret), "\(file.path) holds the secret")
    }
    #expect(databases == 1)
  }

  /// A secret in the host name: curl's error message quotes it; every surface masks it. The
  /// `.localhost` name resolves to the loopback address inside curl (no DNS), and port 1 is
  /// closed, so the attempt fails at once, is retried once, then fails.
  @Test func errorMessagesAreMasked() throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let ws = dir.appendingPathComponent("down.json")
    try """
      {"version": 1, "requests": [
        {"name": "down", "url": "http://zz{{secret.host}}zz.localhost:1/x",
         "retry": {"max": 1, "delay": 0}},
        {"name": "also-down", "url": "http://zz{{secret.host}}zz.localhost:1/y"}]}
      """.write(to: ws, atomically: true, encoding: .utf8)
    let secret = "host\(uniqueKey())".lowercased()
    let environment = ["REQBENCH_SECRET_HOST": secret]

    let json = try runProcess(try reqbenchBinary, ["run", ws.path, "down", "--json"], environment: environment)
    #expect(json.status == 1, "\(json.stderr)")
    let events = try json.stdout.split(separator: "\n").map { try JSONParser.parse(String($0)) }
    let retrying = try #require(events.first { $0["event"] == "retrying" })
    #expect(retrying["reason"]?.stringValue?.contains("zz••••zz.localhost") == true, "\(retrying)")
    let finished = try #require(events.first { $0["event"] == "finished" })
    #expect(finished["error"]?["kind"] == "transport")
    #expect(finished["error"]?["message"]?.stringValue?.contains("zz••••zz.localhost") == true, "\(finished)")
    #expect(finished["url"]?.stringValue == "http://zz••••zz.localhost:1/x")

    let single = try runProcess(try reqbenchBinary, ["run", ws.path, "down"], environment: environment)
    #expect(single.status == 1)
    #expect(single.stderr.contains("down: failed: cannot connect"))
    #expect(single.stderr.contains("zz••••zz.localhost"))
    let lines = try runProcess(try reqbenchBinary, ["run", ws.path, "down", "also-down"], environment: environment)
    #expect(lines.stdout.split(separator: "\n").count == 2)
    #expect(lines.stdout.contains("zz••••zz.localhost"))
    let history = try runProcess(try reqbenchBinary, ["history", ws.path, "--json"])
    #expect(history.stdout.contains("zz••••zz.localhost"))

    for result in [json, single, lines, history] {
      for line in (result.stdout + "\n" + result.stderr).split(separator: "\n") {
        #expect(!line.contains(secret), "printed: \(line)")
      }
    }
  }

  /// A cached request with the secret in its URL and a header, and a server that sends it back in
  /// a response header, on the first response and on the 304 that renews the entry: the cache's
  /// metadata files (`cache/*.json`) never hold it. (The body files keep the body as received.)
  @Test func cacheMetadataNeverHoldsASecret() throws {
    let dir = try folder()
    defer { try? FileManager.default.removeItem(at: dir) }
    let ws = dir.appendingPathComponent("cached.json")
    let key = uniqueKey()
    try """
      {"version": 1, "requests": [{"name": "c",
        "url": "\(try TestServer.fixture.url("/cache"))?key=\(key)&etag=v1&lm={{secret.x}}",
        "headers": {"Authorization": "Bearer {{secret.x}}"},
        "cache": {"seconds": 60, "revalidate": true}}]}
      """.write(to: ws, atomically: true, encoding: .utf8)
    let secret = "cached-\(key)"
    let environment = ["REQBENCH_SECRET_X": secret]
    let cache = dir.appendingPathComponent(".reqbench/cached/cache")
    func metadata() throws -> [String] {
      try FileManager.default.contentsOfDirectory(atPath: cache.path).filter { $0.hasSuffix(".json") }
        .map { try String(contentsOf: cache.appendingPathComponent($0), encoding: .utf8) }
    }

    let first = try runProcess(try reqbenchBinary, ["run", ws.path, "c", "--json"], environment: environment)
    #expect(first.status == 0, "\(first.stderr)")
    let stored = try metadata()
    #expect(stored.count == 1)
    #expect(stored.first?.contains("lm=••••") == true)
    #expect(stored.first?.contains(#"["Last-Modified","••••"]"#) == true)
    // Expired: revalidated with If-None-Match, the server's 304 carries Last-Modified again.
    #expect(try expireCacheEntries(in: cache) == 1)
    let second = try runProcess(try reqbenchBinary, ["run", ws.path, "c", "--json"], environment: environment)
    #expect(second.status == 0, "\(second.stderr)")
    #expect(second.stdout.contains(#""revalidated":true"#), "\(second.stdout)")
    let renewed = try metadata()
    #expect(renewed.count == 1)
    #expect(renewed != stored)  // rewritten by the renewal
    for text in stored + renewed {
      #expect(!text.contains(secret), "cache metadata holds the secret: \(text)")
    }
    for result in [first, second] { #expect(!(result.stdout + result.stderr).contains(secret)) }
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

  /// A workspace whose request sends `{{secret.k}}` to a port nothing listens on (refused before
  /// anything is sent when the secrets file is), in a folder of its own.
  func secretWorkspace() throws -> (folder: URL, workspace: String, secrets: String) {
    let dir = try folder()
    let ws = dir.appendingPathComponent("w.json")
    try #"{"version": 1, "requests": [{"name": "a", "url": "http://127.0.0.1:1/a", "headers": {"X-K": "{{secret.k}}"}}]}"#
      .write(to: ws, atomically: true, encoding: .utf8)
    return (dir, ws.path, dir.appendingPathComponent("w.secrets.json").path)
  }

  /// A secrets file that is a symbolic link (a cloned repository may ship one, pointing at a file
  /// it publishes) is neither written through nor read: `secrets set` and `run` refuse it.
  @Test func aSecretsFileThatIsALinkIsNeitherWrittenNorRead() throws {
    let (dir, ws, secrets) = try secretWorkspace()
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("docs"), withIntermediateDirectories: true)
    let published = dir.appendingPathComponent("docs/published.json").path
    try FileManager.default.createSymbolicLink(atPath: secrets, withDestinationPath: "docs/published.json")
    let set = try runProcess(try reqbenchBinary, ["secrets", "set", ws, "k"], stdin: "my-token", timeout: 30)
    #expect(set.status == 2, "\(set.stderr)")
    #expect(set.stderr.contains("w.secrets.json: is a symbolic link"), "\(set.stderr)")
    #expect(!FileManager.default.fileExists(atPath: published), "the secret went through the link")
    // A link to a file that exists is not read either.
    try #"{"k": "from-the-link"}"#.write(toFile: published, atomically: true, encoding: .utf8)
    chmod(published, 0o600)
    for args in [["run", ws, "a"], ["secrets", "ls", ws], ["secrets", "set", ws, "k"]] {
      let result = try runProcess(try reqbenchBinary, args, stdin: "other", timeout: 30)
      #expect(result.status == 2, "\(args): \(result.stderr)")
      #expect(result.stderr.contains("is a symbolic link"), "\(args): \(result.stderr)")
    }
    #expect(try String(contentsOfFile: published, encoding: .utf8) == #"{"k": "from-the-link"}"#)
  }

  /// A secrets file others may read is refused, as ssh refuses such a key, with the command that
  /// fixes it; once it is private it is used.
  @Test func aSecretsFileOthersCanReadIsRefusedWithTheCommandThatFixesIt() throws {
    let (_, ws, secrets) = try secretWorkspace()
    try #"{"k": "my-token"}"#.write(toFile: secrets, atomically: true, encoding: .utf8)
    for mode: mode_t in [0o644, 0o640, 0o604] {
      chmod(secrets, mode)
      let result = try runProcess(try reqbenchBinary, ["secrets", "ls", ws], timeout: 30)
      #expect(result.status == 2, "\(String(mode, radix: 8)): \(result.stderr)")
      #expect(
        result.stderr.contains("w.secrets.json: is accessible by others (mode 0\(String(mode, radix: 8)))"),
        "\(result.stderr)")
      #expect(result.stderr.contains("run `chmod 600 \(secrets)`"), "\(result.stderr)")
      #expect(!result.stdout.contains("k = "))
    }
    let run = try runProcess(try reqbenchBinary, ["run", ws, "a"], timeout: 30)
    #expect(run.status == 2 && run.stderr.contains("chmod 600"), "\(run.stderr)")
    chmod(secrets, 0o600)
    let fixed = try runProcess(try reqbenchBinary, ["secrets", "ls", ws], timeout: 30)
    #expect(fixed.status == 0, "\(fixed.stderr)")
    #expect(fixed.stdout == "k = ••••\n")
  }

  /// A FIFO (or a device) as the secrets file is refused at once: nothing waits for a writer.
  @Test func aSecretsFileThatIsAFIFOIsRefusedAtOnce() throws {
    let (_, ws, secrets) = try secretWorkspace()
    #expect(mkfifo(secrets, 0o600) == 0)
    let started = Date()
    for args in [["run", ws, "a"], ["secrets", "ls", ws]] {
      // Bounded: a command that waits on the FIFO is killed after 15 s and the test fails.
      let result = try runProcess(try reqbenchBinary, args, timeout: 15)
      #expect(result.status == 2, "\(args): \(result.stderr)")
      #expect(result.stderr.contains("w.secrets.json: is a FIFO, not a regular file"), "\(args): \(result.stderr)")
    }
    #expect(Date().timeIntervalSince(started) < 10)
    let set = try runProcess(try reqbenchBinary, ["secrets", "set", ws, "k"], stdin: "v", timeout: 15)
    #expect(set.status == 2 && set.stderr.contains("is a FIFO"), "\(set.stderr)")
    var info = stat()
    #expect(lstat(secrets, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "left as it was")
  }
}
