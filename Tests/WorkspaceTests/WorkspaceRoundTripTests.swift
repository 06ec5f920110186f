import RequestEngine
import Testing
import Workspace
import WorkspaceTestSupport

@Suite struct WorkspaceRoundTripTests {
  /// Unknown keys everywhere: at the top, in requests, bodies, auth, validators, agent and retry.
  let withUnknownKeys = """
    {
      "$schema": "https://example.com/reqbench.schema.json",
      "version": 1,
      "x-owner": {"team": "api", "tags": ["a", "b"]},
      "name": "demo",
      "agent": {"maxConcurrent": 2, "x-note": "slow laptop"},
      "retry": {"max": 1, "x-why": "flaky wifi"},
      "requests": [
        {"x-first": true, "name": "get", "method": "get", "url": "/a", "timeout": 30.0,
         "validate": {"status": [[200, 299]], "x-doc": "see wiki"}, "deadline": null},
        {"name": "post", "method": "POST", "url": "/b", "comment": "kept",
         "body": {"json": {"name": "{{who}}"}, "x-body": 1},
         "auth": {"basic": {"user": "u", "password": "p", "x-auth": 2}}}
      ],
      "variables": {"id": 1, "flag": false, "name": "Ada"},
      "trailing": null
    }
    """

  @Test func anUnchangedWorkspaceIsWrittenBackAsTheSameJSON() throws {
    let ws = try workspace(withUnknownKeys)
    #expect(try json(text(ws.encoded())) == (try json(withUnknownKeys)))
  }

  @Test func theFullExampleRoundTrips() throws {
    let ws = try workspace(fullExample)
    #expect(try json(text(ws.encoded())) == (try json(fullExample)))
  }

  @Test func aMinimalFileStaysMinimal() throws {
    let minimal = #"{"version": 1, "requests": [{"name": "a", "url": "/x"}]}"#
    var ws = try workspace(minimal, file: "min.json")
    #expect(try json(text(ws.encoded())) == (try json(minimal)))
    ws.name = "renamed"
    #expect(try json(text(ws.encoded()))["name"] == "renamed")
  }

  /// A file keeps its own layout (here: compact, no trailing newline); what is added follows it.
  @Test func theOutputKeepsTheFilesLayout() throws {
    let compact = #"{"version":1,"name":"n","requests":[{"name":"a","url":"/x"}]}"#
    var ws = try workspace(compact)
    #expect(text(ws.encoded()) == compact)
    try ws.addRequest(RequestTemplate(name: "b", url: "/y"))
    #expect(
      text(ws.encoded())
        == #"{"version":1,"name":"n","requests":[{"name":"a","url":"/x"}, {"name": "b", "method": "GET", "url": "/y"}]}"#)
  }

