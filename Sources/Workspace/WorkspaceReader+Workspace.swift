import RequestEngine

// The workspace level of the format: the file itself, batches and chains, defaults, agent,
// history, variables, environments and the request list (each request is read in
// WorkspaceReader+Request.swift).
extension WorkspaceReader {
  // MARK: - Workspace

  /// The whole file. A version this build does not read stops here, with that one problem.
  /// `path` is `.root`, or `.untracked` for a first pass that only asks whether the file loads.
  mutating func workspace(_ root: JSONValue, defaultName: String, at path: ReaderPath) -> Workspace? {
    guard let object = object(root, path) else { return nil }
    guard let versionValue = object["version"] else {
      fail(
        path,
        "missing \"version\"; add \"version\": 1 at the top (this build reads workspace version 1)")
      return nil
    }
    guard let version = int(versionValue, path.appending("version")) else { return nil }
    guard WorkspaceReader.supportedVersions.contains(version) else {
      fail(
        path.appending("version"),
        "this build reads workspace version "
          + WorkspaceReader.supportedVersions.map(String.init).joined(separator: ", ")
          + ", not \(version)"
          + (version > 1 ? "; update reqbench to open this file" : ""))
      return nil
    }

    var workspace = Workspace(name: defaultName)
    workspace.source = object
    if object["name"] ?? .null == .null { workspace.nameFromFileName = defaultName }
    let ok = clean { r in
      func at(_ key: String) -> ReaderPath { path.appending(key) }
      func present(_ key: String) -> JSONValue? {
        guard let value = object[key], value != .null else { return nil }
        return value
      }
      if let value = present("name"), let name = r.nonEmptyString(value, at("name")) {
        workspace.name = name
      }
      if let value = present("baseURL") { workspace.baseURL = r.lineTemplate(value, at("baseURL")) }
      if let value = present("cdnURL") { workspace.cdnURL = r.lineTemplate(value, at("cdnURL")) }
      if let value = present("defaults"), let defaults = r.defaults(value, at("defaults")) {
        workspace.defaults = defaults
      }
      if let value = present("agent"), let agent = r.agent(value, at("agent")) {
        workspace.agent = agent
      }
      if let value = present("retry") { workspace.retry = r.retry(value, at("retry")) }
      if let value = present("maxBodyMB") { workspace.maxBodyMB = r.megabytes(value, at("maxBodyMB")) }
      if let value = present("resolve"), let resolve = r.resolve(value, at("resolve")) {
        workspace.resolve = resolve
      }
      if let value = present("history"), let history = r.history(value, at("history")) {
        workspace.history = history
      }
      if let value = present("cookies"), let flag = r.bool(value, at("cookies")) { workspace.cookies = flag }
      if let value = present("variables"), let variables = r.variables(value, at("variables")) {
        workspace.variables = variables
      }
      if let value = present("environments"),
        let environments = r.environments(value, at("environments"))
      {
        workspace.environments = environments
        if let selected = present("environment"),
          let name = r.environmentName(selected, at("environment"), in: environments)
        {
          workspace.environment = name
        }
      } else if let selected = present("environment"), r.string(selected, at("environment")) != nil
      {
        r.fail(
          at("environment"),
          "there are no \"environments\" to select from; add \"environments\": {\"name\": {…}}")
      }
      if let value = present("requests"), let requests = r.requests(value, at("requests")) {
        workspace.requests = requests
      }
      // Chain steps and batch members are checked against every name the file gives, of the
      // requests and chains refused too: one refused request (a header with a CR) is reported
      // once, at its place, not again at every step and member that names it or another one.
      let requestNames = WorkspaceReader.names(in: present("requests"))
      if let value = present("chains"), let chains = r.chains(value, at("chains"), requestNames: requestNames) {
        workspace.chains = chains
      }
      if let value = present("batches"),
        let batches = r.batches(
          value, at("batches"), members: requestNames.union(WorkspaceReader.names(in: present("chains"))))
      {
        workspace.batches = batches
      }
    }
    return ok ? workspace : nil
  }

  // MARK: - Batches and chains

  /// A name not taken by a request or an earlier batch or chain.
  private mutating func flowName(_ object: JSONObject, _ path: ReaderPath, taken: Set<String>) -> String? {
    guard let value = object["name"] else {
      fail(path, "missing \"name\"")
      return nil
    }
    guard let name = nonEmptyString(value, path.appending("name")) else { return nil }
    if taken.contains(name) {
      fail(path.appending("name"), "\(JSONSerializer.quote(name)) is already the name of a request, batch or chain")
      return nil
    }
    return name
  }

  /// The names a list of requests, chains or batches gives (its items' `name` strings), whether
  /// or not each item is read without a problem.
  static func names(in list: JSONValue?) -> Set<String> {
    guard case .array(let items)? = list else { return [] }
    var names = Set<String>(minimumCapacity: items.count)
    for item in items {
      if case .string(let name)? = item["name"] { names.insert(name) }
    }
    return names
  }

