import Foundation
import RequestEngine
import TestSupport
import Testing

/// A jar is bounded as browsers bound theirs (`CookieLimits`: 180 a host, 3,000 in all; expired
/// first, then the oldest): a server that plants cookies on every response cannot grow it
/// without bound, and a huge jar file is cut before curl sees it.
@Suite("Cookie limits")
struct CookieLimitsTests {
  func cookie(_ host: String, _ name: String, expires: Int64 = 0) -> Cookie {
    Cookie(domain: host, expires: expires, name: name, value: "v")
  }

  @Test func expiredThenTheOldestOfAHostThenTheOldestInAll() {
    let limits = CookieLimits(perHost: 2, total: 3)
    let now = Date(timeIntervalSince1970: 1_000_000)
    let cookies = [
      cookie("a.test", "a1"), cookie("a.test", "a2"), cookie("b.test", "gone", expires: 999_000),
      cookie("A.test", "a3"), cookie("b.test", "b1"), cookie("c.test", "c1"),
    ]
    let evicted = limits.evictions(oldestFirst: cookies, now: now)
    // Expired first; a.test keeps its two newest; of the four left, the oldest goes.
    #expect(evicted == Set(["b.test\t/\tgone", "a.test\t/\ta1", "a.test\t/\ta2"].map { $0 }))
    #expect(limits.kept(oldestFirst: cookies, now: now).map(\.name) == ["a3", "b1", "c1"])
    #expect(limits.evictions(oldestFirst: Array(cookies.prefix(2)), now: now).isEmpty)
  }

  // A list over the bounds (a jar file of 40,000 lines) is cut before curl sees it: the jar
  // holds the newest, within both bounds, and the order of age survives a reload.
  @Test func addingAHugeListKeepsTheNewestWithinTheBounds() {
    let jar = CookieJar()
    var cookies: [Cookie] = []
    for host in 0..<20 {
      for index in 0..<2000 { cookies.append(cookie("h\(host).test", "c\(index)")) }
    }
    jar.add(cookies)
    let held = jar.cookies
    #expect(held.count == 3000)
    #expect(Dictionary(grouping: held, by: \.host).values.allSatisfy { $0.count <= 180 })
    // The newest 180 of each host, and of those the newest 3,000: 16 hosts whole, 120 of h3.
    #expect(Set(held.map(\.host)) == Set((3..<20).map { "h\($0).test" }))
    #expect(held.filter { $0.host == "h3.test" }.count == 120)
    #expect(held.filter { $0.host == "h19.test" }.map(\.name).contains("c1999"))
    #expect(!held.contains { $0.name == "c1819" })
    let reloaded = CookieJar()
    reloaded.add(jar.cookiesOldestFirst)
    #expect(reloaded.cookiesOldestFirst == jar.cookiesOldestFirst)
  }

  // Each response plants 50 cookies on one host: the jar keeps the 180 newest, the first
  // responses' cookies go first, and those it keeps are sent.
  @Test func aServerPlantingCookiesOnEveryResponseCannotGrowTheJar() throws {
    let agent = Agent()
    defer { agent.shutdown() }
    let jar = CookieJar()
    for round in 0..<5 {
      let names = (0..<50).map { "r\(round)n\($0)=v" }.joined(separator: "&")
      var plant = Request(url: try fixture("/cookies/set?" + names))
      plant.cookieJar = jar
      #expect(agent.sendAndWait(plant).state == .succeeded)
    }
    let held = jar.cookies
    #expect(held.count == 180)
    #expect(!held.contains { $0.name.hasPrefix("r0n") }, "the oldest response's cookies went first")
    #expect(held.filter { $0.name.hasPrefix("r1n") }.count == 30)
    #expect(held.filter { $0.name.hasPrefix("r4n") }.count == 50)
    var echo = Request(url: try fixture("/cookies"))
    echo.cookieJar = jar
    // curl sends at most 150 of them (its own bound on a Cookie header), none evicted.
    let sent = try #require(try agent.sendAndWait(echo).json()["cookies"]?.objectValue)
    #expect(sent.count == 150)
    #expect(!sent.members.contains { $0.key.hasPrefix("r0n") })
  }
}
