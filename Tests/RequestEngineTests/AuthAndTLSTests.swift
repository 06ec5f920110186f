import Foundation
import RequestEngine
import TestSupport
import Testing

/// Engine scenario "Redirects, authentication challenges, TLS": Digest answered by curl
/// (httpbin), a custom CA bundle and a pinned public key (the self-signed TLS nginx).
@Suite("Digest auth and TLS settings")
struct AuthAndTLSTests {
  @Test func digestAnswersTheChallenge() throws {
    let url = try httpbin("/digest-auth/auth/ada/lovelace")
    let ok = Agent().sendAndWait(Request(url: url, digest: DigestCredentials(user: "ada", password: "lovelace")))
    #expect(ok.state == .succeeded, "\(ok.error?.message ?? "")")
    #expect(try ok.json()["user"] == "ada")
    let wrong = Agent().sendAndWait(Request(url: url, digest: DigestCredentials(user: "ada", password: "babbage")))
    #expect(wrong.response?.status == 401)
    #expect(Agent().sendAndWait(Request(url: url)).response?.status == 401)
    // The password never travels in a header, and redaction masks it.
    let request = Request(url: url, secrets: ["lovelace"], digest: DigestCredentials(user: "ada", password: "lovelace"))
    #expect(request.redacted().digest?.password == "••••")
  }

  func caFile() throws -> String {
    try #require(ProcessInfo.processInfo.environment["REQBENCH_TLS_CA"], "REQBENCH_TLS_CA is not set: run the tests with `bash .ci/test`")
  }

  /// `sha256//BASE64` of the certificate's public key, as curl's --pinnedpubkey takes it.
  func pin(of certificate: String) throws -> String {
    let result = try runProcess(
      URL(fileURLWithPath: "/bin/sh"),
      ["-c", "openssl x509 -in \"$0\" -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64", certificate])
    #expect(result.status == 0, "\(result.stderr)")
    return "sha256//" + result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  // A custom CA bundle is trusted without turning verification off.
  @Test func aCABundleIsTrusted() throws {
    let request = Request(url: try TestServer.nginxTLS.url("/1k.bin"), tls: TLSSettings(caFile: try caFile()))
    let result = Agent().sendAndWait(request)
    #expect(result.state == .succeeded, "\(result.error?.message ?? "")")
    #expect(result.response?.body.count == 1024)
  }

  // The right pin passes; a wrong one fails before any request byte is sent.
  @Test func aPinnedPublicKey() throws {
    let ca = try caFile()
    let url = try TestServer.nginxTLS.url("/1k.bin?pin=" + uniqueKey())
    let good = Agent().sendAndWait(Request(url: url, tls: TLSSettings(caFile: ca, pinnedPublicKey: try pin(of: ca))))
    #expect(good.state == .succeeded, "\(good.error?.message ?? "")")

    let marker = uniqueKey()
    let wrong = Agent().sendAndWait(
      Request(
        url: try TestServer.nginxTLS.url("/1k.bin?pin=" + marker),
        tls: TLSSettings(caFile: ca, pinnedPublicKey: "sha256//" + String(repeating: "A", count: 43) + "=")))
    #expect(wrong.state == .failed)
    #expect(wrong.error?.transport == .publicKeyNotPinned)
    #expect(wrong.response == nil)
    // nginx never saw the request.
    let root = try #require(ProcessInfo.processInfo.environment["REQBENCH_NGINX_ROOT"])
    // nginx logs a request once it has answered it: the good one (sent first) is there when the
    // log has caught up, and the wrong one never is.
    let logFile = (root as NSString).deletingLastPathComponent + "/access.log"
    let goodLine = "pin=" + (URL(string: url)?.query?.dropFirst(4) ?? "")
    var log = ""
    let logged = eventually(timeout: 5) {
      log = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? ""
      return log.contains(goodLine)
    }
    #expect(logged, "the good request is in nginx's log")
    #expect(!log.contains(marker))
  }

  // Client certificates (mutual TLS): nginx asks for one signed by its client CA.
  @Test func aClientCertificateForMutualTLS() throws {
    let environment = ProcessInfo.processInfo.environment
    let url = try #require(environment["REQBENCH_NGINX_MTLS_URL"], "REQBENCH_NGINX_MTLS_URL is not set: run the tests with `bash .ci/test`") + "/1k.bin"
    let certificate = try #require(environment["REQBENCH_CLIENT_CERT"])
    let key = try #require(environment["REQBENCH_CLIENT_KEY"])
    let ca = try caFile()
    let with = Agent().sendAndWait(
      Request(url: url, tls: TLSSettings(caFile: ca, clientCertificate: certificate, clientKey: key)))
    #expect(with.state == .succeeded, "\(with.error?.message ?? "")")
    #expect(with.response?.body.count == 1024)
    let without = Agent().sendAndWait(Request(url: url, tls: TLSSettings(caFile: ca)))
    #expect(without.response?.status == 400)
    #expect(without.text.contains("No required SSL certificate was sent"))
    let missing = Agent().sendAndWait(
      Request(url: url, tls: TLSSettings(caFile: ca, clientCertificate: "/nonexistent/me.pem", clientKey: key)))
    #expect(missing.state == .failed)
    #expect(missing.error?.kind == .transport)
  }
}
