import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace

/// Parses a workspace written inline in a test; errors name the file `test.json`.
package func workspace(_ text: String, file: String = "test.json") throws -> Workspace {
  try Workspace.parse(Array(text.utf8), file: file)
}

/// The error a workspace text fails with; records an issue when it loads.
package func loadError(
  _ text: String, file: String = "test.json",
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> WorkspaceError? {
  do {
    _ = try Workspace.parse(Array(text.utf8), file: file)
    Issue.record("expected the workspace to fail to load", sourceLocation: sourceLocation)
    return nil
  } catch {
    return error
  }
}

/// The error preparing a request fails with; records an issue when it succeeds.
package func prepareError(
  _ workspace: Workspace, _ name: String, variables: [String: String] = [:],
  environment: String? = nil, sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> PrepareError? {
  do {
    _ = try workspace.prepare(requestNamed: name, variables: variables, environment: environment)
    Issue.record("expected preparing \(name) to fail", sourceLocation: sourceLocation)
    return nil
  } catch {
    return error
  }
}

/// Parses JSON text in a test (the JSON is the test's own, so a failure is a test bug).
package func json(_ text: String) throws -> JSONValue {
  try JSONParser.parse(text)
}

package func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// A fresh directory under the system's temporary directory (removed at the latest when the
/// test process exits: `scratchFolder`).
package func makeTemporaryDirectory() throws -> URL {
  try scratchFolder("reqbench-workspace-tests")
}

package func directoryListing(_ url: URL) throws -> [String] {
  try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
}

/// The example of the workspace format, with every field.
package let fullExample = """
  {
    "version": 1,
    "name": "demo",
    "baseURL": "http://127.0.0.1:8080",
    "agent": {"maxConcurrent": 4, "maxPerHost": 2},
    "retry": {"max": 3, "delay": 0.25, "statuses": [503, 429], "methods": ["GET", "post"]},
    "variables": {"id": "1", "page": 2, "debug": true},
    "environment": "local",
    "environments": {"local": {"host": "http://127.0.0.1:8080"}, "staging": {"host": "https://staging.example.com"}},
    "requests": [
      {"name": "get-user", "method": "GET", "url": "/users/{{id}}",
       "query": {"verbose": "1", "page": 2},
       "headers": {"Accept": "application/json", "X-Trace": "{{id}}"},
       "timeout": 12.5, "deadline": 120, "priority": "high",
       "followRedirects": false, "maxRedirects": 3, "insecure": true, "retry": {"max": 2},
       "validate": {"status": [200, 299], "json": {"id": "number", "name": "string"}, "strict": true, "requireBody": true}},
      {"name": "users/create", "method": "post", "url": "/users",
       "body": {"json": {"name": "Ada"}}, "auth": {"basic": {"user": "u", "password": "p"}}},
      {"name": "form", "method": "PUT", "url": "https://other.example/form",
       "body": {"form": {"a": "x y", "n": 1, "ok": true}}, "auth": {"bearer": "{{token}}"}},
      {"name": "text", "method": "PATCH", "url": "/text", "body": {"text": "hello", "contentType": "text/markdown"}},
      {"name": "plain", "url": "/plain", "body": {"text": "hi"}}
    ]
  }
  """

extension PrepareError {
  /// `request: message`, without the place in the file (`PrepareLocationTests` checks that).
  package var unlocated: String { "\(request): \(message)" }
}
