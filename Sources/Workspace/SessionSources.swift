import RequestEngine

// What `prepare` asks of a workspace's sessions: the cookie jar a request sends and keeps cookies
// in, and the authorizer that gets an OAuth 2.0 request its token. The model only asks; the
// `Sessions` target answers (`CookieJars`: the jar files of the state folder; `OAuth2Tokens`: the
// token store and the grants), and the commands and the TUI put those in `VariableSources`.

/// The cookie jars of a workspace, one per environment.
public protocol CookieJarSource: AnyObject, Sendable {
  /// The jar of `environment` (nil: the workspace's own, when no environment is selected).
  func jar(environment: String?) -> CookieJar
}

/// The OAuth 2.0 tokens of a workspace.
public protocol TokenSource: AnyObject, Sendable {
  /// What the engine asks for a request's `Authorization` before it sends it (and once more
  /// after a 401).
  func authorizer(for client: OAuth2Client) -> Authorizer
}
