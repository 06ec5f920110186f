import Foundation
import RequestEngine
import Workspace

/// Writes request templates as an `.http` file (JetBrains HTTP Client, VS Code REST Client),
/// `{{variables}}` kept, so that `HTTPFileImporter` reads back the same templates.
///
/// ```swift
/// HTTPFileExporter.text(for: [workspace.request(named: "create")!], variables: workspace.variables)
/// ```
/// ```http
/// @host = http://127.0.0.1:8080
///
/// ### create
/// POST {{host}}/users
///     ?notify=1
/// Content-Type: application/json
///
/// {"name":"Ada"}
/// ```
/// - The workspace variables the templates use come first, as `@name = value` lines.
/// - Query parameters go on `?`/`&` continuation lines, percent-encoded, placeholders kept.
/// - A body's content type is written as a `Content-Type` header unless one is set (a text body
///   without one says `text/plain; charset=utf-8`, what reqbench sends); JSON bodies are written
///   compact and forms `a=1&b=2`, the bytes reqbench sends, since the editors send a body as
///   written.
/// - Basic auth is written `Authorization: Basic user password` (the clients' unencoded spelling,
///   read back as `auth`); bearer auth as its `Authorization: Bearer …` header, which reads back as
///   a header.
/// - `followRedirects: false` is `# @no-redirect`, a timeout other than 30 s `# @timeout N`.
/// - A file body is a `< path` line (`Content-Type: application/octet-stream` unless it has a
///   type); a multipart body is `multipart/form-data; boundary=reqbench-boundary`, each part with
///   its `Content-Disposition` (the file's own name as `filename` unless one is set), its
///   `Content-Type` when it has one, and a `< path` line or the value's text. Paths stay relative
///   to the workspace's folder, as the clients read them relative to the `.http` file.
/// - A download is `>>! path` after the body (the clients' "save the response, overwriting").
/// - What the format cannot say (priority, deadline, validate, cache, retry, insecure, dedup,
///   useCDN, maxRedirects, tls, throttle, a download's `sha256` and `trustLength`, bearer auth) is
///   a `# @reqbench {…}` comment line of the request's own JSON keys, which other clients ignore
///   and `HTTPFileImporter` reads back.
/// A query written inside `url` merges with `query` when read back. A text part whose value is
/// one `< path` line, or holds a line that is the boundary, reads back as something else.
///
/// `text(for:in:environment:)` makes the file self-contained for other clients: relative URLs
/// become absolute (`{{baseURL}}/users`, `{{cdnURL}}/img`), the workspace's `defaults` are written
/// into each request with a relative URL, and every variable needed (from the environment, then
/// `variables`, and the ones their values use) is an `@name = value` line. Secrets stay
/// `{{secret.NAME}}` placeholders.
public enum HTTPFileExporter {
  /// The requests of `workspace` as a file that runs on its own (see above). Throws for an
  /// unknown environment.
  public static func text(
    for templates: [RequestTemplate], in workspace: Workspace, environment: String? = nil
  ) throws(PrepareError) -> String {
    var values: [String: String] = [:]
    for variable in workspace.variables { values[variable.name] = variable.value }
    if let name = environment ?? workspace.environment {
      guard let selected = workspace.environments.first(where: { $0.name == name }) else {
        throw PrepareError(
          code: .unknownEnvironment(name), request: templates.first?.name ?? "",
          message: "unknown environment \(JSONSerializer.quote(name)); "
            + (workspace.environments.isEmpty
              ? "this workspace has no \"environments\""
              : "use one of \(workspace.environments.map(\.name).joined(separator: ", "))"))
      }
      for variable in selected.variables { values[variable.name] = variable.value }
    }
    var exported: [RequestTemplate] = []
    var bases: [(name: String, value: String)] = []
    for template in templates {
      // Switched-off headers and query parameters are not sent, so not exported.
      var copy = template
      copy.query = template.sentQuery
      copy.headers = template.sentHeaders
      copy.switchedOff = SwitchedOff()
      // Relative or not is decided on the URL with its variables filled in, as `prepare` does
      // (`{{host}}/me` is absolute when `host` is).
      let filledURL = fill(template.url, values: values, depth: 0)
      let isRelative =
        filledURL.map { URLResolver.split($0).scheme == nil } ?? !template.url.hasPrefix("{{")
      guard isRelative else {
        exported.append(copy)
        continue
      }
      let (baseName, base) = template.useCDN ? ("cdnURL", workspace.cdnURL) : ("baseURL", workspace.baseURL)
      if let base {
        copy.url = absolute(template.url, base: base, named: baseName, values: values)
        if copy.url.hasPrefix("{{\(baseName)}}"), !bases.contains(where: { $0.name == baseName }) {
          bases.append((baseName, base))
        }
      }
      for member in workspace.defaults.sentQuery.members where copy.query[member.key] == nil {
        copy.query[member.key] = member.value
      }
      for field in workspace.defaults.sentHeaders.fields where copy.headers[field.name] == nil {
        copy.headers[field.name] = field.value
      }
      exported.append(copy)
    }
    for (name, value) in bases { values[name] = value }
    // The variables used, then the ones their values use, each defined before it is used.
    var order: [String] = []
    var visiting = Set<String>()
    func visit(_ name: String) {
      guard !order.contains(name), !visiting.contains(name), let value = values[name] else { return }
      visiting.insert(name)
      for inner in (try? Template(value))?.variableNames ?? [] { visit(inner) }
      visiting.remove(name)
      order.append(name)
    }
    for name in exported.flatMap(\.variableNames) { visit(name) }
    return text(
      for: exported, variables: order.map { Variable(name: $0, value: values[$0] ?? "") },
      onlyUsed: false)
  }

