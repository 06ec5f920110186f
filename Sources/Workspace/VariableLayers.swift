import RequestEngine

/// Where a `{{variable}}`'s value comes from, most specific first: the order `prepare` looks in.
///
/// ```swift
/// let found = sources.lookup("host", environment: staging, variables: workspace.variables)
/// found?.layer   // .environment("staging")
/// ```
public enum VariableLayer: Sendable, Equatable, Hashable {
  /// A chain step's own `vars`.
  case step
  /// `--var NAME=VALUE`.
  case override
  /// Captured from a response by an earlier step of a chain.
  case captured
  /// `{{env.NAME}}`: the process environment variable NAME.
  case processEnvironment(String)
  /// `{{secret.NAME}}` from the environment variable `REQBENCH_SECRET_NAME`.
  case secretEnvironment(String)
  /// `{{secret.NAME}}` from the secrets file beside the workspace.
  case secretsFile
  /// The selected environment's `variables`.
  case environment(String)
  /// The workspace's `variables`.
  case workspace

  /// How the TUI and errors name it: `--var`, `environment staging`, `secret (secrets file)`.
  public var label: String {
    switch self {
    case .step: "chain step vars"
    case .override: "--var"
    case .captured: "captured by a chain"
    case .processEnvironment(let name): "env. (\(name))"
    case .secretEnvironment(let name): "secret (\(name))"
    case .secretsFile: "secret (secrets file)"
    case .environment(let name): "environment \(name)"
    case .workspace: "workspace"
    }
  }

  /// A value the user typed in the workspace file (and can edit there).
  public var isWorkspaceFile: Bool {
    switch self {
    case .environment, .workspace: true
    default: false
    }
  }
}

/// A variable's value as found, and where it was found.
public struct VariableValue: Sendable, Equatable {
  /// The value as its source holds it (an environment or workspace value still has its own
  /// `{{variables}}`; `prepare` fills them in).
  public var value: String
  public var layer: VariableLayer

  public init(value: String, layer: VariableLayer) {
    self.value = value
    self.layer = layer
  }
}

extension VariableSources {
  /// The value `prepare` uses for `{{name}}`, and its layer; nil when no source has it. One
  /// lookup for `prepare` and for what the TUI shows (`Workspace.variablesInScope`).
  public func lookup(
    _ name: String, environment: Environment?, variables: [Variable], stepValues: [String: String] = [:]
  ) -> VariableValue? {
    definitions(of: name, environment: environment, variables: variables, stepValues: stepValues).first
  }

  /// Every source that defines `{{name}}`, the one `prepare` uses first.
  public func definitions(
    of name: String, environment: Environment?, variables: [Variable], stepValues: [String: String] = [:]
  ) -> [VariableValue] {
    var found: [VariableValue] = []
    if let value = stepValues[name] { found.append(VariableValue(value: value, layer: .step)) }
    if let value = overrides[name] { found.append(VariableValue(value: value, layer: .override)) }
    if let value = captured[name] { found.append(VariableValue(value: value, layer: .captured)) }
    if name.hasPrefix("env.") {
      let variable = String(name.dropFirst(4))
      if let value = processEnvironment[variable] {
        found.append(VariableValue(value: value, layer: .processEnvironment(variable)))
      }
      return found
    }
    if name.hasPrefix("secret.") {
      let secret = String(name.dropFirst(7))
      let variable = VariableSources.secretEnvironmentName(secret)
      if let value = processEnvironment[variable] {
        found.append(VariableValue(value: value, layer: .secretEnvironment(variable)))
      }
      if let value = secrets.value(of: secret) { found.append(VariableValue(value: value, layer: .secretsFile)) }
      return found
    }
    if let environment, let value = environment.value(of: name) {
      found.append(VariableValue(value: value, layer: .environment(environment.name)))
    }
    if let value = variables.value(of: name) { found.append(VariableValue(value: value, layer: .workspace)) }
    return found
  }
}

/// One row of `Workspace.variablesInScope`: a variable a request can use.
public struct ScopedVariable: Sendable, Equatable {
  public var name: String
  /// The value used and where it comes from; nil when the request uses it and nothing defines it.
  public var found: VariableValue?
  /// Whether the request (its URL, base URL, query, headers, body, auth, download, or a value
  /// of one of those variables) uses it.
  public var used: Bool
  /// The layers below `found` that define it too (and lose to it).
  public var shadowed: [VariableLayer]

  /// A secret's value: shown masked (`••••`).
  public var isSecret: Bool {
    if name.hasPrefix("secret.") { return true }
    switch found?.layer {
    case .secretEnvironment, .secretsFile: return true
    default: return false
    }
  }
}

/// Where the TUI writes a variable's new value.
public enum VariableHome: Sendable, Equatable {
  case workspace
  case environment(String)
}

extension Workspace {
  /// The environment `prepare` uses with these sources (`--env`, else the `environment` key);
  /// nil when none is selected or the name is unknown.
  public func selectedEnvironment(_ sources: VariableSources) -> Environment? {
    guard let name = sources.environment ?? environment else { return nil }
    return environments.first { $0.name == name }
  }

