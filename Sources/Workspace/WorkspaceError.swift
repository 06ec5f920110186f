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
/// get-user: undefined variable {{id}} in url; define it with --var id=… or in "variables"
/// ```
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

  public init(code: Code, request: String, message: String) {
    self.code = code
    self.request = request
    self.message = message
  }

  /// `request: message`.
  public var description: String { "\(request): \(message)" }
}

/// Why an edit to a workspace was refused.
public struct WorkspaceEditError: Error, Sendable, Equatable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
