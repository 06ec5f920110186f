import Base
import Foundation
import RequestEngine
import TestSupport
import Testing

/// What a hostile server (the fixture's `/hostile/…`) must not be able to do to the engine: fill
/// the disk or the memory, leave temporary files, crash it, or get a bare curl code for an
/// answer.
@Suite("Hostile servers")
struct HostileServerTests {
  /// A spill folder of the test's own, so what lands in it can be listed.
  let spill: URL

  init() throws {
    spill = scratchURL("rb-spill")
    try FileManager.default.createDirectory(at: spill, withIntermediateDirectories: true)
  }

  func agent(memory: Int = 64 << 10, maxBody: Int64 = Agent.Configuration.defaultMaxBodyBytes) -> Agent {
    var configuration = Agent.Configuration(memoryBodyLimit: memory, spillDirectory: spill.path)
    configuration.maxBodyBytes = maxBody
    return Agent(configuration: configuration)
  }

  func spilledFiles() -> [String] { (try? FileManager.default.contentsOfDirectory(atPath: spill.path)) ?? [] }

  // An endless body to a request that is not a download stops at the cap (before the
  // cap it filled the disk: 5.4 GB in 8 s).
  @Test func anEndlessBodyStopsAtTheCap() throws {
    let agent = agent(maxBody: 4 << 20)
    defer { agent.shutdown() }
    let result = agent.sendAndWait(Request(url: try fixture("/hostile/endless"), timeouts: Timeouts(idle: 10, deadline: 20)))
    #expect(result.state == .failed)
    #expect(result.error?.message == "body over 4 MB: stopped; raise maxBodyMB or use download")
    #expect(result.error?.kind == .transport)
    #expect(result.error?.transport == .bodyTooLarge)
    #expect(result.response?.status == 200)
    #expect((result.response?.body.count ?? 0) <= 4 << 20)
  }

  @Test func aRequestsOwnLimitWinsOverTheAgents() throws {
    let agent = agent(maxBody: 64 << 20)
    defer { agent.shutdown() }
    var request = Request(url: try fixture("/hostile/endless"), timeouts: Timeouts(idle: 10, deadline: 20))
    request.maxBodyBytes = 512 << 10
    let result = agent.sendAndWait(request)
    #expect(result.error?.message == "body over 0.5 MB: stopped; raise maxBodyMB or use download")
    #expect(Agent.Configuration().maxBodyBytes == 1024 << 20)
  }

  // Decompression is bounded by the same cap (the write callback counts decoded bytes).
  @Test func aGzipBombStopsAtTheCap() throws {
    let agent = agent(maxBody: 8 << 20)
    defer { agent.shutdown() }
    let started = Date()
    let result = agent.sendAndWait(Request(url: try fixture("/hostile/gzip-bomb?mb=4096"), timeouts: Timeouts(idle: 10, deadline: 30)))
    #expect(result.error?.message == "body over 8 MB: stopped; raise maxBodyMB or use download")
    #expect(Date().timeIntervalSince(started) < 20)
    // The same stream, small enough, inflates to its zeros: the bomb is valid gzip.
    let small = agent.sendAndWait(Request(url: try fixture("/hostile/gzip-bomb?mb=3")))
    #expect(small.state == .succeeded, "\(small.error?.message ?? "")")
    let body = try #require(small.response).body
    #expect(body.count == 3 << 20)
    #expect(try body.bytes().allSatisfy { $0 == 0 })
  }

  // A Content-Length over the cap stops the transfer at the headers, before the body.
  @Test func aDeclaredLengthOverTheCapStopsAtTheHeaders() throws {
    let agent = agent(maxBody: 1 << 20)
    defer { agent.shutdown() }
    let started = Date()
    let result = agent.sendAndWait(Request(url: try fixture("/hostile/huge-length?bytes=8&every=1")))
    #expect(result.error?.transport == .bodyTooLarge)
    #expect(result.response?.headers["Content-Length"] == "9000000000000000000")
    #expect(Date().timeIntervalSince(started) < 1, "the body trickles a byte a second: the headers alone decided")
  }