  /// Every variable in scope for `template` with these sources, sorted by name: the variables it
  /// uses (through the values of others too; undefined ones included), then the others the
  /// `--var`s, captured values, the selected environment, the workspace and the secrets file
  /// define. `{{env.NAME}}` appears only when used (the process environment is not listed).
  public func variablesInScope(for template: RequestTemplate?, sources: VariableSources) -> [ScopedVariable] {
    let environment = selectedEnvironment(sources)
    // What the request uses, and what the values of those use, to a bounded depth.
    var used: [String] = []
    var pending = template.map(usedVariableNames) ?? []
    for _ in 0..<10 where !pending.isEmpty {
      var next: [String] = []
      for name in pending where !used.contains(name) {
        used.append(name)
        if let value = sources.lookup(name, environment: environment, variables: variables)?.value {
          next += (try? Template(value))?.variableNames ?? []
        }
      }
      pending = next
    }
    var names = Set(used)
    names.formUnion(sources.overrides.keys)
    names.formUnion(sources.captured.keys)
    names.formUnion(environment?.variables.map(\.name) ?? [])
    names.formUnion(variables.map(\.name))
    names.formUnion(sources.secrets.names.map { "secret." + $0 })
    let usedSet = Set(used)
    return names.sorted().map { name in
      let definitions = sources.definitions(of: name, environment: environment, variables: variables)
      return ScopedVariable(
        name: name, found: definitions.first, used: usedSet.contains(name), shadowed: definitions.dropFirst().map(\.layer))
    }
  }

  /// The variables `template` uses directly, and those of the base URL (or CDN URL) and the
  /// defaults a relative URL gets, in order of first use.
  func usedVariableNames(_ template: RequestTemplate) -> [String] {
    var names = template.variableNames
    var extra: [String] = []
    if template.useCDN, let cdnURL { extra.append(cdnURL) } else if let baseURL { extra.append(baseURL) }
    for field in defaults.sentHeaders.fields { extra += [field.name, field.value] }
    for member in defaults.sentQuery.members {
      extra.append(member.key)
      if case .string(let text) = member.value { extra.append(text) }
    }
    for text in extra {
      for name in (try? Template(text))?.variableNames ?? [] where !names.contains(name) { names.append(name) }
    }
    return names
  }

  /// Sets the variable `name` in the workspace's `variables` or in an environment's (added at the
  /// end when it is new). A save writes only that value.
  public mutating func setVariable(_ name: String, _ value: String, in home: VariableHome) throws(WorkspaceEditError) {
    guard Template.isValidName(name), !name.hasPrefix("env."), !name.hasPrefix("secret.") else {
      throw WorkspaceEditError(
        "\(JSONSerializer.quote(name)) cannot be set here: a variable's name is letters, digits, '_', '-' and '.', "
          + "not starting with env. or secret.")
    }
    func set(_ variables: inout [Variable]) {
      if let index = variables.lastIndex(where: { $0.name == name }) {
        variables[index].value = value
      } else {
        variables.append(Variable(name: name, value: value))
      }
    }
    switch home {
    case .workspace:
      set(&variables)
    case .environment(let environment):
      guard let index = environments.firstIndex(where: { $0.name == environment }) else {
        throw WorkspaceEditError("there is no environment named \(JSONSerializer.quote(environment))")
      }
      set(&environments[index].variables)
    }
  }

  /// The value of `name` in the workspace's `variables` or an environment's (nil when it has none).
  public func value(of name: String, in home: VariableHome) -> String? {
    switch home {
    case .workspace: variables.value(of: name)
    case .environment(let environment): environments.first { $0.name == environment }?.value(of: name)
    }
  }

  /// Removes the variable `name` from the workspace's `variables` or an environment's (every
  /// definition of it there).
  public mutating func removeVariable(_ name: String, in home: VariableHome) throws(WorkspaceEditError) {
    func remove(_ variables: inout [Variable], from label: String) throws(WorkspaceEditError) {
      guard variables.contains(where: { $0.name == name }) else {
        throw WorkspaceEditError("\(label) does not define \(JSONSerializer.quote(name))")
      }
      variables.removeAll { $0.name == name }
    }
    switch home {
    case .workspace:
      try remove(&variables, from: "the workspace's \"variables\"")
    case .environment(let environment):
      guard let index = environments.firstIndex(where: { $0.name == environment }) else {
        throw WorkspaceEditError("there is no environment named \(JSONSerializer.quote(environment))")
      }
      try remove(&environments[index].variables, from: "environment \(environment)")
    }
  }
}

extension RequestTemplate {
  /// The `{{variables}}` the request uses anywhere (URL, query, headers, body, download, auth),
  /// in order, repeated when used again.
  public var variableNames: [String] {
    let template = self
    var texts = [template.url]
    func collect(_ value: JSONValue) {
      switch value {
      case .string(let text): texts.append(text)
      case .array(let items): items.forEach(collect)
      case .object(let object):
        for member in object.members {
          texts.append(member.key)
          collect(member.value)
        }
      default: break
      }
    }
    collect(.object(template.sentQuery))
    for field in template.sentHeaders { texts += [field.name, field.value] }
    switch template.body {
    case .json(let value): collect(value)
    case .form(let fields): collect(.object(fields))
    case .text(let text, _): texts.append(text)
    case .file(let path, _): texts.append(path)
    case .multipart(let fields):
      for field in fields { texts += [field.name, field.value, field.file, field.type, field.filename].compactMap { $0 } }
    case nil: break
    }
    if let download = template.download { texts.append(download.to) }
    switch template.auth {
    case .basic(let user, let password), .digest(let user, let password): texts += [user, password]
    case .bearer(let token): texts.append(token)
    case .oauth2(let settings): texts += settings.templates
    case nil: break
    }
    return texts.flatMap { (try? Template($0))?.variableNames ?? [] }
  }
}
