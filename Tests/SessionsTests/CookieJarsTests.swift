import Foundation
import RequestEngine
import TestSupport
import Sessions
import Testing
import Workspace
import WorkspaceTestSupport

/// The workspace side of the cookie jar: the `cookies` key, which jar `prepare` gives a
/// request, and the jar files in the state folder (no server: the jar is filled by hand here;
/// what curl does with it is tested against httpbin in `CookieJarTests` and `CookiesCommandTests`).
@Suite struct CookieJarsTests {
  let state = scratchURL("rb-jars")

  @Test func theCookiesKeyAndWhichJarARequestGets() throws {
    let ws = try workspace(
      #"""
      {"version": 1, "environments": {"dev": {}, "prod": {}}, "environment": "dev",
       "requests": [
         {"name": "with", "url": "http://127.0.0.1:1/a"},
         {"name": "without", "url": "http://127.0.0.1:1/b", "cookies": false}
       ]}
      """#)
    let jars = CookieJars(stateFolder: state)
    defer { try? FileManager.default.removeItem(at: state) }
    var sources = VariableSources()
    sources.cookies = jars
    let dev = try ws.prepare(try #require(ws.request(named: "with")), sources: sources)
    #expect(dev.cookieJar === jars.jar(environment: "dev"))
    sources.environment = "prod"
    let prod = try ws.prepare(try #require(ws.request(named: "with")), sources: sources)
    #expect(prod.cookieJar === jars.jar(environment: "prod"))
    #expect(prod.cookieJar !== dev.cookieJar)
    #expect(try ws.prepare(try #require(ws.request(named: "without")), sources: sources).cookieJar == nil)
    // No jars in the sources (--no-cookies, exports): none.
    #expect(try ws.prepare(requestNamed: "with").cookieJar == nil)

    sources.environment = nil
    var off = try workspace(#"{"version": 1, "cookies": false, "requests": [{"name": "r", "url": "http://127.0.0.1:1/"}]}"#)
    #expect(try off.prepare(try #require(off.request(named: "r")), sources: sources).cookieJar == nil)
    // A save writes the keys back as they were.
    off = try workspace(String(decoding: off.encoded(), as: UTF8.self))
    #expect(!off.cookies)
    let again = try workspace(String(decoding: ws.encoded(), as: UTF8.self))
    #expect(again.request(named: "without")?.cookies == false)
    #expect(again.request(named: "with")?.cookies == true)
  }

  @Test func aJarIsWrittenSoonAfterAChangeAndReadByTheNextProcess() throws {
    defer { try? FileManager.default.removeItem(at: state) }
    let first = CookieJars(stateFolder: state)
    let file = first.file(environment: "dev")
    #expect(file.url.path.hasSuffix("/cookies/env-dev.txt"))
    #expect(CookieJars.url(in: state, environment: nil).lastPathComponent == "workspace.txt")
    #expect(CookieJars.url(in: state, environment: "../x").lastPathComponent == "env-%2E.%2Fx.txt")
    file.jar.add([
      Cookie(domain: "127.0.0.1", name: "session", value: "abc"),
      Cookie(domain: "127.0.0.1", expires: 1, name: "old", value: "gone"),
    ])
    file.saveSoon()
    first.flush()
    let text = try String(contentsOf: file.url, encoding: .utf8)
    #expect(text.hasPrefix("# Netscape HTTP Cookie File\n"))
    #expect(text.contains("127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\tabc\n"))
    #expect(!text.contains("old"))  // expired: left out
    let mode = try FileManager.default.attributesOfItem(atPath: file.url.path)[.posixPermissions] as? Int
    #expect(mode == 0o600)

    // Another process (another CookieJars) reads it; what each adds survives the other's write.
    let second = CookieJars(stateFolder: state)
    #expect(second.jar(environment: "dev").cookies.map(\.name) == ["session"])
    second.jar(environment: "dev").add([Cookie(domain: "127.0.0.1", name: "theirs", value: "1")])
    second.file(environment: "dev").save()
    file.jar.add([Cookie(domain: "127.0.0.1", name: "mine", value: "2")])
    file.save()
    let merged = Cookie.parseFile(try String(contentsOf: file.url, encoding: .utf8)).cookies.map(\.name)
    #expect(Set(merged) == ["session", "theirs", "mine"])
    // A removal is not undone by what is on disk.
    #expect(file.remove { $0.name == "theirs" } == 1)
    #expect(!(try String(contentsOf: file.url, encoding: .utf8)).contains("theirs"))
    file.clear()
    #expect(Cookie.parseFile(try String(contentsOf: file.url, encoding: .utf8)).cookies.isEmpty)
  }

  /// Renamed environments take their jars along: a jar loaded before keeps serving the requests
  /// that hold it from its new file, a stale file under the new name goes, and swapped names
  /// swap their jars (through a temporary name that does not stay).
  @Test func renamedEnvironmentsTakeTheirJarsAlong() throws {
    defer { try? FileManager.default.removeItem(at: state) }
    func names(_ environment: String) throws -> [String] {
      let url = CookieJars.url(in: state, environment: environment)
      guard FileManager.default.fileExists(atPath: url.path) else { return [] }
      return Cookie.parseFile(try String(contentsOf: url, encoding: .utf8)).cookies.map(\.name).sorted()
    }
    let jars = CookieJars(stateFolder: state)
    for (environment, cookie) in [("dev", "d"), ("prod", "p"), ("stale", "s"), ("other", "o")] {
      let file = jars.file(environment: environment)
      file.jar.add([Cookie(domain: "127.0.0.1", name: cookie, value: "1")])
      file.save()
    }
    let held = jars.jar(environment: "dev")  // as a request being sent holds it

    // dev → staging (a loaded jar), stale's file stays for nobody: staging had no jar of its own.
    // prod ↔ other: swapped.
    jars.renameJars(["staging": "dev", "prod": "other", "other": "prod", "gone": "never-had-one", "same": "same"])
    #expect(try names("staging") == ["d"])
    #expect(try names("dev").isEmpty)
    #expect(try names("prod") == ["o"] && names("other") == ["p"])
    #expect(jars.jar(environment: "staging") === held)
    #expect(jars.file(environment: "staging").url.lastPathComponent == "env-staging.txt")
    let left = try FileManager.default.contentsOfDirectory(atPath: StateFolder.cookies(in: state).path)
    #expect(left.sorted() == ["env-other.txt", "env-prod.txt", "env-staging.txt", "env-stale.txt"])
    // The jar held keeps writing, now to the new file.
    held.add([Cookie(domain: "127.0.0.1", name: "later", value: "2")])
    jars.file(environment: "staging").saveSoon()  // as the jar's onChange does for curl's changes
    jars.flush()
    let text = try String(contentsOf: CookieJars.url(in: state, environment: "staging"), encoding: .utf8)
    #expect(try names("staging") == ["d", "later"], "\(text)")
    #expect(try names("dev").isEmpty)

    // A file under the new name that is no renamed jar's (a deleted environment's) goes.
    jars.renameJars(["stale": "never-had-one"])
    #expect(try names("stale").isEmpty)
    #expect(jars.jar(environment: "stale").cookies.isEmpty)
  }

  /// Threads asking for a jar at once while its file is first read: each waits for the read, so
  /// none sends with a jar half loaded (20 rounds of 8 threads, a file of 400 cookies).
  @Test func threadsAskingForAJarFirstAllSeeItLoaded() throws {
    defer { try? FileManager.default.removeItem(at: state) }
    let url = CookieJars.url(in: state, environment: "dev")
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    // Twenty hosts of twenty: within the jar's bounds (180 a host).
    let cookies = (0..<400).map { Cookie(domain: "h\($0 % 20).test", name: "c\($0)", value: "v\($0)") }
    try Cookie.file(cookies).write(to: url, atomically: true, encoding: .utf8)
    let seen = LockedCounts()
    for _ in 0..<20 {
      let jars = CookieJars(stateFolder: state)
      DispatchQueue.concurrentPerform(iterations: 8) { _ in
        seen.append(jars.jar(environment: "dev").cookies.count)
      }
    }
    #expect(seen.all.count == 160)
    #expect(seen.all.allSatisfy { $0 == 400 }, "counts seen: \(Set(seen.all).sorted())")
  }

  /// A jar file over the bounds (another program's, or one written before them) loads as the
  /// newest cookies within them and is written back so, once: the next command reads no more.
  @Test func aJarFileOverTheBoundsIsCutAndWrittenBack() throws {
    defer { try? FileManager.default.removeItem(at: state) }
    let url = CookieJars.url(in: state, environment: nil)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    let cookies = (0..<40_000).map { Cookie(domain: "h\($0 % 50).test", name: "c\($0)", value: "v") }
    try Cookie.file(cookies).write(to: url, atomically: true, encoding: .utf8)
    let jars = CookieJars(stateFolder: state)
    #expect(jars.jar(environment: nil).cookies.count == 3000)
    jars.flush()
    let written = Cookie.parseFile(try String(contentsOf: url, encoding: .utf8)).cookies
    #expect(written.count == 3000)
    // The newest were kept, oldest first in the file.
    #expect(written.last?.name == "c39999")
    #expect(!written.contains { $0.name == "c0" })
  }

  /// The three-way rule, cookie by cookie: what this process left alone takes the file's version
  /// (or its absence); what it changed keeps its own.
  @Test func theMergeKeepsEachSidesChangesAndBringsNothingBack() {
    func c(_ name: String, _ value: String = "1", expires: Int64 = 0) -> Cookie {
      Cookie(domain: "127.0.0.1", expires: expires, name: name, value: value)
    }
    let base = [c("kept"), c("theyDeleted"), c("weDeleted"), c("theyChanged"), c("weChanged"), c("bothChanged")]
    let ours = [c("kept"), c("theyDeleted"), c("theyChanged"), c("weChanged", "2"), c("bothChanged", "ours"), c("weAdded")]
    let theirs = [
      c("kept"), c("weDeleted"), c("theyChanged", "3"), c("weChanged"), c("bothChanged", "theirs"), c("theyAdded"),
    ]
    let change = CookieJarFile.merge(base: base, ours: ours, theirs: theirs)
    #expect(Set(change.add.map(\.name)) == ["theyChanged", "theyAdded"])
    #expect(change.add.first { $0.name == "theyChanged" }?.value == "3")
    #expect(change.remove == [c("theyDeleted").key])
    // Nothing changed on either side: nothing to do.
    let none = CookieJarFile.merge(base: base, ours: base, theirs: base)
    #expect(none.add.isEmpty && none.remove.isEmpty)
  }

  /// Two processes on one jar file (two `CookieJars`, each with its own idea of the file): a
  /// cookie one deletes or lets expire is not brought back by the other's write; `rm` from a
  /// third while they run sticks; what each adds survives.
  @Test func aCookieDeletedByOneProcessDoesNotComeBackFromAnother() throws {
    defer { try? FileManager.default.removeItem(at: state) }
    let seed = CookieJars(stateFolder: state).file(environment: nil)
    seed.jar.add([
      Cookie(domain: "127.0.0.1", name: "session", value: "s"), Cookie(domain: "127.0.0.1", name: "theme", value: "t"),
      Cookie(domain: "127.0.0.1", name: "brief", value: "b"),
    ])
    seed.save()
    let a = CookieJars(stateFolder: state).file(environment: nil)
    let b = CookieJars(stateFolder: state).file(environment: nil)
    #expect(a.jar.cookies.count == 3 && b.jar.cookies.count == 3)
    // a logs out (session deleted) and is told a cookie expired; it writes.
    a.jar.remove { $0.name == "session" }
    a.jar.add([Cookie(domain: "127.0.0.1", expires: 1, name: "brief", value: "b")])
    a.save()
    // b, which left them alone, logs in elsewhere and writes: session and brief stay gone.
    b.jar.add([Cookie(domain: "127.0.0.1", name: "cart", value: "c")])
    b.save()
    var names = Set(Cookie.parseFile(try String(contentsOf: b.url, encoding: .utf8)).cookies.map(\.name))
    #expect(names == ["theme", "cart"])
    #expect(Set(b.jar.cookies.filter { !$0.isExpired(at: Date()) }.map(\.name)) == ["theme", "cart"], "b sends what the file says")
    // `reqbench cookies rm theme` from a third process while a and b run.
    let rm = CookieJars(stateFolder: state).file(environment: nil)
    #expect(rm.remove { $0.name == "theme" } == 1)
    // a sends next: it takes the other writes in first (the TUI does before each send).
    a.takeOtherWrites()
    #expect(Set(a.jar.cookies.filter { !$0.isExpired(at: Date()) }.map(\.name)) == ["cart"])
    // b changes cart and writes without having looked: theme stays removed, cart is b's.
    b.jar.add([Cookie(domain: "127.0.0.1", name: "cart", value: "c2")])
    b.save()
    let final = Cookie.parseFile(try String(contentsOf: b.url, encoding: .utf8)).cookies
    names = Set(final.map(\.name))
    #expect(names == ["cart"])
    #expect(final.first?.value == "c2")
    // The file removed by hand: as good as emptied for what a process did not change.
    try FileManager.default.removeItem(at: a.url)
    a.takeOtherWrites()
    #expect(a.jar.cookies.isEmpty)
  }

  /// Two writers of one jar file at once (two `CookieJars`, as two processes would be: the lock
  /// is an `flock` on the folder, which two opens in one process contend for too), each adding a
  /// cookie and writing, 30 times: every cookie of both is in the file at the end.
  @Test func concurrentWritersOfOneJarLoseNothing() throws {
    defer { try? FileManager.default.removeItem(at: state) }
    let files = [CookieJars(stateFolder: state).file(environment: "dev"), CookieJars(stateFolder: state).file(environment: "dev")]
    DispatchQueue.concurrentPerform(iterations: 2) { writer in
      for i in 0..<30 {
        files[writer].jar.add([Cookie(domain: "127.0.0.1", name: "w\(writer)-\(i)", value: "1")])
        files[writer].save()
      }
    }
    let names = Set(Cookie.parseFile(try String(contentsOf: files[0].url, encoding: .utf8)).cookies.map(\.name))
    #expect(names.count == 60, "lost: \(Set((0..<2).flatMap { w in (0..<30).map { "w\(w)-\($0)" } }).subtracting(names).sorted())")
  }

  @Test func aLinkInPlaceOfTheJarIsRefusedAndNeverWrittenThrough() throws {
    defer { try? FileManager.default.removeItem(at: state) }
    let outside = state.appendingPathComponent("outside.txt")
    try FileManager.default.createDirectory(at: StateFolder.cookies(in: state), withIntermediateDirectories: true)
    try "keep\n".write(to: outside, atomically: true, encoding: .utf8)
    try FileManager.default.createSymbolicLink(
      atPath: CookieJars.url(in: state, environment: "dev").path, withDestinationPath: outside.path)
    let errors = LockedErrors()
    let jars = CookieJars(stateFolder: state) { errors.append($0) }
    let file = jars.file(environment: "dev")
    file.jar.add([Cookie(domain: "127.0.0.1", name: "a", value: "1")])
    file.save()
    #expect(try String(contentsOf: outside, encoding: .utf8) == "keep\n")
    #expect(errors.all.first?.message.contains("is not a regular file") == true)
    #expect(errors.all.count == 1)  // said once
  }
}

final class LockedErrors: @unchecked Sendable {
  private let lock = NSLock()
  private var errors: [FileError] = []
  func append(_ error: FileError) { lock.withLock { errors.append(error) } }
  var all: [FileError] { lock.withLock { errors } }
}

final class LockedCounts: @unchecked Sendable {
  private let lock = NSLock()
  private var counts: [Int] = []
  func append(_ count: Int) { lock.withLock { counts.append(count) } }
  var all: [Int] { lock.withLock { counts } }
}
