import Foundation
import RequestEngine
import TestSupport
import Testing

/// Through the built binary against the fixture server: a body that is a folder fails at once
/// (not after the idle timeout), a HEAD with a body does not load, and an import never leaves a
/// workspace that no longer loads.
@Suite struct WorkspaceHardeningCommandTests {
  func reqbench(_ args: [String], in folder: URL) throws -> ProcessResult {
    try runProcess(try reqbenchBinary, args, currentDirectory: folder, timeout: 60)
  }

  @Test func aFolderToUploadFailsBeforeAnythingIsSent() throws {
    let key = uniqueKey("dirbody")
    let (ws, folder) = try workspaceFile(
      """
      {"version": 1, "baseURL": "\(try TestServer.fixture.baseURL)/", "requests": [
       {"name": "a", "method": "PUT", "url": "upload?key=\(key)", "body": {"file": "data/"}, "timeout": 30},
       {"name": "c", "method": "POST", "url": "upload?key=\(key)", "body": {"multipart": [{"name": "f", "file": "data"}]}, "timeout": 30},
       {"name": "ok", "method": "PUT", "url": "upload?key=\(key)", "body": {"file": "data/blob.bin"}}
      ]}
      """)
    defer { try? FileManager.default.removeItem(at: folder) }
    try FileManager.default.createDirectory(at: folder.appendingPathComponent("data"), withIntermediateDirectories: true)
    try Data("blob".utf8).write(to: folder.appendingPathComponent("data/blob.bin"))
    for (name, place, path) in [("a", "body.file", "data/"), ("c", "body.multipart[0]", "data")] {
      let result = try reqbench(["run", ws, name, "--no-history"], in: folder)
      #expect(result.status == 2, "\(name): \(result.stderr)")
      // FILE:LINE:COLUMN of the request's body, then what is wrong.
      #expect(result.stderr.hasPrefix("\(name): failed: \(ws):"), "\(name): \(result.stderr)")
      #expect(result.stderr.contains(": \(place): \"\(path)\" is a folder; name a file to send"), "\(name): \(result.stderr)")
    }
    #expect(try hits(key) == 0)
    let ok = try reqbench(["run", ws, "ok", "--no-history"], in: folder)
    #expect(ok.status == 0, "\(ok.stderr)")
    #expect(try hits(key) == 1)
  }

  @Test func aHEADWithABodyDoesNotLoad() throws {
    let key = uniqueKey("headbody")
    let (ws, folder) = try workspaceFile(
      """
      {"version": 1, "requests": [
       {"name": "d", "method": "HEAD", "url": "\(try TestServer.fixture.url("/anything?key=\(key)"))", "body": {"text": "abc"}}
      ]}
      """)
    defer { try? FileManager.default.removeItem(at: folder) }
    let result = try reqbench(["run", ws, "d", "--no-history"], in: folder)
    #expect(result.status == 2, "\(result.stderr)")
    #expect(result.stderr.contains(#"w.json:2:"#) && result.stderr.contains(#"requests[0].body: a HEAD request has no body"#), "\(result.stderr)")
    #expect(try hits(key) == 0)
  }

