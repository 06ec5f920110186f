import Foundation
import RequestEngine
import Workspace

/// Credentials an imported request carries written out (a pasted curl's `-H 'Authorization:
/// Bearer …'`, `-b 'session=…'` or `-u user:password`, a HAR's `Authorization` header, a Postman
/// bearer token) go
/// to the secrets file, and the request says `{{secret.NAME}}` where they were: a workspace file
/// is shared and committed, its secrets file is not (mode 0600, ignored by git). What counts as a
/// header's credential is `CredentialMasking`'s; a value that already uses a `{{variable}}` is
/// left as it is.
///
/// NAME is `token` (an `Authorization` header's or a bearer auth's), `proxy-token` (a
/// `Proxy-Authorization` header's), `cookie` (a `Cookie` header's whole value: a browser's "Copy as
/// cURL" carries the session's), `password` (a basic or digest auth's), or the name of a header
/// or query parameter that `CredentialMasking.isKeyName` says holds a key (`X-Api-Key` →
/// `api-key`, `?access_token=` → `access-token`). A value the secrets
/// file already holds under that name is reused; another value gets `token-2`, `token-3`…, and so
/// does a name whose `REQBENCH_SECRET_NAME` is set to another value (it would win when sent).
///
/// ```swift
/// var imported = try CurlImporter.parse("curl -H 'Authorization: Bearer tok-1' https://api.test/me", file: "paste")
/// let moved = ImportedCredentials.extract(from: &imported, known: secrets)
/// imported.requests[0].template.headers["Authorization"]  // "Bearer {{secret.token}}"
/// moved  // [Moved(name: "token", value: "tok-1")]: for the caller to write to the secrets file
/// ```
public enum ImportedCredentials {
  public struct Moved: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
      self.name = name
      self.value = value
    }
  }

  /// Rewrites the requests of `imported` and adds the secrets' names to `imported.secrets`;
  /// returns the secrets to write (those `known` does not hold yet), in order. `environment` is
  /// the process's, for `REQBENCH_SECRET_NAME`.
  public static func extract(
    from imported: inout ImportedRequests, known: SecretsFile, environment: [String: String] = [:]
  ) -> [Moved] {
    var moved: [Moved] = []
    var movedValues: [String: String] = [:]
    var listed = Set(imported.secrets)
    // The names `reference` has looked at, so each is looked at once however many values come
    // (a HAR of many sessions has many tokens): for each base, the value each name looked at
    // takes (the first such name for a value), and the number to look at next.
    var names: [String: [String: String]] = [:]
    var nextNumber: [String: Int] = [:]
    /// `{{secret.NAME}}` for `value`: the first of `base`, `base-2`, … that holds `value` (in the
    /// secrets file, or moved by this import) or holds nothing, and that the environment
    /// (`REQBENCH_SECRET_…`) sets to nothing else. A name that holds nothing yet is moved.
    func reference(_ base: String, _ value: String) -> String {
      func use(_ name: String) -> String {
        if movedValues[name] == nil, known.value(of: name) == nil {
          moved.append(Moved(name: name, value: value))
          movedValues[name] = value
        }
        if listed.insert(name).inserted { imported.secrets.append(name) }
        return "{{secret.\(name)}}"
      }
      if let name = names[base]?[value] { return use(name) }
      var number = nextNumber[base] ?? 1
      while true {
        let name = number == 1 ? base : "\(base)-\(number)"
        number += 1
        nextNumber[base] = number
        let held = movedValues[name] ?? known.value(of: name)
        let overridden = environment[VariableSources.secretEnvironmentName(name)]
        // The one value this name takes (the environment's, when the name holds none or the
        // same; else what it holds), or any value (neither has one), or none.
        let takes: String?? = overridden.map { held == nil || held == $0 ? $0 : nil } ?? held.map { .some($0) }
        guard case .some(let taker) = takes else {
          names[base, default: [:]][value] = name
          return use(name)
        }
        guard let taker else { continue }
        if names[base]?[taker] == nil { names[base, default: [:]][taker] = name }
        if taker == value { return use(name) }
      }
    }
    func isLiteral(_ value: String) -> Bool { !value.isEmpty && !value.contains("{{") }

    for index in imported.requests.indices {
      var template = imported.requests[index].template
      let credentialFields = imported.requests[index].credentials
      func isCredentialHeader(_ name: String) -> Bool {
        credentialFields.contains { if case .header(let header) = $0 { header.lowercased() == name.lowercased() } else { false } }
      }
      var headers = HTTPHeaders()
      for field in template.headers.fields {
        var value = field.value
        if CredentialMasking.carriesCredential(field.name), isLiteral(value),
          let credential = CredentialMasking.credential(in: value),
          let range = value.range(of: credential, options: .backwards)
        {
          let base = CredentialMasking.isAuthorization(field.name) ? "token" : "proxy-token"
          value.replaceSubrange(range, with: reference(base, credential))
        } else if CookieMasking.isCookieName(field.name), isLiteral(value),
          value.count >= CredentialMasking.minimumLength
        {
          // A browser's "Copy as cURL" sends the site's cookies, the session's among them.
          value = reference("cookie", value)
        } else if CredentialMasking.isKeyName(field.name) || isCredentialHeader(field.name), isLiteral(value),
          let key = CredentialMasking.key(in: value)
        {
          value = reference(secretName(for: field.name), key)
        }
        headers.add(field.name, value)
      }
      template.headers = headers
      // A key in the query (`?api_key=…`) too.
      for member in template.query.members {
        guard CredentialMasking.isKeyName(member.key) || credentialFields.contains(.query(member.key)),
          case .string(let value) = member.value, isLiteral(value),
          let key = CredentialMasking.key(in: value)
        else { continue }
        template.query[member.key] = .string(reference(secretName(for: member.key), key))
      }
      switch template.auth {
      case .basic(let user, let password)? where isLiteral(password):
        template.auth = .basic(user: user, password: reference("password", password))
      case .digest(let user, let password)? where isLiteral(password):
        template.auth = .digest(user: user, password: reference("password", password))
      case .bearer(let token)? where isLiteral(token) && token.count >= CredentialMasking.minimumLength:
        template.auth = .bearer(reference("token", token))
      default:
        break
      }
      imported.requests[index].template = template
    }
    // Variables too (a Postman environment's): those the source marks secret, and those whose
    // name says they hold a key (`apiKey`, `token`); the value becomes `{{secret.NAME}}`, which
    // a variable may hold (it is filled in, and masked, when sent).
    func moveVariables(_ variables: [Variable]) -> [Variable] {
      variables.map { variable in
        guard imported.sensitiveVariables.contains(variable.name) || CredentialMasking.isKeyName(variable.name),
          isLiteral(variable.value), let key = CredentialMasking.key(in: variable.value)
        else { return variable }
        return Variable(name: variable.name, value: reference(secretName(for: variable.name), key))
      }
    }
    imported.variables = moveVariables(imported.variables)
    imported.environments = imported.environments.map { Environment(name: $0.name, variables: moveVariables($0.variables)) }
    return moved
  }

  /// The secret's name for a key header or parameter: its name lower-cased, `_` as `-`, without
  /// an `x-` prefix (`X-Api-Key` and `api_key` → `api-key`, `access_token` → `access-token`),
  /// `api-key` when that cannot name a variable.
  static func secretName(for name: String) -> String {
    var lowered = name.lowercased().replacingOccurrences(of: "_", with: "-")
    if lowered.hasPrefix("x-") { lowered.removeFirst(2) }
    return Template.isValidName(lowered) ? lowered : "api-key"
  }
}
