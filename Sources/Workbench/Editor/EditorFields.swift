import Foundation
import RequestEngine
import Workspace

/// One line of the editor: a field of the selected request, as text one can edit in place, or
/// (the body's and the auth's type) a choice from a list.
public struct EditorField: Sendable, Equatable {
  public enum Kind: Sendable, Equatable {
    case name, method, url
    case query(Int), addQuery
    case header(Int), addHeader
    /// The body's type (a list); `bodyFile` the path of a `file` body.
    case body, bodyFile
    /// The auth's type (a list), then its credentials: user and password (basic, digest) or
    /// the token (bearer); an oauth2 block's grant and token endpoint (read-only, not a secret).
    case auth, authUser, authPassword, authToken, authGrant
    case timeout, deadline, priority, status, json, cache, dedup, download, tls
    /// Whether reqbench asks for compressed responses; the proxy and the hosts that skip it.
    case compressed, proxy, noProxy
  }

  public var kind: Kind
  public var label: String
  /// The template text (with `{{variables}}`).
  public var value: String
  /// False for a header or query parameter switched off (kept, not sent; space switches it).
  public var enabled = true

  /// How `e` (and Enter) edit the field.
  public enum Edit: Sendable, Equatable {
    /// A line edited in place.
    case inPlace
    /// One of a list: the body's type, the auth's type.
    case choice(ChoiceList.Purpose)
  }

  public var edit: Edit {
    switch kind {
    case .body: .choice(.bodyKind)
    case .auth: .choice(.authKind)
    default: .inPlace
    }
  }

  /// A header or query parameter, which space switches off and on.
  public var isSwitchable: Bool {
    switch kind {
    case .query, .header: true
    default: false
    }
  }

  /// A secret-like value (a password, a token) the editor shows as `••••` until it is edited,
  /// unless it is a `{{variable}}` reference.
  public var isMasked: Bool { (kind == .authPassword || kind == .authToken) && !value.contains("{{") }
}

/// Why an edited value was not taken; says what to write instead.
public struct EditError: Error, Sendable, Equatable {
  public var message: String
}

extension RequestTemplate {
  /// The fields the editor shows, in order.
  public var editorFields: [EditorField] {
    var fields = [
      EditorField(kind: .name, label: "Name", value: name),
      EditorField(kind: .method, label: "Method", value: method.rawValue),
      EditorField(kind: .url, label: "URL", value: url),
    ]
    for (i, member) in query.members.enumerated() {
      let value = member.value.stringValue ?? JSONSerializer.compact(member.value)
      fields.append(
        EditorField(kind: .query(i), label: "Query", value: "\(member.key)=\(value)", enabled: isEnabled(query: member.key)))
    }
    fields.append(EditorField(kind: .addQuery, label: "Query", value: ""))
    for (i, field) in headers.fields.enumerated() {
      fields.append(
        EditorField(kind: .header(i), label: "Header", value: "\(field.name): \(field.value)", enabled: isEnabled(header: field.name)))
    }
    fields.append(EditorField(kind: .addHeader, label: "Header", value: ""))
    fields.append(EditorField(kind: .body, label: "Body", value: bodySummary))
    if case .file(let path, _) = body { fields.append(EditorField(kind: .bodyFile, label: "  File", value: path)) }
    fields.append(EditorField(kind: .auth, label: "Auth", value: authKind == .none ? "" : authKind.rawValue))
    switch auth {
    case .basic(let user, let password), .digest(let user, let password):
      fields.append(EditorField(kind: .authUser, label: "  User", value: user))
      fields.append(EditorField(kind: .authPassword, label: "  Password", value: password))
    case .bearer(let token):
      fields.append(EditorField(kind: .authToken, label: "  Token", value: token))
    case .oauth2(let settings):
      // Read-only here: the block is edited in the file.
      fields.append(EditorField(kind: .authGrant, label: "  Grant", value: settings.grant.name + " · " + settings.tokenURL))
    case nil:
      break
    }
    fields.append(EditorField(kind: .timeout, label: "Timeout", value: Self.seconds(timeout)))
    fields.append(EditorField(kind: .deadline, label: "Deadline", value: deadline.map(Self.seconds) ?? ""))
    fields.append(EditorField(kind: .priority, label: "Priority", value: priority.name))
    fields.append(EditorField(kind: .status, label: "Status", value: validation.statusDescription))
    fields.append(
      EditorField(kind: .json, label: "JSON shape", value: validation.json.map(Self.shapeText) ?? ""))
    fields.append(EditorField(kind: .cache, label: "Cache", value: cache.map(Self.cacheText) ?? ""))
    fields.append(EditorField(kind: .dedup, label: "Dedup", value: dedup ? "on" : "off"))
    fields.append(EditorField(kind: .download, label: "Download", value: download.map(Self.downloadText) ?? ""))
    fields.append(EditorField(kind: .tls, label: "TLS", value: tls.map(Self.tlsText) ?? ""))
    fields.append(EditorField(kind: .compressed, label: "Compressed", value: compressed ? "on" : "off"))
    fields.append(EditorField(kind: .proxy, label: "Proxy", value: proxy ?? ""))
    fields.append(EditorField(kind: .noProxy, label: "No proxy", value: noProxy ?? ""))
    return fields
  }

