import RequestEngine

/// What `Workspace.addImported(_:name:)` did.
public struct ImportReport: Sendable, Equatable {
  /// The requests added, in order, with the names they got.
  public var added: [RequestTemplate]
  /// The variables added to the workspace's `variables`.
  public var variablesAdded: [Variable]
  /// Variables the workspace already defines differently (kept), and the importer's warnings.
  public var warnings: [String]
}

extension Workspace {
  /// Adds imported requests and variables; everything else in the workspace stays as it is.
  ///
  /// ```swift
  /// var workspace = try Workspace.load(from: url)
  /// let report = try workspace.addImported(try CurlImporter.parse(text, file: "-"), name: "login")
  /// try workspace.save(to: url)
  /// ```
  /// - `name` names the request when there is one, and prefixes them as `name/…` when there are
  ///   several.
  /// - A name already taken gets a suffix: `name-2`, `name-3`, …
  /// - Variables are added when the workspace does not define them; one it defines with another
  ///   value keeps its value, and the report warns about the clash.
  public mutating func addImported(_ imported: ImportedRequests, name: String? = nil)
    throws(WorkspaceEditError) -> ImportReport
  {
    var report = ImportReport(added: [], variablesAdded: [], warnings: imported.warnings)
    let prefix = name?.trimmingSpaces()
    for request in imported.requests {
      var template = request.template
      if let prefix, !prefix.isEmpty {
        template.name = imported.requests.count == 1 ? prefix : prefix + "/" + template.name
      }
      template.name = uniqueName(template.name)
      if template.name.trimmingSpaces().isEmpty { throw WorkspaceEditError("a request needs a name") }
      requests.append(template)
      report.added.append(template)
    }
    for variable in imported.variables {
      if let existing = variables.last(where: { $0.name == variable.name }) {
        if existing.value != variable.value {
          report.warnings.append(
            "the workspace already defines the variable \(variable.name) as "
              + "\(JSONSerializer.quote(existing.value)); kept it (the import has "
              + "\(JSONSerializer.quote(variable.value)))")
        }
        continue
      }
      variables.append(variable)
      report.variablesAdded.append(variable)
    }
    return report
  }
}
