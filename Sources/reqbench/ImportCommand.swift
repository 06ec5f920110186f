import CommandLineSupport
import Formats
import Foundation
import RequestEngine
import Workspace

/// `reqbench import curl|httpie|http|postman|har|openapi|bruno|insomnia FILE|- --into WORKSPACE [--name NAME]`:
/// adds the requests of a curl or HTTPie command line, an `.http` file, a Postman collection, a HAR file, an OpenAPI
/// description, a Bruno collection or an Insomnia export to a workspace file (an OpenAPI re-import updates the
/// requests it made).
enum ImportCommand {
  static let usage = """
    usage: reqbench import curl|httpie|http|postman|har|openapi|bruno|insomnia FILE|- --into WORKSPACE
                           [--name NAME] [--filter TEXT] [--cookies] [--tag TAG]
      curl      curl command lines ("Copy as cURL"), one request per command
      httpie    HTTPie or xh command lines (http POST :3000/users name=ada), one request per
                command
      http      an .http or .rest file (JetBrains HTTP Client, VS Code REST Client, httpyac,
                kulala.nvim, rest.nvim); requests that use another's response make chains
      postman   a Postman collection (v2.1), or an environment or globals export
      har       a HAR 1.2 file (a browser's "Save all as HAR"): a request per entry, without
                the headers only a browser sends (sec-*, :authority, Cookie…)
      openapi   an OpenAPI 3.0 or 3.1 description or a Swagger 2.0 one, JSON or YAML: a
                request per operation in a folder per tag, servers as environments; importing
                it again updates those requests and keeps your edits
      bruno     a Bruno collection folder (with bruno.json), or one .bru file: requests in
                their folders, environments, auth
      insomnia  an Insomnia export: v4 (JSON or YAML) or a v5 collection file (YAML)
      FILE      the input (for bruno, a folder too); - reads standard input
      --into WORKSPACE  the workspace file to add to (created when it does not exist)
      --name NAME       the request's name; with several requests, their folder (NAME/…)
      --filter TEXT     har: only the entries whose URL contains TEXT
      --cookies         har: keep the Cookie headers, in the secrets file (left out by default)
      --tag TAG         openapi: only the operations with this tag
    A credential written out in the input (Authorization: Bearer …, -u user:password, a Cookie
    header, a key header or parameter such as X-Api-Key or api_key, a Postman secret) goes to
    the secrets file beside WORKSPACE; the workspace says {{secret.token}}, {{secret.password}},
    {{secret.cookie}}, {{secret.api-key}}….
    """

  struct Options: Equatable {
    var format: ImportFormat
    var input: String
    var workspace: String
    var name: String?
    var har = HARImporter.Options()
    var openapi = OpenAPIImporter.Options()
  }

  static let command = Subcommand(
    name: "import",
    summary: "add requests from curl or HTTPie commands, .http files, Postman, Bruno, Insomnia, HAR or OpenAPI files",
    synopsis: [
      "reqbench import curl|httpie|http|postman|har|openapi FILE|- --into WORKSPACE [--name NAME] [--filter TEXT]"
    ],
    description: """
      adds requests from curl or HTTPie commands, .http, Postman, Bruno, Insomnia,
      HAR or OpenAPI files
      """,
    usage: usage, arguments: [.choice(ImportFormat.allCases.map(\.rawValue)), .file],
    options: [
      Option(name: "--into", value: .workspace), .text("--name"), .text("--filter"), .flag("--cookies"), .text("--tag"),
    ],
    errorsShowUsage: true, run: run)

  static func parse(_ arguments: ParsedArguments) throws(UsageError) -> Options {
    let into = arguments.value("--into")
    var har = HARImporter.Options()
    var openapi = OpenAPIImporter.Options()
    har.filter = arguments.value("--filter")
    har.cookies = arguments.flag("--cookies")
    openapi.tag = arguments.value("--tag")
    let name = arguments.value("--name")
    if let name, name.trimmingCharacters(in: .whitespaces).isEmpty {
      throw UsageError(message: "--name needs a non-empty name")
    }
    let positional = arguments.positional
    let format = try OptionReader.choice(
      ImportFormat.self, positional.first, command: "import", missing: "import needs a format and an input")
    let formatName = format.rawValue
    guard positional.count >= 2 else {
      throw UsageError(
        message: "import \(formatName) needs an input: a file, or - for standard input")
    }
    guard positional.count == 2 else {
      throw UsageError(
        message: "import takes one input, found \(positional.dropFirst().joined(separator: " "))")
    }
    guard let into else { throw UsageError(message: "import needs --into WORKSPACE") }
    if format != .har, har != HARImporter.Options() {
      throw UsageError(message: "--filter and --cookies are for import har")
    }
    if format != .openapi, openapi != OpenAPIImporter.Options() {
      throw UsageError(message: "--tag is for import openapi")
    }
    return Options(format: format, input: positional[1], workspace: into, name: name, har: har, openapi: openapi)
  }

