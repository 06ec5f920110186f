import Foundation
import RequestEngine

/// Where `{{variables}}` get their values, in this order:
/// `stepVariables` (a chain step's own `vars`, for that step's request only), `overrides` (the
/// command line's `--var`), `captured` (values captured by chain steps), the selected environment,
/// the workspace's `variables`. `{{env.NAME}}` reads `processEnvironment`;
/// `{{secret.NAME}}` reads `REQBENCH_SECRET_NAME` from `processEnvironment`, else the secrets file.
public struct VariableSources: Sendable {
  public var overrides: [String: String]
  public var captured: [String: String]
  /// The environment to use; nil for the workspace's `environment` key.
  public var environment: String?
  public var processEnvironment: [String: String]
  public var secrets: SecretsFile
  /// A chain step's own `vars`, in the order written: templates filled in from the other sources
  /// (and the step variables before them) when the step's request is prepared. They are the most
  /// specific values and win over every other source, `--var` included. Every one is filled in,
  /// used or not: an undefined variable in one fails the step before anything is sent.
  public var stepVariables: [(name: String, value: String)] = []
  /// Where `stepVariables` come from, for errors: `step 3 (users/get) of chain "login-flow"`.
  public var stepDescription = "the step"
  /// The workspace's cookie jars: `prepare` gives each request its environment's jar (unless the
  /// workspace or the request says `"cookies": false`); nil sends and keeps no cookies
  /// (`run --no-cookies`, exports).
  public var cookies: (any CookieJarSource)?
  /// Environments renamed since the file was read (the TUI's `v` then `r`), by their new name:
  /// the name their cookie jar is still kept under until the rename is saved
  /// (`CookieJars.renameJar` then moves it).
  public var renamedEnvironments: [String: String] = [:]
  /// The OAuth 2.0 tokens: `prepare` gives a request with `"auth": {"oauth2": …}` an
  /// `Authorizer` from here; nil sends such a request without `Authorization` (exports).
  public var oauth2: (any TokenSource)?

  public init(
    overrides: [String: String] = [:], captured: [String: String] = [:], environment: String? = nil,
    processEnvironment: [String: String] = ProcessInfo.processInfo.environment,
    secrets: SecretsFile = SecretsFile()
  ) {
    self.overrides = overrides
    self.captured = captured
    self.environment = environment
    self.processEnvironment = processEnvironment
    self.secrets = secrets
  }

  /// The environment whose cookie jar the environment `name` uses (nil: none selected).
  public func cookieJarEnvironment(of name: String?) -> String? {
    name.map { renamedEnvironments[$0] ?? $0 }
  }

  /// `REQBENCH_SECRET_` + the name upper-cased, other characters than letters and digits as `_`
  /// (`api-key` → `REQBENCH_SECRET_API_KEY`).
  public static func secretEnvironmentName(_ name: String) -> String {
    "REQBENCH_SECRET_"
      + String(name.uppercased().unicodeScalars.map { ($0.properties.isAlphabetic || ("0"..."9").contains($0)) && $0.isASCII ? Character($0) : "_" })
  }
}

/// Where `{{variables}}` get their values while one request is prepared; remembers the secrets
/// it handed out.
final class VariableScope {
  let request: String
  let sources: VariableSources
  let environment: Environment?
  let variables: [Variable]
  var usedSecrets: [String] = []
  /// The part of the file being filled in, for the error's location.
  var field = PrepareError.Field.request(.root)

  init(request: String, sources: VariableSources, environment: Environment?, variables: [Variable]) {
    self.request = request
    self.sources = sources
    self.environment = environment
    self.variables = variables
  }

  /// The step variables filled in so far (see `fillStepVariables`).
  private var stepValues: [String: String] = [:]

  /// Fills in the step's own `vars`, in order; each may use the other sources and the step
  /// variables before it (so `"id": "{{id}}"` reads the `id` the step would otherwise get).
  func fillStepVariables() throws(PrepareError) {
    for variable in sources.stepVariables {
      let value = try render(
        variable.value, in: "vars.\(variable.name) of \(sources.stepDescription)")
      stepValues[variable.name] = value
    }
  }

