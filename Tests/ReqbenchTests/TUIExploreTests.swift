import Foundation
import JSON
import TestSupport
import Testing

/// Exploring, as a new user meets it: the real binary in tmux, from a file that does not exist to
/// requests made, pasted and organised, saved and read back.
@Suite("TUI end to end: exploring from nothing (tmux)", .serialized)
struct TUIExploreTests {
  func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

  /// Chrome's "Copy as cURL" of a GET to the fixture server, counted under `key`.
  func chromeCurl(key: String) throws -> String {
    """
    curl '\(try TestServer.fixture.url("/get?key=\(key)"))' \\
      -H 'accept: application/json' \\
      -H 'accept-language: en-GB,en;q=0.9' \\
      -H 'sec-fetch-mode: cors' \\
      -H 'user-agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
    """
  }

  /// A paste start to finish: once bracketed (the TUI asked for it) and once as the burst of
  /// keys a terminal without bracketed paste sends; neither sends anything.
  @Test func aMultiLineCopyAsCurlPasteBecomesARequestAndSendsNothing() throws {
    let (file, _) = try missingWorkspaceFile()
    let key = uniqueKey("paste")
    let session = try TmuxSession([try reqbenchBinary.path, file])
    try session.waitFor("new workspace")
    try session.paste(try chromeCurl(key: key), bracketed: true)
    let added = try session.waitFor("added get-get")
    #expect(added.contains("Editor · get-get"), "\(added)")
    #expect(added.contains("accept-language"), "the headers came with it:\n\(added)")
    usleep(300_000)
    #expect(try hits(key) == 0, "the paste sent nothing")
    // A terminal without bracketed paste: the same text as keys, in one burst.
    try session.send("1")
    try session.type(try chromeCurl(key: key) + "\n")
    // Read in one go, the burst becomes a request; on a loaded machine tmux may hand it over in
    // two reads, each then a paste that is no request ("nothing added"). Either way nothing is
    // sent, which is what this part is about.
    let deadline = Date().addingTimeInterval(10)
    var afterBurst = try session.screen()
    while !afterBurst.contains("added get-get-2"), !afterBurst.contains("nothing added"), Date() < deadline {
      usleep(50_000)
      afterBurst = try session.screen()
    }
    #expect(afterBurst.contains("added get-get-2") || afterBurst.contains("nothing added"), "\(afterBurst)")
    usleep(300_000)
    #expect(try hits(key) == 0, "the keys of a paste sent nothing")
    try session.send("Escape")
    // A mistake: a paste that is not a request says where and adds nothing.
    try session.paste("curl 'http://127.0.0.1:9/x", bracketed: true)
    try session.waitFor("nothing added: paste:1:6")
    #expect(try !session.screen().contains("get-get-3"))
    // Sending it is a key of its own.
    try session.send("1")
    try session.send("Enter")
    try session.waitFor("✓ succeeded")
    #expect(try hits(key) == 1)
    try session.send("q")
    try session.waitFor("d discard and quit")
    try session.send("d")
    try session.waitFor("[exited 0]")
    #expect(!FileManager.default.fileExists(atPath: file))
  }

