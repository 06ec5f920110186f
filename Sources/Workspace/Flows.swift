import RequestEngine

/// A batch (YTKBatchRequest / XPBatchRequest): members sent together under the batch's own
/// concurrency limit. Members are requests or chains. `Workspace.makeBatch` makes one; renaming
/// or deleting a request updates the batches that name it.
///
/// ```json
/// {"name": "smoke", "members": ["users/get", "users/list", "login-flow"],
///  "policy": "failFast", "concurrency": 4}
/// ```
public struct Batch: Sendable, Equatable {
  public enum Policy: String, Sendable, CaseIterable {
    /// The first failure cancels the others on the wire at once (YTK).
    case failFast
    /// Every member runs to its end (XP).
    case allSettled
  }

  public var name: String
  public var members: [String]
  public var policy: Policy
  public var concurrency: Int
  /// The JSON object it was read from, unknown keys included (see `RequestTemplate.source`).
  var source: JSONObject

  public init(name: String, members: [String], policy: Policy = .failFast, concurrency: Int = 4) {
    self.name = name
    self.members = members
    self.policy = policy
    self.concurrency = concurrency
    self.source = JSONObject([(key: "name", value: .string(name))])
  }
}

/// A chain (YTKChainRequest): steps sent strictly one after another; values captured from one
/// step's response are variables for the later steps.
///
/// ```json
/// {"name": "login-flow", "steps": [
///   {"request": "auth/login", "capture": {"token": ".token", "etag": "header:ETag", "code": "status"}},
///   {"request": "users/get", "vars": {"id": "{{uid}}"}}]}
/// ```
public struct Chain: Sendable, Equatable {
  public var name: String
  public var steps: [ChainStep]
  /// What a failed step does: stop the chain (YTK, the default) or let the later steps run
  /// (XP's continue-on-failure; the chain still fails, listing the failed steps).
  public var onFailure: OnFailure
  /// The JSON object it was read from, unknown keys included.
  var source: JSONObject

  public enum OnFailure: String, Sendable, Equatable, CaseIterable {
    case stop, `continue`
  }

  public init(name: String, steps: [ChainStep], onFailure: OnFailure = .stop) {
    self.name = name
    self.steps = steps
    self.onFailure = onFailure
    self.source = JSONObject([(key: "name", value: .string(name))])
  }
}

public struct ChainStep: Sendable, Equatable {
  public var request: String
  /// Variable name → what to take from the response, in the order written.
  public var capture: [(name: String, source: Capture)]
  /// Variables for this step only: templates filled in from every source (the values captured so
  /// far, `--var`, the environment, `variables`, `env.`, `secret.`); for this step they win over
  /// all of them (see `VariableSources.stepVariables`).
  public var vars: [(name: String, value: String)]
  /// The JSON object it was read from (a step's spelling survives a save).
  var source: JSONObject

  public init(request: String, capture: [(String, Capture)] = [], vars: [(String, String)] = []) {
    self.request = request
    self.capture = capture.map { (name: $0.0, source: $0.1) }
    self.vars = vars.map { (name: $0.0, value: $0.1) }
    self.source = JSONObject()
  }

  public static func == (a: ChainStep, b: ChainStep) -> Bool {
    a.source == b.source && a.request == b.request && a.capture.map(\.name) == b.capture.map(\.name)
      && a.capture.map(\.source) == b.capture.map(\.source) && a.vars.map(\.name) == b.vars.map(\.name)
      && a.vars.map(\.value) == b.vars.map(\.value)
  }
}

/// Where a captured value comes from: `.user.id` (jq over the JSON body), `header:ETag`, `status`,
/// and for a streamed response `event` (the last event's data) or `event:.choices[0].id` (jq
/// over each kept event's data: the value of the last event where it finds one).
public enum Capture: Sendable, Equatable {
  case jq(String)
  case header(String)
  case status
  /// nil: the last event's data as it is.
  case event(String?)

  public init(_ text: String) {
    if text == "status" {
      self = .status
    } else if text == "event" {
      self = .event(nil)
    } else if text.hasPrefix("event:") {
      self = .event(String(text.dropFirst(6)).trimmingCharacters(in: .whitespaces))
    } else if text.lowercased().hasPrefix("header:") {
      self = .header(String(text.dropFirst(7)).trimmingCharacters(in: .whitespaces))
    } else {
      self = .jq(text)
    }
  }

  public var text: String {
    switch self {
    case .jq(let expression): expression
    case .header(let name): "header:" + name
    case .status: "status"
    case .event(let expression): expression.map { "event:" + $0 } ?? "event"
    }
  }
}

extension Workspace {
  /// Everything `run` can take: requests, batches and chains.
  public var targetNames: [String] { requests.map(\.name) + batches.map(\.name) + chains.map(\.name) }

  public func batch(named name: String) -> Batch? { batches.first { $0.name == name } }
  public func chain(named name: String) -> Chain? { chains.first { $0.name == name } }
}
