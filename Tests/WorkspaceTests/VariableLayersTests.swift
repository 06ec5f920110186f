import Foundation
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

/// What `V` shows: every variable in scope for a request with the layer it comes from (the
/// same lookup `prepare` uses), and `setVariable`, which the TUI edits them with.
@Suite struct VariableLayersTests {
  let text = #"""
    {
      "version": 1,
      "baseURL": "{{host}}/api/",
      "environment": "local",
      "environments": {
        "local": {"host": "http://127.0.0.1:8080", "id": "env-id"},
        "staging": {"host": "http://127.0.0.1:9090"}
      },
      "variables": {"id": "1", "auth": "Bearer {{secret.token}}", "unused": "x"},
      "requests": [
        {"name": "users/get", "url": "users/{{id}}", "headers": {"Authorization": "{{auth}}", "X-Home": "{{env.HOME}}", "X-Missing": "{{missing}}"}}
      ]
    }
    """#

  func sources(
    overrides: [String: String] = [:], environment: String? = nil, env: [String: String] = [:],
    secrets: [(String, String)] = [("token", "s3cr3t")]
  ) -> VariableSources {
    VariableSources(
      overrides: overrides, environment: environment, processEnvironment: env, secrets: SecretsFile(values: secrets))
  }

  @Test func everyVariableInScopeWithItsLayer() throws {
    let ws = try workspace(text)
    let rows = ws.variablesInScope(for: ws.request(named: "users/get"), sources: sources(env: ["HOME": "/home/ada"]))
    let byName = Dictionary(uniqueKeysWithValues: rows.map { ($0.name, $0) })
    #expect(rows.map(\.name) == ["auth", "env.HOME", "host", "id", "missing", "secret.token", "unused"])
    #expect(byName["host"]?.found?.layer == .environment("local"), "the base URL's variable is used")
    #expect(byName["host"]?.used == true)
    #expect(byName["id"]?.found == VariableValue(value: "env-id", layer: .environment("local")))
    #expect(byName["id"]?.shadowed == [.workspace], "the workspace's id loses to the environment's")
    #expect(byName["auth"]?.found?.layer == .workspace)
    #expect(byName["secret.token"]?.found?.layer == .secretsFile)
    #expect(byName["secret.token"]?.used == true, "used through the value of {{auth}}")
    #expect(byName["secret.token"]?.isSecret == true)
    #expect(byName["env.HOME"]?.found?.layer == .processEnvironment("HOME"))
    #expect(byName["missing"]?.found == nil && byName["missing"]?.used == true)
    #expect(byName["unused"]?.used == false)
  }

  @Test func theLayersWinInPrepareOrder() throws {
    let ws = try workspace(text)
    let template = ws.request(named: "users/get")
    // --var beats the environment; REQBENCH_SECRET_ beats the secrets file; --env picks another.
    let rows = ws.variablesInScope(
      for: template,
      sources: sources(overrides: ["id": "7"], environment: "staging", env: ["REQBENCH_SECRET_TOKEN": "from-env"]))
    let byName = Dictionary(uniqueKeysWithValues: rows.map { ($0.name, $0) })
    #expect(byName["id"]?.found == VariableValue(value: "7", layer: .override))
    #expect(byName["id"]?.shadowed == [.workspace], "staging has no id")
    #expect(byName["host"]?.found == VariableValue(value: "http://127.0.0.1:9090", layer: .environment("staging")))
    #expect(byName["secret.token"]?.found?.layer == .secretEnvironment("REQBENCH_SECRET_TOKEN"))
    #expect(byName["secret.token"]?.shadowed == [.secretsFile])
    // What prepare sends agrees with what the rows say.
    var withHome = sources(overrides: ["id": "7", "missing": "m"], environment: "staging", env: ["HOME": "/h"])
    withHome.secrets = SecretsFile(values: [("token", "s3cr3t")])
    let request = try ws.prepare(try #require(template), sources: withHome)
    #expect(request.url == "http://127.0.0.1:9090/api/users/7")
    #expect(request.headers["Authorization"] == "Bearer s3cr3t")
    #expect(VariableLayer.environment("staging").label == "environment staging")
    #expect(VariableLayer.override.label == "--var")
  }

  @Test func noRequestListsWhatIsDefined() throws {
    let ws = try workspace(text)
    let rows = ws.variablesInScope(for: nil, sources: sources())
    #expect(rows.allSatisfy { !$0.used })
    #expect(rows.map(\.name) == ["auth", "host", "id", "secret.token", "unused"])
  }

  @Test func setVariableWritesOnlyThatValue() throws {
    var ws = try workspace(text)
    try ws.setVariable("host", "http://127.0.0.1:7070", in: .environment("staging"))
    try ws.setVariable("id", "2", in: .workspace)
    try ws.setVariable("added", "new", in: .environment("local"))
    let saved = String(decoding: ws.encoded(), as: UTF8.self)
    #expect(saved.contains(#""staging": {"host": "http://127.0.0.1:7070"}"#), "\(saved)")
    #expect(saved.contains(#""variables": {"id": "2", "auth": "Bearer {{secret.token}}", "unused": "x"}"#), "\(saved)")
    #expect(saved.contains(#""added": "new""#))
    let reread = try workspace(saved)
    #expect(reread.environments.first { $0.name == "local" }?.value(of: "added") == "new")
    // Refused: no such environment; names that are not a workspace variable's.
    #expect(throws: WorkspaceEditError.self) { try ws.setVariable("x", "1", in: .environment("prod")) }
    #expect(throws: WorkspaceEditError.self) { try ws.setVariable("secret.token", "1", in: .workspace) }
    #expect(throws: WorkspaceEditError.self) { try ws.setVariable("a b", "1", in: .workspace) }
  }
}