  /// `downloads/big.bin sha256=… trust`: the target, then the checks that are set.
  static func downloadText(_ download: DownloadTemplate) -> String {
    var parts = [download.to]
    if let sha256 = download.sha256 { parts.append("sha256=" + sha256) }
    if download.trustLength { parts.append("trust") }
    return parts.joined(separator: " ")
  }

  /// `ca=certs/ca.pem pin=sha256//… cert=certs/me.pem key=certs/me.key`: the settings that are set.
  static func tlsText(_ tls: TLSSettings) -> String {
    [
      tls.caFile.map { "ca=" + $0 }, tls.pinnedPublicKey.map { "pin=" + $0 },
      tls.clientCertificate.map { "cert=" + $0 }, tls.clientKey.map { "key=" + $0 },
    ].compactMap { $0 }.joined(separator: " ")
  }

  /// A multipart part as `-F` writes it: `name=value` or `name=@path;type=…;filename=…`.
  static func partText(_ field: MultipartField) -> String {
    var text = field.name + "=" + (field.file.map { "@" + $0 } ?? field.value ?? "")
    if let type = field.type { text += ";type=" + type }
    if let filename = field.filename { text += ";filename=" + filename }
    return text
  }

  /// `300 s cacheThenNetwork revalidate v2`: seconds, then the mode and flags that differ from
  /// the defaults.
  static func cacheText(_ policy: CachePolicy) -> String {
    var parts = [seconds(policy.seconds) + " s"]
    if policy.mode != .cacheElseNetwork { parts.append(policy.mode.rawValue) }
    if policy.revalidate { parts.append("revalidate") }
    if policy.version != 0 { parts.append("v\(policy.version)") }
    return parts.joined(separator: " ")
  }

  var bodySummary: String {
    switch body {
    case nil: return ""
    case .json(let value): return "json " + JSONSerializer.compact(value)
    case .form(let fields): return "form " + JSONSerializer.compact(.object(fields))
    case .text(let text, let type): return "text" + (type.map { " (\($0))" } ?? "") + " " + text
    case .file(_, let type): return "file" + (type.map { " (\($0))" } ?? "")
    case .multipart(let fields): return "multipart " + fields.map(Self.partText).joined(separator: ", ")
    }
  }

  static func seconds(_ value: Double) -> String {
    value == value.rounded() ? String(Int(value)) : String(value)
  }

  static func shapeText(_ shape: JSONShape) -> String {
    func json(_ shape: JSONShape) -> JSONValue {
      switch shape {
      case .type(let type): return .string(type.rawValue)
      case .array(let element): return .array(element.map { [json($0)] } ?? [])
      case .object(let members, let order):
        return .object(JSONObject(order.compactMap { key in members[key].map { (key: key, value: json($0)) } }))
      }
    }
    return JSONSerializer.compact(json(shape))
  }
}
