import Foundation
import RequestEngine
import TestSupport
import Testing

/// A workspace from someone else cannot reach outside its folder:
/// through symbolic links inside it (uploads, downloads, TLS files, the state folder), or by
/// having `import curl` read local files into it.
@Suite struct FolderRuleTests {
  /// `ROOT/ws` (the workspace's folder) beside `ROOT/outside` (a secret) and `ROOT/outside-w`.
  struct Layout {
    let root: URL
    var ws: URL { root.appendingPathComponent("ws") }
    var outside: URL { root.appendingPathComponent("outside") }
    var outsideW: URL { root.appendingPathComponent("outside-w") }

    init() throws {
      root = scratchURL("rb-links")
      for folder in ["ws/real", "ws/downloads", "ws/certs", "outside", "outside-w"] {
        try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
      }
      try "TOP-SECRET-OUTSIDE\n".write(to: outside.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
      try "inside\n".write(to: ws.appendingPathComponent("real/notes.txt"), atomically: true, encoding: .utf8)
      let links = [
        ("ws/data", "../outside"), ("ws/out", "../outside-w"), ("ws/inside", "real"),
        ("ws/certs/ca.pem", root.appendingPathComponent("outside/secret.txt").path),
        ("ws/downloads/100", "../../outside-w/written.bin"), ("ws/loop", "loop"),
      ]
      for (link, target) in links {
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent(link).path, withDestinationPath: target)
      }
    }

    func remove() { try? FileManager.default.removeItem(at: root) }
  }

  func reqbench(_ args: [String], in folder: URL) throws -> ProcessResult {
    try runProcess(try reqbenchBinary, args, currentDirectory: folder)
  }

  @Test func symbolicLinksLeadingOutOfTheFolderAreRefused() throws {
    let layout = try Layout()
    defer { layout.remove() }
    let key = uniqueKey("links")
    let base = try TestServer.fixture.baseURL
    try """
    {"version": 1, "baseURL": "\(base)/", "requests": [
     {"name": "bf", "method": "POST", "url": "anything/bf?key=\(key)", "body": {"file": "data/secret.txt"}},
     {"name": "part", "method": "POST", "url": "upload?key=\(key)", "body": {"multipart": [{"name": "f", "file": "data/secret.txt"}]}},
     {"name": "dl", "url": "bytes/100?key=\(key)", "download": {"to": "out/written.bin"}},
     {"name": "dl-into-link", "url": "bytes/100?key=\(key)", "download": {"to": "downloads/"}},
     {"name": "tls", "url": "anything/tls?key=\(key)", "tls": {"ca": "certs/ca.pem"}},
     {"name": "loop", "method": "POST", "url": "anything/loop?key=\(key)", "body": {"file": "loop/x"}},
     {"name": "inside", "method": "POST", "url": "anything/inside", "body": {"file": "inside/notes.txt"}}
    ]}
    """.write(to: layout.ws.appendingPathComponent("p.json"), atomically: true, encoding: .utf8)
    let ws = layout.ws.appendingPathComponent("p.json").path
    for (name, place) in [("bf", "body.file"), ("part", "body.multipart[0]"), ("dl", "download.to"),
                          ("dl-into-link", "download.to"), ("tls", "tls.ca")] {
      let result = try reqbench(["run", ws, name, "--no-history"], in: layout.root)
      #expect(result.status == 2, "\(name): \(result.stderr)")
      // `NAME: failed: FILE:LINE:COLUMN: place: …` (the place in the file, then the field).
      #expect(result.stderr.hasPrefix("\(name): failed: \(ws):"), "\(name): \(result.stderr)")
      #expect(result.stderr.contains(": \(place): "), "\(name): \(result.stderr)")
      #expect(result.stderr.contains("leads outside the workspace's folder through a symbolic link"), "\(name): \(result.stderr)")
      #expect(!result.stdout.contains("TOP-SECRET"))
    }
    let loop = try reqbench(["run", ws, "loop", "--no-history"], in: layout.root)
    #expect(loop.status == 2 && loop.stderr.contains("too many levels of symbolic links"), "\(loop.stderr)")
    // Nothing was sent, nothing written outside.
    #expect(try hits(key) == 0)
    #expect(try FileManager.default.contentsOfDirectory(atPath: layout.outsideW.path).isEmpty)
    // A link that stays inside the folder is followed.
    let inside = try reqbench(["run", ws, "inside", "--no-history"], in: layout.root)
    #expect(inside.status == 0, "\(inside.stderr)")
    #expect(inside.stdout.contains(#""body": "inside\n""#), "\(inside.stdout)")
  }