  // A spilled body's file has no name from the moment it exists, so nothing is left
  // when the process dies, however; the viewer maps it through its descriptor. Before the fix
  // the folder held `reqbench-body-XXXXXX` for as long as the body lived (and after a kill).
  @Test func aSpilledBodyLeavesNoFileBehind() throws {
    let agent = agent(memory: 64 << 10)
    defer { agent.shutdown() }
    let recorder = EventRecorder(agent)
    var request = Request(url: try fixture("/hostile/endless?rate=2000000"), timeouts: Timeouts(idle: 10, deadline: 30))
    request.maxBodyBytes = 3 << 20
    agent.send(request)
    #expect(recorder.wait(timeout: 10) { events in
      events.contains { if case .progress(_, let p) = $0 { p.downloaded > 1 << 20 } else { false } }
    })
    #expect(spilledFiles() == [], "a spill file had a name while the body was arriving")
    #expect(recorder.waitForFinished(count: 1, timeout: 20))

    let whole = agent.sendAndWait(Request(url: try fixture("/bytes/300000?seed=7")))
    guard case .file(let file) = whole.response?.body else {
      Issue.record("expected a spilled body")
      return
    }
    #expect(spilledFiles() == [])
    #expect(try file.read(offset: 0, count: 300_000).count == 300_000)
    // Code that opens files by path still can, while the body lives.
    #expect(FileManager.default.contents(atPath: file.path)?.count == 300_000)
  }

  // A 1 MB header line is named, not `failed:  (curl error 27)`.
  @Test func aHeaderLineOverCurlsLimitIsNamed() throws {
    let agent = agent()
    defer { agent.shutdown() }
    let result = agent.sendAndWait(Request(url: try fixture("/hostile/long-header?bytes=1048576")))
    #expect(result.state == .failed)
    #expect(result.error?.transport == .responseHeaderTooLarge)
    #expect(
      result.error?.message == "a response header line is longer than 100 KB (curl's limit); curl stopped reading the response",
      "\(result.error?.message ?? "")")
  }

  // A status line with a long run of digits once overflowed the parser (a trap).
  @Test func aStatusLineOfManyDigitsDoesNotTrap() throws {
    let agent = agent()
    defer { agent.shutdown() }
    let result = agent.sendAndWait(Request(url: try fixture("/hostile/status?code=2000000000000000000000000")))
    // curl itself takes the first three digits or refuses the line; either way no crash.
    if result.state == .succeeded {
      #expect(result.response?.status == 200)
    } else {
      #expect(result.error?.kind == .transport)
    }
  }

  // `Content-Length: 9000000000000000000` and a trickle: progress and ETA stay numbers.
  @Test func aHugeContentLengthKeepsProgressArithmeticSafe() throws {
    let agent = agent()
    defer { agent.shutdown() }
    let recorder = EventRecorder(agent)
    let folder = spill.appendingPathComponent("downloads")
    var request = Request(
      url: try fixture("/hostile/huge-length?bytes=4&every=0.3"), timeouts: Timeouts(idle: 5, deadline: 10))
    request.download = DownloadTarget(path: folder.appendingPathComponent("huge.bin").path)
    let result = agent.sendAndWait(request)
    #expect(result.state == .failed)  // the server drops the connection after 4 bytes
    let progress = recorder.all.compactMap { if case .progress(_, let p) = $0 { p } else { nil } }
    #expect(progress.contains { $0.downloadTotal == 9_000_000_000_000_000_000 })
    for p in progress {
      _ = p.fraction
      if let left = p.secondsLeft { #expect(left > 0) }
    }
    // A resumed download's offset plus a total near Int64.max saturates instead of trapping.
    #expect(Int64.max.addingSaturating(5) == Int64.max)
    #expect(Int(saturating: 1e300) == Int.max)
    #expect(Int(saturating: -.infinity) == Int.min)
    #expect(Int(saturating: .nan) == 0)
  }

  // A timeout or deadline of 1e16 s reaches curl clamped, not as a trap.
  @Test func hugeTimeoutsAreClamped() throws {
    let agent = agent()
    defer { agent.shutdown() }
    let result = agent.sendAndWait(Request(url: try fixture("/get"), timeouts: Timeouts(idle: 1e16, deadline: 1e300)))
    #expect(result.state == .succeeded, "\(result.error?.message ?? "")")
  }
}

/// Every curl code has words of its own; a message never ends in a bare curl number.
@Suite struct CurlCodeWordsTests {
  @Test func everyCodeHasWords() {
    for code in 0...100 {
      let words = CurlCode.words(code)
      #expect(!words.isEmpty && words.first?.isWhitespace == false, "code \(code)")
      let summary = TransportFailure(curlCode: code, message: "").summary
      #expect(!summary.hasPrefix(" ") && !summary.hasPrefix("("), "code \(code): \(summary)")
    }
    #expect(TransportFailure(curlCode: 27, message: "").summary == "out of memory (curl error 27)")
    #expect(
      TransportFailure(curlCode: 61, message: "Unrecognized content encoding type. libcurl understands deflate, gzip content encodings.").summary
        == "the response's content encoding is unknown or damaged: Unrecognized content encoding type. libcurl understands deflate, gzip content encodings. (curl error 61)")
    #expect(TransportFailure(curlCode: 8, message: "").summary == "the server's reply could not be parsed (curl error 8)")
  }
}
