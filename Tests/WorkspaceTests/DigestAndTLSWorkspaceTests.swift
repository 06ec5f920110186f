import Formats
import Foundation
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

/// `auth.digest` and `tls` in the workspace, curl import and export (the editor's text for them is
/// in WorkbenchTests).
@Suite struct DigestAndTLSWorkspaceTests {
  let text = """
    {
      "version": 1,
      "requests": [
        {"name": "d", "url": "https://api.test/x", "auth": {"digest": {"user": "ada", "password": "{{secret.pw}}"}},
         "tls": {"ca": "certs/ca.pem", "pin": "sha256//abc=", "cert": "certs/me.pem", "key": "keys/me.key"}}
      ]
    }
    """

  func workspace() throws -> Workspace {
    var workspace = try Workspace.parse(Array(text.utf8), file: "w.json")
    workspace.folder = URL(fileURLWithPath: "/w")
    return workspace
  }

  @Test func readsPreparesAndWritesBack() throws {
    let workspace = try workspace()
    let d = try #require(workspace.request(named: "d"))
    #expect(d.auth == .digest(user: "ada", password: "{{secret.pw}}"))
    #expect(d.tls == TLSSettings(caFile: "certs/ca.pem", pinnedPublicKey: "sha256//abc=", clientCertificate: "certs/me.pem", clientKey: "keys/me.key"))
    let sources = VariableSources(processEnvironment: ["REQBENCH_SECRET_PW": "lovelace"])
    let request = try workspace.prepare(d, sources: sources)
    #expect(request.digest == DigestCredentials(user: "ada", password: "lovelace"))
    #expect(request.headers["Authorization"] == nil)
    #expect(request.tls == TLSSettings(caFile: "/w/certs/ca.pem", pinnedPublicKey: "sha256//abc=", clientCertificate: "/w/certs/me.pem", clientKey: "/w/keys/me.key"))
    // The secret is masked in an exported command unless revealed.
    let command = CurlExporter.command(for: request)
    #expect(command.contains("--digest -u 'ada:••••'"))
    #expect(command.contains("--cacert '/w/certs/ca.pem'"))
    #expect(command.contains("--pinnedpubkey 'sha256//abc='"))
    #expect(command.contains("--cert '/w/certs/me.pem'"))
    #expect(command.contains("--key '/w/keys/me.key'"))
    #expect(CurlExporter.command(for: request, revealSecrets: true).contains("'ada:lovelace'"))
    // Written back as read; edited, the other auth kinds go.
    #expect(try Workspace.parse(workspace.encoded(), file: "w.json").requests == workspace.requests)
    var edited = workspace
    edited.requests[0].auth = .bearer("t")
    let json = String(decoding: edited.encoded(), as: UTF8.self)
    #expect(json.contains("\"bearer\": \"t\"") && !json.contains("digest"))
  }

  @Test func badSettingsAreReportedWhereTheyAreWritten() throws {
    let pin = try #require(loadError(#"{"version": 1, "requests": [{"name": "a", "url": "/x", "tls": {"pin": "abc"}}]}"#))
    #expect(pin.description.contains("requests[0].tls.pin: a pin is sha256//BASE64"), "\(pin.description)")
    let key = try #require(loadError(#"{"version": 1, "requests": [{"name": "a", "url": "/x", "tls": {"client": "c.pem"}}]}"#))
    #expect(key.description.contains("requests[0].tls.client: unknown tls setting; use ca, pin, cert, key"))
    let two = try #require(loadError(#"{"version": 1, "requests": [{"name": "a", "url": "/x", "auth": {"basic": {"user": "u", "password": "p"}, "digest": {"user": "u", "password": "p"}}}]}"#))
    #expect(two.description.contains("auth has one kind, found basic and digest"), "\(two.description)")
  }

  @Test func curlImportsDigestCACertAndPins() throws {
    let imported = try CurlImporter.parse(
      "curl --digest -u ada:lovelace --cacert certs/ca.pem --pinnedpubkey 'sha256//abc=' -E certs/me.pem --key certs/me.key https://api.test/x",
      file: "paste.sh")
    let template = try #require(imported.requests.first?.template)
    #expect(template.auth == .digest(user: "ada", password: "lovelace"))
    #expect(template.tls == TLSSettings(caFile: "certs/ca.pem", pinnedPublicKey: "sha256//abc=", clientCertificate: "certs/me.pem", clientKey: "certs/me.key"))
    #expect(throws: ImportError.self) { try CurlImporter.parse("curl --cert me.pem:secret https://api.test/x", file: "paste.sh") }
    #expect(throws: ImportError.self) {
      try CurlImporter.parse("curl --pinnedpubkey key.pem https://api.test/x", file: "paste.sh")
    }
  }

  @Test func httpFilesAndPostmanCarryDigest() throws {
    let http = try HTTPFileImporter.parse(
      "### d\nGET https://api.test/x\nAuthorization: Digest ada lovelace\n\n### computed\nGET https://api.test/y\nAuthorization: Digest username=\"ada\", realm=\"r\"\n",
      file: "a.http")
    #expect(http.templates[0].auth == .digest(user: "ada", password: "lovelace"))
    #expect(http.templates[1].auth == nil)
    #expect(http.templates[1].headers["Authorization"] == #"Digest username="ada", realm="r""#)
    let exported = HTTPFileExporter.text(for: [http.templates[0]])
    #expect(exported.contains("Authorization: Digest ada lovelace"))
    #expect(try HTTPFileImporter.parse(exported, file: "b.http").templates[0].auth == .digest(user: "ada", password: "lovelace"))
  }
}
