import Foundation
import RequestEngine
import Workspace

/// Reads a Bruno collection (a folder with `bruno.json`, its requests in `.bru` files, its
/// folders as folders) or one `.bru` file into requests, folders, variables and environments.
///
/// - Each request `.bru` (`meta`, a method block such as `post { url, body, auth }`, `headers`,
///   `params:path`, `body:*`, `auth:*`, `settings`) is a request named after its `meta.name`
///   (else the file's name) inside its folders (`users/Get user`; a folder's `folder.bru` names
///   it); requests and folders go in `seq` order.
/// - Headers: the collection's (`collection.bru`), then each folder's (`folder.bru`), then the
///   request's, a later one of the same name replacing an earlier one in its place, as Bruno
///   merges them; `~` headers are switched off.
/// - The URL is kept as written (Bruno keeps `params:query` in it), `:name` path parameters
///   filled in from `params:path`. Bodies are sent as written, with the content type Bruno adds
///   when the request sets none (`application/json`, `text/plain`, `application/xml`…); GraphQL
///   bodies are `{"query": …, "variables": …}`.
/// - Auth: basic, bearer, digest, API key (a header or query parameter), OAuth 2.0 (client
///   credentials, password, authorization code); `inherit` takes the folder's or the
///   collection's. Other kinds are left out with a warning.
/// - `{{name}}` variables are reqbench's; `{{process.env.NAME}}` is `{{env.NAME}}`. The
///   collection's `vars:pre-request` become variables; `environments/*.bru` environments (their
///   `vars:secret` as `{{secret.NAME}}`, to set with `reqbench secrets set`).
/// - Scripts, tests and assertions, request-level variables and folder-level variables are left
///   out with a warning; a request that cannot be imported is left out with a warning naming its
///   file, the others are kept.
public enum BrunoImporter {
  /// Reads the collection in `folder`, or the one `.bru` file `bytes` named `file`.
  public static func parse(folder: URL) throws(ImportError) -> ImportedRequests {
    var reader = Reader(root: folder)
    try reader.readCollection()
    return reader.finish(file: folder.lastPathComponent)
  }

  /// One `.bru` file: a request, or an environment (a file of `vars` only).
  public static func parse(_ bytes: [UInt8], file: String) throws(ImportError) -> ImportedRequests {
    let bru = try Reader.bru(ImportFile.text(bytes, file: file), file: file)
    var reader = Reader(root: nil)
    if bru.block("meta") == nil, bru.block("vars") != nil || bru.block("vars:secret") != nil {
      let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
      reader.imported.environments.append(reader.environment(bru, name: name))
      return reader.imported
    }
    if let template = try reader.request(bru, file: file, name: nil, folders: []) {
      reader.imported.requests.append(ImportedRequest(template: template, location: .start))
    }
    return reader.finish(file: file)
  }

  /// Whether `text` reads as a `.bru` file: its first block is one of Bruno's.
  public static func looksLikeBru(_ text: String) -> Bool {
    guard let first = text.split(whereSeparator: \.isNewline).map({ $0.trimmingSpaces() }).first(where: { !$0.isEmpty })
    else { return false }
    let words = ["meta {", "get {", "post {", "put {", "delete {", "patch {", "vars {", "headers {", "auth {", "http {"]
    return words.contains(first.replacingOccurrences(of: "  ", with: " "))
  }

  /// A folder's or the collection's headers and auth, which its requests take.
  struct Level {
    var bru: BruFile
    var file: String
  }

  struct Reader {
    let root: URL?
    var imported = ImportedRequests()
    var refused: ImportError?

    init(root: URL?) { self.root = root }

    static func bru(_ text: String, file: String) throws(ImportError) -> BruFile {
      do throws(BruFile.ParseError) {
        return try BruFile.parse(text)
      } catch {
        throw ImportError(file: file, location: SourceLocation(line: error.line, column: error.column), message: error.message)
      }
    }

    mutating func finish(file: String) -> ImportedRequests {
      var result = imported
      result.followNameRules(file: file)
      return result
    }

    /// Reads `bruno.json`'s folder: `collection.bru`, the environments, then every folder.
    mutating func readCollection() throws(ImportError) {
      guard let root else { return }
      let manifest = root.appendingPathComponent("bruno.json")
      guard FileManager.default.fileExists(atPath: manifest.path) else {
        throw ImportError(
          file: root.path, location: nil,
          message: "this folder has no bruno.json; give the folder of a Bruno collection, or one .bru file")
      }
      var levels: [Level] = []
      if let collection = try readBru(root.appendingPathComponent("collection.bru"), relative: "collection.bru") {
        levels.append(Level(bru: collection, file: "collection.bru"))
        for pair in collection.block("vars:pre-request")?.pairs ?? [] where pair.enabled {
          if let value = variableValue(pair.value, file: "collection.bru", line: pair.line) {
            imported.variables.append(Variable(name: pair.key, value: value))
          }
        }
        noteLeftOut(collection, file: "collection.bru", request: false)
      }
      let environments = root.appendingPathComponent("environments")
      for name in Self.entries(environments).filter({ $0.hasSuffix(".bru") }) {
        let relative = "environments/" + name
        do throws(ImportError) {
          if let bru = try readBru(environments.appendingPathComponent(name), relative: relative) {
            imported.environments.append(environment(bru, name: String(name.dropLast(4))))
          }
        } catch {
          imported.warnings.append("\(error.description); this environment is not imported")
        }
      }
      try readFolder(root, relative: "", folders: [], levels: levels)
      if imported.requests.isEmpty {
        if let refused { throw refused }
        throw ImportError(file: root.path, location: nil, message: "this collection has no request (.bru file with a method block)")
      }
    }

