import RequestEngine

/// Reads the workspace format out of a parsed JSON tree, collecting every problem with the location
/// of the offending value instead of stopping at the first. Each reading method returns nil when
/// the value (or anything inside it) has a problem.
///
/// The writer uses the same readers, without locations, to tell whether a value in the file still
/// means what the model holds (then the file's spelling is kept).
struct WorkspaceReader {
  /// Where each value starts; nil when reading a value the writer holds.
  private let document: JSONDocument?
  private(set) var problems: [WorkspaceError.Problem] = []

  init(document: JSONDocument? = nil) {
    self.document = document
  }

  static let supportedVersions = [1]

  /// Runs `read` on a reader that records no locations; nil if it found any problem.
  static func decode<T>(_ read: (inout WorkspaceReader) -> T?) -> T? {
    var reader = WorkspaceReader()
    let value = read(&reader)
    return reader.problems.isEmpty ? value : nil
  }

  // MARK: - Problems

  mutating func fail(_ path: JSONPath, _ message: String) {
    let place = WorkspaceReader.display(path)
    problems.append(
      WorkspaceError.Problem(
        location: document?.location(of: path), message: place.isEmpty ? message : "\(place): \(message)"))
  }

  /// `requests[2].method`: the JSON path without the leading `$.`.
  static func display(_ path: JSONPath) -> String {
    var text = path.description
    if text.hasPrefix("$.") {
      text.removeFirst(2)
    } else if text.hasPrefix("$") {
      text.removeFirst()
    }
    return text
  }

  /// Runs `body` and reports whether it added no problem.
  private mutating func clean(_ body: (inout WorkspaceReader) -> Void) -> Bool {
    let before = problems.count
    body(&self)
    return problems.count == before
  }

  // MARK: - Scalars

  static func describe(_ value: JSONValue) -> String {
    switch value {
    case .bool: "boolean"
    default: value.typeName
    }
  }

  private mutating func expected(_ what: String, _ value: JSONValue, _ path: JSONPath) {
    fail(path, "expected \(what), found \(WorkspaceReader.describe(value))")
  }

  mutating func object(_ value: JSONValue, _ path: JSONPath) -> JSONObject? {
    guard case .object(let object) = value else {
      expected("an object", value, path)
      return nil
    }
    return object
  }

  mutating func array(_ value: JSONValue, _ path: JSONPath) -> [JSONValue]? {
    guard case .array(let items) = value else {
      expected("an array", value, path)
      return nil
    }
    return items
  }

  mutating func string(_ value: JSONValue, _ path: JSONPath) -> String? {
    guard case .string(let text) = value else {
      expected("a string", value, path)
      return nil
    }
    return text
  }