  /// `run` of a request beside a refused one says what is wrong with that one, and nothing about
  /// the chain step that names the request asked for.
  @Test func aRefusedRequestDoesNotMakeAChainStepNameNothing() throws {
    let (ws, folder) = try workspaceFile(
      #"{"version":1,"requests":[{"name":"good","url":"http://127.0.0.1:9/get"},"#
        + #"{"name":"bad","url":"http://127.0.0.1:9/get","headers":{"X":"a\r\nb"}}],"#
        + #""chains":[{"name":"ch","steps":[{"request":"good"}]}]}"#)
    defer { try? FileManager.default.removeItem(at: folder) }
    let result = try reqbench(["run", ws, "good", "--no-history"], in: folder)
    #expect(result.status == 2, "\(result.stderr)")
    #expect(result.stderr.contains("requests[1].headers.X: contains CR"), "\(result.stderr)")
    #expect(!result.stderr.contains("no request named"), "\(result.stderr)")
  }

  /// A JSON body 510 deep parses on its own but not inside a workspace (4 levels more, over the
  /// reader's 512): each importer that makes it a value refuses it, names why, and the workspace
  /// keeps its bytes; Postman's raw body is text, kept as written, and loads.
  @Test func anImportNeverLeavesAWorkspaceThatDoesNotLoad() throws {
    let (ws, folder) = try workspaceFile(#"{"version": 1, "requests": [{"name": "kept", "url": "http://127.0.0.1:9/"}]}"# + "\n")
    defer { try? FileManager.default.removeItem(at: folder) }
    let original = try String(contentsOfFile: ws, encoding: .utf8)
    let deep = String(repeating: "[", count: 510) + String(repeating: "]", count: 510)
    let postmanBody = JSONSerializer.quote(deep)
    let inputs = [
      ("curl", "in.sh", "curl http://127.0.0.1:9/anything -H 'Content-Type: application/json' --data-raw '\(deep)'\n"),
      ("http", "in.http", "POST http://127.0.0.1:9/anything\nContent-Type: application/json\n\n\(deep)\n"),
    ]
    for (format, file, text) in inputs {
      let input = folder.appendingPathComponent(file)
      try text.write(to: input, atomically: true, encoding: .utf8)
      let result = try reqbench(["import", format, input.path, "--into", ws], in: folder)
      #expect(result.status == 2, "\(format): \(result.stderr)")
      #expect(result.stderr.contains("nothing was written: the new text would not load again"), "\(format): \(result.stderr)")
      #expect(result.stderr.contains("nesting deeper than 512 levels"), "\(format): \(result.stderr)")
      #expect(try String(contentsOfFile: ws, encoding: .utf8) == original, "\(format) changed the workspace")
    }
    // Postman's raw body is text whatever its language: kept as written, nothing to refuse.
    let collection = folder.appendingPathComponent("in.postman.json")
    try (#"{"info": {"name": "c", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"}, "item": [{"name": "deep", "request": {"method": "POST", "url": "http://127.0.0.1:9/anything", "header": [{"key": "Content-Type", "value": "application/json"}], "body": {"mode": "raw", "raw": \#(postmanBody)}}}]}"#)
      .write(to: collection, atomically: true, encoding: .utf8)
    let postman = try reqbench(["import", "postman", collection.path, "--into", ws], in: folder)
    #expect(postman.status == 0, "\(postman.stderr)")
    let saved = try JSONParser.parse(try Data(contentsOf: URL(fileURLWithPath: ws)))
    let requests = saved["requests"]?.arrayValue ?? []
    #expect(requests.count == 2 && requests[1]["body"]?["text"]?.stringValue == deep, "\(requests)")
    // It loads: a run gets as far as sending (to a port nothing listens on).
    let run = try reqbench(["run", ws, "deep", "--no-history"], in: folder)
    #expect(run.status == 1 && !run.stderr.contains("nesting"), "\(run.stderr)")

    // The same into a workspace that does not exist yet: it is not created.
    let fresh = folder.appendingPathComponent("fresh.json").path
    let result = try reqbench(["import", "curl", folder.appendingPathComponent("in.sh").path, "--into", fresh], in: folder)
    #expect(result.status == 2, "\(result.stderr)")
    #expect(!FileManager.default.fileExists(atPath: fresh))
  }
}

/// A secret's value never shows in a message: a URL a secret makes invalid
/// (a space, no host) on stderr, in `--json` and in `export curl`'s error; a download path made
/// from a secret in the status line, `--json`'s `file` and `export curl -o`.
@Suite struct SecretsInMessagesTests {
  func reqbench(_ args: [String], secret: String, in folder: URL) throws -> ProcessResult {
    try runProcess(
      try reqbenchBinary, args, environment: ["REQBENCH_SECRET_X": secret], currentDirectory: folder, timeout: 60)
  }

  @Test func aSecretInAURLOrAPathIsMaskedInEveryMessage() throws {
    let key = uniqueKey("secretmsg")
    let (ws, folder) = try workspaceFile(
      """
      {"version": 1, "requests": [
       {"name": "u", "url": "\(try TestServer.fixture.url("/anything"))/{{secret.x}}?key=\(key)"},
       {"name": "h", "url": "http://{{secret.x}}"},
       {"name": "dl", "url": "\(try TestServer.fixture.url("/bytes/10"))", "download": {"to": "d/{{secret.x}}.bin"}}
      ]}
      """)
    defer { try? FileManager.default.removeItem(at: folder) }
    let spaced = "sp ace-S3CRET"
    for args in [["run", ws, "u"], ["run", ws, "u", "--json"], ["export", "curl", ws, "u"]] {
      let result = try reqbench(args, secret: spaced, in: folder)
      #expect(result.status == 2, "\(args): \(result.stderr)")
      let all = result.stdout + result.stderr
      #expect(all.contains("contains a space"), "\(args): \(all)")
      #expect(all.contains("/anything/••••?key="), "\(args): \(all)")
      #expect(!all.contains("S3CRET"), "\(args): \(all)")
    }
    let noHost = try reqbench(["run", ws, "h", "--json"], secret: "?S3CRET", in: folder)
    #expect(noHost.stdout.contains(#"\"http://••••\" has no host"#), "\(noHost.stdout)")
    #expect(!(noHost.stdout + noHost.stderr).contains("S3CRET"))
    #expect(try hits(key) == 0)

    let plain = try reqbench(["run", ws, "dl"], secret: "S3CRET", in: folder)
    #expect(plain.status == 0, "\(plain.stderr)")
    #expect(plain.stderr.contains("saved 10 B to d/••••.bin"), "\(plain.stderr)")
    let json = try reqbench(["run", ws, "dl", "--json"], secret: "S3CRET", in: folder)
    #expect(json.stdout.contains(#"/d/••••.bin""#), "\(json.stdout)")
    let export = try reqbench(["export", "curl", ws, "dl"], secret: "S3CRET", in: folder)
    #expect(export.stdout.contains("/d/••••.bin' -C -"), "\(export.stdout)")
    for result in [plain, json, export] {
      #expect(!(result.stdout + result.stderr).contains("S3CRET"), "\(result.stdout)\(result.stderr)")
    }
    // The file itself has the name the secret gives it.
    #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("d/S3CRET.bin").path))
  }
}