  static func run(_ arguments: ParsedArguments) -> Int32 {
    let options: Options
    do {
      options = try parse(arguments)
    } catch {
      return CLI.usageError("\(error.message)\n\(usage)")
    }

    // Read and parse the input first: nothing is written unless all of it imports.
    let bytes: [UInt8]
    let inputName = options.input == "-" ? "<stdin>" : options.input
    var isFolder: ObjCBool = false
    let folderInput = options.input != "-" && FileManager.default.fileExists(atPath: options.input, isDirectory: &isFolder) && isFolder.boolValue
    if folderInput && options.format != .bruno {
      Terminal.error(
        "reqbench: \(inputName) is a folder; import \(options.format.rawValue) reads a file"
          + (FileManager.default.fileExists(atPath: options.input + "/bruno.json") ? " (this is a Bruno collection: reqbench import bruno)" : ""))
      return ExitStatus.usage
    }
    do {
      bytes = folderInput ? [] : options.input == "-"
        ? try FileAccess.read(descriptor: STDIN_FILENO, path: inputName) : try ImportFile.read(options.input)
    } catch {
      Terminal.error("reqbench: cannot read \(inputName): \(error.reason)")
      return ExitStatus.usage
    }
    var imported: ImportedRequests
    do {
      if folderInput {
        imported = try BrunoImporter.parse(folder: URL(fileURLWithPath: options.input))
      } else {
        // Files the input names (`-d @body.json`) are the workspace folder's, as in the workspace.
        let folder = URL(fileURLWithPath: options.workspace).standardizedFileURL.deletingLastPathComponent()
        imported = try options.format.parse(
          bytes, file: inputName, readFile: ImportFile.reader(in: folder), har: options.har, openapi: options.openapi)
      }
    } catch {
      Terminal.error(error.description)
      return ExitStatus.usage
    }

    // A missing workspace is a new, empty one, created by the save (the TUI opens it the same way).
    var file = WorkspaceFile(URL(fileURLWithPath: options.workspace))
    var workspace: Workspace
    do {
      workspace = try file.load()
    } catch {
      Terminal.error(error.description)
      return ExitStatus.usage
    }

    // Credentials written out in the input (`-H 'Authorization: Bearer …'`, `-u user:password`)
    // go to the secrets file, written before the workspace that refers to them.
    guard var secrets = CLI.loadSecrets(forWorkspace: URL(fileURLWithPath: options.workspace)) else {
      return ExitStatus.usage
    }
    let moved = ImportedCredentials.extract(
      from: &imported, known: secrets, environment: ProcessInfo.processInfo.environment)
    for secret in moved { secrets.set(secret.name, secret.value) }

    let report: ImportReport
    do {
      report = try workspace.addImported(imported, name: options.name)
    } catch {
      Terminal.error("reqbench: \(options.workspace): \(error.message)")
      return ExitStatus.usage
    }
    do {
      if !moved.isEmpty { try secrets.save() }
      try file.save(workspace)
    } catch {
      Terminal.error("reqbench: \(error)")
      return ExitStatus.usage
    }
    for template in report.added {
      Terminal.error("imported \(template.name) (\(template.method.rawValue) \(template.url))")
    }
    for update in report.updated {
      Terminal.error(describe(update))
    }
    if !report.variablesAdded.isEmpty {
      Terminal.error(
        "added variables: " + report.variablesAdded.map(\.name).joined(separator: ", "))
    }
    if !report.chainsAdded.isEmpty {
      Terminal.error("added chains: " + report.chainsAdded.joined(separator: ", "))
    }
    if !report.environmentsAdded.isEmpty {
      Terminal.error("added environments: " + report.environmentsAdded.joined(separator: ", "))
    }
    for name in report.gone {
      Terminal.error("not in the description any more: \(name) (kept; delete it if you no longer need it)")
    }
    if !moved.isEmpty, let url = secrets.url {
      Terminal.error(
        "moved credentials to \(url.lastPathComponent) (the workspace says {{secret.NAME}} in their place): "
          + moved.map(\.name).joined(separator: ", "))
    }
    let unset = imported.secrets.filter { secrets.value(of: $0) == nil }
    if !unset.isEmpty {
      Terminal.error(
        "secrets the requests use: " + unset.joined(separator: ", ")
          + " (set each with: reqbench secrets set \(options.workspace) NAME)")
    }
    for warning in report.warnings { Terminal.error("reqbench: warning: \(warning)") }
    return ExitStatus.success
  }

  /// `updated pets/listPets: url, query; kept your edit of body (the description changed it too)`.
  static func describe(_ update: ImportReport.Update) -> String {
    var text = update.changed.isEmpty && update.kept.isEmpty ? "unchanged \(update.name)" : "updated \(update.name)"
    if !update.changed.isEmpty { text += ": " + update.changed.joined(separator: ", ") }
    if !update.kept.isEmpty {
      text += (update.changed.isEmpty ? ": " : "; ") + "kept your edit of " + update.kept.joined(separator: ", ")
        + " (the description changed \(update.kept.count == 1 ? "it" : "them") too)"
    }
    return text
  }
}