  /// A pasted "Copy as cURL" with a bearer token and the session's cookie: both go to the
  /// secrets file (0600) and the editor says `{{secret.token}}`; the saved workspace holds
  /// neither; the request sends them (the fixture echoes its headers, the viewer masks them).
  @Test func aPastedTokenAndCookieGoToTheSecretsFile() throws {
    let (file, folder) = try missingWorkspaceFile()
    defer { try? FileManager.default.removeItem(at: folder) }
    let key = uniqueKey("credentials")
    let token = "tok-" + key
    let session = try TmuxSession([try reqbenchBinary.path, file])
    try session.waitFor("new workspace")
    let url = try TestServer.fixture.url("/get?key=\(key)")
    try session.paste("curl '\(url)' -H 'authorization: Bearer \(token)' -b 'session=\(key)'", bracketed: true)
    let added = try session.waitFor("Bearer {{secret.token}}")
    #expect(!added.contains(token), "\(added)")
    #expect(added.contains("credentials moved to the secrets file: secret.token, secret.cookie"), "\(added)")
    let secrets = folder.appendingPathComponent("api.secrets.json").path
    let deadline = Date().addingTimeInterval(10)
    while (try? text(secrets))?.contains("session=") != true, Date() < deadline { usleep(50_000) }
    let written = try text(secrets)
    #expect(written.contains("\"token\": \"\(token)\"") && written.contains("session=\(key)"), "\(written)")
    #expect(try FileManager.default.attributesOfItem(atPath: secrets)[.posixPermissions] as? Int == 0o600)
    try session.send("C-s")
    try session.waitFor("created \(file)")
    let saved = try text(file)
    #expect(!saved.contains(token) && !saved.contains("session="), "\(saved)")
    try session.send("1")
    try session.send("Enter")
    try session.waitFor("✓ succeeded")
    let shown = try session.waitFor("Bearer ••••")
    #expect(!shown.contains(token), "\(shown)")
    #expect(try hits(key) == 1)
    try session.quit()
  }

  /// A token typed into a header line of the editor goes to the secrets file as a pasted one
  /// does: the line says `{{secret.token}}`, the saved workspace never holds it, the send does.
  @Test func aTokenTypedIntoAHeaderGoesToTheSecretsFile() throws {
    let (file, folder) = try missingWorkspaceFile()
    defer { try? FileManager.default.removeItem(at: folder) }
    let key = uniqueKey("typed")
    let token = "tok-" + key
    let session = try TmuxSession([try reqbenchBinary.path, file])
    try session.waitFor("new workspace")
    try session.newRequest("GET \(try TestServer.fixture.url("/get?key=\(key)"))")
    try session.send("Enter")
    try session.waitFor("Editor · get-get")
    // The header's "+ add" line: g (Name), then Method, URL, the query's add line and the
    // query parameter key= the URL brought, then the header's add line.
    try session.send("2", "g", "j", "j", "j", "j", "j", "Enter")
    try session.waitFor("Enter keeps")
    try session.type("Authorization: Bearer \(token)")
    try session.send("Enter")
    let moved = try session.waitFor("its credential went to the secrets file: secret.token")
    #expect(moved.contains("Bearer {{secret.token}}") && !moved.contains(token), "\(moved)")
    let secrets = folder.appendingPathComponent("api.secrets.json").path
    let deadline = Date().addingTimeInterval(10)
    while (try? text(secrets))?.contains(token) != true, Date() < deadline { usleep(50_000) }
    #expect(try text(secrets).contains("\"token\": \"\(token)\""))
    try session.send("C-s")
    try session.waitFor("created \(file)")
    #expect(try !text(file).contains(token))
    try session.send("s")
    try session.waitFor("✓ succeeded")
    let shown = try session.waitFor("Bearer ••••")
    #expect(!shown.contains(token), "\(shown)")
    #expect(try hits(key) == 1)
    try session.quit()
  }

