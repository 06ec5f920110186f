import RequestEngine
import Workspace

/// What `Workspace.addImported(_:name:)` did.
public struct ImportReport: Sendable, Equatable {
  /// The requests added, in order, with the names they got.
  public var added: [RequestTemplate]
  /// The variables added to the workspace's `variables`.
  public var variablesAdded: [Variable]
  /// Variables the workspace already defines differently (kept), and the importer's warnings.
  public var warnings: [String]
  /// The environments added (an OpenAPI description's servers).
  public var environmentsAdded: [String] = []
  /// Requests a re-import found already imported from the same operation, and what it did.
  public var updated: [Update] = []
  /// Requests imported from the description before whose operation it no longer has (kept).
  public var gone: [String] = []
  /// The chains added (an `.http` file's requests that use an earlier response's values).
  public var chainsAdded: [String] = []

  /// One request imported again (`Workspace.addImported`).
  public struct Update: Sendable, Equatable {
    public var name: String
    /// The fields the description changed and the request took.
    public var changed: [String]
    /// The fields the description changed that the user had edited: the user's value stayed.
    public var kept: [String]
  }
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
  ///   several; it must follow the name rules (`Workspace.problem(withName:)`). The requests'
  ///   own names are made to follow them (`ImportedRequests.followNameRules`).
  /// - A name already taken gets a suffix: `name-2`, `name-3`, …
  /// - Variables are added when the workspace does not define them; one it defines with another
  ///   value keeps its value, and the report warns about the clash. Environments likewise, by
  ///   name and then variable by variable.
  /// - A request imported from an OpenAPI operation whose folder the workspace has already goes
  ///   after that folder's last request (a re-import that brings an operation of a known tag
  ///   keeps the tag's folder in one piece); other requests are added at the end.
  /// - A request imported from an OpenAPI operation (`imported`) that the workspace already has
  ///   a request from is not added again: that request is updated, field by field
  ///   (`ImportOrigin.fields`): a field that still holds what the last import wrote takes the
  ///   new value; one the user edited keeps the user's value (the report says so when the
  ///   description changed it too). Its name, and every field an import does not set
  ///   (`validate`, `timeout`…), stay as they are.
  public mutating func addImported(_ imported: ImportedRequests, name: String? = nil)
    throws(WorkspaceEditError) -> ImportReport
  {
    // Importers' names already follow the rules (`ImportFormat.parse`); a caller's own may not.
    var imported = imported
    imported.followNameRules(file: "import")
    var report = ImportReport(added: [], variablesAdded: [], warnings: imported.warnings)
    let prefix = name?.trimmingSpaces()
    if let prefix, !prefix.isEmpty, let problem = Workspace.problem(withName: prefix) {
      throw WorkspaceEditError(problem)
    }
    // Each request's name and operation are looked up in a table made once for the import, not
    // among all the workspace's requests (which made an import quadratic in its size).
    var taken = TakenNames(targetNames)
    var operations: [OperationKey: Int] = [:]
    for (index, request) in requests.enumerated() {
      if let origin = request.imported, operations[OperationKey(origin)] == nil { operations[OperationKey(origin)] = index }
    }
    let before = requests.count
    // The name each imported request got, by its name in the import (the last one of a name).
    var addedNames: [String: String] = [:]
    for request in imported.requests {
      var template = request.template
      if var origin = template.imported {
        origin.fields = zip(ImportOrigin.fields, ImportOrigin.digests(of: template))
          .filter { $0.1 != ImportOrigin.emptyDigest }.map { ($0.0, $0.1) }
        template.imported = origin
        if let index = operations[OperationKey(origin)] {
          report.updated.append(update(at: index, to: template))
          continue
        }
        operations[OperationKey(origin)] = requests.count
      }
      if let prefix, !prefix.isEmpty {
        template.name = imported.requests.count == 1 ? prefix : prefix + "/" + template.name
      }
      let importedName = request.template.name
      template.name = taken.take(template.name)
      if template.name.trimmingSpaces().isEmpty { throw WorkspaceEditError("a request needs a name") }
      addedNames[importedName] = template.name
      requests.append(template)
      report.added.append(template)
    }
    if requests.count > before { placeInFolders(addedFrom: before) }
    for var chain in imported.chains {
      guard chain.steps.allSatisfy({ addedNames[$0.request] != nil }) else {
        report.warnings.append("the chain \(chain.name) names a request the import did not add; left out")
        continue
      }
      for step in chain.steps.indices { chain.steps[step].request = addedNames[chain.steps[step].request] ?? "" }
      chain.name = taken.take(prefix.map { $0.isEmpty ? chain.name : $0 + "/" + chain.name } ?? chain.name)
      chains.append(chain)
      report.chainsAdded.append(chain.name)
    }
    var variableIndex: [String: Int] = [:]
    for (index, variable) in variables.enumerated() { variableIndex[variable.name] = index }  // the last wins
    for variable in imported.variables {
      if let existing = variableIndex[variable.name].map({ variables[$0] }) {
        if existing.value != variable.value {
          report.warnings.append(
            "the workspace already defines the variable \(variable.name) as "
              + "\(JSONSerializer.quote(existing.value)); kept it (the import has "
              + "\(JSONSerializer.quote(variable.value)))")
        }
        continue
      }
      variableIndex[variable.name] = variables.count
      variables.append(variable)
      report.variablesAdded.append(variable)
    }
    for environment in imported.environments {
      guard let index = environments.firstIndex(where: { $0.name == environment.name }) else {
        environments.append(environment)
        report.environmentsAdded.append(environment.name)
        continue
      }
      var known: [String: String] = [:]
      for variable in environments[index].variables where known[variable.name] == nil { known[variable.name] = variable.value }
      for variable in environment.variables {
        if let existing = known[variable.name].map({ Variable(name: variable.name, value: $0) }) {
          if existing.value != variable.value {
            report.warnings.append(
              "the environment \(environment.name) already sets \(variable.name) to \(JSONSerializer.quote(existing.value)); "
                + "kept it (the import has \(JSONSerializer.quote(variable.value)))")
          }
        } else {
          environments[index].variables.append(variable)
          known[variable.name] = variable.value
        }
      }
    }
    if let api = imported.api {
      let operations = Set(imported.requests.compactMap { $0.template.imported?.operation })
      report.gone = requests.filter { request in
        guard let origin = request.imported, origin.api == api else { return false }
        return !operations.contains(origin.operation)
      }.map(\.name)
    }
    return report
  }

