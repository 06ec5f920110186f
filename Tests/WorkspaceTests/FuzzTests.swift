import Base
import Formats
import Foundation
import History
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// A fuzz target per parser (the workspace file, `import curl`,
/// `import http`, `import postman`, `import har`, `import openapi`) and per state file (cache metadata, a download's resume
/// state, chain captures, the secrets file). Each is a seeded, bounded mutation loop over the seed
/// corpus in `Tests/Fixtures/fuzz/TARGET/` (the loop is the suite's own: libFuzzer would need a
/// second, instrumented build of every module). Asserted:
/// no crash (a trap ends the test process, failing the run), no hang (every input is read within
/// `hangSeconds`), no file changed by a reader that refused its input, and damaged state read as
/// "nothing there" (ignored, then rebuilt) rather than an error or a wrong value.
///
/// Bounds: `REQBENCH_FUZZ_SECONDS` per target (default 8; `.ci/test` sets it) and at most
/// `REQBENCH_FUZZ_ITERATIONS` inputs (default 20,000). The inputs follow from
/// `REQBENCH_FUZZ_SEED` (default 18): a failure names the seed and the iteration, and the same
/// seed replays it.
@Suite struct FuzzTests {
  static let seconds = Double(ProcessInfo.processInfo.environment["REQBENCH_FUZZ_SECONDS"] ?? "") ?? 8
  static let iterations = Int(ProcessInfo.processInfo.environment["REQBENCH_FUZZ_ITERATIONS"] ?? "") ?? 20_000
  static let seed = UInt64(ProcessInfo.processInfo.environment["REQBENCH_FUZZ_SEED"] ?? "") ?? 18
  static let hangSeconds = 5.0

  static func seeds(_ target: String) throws -> [[UInt8]] {
    let folder = fixtureFile("fuzz/" + target)
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    let seeds = try names.map { Array(try Data(contentsOf: folder.appendingPathComponent($0))) }
    #expect(!seeds.isEmpty, "no seeds in Tests/Fixtures/fuzz/\(target)")
    return seeds
  }

  /// Runs `body` on mutations of `seeds` until the time or the count is up; returns how many.
  @discardableResult
  static func fuzz(
    _ target: String, seeds: [[UInt8]], sourceLocation: Testing.SourceLocation = #_sourceLocation,
    _ body: ([UInt8]) throws -> Void
  ) rethrows -> Int {
    var mutator = Mutator(seed: seed ^ UInt64(target.utf8.reduce(0) { $0 &* 31 &+ Int($1) }.magnitude))
    let start = monotonic()
    var count = 0
    // Every seed as it is first, then mutations.
    for seed in seeds { try body(seed) }
    while count < iterations, monotonic() - start < seconds {
      let input = mutator.mutate(seeds[mutator.below(seeds.count)])
      let began = monotonic()
      try body(input)
      let took = monotonic() - began
      if took > hangSeconds {
        Issue.record(
          "\(target): input \(count) (REQBENCH_FUZZ_SEED=\(seed)) took \(took) s: \(String(decoding: input.prefix(300), as: UTF8.self))",
          sourceLocation: sourceLocation)
      }
      count += 1
    }
    #expect(count > 0, "\(target): no input was tried", sourceLocation: sourceLocation)
    print("fuzz \(target): \(count) inputs in \(Int(monotonic() - start)) s (REQBENCH_FUZZ_SEED=\(seed))")
    return count
  }

  static func monotonic() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  // MARK: - Parsers

