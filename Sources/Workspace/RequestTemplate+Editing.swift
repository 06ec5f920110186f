import RequestEngine

/// A body's type, as the editor's list offers them.
public enum BodyKind: String, Sendable, CaseIterable {
  case none, json, form, multipart, text, file
}

/// An auth type, as the editor's list offers them.
public enum AuthKind: String, Sendable, CaseIterable {
  case none, basic, bearer, digest, oauth2

  /// The kinds the editor's list offers: an OAuth 2.0 block is written in the file (its fields
  /// depend on the grant), and shown by the editor.
  public static let chosenInEditor: [AuthKind] = [.none, .basic, .bearer, .digest]
}

extension BodyTemplate {
  public var bodyKind: BodyKind {
    switch self {
    case .json: .json
    case .form: .form
    case .multipart: .multipart
    case .text: .text
    case .file: .file
    }
  }

  /// The body for a text typed (or written in `$EDITOR`) for a request whose body has no type
  /// yet: a JSON object or array becomes a `json` body (sent as `application/json`); any other
  /// text a `text` body without the one line break editors add at the end; an empty text no
  /// body.
  public static func typed(_ text: String) -> BodyTemplate? {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    if trimmed.isEmpty { return nil }
    if trimmed.hasPrefix("{") || trimmed.hasPrefix("["), let value = try? JSONParser.parse(trimmed) {
      return .json(value)
    }
    var body = text
    if body.hasSuffix("\r\n") {
      body.removeLast()
    } else if body.hasSuffix("\n") {
      body.removeLast()
    }
    return .text(body, contentType: nil)
  }

  /// A value's text in a form field or a multipart part: strings as they are, other scalars as
  /// written, objects and arrays as compact JSON.
  private static func fieldText(_ value: JSONValue) -> String {
    switch value {
    case .string(let text): text
    case .number(let literal): literal
    case .bool(let flag): flag ? "true" : "false"
    case .null: ""
    default: JSONSerializer.compact(value)
    }
  }

  /// The body's fields as name and value, when it has any: a form's, a JSON object's members, a
  /// multipart body's text parts.
  private var fields: [(key: String, value: JSONValue)] {
    switch self {
    case .form(let fields): fields.members
    case .json(.object(let object)): object.members
    case .multipart(let parts): parts.compactMap { part in part.value.map { (part.name, .string($0)) } }
    default: []
    }
  }

  /// This body as another kind, keeping what that kind can hold (see
  /// `RequestTemplate.setBodyKind`).
  func converted(to kind: BodyKind, file: String?) throws(WorkspaceEditError) -> BodyTemplate? {
    if kind == bodyKind, file == nil { return self }
    switch kind {
    case .none:
      return nil
    case .json:
      switch self {
      case .text(let text, _):
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return .json(.object(JSONObject())) }
        return .json((try? JSONParser.parse(trimmed)) ?? .string(text))
      default:
        return .json(.object(JSONObject(fields)))
      }
    case .form:
      if case .text(let text, _) = self, let decoded = QueryDecoder.object(text, form: true) {
        return .form(decoded)
      }
      return .form(JSONObject(fields.map { member in
        switch member.value {
        case .string, .number, .bool: member
        default: (member.key, .string(BodyTemplate.fieldText(member.value)))
        }
      }))
    case .multipart:
      if case .file(let path, let type) = self {
        return .multipart([MultipartField(name: "file", file: path, type: type)])
      }
      return .multipart(fields.map { MultipartField(name: $0.key, value: BodyTemplate.fieldText($0.value)) })
    case .text:
      switch self {
      case .json(let value): return .text(JSONSerializer.pretty(value), contentType: "application/json")
      case .form(let fields):
        let pairs = fields.members.map { ($0.key, BodyTemplate.fieldText($0.value)) }
        return .text(QueryEncoder.encode(pairs), contentType: RequestDraft.formType)
      default: return .text("", contentType: nil)
      }
    case .file:
      var path = file
      var contentType: String?
      switch self {
      case .file(let old, let type):
        path = path ?? old
        contentType = type
      case .multipart(let parts) where parts.count == 1 && parts[0].file != nil:
        path = path ?? parts[0].file
        contentType = parts[0].type
      case .text(_, let type):
        contentType = type
      default: break
      }
      guard let path else {
        throw WorkspaceEditError("a file body needs the file's path, relative to the workspace's folder")
      }
      if let problem = WorkspacePaths.problem(with: path) { throw WorkspaceEditError(problem) }
      return .file(path, contentType: contentType)
    }
  }
}

extension Auth {
  public var authKind: AuthKind {
    switch self {
    case .basic: .basic
    case .bearer: .bearer
    case .digest: .digest
    case .oauth2: .oauth2
    }
  }
}

extension RequestTemplate {
  public var bodyKind: BodyKind { body?.bodyKind ?? .none }
  public var authKind: AuthKind { auth?.authKind ?? .none }

  /// Changes the body's type, keeping what the new type can hold:
  /// - `json` from text that parses is that JSON (other text a JSON string); from a form or
  ///   multipart text parts an object of the fields; else `{}`;
  /// - `form` from a JSON object or multipart text parts the fields (nested values as compact
  ///   JSON); from urlencoded text its fields; else no fields;
  /// - `multipart` from a form or JSON object one text part per field; from a file body one file
  ///   part `file`; else no parts;
  /// - `text` from JSON its pretty text (type `application/json`), from a form its urlencoded
  ///   text (type `application/x-www-form-urlencoded`), so the same bytes are sent; else empty;
  /// - `file` the path given, else the file of a file body or of a multipart body's single file
  ///   part (a path is needed: refused without one);
  /// - `none` no body.
  /// A `Content-Type` header goes when the new type is json, form or multipart, which send their
  /// own (a multipart type must carry the boundary the engine writes).
  public mutating func setBodyKind(_ kind: BodyKind, file: String? = nil) throws(WorkspaceEditError) {
    if kind == .file, body == nil, file == nil {
      throw WorkspaceEditError("a file body needs the file's path, relative to the workspace's folder")
    }
    let converted = try (body ?? .json(.object(JSONObject()))).converted(to: kind, file: file)
    body = body == nil && kind == .text ? .text("", contentType: nil) : converted
    if [.json, .form, .multipart].contains(kind) { headers["Content-Type"] = nil }
  }

  /// Changes the auth type: basic and digest keep each other's user and password; a new one
  /// starts empty; `none` removes it.
  public mutating func setAuthKind(_ kind: AuthKind) {
    let credentials: (user: String, password: String) =
      switch auth {
      case .basic(let user, let password), .digest(let user, let password): (user, password)
      default: ("", "")
      }
    switch kind {
    case .none: auth = nil
    case .basic: auth = .basic(user: credentials.user, password: credentials.password)
    case .digest: auth = .digest(user: credentials.user, password: credentials.password)
    case .oauth2:
      // Made in the file, not in the editor's list (`AuthKind.chosenInEditor`): kept as it is.
      return
    case .bearer:
      if case .bearer = auth { return }
      auth = .bearer("")
    }
  }
}
