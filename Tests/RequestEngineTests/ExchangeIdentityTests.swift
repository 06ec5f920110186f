import Foundation
import RequestEngine
import TestSupport
import Testing

/// What makes two sends the same exchange (`ExchangeIdentity`): de-duplication and the throttle
/// merge only requests that send the same bytes as the same user and accept the same answers;
/// the response cache keys the user in too (`Request.credentialIdentity`).
@Suite("Exchange identity", .serialized)
struct ExchangeIdentityTests {
  /// One change of each field that shapes the exchange. A field added to `Request` must be added
  /// here (and to `ExchangeIdentity`) or to `Request.fieldsLeftOutOfIdentity` with its reason.
  static let changes: [String: @Sendable (inout Request) -> Void] = [
    "method": { $0.method = .HEAD },
    "url": { $0.url += "?b=2" },
    "headers": { $0.headers["X-Tenant"] = "b" },
    "body": { $0.body = .text("other") },
    "timeouts": { $0.timeouts.deadline = 5 },
    "retry": { $0.retry = RetryPolicy() },
    "followRedirects": { $0.followRedirects = false },
    "maxRedirects": { $0.maxRedirects = 3 },
    "insecure": { $0.insecure = true },
    "cache": { $0.cache = CachePolicy(seconds: 60) },
    "download": { $0.download = DownloadTarget(path: "/tmp/rb-identity-download") },
    "digest": { $0.digest = DigestCredentials(user: "ada", password: "pw") },
    "tls": { $0.tls = TLSSettings(pinnedPublicKey: "sha256//AAAA") },
    "maxBodyBytes": { $0.maxBodyBytes = 10 },
    "cookieJar": { $0.cookieJar = jar },
    "stream": { $0.stream = .sse },
    "reconnect": { $0.reconnect = true },
    "authorizer": { $0.authorizer = authorizer(identity: "oauth2 alice", header: "Bearer alice") },
    "secretResponseFields": { $0.secretResponseFields = ["access_token"] },
    "compressed": { $0.compressed = false },
    "proxy": { $0.proxy = "http://proxy.test:3128" },
    "noProxy": { $0.noProxy = "localhost" },
    "requestTarget": { $0.requestTarget = "*" },
  ]
  static let jar = CookieJar(name: "identity-test")

  static func authorizer(identity: String?, header: String) -> Authorizer {
    Authorizer(label: "test", identity: identity) { _, _, done in
      done(.success(Authorization(header: header, secrets: [String(header.dropFirst(7))])))
    }
  }

  /// The names of the stored fields of `Request` (behind its copy-on-write box).
  static func requestFieldNames() -> Set<String> {
    func children(_ value: Any) -> Mirror.Children { Mirror(reflecting: value).children }
    let request = Request(url: "http://a.test/")
    guard let fields = children(request).first(where: { $0.label == "fields" })?.value,
      let box = children(fields).first(where: { $0.label == "box" })?.value,
      let value = children(box).first(where: { $0.label == "value" })?.value
    else { return [] }
    return Set(children(value).compactMap(\.label))
  }

  @Test func everyFieldOfARequestIsInTheIdentityOrSaysWhyNot() throws {
    let names = Self.requestFieldNames()
    #expect(names.count > 20, "the fields were found: \(names.sorted())")
    let inIdentity = Set(Self.changes.keys)
    let leftOut = Set(Request.fieldsLeftOutOfIdentity.keys)
    #expect(inIdentity.isDisjoint(with: leftOut))
    #expect(names == inIdentity.union(leftOut), "unclassified: \(names.subtracting(inIdentity.union(leftOut)).sorted()); gone: \(inIdentity.union(leftOut).subtracting(names).sorted())")
    let base = Request(url: "http://a.test/x", headers: ["X-Tenant": "a"], body: .text("one"))
    for (name, change) in Self.changes {
      var changed = base
      change(&changed)
      #expect(ExchangeIdentity(changed) != ExchangeIdentity(base), "changing \(name) must make another exchange")
    }
    // What only describes the request leaves it the same exchange.
    var labelled = base
    labelled.name = "other"
    labelled.priority = .high
    labelled.group = "g"
    labelled.tags = ["batch": "b"]
    labelled.validation = Validation(status: [200...201])
    #expect(ExchangeIdentity(labelled) == ExchangeIdentity(base))
  }

