import RequestEngine
import Workspace

/// Postman's variables: a collection's `variable` list, and the exports that are nothing but
/// variables (an environment's, the globals): see `PostmanImporter`.
extension PostmanImporter.Reader {
  /// An environment or globals export rather than a collection: `values`, no `info`.
  var isVariableExport: Bool {
    guard case .object(let root) = document.root, root["info"] == nil else { return false }
    return root["_postman_variable_scope"] != nil || root["values"]?.arrayValue != nil
  }

  mutating func variableExport() throws(ImportError) {
    guard case .object(let root) = document.root, let values = root["values"] else {
      throw error("a Postman environment has a \"values\" list", at: .root)
    }
    let variables = try self.variables(values, at: JSONPath.root.appending("values"))
    for item in values.arrayValue ?? [] where item["type"]?.stringValue == "secret" {
      if let key = item["key"]?.stringValue, variables.contains(where: { $0.name == key }) {
        imported.sensitiveVariables.append(key)
      }
    }
    if root["_postman_variable_scope"]?.stringValue == "globals" {
      imported.variables = variables
      return
    }
    let name = (root["name"]?.stringValue ?? "").trimmingSpaces()
    guard !name.isEmpty else {
      throw error("a Postman environment needs a \"name\": it names the environment here", at: .root)
    }
    imported.environments = [Environment(name: name, variables: variables)]
  }

  mutating func variables(_ value: JSONValue, at path: JSONPath) throws(ImportError) -> [Variable] {
    guard let items = value.arrayValue else {
      throw error("\"variable\" should be a list of {\"key\": …, \"value\": …}", at: path)
    }
    var variables: [Variable] = []
    for (i, item) in items.enumerated() {
      // A collection's variable says `disabled`, an environment's `enabled`.
      if item["disabled"]?.boolValue == true || item["enabled"]?.boolValue == false { continue }
      guard let key = item["key"]?.stringValue, !key.isEmpty else {
        throw error("a variable needs a \"key\"", at: path.appending(i).appending("key"))
      }
      guard Template.isValidName(key) else {
        // `{{a/b}}` in the requests stays as written text (`PostmanText`).
        let location = document.location(of: path.appending(i).appending("key")).map { ":\($0)" } ?? ""
        imported.warnings.append(
          "\(file)\(location): the variable \(JSONSerializer.quote(key)) is not imported: a variable name here is "
            + "letters, digits, '_', '-' and '.'; where a request uses {{\(key)}} it is kept as text")
        continue
      }
      var texts = PostmanText()
      let value = texts.template(Self.text(item["value"]))
      variables.removeAll { $0.name == key }
      variables.append(Variable(name: key, value: value))
    }
    return variables
  }
}
