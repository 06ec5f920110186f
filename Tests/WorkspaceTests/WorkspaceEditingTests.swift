import Foundation
import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

/// The editing operations of `Workspace+Editing.swift`: the exact text each writes, and that a
/// save diffs only what was done.
@Suite struct WorkspaceEditingTests {
  /// Hand-formatted: one-line requests, aligned values, a chain and a batch naming requests.
  let original = """
    {
      "version": 1,
      "baseURL": "{{host}}/",
      "environment": "local",
      "environments": {"local": {"host": "http://127.0.0.1:8080"}, "staging": {"host": "http://127.0.0.1:9090"}},
      "requests": [
        {"name": "auth/login",  "method": "POST", "url": "auth/login", "body": {"json": {"user": "ada"}}},
        {"name": "users/get",   "url": "users/{{id}}", "x-note": "kept"},
        {"name": "users/list",  "url": "users"},
        {"name": "health",      "url": "health"}
      ],
      "chains": [
        {"name": "login-flow", "steps": [
          {"request": "auth/login", "capture": {"token": ".token"}},
          {"request": "users/get",  "vars": {"id": 1}}
        ]}
      ],
      "batches": [
        {"name": "smoke", "members": ["users/get", "health", "login-flow"], "policy": "allSettled"}
      ]
    }

    """

  func load(_ text: String) throws -> Workspace { try workspace(text) }

  /// The file after the edit: the original with `replacements` made, in order.
  func expected(_ replacements: [(String, String)]) -> String {
    var text = original
    for (old, new) in replacements {
      #expect(text.contains(old), "the test's original has \(old)")
      text = text.replacingOccurrences(of: old, with: new)
    }
    return text
  }

  @Test func addingARequestPutsItAfterItsFolder() throws {
    var ws = try load(original)
    let index = try ws.addRequest(RequestTemplate(name: "users/create", method: .POST, url: "users"))
    #expect(index == 3)
    #expect(
      text(ws.encoded())
        == expected([
          (#""url": "users"},"#, #""url": "users"},"# + "\n" + #"    {"name": "users/create", "method": "POST", "url": "users"},"#)
        ]))
    // No folder: at the end; after a named request; at an index.
    _ = try ws.addRequest(RequestTemplate(name: "ping", url: "ping"))
    #expect(ws.requests.last?.name == "ping")
    _ = try ws.addRequest(RequestTemplate(name: "auth/logout", url: "auth/logout"), placement: .after("auth/login"))
    #expect(ws.requests.map(\.name).prefix(2) == ["auth/login", "auth/logout"])
    _ = try ws.addRequest(RequestTemplate(name: "first", url: "x"), placement: .index(-3))
    #expect(ws.requests.first?.name == "first")
    #expect(try load(text(ws.encoded())).requests.map(\.name) == ws.requests.map(\.name))
  }

  @Test func namesAreCheckedAndNeverShared() throws {
    var ws = try load(original)
    for (name, message) in [
      ("", "a request needs a name"), ("  ", "a request needs a name"),
      ("users/", "a name cannot start or end with /; write folder/name"),
      ("/users", "a name cannot start or end with /; write folder/name"),
      ("a//b", "a folder name cannot be empty (\"a//b\")"),
      (" padded", "a name cannot start or end with a space"),
      ("GET /users", "a folder or name between / cannot start or end with a space (\"GET \" in \"GET /users\")"),
      ("users/ list", "a folder or name between / cannot start or end with a space (\" list\" in \"users/ list\")"),
      ("bad\u{1B}[31m", "a name cannot hold control characters (tabs, line breaks, escapes)"),
      ("a/../b", "a folder or name cannot be . or .. (\"a/../b\")"),
      ("./b", "a folder or name cannot be . or .. (\"./b\")"),
      ("health", "\"health\" is already the name of a request, batch or chain; names must be unique"),
      ("smoke", "\"smoke\" is already the name of a request, batch or chain; names must be unique"),
      ("login-flow", "\"login-flow\" is already the name of a request, batch or chain; names must be unique"),
    ] {
      #expect(throws: WorkspaceEditError(message)) { try ws.addRequest(RequestTemplate(name: name, url: "x")) }
      #expect(throws: WorkspaceEditError(message)) { try ws.renameRequest("users/list", to: name) }
    }
    #expect(text(ws.encoded()) == original)
    #expect(ws.uniqueName("smoke") == "smoke-2")
    #expect(ws.uniqueName("new") == "new")
  }