  @Test func anAuthorizersIdentityNotItsObjectMakesTheUser() {
    var alice = Request(url: "http://a.test/me")
    alice.authorizer = Self.authorizer(identity: "oauth2 alice", header: "Bearer alice")
    var aliceAgain = alice
    aliceAgain.authorizer = Self.authorizer(identity: "oauth2 alice", header: "Bearer alice")
    var bob = alice
    bob.authorizer = Self.authorizer(identity: "oauth2 bob", header: "Bearer bob")
    #expect(ExchangeIdentity(alice) == ExchangeIdentity(aliceAgain))
    #expect(ExchangeIdentity(alice) != ExchangeIdentity(bob))
    // Without an identity, each authorizer is a user of its own.
    var anonymous = alice
    anonymous.authorizer = Self.authorizer(identity: nil, header: "Bearer x")
    var anonymousAgain = alice
    anonymousAgain.authorizer = Self.authorizer(identity: nil, header: "Bearer x")
    #expect(ExchangeIdentity(anonymous) != ExchangeIdentity(anonymousAgain))
  }

  @Test func theCredentialIdentityNamesEveryCredentialButNoLabel() {
    var request = Request(url: "http://a.test/x", headers: ["Accept": "*/*", "X-Api-Key": "k-123", "Cookie": "s=1"])
    #expect(request.credentialIdentity == ["header cookie: s=1"])
    request.secrets = ["k-123"]
    #expect(request.credentialIdentity == ["header x-api-key: k-123", "header cookie: s=1"])
    request.cookieJar = Self.jar
    request.digest = DigestCredentials(user: "ada", password: "pw")
    #expect(request.credentialIdentity.contains("cookie jar identity-test"))
    #expect(request.credentialIdentity.contains("digest ada\u{1F}pw"))
    // An authorizer's identity stands for the header it adds (which changes with each token).
    request.authorizer = Self.authorizer(identity: "oauth2 alice", header: "Bearer alice")
    request.headers["Authorization"] = "Bearer token-1"
    let withToken = request.credentialIdentity
    request.headers["Authorization"] = "Bearer token-2"
    #expect(request.credentialIdentity == withToken)
    #expect(withToken.contains("authorizer oauth2 alice"))
    #expect(Request(url: "http://a.test/x").credentialIdentity.isEmpty)
  }

  // Two users of one URL at once: each gets the answer to its own credential.
  @Test func requestsOfDifferentUsersAreNotMerged() throws {
    let agent = Agent()
    let recorder = EventRecorder(agent)
    let key = uniqueKey()
    let url = try fixture("/delay/0.3?key=\(key)")
    var alice = Request(url: url)
    alice.authorizer = Self.authorizer(identity: "oauth2 alice", header: "Bearer alice")
    var aliceAgain = Request(url: url)
    aliceAgain.authorizer = Self.authorizer(identity: "oauth2 alice", header: "Bearer alice")
    var bob = Request(url: url)
    bob.authorizer = Self.authorizer(identity: "oauth2 bob", header: "Bearer bob")
    let ids = [alice, aliceAgain, bob].map { agent.send($0) }
    #expect(recorder.waitForFinished(count: 3))
    let byID = Dictionary(uniqueKeysWithValues: recorder.finished.map { ($0.id, $0) })
    func authorization(_ id: ExchangeID) throws -> String? {
      try byID[id]?.json()["headers"]?["Authorization"]?.stringValue
    }
    #expect(try authorization(ids[0]) == "Bearer alice")
    #expect(try authorization(ids[1]) == "Bearer alice")
    #expect(byID[ids[1]]?.deduplicated == true, "the same user shares the transfer")
    #expect(try authorization(ids[2]) == "Bearer bob")
    #expect(byID[ids[2]]?.deduplicated == false)
    #expect(try hits(key) == 2)
  }

