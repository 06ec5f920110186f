import Digest
import Foundation
import History
import TestSupport
import Sessions
import Testing

@testable import RequestEngine
@testable import Workspace
import WorkspaceTestSupport

/// What a workspace keeps in its state folder (the cache, partial downloads, tokens, chains'
/// values, the stamps) is made, opened, listed and removed only there: a name read back from a
/// file never becomes a path elsewhere, a link where a folder or a file belongs is refused,
/// never followed, and every folder is made mode 0700 with the state folder's `.gitignore`.
@Suite("State folder")
struct StateFolderTests {
  let root: URL
  var state: URL { root.appendingPathComponent("ws/.reqbench/w") }
  var elsewhere: URL { root.appendingPathComponent("elsewhere") }

  init() throws {
    root = try makeTemporaryDirectory()
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
  }

  func mode(_ url: URL) -> mode_t {
    var info = stat()
    return lstat(url.path, &info) == 0 ? info.st_mode & 0o7777 : 0
  }

  func write(_ text: String, _ url: URL) throws {
    try text.write(to: url, atomically: false, encoding: .utf8)
  }

  @Test func onlyNamesOfOneComponentAreNames() {
    for name in [
      "20261130T014636.123456Z-42-9f3a61c0", String(repeating: "ab", count: 32), "env-caf%C3%A9", "café", "a..b", "x_y-z.json",
    ] {
      #expect(StateFiles.isValidName(name), "\(name)")
    }
    for name in [
      "", ".", "..", ".hidden", "a/b", "../victim", "../../victim\u{0}", "a\u{0}b", "a b", "a\nb", "a\\b", "~",
      String(repeating: "a", count: 201),
    ] {
      #expect(!StateFiles.isValidName(name), "\(name.debugDescription)")
      #expect(StateFiles.path(name, in: "/s", suffix: ".body") == nil)
    }
    // The names reqbench makes from names in a workspace (environments, chains) always are.
    for name in ["a/b", "..", ".x", "\u{0}", "dev", "café", String(repeating: "é/", count: 150)] {
      #expect(StateFiles.isValidName(StateFolder.fileName(for: name)), "\(name.debugDescription)")
    }
    #expect(StateFolder.fileName(for: "dev") == "dev")
  }

