import Foundation
import RequestEngine
import Workspace

/// What an importer read from a curl command line, an `.http` file or a Postman collection:
/// request templates in input order, file or collection variables, and warnings about what was
/// left out. `Workspace.addImported(_:name:)` adds them to a workspace.
///
/// ```swift
/// let imported = try CurlImporter.parse("curl https://api.test/users/1", file: "paste.sh")
/// imported.requests[0].template.name  // "get-users-1"
/// ```
public struct ImportedRequests: Sendable, Equatable {
  public var requests: [ImportedRequest]
  /// `@name = value` lines of an `.http` file, a Postman collection's `variable`.
  public var variables: [Variable]
  /// Things the importer skipped on purpose (scripts, an auth kind reqbench does not have…).
  public var warnings: [String]
  /// An OpenAPI description's `servers`, each with its `baseURL`.
  public var environments: [Environment] = []
  /// The `{{secret.NAME}}`s the requests use, for the report (`reqbench secrets set`).
  public var secrets: [String] = []
  /// Variables the source marks secret (a Postman environment's type `secret`): an import moves
  /// their values to the secrets file (`ImportedCredentials`).
  public var sensitiveVariables: [String] = []
  /// The title of the OpenAPI description this is all of (nil for a part, `--tag`): the
  /// workspace's requests imported from it before that are not here any more are reported.
  public var api: String?
  /// Chains of the imported requests (an `.http` request that uses a value of an earlier
  /// request's response: that request first, capturing the value); their steps name requests
  /// by their names here, and follow them when an import renames them.
  public var chains: [Chain] = []

  public init(requests: [ImportedRequest] = [], variables: [Variable] = [], warnings: [String] = [])
  {
    self.requests = requests
    self.variables = variables
    self.warnings = warnings
  }

  /// The templates alone.
  public var templates: [RequestTemplate] { requests.map(\.template) }

  /// Gives every request a name that follows the workspace's name rules
  /// (`Workspace.followingTheRules`), the one rule every importer's names go through: a name
  /// from the input (a Postman item and its folders, an OpenAPI operation and tag, an `.http`
  /// request's `# @name`) may hold control characters, empty, `.` or `..` folders, or a `/`
  /// at either end. What follows the last `/` is the name, the rest its folders; a name nothing
  /// is left of is made from the method and URL (`get-users`). A warning names each request
  /// renamed, as the input wrote it (escaped), and its new name.
  mutating func followNameRules(file: String) {
    for index in requests.indices {
      let name = requests[index].template.name
      guard Workspace.problem(withName: name) != nil else { continue }
      let slash = name.lastIndex(of: "/")
      let folders = slash.map { Workspace.followingTheRules(String(name[..<$0])) } ?? ""
      var leaf = Workspace.followingTheRules(String(slash.map { name[name.index(after: $0)...] } ?? name[...]))
      if leaf.isEmpty {
        let template = requests[index].template
        leaf = RequestDraft.derivedName(method: template.method, url: template.url)
      }
      let renamed = folders.isEmpty ? leaf : folders + "/" + leaf
      requests[index].template.name = renamed
      renameSteps(from: name, to: renamed)
      warnings.append(
        "\(file): the request named \(JSONSerializer.quote(name)) is imported as \(JSONSerializer.quote(renamed)) "
          + "(a name holds no control characters, no empty, . or .. folder and no / at either end)")
    }
  }
}

extension ImportedRequests {
  /// Makes the chains' steps that name the request `old` name `new`.
  mutating func renameSteps(from old: String, to new: String) {
    for chain in chains.indices {
      for step in chains[chain].steps.indices where chains[chain].steps[step].request == old {
        chains[chain].steps[step].request = new
      }
    }
  }
}

/// One imported request and where it starts in the input.
public struct ImportedRequest: Sendable, Equatable {
  public var template: RequestTemplate
  public var location: SourceLocation?
  /// Headers and query parameters the source says hold a credential (a Postman `apikey` auth's),
  /// whatever their names: an import moves their values to the secrets file.
  public var credentials: [CredentialField] = []

  public init(template: RequestTemplate, location: SourceLocation?, credentials: [CredentialField] = []) {
    self.template = template
    self.location = location
    self.credentials = credentials
  }
}

/// Where a request carries a credential by name: a header or a query parameter.
public enum CredentialField: Sendable, Equatable {
  case header(String)
  case query(String)
}