  func value(of name: String, in place: String) throws(PrepareError) -> String {
    // One lookup decides the layer (`VariableSources.lookup`); here each layer's value is noted,
    // a secret's remembered for masking, a workspace value's own variables filled in.
    if let found = sources.lookup(name, environment: environment, variables: variables, stepValues: stepValues) {
      let value = found.value
      switch found.layer {
      case .step:
        return noteOrigin(name, value, "from vars.\(name) of \(sources.stepDescription)")
      case .override:
        if name.hasPrefix("secret.") { usedSecrets.append(value) }
        return noteOrigin(name, value, "from --var \(name)")
      case .captured:
        if name.hasPrefix("secret.") { usedSecrets.append(value) }
        return noteOrigin(name, value, "captured from a server's response by an earlier step of the chain")
      case .processEnvironment(let variable):
        return noteOrigin(name, value, "from the environment variable \(variable)")
      case .secretEnvironment(let variable):
        usedSecrets.append(value)
        return noteOrigin(name, value, "the secret \(JSONSerializer.quote(String(name.dropFirst(7)))), from \(variable)")
      case .secretsFile:
        usedSecrets.append(value)
        return noteOrigin(name, value, "the secret \(JSONSerializer.quote(String(name.dropFirst(7)))), from the secrets file")
      case .environment(let environment):
        let filled = try fillIn(name, value, in: place)
        rawValues[name] = value
        return noteOrigin(name, filled, "from environment \(JSONSerializer.quote(environment))")
      case .workspace:
        let filled = try fillIn(name, value, in: place)
        rawValues[name] = value
        return noteOrigin(name, filled, "from \"variables\"")
      }
    }
    if name.hasPrefix("env.") {
      let variable = String(name.dropFirst(4))
      throw PrepareError(
        code: .undefinedVariable(name), request: request,
        message: "{{\(name)}} in \(place): the environment variable \(variable) is not set; "
          + "export it or pass --var \(name)=…")
    }
    if name.hasPrefix("secret.") {
      let secret = String(name.dropFirst(7))
      let variable = VariableSources.secretEnvironmentName(secret)
      throw PrepareError(
        code: .undefinedVariable(name), request: request,
        message: "{{\(name)}} in \(place): no secret \(JSONSerializer.quote(secret)); set it with "
          + "`reqbench secrets set WORKSPACE \(secret)` or export \(variable)")
    }
    throw PrepareError(
      code: .undefinedVariable(name), request: request,
      message:
        "undefined variable {{\(name)}} in \(place); "
        + "define it with --var \(name)=… or in \"variables\""
    )
  }

  /// Each variable's value as handed out and where it came from (`from --var id`), and the
  /// environment and workspace variables' values as written: what an error about a CR, LF or
  /// NUL in a filled-in value names (`renderLine`).
  private var resolved: [String: (value: String, origin: String)] = [:]
  private var rawValues: [String: String] = [:]

  private func noteOrigin(_ name: String, _ value: String, _ origin: String) -> String {
    resolved[name] = (value, origin)
    return value
  }

  /// `render`, for text that becomes part of the URL or a header line: a CR, LF or NUL in the
  /// result (from a variable, `--var`, a secret, a captured value) is an error naming the field
  /// and where the character came from, before anything is sent.
  func renderLine(_ text: String, in place: String) throws(PrepareError) -> String {
    let rendered = try render(text, in: place)
    guard let found = LineBreaks.find(in: rendered) else { return rendered }
    throw PrepareError(
      code: .lineBreak, request: request,
      message: "\(place): \(culprit(in: text, depth: 0)) contains \(found); \(LineBreaks.rule)")
  }

  /// A header name, which is never filled in.
  func checkLiteralLine(_ text: String, in place: String) throws(PrepareError) {
    guard let found = LineBreaks.find(in: text) else { return }
    throw PrepareError(
      code: .lineBreak, request: request, message: "\(place) contains \(found); \(LineBreaks.rule)")
  }

  /// What brought the CR, LF or NUL into `text` once filled in: `the text as written`, or the
  /// variable and its source (`{{v}} (from --var v)`); through a variable whose own value is
  /// clean as written, what that value refers to (`{{b}} (from --var b) through {{a}}`).
  private func culprit(in text: String, depth: Int) -> String {
    guard let template = try? Template(text) else { return "the text as written" }
    for part in template.parts {
      switch part {
      case .text(let literal):
        if LineBreaks.find(in: literal) != nil { return "the text as written" }
      case .variable(let name):
        guard let (value, origin) = resolved[name], LineBreaks.find(in: value) != nil else { continue }
        if let raw = rawValues[name], LineBreaks.find(in: raw) == nil, depth < VariableScope.maxNesting {
          return culprit(in: raw, depth: depth + 1) + " through {{\(name)}}"
        }
        return "{{\(name)}} (\(origin))"
      }
    }
    return "the text as written"
  }

  /// The environment and workspace variables being filled in, outermost first.
  private var filling: [String] = []
  /// Their values once filled in.
  private var filled: [String: String] = [:]
  /// Where the outermost of them is used (`url`), for errors.
  private var fillingPlace = ""
  /// How deep a variable's value may refer to other variables.
  static let maxNesting = 10

  /// An environment or workspace variable's value with its own `{{variables}}` filled in
  /// (`"auth": "Bearer {{secret.token}}"`, `"baseUrl": "{{host}}/v1"`), to `maxNesting` levels.
  /// A variable reached again while its own value is being filled in is a cycle, an error naming
  /// the chain. Secrets reached this way are masked like any other.
  private func fillIn(_ name: String, _ value: String, in place: String) throws(PrepareError)
    -> String
  {
    guard value.utf8.contains(UInt8(ascii: "{")) else { return value }
    if let done = filled[name] { return done }
    if filling.isEmpty { fillingPlace = place }
    let place = fillingPlace
    if let start = filling.firstIndex(of: name) {
      let chain = (filling[start...] + [name]).map { "{{\($0)}}" }.joined(separator: " → ")
      throw PrepareError(
        code: .invalidTemplate, request: request,
        message: "\(place): the variables refer to each other in a cycle: \(chain)")
    }
    if filling.count >= VariableScope.maxNesting {
      let chain = (filling + [name]).map { "{{\($0)}}" }.joined(separator: " → ")
      throw PrepareError(
        code: .invalidTemplate, request: request,
        message: "\(place): variables nested more than \(VariableScope.maxNesting) deep: \(chain)")
    }
    filling.append(name)
    defer { filling.removeLast() }
    let result = try render(value, in: "the value of {{\(name)}} (used in \(place))")
    filled[name] = result
    return result
  }

