import RequestEngine
import Workspace

/// Reads an Insomnia export: the v4 export (`_type: export`, `__export_format: 4`, JSON or YAML:
/// a flat `resources` list whose `parentId`s make the tree) and the v5 collection file (`type:
/// collection.insomnia.rest/5.0`, YAML: a `collection` tree with `children`, `environments`).
///
/// - Requests keep their folders (`request_group`s, or v5 items with `children`) as name
///   prefixes, `Users/Get user`, in Insomnia's order (`metaSortKey`, `sortKey`).
/// - The URL is kept as written; enabled `parameters` are added to it, encoded as reqbench
///   encodes a query. Headers keep their order; disabled ones are switched off.
/// - Bodies: text (`mimeType` and `text`) is sent as written, with `mimeType` as its content type
///   when no `Content-Type` header is set (GraphQL bodies, already JSON, as `application/json`);
///   form and multipart `params`; a file (`fileName`) as a file body.
/// - Auth: basic, bearer (another `prefix` is written as the `Authorization` header), digest, API
///   key, OAuth 2.0 (client credentials, password, authorization code); other kinds are left out
///   with a warning. A folder's auth goes to its requests that have none.
/// - `{{ _.name }}` (and `{{ name }}`) are reqbench's `{{name}}`; template tags (`{% response … %}`,
///   `{% uuid %}`…) cannot be filled in: their request is left out with a warning.
/// - The base environment's values are variables (nested objects flattened to `a.b`), the
///   sub-environments environments; a folder's environment values are variables too.
/// - gRPC and WebSocket requests, and a request that cannot be imported, are left out with a
///   warning naming them; the others are kept.
public enum InsomniaImporter {
  public static func parse(_ bytes: [UInt8], file: String) throws(ImportError) -> ImportedRequests {
    let document = try Self.document(bytes, file: file)
    var reader = Reader(file: file, document: document)
    let root = document.root
    if root["_type"]?.stringValue == "export" {
      try reader.readV4(root)
    } else if let type = root["type"]?.stringValue, type.hasPrefix("collection.insomnia.rest/") {
      try reader.readV5(root)
    } else {
      throw ImportError(
        file: file, location: .start,
        message: "this is no Insomnia export: expected \"_type\": \"export\" (Insomnia 4 to 10) or "
          + "\"type: collection.insomnia.rest/5.0\" (Insomnia 11)")
    }
    if reader.imported.requests.isEmpty {
      if let refused = reader.refused { throw refused }
      throw ImportError(file: file, location: .start, message: "this export has no request")
    }
    return reader.imported
  }

  /// Whether `root` is an Insomnia export (either version).
  static func isExport(_ root: JSONValue) -> Bool {
    root["_type"]?.stringValue == "export" || root["type"]?.stringValue?.hasPrefix("collection.insomnia.rest/") == true
  }

  /// JSON (it starts with `{`) with the JSON parser, anything else with the YAML reader.
  static func document(_ bytes: [UInt8], file: String) throws(ImportError) -> JSONDocument {
    let start = bytes.drop(while: { [0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) })
    if start.first == UInt8(ascii: "{") {
      do {
        return try JSONParser.parseDocument(bytes)
      } catch {
        throw ImportError(file: file, location: error.location, message: "not valid JSON: \(error.message)")
      }
    }
    do {
      return try YAMLReader.parseDocument(bytes)
    } catch {
      throw ImportError(file: file, location: error.location, message: error.message)
    }
  }

  struct Reader {
    let file: String
    let document: JSONDocument
    var imported = ImportedRequests()
    var refused: ImportError?

    func error(_ message: String, at path: JSONPath) -> ImportError {
      ImportError(file: file, location: document.location(of: path), message: message)
    }

    mutating func refuse(_ error: ImportError) {
      refused = refused ?? error
      imported.warnings.append("\(error.description); this request is not imported, the others are")
    }

