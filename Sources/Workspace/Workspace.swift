import Foundation
import Synchronization
import RequestEngine

/// A workspace file (`workspaces/NAME.json`, format version 1): a base URL, variables,
/// environments and named request templates.
///
/// ```swift
/// var workspace = try Workspace.load(from: URL(fileURLWithPath: "workspaces/demo.json"))
/// let request = try workspace.prepare(requestNamed: "get-user", variables: ["id": "7"])
/// workspace.requests[0].timeout = 5
/// try workspace.save(to: URL(fileURLWithPath: "workspaces/demo.json"))
/// ```
/// The file is written by people and by the app: the parsed JSON is kept, and a save writes the
/// model's changes back into it, so keys the app does not know survive and an unchanged workspace
/// is written back as the same JSON value, keys in their order.
public struct Workspace: Sendable, Equatable {
  /// The format versions this build reads; it writes the newest.
  public static let supportedVersions = WorkspaceReader.supportedVersions

  public var name: String
  /// Relative request URLs resolve against it; may hold `{{variables}}` (`{{host}}/v1/`).
  public var baseURL: String?
  /// Requests with `"useCDN": true` resolve their relative URL against it instead of `baseURL`.
  public var cdnURL: String?
  /// Headers and query parameters added to every request with a relative URL (YTKNetwork's URL
  /// filters); a request's own values win.
  public var defaults: RequestDefaults
  public var agent: AgentSettings
  /// How much history `run` and the TUI keep (the `history` key).
  public var history: HistorySettings = HistorySettings()
  /// `"cookies": false`: no request of this workspace sends or keeps cookies (see `CookieJars`).
  public var cookies: Bool = true
  /// The retry policy of requests that have none of their own; nil for no retries.
  public var retry: RetryPolicy?
  /// The largest response body of requests without their own `maxBodyMB`, in MB; nil: 1024.
  public var maxBodyMB: Double?
  /// `"resolve": ["api.test:443:127.0.0.1"]`: host names mapped to addresses for every request
  /// (curl's `--resolve`), so they are never asked of the system's resolver.
  public var resolve: [HostMapping] = []
  /// The values of `{{variables}}` when neither an override nor the environment sets them.
  public var variables: [Variable]
  /// The environment used when none is chosen (the `environment` key).
  public var environment: String?
  public var environments: [Environment]
  /// In file order; names are unique.
  public var requests: [RequestTemplate]
  /// Batches and chains (`batches`, `chains`); their names are unique among requests too.
  /// Renaming or deleting a request updates the members and steps that name it.
  public var batches: [Batch] = []
  public var chains: [Chain] = []
  /// The folder of the file it was loaded from: upload sources and download targets are
  /// relative to it (the current directory when nil).
  public var folder: URL?

  /// The JSON object the workspace was read from (see `json`).
  var source: JSONObject
  /// The text it was read from: a save writes the new JSON over it (see `encoded()`).
  var sourceText = SourceText()
  /// The name taken from the file's name when the file has no `name` (then none is written).
  var nameFromFileName: String?

  /// A new, empty workspace.
  public init(name: String, baseURL: String? = nil, requests: [RequestTemplate] = []) {
    self.name = name
    self.baseURL = baseURL
    self.cdnURL = nil
    self.defaults = RequestDefaults()
    self.agent = AgentSettings()
    self.retry = nil
    self.variables = []
    self.environment = nil
    self.environments = []
    self.requests = requests
    self.source = JSONObject([
      (key: "version", value: .number(1)), (key: "name", value: .string(name)),
    ])
  }

  // MARK: - Reading

  /// Reads and checks a workspace file that must exist (`WorkspaceFile.load` opens a missing one
  /// as a new workspace). Errors name the file as `url.relativePath`.
  public static func load(from url: URL) throws(WorkspaceError) -> Workspace {
    var file = WorkspaceFile(url)
    let workspace = try file.load()
    if file.isNew { throw WorkspaceError.unreadable(url, reason: FileAccess.describe(ENOENT)) }
    return workspace
  }

  /// Reads a workspace from the file's bytes; `file` names it in errors, and its base name (without
  /// `.json`) is the workspace's name when the file has no `name`.
  public static func parse(_ bytes: [UInt8], file: String) throws(WorkspaceError) -> Workspace {
    let root: JSONValue
    let deferred: [JSONDeferral.Value]
    do {
      (root, deferred) = try JSONParser.parse(bytes, deferring: Workspace.deferredBodies)
    } catch {
      throw WorkspaceError(
        kind: .syntax, file: file,
        problems: [.init(location: error.location, message: error.message)])
    }
    // The usual case, a valid file, needs no locations and no paths; only when there are problems
    // is the file parsed again recording where every value starts, and read again with paths, so
    // each problem names its value and points into the file.
    var fast = WorkspaceReader()
    for body in deferred { if let request = body.indices.first { fast.deferredBodies[request] = body.text } }
    if var workspace = fast.workspace(root, defaultName: defaultName(for: file), at: .untracked),
      fast.problems.isEmpty
    {
      workspace.sourceText = SourceText(bytes, file: file)
      return workspace
    }
    let document = (try? JSONParser.parseDocument(bytes, duplicateKeys: .refused)) ?? JSONDocument(root: root, locations: [:])
    var reader = WorkspaceReader(document: document)
    _ = reader.workspace(document.root, defaultName: defaultName(for: file), at: .root)
    throw WorkspaceError(kind: .invalid, file: file, problems: sorted(reader.problems))
  }

