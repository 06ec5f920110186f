import Foundation
import RequestEngine
import Testing
import Workspace

/// The batch and chain edits of the TUI's flow form (`Workspace+FlowEditing.swift`): each checked
/// as the reader checks the file, refused without a change, and saved over the file's own text.
@Suite struct FlowEditingTests {
  let text = """
    {
      "version": 1,
      "name": "flows",
      "requests": [
        {"name": "login", "method": "POST", "url": "http://127.0.0.1:9/login"},
        {"name": "me", "url": "http://127.0.0.1:9/me"},
        {"name": "users/get", "url": "http://127.0.0.1:9/users/1"}
      ],
      "chains": [
        {"name": "sign-in", "steps": [
          {"request": "login", "capture": {"token": ".token", "etag": "header: ETag"}},
          {"request": "me"}
        ]}
      ],
      "batches": [
        {"name": "smoke", "members": ["me", "sign-in"]}
      ]
    }

    """

  func workspace() throws -> Workspace { try Workspace.parse(Array(text.utf8), file: "flows.json") }
  func saved(_ ws: Workspace) -> String { String(decoding: ws.encoded(), as: UTF8.self) }

  @Test func batchMembersAreAddedChangedMovedAndRemoved() throws {
    var ws = try workspace()
    try ws.setBatchMember("users/get", at: nil, in: "smoke")
    try ws.setBatchMember("login", at: 0, in: "smoke")
    #expect(try ws.moveBatchMember(at: 2, by: -1, in: "smoke") == 1)
    #expect(ws.batch(named: "smoke")?.members == ["login", "users/get", "sign-in"])
    #expect(try ws.removeBatchMember(at: 1, from: "smoke") == "users/get")
    #expect(throws: WorkspaceEditError.self) { try ws.setBatchMember("nobody", at: nil, in: "smoke") }
    #expect(throws: WorkspaceEditError.self) { try ws.moveBatchMember(at: 0, by: -1, in: "smoke") }
    try ws.removeBatchMember(at: 0, from: "smoke")
    // The last member stays.
    #expect(throws: WorkspaceEditError.self) { try ws.removeBatchMember(at: 0, from: "smoke") }
    #expect(ws.batch(named: "smoke")?.members == ["sign-in"])
  }

  @Test func anUnknownNameSaysWhichNamesAreClose() throws {
    var ws = try workspace()
    do {
      try ws.setChainStep(request: "users", at: nil, in: "sign-in")
      Issue.record("an unknown request was taken")
    } catch {
      #expect(error.message == #"there is no request named "users" (chain steps are requests); did you mean users/get?"#)
    }
  }

  @Test func batchModeAndConcurrency() throws {
    var ws = try workspace()
    try ws.setBatchPolicy(.allSettled, of: "smoke")
    try ws.setBatchConcurrency(2, of: "smoke")
    #expect(throws: WorkspaceEditError.self) { try ws.setBatchConcurrency(0, of: "smoke") }
    #expect(throws: WorkspaceEditError.self) { try ws.setBatchConcurrency(ValueLimits.concurrency + 1, of: "smoke") }
    #expect(saved(ws).contains(#"{"name": "smoke", "members": ["me", "sign-in"], "policy": "allSettled", "concurrency": 2}"#))
  }

  @Test func chainStepsAndCaptures() throws {
    var ws = try workspace()
    try ws.setChainStep(request: "users/get", at: nil, in: "sign-in")
    try ws.setCapture("uid", source: ".user.id", at: nil, step: 0, in: "sign-in")
    try ws.setCapture("jwt", source: ".token", at: 0, step: 0, in: "sign-in")
    #expect(try ws.moveCapture(at: 2, by: -2, step: 0, in: "sign-in") == 0)
    #expect(ws.chain(named: "sign-in")?.steps[0].capture.map(\.name) == ["uid", "etag", "jwt"])
    // Refused: a broken jq path, a name taken in the step, a name {{…}} cannot use, no source.
    #expect(throws: WorkspaceEditError.self) { try ws.setCapture("x", source: ".user.[", at: nil, step: 0, in: "sign-in") }
    #expect(throws: WorkspaceEditError.self) { try ws.setCapture("uid", source: "status", at: nil, step: 0, in: "sign-in") }
    #expect(throws: WorkspaceEditError.self) { try ws.setCapture("a b", source: "status", at: nil, step: 0, in: "sign-in") }
    #expect(throws: WorkspaceEditError.self) { try ws.setCapture("x", source: " ", at: nil, step: 0, in: "sign-in") }
    #expect(throws: WorkspaceEditError.self) { try ws.setCapture("x", source: "header:", at: nil, step: 0, in: "sign-in") }
    try ws.removeCapture(at: 1, step: 0, in: "sign-in")
    #expect(try ws.moveChainStep(at: 2, by: -1, in: "sign-in") == 1)
    #expect(ws.chain(named: "sign-in")?.steps.map(\.request) == ["login", "users/get", "me"])
    try ws.setChainOnFailure(.continue, of: "sign-in")
    let removed = try ws.removeChainStep(at: 1, from: "sign-in")
    #expect(removed.request == "users/get")
    try ws.removeChainStep(at: 1, from: "sign-in")
    #expect(throws: WorkspaceEditError.self) { try ws.removeChainStep(at: 0, from: "sign-in") }
    // The result reads back as the model.
    let back = try Workspace.parse(ws.encoded(), file: "flows.json")
    #expect(back.chain(named: "sign-in") == nil ? false : true)
    #expect(back.chain(named: "sign-in")?.steps.first?.capture.map(\.name) == ["uid", "jwt"])
    #expect(back.chain(named: "sign-in")?.onFailure == .continue)
  }

  @Test func aCaptureAddedChangesOnlyItsStep() throws {
    var ws = try workspace()
    try ws.setCapture("name", source: ".name", at: nil, step: 1, in: "sign-in")
    let out = saved(ws)
    // The other step keeps its spelling (`header: ETag`).
    #expect(out.contains(#"{"request": "login", "capture": {"token": ".token", "etag": "header: ETag"}},"#), "\(out)")
    #expect(out.contains(#""capture": {"name": ".name"}"#), "\(out)")
    #expect(out.contains(#"{"name": "me", "url": "http://127.0.0.1:9/me"},"#))
  }
}