  /// `requestNames`: the names of the file's requests (`names(in:)`), which steps may name.
  mutating func chains(_ value: JSONValue, _ path: ReaderPath, requestNames: Set<String>) -> [Chain]? {
    guard let items = array(value, path) else { return nil }
    var taken = requestNames
    var chains: [Chain] = []
    let ok = clean { r in
      for (i, item) in items.enumerated() {
        let at = path.appending(i)
        guard let object = r.object(item, at), let name = r.flowName(object, at, taken: taken) else { continue }
        taken.insert(name)
        guard let stepsValue = object["steps"] else {
          r.fail(at, "missing \"steps\": the requests of the chain, in order")
          continue
        }
        guard let stepItems = r.array(stepsValue, at.appending("steps")) else { continue }
        var steps: [ChainStep] = []
        for (k, stepValue) in stepItems.enumerated() {
          let stepPath = at.appending("steps").appending(k)
          guard let step = r.object(stepValue, stepPath) else { continue }
          guard let requestValue = step["request"], let request = r.nonEmptyString(requestValue, stepPath.appending("request")) else {
            if step["request"] == nil { r.fail(stepPath, "missing \"request\": the name of a request") }
            continue
          }
          if !requestNames.contains(request) {
            r.fail(stepPath.appending("request"), "no request named \(JSONSerializer.quote(request))")
          }
          var captures: [(String, Capture)] = []
          if let captureValue = step["capture"], let capture = r.object(captureValue, stepPath.appending("capture")) {
            for member in capture.members {
              let capturePath = stepPath.appending("capture").appending(member.key)
              if let text = r.nonEmptyString(member.value, capturePath) {
                let capture = Capture(text)
                // A jq expression is compiled now: a syntax error is found before step 1 is sent.
                let expression: String? =
                  switch capture {
                  case .jq(let expression), .event(let expression?): expression
                  default: nil
                  }
                if let expression {
                  do throws(JQ.Failure) {
                    try JQ.compile(expression)
                  } catch {
                    r.fail(capturePath, "\(expression) does not compile: jq: \(JQ.summary(error.message))")
                    continue
                  }
                }
                captures.append((member.key, capture))
              }
            }
          }
          var vars: [(String, String)] = []
          if let varsValue = step["vars"], let object = r.object(varsValue, stepPath.appending("vars")) {
            for member in object.members {
              if let text = r.variableValue(member.value, stepPath.appending("vars").appending(member.key)),
                r.checkTemplate(text, stepPath.appending("vars").appending(member.key))
              {
                vars.append((member.key, text))
              }
            }
          }
          for key in step.keys where !["request", "capture", "vars"].contains(key) {
            r.fail(stepPath.appending(key), "unknown step setting; a step has request, capture and vars")
          }
          var chainStep = ChainStep(request: request, capture: captures, vars: vars)
          chainStep.source = step
          steps.append(chainStep)
        }
        var onFailure = Chain.OnFailure.stop
        if let value = object["onFailure"], let text = r.string(value, at.appending("onFailure")) {
          if let policy = Chain.OnFailure(rawValue: text) {
            onFailure = policy
          } else {
            r.fail(at.appending("onFailure"), "use \"stop\" (the default) or \"continue\"")
          }
        }
        var chain = Chain(name: name, steps: steps, onFailure: onFailure)
        chain.source = object
        chains.append(chain)
      }
    }
    return ok ? chains : nil
  }

  /// `members`: the names of the file's requests and chains, which members may name.
  mutating func batches(_ value: JSONValue, _ path: ReaderPath, members: Set<String>) -> [Batch]? {
    guard let items = array(value, path) else { return nil }
    var taken = members
    var batches: [Batch] = []
    let ok = clean { r in
      for (i, item) in items.enumerated() {
        let at = path.appending(i)
        guard let object = r.object(item, at), let name = r.flowName(object, at, taken: taken) else { continue }
        taken.insert(name)
        var batch = Batch(name: name, members: [])
        batch.source = object
        if let value = object["members"], let list = r.array(value, at.appending("members")) {
          for (k, item) in list.enumerated() {
            guard let member = r.nonEmptyString(item, at.appending("members").appending(k)) else { continue }
            if members.contains(member) {
              batch.members.append(member)
            } else {
              r.fail(
                at.appending("members").appending(k),
                "no request or chain named \(JSONSerializer.quote(member)) (batches hold requests and chains)")
            }
          }
        } else if object["members"] == nil {
          r.fail(at, "missing \"members\": the requests and chains to send together")
        }
        if let value = object["policy"], let text = r.string(value, at.appending("policy")) {
          if let policy = Batch.Policy(rawValue: text) {
            batch.policy = policy
          } else {
            r.fail(at.appending("policy"), "unknown policy \(JSONSerializer.quote(text)); use failFast or allSettled")
          }
        }
        if let value = object["concurrency"], let n = r.int(value, at.appending("concurrency"), atLeast: 1, atMost: ValueLimits.concurrency) {
          batch.concurrency = n
        }
        batches.append(batch)
      }
    }
    return ok ? batches : nil
  }