    /// v4: the resources by `parentId`, each level in `metaSortKey` order.
    mutating func readV4(_ root: JSONValue) throws(ImportError) {
      let resources = root["resources"]?.arrayValue ?? []
      let base = JSONPath.root.appending("resources")
      var children: [String: [(index: Int, value: JSONValue)]] = [:]
      var workspaces: [(index: Int, value: JSONValue)] = []
      for (index, resource) in resources.enumerated() {
        let parent = resource["parentId"]?.stringValue ?? ""
        if resource["_type"]?.stringValue == "workspace" { workspaces.append((index, resource)) }
        children[parent, default: []].append((index, resource))
      }
      func sorted(_ items: [(index: Int, value: JSONValue)]) -> [(index: Int, value: JSONValue)] {
        items.sorted { a, b in
          let x = a.value["metaSortKey"].flatMap(Self.number) ?? 0
          let y = b.value["metaSortKey"].flatMap(Self.number) ?? 0
          return x != y ? x < y : a.index < b.index
        }
      }
      if root["resources"] == nil, root["items"] != nil {
        throw ImportError(
          file: file, location: .start,
          message: "this is an Insomnia 1 export (items); open it in Insomnia and export it again (Insomnia v4 or v5 format)")
      }
      let several = workspaces.count > 1
      // Without a workspace (an export of a folder), the parents no resource is are the roots.
      let ids = Set(resources.compactMap { $0["_id"]?.stringValue })
      let orphans = Set(resources.compactMap { $0["parentId"]?.stringValue }).subtracting(ids).sorted()
      let roots =
        workspaces.isEmpty
        ? orphans.map { (index: -1, value: JSONValue.object(JSONObject([("_id", .string($0))]))) } : workspaces
      for workspace in roots {
        let id = workspace.value["_id"]?.stringValue ?? ""
        let prefix = several ? [workspace.value["name"]?.stringValue ?? id] : []
        // Environments: the base one (its parent is the workspace) and its sub-environments.
        for environment in sorted(children[id] ?? []) where environment.value["_type"]?.stringValue == "environment" {
          mergeVariables(environment.value["data"])
          for sub in sorted(children[environment.value["_id"]?.stringValue ?? "\u{0}"] ?? [])
          where sub.value["_type"]?.stringValue == "environment" {
            imported.environments.append(
              Environment(name: sub.value["name"]?.stringValue ?? "environment", variables: variables(sub.value["data"])))
          }
        }
        func walk(_ parent: String, folders: [String], auth: (JSONValue, JSONPath)?, headers: [(JSONValue, JSONPath)]) {
          for item in sorted(children[parent] ?? []) {
            let path = base.appending(item.index)
            switch item.value["_type"]?.stringValue {
            case "request_group":
              let name = item.value["name"]?.stringValue ?? "folder"
              mergeVariables(item.value["environment"])
              let own = Self.hasAuth(item.value["authentication"]) ? (item.value["authentication"]!, path.appending("authentication")) : auth
              let inner = headers + [(item.value["headers"] ?? .null, path.appending("headers"))]
              walk(item.value["_id"]?.stringValue ?? "\u{0}", folders: folders + [name], auth: own, headers: inner)
            case "request":
              add(item.value, at: path, folders: folders, auth: auth, headers: headers)
            case "grpc_request", "websocket_request":
              imported.warnings.append("\(file): \(item.value["name"]?.stringValue ?? "a request") is a \(item.value["_type"]?.stringValue ?? "") request, which reqbench does not send; left out")
            default: break
            }
          }
        }
        walk(id, folders: prefix, auth: nil, headers: [])
      }
    }

