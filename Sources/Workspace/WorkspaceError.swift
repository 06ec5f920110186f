import RequestEngine

/// Why a workspace file could not be loaded: every problem found, each with where it is.
///
/// ```text
/// demo.json:14:17: requests[2].method: unknown method "FECTH"; use one of GET, POST, …
/// demo.json:20:5: requests[3]: missing "url"
/// ```
public struct WorkspaceError: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Kind: Sendable, Equatable {
    /// The file could not be read (missing, a directory, no permission).
    case unreadable
    /// The file is not valid JSON.
    case syntax
    /// Valid JSON that is not a valid workspace.
    case invalid
  }

  /// One thing wrong with the file.
  public struct Problem: Sendable, Equatable, CustomStringConvertible {
    /// Where in the file; nil when the file could not be read at all.
    public var location: SourceLocation?
    /// What is wrong, starting with the JSON path of the value (`requests[2].method: …`).
    public var message: String

    public init(location: SourceLocation?, message: String) {
      self.location = location
      self.message = message
    }

    public var description: String {
      location.map { "\($0): \(message)" } ?? message
    }
  }

  public var kind: Kind
  /// The file as the user named it.
  public var file: String
  /// Every problem, sorted by position in the file; never empty.
  public var problems: [Problem]

  public init(kind: Kind, file: String, problems: [Problem]) {
    self.kind = kind
    self.file = file
    self.problems = problems
  }

  /// Where the first problem is.
  public var location: SourceLocation? { problems.first?.location }
  /// What the first problem is.
  public var message: String { problems.first?.message ?? "" }

  /// One line per problem: `FILE:LINE:COLUMN: message`, or `FILE: message`.
  public var description: String {
    problems.map { "\(file):\($0.location.map { "\($0):" } ?? "") \($0.message)" }
      .joined(separator: "\n")
  }
}

/// Why a request template could not be turned into a request (sending it is another matter).
///
/// ```text
/// api.json:12:14: get-user: undefined variable {{id}} in url; define it with --var id=… or in "variables"
/// ```
/// A request read from a file says where in it: the field that could not be filled in (the
/// request's `url`, a header, the workspace's `baseURL`…), else the request itself.
public struct PrepareError: Error, Sendable, Equatable, CustomStringConvertible {
  public enum Code: Sendable, Equatable {
    /// A `{{name}}` with no value in the overrides, the environment or `variables`; an unset
    /// `{{env.NAME}}`; an unknown `{{secret.NAME}}`.
    case undefinedVariable(String)
    /// The selected environment is not in the workspace's `environments`.
    case unknownEnvironment(String)
    /// No request of that name.
    case unknownRequest(String)
    /// The URL cannot be resolved to an absolute http(s) URL.
    case invalidURL
    /// A `{{` without its `}}`, or a placeholder that names no variable.
    case invalidTemplate
    /// A file path (upload source, download target) outside the workspace's folder.
    case invalidPath
    /// A filled-in value would put CR, LF or NUL into the URL or a header (`LineBreaks`): the
    /// message names the field and where the value came from.
    case lineBreak
  }

  public var code: Code
  /// The request being prepared.
  public var request: String
  public var message: String
  /// The workspace file as the user named it, and where in it; nil for a workspace not read
  /// from a file (a new one, one built in code) or a field the file does not have.
  public var file: String?
  public var location: SourceLocation?

  public init(code: Code, request: String, message: String) {
    self.code = code
    self.request = request
    self.message = message
  }

  /// `FILE:LINE:COLUMN: message`, or the message alone when there is no place in a file.
  public var locatedMessage: String {
    guard let file, let location else { return message }
    return "\(file):\(location): \(message)"
  }

  /// `FILE:LINE:COLUMN: request: message`, or `request: message`.
  public var description: String {
    guard let file, let location else { return "\(request): \(message)" }
    return "\(file):\(location): \(request): \(message)"
  }

  /// Which part of the workspace file a problem is in.
  enum Field: Sendable, Equatable {
    /// A path inside the request's own object (`url`, `headers.X`); the request itself at root.
    case request(JSONPath)
    /// A path from the top of the file (`baseURL`, `defaults.headers.X`).
    case workspace(JSONPath)

    static func inRequest(_ keys: String...) -> Field { .request(JSONPath(keys.map { .key($0) })) }
    static func inWorkspace(_ keys: String...) -> Field { .workspace(JSONPath(keys.map { .key($0) })) }
  }
}

/// Why an edit to a workspace was refused.
public struct WorkspaceEditError: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