  /// Every secret used, as written and as it appears on the wire (percent-encoded in URLs and form
  /// bodies, escaped inside JSON strings).
  func secretForms() -> [String] {
    var forms: [String] = []
    for secret in usedSecrets where !secret.isEmpty {
      forms.append(secret)
      forms.append(QueryEncoder.encodeComponent(secret))
      forms.append(String(JSONSerializer.quote(secret).dropFirst().dropLast()))
    }
    var seen = Set<String>()
    return forms.filter { seen.insert($0).inserted }
  }

  func render(_ text: String, in place: String) throws(PrepareError) -> String {
    let template: Template
    do {
      template = try Template(text)
    } catch {
      throw PrepareError(
        code: .invalidTemplate, request: request, message: "\(place): \(error.message)")
    }
    return try template.render { name throws(PrepareError) in try value(of: name, in: place) }
  }

  /// Fills in every string of a JSON value, object keys included.
  func render(_ value: JSONValue, in place: String) throws(PrepareError) -> JSONValue {
    switch value {
    case .string(let text):
      return .string(try render(text, in: place))
    case .array(let items):
      var rendered: [JSONValue] = []
      for item in items { rendered.append(try render(item, in: place)) }
      return .array(rendered)
    case .object(let object):
      var rendered = JSONObject()
      for member in object.members {
        rendered[try render(member.key, in: place)] = try render(member.value, in: place)
      }
      return .object(rendered)
    default:
      return value
    }
  }

  func render(_ body: BodyTemplate, folder: URL?) throws(PrepareError) -> RequestBody {
    func path(_ text: String, in place: String) throws(PrepareError) -> String {
      let rendered = try render(text, in: place)
      do {
        return try WorkspacePaths.uploadSource(rendered, in: folder)
      } catch {
        throw PrepareError(code: .invalidPath, request: request, message: "\(place): \(error.message)")
      }
    }
    switch body {
    case .file(let file, let contentType):
      return .file(try path(file, in: "body.file"), contentType: contentType)
    case .multipart(let fields):
      var parts: [MultipartPart] = []
      for (i, field) in fields.enumerated() {
        let place = "body.multipart[\(i)]"
        // Name, file name and type go into the part's own header lines.
        let name = try renderLine(field.name, in: place + ".name")
        let type = try field.type.map { text throws(PrepareError) in try renderLine(text, in: place + ".type") }
        let filename = try field.filename.map { text throws(PrepareError) in
          try renderLine(text, in: place + ".filename")
        }
        if let file = field.file {
          parts.append(.file(name, path: try path(file, in: place), filename: filename, contentType: type))
        } else {
          var part = MultipartPart.field(name, try render(field.value ?? "", in: place), contentType: type)
          part.filename = filename  // a text part sent as a file (curl's -F 'n=v;filename=f')
          parts.append(part)
        }
      }
      return .multipart(parts)
    case .json(let value):
      return .json(try render(value, in: "body"))
    case .form(let fields):
      var rendered: [(String, String)] = []
      for member in fields.members {
        let text: String
        switch member.value {
        case .string(let value): text = value
        case .number(let literal): text = literal
        case .bool(let flag): text = flag ? "true" : "false"
        default: text = JSONSerializer.compact(member.value)
        }
        rendered.append((try render(member.key, in: "body"), try render(text, in: "body")))
      }
      return .form(rendered)
    case .text(let text, let contentType):
      return .text(try render(text, in: "body"), contentType: contentType)
    }
  }

  enum Credentials {
    /// Sent as the `Authorization` header.
    case header(String)
    /// Answered by curl when the server asks.
    case digest(DigestCredentials)
    /// A token from the token endpoint, when the engine sends the request (`OAuth2Tokens`).
    case oauth2(OAuth2Settings)
  }

  func credentials(_ auth: Auth) throws(PrepareError) -> Credentials {
    switch auth {
    case .basic(let user, let password):
      let credentials = try render(user, in: "auth") + ":" + render(password, in: "auth")
      return .header("Basic " + Data(credentials.utf8).base64EncodedString())
    case .bearer(let token):
      return .header("Bearer " + (try renderLine(token, in: "auth")))
    case .digest(let user, let password):
      return .digest(
        DigestCredentials(user: try renderLine(user, in: "auth"), password: try render(password, in: "auth")))
    case .oauth2(let settings):
      return .oauth2(settings)
    }
  }
}