    /// The names in a folder, sorted; none when it cannot be read.
    static func entries(_ folder: URL) -> [String] {
      ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    func readBru(_ url: URL, relative: String) throws(ImportError) -> BruFile? {
      guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
      return try Self.bru(ImportFile.text(Array(data), file: relative), file: relative)
    }

    /// The requests of one folder and of its folders, in `seq` order.
    mutating func readFolder(_ folder: URL, relative: String, folders: [String], levels: [Level]) throws(ImportError) {
      var items: [(seq: Double, name: String, run: (inout Reader) throws(ImportError) -> Void)] = []
      for entry in Self.entries(folder) {
        let url = folder.appendingPathComponent(entry)
        let path = relative.isEmpty ? entry : relative + "/" + entry
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { continue }
        if isFolder.boolValue {
          if entry.hasPrefix(".") || entry == "node_modules" || (relative.isEmpty && entry == "environments") { continue }
          let folderBru: BruFile?
          do throws(ImportError) {
            folderBru = try readBru(url.appendingPathComponent("folder.bru"), relative: path + "/folder.bru")
          } catch {
            imported.warnings.append("\(error.description); the folder's headers and auth are not imported")
            folderBru = nil
          }
          let name = folderBru?.value("meta", "name") ?? entry
          let seq = folderBru?.value("meta", "seq").flatMap(Double.init) ?? .infinity
          var inner = levels
          if let folderBru {
            inner.append(Level(bru: folderBru, file: path + "/folder.bru"))
            noteLeftOut(folderBru, file: path + "/folder.bru", request: false)
          }
          items.append((seq, name, { (reader: inout Reader) throws(ImportError) in
            try reader.readFolder(url, relative: path, folders: folders + [name], levels: inner)
          }))
        } else if entry.hasSuffix(".bru"), entry != "folder.bru", entry != "collection.bru" {
          let bru: BruFile
          do throws(ImportError) {
            guard let read = try readBru(url, relative: path) else { continue }
            bru = read
          } catch {
            refuse(error)
            continue
          }
          let seq = bru.value("meta", "seq").flatMap(Double.init) ?? .infinity
          let name = bru.value("meta", "name") ?? String(entry.dropLast(4))
          items.append((seq, name, { (reader: inout Reader) throws(ImportError) in
            do throws(ImportError) {
              guard let template = try reader.request(bru, file: path, name: name, folders: folders, levels: levels)
              else { return }
              reader.imported.requests.append(ImportedRequest(template: template, location: .start))
            } catch {
              reader.refuse(error)
            }
          }))
        }
      }
      items.sort { ($0.seq, $0.name) < ($1.seq, $1.name) }
      for item in items { try item.run(&self) }
    }

    mutating func refuse(_ error: ImportError) {
      refused = refused ?? error
      imported.warnings.append("\(error.description); this request is not imported, the others are")
    }

    /// An environment's `vars` (switched on) and `vars:secret` (as `{{secret.NAME}}`).
    mutating func environment(_ bru: BruFile, name: String) -> Environment {
      var variables: [Variable] = []
      for pair in bru.block("vars")?.pairs ?? [] where pair.enabled {
        if let value = variableValue(pair.value, file: "environments/\(name).bru", line: pair.line) {
          variables.append(Variable(name: pair.key, value: value))
        }
      }
      for secret in bru.block("vars:secret")?.items ?? [] {
        let key = secret.hasPrefix("~") ? String(secret.dropFirst()) : secret
        guard Template.isValidName(key) else { continue }
        variables.append(Variable(name: key, value: "{{secret.\(key)}}"))
        if !imported.secrets.contains(key) { imported.secrets.append(key) }
      }
      return Environment(name: name, variables: variables)
    }

    /// A variable's value as a template; nil (with a warning) when it holds a placeholder reqbench
    /// cannot fill in.
    mutating func variableValue(_ value: String, file: String, line: Int) -> String? {
      do throws(ForeignPlaceholders.Unsupported) {
        return try ForeignPlaceholders.template(value, rename: Self.variableName)
      } catch {
        imported.warnings.append("\(file):\(line):1: \(error.placeholder) is not a variable reqbench can fill in; this variable is not imported")
        return nil
      }
    }

    /// reqbench's name of a Bruno placeholder: the name itself, `env.NAME` for
    /// `process.env.NAME`; nil for Bruno's dynamic values (`$randomInt`, `$guid`…).
    static func variableName(_ inner: String) -> String? {
      if inner.hasPrefix("process.env.") { return "env." + inner.dropFirst("process.env.".count) }
      return inner.hasPrefix("$") ? nil : inner
    }

    /// Warns about what a file holds that reqbench does not run: scripts, tests, assertions and,
    /// for a request or folder, variables.
    mutating func noteLeftOut(_ bru: BruFile, file: String, request: Bool) {
      var left: [String] = []
      for block in bru.blocks {
        if block.name.hasPrefix("script:") || block.name == "tests" {
          if !(block.text ?? "").trimmingSpaces().isEmpty { left.append(block.name) }
        } else if block.name == "assert" || block.name == "vars:post-response"
          || (file != "collection.bru" && block.name == "vars:pre-request")
        {
          if block.pairs.contains(where: \.enabled) { left.append(block.name) }
        }
      }
      if !left.isEmpty {
        imported.warnings.append(
          "\(file): \(left.joined(separator: ", ")) left out (reqbench runs no scripts"
            + " and has no per-request variables); \(request ? "the request is" : "its requests are") imported without them")
      }
    }
  }
}