  mutating func defaults(_ value: JSONValue, _ path: ReaderPath) -> RequestDefaults? {
    guard let object = object(value, path) else { return nil }
    var defaults = RequestDefaults()
    let ok = clean { r in
      for member in object.members {
        let at = path.appending(member.key)
        switch member.key {
        case "headers":
          if let fields = r.headers(member.value, at) { defaults.setHeaders(fields) }
        case "query": if let fields = r.query(member.value, at) { defaults.setQuery(fields) }
        default: r.fail(at, "unknown key; \"defaults\" holds \"headers\" and \"query\"")
        }
      }
    }
    return ok ? defaults : nil
  }

  mutating func agent(_ value: JSONValue, _ path: ReaderPath) -> AgentSettings? {
    guard let object = object(value, path) else { return nil }
    var agent = AgentSettings()
    let ok = clean { r in
      if let v = object["maxConcurrent"],
        let n = r.int(v, path.appending("maxConcurrent"), atLeast: 1, atMost: ValueLimits.concurrency)
      {
        agent.maxConcurrent = n
      }
      if let v = object["maxPerHost"], let n = r.int(v, path.appending("maxPerHost"), atLeast: 1, atMost: ValueLimits.concurrency) {
        agent.maxPerHost = n
      }
    }
    return ok ? agent : nil
  }

  /// `{"perRequest": 50, "maxMB": 200}`: a whole number from 0, and megabytes above 0.
  /// `maxBodyMB`: more than 0 and at most 1048576 (1 TB), so it is a number of bytes.
  mutating func megabytes(_ value: JSONValue, _ path: ReaderPath) -> Double? {
    guard let mb = number(value, path) else { return nil }
    guard mb > 0, mb <= 1_048_576 else {
      fail(path, "must be more than 0 and at most 1048576 (MB), found \(JSONSerializer.compact(value))")
      return nil
    }
    return mb
  }

  /// `resolve`: `["HOST:PORT:ADDRESS", …]`, as curl's `--resolve`.
  mutating func resolve(_ value: JSONValue, _ path: ReaderPath) -> [HostMapping]? {
    guard case .array(let items) = value else {
      expected("an array of \"HOST:PORT:ADDRESS\" strings", value, path)
      return nil
    }
    var mappings: [HostMapping] = []
    let ok = clean { r in
      for (i, item) in items.enumerated() {
        let at = path.appending(i)
        guard let text = r.string(item, at) else { continue }
        do {
          mappings.append(try HostMapping(parsing: text))
        } catch {
          r.fail(at, (error as? HostMapping.ParseError)?.message ?? "\(error)")
        }
      }
    }
    return ok ? mappings : nil
  }

  mutating func history(_ value: JSONValue, _ path: ReaderPath) -> HistorySettings? {
    guard let object = object(value, path) else { return nil }
    var history = HistorySettings()
    let ok = clean { r in
      for member in object.members {
        let at = path.appending(member.key)
        switch member.key {
        case "perRequest":
          if let n = r.int(member.value, at, atLeast: 0, atMost: ValueLimits.historyEntries) { history.perRequest = n }
        case "maxMB":
          if let mb = r.number(member.value, at, from: 0, above: true, atMost: ValueLimits.historyMB, unit: "MB") {
            history.maxMB = mb
          }
        default:
          r.fail(at, "unknown key; \"history\" holds \"perRequest\" and \"maxMB\"")
        }
      }
    }
    return ok ? history : nil
  }

  /// `{"name": "value"}`; numbers and booleans are taken as their text (`"id": 1`).
  mutating func variables(_ value: JSONValue, _ path: ReaderPath) -> [Variable]? {
    guard let object = object(value, path) else { return nil }
    var variables: [Variable] = []
    let ok = clean { r in
      for member in object.members {
        if let text = r.variableValue(member.value, path.appending(member.key)) {
          variables.append(Variable(name: member.key, value: text))
        }
      }
    }
    return ok ? variables : nil
  }

  mutating func variableValue(_ value: JSONValue, _ path: ReaderPath) -> String? {
    switch value {
    case .string(let text): return text
    case .number(let literal): return literal
    case .bool(let flag): return flag ? "true" : "false"
    default:
      expected("a string, number or boolean", value, path)
      return nil
    }
  }

  mutating func environments(_ value: JSONValue, _ path: ReaderPath) -> [Environment]? {
    guard let object = object(value, path) else { return nil }
    var environments: [Environment] = []
    let ok = clean { r in
      for member in object.members {
        if let variables = r.variables(member.value, path.appending(member.key)) {
          environments.append(Environment(name: member.key, variables: variables))
        }
      }
    }
    return ok ? environments : nil
  }

  mutating func environmentName(
    _ value: JSONValue, _ path: ReaderPath, in environments: [Environment]
  )
    -> String?
  {
    guard let name = string(value, path) else { return nil }
    guard environments.contains(where: { $0.name == name }) else {
      fail(
        path,
        "no environment named \(JSONSerializer.quote(name)) in \"environments\"; use one of "
          + environments.map(\.name).joined(separator: ", "))
      return nil
    }
    return name
  }
}