  /// A missing file opens as a new workspace that says how to begin; `n` makes a request from
  /// `METHOD URL` (a mistake first: a bad name), the first Ctrl-S creates the file.
  @Test func startFromAMissingFileAndMakeARequestWithN() throws {
    let (file, folder) = try missingWorkspaceFile()
    let session = try TmuxSession([try reqbenchBinary.path, file])
    let start = try session.waitFor("new workspace")
    #expect(start.contains("new workspace \(file), not saved yet"), "\(start)")
    #expect(start.contains("No requests yet"), "\(start)")
    #expect(!FileManager.default.fileExists(atPath: file))

    let naming = try session.newRequest("POST http://127.0.0.1:9/users")
    #expect(naming.contains("post-users"), "the importer's name is suggested:\n\(naming)")
    // A mistake: an empty folder. The prompt says why and keeps the text.
    try session.type("users//create")
    try session.send("Enter")
    try session.waitFor("folder name cannot be empty")
    try session.send("C-u")
    try session.type("users/create")
    try session.send("Enter")
    let added = try session.waitFor("added users/create")
    #expect(added.contains("Editor · users/create"), "\(added)")
    #expect(added.contains("POST"), "\(added)")
    #expect(!FileManager.default.fileExists(atPath: file), "nothing is written before Ctrl-S")

    try session.send("C-s")
    try session.waitFor("created \(file)")
    let saved = try text(file)
    #expect(saved.contains(#""name": "users/create""#), "\(saved)")
    #expect(saved.contains(#""url": "http://127.0.0.1:9/users""#), "\(saved)")
    #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent(".reqbench").path))
    try session.quit()

    // Reopened: the request is there and the file is no longer new.
    let again = try TmuxSession([try reqbenchBinary.path, file])
    let reopened = try again.waitFor("users/")
    #expect(!reopened.contains("not saved yet"), "\(reopened)")
    try again.quit()
  }