  /// `text` with its variables filled in (nested ones too), or nil when one is not in `values`
  /// (secrets and process variables are never looked up).
  static func fill(_ text: String, values: [String: String], depth: Int) -> String? {
    guard depth < 10, let template = try? Template(text) else { return nil }
    var out = ""
    for part in template.parts {
      switch part {
      case .text(let text): out += text
      case .variable(let inner):
        guard let value = values[inner], let filled = fill(value, values: values, depth: depth + 1)
        else { return nil }
        out += filled
      }
    }
    return out
  }

  /// `reference` resolved against `base` as reqbench resolves it, written as `{{name}}` plus the
  /// rest when the result extends the base (`{{baseURL}}/users/{{id}}`), else as the absolute URL
  /// (the base's variables filled in). Placeholders in `reference` are kept.
  static func absolute(_ reference: String, base: String, named name: String, values: [String: String]) -> String {
    let naive = "{{\(name)}}" + reference
    guard let filledBase = fill(base, values: values, depth: 0), let template = try? Template(reference) else { return naive }
    // Placeholders stand in as tokens the resolver keeps as they are.
    var tokens: [(token: String, text: String)] = []
    let withTokens = template.parts.map { part -> String in
      switch part {
      case .text(let text): return text
      case .variable(let inner):
        let token = "rqbvar\(tokens.count)x"
        tokens.append((token, "{{\(inner)}}"))
        return token
      }
    }.joined()
    guard var resolved = try? URLResolver.resolve(withTokens, against: filledBase) else { return naive }
    let trimmedBase = filledBase.trimmingSpaces()
    if resolved.hasPrefix(trimmedBase) {
      resolved = "{{\(name)}}" + resolved.dropFirst(trimmedBase.count)
    }
    for (token, text) in tokens.reversed() { resolved = resolved.replacingOccurrences(of: token, with: text) }
    return resolved
  }

  public static func text(for templates: [RequestTemplate], variables: [Variable] = []) -> String {
    text(for: templates, variables: variables, onlyUsed: true)
  }

  static func text(for templates: [RequestTemplate], variables: [Variable], onlyUsed: Bool) -> String {
    var out = ""
    // The variables used, each once with the value that wins (the last), in workspace order.
    let used = Set(templates.flatMap(\.variableNames))
    let lines = variables.enumerated().filter { index, variable in
      (!onlyUsed || used.contains(variable.name))
        && variables.lastIndex(where: { $0.name == variable.name }) == index
    }.map { "@\($0.element.name) = \($0.element.value)" }
    if !lines.isEmpty { out += lines.joined(separator: "\n") + "\n\n" }
    out += templates.map(request).joined(separator: "\n")
    return out
  }

