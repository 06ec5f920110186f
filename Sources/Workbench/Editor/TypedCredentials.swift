import Formats
import RequestEngine
import Workspace

/// A credential typed into the editor goes where an imported one goes: a literal that the import
/// rule (`ImportedCredentials`) calls a credential, typed into a header (`Authorization: Bearer
/// …`, `X-Api-Key: …`, `Cookie: …`), a query parameter (`api_key=…`, on its line or in the URL),
/// a password or a bearer token, is written to the secrets file and the field says
/// `{{secret.NAME}}`. Only the field edited is looked at: what the request held before is left
/// as it was.
extension AppState {
  /// `edited` with the credential of the field `kind` moved (the commands write it), or as it is.
  mutating func movingTypedCredential(_ kind: EditorField.Kind, before: RequestTemplate, edited: RequestTemplate)
    -> (template: RequestTemplate, writes: [Command], moved: [String])
  {
    if kind == .url { return movingURLKeys(edited) }
    var scratch = RequestTemplate(name: edited.name, url: edited.url)
    let index: Int
    switch kind {
    case .header(let i):
      index = i
    case .addHeader where edited.headers.count > before.headers.count:
      index = edited.headers.count - 1
    case .query(let i):
      index = i
    case .addQuery where edited.query.members.count > before.query.members.count:
      index = edited.query.members.count - 1
    case .authPassword, .authToken:
      index = 0
    default:
      return (edited, [], [])
    }
    switch kind {
    case .header, .addHeader:
      guard edited.headers.fields.indices.contains(index) else { return (edited, [], []) }
      let field = edited.headers.fields[index]
      scratch.headers = HTTPHeaders([(field.name, field.value)])
    case .query, .addQuery:
      guard edited.query.members.indices.contains(index) else { return (edited, [], []) }
      let member = edited.query.members[index]
      scratch.query = JSONObject([(member.key, member.value)])
    default:
      scratch.auth = edited.auth
    }
    var imported = ImportedRequests(requests: [ImportedRequest(template: scratch, location: nil)])
    let moved = ImportedCredentials.extract(from: &imported, known: sources.secrets, environment: sources.processEnvironment)
    guard !moved.isEmpty || imported.requests[0].template != scratch else { return (edited, [], []) }
    let rewritten = imported.requests[0].template
    var result = edited
    switch kind {
    case .header, .addHeader:
      var fields = edited.headers.fields
      fields[index].value = rewritten.headers.fields[0].value
      result.headers = HTTPHeaders(fields.map { ($0.name, $0.value) })
    case .query, .addQuery:
      var members = edited.query.members
      members[index].value = rewritten.query.members[0].value
      result.query = JSONObject(members)
    default:
      result.auth = rewritten.auth
    }
    secretsBeingMoved.formUnion(moved.map(\.name))
    return (result, moved.map { .setSecret(name: $0.name, value: $0.value) }, moved.map { "secret.\($0.name)" })
  }

  /// A URL typed with a key in its query (`…?api_key=…`): that parameter's value is moved, the
  /// rest of the URL left as typed.
  private mutating func movingURLKeys(_ edited: RequestTemplate) -> (template: RequestTemplate, writes: [Command], moved: [String]) {
    var parts = URLResolver.split(edited.url)
    guard let query = parts.query, !query.isEmpty else { return (edited, [], []) }
    var pieces = query.split(separator: "&", omittingEmptySubsequences: false).map(String.init)
    var scratch = RequestTemplate(name: edited.name, url: edited.url)
    var keyed: [(piece: Int, name: String)] = []
    for parameter in QueryDecoder.keyParameters(in: query) where scratch.query[parameter.name] == nil {
      // As typed (percent-encoded): the URL renders it back where it was.
      scratch.query[parameter.name] = .string(parameter.value)
      keyed.append((parameter.piece, parameter.name))
    }
    guard !keyed.isEmpty else { return (edited, [], []) }
    var imported = ImportedRequests(requests: [ImportedRequest(template: scratch, location: nil)])
    let moved = ImportedCredentials.extract(from: &imported, known: sources.secrets, environment: sources.processEnvironment)
    let rewritten = imported.requests[0].template
    var changed = false
    for (i, name) in keyed {
      guard case .string(let value)? = rewritten.query[name], value != scratch.query[name]?.stringValue else { continue }
      pieces[i] = name + "=" + value
      changed = true
    }
    guard changed else { return (edited, [], []) }
    parts.query = pieces.joined(separator: "&")
    var result = edited
    result.url = URLResolver.join(parts)
    secretsBeingMoved.formUnion(moved.map(\.name))
    return (result, moved.map { .setSecret(name: $0.name, value: $0.value) }, moved.map { "secret.\($0.name)" })
  }
}