  /// HTTPie's arguments typed at `n` without `http` (what an xh or HTTPie user types): a JSON
  /// POST with a header, sent with `s` from the editor, and httpbin echoes what HTTPie would send.
  @Test func httpieArgumentsTypedAtNBecomeARequestThatSendsThem() throws {
    let (file, _) = try missingWorkspaceFile()
    let session = try TmuxSession([try reqbenchBinary.path, file])
    try session.waitFor("new workspace")
    try session.newRequest("POST \(try TestServer.httpbin.url("/post")) name=ada age:=36 X-Trace:abc")
    try session.send("Enter")
    let added = try session.waitFor("added post-post")
    #expect(added.contains("X-Trace: abc"), "\(added)")
    #expect(added.contains("nothing sent yet: s sends the request in the editor"), "\(added)")
    try session.send("s")
    // The body as HTTPie writes it (`http --offline` prints `{"name": "ada", "age": 36}`).
    let sent = try session.waitFor(#""data": "{\"name\": \"ada\", \"age\": 36}""#)
    #expect(sent.contains("✓ succeeded"), "\(sent)")
    #expect(sent.contains(#""Content-Type": "application/json""#), "\(sent)")
    try session.send("q")
    try session.waitFor("1 request has unsaved changes: post-post")
    try session.send("d")
    try session.waitFor("[exited 0]")
  }

  /// Environments from nothing: a request on `{{base}}` is refused until `v` `n` makes an
  /// environment and `V` `a` gives it `base`; `c` copies it for another host (a wrong one, so
  /// its send fails), `v` switches back, and Ctrl-S writes both environments and the choice.
  @Test func makeEnvironmentsAndVariablesInTheTUIAndSwitchBetweenThem() throws {
    let (file, folder) = try missingWorkspaceFile()
    defer { try? FileManager.default.removeItem(at: folder) }
    let key = uniqueKey("environments")
    let base = try TestServer.fixture.baseURL
    let session = try TmuxSession([try reqbenchBinary.path, file])
    try session.waitFor("new workspace")
    try session.newRequest("GET {{base}}/get?key=\(key)")
    try session.send("C-u")
    try session.type("echo")
    try session.send("Enter")
    try session.waitFor("added echo")
    try session.send("1", "s")
    try session.waitFor("undefined variable {{base}}")
    // v on a workspace without environments: n makes one (a mistake first: a space).
    try session.send("v")
    try session.waitFor("no environments yet: n adds one")
    try session.send("n")
    try session.waitFor("new environment's name")
    try session.type("my local")
    try session.send("Enter")
    try session.waitFor("cannot name an environment")
    try session.send("C-u")
    try session.type("local")
    try session.send("Enter")
    try session.waitFor("environment local added and in use")
    try session.send("Escape", "V", "a")
    try session.waitFor("new variable in environment local: NAME=value")
    try session.type("base=\(base)")
    try session.send("Enter")
    try session.waitFor("base set in environment local")
    try session.send("Escape", "1", "s")
    try session.waitFor("✓ succeeded")
    #expect(try hits(key) == 1)
    // c: a copy for another host; its base edited to a closed port, the send fails there.
    try session.send("v", "c")
    try session.waitFor("copy of local named")
    try session.type("closed")
    try session.send("Enter")
    try session.waitFor("environment closed added with the variables of local and in use")
    try session.send("Escape", "V", "Enter")
    try session.waitFor("base in environment closed")
    try session.type("http://127.0.0.1:9")
    try session.send("Enter")
    try session.send("Escape", "1", "s")
    try session.waitFor("✗ failed")
    #expect(try hits(key) == 1, "sent to the closed port, not the fixture")
    // Back to local: v, k, Enter.
    try session.send("v", "k", "Enter")
    try session.waitFor("environment local: sends use it from now on")
    try session.send("1", "s")
    let deadline = Date().addingTimeInterval(10)
    while try hits(key) < 2, Date() < deadline { usleep(50_000) }
    #expect(try hits(key) == 2)
    try session.send("C-s")
    try session.waitFor("created \(file)")
    let saved = try JSONParser.parse(Array(try text(file).utf8))
    #expect(saved["environment"]?.stringValue == "local")
    #expect(saved["environments"]?["local"]?["base"]?.stringValue == base)
    #expect(saved["environments"]?["closed"]?["base"]?.stringValue == "http://127.0.0.1:9")
    try session.quit()
  }

  /// D, R, d then u, on a real file: after a save the file's diff is what was done, nothing else.
  @Test func duplicateRenameDeleteUndoSaveAndTheDiffIsOnlyThat() throws {
    let (file, _) = try workspaceFile(
      """
      {
        "version": 1,
        "requests": [
          {"name": "users/list", "url": "http://127.0.0.1:9/users"},
          {"name": "users/get", "url": "http://127.0.0.1:9/users/1"}
        ],
        "batches": [{"name": "both", "members": ["users/list", "users/get"]}]
      }

      """, named: "ws.json")
    let original = try text(file)
    let session = try TmuxSession([try reqbenchBinary.path, file])
    try session.waitFor("users/")
    try session.send("j")
    try session.waitFor("Editor · users/get")
    try session.send("D")
    try session.waitFor("duplicated users/get as users/get-2")
    try session.send("R")
    try session.waitFor("rename users/get-2 to")
    try session.send("C-u")
    try session.type("people/get")
    try session.send("Enter")
    try session.waitFor("renamed users/get-2 to people/get")
    // Delete users/list: asked first; a mistake (n) keeps it, y deletes, u brings it back.
    // (`g` goes to the first row, the users/ folder; `j` to its first request.)
    try session.send("g", "j")
    try session.waitFor("Editor · users/list")
    try session.send("d")
    try session.waitFor("delete users/list and its 1 batch and chain references? y/n")
    try session.send("n")
    try session.waitFor("kept users/list")
    try session.send("d")
    try session.waitFor("? y/n")
    try session.send("y")
    try session.waitFor("u undoes it until the next save")
    try session.send("u")
    try session.waitFor("restored users/list")
    try session.send("C-s")
    try session.waitFor("saved \(file)")
    try session.quit()
    let saved = try text(file)
    let expected = original.replacingOccurrences(
      of: #"{"name": "users/get", "url": "http://127.0.0.1:9/users/1"}"#,
      with: #"{"name": "users/get", "url": "http://127.0.0.1:9/users/1"}"#)
    #expect(saved.contains(#""name": "people/get""#), "\(saved)")
    #expect(saved.contains(#""name": "users/list""#))
    // Every line of the original is still there, and the batch is untouched.
    for line in expected.split(separator: "\n") { #expect(saved.contains(line), "lost: \(line)\n\(saved)") }
    #expect(saved.split(separator: "\n").count == original.split(separator: "\n").count + 1, "\(saved)")
  }
}
