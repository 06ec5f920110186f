import Foundation
import RequestEngine
import Workspace

/// What the last run of each chain captured, kept in the state folder so that
/// `reqbench run WS CHAIN --from-step N` continues with the values the steps before N captured,
/// without sending them again: `STATE/chains/NAME.json` (NAME percent-encoded), written
/// atomically and fsynced, mode 0600 (captured values may be tokens), in a folder of mode 0700,
/// never through a link (`StateFiles`).
///
/// ```swift
/// let store = ChainCaptures(folder: StateFolder.chains(in: state))
/// try store.save(outcome)                        // after a run of the chain
/// let values = store.values(for: "login-flow", before: 2)  // [("token", "…"), ("uid", "1")]
/// ```
public struct ChainCaptures: Sendable {
  /// One captured value and the step that captured it.
  public struct Value: Sendable, Equatable {
    public var step: Int
    public var name: String
    public var value: String
    public init(step: Int, name: String, value: String) {
      self.step = step
      self.name = name
      self.value = value
    }
  }

  public let folder: URL
  /// The largest file read back (a chain's captured values; more is damage).
  static let fileLimit = 64 << 20

  public init(folder: URL) {
    self.folder = folder
  }

  /// The file of chain `name`.
  public func file(for name: String) -> URL {
    folder.appendingPathComponent(StateFolder.fileName(for: name) + ".json")
  }

  /// Every value the last run of `name` holds (in the order they were captured), or none.
  public func load(_ name: String) -> [Value] {
    guard let data = try? StateFiles.read(file(for: name).path, limit: Self.fileLimit),
      let json = try? JSONParser.parse(data), json["chain"]?.stringValue == name,
      let items = json["values"]?.arrayValue
    else { return [] }
    return items.compactMap { item in
      guard let step = item["step"]?.intValue, let name = item["name"]?.stringValue, let value = item["value"]?.stringValue
      else { return nil }
      return Value(step: step, name: name, value: value)
    }
  }

  /// The values the steps before `step` captured in the last run (a later capture of a name wins).
  public func values(for name: String, before step: Int) -> [(String, String)] {
    var values: [(String, String)] = []
    for value in load(name) where value.step < step {
      values.removeAll { $0.0 == value.name }
      values.append((value.name, value.value))
    }
    return values
  }

  /// Keeps what a run of a chain captured. A resumed run (its first step after 1) keeps the
  /// earlier steps' values from the run it resumed.
  public func save(_ outcome: FlowOutcome) throws(FileError) {
    guard outcome.kind == .chain else { return }
    let first = outcome.steps.first?.step ?? 1
    var values = first > 1 ? load(outcome.name).filter { $0.step < first } : []
    for step in outcome.steps {
      for value in step.captured { values.append(Value(step: step.step ?? 0, name: value.name, value: value.value)) }
    }
    let object = JSONObject([
      ("chain", .string(outcome.name)),
      ("state", .string(outcome.state.rawValue)),
      ("failedStep", outcome.step.map { .number($0) } ?? .null),
      ("values", .array(values.map {
        .object(JSONObject([("step", .number($0.step)), ("name", .string($0.name)), ("value", .string($0.value))]))
      })),
    ])
    try StateFolder.makeFolder(folder)
    try AtomicFile.write(
      Array((JSONSerializer.pretty(.object(object)) + "\n").utf8), to: file(for: outcome.name),
      permissions: StateFiles.fileMode, links: .refuse)
  }
}