  // A verifying request never shares the transfer of one that does not verify: against the
  // self-signed server it fails whatever else is in flight; so does a wrong pin.
  @Test func tlsPoliciesAreNeverMerged() throws {
    let agent = Agent()
    let recorder = EventRecorder(agent)
    let url = try TestServer.nginxTLS.url("/1k.bin?key=" + uniqueKey())
    let insecure = agent.send(Request(url: url, insecure: true))
    let strict = agent.send(Request(url: url))
    let pinned = agent.send(
      Request(url: url, insecure: true, tls: TLSSettings(pinnedPublicKey: "sha256//" + String(repeating: "A", count: 43) + "=")))
    #expect(recorder.waitForFinished(count: 3))
    let byID = Dictionary(uniqueKeysWithValues: recorder.finished.map { ($0.id, $0) })
    #expect(byID[insecure]?.state == .succeeded)
    #expect(byID[strict]?.state == .failed)
    #expect(byID[strict]?.deduplicated == false)
    #expect(byID[pinned]?.state == .failed)
    #expect(byID[pinned]?.error?.transport == .publicKeyNotPinned)
  }

  // A request that does not follow redirects gets the redirect, one that does gets where it leads.
  @Test func redirectPoliciesAreNeverMerged() throws {
    let agent = Agent()
    let recorder = EventRecorder(agent)
    let url = try httpbin("/redirect-to?url=/get&key=" + uniqueKey())
    let follows = agent.send(Request(url: url))
    let stays = agent.send(Request(url: url, followRedirects: false))
    #expect(recorder.waitForFinished(count: 2))
    let byID = Dictionary(uniqueKeysWithValues: recorder.finished.map { ($0.id, $0) })
    #expect(byID[follows]?.response?.status == 200)
    #expect(byID[stays]?.response?.status == 302)
    #expect(byID[stays]?.deduplicated == false)
  }

  // The cache serves a response only to the user it was fetched for: another bearer token or
  // another OAuth 2.0 identity misses; the same identity with a renewed token hits.
  @Test func theCacheServesAResponseOnlyToItsUser() throws {
    let folder = URL(fileURLWithPath: scratchURL("rb-cache-identity").path)
    defer { try? FileManager.default.removeItem(at: folder) }
    let cache = ResponseCache(folder: folder, digestKey: [UInt8](repeating: 3, count: 32))
    let agent = Agent(configuration: Agent.Configuration(cache: cache))
    let policy = CachePolicy(seconds: 600)
    let url = try fixture("/anything?key=\(uniqueKey())")

    var ada = Request(url: url, headers: ["Authorization": "Bearer ada-token"], cache: policy)
    ada.secrets = ["ada-token"]
    #expect(agent.sendAndWait(ada).fromCache == false)
    #expect(agent.sendAndWait(ada).fromCache == true)
    var grace = ada
    grace.headers["Authorization"] = "Bearer grace-token"
    grace.secrets = ["grace-token"]
    let graces = agent.sendAndWait(grace)
    #expect(graces.fromCache == false)
    #expect(try graces.json()["headers"]?["Authorization"] == "Bearer grace-token")
    // No credential is stored in the metadata, as it is or as a plain digest.
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasSuffix(".json") {
      let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
      #expect(!text.contains("ada-token") && !text.contains("grace-token"))
    }

    var alice = Request(url: url + "&oauth", cache: policy)
    alice.authorizer = Self.authorizer(identity: "oauth2 alice", header: "Bearer alice-1")
    #expect(agent.sendAndWait(alice).fromCache == false)
    var aliceRenewed = alice
    aliceRenewed.authorizer = Self.authorizer(identity: "oauth2 alice", header: "Bearer alice-2")
    #expect(agent.sendAndWait(aliceRenewed).fromCache == true)
    var bob = alice
    bob.authorizer = Self.authorizer(identity: "oauth2 bob", header: "Bearer bob-1")
    let bobs = agent.sendAndWait(bob)
    #expect(bobs.fromCache == false)
    #expect(try bobs.json()["headers"]?["Authorization"] == "Bearer bob-1")
  }
}