  @Test func aChangedFieldIsWrittenInPlaceAndUnknownKeysStay() throws {
    var ws = try workspace(withUnknownKeys)
    ws.requests[0].timeout = 5
    ws.requests[0].validation.strict = true
    let out = try json(text(ws.encoded()))
    let get = try #require(out["requests"]?.arrayValue?.first?.objectValue)
    #expect(get.keys == ["x-first", "name", "method", "url", "timeout", "validate", "deadline"])
    #expect(get["timeout"] == .number("5"))
    #expect(get["method"] == "get", "an unchanged value keeps its spelling")
    #expect(
      get["validate"]
        == (try json(#"{"status": [[200, 299]], "x-doc": "see wiki", "strict": true}"#)))
    #expect(out["x-owner"] == (try json(#"{"team": "api", "tags": ["a", "b"]}"#)))
  }

  @Test func historyBoundsRoundTrip() throws {
    var ws = try workspace(#"{"version": 1, "history": {"perRequest": 5}, "requests": []}"#)
    #expect(ws.history == HistorySettings(perRequest: 5, maxMB: 200))
    #expect(ws.history.limits.totalBytes == 200 << 20)
    ws.history.maxMB = 0.5
    let out = text(ws.encoded())
    #expect(out == #"{"version": 1, "history": {"perRequest": 5, "maxMB": 0.5}, "requests": []}"#)
    #expect(try workspace(out).history == HistorySettings(perRequest: 5, maxMB: 0.5))
    #expect(try workspace(#"{"version": 1}"#).history == HistorySettings())
  }

  @Test func changingTheMethodWritesItUpperCase() throws {
    var ws = try workspace(withUnknownKeys)
    ws.requests[0].method = .DELETE
    let out = try json(text(ws.encoded()))
    #expect(out["requests"]?.arrayValue?.first?["method"] == "DELETE")
  }

  @Test func aNewFieldIsAppendedAndADefaultedFieldRemoved() throws {
    var ws = try workspace(withUnknownKeys)
    ws.requests[0].priority = .low
    ws.requests[0].deadline = 60
    ws.requests[1].body = nil
    ws.requests[1].auth = .bearer("{{token}}")
    let out = try json(text(ws.encoded()))
    let requests = try #require(out["requests"]?.arrayValue)
    #expect(requests[0]["priority"] == "low")
    #expect(requests[0]["deadline"] == .number("60"))
    #expect(requests[0].objectValue?.keys.last == "priority")
    #expect(requests[1]["body"] == nil)
    #expect(requests[1]["auth"] == (try json(#"{"bearer": "{{token}}"}"#)))
    #expect(requests[1]["comment"] == "kept")
  }

  @Test func changingTheBodyKindKeepsUnknownKeysOfTheBody() throws {
    var ws = try workspace(withUnknownKeys)
    ws.requests[1].body = .text("hi", contentType: "text/csv")
    let out = try json(text(ws.encoded()))
    #expect(
      out["requests"]?.arrayValue?[1]["body"]
        == (try json(#"{"x-body": 1, "text": "hi", "contentType": "text/csv"}"#)))
  }

  @Test func changingOneVariableKeepsTheSpellingOfTheOthers() throws {
    var ws = try workspace(withUnknownKeys)
    ws.variables[2].value = "Grace"
    ws.variables.append(Variable(name: "new", value: "x"))
    let out = try json(text(ws.encoded()))
    #expect(
      out["variables"] == (try json(#"{"id": 1, "flag": false, "name": "Grace", "new": "x"}"#)))
  }

  @Test func statusListsAreWrittenSoTheyReadBackTheSame() throws {
    var ws = try workspace(#"{"version": 1, "requests": [{"name": "a", "url": "/x"}]}"#)
    for status: [ClosedRange<Int>] in [
      [200...200], [200...299], [200...200, 404...404], [200...299, 418...418],
    ] {
      ws.requests[0].validation.status = status
      let reread = try Workspace.parse(ws.encoded(), file: "t.json")
      #expect(reread.requests[0].validation.status == status)
    }
  }

  @Test func aNewWorkspaceIsWrittenWithVersionAndName() throws {
    var ws = Workspace(name: "scratch", baseURL: "http://h/")
    try ws.addRequest(RequestTemplate(name: "ping", url: "/ping"))
    try ws.addRequest(
      RequestTemplate(
        name: "send", method: .POST, url: "/send", body: .json(["a": 1]), timeout: 5,
        validation: Validation(status: [201...201])))
    #expect(
      text(ws.encoded()) == """
        {
          "version": 1,
          "name": "scratch",
          "baseURL": "http://h/",
          "requests": [
            {
              "name": "ping",
              "method": "GET",
              "url": "/ping"
            },
            {
              "name": "send",
              "method": "POST",
              "url": "/send",
              "body": {
                "json": {
                  "a": 1
                }
              },
              "timeout": 5,
              "validate": {
                "status": 201
              }
            }
          ]
        }

        """)
    let reread = try Workspace.parse(ws.encoded(), file: "scratch.json")
    #expect(reread.requests.map(\.name) == ["ping", "send"])
    #expect(reread.requests[1].body == .json(["a": 1]))
  }

  @Test func addingADuplicateNameIsRefused() throws {
    var ws = try workspace(withUnknownKeys)
    #expect(throws: WorkspaceEditError.self) { try ws.addRequest(RequestTemplate(name: "get", url: "/x")) }
    #expect(ws.requests.count == 2)
  }

  @Test func updateReplacesInPlaceAndKeepsUnknownKeys() throws {
    var ws = try workspace(withUnknownKeys)
    var post = try #require(ws.request(named: "post"))
    post.name = "create"
    post.url = "/c"
    try ws.update(RequestTemplate(name: "create", method: .POST, url: "/c"), named: "post")
    #expect(ws.requests.map(\.name) == ["get", "create"])
    let out = try json(text(ws.encoded()))
    let create = try #require(out["requests"]?.arrayValue?[1].objectValue)
    #expect(create["comment"] == "kept")
    #expect(create["body"] == nil)
    #expect(create["url"] == "/c")
    #expect(throws: WorkspaceEditError.self) { try ws.update(post, named: "missing") }
    #expect(throws: WorkspaceEditError.self) {
      try ws.update(RequestTemplate(name: "get", url: "/x"), named: "create")
    }
  }

  @Test func deleteRequestTakesItOut() throws {
    var ws = try workspace(withUnknownKeys)
    #expect(try ws.deleteRequest(named: "get").request.url == "/a")
    #expect(throws: WorkspaceEditError("there is no request named \"get\"")) { try ws.deleteRequest(named: "get") }
    let out = try json(text(ws.encoded()))
    #expect(out["requests"]?.arrayValue?.count == 1)
  }

  @Test func addInsertsAtAnIndex() throws {
    var ws = try workspace(withUnknownKeys)
    try ws.addRequest(RequestTemplate(name: "first", url: "/f"), placement: .index(0))
    #expect(ws.requests.map(\.name) == ["first", "get", "post"])
  }

  @Test func environmentsAreWrittenBack() throws {
    var ws = try workspace(fullExample)
    ws.environments[1].variables[0].value = "https://staging2.example.com"
    ws.environments.append(
      Environment(name: "prod", variables: [Variable(name: "host", value: "https://p")]))
    ws.environment = "prod"
    let reread = try Workspace.parse(ws.encoded(), file: "t.json")
    #expect(reread.environments == ws.environments)
    #expect(reread.environment == "prod")
  }

  /// A cache example, with a namespace, plus a throttle: read, then written back as is,
  /// and written anew from the values.
  @Test func cacheSettingsAndThrottleRoundTrip() throws {
    let source = #"""
      {"version": 1, "requests": [
        {"name": "users/list", "method": "GET", "url": "/users", "query": {"page": "1", "ts": "{{env.NOW}}"},
         "cache": {"seconds": 300, "version": 2, "sensitive": "{{user}}", "namespace": "{{tenant}}",
                   "ignore": ["ts"], "mode": "cacheElseNetwork", "revalidate": true, "vary": ["Accept-Language"]},
         "throttle": 1.5}
      ]}
      """#
    var ws = try workspace(source)
    let template = try #require(ws.request(named: "users/list"))
    #expect(template.cache == CachePolicy(
      seconds: 300, version: 2, sensitive: "{{user}}", ignore: ["ts"], mode: .cacheElseNetwork, revalidate: true,
      vary: ["Accept-Language"], namespace: "{{tenant}}"))
    #expect(template.throttle == 1.5)
    #expect(try json(text(ws.encoded())) == (try json(source)))
    var changed = template
    changed.cache?.mode = .cacheOnly
    changed.cache?.namespace = nil
    changed.throttle = nil
    try ws.update(changed, named: "users/list")
    let reread = try Workspace.parse(ws.encoded(), file: "t.json")
    #expect(reread.request(named: "users/list")?.cache == changed.cache)
    #expect(reread.request(named: "users/list")?.throttle == nil)
    for bad in [#""throttle": -1"#, #""cache": {"seconds": 5, "namespace": 3}"#] {
      #expect(throws: WorkspaceError.self) {
        try workspace(#"{"version": 1, "requests": [{"name": "a", "url": "/x", \#(bad)}]}"#)
      }
    }
  }
}