  /// A cache entry's metadata names its body by a generation: one that makes a path out of the
  /// cache folder (`../../victim`) is damage; the file it would name is neither listed, nor
  /// served, nor removed.
  @Test func aCacheGenerationThatIsAPathNamesNoFile() throws {
    let cache = state.appendingPathComponent("cache")
    // `k.` + `../../../../../victim` + `.body`: through the folder `k...` and up four folders, to
    // the workspace's folder.
    try FileManager.default.createDirectory(at: cache.appendingPathComponent("k..."), withIntermediateDirectories: true)
    let victim = root.appendingPathComponent("ws/victim.body")
    try write("VICTIM\n", victim)
    let now = Date().timeIntervalSince1970
    try write(
      #"""
      {"format": \#(ResponseCache.format), "key": "k", "name": "n", "generation": "../../../../../victim", "version": 1, "createdAt": \#(now),
       "expiresAt": \#(now + 3600), "status": 200, "bodyBytes": 7, "bodySha256": "\#(SHA256.hex(Array("VICTIM\n".utf8)))",
       "headers": [], "url": "http://127.0.0.1:1/"}
      """#, cache.appendingPathComponent("k.json"))
    let store = ResponseCache(folder: cache)
    #expect(store.list().isEmpty)
    store.clear()
    store.sweep(now: Date().addingTimeInterval(400 * 86_400))
    #expect(try String(contentsOf: victim, encoding: .utf8) == "VICTIM\n")
  }

  /// Every store makes its folder mode 0700 (and the state folder, with its `.gitignore`,
  /// whichever comes first), whatever the umask gives a plain `mkdir`.
  @Test func everyFolderIsMadePrivateWhicheverStoreMakesItFirst() throws {
    let request = Request(name: "c", url: "http://127.0.0.1:1/c", cache: CachePolicy(seconds: 60))
    ResponseCache(folder: state.appendingPathComponent("cache"))
      .store(Response(status: 200, body: .memory(Array("{}".utf8))), for: request, policy: CachePolicy(seconds: 60))
    try DownloadStore(directory: state.appendingPathComponent("downloads").path).ensureDirectory()
    try ChainCaptures(folder: StateFolder.chains(in: state)).save(FlowOutcome(kind: .chain, name: "c", state: .succeeded))
    try StateFolder.makeFolder(StateFolder.oauth2(in: state))
    for folder in [".reqbench", ".reqbench/w", ".reqbench/w/cache", ".reqbench/w/downloads", ".reqbench/w/chains", ".reqbench/w/oauth2"] {
      #expect(mode(root.appendingPathComponent("ws/" + folder)) == 0o700, "\(folder): \(String(mode(root.appendingPathComponent("ws/" + folder)), radix: 8))")
    }
    #expect(try String(contentsOf: state.appendingPathComponent(".gitignore"), encoding: .utf8).hasSuffix("\n*\n"))
    #expect(mode(state.appendingPathComponent(".gitignore")) == 0o600)
  }

  /// A folder an earlier version made open to others (0755) is made private when a store uses it.
  @Test func aFolderOpenToOthersIsMadePrivateWhenUsed() throws {
    let cache = state.appendingPathComponent("cache")
    try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
    chmod(cache.path, 0o755)
    try StateFolder.makeFolder(cache)
    #expect(mode(cache) == 0o700)
  }

  /// A link where a folder of the state folder belongs is refused by the store that uses it:
  /// nothing is written, listed or removed where it points.
  @Test func everyStoreRefusesALinkWhereItsFolderBelongs() throws {
    try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
    let kept = elsewhere.appendingPathComponent("kept.json")
    try write("{}", kept)
    let old = elsewhere.appendingPathComponent("old.body")
    try write("x", old)
    try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-400 * 86_400)], ofItemAtPath: old.path)
    for folder in StateFolder.subfolders {
      try FileManager.default.createSymbolicLink(
        at: state.appendingPathComponent(folder), withDestinationURL: elsewhere)
      #expect(throws: StateFolderError.self, "\(folder)") {
        try StateFolder.checked(forWorkspace: root.appendingPathComponent("ws/w.json"), override: nil)
      }
      #expect(throws: StateFolderError.self, "--state-dir \(folder)") {
        try StateFolder.checked(forWorkspace: root.appendingPathComponent("ws/w.json"), override: state)
      }
    }
    #expect(throws: FileError.self) { try OAuth2Tokens(stateFolder: state).clear() }
    #expect(throws: FileError.self) {
      try ChainCaptures(folder: StateFolder.chains(in: state)).save(FlowOutcome(kind: .chain, name: "c", state: .succeeded))
    }
    #expect(throws: (any Error).self) { try DownloadStore(directory: state.appendingPathComponent("downloads").path).ensureDirectory() }
    #expect(DownloadStore(directory: state.appendingPathComponent("downloads").path).pending().isEmpty)
    let cache = ResponseCache(folder: state.appendingPathComponent("cache"))
    cache.store(
      Response(status: 200, body: .memory(Array("{}".utf8))), for: Request(name: "c", url: "http://127.0.0.1:1/c", cache: CachePolicy(seconds: 60)),
      policy: CachePolicy(seconds: 60))
    cache.clear()
    cache.sweep(now: Date())
    #expect(throws: FileError.self) { try StateFolder.makeFolder(state.appendingPathComponent("cookies")) }
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).sorted() == ["kept.json", "old.body"])
  }

  /// A link where one of the state folder's own files belongs (the cache's key, the sweep's
  /// stamp) is refused, and what it points at is neither written nor created.
  @Test func aLinkWhereAStateFileBelongsIsNeverFollowed() throws {
    try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      at: state.appendingPathComponent("cache.key"), withDestinationURL: elsewhere.appendingPathComponent("key"))
    #expect(throws: FileError.self) { try StateFolder.cacheDigestKey(in: state) }
    try FileManager.default.createSymbolicLink(
      at: state.appendingPathComponent(".swept"), withDestinationURL: elsewhere.appendingPathComponent("stamp"))
    SweepStamp(folder: state.path).stamp()
    #expect(SweepStamp(folder: state.path).isDue(interval: 600, now: Date()))
    #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
    for file in ["cache.key", ".swept"] {
      #expect(throws: StateFolderError.self, "\(file)") {
        try StateFolder.checked(forWorkspace: root.appendingPathComponent("ws/w.json"), override: nil)
      }
      try FileManager.default.removeItem(at: state.appendingPathComponent(file))
    }
    #expect(try StateFolder.cacheDigestKey(in: state).count == 32)
  }
}