  /// Moves the requests added from `start` on that were imported from an OpenAPI operation, and
  /// whose folder (or a folder it is in) the workspace's earlier requests have, after the last
  /// request in that folder, in the order they came; the others stay at the end.
  private mutating func placeInFolders(addedFrom start: Int) {
    var lastIn: [String: Int] = [:]
    for index in 0..<start {
      var folder = requests[index].name[...]
      while let slash = folder.lastIndex(of: "/") {
        folder = folder[..<slash]
        lastIn[String(folder)] = index
      }
    }
    guard !lastIn.isEmpty else { return }
    var after: [Int: [RequestTemplate]] = [:]
    var rest: [RequestTemplate] = []
    for request in requests[start...] {
      var folder = request.name[...]
      var place: Int?
      while request.imported != nil, place == nil, let slash = folder.lastIndex(of: "/") {
        folder = folder[..<slash]
        place = lastIn[String(folder)]
      }
      if let place { after[place, default: []].append(request) } else { rest.append(request) }
    }
    guard !after.isEmpty else { return }
    var placed: [RequestTemplate] = []
    placed.reserveCapacity(requests.count)
    for index in 0..<start {
      placed.append(requests[index])
      placed.append(contentsOf: after[index] ?? [])
    }
    requests = placed + rest
  }

  /// An operation of a description (`ImportOrigin.names(sameOperationAs:)`), as a table's key.
  private struct OperationKey: Hashable {
    let api: String
    let operation: String
    init(_ origin: ImportOrigin) {
      api = origin.api
      operation = origin.operation
    }
  }

  /// Updates the request at `index` from a new import of its operation (see `addImported`).
  private mutating func update(at index: Int, to imported: RequestTemplate) -> ImportReport.Update {
    var request = requests[index]
    var update = ImportReport.Update(name: request.name, changed: [], kept: [])
    let last = request.imported
    let newDigests = ImportOrigin.digests(of: imported)
    let currentDigests = ImportOrigin.digests(of: request)
    for (i, field) in ImportOrigin.fields.enumerated() {
      let new = newDigests[i]
      let current = currentDigests[i]
      if new == current { continue }
      let written = last.map { $0.digest(of: field) ?? ImportOrigin.emptyDigest }
      if written == nil || written == current {
        request.copy(field, from: imported)
        update.changed.append(field)
      } else if written != new {
        update.kept.append(field)
      }
    }
    request.imported = imported.imported
    requests[index] = request
    return update
  }
}
