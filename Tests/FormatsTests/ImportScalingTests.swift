import Formats
import Foundation
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

/// An import's work grows in proportion to its input: eight times the operations, headers or
/// items take about eight times as long, not sixty-four (each added name looked up among all the
/// names, each header among all the headers, each key among all the keys). Not a timed test of
/// a machine's speed: each size is timed a few times in the CPU time of the test's thread (what
/// other processes on a shared machine do is not counted), the shortest kept, and the larger must
/// take under 24× the smaller (linear is 8×, a quadratic step 64×: a margin that a noisy machine
/// does not cross either way) and under an absolute bound; the sizes are large enough that the
/// quadratic steps were most of the time.
@Suite(.serialized) struct ImportScalingTests {
  /// The CPU time this thread has used, in seconds.
  func threadCPUTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }

  /// The shortest of `runs` timings of `work`, in seconds of this thread's CPU time.
  func shortest(_ runs: Int, _ work: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<runs {
      let start = threadCPUTime()
      try work()
      best = min(best, threadCPUTime() - start)
    }
    return best
  }

  /// Times `work` on inputs of size `n` and `8 * n` (`make` builds each input, untimed).
  func expectLinear<Input>(
    _ what: String, n: Int, limit: Double, make: (Int) -> Input, _ work: (Input) throws -> Void,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) throws {
    let small = make(n)
    let large = make(8 * n)
    try work(small)  // warm up (first use of the code and its metadata)
    let t1 = try shortest(3, { try work(small) })
    let t8 = try shortest(2, { try work(large) })
    let ratio = t8 / max(t1, 1e-6)
    #expect(
      ratio < 24, "\(what): \(n) took \(t1) s, \(8 * n) took \(t8) s (\(ratio)×; linear is 8×)",
      sourceLocation: sourceLocation)
    #expect(t8 < limit, "\(what): \(8 * n) took \(t8) s", sourceLocation: sourceLocation)
  }

  /// Imports `bytes` as `format` into a new workspace and back in again, then encodes it and
  /// reads the text back, as `reqbench import` and its save do.
  func importTwice(_ format: ImportFormat, _ bytes: [UInt8]) throws {
    let imported = try format.parse(bytes, file: "in")
    var ws = Workspace(name: "w")
    _ = try ws.addImported(imported)
    _ = try ws.addImported(imported)  // an OpenAPI description again: its requests are updated
    _ = try ws.checkedEncoding(file: "w.json")
  }

  /// `n` operations, each with a path parameter and one of 100 tags (the shape of a large
  /// generated API description).
  static func openapi(_ n: Int) -> [UInt8] {
    var paths: [(key: String, value: JSONValue)] = []
    for i in 0..<n {
      let parameter: JSONValue = ["name": "id", "in": "path", "required": true, "schema": ["type": "string"]]
      let operation: JSONValue = [
        "operationId": .string("op\(i)"), "tags": [.string("t\(i % 100)")], "parameters": [parameter],
        "responses": ["200": ["description": "ok"]],
      ]
      paths.append((key: "/r\(i)/{id}", value: ["get": operation]))
    }
    let spec: JSONValue = [
      "openapi": "3.0.0", "info": ["title": "big", "version": "1"], "servers": [["url": "http://127.0.0.1:9/"]],
      "paths": .object(JSONObject(distinctKeys: paths)),
    ]
    return Array(JSONSerializer.compact(spec).utf8)
  }

  /// The operations of a description, added to a workspace: each name and each operation (is
  /// there a request from it already?) looked up once. Read untimed: the adding is what grew.
  @Test func openAPIOperationsAreAddedInLinearTime() throws {
    try expectLinear(
      "openapi operations", n: 1_500, limit: 20,
      make: { try! ImportFormat.openapi.parse(ImportScalingTests.openapi($0), file: "spec.json") }
    ) { imported in
      var ws = Workspace(name: "w")
      _ = try ws.addImported(imported)
    }
  }

  /// One HAR entry with `n` headers of distinct names, and a repeated one (joined).
  @Test func headersOfOneHAREntryImportInLinearTime() throws {
    try expectLinear("HAR headers", n: 2_000, limit: 20, make: { n in
      let headers = (0..<n).map { i -> JSONValue in ["name": .string(i % 500 == 0 ? "X-Same" : "X-H\(i)"), "value": "v"] }
      let har: JSONValue = [
        "log": ["entries": [["request": ["method": "GET", "url": "http://127.0.0.1:9/h", "headers": .array(headers)]]]]
      ]
      return Array(JSONSerializer.compact(har).utf8)
    }) { try importTwice(.har, $0) }
  }

  /// `n` Postman items of one name: each gets the next free `-N`.
  @Test func manyRequestsOfOneNameImportInLinearTime() throws {
    try expectLinear("Postman items of one name", n: 800, limit: 20, make: { n in
      let item: JSONValue = ["name": "same", "request": ["method": "GET", "url": "http://127.0.0.1:9/s"]]
      let collection: JSONValue = [
        "info": ["name": "c", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"],
        "item": .array(Array(repeating: item, count: n)),
      ]
      return Array(JSONSerializer.compact(collection).utf8)
    }) { bytes in
      try importTwice(.postman, bytes)
    }
  }

  /// `n` requests each with a token of its own (a HAR of many sessions): each goes to the
  /// secrets file under the next free name (`token`, `token-2`, …), each name looked at once.
  @Test func manyDistinctCredentialsMoveInLinearTime() throws {
    try expectLinear("distinct tokens", n: 1_000, limit: 20, make: { n in
      var imported = ImportedRequests()
      for i in 0..<n {
        let template = RequestTemplate(name: "r\(i)", url: "http://127.0.0.1:9/", headers: ["Authorization": "Bearer tok-\(i)-0123456789"])
        imported.requests.append(ImportedRequest(template: template, location: nil))
      }
      return imported
    }) { imported in
      var copy = imported
      let moved = ImportedCredentials.extract(from: &copy, known: SecretsFile(values: [("token-3", "held")]))
      #expect(moved.count == imported.requests.count)
      #expect(copy.requests[3].template.headers["Authorization"] == "Bearer {{secret.token-5}}")
    }
  }

  /// The parser, the reader and the writer on one object of `n` keys (a request's query).
  @Test func aRequestWithManyQueryParametersReadsAndWritesInLinearTime() throws {
    try expectLinear("query parameters", n: 4_000, limit: 20, make: { n in
      let query = JSONObject(distinctKeys: (0..<n).map { (key: "q\($0)", value: JSONValue.string("v")) })
      let ws: JSONValue = ["version": 1, "requests": [["name": "r", "url": "http://127.0.0.1:9/", "query": .object(query)]]]
      return Array(JSONSerializer.pretty(ws).utf8)
    }) { bytes in
      var ws = try Workspace.parse(bytes, file: "w.json")
      try ws.modifyRequest(named: "r") { $0.query["added"] = "1" }
      _ = try ws.checkedEncoding(file: "w.json")
    }
  }
}
