import Dispatch
import Foundation
import RequestEngine

// The request list: each request is read on its own (WorkspaceReader+Request.swift), a long list
// in parts at once, one part per processor; then the names are checked for duplicates and the
// problems reported in the file's order, whichever part found them.
extension WorkspaceReader {
  /// Requests a part holds at least: below twice this a list is read on the calling thread.
  static let requestsPerPart = 1_000

  /// The parts a list of `count` requests is read in: one per processor (up to 4), each of at
  /// least `requestsPerPart` requests. Reading 10,000 requests is most of what opening such a
  /// workspace costs (the TUI's first paint waits for it); the requests do not depend on one
  /// another, so two processors read them in about half the time.
  static func parts(of count: Int) -> [Range<Int>] {
    let wanted = min(ProcessInfo.processInfo.activeProcessorCount, 4, count / requestsPerPart)
    guard wanted > 1 else { return [0..<count] }
    let size = (count + wanted - 1) / wanted
    return stride(from: 0, to: count, by: size).map { $0..<min($0 + size, count) }
  }

  mutating func requests(_ value: JSONValue, _ path: ReaderPath) -> [RequestTemplate]? {
    guard let items = array(value, path) else { return nil }
    let parts = WorkspaceReader.parts(of: items.count)
    let blank = self.blank
    var outcomes = [RequestListPart](repeating: RequestListPart(), count: parts.count)
    var ok = true
    // Each request is written straight into its place in the list (no array per part to copy
    // afterwards: 10,000 requests are 6 MB). A request with a problem leaves its place empty,
    // and then the list is not kept: every place filled is emptied again.
    let requests = [RequestTemplate](unsafeUninitializedCapacity: items.count) { buffer, initialized in
      guard let base = buffer.baseAddress else { return }
      let places = UncheckedPointer(base)
      outcomes.withUnsafeMutableBufferPointer { outcomeBuffer in
        guard let outcomeBase = outcomeBuffer.baseAddress else { return }
        let results = UncheckedPointer(outcomeBase)
        WorkerThread.concurrentPerform(iterations: parts.count) { part in
          var reader = blank
          var outcome = RequestListPart()
          for index in parts[part] {
            let before = reader.problems.count
            if let request = reader.request(items[index], path.appending(index), deferredBody: reader.deferredBodies[index]) {
              (places.pointer + index).initialize(to: request)
            } else {
              outcome.unread.insert(index)
            }
            if reader.problems.count > before {
              outcome.problems[index] = Array(reader.problems[before...])
            }
          }
          (results.pointer + part).pointee = outcome
        }
      }
      var problems: [Int: [WorkspaceError.Problem]] = [:]
      for outcome in outcomes { problems.merge(outcome.problems) { first, _ in first } }
      ok = clean { r in
        var seen: [String: Int] = [:]
        seen.reserveCapacity(items.count)
        for (i, item) in items.enumerated() {
          if !problems.isEmpty, let found = problems[i] { r.report(found) }
          // Checked apart from the rest of the request, so a duplicate is reported even when the
          // request has other problems. One lookup for a new name (the usual case).
          guard case .string(let name) = item["name"] else { continue }
          if let first = seen.updateValue(i, forKey: name) {
            seen[name] = first
            r.fail(
              path.appending(i).appending("name"),
              "another request is already named \(JSONSerializer.quote(name)) (requests[\(first)]); "
                + "names must be unique"
            )
          }
        }
      }
      if ok && outcomes.allSatisfy(\.unread.isEmpty) {
        initialized = items.count
      } else {
        ok = false
        for index in items.indices where !outcomes.contains(where: { $0.unread.contains(index) }) {
          (base + index).deinitialize(count: 1)
        }
      }
    }
    return ok ? requests : nil
  }
}

extension WorkspaceReader {
  /// Makes `text`, the JSON body the parser left as text (`Workspace.parse`; `null` in the
  /// body object `body` read), the request's body, its strings' placeholders checked on the text
  /// as `body` checks a value's.
  mutating func keep(_ text: JSONText, in request: inout RequestTemplate, _ path: ReaderPath) {
    guard case .json? = request.body else { return }
    text.forEachStringWithOpeningBrace { checkTemplate($0, path.appending("json")) }
    request.storedBody = .deferredJSON(text)
  }
}

/// What reading one part of the request list found: the requests that could not be read, and the
/// problems of each request that had any.
struct RequestListPart {
  var unread: Set<Int> = []
  var problems: [Int: [WorkspaceError.Problem]] = [:]
}

/// A pointer handed to `concurrentPerform`'s threads, each of which writes only its own places.
private struct UncheckedPointer<Pointee>: @unchecked Sendable {
  let pointer: UnsafeMutablePointer<Pointee>
  init(_ pointer: UnsafeMutablePointer<Pointee>) { self.pointer = pointer }
}