  /// TLS files follow the folder rule: absolute, `~` and `..` are refused where written.
  @Test func tlsPathsFollowTheFolderRule() throws {
    let (ws, folder) = try workspaceFile(
      #"{"version": 1, "requests": [{"name": "a", "url": "https://127.0.0.1:1/", "tls": {"ca": "/etc/ssl/certs/ca-certificates.crt", "cert": "~/me.pem", "key": "../me.key"}}]}"#)
    defer { try? FileManager.default.removeItem(at: folder) }
    let result = try reqbench(["run", ws, "a"], in: folder)
    #expect(result.status == 2)
    #expect(result.stderr.contains(":1:88: requests[0].tls.ca: \"/etc/ssl/certs/ca-certificates.crt\" is absolute"), "\(result.stderr)")
    #expect(result.stderr.contains("requests[0].tls.cert: \"~/me.pem\" is absolute"), "\(result.stderr)")
    #expect(result.stderr.contains("requests[0].tls.key: \"../me.key\" leaves the workspace's folder"), "\(result.stderr)")
  }

  /// A `.reqbench` that is a symbolic link (or a link inside it) would move history, the cache,
  /// downloads and captured tokens elsewhere: refused; `--state-dir` is the user's own choice.
  @Test func aStateFolderThatIsALinkIsRefused() throws {
    let layout = try Layout()
    defer { layout.remove() }
    let ws = layout.ws.appendingPathComponent("w.json")
    try #"{"version": 1, "requests": [{"name": "a", "url": "\#(try TestServer.fixture.url("/get"))"}]}"#
      .write(to: ws, atomically: true, encoding: .utf8)
    try FileManager.default.createSymbolicLink(
      atPath: layout.ws.appendingPathComponent(".reqbench").path, withDestinationPath: layout.outsideW.path)
    for args in [["run", ws.path, "a"], ["history", ws.path], ["cache", "ls", ws.path]] {
      let result = try reqbench(args, in: layout.root)
      #expect(result.status == 2, "\(args): \(result.stderr)")
      #expect(result.stderr.contains("is a symbolic link"), "\(args): \(result.stderr)")
    }
    #expect(try FileManager.default.contentsOfDirectory(atPath: layout.outsideW.path).isEmpty)
    // A link deeper in: .reqbench/w/history.
    try FileManager.default.removeItem(atPath: layout.ws.appendingPathComponent(".reqbench").path)
    try FileManager.default.createDirectory(at: layout.ws.appendingPathComponent(".reqbench/w"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: layout.ws.appendingPathComponent(".reqbench/w/history").path, withDestinationPath: layout.outsideW.path)
    let deeper = try reqbench(["run", ws.path, "a"], in: layout.root)
    #expect(deeper.status == 2 && deeper.stderr.contains(".reqbench/w/history is a symbolic link"), "\(deeper.stderr)")
    // --state-dir is used as given.
    let chosen = layout.root.appendingPathComponent("chosen")
    let explicit = try reqbench(["run", ws.path, "a", "--state-dir", chosen.path], in: layout.root)
    #expect(explicit.status == 0, "\(explicit.stderr)")
  }

  /// `import curl` reads a file only inside the workspace's folder: absolute, `~`, `..` and links
  /// out are errors naming the option, nothing is written; a relative file inside is read.
  @Test func importCurlReadsNoFileOutsideTheFolder() throws {
    let layout = try Layout()
    defer { layout.remove() }
    let ws = layout.ws.appendingPathComponent("w.json")
    let original = #"{"version": 1, "requests": []}"# + "\n"
    try original.write(to: ws, atomically: true, encoding: .utf8)
    let refused: [(String, String)] = [
      ("curl http://127.0.0.1:1/u -F 'a=</etc/passwd'", #"-F "a=</etc/passwd": "/etc/passwd" is absolute"#),
      ("curl http://127.0.0.1:1/u --data-urlencode 'a@/etc/passwd'", #"--data-urlencode @/etc/passwd: "/etc/passwd" is absolute"#),
      ("curl http://127.0.0.1:1/u --json @/etc/passwd", #"--json @/etc/passwd: "/etc/passwd" is absolute"#),
      ("curl http://127.0.0.1:1/u -d @/etc/passwd -d x=1", #"-d @/etc/passwd: "/etc/passwd" is absolute"#),
      ("curl http://127.0.0.1:1/u -F 'a=<~/.bashrc'", #"-F "a=<~/.bashrc": "~/.bashrc" is absolute"#),
      ("curl http://127.0.0.1:1/u -d @../outside/secret.txt -d x=1", #"leaves the workspace's folder ("..")"#),
      ("curl http://127.0.0.1:1/u -d @data/secret.txt -d x=1", "leads outside the workspace's folder through a symbolic link"),
      ("curl http://127.0.0.1:1/u -F 'a=<data/secret.txt'", "leads outside the workspace's folder through a symbolic link"),
    ]
    for (command, message) in refused {
      let input = layout.root.appendingPathComponent("in.sh")
      try (command + "\n").write(to: input, atomically: true, encoding: .utf8)
      let result = try reqbench(["import", "curl", input.path, "--into", ws.path], in: layout.root)
      #expect(result.status == 2, "\(command): \(result.stderr)")
      #expect(result.stderr.contains("in.sh:1:"), "\(command): \(result.stderr)")
      #expect(result.stderr.contains(message), "\(command): \(result.stderr)")
      #expect(try String(contentsOf: ws, encoding: .utf8) == original, "\(command) changed the workspace")
    }
    // Relative to the workspace's folder (not the current directory), links inside followed.
    let input = layout.root.appendingPathComponent("in.sh")
    try "curl http://127.0.0.1:1/u -d @inside/notes.txt -d x=1 -F 'n=<real/notes.txt'\n".write(to: input, atomically: true, encoding: .utf8)
    let mixed = try reqbench(["import", "curl", input.path, "--into", ws.path], in: layout.root)
    #expect(mixed.status == 2, "-d and -F together are refused as curl refuses them: \(mixed.stderr)")
    try "curl http://127.0.0.1:1/u -d @inside/notes.txt -d x=1\n".write(to: input, atomically: true, encoding: .utf8)
    let ok = try reqbench(["import", "curl", input.path, "--into", ws.path], in: layout.root)
    #expect(ok.status == 0, "\(ok.stderr)")
    let text = try String(contentsOf: ws, encoding: .utf8)
    #expect(text.contains("inside&x=1"), "\(text)")
    #expect(!text.contains("TOP-SECRET"))
  }
}