  /// `followingTheRules` makes any text a name the rules take (or nothing), and leaves a name
  /// that follows them as it is.
  @Test func anyTextFollowsTheNameRulesOnceCleaned() {
    #expect(Workspace.followingTheRules("a/\u{1B}]0;P\u{07}/../0//x") == "a/]0;P/0/x")
    #expect(Workspace.followingTheRules(" / ") == "")
    #expect(Workspace.followingTheRules("tab\there/\u{2028}x\u{85}") == "tab here/x")
    #expect(Workspace.followingTheRules("users/get") == "users/get")
    #expect(Workspace.followingTheRules("..") == "")
    // Texts made of the characters the rules are about, in every order a seeded generator gives.
    let pieces = ["/", " ", ".", "..", "a", "é", "\u{1B}", "\t", "\r\n", "\u{7F}", "\u{9B}", "\u{2028}", "\u{A0}", "\u{301}", "x y"]
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    for _ in 0..<2_000 {
      var text = ""
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      for k in 0..<Int(seed >> 60) + 1 { text += pieces[Int((seed >> UInt64(4 * k)) & 0xF) % pieces.count] }
      let cleaned = Workspace.followingTheRules(text)
      #expect(cleaned.isEmpty || Workspace.problem(withName: cleaned) == nil, "\(Array(text.unicodeScalars)) → \(Array(cleaned.unicodeScalars))")
      #expect(Workspace.followingTheRules(cleaned) == cleaned)
    }
  }