  static func request(_ template: RequestTemplate) -> String {
    var lines = ["### \(template.name)"]
    if let extras = extras(template) { lines.append("# @reqbench " + JSONSerializer.compact(.object(extras))) }
    if !template.followRedirects { lines.append("# @no-redirect") }
    if template.timeout != RequestTemplate.defaultTimeout {
      lines.append("# @timeout \(CurlExporter.seconds(template.timeout))")
    }
    lines.append("\(template.method.rawValue) \(template.url)")
    var separator = template.url.contains("?") ? "&" : "?"
    for member in template.sentQuery.members {
      for pair in queryPairs(member.key, member.value) {
        lines.append("    \(separator)\(pair)")
        separator = "&"
      }
    }
    for field in template.sentHeaders { lines.append("\(field.name): \(field.value)") }
    if let auth = template.auth, !template.sentHeaders.contains("Authorization") {
      switch auth {
      case .basic(let user, let password):
        lines.append(
          "Authorization: Basic "
            + (user.contains(" ") ? "\(user):\(password)" : "\(user) \(password)"))
      case .bearer(let token):
        lines.append("Authorization: Bearer \(token)")
      case .digest(let user, let password):
        // JetBrains' HTTP Client answers the challenge for `Digest user password`.
        lines.append("Authorization: Digest \(user) \(password)")
      case .oauth2:
        // The token is reqbench's to get: the request goes without one.
        break
      }
    }
    if let body = template.body {
      if !template.sentHeaders.contains("Content-Type") {
        switch body {
        case .json: lines.append("Content-Type: application/json")
        case .form: lines.append("Content-Type: \(RequestDraft.formType)")
        case .text(_, let type): lines.append("Content-Type: \(type ?? "text/plain; charset=utf-8")")
        case .file(_, let type): lines.append("Content-Type: \(type ?? "application/octet-stream")")
        case .multipart: lines.append("Content-Type: multipart/form-data; boundary=\(multipartBoundary)")
        }
      }
      lines.append("")
      switch body {
      // Compact, as reqbench sends it: the editors send the body as written.
      case .json(let value): lines.append(JSONSerializer.compact(value))
      case .form(let fields):
        lines.append(
          fields.members.map { member in
            PlaceholderEncoding.encode(member.key) + "="
              + PlaceholderEncoding.encode(formText(member.value))
          }.joined(separator: "&"))
      case .text(let text, _): lines.append(text)
      // `< path` reads a file (REST Client, JetBrains); paths are relative to the workspace.
      case .file(let path, _): lines.append("< " + path)
      case .multipart(let fields):
        for field in fields {
          lines.append("--" + multipartBoundary)
          var disposition = "Content-Disposition: form-data; name=\(quoted(field.name))"
          if let filename = field.filename ?? field.file.map({ ($0 as NSString).lastPathComponent }) {
            disposition += "; filename=\(quoted(filename))"
          }
          lines.append(disposition)
          if let type = field.type { lines.append("Content-Type: \(type)") }
          lines.append("")
          lines.append(field.file.map { "< " + $0 } ?? field.value ?? "")
        }
        lines.append("--" + multipartBoundary + "--")
      }
    }
    if let download = template.download {
      lines.append("")
      lines.append(">>! " + download.to)
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// The keys the `.http` text does not carry: the request's JSON (as a workspace would write it)
  /// without name, method, URL, query, headers, body, timeout and redirects; auth only when it is
  /// bearer auth written as a header; a download only when it has more than its target.
  static func extras(_ template: RequestTemplate) -> JSONObject? {
    var fresh = template
    fresh.source = JSONObject()
    guard var object = fresh.json.objectValue else { return nil }
    for key in ["name", "method", "url", "query", "headers", "body", "timeout", "followRedirects"] {
      object[key] = nil
    }
    if case .bearer? = template.auth, !template.sentHeaders.contains("Authorization") {
    } else {
      object["auth"] = nil
    }
    if let download = template.download, download.sha256 == nil, !download.trustLength {
      object["download"] = nil
    }
    return object.isEmpty ? nil : object
  }

  /// A `Content-Disposition` parameter value in double quotes, `"` and `\` escaped.
  static func quoted(_ text: String) -> String {
    "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      + "\""
  }

  /// The boundary written into exported multipart bodies.
  static let multipartBoundary = "reqbench-boundary"


  /// `key=value` pieces as reqbench sends them, placeholders kept in string values.
  static func queryPairs(_ key: String, _ value: JSONValue) -> [String] {
    switch value {
    case .string(let text):
      [PlaceholderEncoding.encode(key) + "=" + PlaceholderEncoding.encode(text)]
    case .null: [PlaceholderEncoding.encode(key)]
    default: QueryEncoder.encode([(key, value)]).split(separator: "&").map(String.init)
    }
  }

  /// A form value as reqbench sends it.
  static func formText(_ value: JSONValue) -> String {
    switch value {
    case .string(let text): text
    case .number(let literal): literal
    case .bool(let flag): flag ? "true" : "false"
    default: JSONSerializer.compact(value)
    }
  }
}