  /// Large JSON bodies are kept as their text (`StoredBody`).
  static let deferredBodies = JSONDeferral(
    path: [.key("requests"), .anyIndex, .key("body"), .key("json")], minimumBytes: StoredBody.deferredBytes)

  package static func defaultName(for file: String) -> String {
    var name = file.split(separator: "/").last.map(String.init) ?? file
    if name.hasSuffix(".json") { name.removeLast(5) }
    return name.isEmpty ? "workspace" : name
  }

  private static func sorted(_ problems: [WorkspaceError.Problem]) -> [WorkspaceError.Problem] {
    problems.enumerated().sorted { a, b in
      let la = a.element.location.map { ($0.line, $0.column) } ?? (0, 0)
      let lb = b.element.location.map { ($0.line, $0.column) } ?? (0, 0)
      return la != lb ? la < lb : a.offset < b.offset
    }.map(\.element)
  }

  // MARK: - Writing

  /// The file's new content. A workspace read from a file is written over that file's text
  /// (`JSONTextEditor`): every value the model did not change keeps its text byte for byte, and
  /// only changed, added or removed members are written, new ones in the style of their
  /// neighbours. A new workspace is pretty JSON (2-space indent) ending in a newline.
  public func encoded() -> [UInt8] {
    let json = json
    if let bytes = sourceText.bytes, let edited = JSONTextEditor.write(json, over: bytes) {
      return edited
    }
    return Array((JSONSerializer.pretty(json) + "\n").utf8)
  }

  /// `encoded()`, read back before anything is written: text the reader would refuse (a JSON
  /// body nested deeper than the parser goes, a value an import or an edit brought in that the
  /// reader does not take) is never written, so a save can never leave a file that no longer
  /// loads. `file` names it in the error.
  public func checkedEncoding(file: String) throws(WorkspaceError) -> [UInt8] {
    let bytes = encoded()
    _ = try Workspace.parse(bytes, file: file)
    return bytes
  }

  /// Writes `checkedEncoding()` atomically: a reader sees the old file or the new one, never a
  /// mix, and never one it cannot read.
  public func save(to url: URL) throws(WorkspaceSaveError) {
    let bytes: [UInt8]
    do {
      bytes = try checkedEncoding(file: url.relativePath)
    } catch {
      throw .wouldNotLoad(error)
    }
    do {
      try AtomicFile.write(bytes, to: url)
    } catch {
      throw .file(error)
    }
  }

  // MARK: - Requests

  public func request(named name: String) -> RequestTemplate? {
    requests.first { $0.name == name }
  }

  // Adding, renaming, deleting and changing requests: Workspace+Editing.swift.
}

/// The bytes a workspace was read from. Layout is not part of a workspace's value: two workspaces
/// read from differently formatted files of the same JSON are equal.
struct SourceText: Sendable, Equatable {
  let bytes: [UInt8]?
  /// The file as the user named it, for errors that point into it.
  let file: String?
  /// Where its values start, read the first time an error asks and then kept: the TUI prepares
  /// the selected request on every frame, and `run --all` may fail many requests.
  private let index = LocationIndex()

  init(_ bytes: [UInt8]? = nil, file: String? = nil) {
    self.bytes = bytes
    self.file = file
  }
  static func == (lhs: SourceText, rhs: SourceText) -> Bool { true }

  /// The document with locations, and the index of each request object by name; nil when there
  /// is no text (or it no longer parses, which a loaded text always does).
  func located() -> (document: JSONDocument, requests: [String: Int])? {
    guard let bytes else { return nil }
    return index.get(bytes)
  }

  /// A value shared by the copies of one `SourceText`, filled once.
  private final class LocationIndex: Sendable {
    typealias Located = (document: JSONDocument, requests: [String: Int])
    /// nil until the first call; then the located document, or `.some(nil)` when it did not parse.
    private let parsed = Mutex<Located??>(nil)

    func get(_ bytes: [UInt8]) -> Located? {
      parsed.withLock { parsed in
        if let parsed { return parsed }
        var result: Located?
        if let document = try? JSONParser.parseDocument(bytes, duplicateKeys: .refused) {
          var requests: [String: Int] = [:]
          for (i, request) in (document.root["requests"]?.arrayValue ?? []).enumerated() {
            if let name = request["name"]?.stringValue, requests[name] == nil { requests[name] = i }
          }
          result = (document, requests)
        }
        parsed = .some(result)
        return result
      }
    }
  }
}
