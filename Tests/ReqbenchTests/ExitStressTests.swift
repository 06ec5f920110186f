import Foundation
import RequestEngine
import TestSupport
import Testing

/// Short `run`s end by their exit status, never by a signal: no engine thread is still at work,
/// or still ending, while `exit` runs the libraries' clean-ups (OpenSSL's frees the locks an
/// ending thread's own clean-up takes). Many runs of what met that race before: Digest auth
/// (OpenSSL's hashes on the engine thread), a cookie jar, TLS and plain GETs.
@Suite("Exit under stress")
struct ExitStressTests {
  @Test func manyShortRunsNeverDieOfASignal() throws {
    let folder = scratchURL("rb-exit")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let workspace = folder.appendingPathComponent("w.json").path
    try """
      {"version": 1, "requests": [
        {"name": "digest", "url": "\(try TestServer.httpbin.url("/digest-auth/auth/ada/pw"))",
         "auth": {"digest": {"user": "ada", "password": "pw"}}},
        {"name": "cookie", "url": "\(try TestServer.httpbin.url("/cookies/set?session=s1"))"},
        {"name": "tls", "url": "\(try TestServer.nginxTLS.url("/1k.bin"))", "insecure": true},
        {"name": "plain", "url": "\(try TestServer.nginx.url("/1k.bin"))"}
      ]}
      """.write(toFile: workspace, atomically: true, encoding: .utf8)
    // Bounded in count and in time: at most 400 runs, or 90 s, whichever comes first (two of
    // each target's kinds a run; the race showed about once in 4,000 before).
    let deadline = Date().addingTimeInterval(90)
    var runs = 0
    var signals: [Int32] = []
    var failures: [String] = []
    let targets = [["digest", "plain"], ["cookie", "tls"], ["digest", "cookie", "tls", "plain"]]
    while runs < 400 && Date() < deadline {
      let result = try runProcess(try reqbenchBinary, ["run", workspace] + targets[runs % targets.count], timeout: 30)
      runs += 1
      if let signal = result.signal { signals.append(signal) }
      if result.signal == nil && result.status != 0 && failures.count < 3 { failures.append(result.stderr) }
    }
    #expect(runs >= 100, "only \(runs) runs in 90 s")
    #expect(signals.isEmpty, "\(signals.count) of \(runs) runs died of a signal: \(signals)")
    #expect(failures.isEmpty, "\(failures)")
  }
}
