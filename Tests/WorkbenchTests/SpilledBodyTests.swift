import Foundation
import RequestEngine
import TerminalUI
import Testing
import TestSupport
import Workbench

/// A body the agent spilled to a file is mapped, not read: opening it reads (almost) nothing, and
/// it shows the same lines as the same bytes in memory. Real requests to nginx, with the agent's
/// memory limit lowered so a few MB spill.
@Suite("view: spilled bodies", .serialized)
struct SpilledBodyTests {
  static let memoryLimit = 64 << 10

  /// GETs `path` from nginx through an agent that spills bodies over 64 KB; the body must be spilled.
  func spilled(_ path: String) throws -> ExchangeResult {
    let agent = Agent(configuration: Agent.Configuration(memoryBodyLimit: Self.memoryLimit))
    defer { agent.shutdown() }
    let result = agent.sendAndWait(Request(url: try TestServer.nginx.url(path), dedup: false))
    #expect(result.state == .succeeded, "\(result.error?.message ?? "")")
    let response = try #require(result.response)
    guard case .file = response.body else {
      Issue.record("\(path): \(response.body.count) bytes were not spilled to a file")
      throw SpillMissing()
    }
    return result
  }

  struct SpillMissing: Error {}

  /// A file of `text` in nginx's root, removed by the caller.
  func served(_ text: String, suffix: String) throws -> (path: String, file: URL) {
    let root = try #require(ProcessInfo.processInfo.environment["REQBENCH_NGINX_ROOT"])
    let name = "\(uniqueKey("spill")).\(suffix)"
    let file = URL(fileURLWithPath: root).appendingPathComponent(name)
    try Data(text.utf8).write(to: file)
    return ("/" + name, file)
  }

  /// Bytes this thread has read through system calls so far (`rchar` of /proc/thread-self/io;
  /// page faults of a mapping are not reads).
  func readByThisThread() throws -> Int {
    let io = try String(contentsOfFile: "/proc/thread-self/io", encoding: .utf8)
    let line = try #require(io.split(separator: "\n").first { $0.hasPrefix("rchar:") })
    return try #require(Int(line.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)))
  }

  /// Builds the document of `response` and draws its first screen's worth of lines, returning
  /// the document and the bytes read meanwhile.
  func open(_ response: Response) throws -> (BodyDocument, read: Int) {
    let before = try readByThisThread()
    let document = BodyDocument(body: response.body, mediaType: response.mediaType)
    for i in 0..<60 { _ = document.line(i) }
    _ = document.lineCount(atLeast: 60)
    return (document, try readByThisThread() - before)
  }

  @Test func aSpilledTextBodyIsMappedNotRead() throws {
    let count = 200_000
    let text = (0..<count).map { "line \($0) é" }.joined(separator: "\n") + "\n"
    let (path, file) = try served(text, suffix: "txt")
    defer { try? FileManager.default.removeItem(at: file) }
    let result = try spilled(path)
    let response = try #require(result.response)
    #expect(response.body.count == text.utf8.count)

    let (document, read) = try open(response)
    #expect(read < response.body.count / 100, "opening read \(read) of \(response.body.count) bytes")
    #expect(document.kind == .text)
    #expect(document.line(0) == "line 0 é")
    #expect(document.totalLineCount() == count)
    #expect(document.line(count - 1) == "line \(count - 1) é")
    #expect(document.find("line 123456 ", from: 0, forward: true) == 123_456)
  }

