import Foundation
import RequestEngine

extension Workspace {
  /// The request `name`, ready to send; see `prepare(_:variables:environment:)`.
  public func prepare(
    requestNamed name: String, variables overrides: [String: String] = [:],
    environment: String? = nil
  ) throws(PrepareError) -> Request {
    guard let template = request(named: name) else {
      let names = requests.map(\.name)
      throw PrepareError(
        code: .unknownRequest(name), request: name,
        message: "there is no request named \(JSONSerializer.quote(name)); "
          + (names.isEmpty
            ? "this workspace has no requests"
            : "this workspace has \(names.joined(separator: ", "))"))
    }
    return try prepare(template, variables: overrides, environment: environment)
  }

  /// Fills in a template's `{{variables}}` and builds the request the engine sends.
  ///
  /// A variable's value comes from, in order: `overrides` (the command line's `--var name=value`),
  /// the selected environment (`environment`, or the workspace's `environment` key when nil), the
  /// workspace's `variables`. An undefined variable is an error, never an empty string.
  ///
  /// The URL is resolved against `baseURL` unless it is absolute, and the query is appended to any
  /// query it already has. `Authorization` comes from `auth` unless the template's headers set it;
  /// the body's content type travels on `RequestBody` and yields to a `Content-Type` header.
  public func prepare(
    _ template: RequestTemplate, variables overrides: [String: String] = [:],
    environment: String? = nil
  ) throws(PrepareError) -> Request {
    let scope = VariableScope(
      request: template.name, overrides: overrides,
      environment: try selectEnvironment(environment, for: template.name), variables: variables)

    let reference = try scope.render(template.url, in: "url")
    // An absolute URL ignores the base, and so the base's variables too.
    var base: String?
    if let baseURL, URLResolver.split(reference).scheme == nil {
      base = try scope.render(baseURL, in: "baseURL")
    }
    var url: String
    do {
      url = try URLResolver.resolve(reference, against: base)
    } catch {
      throw PrepareError(code: .invalidURL, request: template.name, message: error.message)
    }
    var parameters: [(String, JSONValue)] = []
    for member in template.query.members {
      let place = "query parameter \(JSONSerializer.quote(member.key))"
      parameters.append(
        (try scope.render(member.key, in: place), try scope.render(member.value, in: place)))
    }
    url = URLResolver.appendQuery(QueryEncoder.encode(parameters), to: url)

    var headers = HTTPHeaders()
    for field in template.headers.fields {
      headers[field.name] = try scope.render(
        field.value, in: "header \(JSONSerializer.quote(field.name))")
    }
    if let auth = template.auth, headers["Authorization"] == nil {
      headers["Authorization"] = try scope.authorization(auth)
    }
    var body = RequestBody.empty
    if let template = template.body { body = try scope.render(template) }

    return Request(
      name: template.name,
      method: template.method,
      url: url,
      headers: headers,
      body: body,
      timeouts: Timeouts(idle: template.timeout, deadline: template.deadline),
      priority: template.priority,
      validation: template.validation,
      retry: template.retry ?? retry,
      followRedirects: template.followRedirects,
      maxRedirects: template.maxRedirects,
      insecure: template.insecure,
      group: nil)
  }

  /// The environment named `name`, else the workspace's default one; nil when neither is set.
  private func selectEnvironment(_ name: String?, for request: String) throws(PrepareError)
    -> Environment?
  {
    guard let name = name ?? environment else { return nil }
    if let found = environments.first(where: { $0.name == name }) { return found }
    throw PrepareError(
      code: .unknownEnvironment(name), request: request,
      message: "unknown environment \(JSONSerializer.quote(name)); "
        + (environments.isEmpty
          ? "this workspace has no \"environments\""
          : "use one of \(environments.map(\.name).joined(separator: ", "))"))
  }
}

/// Where `{{variables}}` get their values while one request is prepared.
private struct VariableScope {
  var request: String
  var overrides: [String: String]
  var environment: Environment?
  var variables: [Variable]

  func value(of name: String, in place: String) throws(PrepareError) -> String {
    if let value = overrides[name] ?? environment?.value(of: name) ?? variables.value(of: name) {
      return value
    }
    for (prefix, what, instead) in [
      ("env.", "environment variables ({{env.NAME}})", "--var NAME=…"),
      ("secret.", "secrets ({{secret.NAME}})", "a variable"),
    ] where name.hasPrefix(prefix) {
      throw PrepareError(
        code: .unsupportedVariable(name), request: request,
        message: "{{\(name)}} in \(place): \(what) are not supported yet; use \(instead) for now")
    }
    throw PrepareError(
      code: .undefinedVariable(name), request: request,
      message:
        "undefined variable {{\(name)}} in \(place); "
        + "define it with --var \(name)=… or in \"variables\""
    )
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

  func render(_ body: BodyTemplate) throws(PrepareError) -> RequestBody {
    switch body {
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

  func authorization(_ auth: Auth) throws(PrepareError) -> String {
    switch auth {
    case .basic(let user, let password):
      let credentials = try render(user, in: "auth") + ":" + render(password, in: "auth")
      return "Basic " + Data(credentials.utf8).base64EncodedString()
    case .bearer(let token):
      return "Bearer " + (try render(token, in: "auth"))
    }
  }
}
