import Foundation
import RequestEngine
import TestSupport
import Testing

/// The state folder (`.reqbench/NAME/`) through the real binary, against what a cloned
/// repository or another program may leave in it: a crafted history key, links where its folders
/// belong, a history database of another schema or held locked; and what reqbench makes of it:
/// private folders whatever the umask, never staged by git.
@Suite("State folder, end to end", .serialized)
struct StateFolderCommandTests {
  /// Every folder reqbench keeps in a state folder.
  static let subfolders = ["history", "history-bodies", "cache", "chains", "downloads", "cookies", "oauth2"]

  /// A workspace of one request `a` to a port nothing listens on: it fails at once (exit 1) and is
  /// recorded in history all the same, without a server.
  func refusedWorkspace() throws -> (path: String, folder: URL) {
    try workspaceFile(#"{"version": 1, "requests": [{"name": "a", "url": "http://127.0.0.1:1/a"}]}"#)
  }

  func python(_ script: String, _ arguments: [String]) throws -> ProcessResult {
    try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script] + arguments, timeout: 30)
  }

  func git(_ arguments: [String], in folder: URL) throws -> ProcessResult {
    try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["git", "-C", folder.path] + arguments, timeout: 30)
  }

  /// A `history.sqlite` whose entry key is `../../../victim` and a NUL (which ends the path before
  /// `.body`): `history --har` does not print the file it names, and the next `run`'s pruning
  /// does not remove it; the row is counted as damaged.
  @Test func aCraftedHistoryKeyNeitherPrintsNorRemovesAFileOutside() throws {
    let (ws, dir) = try workspaceFile(
      #"""
      {"version": 1, "history": {"perRequest": 1},
       "requests": [{"name": "big", "url": "\#(try TestServer.fixture.url("/bytes/3000000?key=\(uniqueKey("big"))"))", "dedup": false}]}
      """#)
    let first = try runProcess(try reqbenchBinary, ["run", ws, "big"], timeout: 60)
    #expect(first.status == 0, "\(first.stderr)")
    let victim = dir.appendingPathComponent("victim")
    try "VICTIM\n".write(to: victim, atomically: false, encoding: .utf8)
    let craft = try python(
      """
      import sqlite3, sys
      db = sqlite3.connect(sys.argv[1])
      db.execute("UPDATE entries SET key = ?, stored_body_bytes = 7, bytes = 7", ("../../../victim\\x00",))
      db.commit()
      """, [dir.appendingPathComponent(".reqbench/w/history.sqlite").path])
    #expect(craft.status == 0, "\(craft.stderr)")
    let har = try runProcess(try reqbenchBinary, ["history", ws, "--har"], timeout: 60)
    #expect(har.status == 0, "\(har.stderr)")
    #expect(!har.stdout.contains("VICTIM"), "the outside file's content is in the HAR")
    #expect(har.stderr.contains("1 damaged history entry skipped"), "\(har.stderr)")
    let again = try runProcess(try reqbenchBinary, ["run", ws, "big"], timeout: 60)
    #expect(again.status == 0, "\(again.stderr)")
    #expect(try String(contentsOf: victim, encoding: .utf8) == "VICTIM\n", "the prune removed the outside file")
  }

  /// Every folder of the state folder that is a symbolic link (`oauth2` and `history-bodies`
  /// like the others) is refused before anything is sent, with exit 2: nothing lands where it
  /// points.
  @Test(arguments: subfolders)
  func aStateFolderThatIsALinkIsRefused(folder: String) throws {
    let (ws, dir) = try refusedWorkspace()
    let elsewhere = dir.appendingPathComponent("elsewhere")
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: dir.appendingPathComponent(".reqbench/w"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: dir.appendingPathComponent(".reqbench/w/" + folder).path, withDestinationPath: "../../elsewhere")
    let result = try runProcess(try reqbenchBinary, ["run", ws, "a"], timeout: 60)
    #expect(result.status == 2, "\(result.stderr)")
    #expect(
      result.stderr.contains("the state folder \(dir.path)/.reqbench/w/\(folder) is a symbolic link"), "\(result.stderr)")
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
  }

  /// `.reqbench`, `.reqbench/NAME`, `cache/` and `downloads/` are mode 0700 whatever the umask
  /// when a cached request and a download make them first, and no file in them is readable by
  /// others.
  @Test(arguments: ["022", "000"])
  func stateFoldersArePrivateWhateverTheUmask(umask: String) throws {
    let (ws, dir) = try workspaceFile(
      #"""
      {"version": 1, "requests": [
        {"name": "c", "url": "\#(try TestServer.fixture.url("/get?key=\(uniqueKey("c"))"))", "cache": {"seconds": 60}},
        {"name": "d", "url": "\#(try TestServer.fixture.url("/bytes/1000?key=\(uniqueKey("d"))"))", "download": {"to": "d.bin"}}]}
      """#)
    let result = try runProcess(
      URL(fileURLWithPath: "/bin/sh"),
      ["-c", "umask \(umask) && exec \"$0\" \"$@\"", try reqbenchBinary.path, "run", ws, "c", "d", "--no-history"], timeout: 60)
    #expect(result.status == 0, "\(result.stderr)")
    let state = dir.appendingPathComponent(".reqbench")
    var folders = [state.path]
    var files: [String] = []
    let walk = FileManager.default.enumerator(atPath: state.path)
    while let path = walk?.nextObject() as? String {
      var isDirectory: ObjCBool = false
      _ = FileManager.default.fileExists(atPath: state.path + "/" + path, isDirectory: &isDirectory)
      if isDirectory.boolValue { folders.append(state.path + "/" + path) } else { files.append(state.path + "/" + path) }
    }
    for folder in ["", "/w", "/w/cache", "/w/downloads"] {
      #expect(folders.contains(state.path + folder), "\(folder) was not made: \(folders)")
    }
    for path in folders + files {
      var info = stat()
      #expect(lstat(path, &info) == 0)
      let mode = info.st_mode & 0o777
      let wanted: mode_t = folders.contains(path) ? 0o700 : 0o600
      #expect(mode == wanted, "\(path): \(String(mode, radix: 8)) under umask \(umask)")
    }
  }

  /// The state folder carries a `.gitignore` of `*`: `git add .` beside a workspace never stages
  /// history, the cache, cookies or tokens; a state folder an older reqbench made without one
  /// gets it at the next command.
  @Test func gitNeverStagesTheStateFolder() throws {
    let (ws, dir) = try refusedWorkspace()
    #expect(try git(["init", "-q"], in: dir).status == 0)
    let run = try runProcess(try reqbenchBinary, ["run", ws, "a"], timeout: 60)
    #expect(run.status == 1, "\(run.stderr)")
    #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent(".reqbench/w/history.sqlite").path))
    let add = try git(["add", "."], in: dir)
    #expect(add.status == 0, "\(add.stderr)")
    #expect(try git(["ls-files"], in: dir).stdout == "w.json\n")
    // One an older reqbench made: the next command (one that only reads) adds it.
    try FileManager.default.removeItem(at: dir.appendingPathComponent(".reqbench/w/.gitignore"))
    let list = try runProcess(try reqbenchBinary, ["history", ws], timeout: 60)
    #expect(list.status == 0, "\(list.stderr)")
    #expect(try git(["add", "."], in: dir).status == 0)
    #expect(try git(["ls-files"], in: dir).stdout == "w.json\n")
  }

  /// Another program holds `history.sqlite` locked (an exclusive transaction open, as `sqlite3`
  /// or Python may): `run` waits 10 s at most, not once per statement, and says that the entry
  /// was not recorded, and why.
  @Test func aLockedHistoryIsWaitedForTenSecondsAtMost() throws {
    let (ws, dir) = try refusedWorkspace()
    _ = try runProcess(try reqbenchBinary, ["run", ws, "a"], timeout: 60)
    let holder = Process()
    holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    // Holds the lock for 40 s at most (killed below once `run` ended).
    holder.arguments = [
      "python3", "-c",
      """
      import sqlite3, sys, time
      db = sqlite3.connect(sys.argv[1], isolation_level=None)
      db.execute("PRAGMA locking_mode = EXCLUSIVE")
      db.execute("BEGIN EXCLUSIVE")
      db.execute("SELECT count(*) FROM entries").fetchall()
      print("locked", flush=True)
      time.sleep(40)
      """, dir.appendingPathComponent(".reqbench/w/history.sqlite").path,
    ]
    let output = Pipe()
    holder.standardOutput = output
    try holder.run()
    defer {
      // SIGKILL: a child of Foundation's Process inherits the test thread's blocked SIGTERM.
      kill(holder.processIdentifier, SIGKILL)
      holder.waitUntilExit()
    }
    let line = output.fileHandleForReading.availableData
    #expect(String(decoding: line, as: UTF8.self).hasPrefix("locked"))
    let started = Date()
    let result = try runProcess(try reqbenchBinary, ["run", ws, "a"], timeout: 60)
    let elapsed = Date().timeIntervalSince(started)
    #expect(result.status == 1, "\(result.stderr)")
    #expect(elapsed < 14, "ran \(elapsed) s")
    #expect(
      result.stderr.contains(
        "history not recorded: \(dir.path)/.reqbench/w/history.sqlite: stayed locked for 10 s by another process "
          + "(another reqbench, or a program with a transaction open on it, such as sqlite3): 1 entry not recorded"),
      "\(result.stderr)")
  }

  /// A valid SQLite file of another schema in place of `history.sqlite` (reqbench's version
  /// number on another program's table) is set aside like a damaged one, saying so: the run is
  /// recorded in a new history, which `history` lists.
  @Test func aHistoryOfAnotherSchemaIsSetAsideAndANewOneStarts() throws {
    let (ws, dir) = try refusedWorkspace()
    let state = dir.appendingPathComponent(".reqbench/w")
    try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
    let made = try python(
      """
      import sqlite3, sys
      db = sqlite3.connect(sys.argv[1])
      db.execute("CREATE TABLE entries(x)")
      db.execute("PRAGMA user_version = 4")
      db.commit()
      """, [state.appendingPathComponent("history.sqlite").path])
    #expect(made.status == 0, "\(made.stderr)")
    let run = try runProcess(try reqbenchBinary, ["run", ws, "a"], timeout: 60)
    #expect(run.status == 1)
    #expect(
      run.stderr.contains("\(state.path)/history.sqlite is not a reqbench history database ("), "\(run.stderr)")
    #expect(run.stderr.contains("moved to \(state.path)/history.sqlite.damaged-"), "\(run.stderr)")
    #expect(!run.stderr.contains("not recorded"), "\(run.stderr)")
    let history = try runProcess(try reqbenchBinary, ["history", ws], timeout: 60)
    #expect(history.status == 0, "\(history.stderr)")
    #expect(history.stdout.contains(" a "), "\(history.stdout)")
  }
}