  @Test func aSpilledBinaryBodyIsAHexView() throws {
    let result = try spilled("/10m.bin")
    let response = try #require(result.response)
    let (document, read) = try open(response)
    #expect(read < response.body.count / 100, "opening read \(read) of \(response.body.count) bytes")
    #expect(document.kind == .binary)
    // The same lines as the same bytes in memory.
    let root = try #require(ProcessInfo.processInfo.environment["REQBENCH_NGINX_ROOT"])
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: root + "/10m.bin")))
    let reference = BodyDocument(bytes: bytes, mediaType: response.mediaType)
    let lines = document.totalLineCount()
    #expect(lines == 10_485_760 / 16)
    for i in [0, 1, 4095, lines - 1] { #expect(document.line(i) == reference.line(i), "line \(i)") }
    #expect(document.line(0).hasPrefix("00000000  " + String(format: "%02x", bytes[0])))
    #expect(document.line(lines - 1).hasPrefix("009ffff0 "))
  }

  @Test func aSpilledLargeJSONBodyIsLaidOutLazily() throws {
    let items = (0..<40_000).map { #"{"id":\#($0),"name":"user \#($0)","tags":["a","b"]}"# }
    let (path, file) = try served("[" + items.joined(separator: ",") + "]", suffix: "json")
    defer { try? FileManager.default.removeItem(at: file) }
    let result = try spilled(path)
    let response = try #require(result.response)
    #expect(response.body.count > BodyDocument.prettyLimit)
    let (document, read) = try open(response)
    #expect(read < response.body.count / 100, "opening read \(read) of \(response.body.count) bytes")
    #expect(document.kind == .json)
    #expect(document.lineCount(atLeast: 60).exact == false)
    #expect(document.line(0) == "[")
    #expect(document.line(1) == "  {")
    #expect(document.line(2) == "    \"id\": 0,")
    let count = document.totalLineCount()
    #expect(count == 40_000 * 5 + 2)
    #expect(document.line(count - 3) == "    \"tags\": [\"a\", \"b\"]")
    #expect(document.line(count - 1) == "]")
  }

  @Test func aSpilledSmallJSONBodyIsPrettyPrinted() throws {
    let items = (0..<20_000).map { #"{"id":\#($0)}"# }
    let (path, file) = try served("[" + items.joined(separator: ",") + "]", suffix: "json")
    defer { try? FileManager.default.removeItem(at: file) }
    let response = try #require(try spilled(path).response)
    #expect(response.body.count <= BodyDocument.prettyLimit)
    let document = BodyDocument(body: response.body, mediaType: response.mediaType)
    #expect(document.kind == .json)
    #expect(document.line(1) == "  {")
    #expect(document.line(2) == "    \"id\": 0")
    #expect(document.totalLineCount() == 20_000 * 3 + 2)
  }

  /// Through `update`: the exchange's end shows its spilled body without reading it, and the
  /// mapping outlives the spilled file (deleted when the result goes).
  @Test func theViewerOpensASpilledBodyWithoutReadingIt() throws {
    let count = 100_000
    let (path, file) = try served((0..<count).map { "row \($0)" }.joined(separator: "\n"), suffix: "log")
    defer { try? FileManager.default.removeItem(at: file) }
    var result: ExchangeResult? = try spilled(path)
    let id = try #require(result?.id)
    // Only its path and size: a reference to the spilled file would keep it.
    let (spillPath, spillSize) = try { () throws -> (String, Int) in
      guard case .file(let spill) = result?.response?.body else { throw SpillMissing() }
      return (spill.path, spill.size)
    }()
    var state = try demoState()
    send(&state, .agent(.queued(id, result!.request)), .agent(.started(id, attempt: 1)))
    state.focus = .queue
    send(&state, .key(.enter))
    #expect(state.focus == .response)

    let before = try readByThisThread()
    send(&state, .agent(.finished(result!)))
    var buffer = ScreenBuffer(width: state.width, height: state.height)
    view(state, into: &buffer)
    let read = try readByThisThread() - before
    #expect(read < spillSize / 100, "opening read \(read) of \(spillSize) bytes")
    #expect(buffer.text.contains("row 0"))

    // The row keeps the result: forget it, as a new response would, while the document stays.
    let document = try #require(state.viewer.document)
    state.exchanges.removeAll()
    result = nil
    #expect(!FileManager.default.fileExists(atPath: spillPath))
    #expect(document.totalLineCount() == count)
    #expect(document.line(count - 1) == "row \(count - 1)")
  }
}