/// The formats `reqbench import` reads.
public enum ImportFormat: String, Sendable, CaseIterable {
  /// curl command lines, as "Copy as cURL" in browsers and API docs write them.
  case curl
  /// HTTPie (and xh) command lines: `http POST :3000/users name=ada`.
  case httpie
  /// JetBrains HTTP Client and VS Code REST Client files (`.http`, `.rest`).
  case http
  /// Postman collections, format v2.1 (and v2.0).
  case postman
  /// HAR 1.2 files, as browsers' network panels save them ("Save all as HAR").
  case har
  /// OpenAPI 3.0 and 3.1 descriptions, and Swagger 2.0 ones, JSON or YAML.
  case openapi
  /// Bruno collections (a folder with `bruno.json`) or one `.bru` file.
  case bruno
  /// Insomnia exports: v4 (JSON or YAML) and v5 collection files (YAML).
  case insomnia

  /// The format of a JSON document by its top-level keys: `openapi`/`swagger`, a HAR's `log`,
  /// a Postman collection's `info` or an environment's `values`; nil when it is none of them (or
  /// no JSON object).
  public static func detect(json bytes: [UInt8]) -> ImportFormat? {
    guard case .object(let root)? = try? JSONParser.parse(bytes) else { return nil }
    if root["openapi"] != nil || root["swagger"] != nil { return .openapi }
    if InsomniaImporter.isExport(.object(root)) { return .insomnia }
    if root["log"]?["entries"] != nil { return .har }
    if root["info"] != nil || root["values"] != nil || root["_postman_variable_scope"] != nil { return .postman }
    return nil
  }

  /// Reads `bytes` (the input, named `file` in errors) in this format. `readFile` reads the files
  /// a curl command names (`-d @body.json`, `-F 'a=<notes.txt'`); the default reads them from
  /// the current directory's tree under the folder rule (`ImportFile.reader(in:)`); `import` reads
  /// them from the workspace's folder.
  /// `har` reads the entries `har` (the filter, cookies or not) selects; `openapi` the
  /// operations `openapi` (the tag) selects.
  public func parse(
    _ bytes: [UInt8], file: String,
    readFile: @escaping (String) throws(FileError) -> [UInt8] = ImportFile.reader(in: nil),
    har: HARImporter.Options = HARImporter.Options(),
    openapi: OpenAPIImporter.Options = OpenAPIImporter.Options()
  ) throws(ImportError) -> ImportedRequests {
    var imported: ImportedRequests
    do throws(ImportError) {
      imported =
        switch self {
        case .curl:
          try CurlImporter.parse(ImportFile.text(bytes, file: file), file: file, readFile: readFile)
        case .httpie: try HTTPieImporter.parse(ImportFile.text(bytes, file: file), file: file)
        case .http: try HTTPFileImporter.parse(ImportFile.text(bytes, file: file), file: file, readFile: readFile)
        case .postman: try PostmanImporter.parse(bytes, file: file)
        case .har: try HARImporter.parse(bytes, file: file, options: har)
        case .openapi: try OpenAPIImporter.parse(bytes, file: file, options: openapi)
        case .bruno: try BrunoImporter.parse(bytes, file: file)
        case .insomnia: try InsomniaImporter.parse(bytes, file: file)
        }
    } catch {
      throw explaining(error, bytes: bytes)
    }
    imported.followNameRules(file: file)
    return imported
  }
}

/// Reading import inputs.
public enum ImportFile {
  /// The bytes of the file at `path`.
  public static func read(_ path: String) throws(FileError) -> [UInt8] {
    try FileAccess.read(URL(fileURLWithPath: path))
  }

  /// Reads the files an import names, relative to `folder` (the current directory when nil)
  /// under the rule of every file a workspace names (`WorkspacePaths.resolve`): an absolute
  /// path, `~`, `..` or a symbolic link leading out of the folder is refused, never read.
  public static func reader(in folder: URL?) -> @Sendable (String) throws(FileError) -> [UInt8] {
    { path throws(FileError) in
      let resolved: String
      do throws(WorkspacePaths.PathError) {
        resolved = try WorkspacePaths.resolve(path, in: folder)
      } catch {
        throw FileError(path: path, message: error.message, reason: error.message)
      }
      return try FileAccess.read(URL(fileURLWithPath: resolved))
    }
  }

  /// The input as text: UTF-8 (a byte order mark is dropped), else an error at the first bad byte.
  public static func text(_ bytes: [UInt8], file: String) throws(ImportError) -> String {
    var bytes = bytes[...]
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
    if let text = String(validating: bytes, as: UTF8.self) { return text }
    // Find where the valid prefix ends, to point at the bad byte.
    var valid = bytes.startIndex
    var iterator = bytes.makeIterator()
    var decoder = UTF8()
    while case .scalarValue(let scalar) = decoder.decode(&iterator) { valid += UTF8.width(scalar) }
    let prefix = String(decoding: bytes[..<valid], as: UTF8.self)
    let lines = prefix.split(
      omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    throw ImportError(
      file: file,
      location: SourceLocation(line: lines.count, column: (lines.last?.count ?? 0) + 1),
      message: "the input is not UTF-8 text; save it as UTF-8 and import it again")
  }
}