    /// v5: `collection` (folders have `children`) and `environments` (with `subEnvironments`).
    mutating func readV5(_ root: JSONValue) throws(ImportError) {
      if let environments = root["environments"] {
        mergeVariables(environments["data"])
        for sub in environments["subEnvironments"]?.arrayValue ?? [] {
          imported.environments.append(
            Environment(name: sub["name"]?.stringValue ?? "environment", variables: variables(sub["data"])))
        }
      }
      func walk(_ items: [JSONValue], at path: JSONPath, folders: [String], auth: (JSONValue, JSONPath)?, headers: [(JSONValue, JSONPath)]) {
        let order = items.enumerated().sorted { a, b in
          let x = a.element["meta"]?["sortKey"].flatMap(Self.number) ?? 0
          let y = b.element["meta"]?["sortKey"].flatMap(Self.number) ?? 0
          return x != y ? x < y : a.offset < b.offset
        }
        for (index, item) in order {
          let itemPath = path.appending(index)
          if let children = item["children"]?.arrayValue {
            mergeVariables(item["environment"])
            let own = Self.hasAuth(item["authentication"]) ? (item["authentication"]!, itemPath.appending("authentication")) : auth
            walk(
              children, at: itemPath.appending("children"), folders: folders + [item["name"]?.stringValue ?? "folder"],
              auth: own, headers: headers + [(item["headers"] ?? .null, itemPath.appending("headers"))])
          } else if item["method"] != nil || item["url"] != nil {
            add(item, at: itemPath, folders: folders, auth: auth, headers: headers)
          }
        }
      }
      walk(root["collection"]?.arrayValue ?? [], at: JSONPath.root.appending("collection"), folders: [], auth: nil, headers: [])
    }

    static func number(_ value: JSONValue) -> Double? {
      if case .number(let text) = value { return Double(text) }
      return value.stringValue.flatMap(Double.init)
    }

    static func hasAuth(_ value: JSONValue?) -> Bool {
      guard let type = value?["type"]?.stringValue else { return false }
      return type != "none" && value?["disabled"] != .bool(true)
    }

    /// Adds an environment's `data` to the variables (see `variables(_:)`).
    mutating func mergeVariables(_ data: JSONValue?) {
      for variable in variables(data) {
        imported.variables.removeAll { $0.name == variable.name }
        imported.variables.append(variable)
      }
    }

    /// An environment's `data` as variables: nested objects flattened (`admin.name`), other values
    /// as their JSON text; a value with a template tag is left out with a warning.
    mutating func variables(_ data: JSONValue?, prefix: String = "") -> [Variable] {
      guard let object = data?.objectValue else { return [] }
      var out: [Variable] = []
      for member in object.members {
        let name = prefix + member.key
        var value: String
        switch member.value {
        case .object:
          out += variables(member.value, prefix: name + ".")
          continue
        case .null: continue
        case .string(let text):
          do throws(ForeignPlaceholders.Unsupported) {
            value = try Self.template(text)
          } catch {
            imported.warnings.append("\(file): the variable \(name) holds \(error.placeholder), which reqbench cannot fill in; left out")
            continue
          }
        default: value = JSONSerializer.compact(member.value)
        }
        guard Template.isValidName(name) else { continue }
        out.removeAll { $0.name == name }
        out.append(Variable(name: name, value: value))
      }
      return out
    }

    /// Insomnia's text as a template: `{{ _.name }}` is `{{name}}`; a template tag `{% … %}` or a
    /// placeholder that names no variable is refused.
    static func template(_ text: String) throws(ForeignPlaceholders.Unsupported) -> String {
      if let open = text.range(of: "{%") {
        let close = text[open.upperBound...].range(of: "%}")
        throw ForeignPlaceholders.Unsupported(placeholder: String(text[open.lowerBound..<(close?.upperBound ?? text.endIndex)]).prefix(60) + "")
      }
      return try ForeignPlaceholders.template(text) { inner in
        var name = inner.hasPrefix("_.") ? String(inner.dropFirst(2)) : inner
        // `_['global-base']`, `_["a b"]`: the name in brackets.
        if inner.hasPrefix("_["), inner.hasSuffix("]"), inner.count > 5, let quote = inner.dropFirst(2).first,
          quote == "'" || quote == "\"", inner.dropLast().last == quote
        {
          name = String(inner.dropFirst(3).dropLast(2))
        }
        return name.hasPrefix("$") ? nil : name
      }
    }
  }
}
