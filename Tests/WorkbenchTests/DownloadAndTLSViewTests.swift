import Foundation
import RequestEngine
import TerminalUI
import TestSupport
import Testing
import Workbench
import Workspace

// The TUI's update for downloads and uploads, digest auth and TLS settings in the editor.
@Suite("update: downloads and uploads")
struct DownloadViewTests {
  let pending = PendingDownload(
    label: "files/big", method: "GET", url: "http://127.0.0.1:8080/bytes/52428800?seed=demo&rate=8000000",
    target: "/w/downloads/big.bin", bytesOnDisk: 22_544_384, totalBytes: 52_428_800, updated: epoch)

  @Test func downloadsLeftByAnEarlierSessionAreResumable() throws {
    var state = try demoState()
    var gone = pending
    gone.label = "no-longer-in-the-workspace"
    state.restorePendingDownloads([pending, gone])
    #expect(state.exchanges.count == 1)
    let row = try #require(state.exchanges.first)
    #expect(row.state == .cancelled)
    #expect(row.badges == ["resumable 43%"])
    #expect(row.bytes == 22_544_384)
    _ = keys(&state, "4")
    let commands = keys(&state, "r")
    guard case .send(let request)? = commands.first else {
      Issue.record("r did not send: \(commands)")
      return
    }
    #expect(request.name == "files/big")
    #expect(request.download?.path.hasSuffix("workspaces/downloads/big.bin") == true)
    #expect(state.message?.text == "resuming files/big from 21.5 MB (43%)")
  }

  @Test func progressCarriesSpeedAndETA() {
    var progress = TransferProgress(downloaded: 30_000_000, downloadTotal: 50_000_000)
    #expect(progress.secondsLeft == nil)
    progress.bytesPerSecond = 10_000_000
    #expect(progress.secondsLeft == 2)
    #expect(progress.fraction == 0.6)
    var upload = TransferProgress(uploaded: 1_000, uploadTotal: 4_000)
    upload.bytesPerSecond = 1_000
    #expect(upload.isUploading && upload.fraction == 0.25 && upload.secondsLeft == 3)
  }

  @Test func downloadAndBodyFieldsEditInPlace() throws {
    var template = RequestTemplate(name: "r", url: "/x")
    let sum = String(repeating: "ab", count: 32)
    template = try template.applying("downloads/x.bin sha256=\(sum) trust", to: .download)
    #expect(template.download == DownloadTemplate(to: "downloads/x.bin", sha256: sum, trustLength: true))
    #expect(template.editorFields.first { $0.kind == .download }?.value == "downloads/x.bin sha256=\(sum) trust")
    #expect(throws: EditError.self) { try template.applying("../x.bin", to: .download) }
    #expect(throws: EditError.self) { try template.applying("/etc/x", to: .download) }
    #expect(try template.applying("", to: .download).download == nil)

    template.body = .multipart([MultipartField(name: "note", value: "hi"), MultipartField(name: "f", file: "data/a.png", type: "image/png")])
    #expect(template.bodyEditorText.text == "note=hi\nf=@data/a.png;type=image/png\n")
    let edited = try template.applyingBody("note=bye\nf=@data/b.png;filename=b.png\n")
    #expect(edited.body == .multipart([MultipartField(name: "note", value: "bye"), MultipartField(name: "f", file: "data/b.png", filename: "b.png")]))
    #expect(throws: EditError.self) { try template.applyingBody("f=@../secret") }
  }
}

@Suite("editor: digest auth and TLS")
struct DigestAndTLSEditorTests {
  @Test func theEditorReadsAndWritesThem() throws {
    var template = RequestTemplate(name: "r", url: "/x")
    template.setAuthKind(.digest)
    template = try template.applying("ada", to: .authUser).applying("{{secret.pw}}", to: .authPassword)
    #expect(template.auth == .digest(user: "ada", password: "{{secret.pw}}"))
    #expect(template.editorFields.first { $0.kind == .auth }?.value == "digest")
    // A {{variable}} is shown; a password typed in is shown masked.
    let password = template.editorFields.first { $0.kind == .authPassword }
    #expect(password?.value == "{{secret.pw}}" && password?.isMasked == false)
    #expect(try template.applying("pw", to: .authPassword).editorFields.first { $0.kind == .authPassword }?.isMasked == true)
    #expect(throws: EditError.self) { try RequestTemplate(name: "r", url: "/x").applying("ada", to: .authUser) }
    template = try template.applying("ca=certs/ca.pem pin=sha256//abc=", to: .tls)
    #expect(template.tls == TLSSettings(caFile: "certs/ca.pem", pinnedPublicKey: "sha256//abc="))
    #expect(template.editorFields.first { $0.kind == .tls }?.value == "ca=certs/ca.pem pin=sha256//abc=")
    #expect(try template.applying("", to: .tls).tls == nil)
    let mutual = try template.applying("cert=certs/me.pem key=certs/me.key", to: .tls)
    #expect(mutual.tls == TLSSettings(clientCertificate: "certs/me.pem", clientKey: "certs/me.key"))
    #expect(throws: EditError.self) { try template.applying("pin=md5//x", to: .tls) }
  }
}
