import RequestEngine
import Workspace

/// Postman's `auth` objects, as a collection, a folder or a request declares them: see
/// `PostmanImporter` (what is imported and how it is inherited).
extension PostmanImporter {
  /// Authentication as a collection, folder or request declares it.
  enum AuthChoice: Equatable {
    case none
    case auth(Auth)
    /// `apikey`: a header (or, `in: query`, a query parameter) named `key` with the key.
    case apiKey(CredentialField, value: String)
    case unsupported(String)
  }
}

extension PostmanImporter.Reader {
  /// One `auth` object: basic, bearer, digest, apikey, none, or a kind reqbench does not have.
  func auth(_ value: JSONValue, at path: JSONPath) throws(ImportError) -> PostmanImporter.AuthChoice {
    if value == .null { return .none }
    guard let type = value["type"]?.stringValue else {
      throw error("\"auth\" needs a \"type\"", at: path)
    }
    // v2.1 lists `[{"key": "username", "value": "u"}]`; v2.0 wrote `{"username": "u"}`.
    func field(_ kind: String, _ key: String) -> String? {
      let content = value[kind]
      if let list = content?.arrayValue {
        return list.last(where: { $0["key"]?.stringValue == key }).map {
          Self.text($0["value"])
        }
      }
      return content?[key].map { Self.text($0) }
    }
    switch type {
    case "noauth": return .none
    case "basic":
      return .auth(
        .basic(user: field("basic", "username") ?? "", password: field("basic", "password") ?? "")
      )
    case "bearer":
      return .auth(.bearer(field("bearer", "token") ?? ""))
    case "digest":
      return .auth(
        .digest(user: field("digest", "username") ?? "", password: field("digest", "password") ?? ""))
    case "apikey":
      let name = (field("apikey", "key") ?? "").trimmingSpaces()
      guard !name.isEmpty else { return .unsupported("apikey without a key name") }
      let value = field("apikey", "value") ?? ""
      return .apiKey(field("apikey", "in") == "query" ? .query(name) : .header(name), value: value)
    default:
      return .unsupported(type)
    }
  }
}
