import Foundation
import RequestEngine
import Testing
import Workspace

/// The workspace side of the cookie jar (issue 14): the `cookies` key, which jar `prepare` gives a
/// request, and the jar files in the state folder (no server: the jar is filled by hand here;
/// what curl does with it is tested against httpbin in `CookieJarTests` and `CookiesCommandTests`).
@Suite struct CookieJarsTests {
  let state = FileManager.default.temporaryDirectory.appendingPathComponent("rb-jars-" + UUID().uuidString)

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