  /// A workspace file that does not load is an error and stays as it was; one that loads
  /// encodes to a text that loads again (a save of it never fails the read-back).
  @Test func workspaceFile() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("w.json")
    var loaded = 0
    try Self.fuzz("workspace", seeds: try Self.seeds("workspace")) { input in
      try Data(input).write(to: url)
      var file = WorkspaceFile(url)
      do {
        let workspace = try file.load()
        loaded += 1
        do {
          _ = try workspace.checkedEncoding(file: "w.json")
        } catch {
          Issue.record("a loaded workspace does not save: \(error)\n\(String(decoding: input, as: UTF8.self))")
        }
        for request in workspace.requests { _ = try? workspace.prepare(requestNamed: request.name) }
      } catch {
        #expect(Array(try Data(contentsOf: url)) == input, "a refused workspace file was changed")
      }
    }
    #expect(loaded > 0)
  }

  /// An import either fails (FILE:LINE:COLUMN) and the workspace file keeps its bytes, or it
  /// adds requests and the file still loads. The importer reads no file (`readFile` refuses).
  @Test(arguments: ImportFormat.allCases)
  func importer(_ format: ImportFormat) throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("w.json")
    let original = Array((#"{"version": 1, "requests": [{"name": "kept", "url": "http://127.0.0.1:9/"}]}"# + "\n").utf8)
    let noFiles: @Sendable (String) throws(FileError) -> [UInt8] = { path throws(FileError) in
      throw FileError(path: path, message: "not read by the fuzz target", reason: "not read")
    }
    var imported = 0
    let target = format == .http ? "http" : format.rawValue
    try Self.fuzz(target, seeds: try Self.seeds(target)) { input in
      try Data(original).write(to: url)
      var file = WorkspaceFile(url)
      do {
        let requests = try format.parse(input, file: "in", readFile: noFiles)
        var workspace = try file.load()
        _ = try workspace.addImported(requests)
        try file.save(workspace)
        imported += 1
        var reread = WorkspaceFile(url)
        _ = try reread.load()
      } catch is ImportError, is WorkspaceEditError, is WorkspaceSaveError {
        #expect(Array(try Data(contentsOf: url)) == original, "a failed import changed the workspace")
      }
    }
    #expect(imported > 0)
  }

  // MARK: - State files

  /// Damaged cache metadata is a miss (the entry then removed and stored again), never a trap,
  /// in a lookup, `cache ls` (`list`) and `clear`.
  @Test func cacheMetadata() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let policy = CachePolicy(seconds: 600, sensitive: "user", namespace: "n")
    let request = Request(url: "http://127.0.0.1:9/fuzz", cache: policy)
    let response = Response(
      status: 200, headers: ["Content-Type": "application/json", "ETag": "\"1\""], body: .memory(Array(#"{"a":1}"#.utf8)))
    let cache = ResponseCache(folder: folder)
    let entry = try #require(cache.store(response, for: request, policy: policy))
    let metadata = folder.appendingPathComponent(entry.key + ".json")
    let seed = Array(try Data(contentsOf: metadata))
    let body = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".body") }
    let bodyBytes = try Data(contentsOf: folder.appendingPathComponent(try #require(body.first)))
    var hits = 0
    Self.fuzz("cache", seeds: [seed]) { input in
      try? Data(input).write(to: metadata)
      try? bodyBytes.write(to: folder.appendingPathComponent(body[0]))
      let fresh = ResponseCache(folder: folder)  // nothing from memory
      for listing in fresh.list() {
        // What `cache ls` computes from a listing.
        _ = Int(saturating: Date().timeIntervalSince(listing.createdAt) / 86_400)
        _ = Int(saturating: listing.expiresAt.timeIntervalSince(Date()))
      }
      if case .fresh = fresh.lookup(request, policy: policy) { hits += 1 }
    }
    #expect(hits > 0, "the seed itself is a hit")
    // Damaged, then rebuilt: a store after any of it is a hit again.
    try Data("{\"format\": 1, \"createdAt\": 1e300".utf8).write(to: metadata)
    let cacheAfter = ResponseCache(folder: folder)
    #expect(cacheAfter.store(response, for: request, policy: policy) != nil)
    if case .fresh = ResponseCache(folder: folder).lookup(request, policy: policy) {} else {
      Issue.record("the rebuilt entry is not a hit")
    }
  }

  /// A damaged resume state is dropped (the download starts from 0), never a trap.
  @Test func downloadState() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let now = String(Date().timeIntervalSince1970)
    let seeds = try Self.seeds("downloads").map { seed in
      Array(String(decoding: seed, as: UTF8.self).replacingOccurrences(
        of: #""updated":[0-9.]+"#, with: "\"updated\":\(now)", options: .regularExpression).utf8)
    }
    let key = String(repeating: "a", count: 64)
    var found = 0
    Self.fuzz("downloads", seeds: seeds) { input in
      try? Data(input).write(to: folder.appendingPathComponent(key + ".json"))
      try? Data(repeating: 7, count: 4096).write(to: folder.appendingPathComponent(key + ".part"))
      let pending = DownloadStore(directory: folder.path).pending()
      for download in pending {
        // What the TUI's unfinished-downloads list computes.
        _ = download.totalBytes.map { Int(saturating: Double(download.bytesOnDisk) * 100 / Double(max($0, 1))) }
        _ = Int(saturating: Date().timeIntervalSince(download.updated))
      }
      found += pending.count
    }
    #expect(found > 0, "the seed itself is an unfinished download")
  }

  /// Damaged chain captures are no values (a resumed run captures again), never a trap.
  @Test func chainCaptures() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let captures = ChainCaptures(folder: folder)
    var values = 0
    Self.fuzz("chains", seeds: try Self.seeds("chains")) { input in
      try? Data(input).write(to: captures.file(for: "c"))
      values += captures.load("c").count
      _ = captures.values(for: "c", before: .max)
      _ = captures.values(for: "c", before: .min)
    }
    #expect(values > 0, "the seed itself holds a value")
  }

  /// A damaged secrets file is an error at its LINE:COLUMN and is never written over.
  @Test func secretsFile() throws {
    let folder = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let workspace = folder.appendingPathComponent("w.json")
    let url = SecretsFile.url(forWorkspace: workspace)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    var loaded = 0
    try Self.fuzz("secrets", seeds: try Self.seeds("secrets")) { input in
      try? Data(input).write(to: url)
      chmod(url.path, 0o600)  // private, as a secrets file must be
      do {
        let secrets = try SecretsFile.load(forWorkspace: workspace)
        loaded += 1
        for name in secrets.names { _ = secrets.value(of: name) }
      } catch let error as WorkspaceError {
        #expect(!error.problems.isEmpty)
        #expect((try? Data(contentsOf: url)).map(Array.init) == input, "a refused secrets file was changed")
      }
    }
    #expect(loaded > 0)
  }
}

/// Byte-level mutations that reach the readers' edges: numbers replaced by extreme ones
/// (1e300, -1, 2^63, …), values by other types, structure bytes inserted or deleted, ranges cut
/// or repeated, line breaks and NULs put in.
struct Mutator {
  var random: SplitMix
  init(seed: UInt64) { random = SplitMix(seed: seed) }

  static let numbers = [
    "1e300", "-1e300", "-1", "0", "1e19", "9223372036854775807", "-9223372036854775808",
    "9223372036854775808", "4294967296", "1e999", "-0.5", "0.1", "1e-300", "2147483648", "65536",
  ]
  static let tokens = [
    "{", "}", "[", "]", "\"", ",", ":", "null", "true", "[]", "{}", "\"x\"", "\\", "\\u0000", "\r\n", "\n",
    "\0", "{{", "}}", "{{secret.k}}", "'", "###", "\n\n", " -d @", " -F ", " -H ", "--", "\u{1B}[2J", "\u{202E}",
    "1e300", "-1",
  ]

  mutating func below(_ n: Int) -> Int { Int(random.next() % UInt64(max(n, 1))) }

  mutating func mutate(_ seed: [UInt8]) -> [UInt8] {
    var bytes = seed
    for _ in 0...below(4) { step(&bytes) }
    return bytes
  }

  private mutating func step(_ bytes: inout [UInt8]) {
    let at = below(bytes.count + 1)
    switch below(8) {
    case 0, 1:  // a number replaced by an extreme one
      if let range = numberRange(from: at, in: bytes) {
        bytes.replaceSubrange(range, with: Array(Self.numbers[below(Self.numbers.count)].utf8))
      }
    case 2:  // a string value replaced by another type
      if let range = stringRange(from: at, in: bytes) {
        bytes.replaceSubrange(range, with: Array(["1e300", "[]", "{}", "null", "-1", "true"][below(6)].utf8))
      }
    case 3:
      bytes.insert(contentsOf: Array(Self.tokens[below(Self.tokens.count)].utf8), at: at)
    case 4:
      if !bytes.isEmpty { bytes.removeSubrange(at..<min(bytes.count, at + 1 + below(16))) }
    case 5:
      if at < bytes.count { bytes[at] = UInt8(truncatingIfNeeded: random.next()) }
    case 6:  // a range repeated (deeper nesting, longer lines), bounded
      let end = min(bytes.count, at + 1 + below(64))
      if at < end, bytes.count < 1 << 16 {
        let piece = Array(bytes[at..<end])
        for _ in 0..<(1 + below(8)) { bytes.insert(contentsOf: piece, at: at) }
      }
    default:
      if at < bytes.count { bytes.removeSubrange(at..<bytes.count) }  // cut short
    }
  }

  private func numberRange(from start: Int, in bytes: [UInt8]) -> Range<Int>? {
    let isNumber: (UInt8) -> Bool = { ($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 45 || $0 == 101 || $0 == 43 }
    guard let first = bytes[min(start, bytes.count)...].firstIndex(where: { $0 >= 48 && $0 <= 57 }) else { return nil }
    var end = first
    while end < bytes.count, isNumber(bytes[end]) { end += 1 }
    var begin = first
    while begin > 0, bytes[begin - 1] == 45 { begin -= 1 }
    return begin..<end
  }

  private func stringRange(from start: Int, in bytes: [UInt8]) -> Range<Int>? {
    guard let open = bytes[min(start, bytes.count)...].firstIndex(of: 34),
      let close = bytes[(open + 1)...].firstIndex(of: 34)
    else { return nil }
    return open..<(close + 1)
  }
}
