import Formats
import RequestEngine
import Workspace

/// Making requests from text: `n` asks for one line (`METHOD URL`, a curl command, an `.http`
/// request), read through the importers (`RequestText.drafts`); one request is then named (the
/// importer's name suggested, selected), several are added with their own names. A new request
/// is selected and opens in the editor with its URL focused.
extension AppState {
  static let newRequestLabel = "new request (METHOD URL, curl, http or .http)"

  mutating func startNewRequest() {
    prompt = Prompt(purpose: .newRequest, label: AppState.newRequestLabel, input: LineEdit(""))
  }

  /// The text of the first prompt: read as requests; an error keeps the prompt open, saying what
  /// and where, and adds nothing.
  /// `shown` is the prompt's line should it stay open (a pasted text of several lines made one).
  mutating func submitNewRequest(text: String, shown input: LineEdit) -> [Command] {
    var imported: ImportedRequests
    do {
      imported = try RequestText.drafts(from: text, source: "new request", readFile: readNothing).imported
    } catch {
      prompt = Prompt(purpose: .newRequest, label: AppState.newRequestLabel, input: input, error: error.description)
      return []
    }
    completeURLs(&imported)
    if imported.requests.count == 1, let template = imported.requests.first?.template {
      let suggested = workspace.uniqueName(template.name)
      prompt = Prompt(
        purpose: .nameNewRequest(imported), label: "name (folders with /)", input: LineEdit(suggested, selected: true))
      return []
    }
    return addImported(imported, naming: nil)
  }

  /// `:3000/users`, `localhost:8080/x`, `example.com/api` (with no `baseURL`): the URL curl and
  /// HTTPie would send, which the URL field then shows.
  func completeURLs(_ imported: inout ImportedRequests) {
    RequestText.completeURLs(&imported, hasBaseURL: workspace.baseURL.map { !$0.allSatisfy(\.isWhitespace) } ?? false)
  }

  /// The name prompt's answer: the request is added under it (or the prompt says why not).
  mutating func nameNewRequest(_ imported: ImportedRequests, _ input: LineEdit) -> [Command] {
    let name = input.text
    if let problem = Workspace.problem(withName: name) ?? (workspace.request(named: name) != nil
      || workspace.batch(named: name) != nil || workspace.chain(named: name) != nil
      ? "\(name) is taken; names are unique" : nil)
    {
      prompt = Prompt(purpose: .nameNewRequest(imported), label: "name (folders with /)", input: input, error: problem)
      return []
    }
    return addImported(imported, naming: name)
  }

  /// Adds the requests (the first one named `name` when given) and the variables an `.http` text
  /// defined, then selects the first new request in the editor, its URL focused. A credential
  /// written out in the text goes to the secrets file (`ImportedCredentials`; the commands that
  /// write it are returned) and the request says `{{secret.NAME}}`.
  mutating func addImported(_ imported: ImportedRequests, naming name: String?) -> [Command] {
    var imported = imported
    let moved = ImportedCredentials.extract(
      from: &imported, known: sources.secrets, environment: sources.processEnvironment)
    // Written whenever a request that may use them was added.
    let writes = moved.map { Command.setSecret(name: $0.name, value: $0.value) }
    var added: [String] = []
    for (i, request) in imported.requests.enumerated() {
      var template = request.template
      template.name = i == 0 ? (name ?? workspace.uniqueName(template.name)) : workspace.uniqueName(template.name)
      guard addNewRequest(template, placement: .inFolder) else {
        if added.isEmpty { return [] }
        secretsBeingMoved.formUnion(moved.map(\.name))
        return writes
      }
      added.append(template.name)
    }
    secretsBeingMoved.formUnion(moved.map(\.name))
    // The variables and the importer's warnings (one addImported without requests adds them).
    var extras = ImportedRequests(requests: [], variables: imported.variables, warnings: imported.warnings)
    extras.environments = imported.environments  // a pasted Postman environment
    let report = try? workspace.addImported(extras)
    let warnings = report?.warnings ?? []
    for variable in report?.variablesAdded ?? [] { unsavedSettings.insert("variables.\(variable.name)") }
    for environment in imported.environments { unsavedSettings.insert("environments.\(environment.name)") }
    let secrets = moved.isEmpty ? "" : "; credentials moved to the secrets file: " + moved.map { "secret.\($0.name)" }.joined(separator: ", ")
    guard let first = added.first else {
      // No request: what else came (an environment, variables), or nothing.
      var what: [String] = []
      if !imported.environments.isEmpty {
        what.append("environment\(imported.environments.count == 1 ? "" : "s") " + imported.environments.map(\.name).joined(separator: ", "))
      }
      if let variables = report?.variablesAdded, !variables.isEmpty {
        what.append("variable\(variables.count == 1 ? "" : "s") " + variables.map(\.name).joined(separator: ", "))
      }
      guard !what.isEmpty else {
        message = StatusMessage("nothing added: the text holds no request", isError: true)
        return writes
      }
      let use = imported.environments.isEmpty ? "" : "; v uses it"
      message = StatusMessage("added " + what.joined(separator: " and ") + " (unsaved; Ctrl-S saves)\(use)" + secrets)
      return writes
    }
    selectRequest(named: first)
    focus = .editor
    // The position belongs to the new request now (so update's follow keeps it): its URL.
    editor.follow(selectedRequest?.name)
    editor.field = selectedRequest?.editorFields.firstIndex { $0.kind == .url } ?? 0
    let what = added.count == 1 ? "added \(first)" : "added \(added.count) requests: " + added.joined(separator: ", ")
    message = StatusMessage(what + " (unsaved; Ctrl-S saves)" + secrets + (warnings.first.map { "; " + $0 } ?? ""))
    return writes
  }

  /// Adds a request to the workspace, marked unsaved, and selects it in the whole list (the
  /// filter cleared). False, with the reason in the status bar, when the workspace refused it.
  @discardableResult
  mutating func addNewRequest(_ template: RequestTemplate, placement: RequestPlacement) -> Bool {
    do {
      try workspace.addRequest(template, placement: placement)
    } catch {
      message = StatusMessage("not added: \(error.message)", isError: true)
      return false
    }
    unsaved.insert(template.name)
    list.filter = ""
    selectRequest(named: template.name)
    return true
  }
}

/// `update` reads no files: a typed or pasted command that names one (`-d @body.json`) is refused,
/// saying what to do instead.
func readNothing(_ path: String) throws(FileError) -> [UInt8] {
  let why = "a command typed or pasted here cannot read files (reqbench import curl FILE --into WORKSPACE can)"
  throw FileError(path: path, message: "not read: " + why, reason: why)
}