  @Test func duplicatingCopiesEveryFieldRightAfterTheOriginal() throws {
    var ws = try load(original)
    let copy = try ws.duplicateRequest(named: "users/get")
    #expect(copy.name == "users/get-2")
    let again = try ws.duplicateRequest(named: "users/get")
    #expect(again.name == "users/get-3")
    #expect(ws.requests.map(\.name) == ["auth/login", "users/get", "users/get-3", "users/get-2", "users/list", "health"])
    let out = text(ws.encoded())
    #expect(
      out
        == expected([
          (
            #"    {"name": "users/get",   "url": "users/{{id}}", "x-note": "kept"},"#,
            #"    {"name": "users/get",   "url": "users/{{id}}", "x-note": "kept"},"# + "\n"
              + #"    {"name": "users/get-3", "url": "users/{{id}}", "x-note": "kept"},"# + "\n"
              + #"    {"name": "users/get-2", "url": "users/{{id}}", "x-note": "kept"},"#
          )
        ]))
    #expect(throws: WorkspaceEditError("there is no request named \"nope\"")) { try ws.duplicateRequest(named: "nope") }
  }

  @Test func renamingUpdatesChainStepsAndBatchMembers() throws {
    var ws = try load(original)
    try ws.renameRequest("users/get", to: "people/get")
    #expect(
      text(ws.encoded())
        == expected([
          (#"{"name": "users/get",   "url""#, #"{"name": "people/get",   "url""#),
          (#"{"request": "users/get",  "vars""#, #"{"request": "people/get",  "vars""#),
          (#""members": ["users/get", "health""#, #""members": ["people/get", "health""#),
        ]))
    #expect(ws.chain(named: "login-flow")?.steps.map(\.request) == ["auth/login", "people/get"])
    #expect(try load(text(ws.encoded())).batch(named: "smoke")?.members == ["people/get", "health", "login-flow"])
    // Renaming to the same name changes nothing; modifyRequest renames the same way.
    try ws.renameRequest("people/get", to: "people/get")
    try ws.modifyRequest(named: "people/get") { $0.name = "users/get" }
    #expect(text(ws.encoded()) == original)
  }

  @Test func renamingAFolderMovesEveryRequestInIt() throws {
    var ws = try load(original)
    let moved = try ws.renameFolder("users", to: "people/v2")
    #expect(moved.map(\.old) == ["users/get", "users/list"])
    #expect(moved.map(\.new) == ["people/v2/get", "people/v2/list"])
    #expect(ws.batch(named: "smoke")?.members == ["people/v2/get", "health", "login-flow"])
    #expect(
      text(ws.encoded())
        == expected([
          (#""users/get",   "url""#, #""people/v2/get",   "url""#),
          (#""users/list",  "url""#, #""people/v2/list",  "url""#),
          (#""request": "users/get""#, #""request": "people/v2/get""#),
          (#"["users/get", "#, #"["people/v2/get", "#),
        ]))
    #expect(throws: WorkspaceEditError("there is no folder \"nope/\" (no request name starts with it)")) {
      try ws.renameFolder("nope/", to: "x")
    }
    // A clash with a request outside the folder is refused, and nothing moves.
    var clash = try load(original)
    _ = try clash.addRequest(RequestTemplate(name: "people/get", url: "x"))
    let before = clash
    #expect(throws: WorkspaceEditError("\"people/get\" is already the name of a request, batch or chain; names must be unique")) {
      try clash.renameFolder("users/", to: "people/")
    }
    #expect(clash == before)
  }

  @Test func aFolderRenameIsUndoneByTheSwappedPairsByteForByte() throws {
    // Into a folder that already has a request, and into its own subfolder (a new name that
    // another of the requests gives up): every request goes back to its own name.
    var ws = try load(original)
    _ = try ws.addRequest(RequestTemplate(name: "people/me", url: "me"))
    _ = try ws.renameFolder("users", to: "users/old")
    let before = ws
    let beforeText = text(ws.encoded())
    let moved = try ws.renameFolder("users", to: "people")
    #expect(moved.map(\.new) == ["people/old/get", "people/old/list"])
    #expect(ws.requests.filter { $0.name.hasPrefix("people/") }.count == 3)
    try ws.renameRequests(moved.map { (old: $0.new, new: $0.old) })
    #expect(ws == before)
    #expect(text(ws.encoded()) == beforeText)
    #expect(ws.request(named: "people/me") != nil, "the request that was in people/ before stays there")

    // Overlapping names in one step: a/x → a/b/x while a/b/x → a/b/b/x.
    var nested = try load(original)
    try nested.renameRequests([(old: "users/get", new: "a/x"), (old: "users/list", new: "a/b/x")])
    let pairs = try nested.renameFolder("a", to: "a/b")
    #expect(pairs.map(\.new) == ["a/b/x", "a/b/b/x"])
    #expect(nested.batch(named: "smoke")?.members.first == "a/b/x")
    // Two requests given one name, or a missing one, change nothing.
    let kept = nested
    #expect(throws: WorkspaceEditError("\"same\" is already the name of a request, batch or chain; names must be unique")) {
      try nested.renameRequests([(old: "a/b/x", new: "same"), (old: "a/b/b/x", new: "same")])
    }
    #expect(throws: WorkspaceEditError("there is no request named \"nope\"")) {
      try nested.renameRequests([(old: "a/b/x", new: "fine"), (old: "nope", new: "other")])
    }
    #expect(nested == kept)
  }

  @Test func deleteAndUndoRestoreTheFileByteForByte() throws {
    for name in ["auth/login", "users/get", "users/list", "health"] {
      var ws = try load(original)
      let deletion = try ws.deleteRequest(named: name)
      #expect(deletion.request.name == name)
      #expect(ws.request(named: name) == nil)
      let deleted = text(ws.encoded())
      #expect(!deleted.contains(#""\#(name)""#), "\(name) is gone from the file, steps and members too")
      #expect(try load(deleted).requests.count == 3, "the file still loads")
      try ws.restore(deletion)
      #expect(text(ws.encoded()) == original, "undo of \(name)")
    }
  }

  @Test func deletingRemovesOnlyTheRequestAndWhatNamesIt() throws {
    var ws = try load(original)
    #expect(ws.references(to: "users/get").map(\.description) == ["step 2 of chain \"login-flow\"", "batch \"smoke\""])
    let deletion = try ws.deleteRequest(named: "users/get")
    #expect(deletion.index == 1)
    #expect(deletion.references.count == 2)
    #expect(
      text(ws.encoded())
        == expected([
          (#"    {"name": "users/get",   "url": "users/{{id}}", "x-note": "kept"},"# + "\n", ""),
          (#"{"request": "auth/login", "capture": {"token": ".token"}},"# + "\n" + #"      {"request": "users/get",  "vars": {"id": 1}}"#,
           #"{"request": "auth/login", "capture": {"token": ".token"}}"#),
          (#"["users/get", "health", "login-flow"]"#, #"["health", "login-flow"]"#),
        ]))
    // Other edits between the delete and the undo stay.
    try ws.renameRequest("health", to: "status")
    try ws.restore(deletion)
    #expect(ws.batch(named: "smoke")?.members == ["users/get", "status", "login-flow"])
    #expect(ws.requests.map(\.name) == ["auth/login", "users/get", "users/list", "status"])
    // An undo whose name was taken since is refused.
    var taken = try load(original)
    let gone = try taken.deleteRequest(named: "health")
    _ = try taken.addRequest(RequestTemplate(name: "health", url: "other"))
    #expect(throws: WorkspaceEditError("\"health\" is already the name of a request, batch or chain; names must be unique")) {
      try taken.restore(gone)
    }
  }

  @Test func selectingTheEnvironmentWritesOnlyThatKey() throws {
    var ws = try load(original)
    try ws.selectEnvironment("staging")
    #expect(text(ws.encoded()) == expected([(#""environment": "local""#, #""environment": "staging""#)]))
    #expect(try ws.prepare(requestNamed: "health").url == "http://127.0.0.1:9090/health")
    try ws.selectEnvironment(nil)
    #expect(text(ws.encoded()) == expected([(#"  "environment": "local","# + "\n", "")]))
    #expect(throws: WorkspaceEditError("there is no environment named \"prod\"; use one of local, staging")) {
      try ws.selectEnvironment("prod")
    }
    var none = try load(#"{"version": 1, "requests": []}"#)
    #expect(throws: WorkspaceEditError("there is no environment named \"x\"; this workspace has no \"environments\"")) {
      try none.selectEnvironment("x")
    }
  }

  @Test func batchesAndChainsAreMadeFromRequestNamesInOrder() throws {
    var ws = try load(original)
    try ws.makeBatch(named: "all", members: ["health", "users/list", "login-flow"])
    try ws.makeChain(named: "list-then-get", requests: ["users/list", "users/get"])
    let out = text(ws.encoded())
    #expect(
      out
        == expected([
          (
            #"{"name": "smoke", "members": ["users/get", "health", "login-flow"], "policy": "allSettled"}"#,
            #"{"name": "smoke", "members": ["users/get", "health", "login-flow"], "policy": "allSettled"},"# + "\n"
              + #"    {"name": "all", "members": ["health", "users/list", "login-flow"]}"#
          ),
          // The chains are written one key to a line, so the new one is too.
          (
            "    ]}\n  ],",
            """
                ]},
                {
                  "name": "list-then-get",
                  "steps": [
                    {
                      "request": "users/list"
                    },
                    {
                      "request": "users/get"
                    }
                  ]
                }
              ],
            """
          ),
        ]))
    let reloaded = try load(out)
    #expect(reloaded.batch(named: "all")?.members == ["health", "users/list", "login-flow"])
    #expect(reloaded.chain(named: "list-then-get")?.steps.map(\.request) == ["users/list", "users/get"])
    #expect(throws: WorkspaceEditError("a batch needs at least one member")) { try ws.makeBatch(named: "b", members: []) }
    #expect(throws: WorkspaceEditError("there is no request named \"login-flow\" (chain steps are requests)")) {
      try ws.makeChain(named: "c", requests: ["login-flow"])
    }
    #expect(throws: WorkspaceEditError("\"all\" is already the name of a request, batch or chain; names must be unique")) {
      try ws.makeChain(named: "all", requests: ["health"])
    }
    // In a workspace without batches or chains, the keys are added.
    var plain = try load(#"{"version": 1, "requests": [{"name": "a", "url": "/a"}]}"#)
    try plain.makeBatch(named: "b", members: ["a"])
    #expect(
      text(plain.encoded())
        == #"{"version": 1, "requests": [{"name": "a", "url": "/a"}], "batches": [{"name": "b", "members": ["a"]}]}"#)
  }
}