  mutating func nonEmptyString(_ value: JSONValue, _ path: JSONPath) -> String? {
    guard let text = string(value, path) else { return nil }
    if text.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) {
      fail(path, "must not be empty")
      return nil
    }
    return text
  }

  mutating func bool(_ value: JSONValue, _ path: JSONPath) -> Bool? {
    guard case .bool(let flag) = value else {
      expected("true or false", value, path)
      return nil
    }
    return flag
  }

  mutating func number(_ value: JSONValue, _ path: JSONPath) -> Double? {
    guard let number = value.doubleValue else {
      expected("a number", value, path)
      return nil
    }
    return number
  }

  mutating func int(_ value: JSONValue, _ path: JSONPath) -> Int? {
    guard case .number(let literal) = value else {
      expected("a whole number", value, path)
      return nil
    }
    guard let int = value.intValue else {
      fail(path, "expected a whole number, found \(literal)")
      return nil
    }
    return int
  }

  mutating func int(_ value: JSONValue, _ path: JSONPath, atLeast minimum: Int) -> Int? {
    guard let int = int(value, path) else { return nil }
    if int < minimum {
      fail(path, "must be \(minimum) or more, found \(int)")
      return nil
    }
    return int
  }

  /// A whole number from `minimum` to `maximum` (`ValueLimits`).
  mutating func int(_ value: JSONValue, _ path: JSONPath, atLeast minimum: Int, atMost maximum: Int) -> Int? {
    guard case .number(let literal) = value, value.intValue == nil, let number = value.doubleValue,
      number == number.rounded(), number > Double(maximum)
    else {
      guard let int = int(value, path, atLeast: minimum) else { return nil }
      if int > maximum {
        fail(path, "must be at most \(maximum), found \(int)")
        return nil
      }
      return int
    }
    // A whole number too large for Int (9223372036854775808, 1e19): too large, not "not whole".
    fail(path, "must be at most \(maximum), found \(literal)")
    return nil
  }

  /// Seconds, more than 0 and at most `maximum` (`ValueLimits.seconds`: 7 days).
  mutating func seconds(_ value: JSONValue, _ path: JSONPath, atMost maximum: Double = ValueLimits.seconds) -> Double? {
    guard let number = number(value, path) else { return nil }
    if !(number > 0) || !number.isFinite {
      fail(path, "must be a number of seconds above 0, found \(JSONSerializer.compact(value))")
      return nil
    }
    if number > maximum {
      fail(path, "must be at most \(ValueLimits.seconds(maximum)), found \(JSONSerializer.compact(value))")
      return nil
    }
    return number
  }

  /// A number from `minimum` (or above it) to `maximum`; `unit` says what it counts (`seconds`, `MB`).
  mutating func number(
    _ value: JSONValue, _ path: JSONPath, from minimum: Double, above: Bool = false, atMost maximum: Double,
    unit: String
  ) -> Double? {
    guard let number = number(value, path) else { return nil }
    let low = above ? number > minimum : number >= minimum
    if !low || !number.isFinite {
      let bound = above ? "more than \(ValueLimits.text(minimum))" : "\(ValueLimits.text(minimum)) or more"
      fail(path, "must be \(bound) \(unit), found \(JSONSerializer.compact(value))")
      return nil
    }
    if number > maximum {
      let limit = unit == "seconds" ? ValueLimits.seconds(maximum) : "\(ValueLimits.text(maximum)) \(unit)"
      fail(path, "must be at most \(limit), found \(JSONSerializer.compact(value))")
      return nil
    }
    return number
  }

  /// A string that may hold `{{variables}}`; the placeholders are checked now so a typo is a load
  /// error, not a surprise at send time.
  mutating func template(_ value: JSONValue, _ path: JSONPath) -> String? {
    guard let text = string(value, path) else { return nil }
    return checkTemplate(text, path) ? text : nil
  }

  /// A template that goes onto the wire in the request line or a header (a URL, a header value, a
  /// content type, a token): CR, LF and NUL written in the file are refused here, at their place
  /// (`LineBreaks`, the check preparation and the engine make too, for filled-in values).
  mutating func lineTemplate(_ value: JSONValue, _ path: JSONPath) -> String? {
    guard let text = template(value, path) else { return nil }
    return checkLine(text, path) ? text : nil
  }

  /// Whether `text` has no CR, LF or NUL; records the problem when it has.
  mutating func checkLine(_ text: String, _ path: JSONPath) -> Bool {
    guard let found = LineBreaks.find(in: text) else { return true }
    fail(path, "contains \(found); \(LineBreaks.rule)")
    return false
  }

  @discardableResult
  mutating func checkTemplate(_ text: String, _ path: JSONPath) -> Bool {
    do {
      _ = try Template(text)
      return true
    } catch {
      fail(path, error.message)
      return false
    }
  }

  /// Checks the placeholders in every string of a JSON value, object keys included.
  mutating func checkTemplates(in value: JSONValue, _ path: JSONPath) {
    switch value {
    case .string(let text): checkTemplate(text, path)
    case .array(let items):
      for (i, item) in items.enumerated() { checkTemplates(in: item, path.appending(i)) }
    case .object(let object):
      for member in object.members {
        checkTemplate(member.key, path.appending(member.key))
        checkTemplates(in: member.value, path.appending(member.key))
      }
    default: break
    }
  }

  mutating func method(_ value: JSONValue, _ path: JSONPath) -> HTTPMethod? {
    guard let text = string(value, path) else { return nil }
    guard checkLine(text, path) else { return nil }
    guard let method = HTTPMethod(rawValue: text.uppercased()) else {
      fail(
        path,
        "unknown method \(JSONSerializer.quote(text)); use one of "
          + HTTPMethod.allCases.map(\.rawValue).joined(separator: ", "))
      return nil
    }
    return method
  }

  mutating func priority(_ value: JSONValue, _ path: JSONPath) -> Priority? {
    guard let text = string(value, path) else { return nil }
    guard let priority = Priority(name: text.lowercased()) else {
      fail(path, "unknown priority \(JSONSerializer.quote(text)); use one of high, normal, low")
      return nil
    }
    return priority
  }

  /// A value that may be `null` or absent: `.some(nil)` for null.
  mutating func optional<T>(
    _ value: JSONValue, _ path: JSONPath, _ read: (inout WorkspaceReader, JSONValue, JSONPath) -> T?
  ) -> T?? {
    if value == .null { return .some(nil) }
    return read(&self, value, path).map { .some($0) }
  }

  // MARK: - Workspace

  /// The whole file. A version this build does not read stops here, with that one problem.
  mutating func workspace(_ root: JSONValue, defaultName: String) -> Workspace? {
    guard let object = object(root, .root) else { return nil }
    guard let versionValue = object["version"] else {
      fail(
        .root,
        "missing \"version\"; add \"version\": 1 at the top (this build reads workspace version 1)")
      return nil
    }
    guard let version = int(versionValue, .root.appending("version")) else { return nil }
    guard WorkspaceReader.supportedVersions.contains(version) else {
      fail(
        .root.appending("version"),
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
      func at(_ key: String) -> JSONPath { .root.appending(key) }
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
      if let value = present("chains"), let chains = r.chains(value, at("chains"), workspace.requests) {
        workspace.chains = chains
      }
      if let value = present("batches"),
        let batches = r.batches(value, at("batches"), workspace.requests, workspace.chains)
      {
        workspace.batches = batches
      }
    }
    return ok ? workspace : nil
  }

  // MARK: - Batches and chains

  /// A name not taken by a request or an earlier batch or chain.
  private mutating func flowName(_ object: JSONObject, _ path: JSONPath, taken: Set<String>) -> String? {
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

  mutating func chains(_ value: JSONValue, _ path: JSONPath, _ requests: [RequestTemplate]) -> [Chain]? {
    guard let items = array(value, path) else { return nil }
    let requestNames = Set(requests.map(\.name))
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
                if case .jq(let expression) = capture {
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

  mutating func batches(
    _ value: JSONValue, _ path: JSONPath, _ requests: [RequestTemplate], _ chains: [Chain]
  ) -> [Batch]? {
    guard let items = array(value, path) else { return nil }
    let members = Set(requests.map(\.name)).union(chains.map(\.name))
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

  mutating func defaults(_ value: JSONValue, _ path: JSONPath) -> RequestDefaults? {
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

  mutating func agent(_ value: JSONValue, _ path: JSONPath) -> AgentSettings? {
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
  mutating func megabytes(_ value: JSONValue, _ path: JSONPath) -> Double? {
    guard let mb = number(value, path) else { return nil }
    guard mb > 0, mb <= 1_048_576 else {
      fail(path, "must be more than 0 and at most 1048576 (MB), found \(JSONSerializer.compact(value))")
      return nil
    }
    return mb
  }

  /// `resolve`: `["HOST:PORT:ADDRESS", …]`, as curl's `--resolve`.
  mutating func resolve(_ value: JSONValue, _ path: JSONPath) -> [HostMapping]? {
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

  mutating func history(_ value: JSONValue, _ path: JSONPath) -> HistorySettings? {
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
  mutating func variables(_ value: JSONValue, _ path: JSONPath) -> [Variable]? {
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

  mutating func variableValue(_ value: JSONValue, _ path: JSONPath) -> String? {
    switch value {
    case .string(let text): return text
    case .number(let literal): return literal
    case .bool(let flag): return flag ? "true" : "false"
    default:
      expected("a string, number or boolean", value, path)
      return nil
    }
  }

  mutating func environments(_ value: JSONValue, _ path: JSONPath) -> [Environment]? {
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
    _ value: JSONValue, _ path: JSONPath, in environments: [Environment]
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

  mutating func requests(_ value: JSONValue, _ path: JSONPath) -> [RequestTemplate]? {
    guard let items = array(value, path) else { return nil }
    var requests: [RequestTemplate] = []
    let ok = clean { r in
      var seen: [String: Int] = [:]
      for (i, item) in items.enumerated() {
        if let request = r.request(item, path.appending(i)) { requests.append(request) }
        // Checked apart from the rest of the request, so a duplicate is reported even when the
        // request has other problems.
        guard case .string(let name) = item["name"] else { continue }
        if let first = seen[name] {
          r.fail(
            path.appending(i).appending("name"),
            "another request is already named \(JSONSerializer.quote(name)) (requests[\(first)]); "
              + "names must be unique"
          )
        } else {
          seen[name] = i
        }
      }
    }
    return ok ? requests : nil
  }

  // MARK: - Request

  mutating func request(_ value: JSONValue, _ path: JSONPath) -> RequestTemplate? {
    guard let object = object(value, path) else { return nil }
    var request = RequestTemplate(name: "", url: "")
    request.source = object
    let ok = clean { r in
      func at(_ key: String) -> JSONPath { path.appending(key) }
      func present(_ key: String) -> JSONValue? {
        guard let value = object[key], value != .null else { return nil }
        return value
      }
      if let value = object["name"] {
        if let name = r.nonEmptyString(value, at("name")) { request.name = name }
      } else {
        r.fail(path, "missing \"name\"; every request needs a unique name")
      }
      if let value = object["url"] {
        if let url = r.lineTemplate(value, at("url")) { request.url = url }
      } else {
        r.fail(path, "missing \"url\"; write an absolute URL or a path relative to \"baseURL\"")
      }
      if let value = present("method"), let method = r.method(value, at("method")) {
        request.method = method
      }
      if let value = present("query"), let fields = r.query(value, at("query")) {
        request.setQuery(fields)
      }
      if let value = present("headers"), let fields = r.headers(value, at("headers")) {
        request.setHeaders(fields)
      }
      if let value = present("body") {
        request.body = r.body(value, at("body"))
        if request.method == .HEAD {
          // curl would send it and then wait for a response body a HEAD never gets.
          r.fail(at("body"), "a HEAD request has no body; remove \"body\" or use another method")
        }
      }
      if let value = present("auth") { request.auth = r.auth(value, at("auth")) }
      if let value = present("timeout"), let timeout = r.seconds(value, at("timeout")) {
        request.timeout = timeout
      }
      if let value = present("deadline") { request.deadline = r.seconds(value, at("deadline")) }
      if let value = present("priority"), let priority = r.priority(value, at("priority")) {
        request.priority = priority
      }
      if let value = present("followRedirects"), let flag = r.bool(value, at("followRedirects")) {
        request.followRedirects = flag
      }
      if let value = present("maxRedirects"),
        let count = r.int(value, at("maxRedirects"), atLeast: 0, atMost: ValueLimits.redirects)
      {
        request.maxRedirects = count
      }
      if let value = present("insecure"), let flag = r.bool(value, at("insecure")) {
        request.insecure = flag
      }
      if let value = present("useCDN"), let flag = r.bool(value, at("useCDN")) {
        request.useCDN = flag
      }
      if let value = present("cache") { request.cache = r.cache(value, at("cache")) }
      if let value = present("tls") { request.tls = r.tls(value, at("tls")) }
      if let value = present("download") {
        request.download = r.download(value, at("download"))
        if request.method != .GET {
          r.fail(at("download"), "a download needs GET (a resume asks for a Range, which only GET honours)")
        }
      }
      if let value = present("dedup"), let flag = r.bool(value, at("dedup")) {
        request.dedup = flag
      }
      if let value = present("throttle"),
        let seconds = r.number(value, at("throttle"), from: 0, atMost: ValueLimits.throttleSeconds, unit: "seconds")
      {
        request.throttle = seconds
      }
      if let value = present("retry") { request.retry = r.retry(value, at("retry")) }
      if let value = present("maxBodyMB") { request.maxBodyMB = r.megabytes(value, at("maxBodyMB")) }
      if let value = present("validate"), let validation = r.validation(value, at("validate")) {
        request.validation = validation
      }
    }
    return ok ? request : nil
  }

  /// Query parameters as read: every one (switched-off ones too) and the keys switched off.
  struct QueryFields: Equatable {
    var query = JSONObject()
    var off: Set<String> = []
  }

  /// Header fields as read: every one (switched-off ones too) and the names switched off
  /// (lower-cased).
  struct HeaderFields: Equatable {
    var headers = HTTPHeaders()
    var off: Set<String> = []
  }

  /// `{"key": value}`; a value `{"value": …, "enabled": false}` (exactly those two keys,
  /// `enabled` a boolean) is a parameter switched off (or on, with `true`).
  mutating func query(_ value: JSONValue, _ path: JSONPath) -> QueryFields? {
    guard let object = object(value, path) else { return nil }
    var fields = QueryFields()
    let ok = clean { r in
      for member in object.members {
        let at = path.appending(member.key)
        r.checkTemplate(member.key, at)
        if let (content, enabled) = WorkspaceReader.queryEntry(member.value) {
          r.checkTemplates(in: content, at.appending("value"))
          fields.query[member.key] = content
          if !enabled { fields.off.insert(member.key) }
        } else {
          r.checkTemplates(in: member.value, at)
          fields.query[member.key] = member.value
        }
      }
    }
    return ok ? fields : nil
  }

  /// The value and flag of a switchable query entry; nil for any other value.
  static func queryEntry(_ value: JSONValue) -> (JSONValue, Bool)? {
    guard case .object(let object) = value, object.count == 2, let content = object["value"],
      case .bool(let enabled)? = object["enabled"]
    else { return nil }
    return (content, enabled)
  }

  /// `{"Name": "value"}`; a value `{"value": "…", "enabled": false}` is a header switched off.
  mutating func headers(_ value: JSONValue, _ path: JSONPath) -> HeaderFields? {
    guard let object = object(value, path) else { return nil }
    var fields = HeaderFields()
    let ok = clean { r in
      for member in object.members {
        let at = path.appending(member.key)
        if !WorkspaceReader.isValidHeaderName(member.key) {
          if r.checkLine(member.key, at) { r.fail(at, "\(JSONSerializer.quote(member.key)) is not a valid header name") }
          continue
        }
        var content = member.value
        var contentPath = at
        if case .object(let entry) = member.value {
          guard let (value, enabled) = r.headerEntry(entry, at) else { continue }
          content = value
          contentPath = at.appending("value")
          if !enabled { fields.off.insert(member.key.lowercased()) }
        }
        if let text = r.lineTemplate(content, contentPath) { fields.headers.add(member.key, text) }
      }
    }
    return ok ? fields : nil
  }

  /// `{"value": "…", "enabled": false}`: a header's value and whether it is sent.
  private mutating func headerEntry(_ entry: JSONObject, _ path: JSONPath) -> (JSONValue, Bool)? {
    var enabled = true
    let ok = clean { r in
      if entry["value"] == nil {
        r.fail(path, "missing \"value\"; a header is \"value\" or {\"value\": \"value\", \"enabled\": false}")
      }
      for member in entry.members where member.key != "value" {
        if member.key == "enabled" {
          if let flag = r.bool(member.value, path.appending("enabled")) { enabled = flag }
        } else {
          r.fail(path.appending(member.key), "unknown header setting; use value and enabled")
        }
      }
    }
    guard ok, let value = entry["value"] else { return nil }
    return (value, enabled)
  }

  static func isValidHeaderName(_ name: String) -> Bool {
    // RFC 9110 token characters.
    !name.isEmpty
      && name.unicodeScalars.allSatisfy {
        $0.isASCII
          && ($0.properties.isAlphabetic || ("0"..."9").contains($0)
            || "!#$%&'*+-.^_`|~".unicodeScalars.contains($0))
      }
  }

  mutating func body(_ value: JSONValue, _ path: JSONPath) -> BodyTemplate? {
    guard let object = object(value, path) else { return nil }
    let kinds = BodyTemplate.kinds.filter { object[$0] != nil }
    guard kinds.count == 1, let kind = kinds.first else {
      if kinds.count > 1 {
        fail(
          path, "a body has one kind, found \(kinds.joined(separator: " and ")); keep one of them")
      } else if let other = object.keys.first(where: { $0 != "contentType" }) {
        fail(
          path.appending(other),
          "unknown body kind \(JSONSerializer.quote(other)); use \"json\", \"form\", \"text\", \"multipart\" or \"file\"")
      } else {
        fail(path, "the body has no kind; use " + WorkspaceReader.bodyKinds)
      }
      return nil
    }
    let contentTypePath = path.appending("contentType")
    if kind != "text", kind != "file", object["contentType"] != nil {
      fail(
        contentTypePath,
        "\"contentType\" applies to text and file bodies; "
          + "for a \(kind) body set a Content-Type header instead"
      )
      return nil
    }
    let at = path.appending(kind)
    guard let content = object[kind] else { return nil }
    switch kind {
    case "json":
      return clean({ r in r.checkTemplates(in: content, at) }) ? .json(content) : nil
    case "form":
      guard let fields = self.object(content, at) else { return nil }
      let ok = clean { r in
        for member in fields.members {
          let fieldPath = at.appending(member.key)
          switch member.value {
          case .string(let text): r.checkTemplate(text, fieldPath)
          case .number, .bool: break
          default: r.expected("a string, number or boolean", member.value, fieldPath)
          }
        }
      }
      return ok ? .form(fields) : nil
    case "multipart":
      return multipart(content, at).map { .multipart($0) }
    case "file":
      guard let file = relativePath(content, at), let contentType = optionalContentType(object, contentTypePath)
      else { return nil }
      return .file(file, contentType: contentType)
    default:
      guard let text = template(content, at), let contentType = optionalContentType(object, contentTypePath)
      else { return nil }
      return .text(text, contentType: contentType)
    }
  }

  /// A text or file body's `contentType`: `.some(nil)` when absent, nil when it is invalid.
  private mutating func optionalContentType(_ object: JSONObject, _ path: JSONPath) -> String?? {
    guard let value = object["contentType"], value != .null else { return .some(nil) }
    guard let type = nonEmptyString(value, path) else { return nil }
    return checkLine(type, path) ? type : nil
  }

  mutating func multipart(_ value: JSONValue, _ path: JSONPath) -> [MultipartField]? {
    guard let items = array(value, path) else { return nil }
    var fields: [MultipartField] = []
    let ok = clean { r in
      for (i, item) in items.enumerated() {
        let at = path.appending(i)
        guard let object = r.object(item, at) else { continue }
        var field = MultipartField(name: "")
        if let name = object["name"] {
          if let text = r.nonEmptyString(name, at.appending("name")), r.checkLine(text, at.appending("name")) {
            field.name = text
          }
        } else {
          r.fail(at, "missing \"name\": the form field this part fills")
        }
        let sources = ["value", "file"].filter { object[$0] != nil }
        if sources.count != 1 {
          r.fail(at, "a part has either \"value\" (text) or \"file\" (a path), not \(sources.isEmpty ? "neither" : "both")")
        }
        for member in object.members {
          let memberPath = at.appending(member.key)
          switch member.key {
          case "name": break
          case "value": field.value = r.template(member.value, memberPath)
          case "file": field.file = r.relativePath(member.value, memberPath)
          case "type", "filename":
            // Both go into the part's header lines.
            guard let text = r.nonEmptyString(member.value, memberPath), r.checkLine(text, memberPath) else { continue }
            if member.key == "type" {
              field.type = text
            } else {
              field.filename = text
            }
          default: r.fail(memberPath, "unknown part setting; use name, value, file, type, filename")
          }
        }
        fields.append(field)
      }
    }
    return ok ? fields : nil
  }

  /// A path relative to the workspace's folder, as written (`{{variables}}` allowed): absolute
  /// paths and `..` are refused, so a workspace from elsewhere cannot reach outside its folder.
  mutating func relativePath(_ value: JSONValue, _ path: JSONPath) -> String? {
    guard let text = template(value, path) else { return nil }
    if let problem = WorkspacePaths.problem(with: text) {
      fail(path, problem)
      return nil
    }
    return text
  }

  /// A path without `{{variables}}` (a TLS file), under the same folder rule.
  mutating func filePath(_ value: JSONValue, _ path: JSONPath) -> String? {
    guard let text = nonEmptyString(value, path) else { return nil }
    if let problem = WorkspacePaths.problem(with: text) {
      fail(path, problem)
      return nil
    }
    return text
  }

  mutating func download(_ value: JSONValue, _ path: JSONPath) -> DownloadTemplate? {
    guard let object = object(value, path) else { return nil }
    var download = DownloadTemplate(to: "")
    let ok = clean { r in
      if object["to"] == nil {
        r.fail(path, "missing \"to\": the file (or folder) the download goes to, relative to the workspace")
      }
      for member in object.members {
        let at = path.appending(member.key)
        switch member.key {
        case "to": if let to = r.relativePath(member.value, at) { download.to = to }
        case "sha256":
          guard let text = r.string(member.value, at) else { continue }
          let hex = text.lowercased()
          if hex.count == 64, hex.allSatisfy({ $0.isHexDigit }) {
            download.sha256 = hex
          } else {
            r.fail(at, "a sha256 is 64 hexadecimal digits")
          }
        case "trustLength": if let flag = r.bool(member.value, at) { download.trustLength = flag }
        default: r.fail(at, "unknown download setting; use to, sha256, trustLength")
        }
      }
    }
    return ok ? download : nil
  }

  mutating func auth(_ value: JSONValue, _ path: JSONPath) -> Auth? {
    guard let object = object(value, path) else { return nil }
    let kinds = Auth.kinds.filter { object[$0] != nil }
    guard kinds.count == 1, let kind = kinds.first, let content = object[kind] else {
      if kinds.count > 1 {
        fail(path, "auth has one kind, found \(kinds.joined(separator: " and ")); keep one of them")
      } else if let other = object.keys.first {
        fail(
          path.appending(other),
          "unknown auth kind \(JSONSerializer.quote(other)); use " + WorkspaceReader.authKinds)
      } else {
        fail(path, "auth has no kind; use " + WorkspaceReader.authKinds)
      }
      return nil
    }
    let at = path.appending(kind)
    if kind == "bearer" {
      return lineTemplate(content, at).map { .bearer($0) }
    }
    if kind == "digest" {
      return credentials(content, at).map { .digest(user: $0.user, password: $0.password) }
    }
    return credentials(content, at).map { .basic(user: $0.user, password: $0.password) }
  }

  /// `{"user": "…", "password": "…"}` of basic and digest auth.
  mutating func credentials(_ content: JSONValue, _ at: JSONPath) -> (user: String, password: String)? {
    guard let basic = self.object(content, at) else { return nil }
    var user: String?
    var password: String?
    let ok = clean { r in
      if let v = basic["user"] {
        user = r.lineTemplate(v, at.appending("user"))
      } else {
        r.fail(at, "missing \"user\"")
      }
      if let v = basic["password"] {
        password = r.template(v, at.appending("password"))
      } else {
        r.fail(at, "missing \"password\"")
      }
    }
    guard ok, let user, let password else { return nil }
    return (user, password)
  }

  mutating func tls(_ value: JSONValue, _ path: JSONPath) -> TLSSettings? {
    guard let object = object(value, path) else { return nil }
    var settings = TLSSettings()
    let ok = clean { r in
      for member in object.members {
        let at = path.appending(member.key)
        switch member.key {
        case "ca": settings.caFile = r.filePath(member.value, at)
        case "cert": settings.clientCertificate = r.filePath(member.value, at)
        case "key": settings.clientKey = r.filePath(member.value, at)
        case "pin":
          guard let pin = r.nonEmptyString(member.value, at) else { continue }
          if pin.split(separator: ";").allSatisfy({ $0.hasPrefix("sha256//") && $0.count > 8 }) {
            settings.pinnedPublicKey = pin
          } else {
            r.fail(at, "a pin is sha256//BASE64 (several joined by ;), e.g. from "
              + "`openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`")
          }
        default: r.fail(at, "unknown tls setting; use ca, pin, cert, key")
        }
      }
    }
    return ok ? settings : nil
  }

  static let bodyKinds = "{\"json\": …}, {\"form\": {…}}, {\"text\": \"…\"}, {\"multipart\": […]} or {\"file\": \"path\"}"
  static let authKinds =
    "{\"basic\": {\"user\": …, \"password\": …}}, {\"digest\": {\"user\": …, \"password\": …}} or {\"bearer\": \"token\"}"

  mutating func retry(_ value: JSONValue, _ path: JSONPath) -> RetryPolicy? {
    guard let object = object(value, path) else { return nil }
    var policy = RetryPolicy()
    let ok = clean { r in
      if let v = object["max"], let max = r.int(v, path.appending("max"), atLeast: 0, atMost: ValueLimits.retries) {
        policy.max = max
      }
      if let v = object["delay"],
        let delay = r.number(v, path.appending("delay"), from: 0, atMost: ValueLimits.retryDelay, unit: "seconds")
      {
        policy.baseDelay = delay
      }
      if let v = object["statuses"], let items = r.array(v, path.appending("statuses")) {
        var statuses = Set<Int>()
        for (i, item) in items.enumerated() {
          if let code = r.statusCode(item, path.appending("statuses").appending(i)) {
            statuses.insert(code)
          }
        }
        policy.statuses = statuses
      }
      if let v = object["methods"], let items = r.array(v, path.appending("methods")) {
        var methods = Set<HTTPMethod>()
        for (i, item) in items.enumerated() {
          if let method = r.method(item, path.appending("methods").appending(i)) {
            methods.insert(method)
          }
        }
        policy.methods = methods
      }
    }
    return ok ? policy : nil
  }

  /// `{"seconds": 300, "version": 2, "sensitive": "{{user}}", "namespace": "{{tenant}}",
  ///   "ignore": ["ts"], "mode": "cacheElseNetwork", "revalidate": true, "vary": ["Accept-Language"]}`
  mutating func cache(_ value: JSONValue, _ path: JSONPath) -> CachePolicy? {
    guard let object = object(value, path) else { return nil }
    var policy = CachePolicy(seconds: 0)
    let ok = clean { r in
      if object["seconds"] == nil {
        r.fail(path, "missing \"seconds\": how long a response stays fresh (0 turns caching off)")
      }
      for member in object.members {
        let at = path.appending(member.key)
        switch member.key {
        case "seconds":
          if let seconds = r.number(member.value, at, from: 0, atMost: ValueLimits.cacheSeconds, unit: "seconds") {
            policy.seconds = seconds
          }
        case "version": if let version = r.int(member.value, at) { policy.version = version }
        case "sensitive": policy.sensitive = r.template(member.value, at)
        case "namespace": policy.namespace = r.template(member.value, at)
        case "ignore", "vary":
          guard let items = r.array(member.value, at) else { continue }
          var names: [String] = []
          for (i, item) in items.enumerated() {
            if let name = r.nonEmptyString(item, at.appending(i)) { names.append(name) }
          }
          if member.key == "ignore" { policy.ignore = names } else { policy.vary = names }
        case "mode":
          guard let text = r.string(member.value, at) else { continue }
          if let mode = CachePolicy.Mode(rawValue: text) {
            policy.mode = mode
          } else {
            r.fail(at, "unknown mode \(JSONSerializer.quote(text)); use one of "
              + CachePolicy.Mode.allCases.map(\.rawValue).joined(separator: ", "))
          }
        case "revalidate": if let flag = r.bool(member.value, at) { policy.revalidate = flag }
        default:
          r.fail(at, "unknown cache setting; use seconds, version, sensitive, namespace, ignore, mode, revalidate, vary")
        }
      }
    }
    return ok ? policy : nil
  }

  // MARK: - Validation

  mutating func validation(_ value: JSONValue, _ path: JSONPath) -> Validation? {
    guard let object = object(value, path) else { return nil }
    var validation = Validation()
    let ok = clean { r in
      if let v = object["status"], let status = r.statusRanges(v, path.appending("status")) {
        validation.status = status
      }
      if let v = object["json"], v != .null, let shape = r.shape(v, path.appending("json")) {
        validation.json = shape
      }
      if let v = object["strict"], let flag = r.bool(v, path.appending("strict")) {
        validation.strict = flag
      }
      if let v = object["requireBody"], let flag = r.bool(v, path.appending("requireBody")) {
        validation.requireBody = flag
      }
    }
    return ok ? validation : nil
  }

  /// A JSON shape validator; a bad leaf is reported at its own position.
  mutating func shape(_ value: JSONValue, _ path: JSONPath) -> JSONShape? {
    do throws(JSONShapeError) {
      return try JSONShape(value)
    } catch {
      fail(JSONPath(path.components + error.path.components), error.message)
      return nil
    }
  }

  mutating func statusCode(_ value: JSONValue, _ path: JSONPath) -> Int? {
    guard let code = int(value, path) else { return nil }
    guard (100...599).contains(code) else {
      fail(path, "a status code is between 100 and 599, found \(code)")
      return nil
    }
    return code
  }

  /// `200` (one code), `[200, 299]` (a range: an array of exactly two numbers), or a list whose
  /// items are codes or `[low, high]` ranges: `[[200, 299], 418]`.
  mutating func statusRanges(_ value: JSONValue, _ path: JSONPath) -> [ClosedRange<Int>]? {
    switch value {
    case .number:
      return statusCode(value, path).map { [$0...$0] }
    case .array(let items):
      if items.isEmpty {
        fail(path, "list at least one status code or [low, high] range")
        return nil
      }
      if isRangeSpelling(items) { return statusRange(items, path).map { [$0] } }
      var ranges: [ClosedRange<Int>] = []
      let ok = clean { r in
        for (i, item) in items.enumerated() {
          let at = path.appending(i)
          if case .array(let pair) = item {
            if r.isRangeSpelling(pair) {
              if let range = r.statusRange(pair, at) { ranges.append(range) }
            } else {
              r.fail(at, "a status range is two codes, [low, high]")
            }
          } else if let code = r.statusCode(item, at) {
            ranges.append(code...code)
          }
        }
      }
      return ok ? ranges : nil
    default:
      expected("a status code, a [low, high] range or a list of them", value, path)
      return nil
    }
  }

  private func isRangeSpelling(_ items: [JSONValue]) -> Bool {
    items.count == 2 && items.allSatisfy { if case .number = $0 { true } else { false } }
  }

  private mutating func statusRange(_ pair: [JSONValue], _ path: JSONPath) -> ClosedRange<Int>? {
    guard let low = statusCode(pair[0], path.appending(0)),
      let high = statusCode(pair[1], path.appending(1))
    else { return nil }
    guard low <= high else {
      fail(path, "a status range is [low, high], found [\(low), \(high)]")
      return nil
    }
    return low...high
  }
}
