import Flows
import Foundation
import RequestEngine
import TestSupport
import Testing
import Workspace
import WorkspaceTestSupport

/// A filled-in value with CR, LF or NUL in a header, the URL or auth is a usage error naming the
/// request, the field and where the value came from (a variable, `--var`, a secret, the process
/// environment, a chain capture from a server's response); nothing is sent.
@Suite struct LineBreakPrepareTests {
  let ws: Workspace

  init() throws {
    ws = try workspace(
      #"""
      {"version": 1, "baseURL": "{{host}}/",
       "environment": "local", "environments": {"local": {"host": "http://127.0.0.1:1", "envv": "e\r\nX-Injected: env"}},
       "variables": {"v": "ab\r\nX-Injected: 1", "outer": "x-{{inner}}", "inner": "ok", "clean": "fine"},
       "requests": [
         {"name": "h", "url": "/h", "headers": {"X-K": "{{v}}"}},
         {"name": "h-env", "url": "/h", "headers": {"X-K": "{{envv}}"}},
         {"name": "h-nested", "url": "/h", "headers": {"X-K": "{{outer}}"}},
         {"name": "h-secret", "url": "/h", "headers": {"X-Api-Key": "{{secret.k}}"}},
         {"name": "h-process", "url": "/h", "headers": {"X-Home": "{{env.EVIL}}"}},
         {"name": "bearer", "url": "/h", "auth": {"bearer": "{{clean}}{{v}}"}},
         {"name": "url", "url": "/h/{{clean}}"},
         {"name": "part", "method": "POST", "url": "/h",
          "body": {"multipart": [{"name": "{{v}}", "value": "1"}]}}
       ]}
      """#)
  }

  func failure(_ name: String, _ sources: VariableSources = VariableSources(processEnvironment: [:])) -> PrepareError? {
    guard let template = ws.request(named: name) else { return nil }
    do {
      _ = try ws.prepare(template, sources: sources)
      Issue.record("expected preparing \(name) to fail")
      return nil
    } catch {
      return error
    }
  }

  @Test func aWorkspaceVariableNamesItsSource() throws {
    let error = try #require(failure("h"))
    #expect(error.code == .lineBreak)
    #expect(error.request == "h")
    #expect(
      error.message
        == #"header "X-K": {{v}} (from "variables") contains CR (\r); CR, LF and NUL are not allowed in methods, URLs and headers: they would end the line on the wire"#)
    #expect(try #require(failure("h-env")).message.hasPrefix(#"header "X-K": {{envv}} (from environment "local") contains CR"#))
  }

  @Test func theCommandLineSecretsAndTheProcessEnvironmentAreNamed() throws {
    let overridden = try #require(failure("h", VariableSources(overrides: ["v": "z\nX-Injected: var"], processEnvironment: [:])))
    #expect(overridden.message.hasPrefix(#"header "X-K": {{v}} (from --var v) contains LF (\n)"#), "\(overridden.message)")
    let secret = try #require(
      failure("h-secret", VariableSources(processEnvironment: ["REQBENCH_SECRET_K": "s3cr3t\r\nX-Injected: s"])))
    #expect(secret.message.hasPrefix(#"header "X-Api-Key": {{secret.k}} (the secret "k", from REQBENCH_SECRET_K) contains CR"#))
    #expect(!secret.message.contains("s3cr3t"))
    let file = try #require(
      failure("h-secret", VariableSources(processEnvironment: [:], secrets: SecretsFile(values: [("k", "a\nb")]))))
    #expect(file.message.hasPrefix(#"header "X-Api-Key": {{secret.k}} (the secret "k", from the secrets file) contains LF"#))
    let process = try #require(failure("h-process", VariableSources(processEnvironment: ["EVIL": "a\0"])))
    #expect(process.message.hasPrefix(#"header "X-Home": {{env.EVIL}} (from the environment variable EVIL) contains NUL"#))
  }

  @Test func aValueReachedThroughAnotherVariableNamesBoth() throws {
    let error = try #require(failure("h-nested", VariableSources(overrides: ["inner": "a\r\nb"], processEnvironment: [:])))
    // --var values are not filled in again, but a workspace variable's value is: {{outer}} is
    // clean as written, {{inner}} (from --var) brought the CR in.
    #expect(error.message.hasPrefix(#"header "X-K": {{inner}} (from --var inner) through {{outer}} contains CR"#), "\(error.message)")
  }

  @Test func authTheURLAndMultipartPartsAreChecked() throws {
    #expect(try #require(failure("bearer")).message.hasPrefix(#"auth: {{v}} (from "variables") contains CR"#))
    let url = try #require(failure("url", VariableSources(overrides: ["host": "http://127.0.0.1:1\r\nX-Injected: 1"], processEnvironment: [:])))
    #expect(url.code == .lineBreak)
    #expect(url.message.hasPrefix(#"baseURL: {{host}} (from --var host) contains CR"#), "\(url.message)")
    #expect(try #require(failure("part")).message.hasPrefix(#"body.multipart[0].name: {{v}} (from "variables") contains CR"#))
  }

  /// A chain a server injects through: step 1's response echoes `?x=%0D%0AX-Injected: fromserver`, the chain
  /// captures it and step 2 puts it in a header. Step 2 fails before it is sent (before the fix
  /// the fixture received `X-Injected: fromserver`).
  @Test func aValueCapturedFromAServerCannotAddHeaders() throws {
    let key = uniqueKey("inject")
    let flows = try workspace(try injectingChainWorkspace(key: key))
    let agent = Agent()
    defer { agent.shutdown() }
    let runner = FlowRunner(agent: agent, workspace: flows, sources: VariableSources(processEnvironment: [:]))
    let done = DispatchSemaphore(value: 0)
    let box = LockedBox<FlowOutcome?>(nil)
    runner.start("chain", events: { _ in }) { outcome in
      box.mutate { $0 = outcome }
      done.signal()
    }
    #expect(done.wait(timeout: .now() + 30) == .success)
    let outcome = try #require(box.get())
    #expect(outcome.state == .failed)
    #expect(outcome.step == 2)
    let message = try #require(outcome.steps.last?.message)
    #expect(
      message.contains(#"header "X-Token": {{tok}} (captured from a server's response by an earlier step of the chain) contains CR (\r)"#),
      "\(message)")
    #expect(try hits(key) == 0)
  }
}
