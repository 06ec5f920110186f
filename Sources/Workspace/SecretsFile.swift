import Foundation
import RequestEngine

/// The secrets beside a workspace: `demo.secrets.json` for `demo.json`, a flat JSON object of
/// names and values, mode 0600, listed in the folder's `.gitignore` (the app writes both).
/// `{{secret.NAME}}` reads it when `REQBENCH_SECRET_NAME` is not set.
///
/// ```swift
/// var secrets = try SecretsFile.load(forWorkspace: workspaceURL)
/// secrets.set("token", "s3cr3t")
/// try secrets.save()
/// ```
public struct SecretsFile: Sendable, Equatable {
  /// Where it is saved; nil for an in-memory set (tests, no workspace file).
  public var url: URL?
  private var object: JSONObject

  public init(url: URL? = nil, values: [(String, String)] = []) {
    self.url = url
    self.object = JSONObject(values.map { (key: $0.0, value: .string($0.1)) })
  }

  /// `path/NAME.secrets.json` for `path/NAME.json`.
  public static func url(forWorkspace file: URL) -> URL {
    var name = file.lastPathComponent
    if name.hasSuffix(".json") { name.removeLast(5) }
    return file.deletingLastPathComponent().appendingPathComponent(name + ".secrets.json")
  }

  /// Reads the secrets file of a workspace; a missing file is an empty set. A malformed file is
  /// an error with its line and column (and is never overwritten by `save` of this value).
  public static func load(forWorkspace file: URL) throws(WorkspaceError) -> SecretsFile {
    let url = url(forWorkspace: file)
    guard FileManager.default.fileExists(atPath: url.path) else { return SecretsFile(url: url) }
    let bytes: [UInt8]
    do {
      bytes = try FileAccess.read(url)
    } catch {
      throw WorkspaceError(
        kind: .unreadable, file: url.relativePath,
        problems: [.init(location: nil, message: "cannot read the secrets file: \(error.reason)")])
    }
    let document: JSONDocument
    do {
      document = try JSONParser.parseDocument(bytes)
    } catch {
      throw WorkspaceError(
        kind: .syntax, file: url.relativePath,
        problems: [.init(location: error.location, message: error.message)])
    }
    guard case .object(let object) = document.root else {
      throw WorkspaceError(
        kind: .invalid, file: url.relativePath,
        problems: [
          .init(
            location: document.location(of: .root),
            message: "expected an object of secret names and values: {\"token\": \"…\"}")
        ])
    }
    var problems: [WorkspaceError.Problem] = []
    for member in object.members where member.value.stringValue == nil {
      problems.append(
        .init(
          location: document.location(of: JSONPath.root.appending(member.key)),
          message: "\(member.key): expected a string, found \(member.value.typeName)"))
    }
    guard problems.isEmpty else {
      throw WorkspaceError(kind: .invalid, file: url.relativePath, problems: problems)
    }
    var secrets = SecretsFile(url: url)
    secrets.object = object
    return secrets
  }

  public var names: [String] { object.keys }

  public func value(of name: String) -> String? { object[name]?.stringValue }

  /// Sets a secret; nil removes it.
  public mutating func set(_ name: String, _ value: String?) {
    object[name] = value.map { .string($0) }
  }

  /// Writes the file atomically with mode 0600, after making sure the folder's `.gitignore` lists
  /// it and its temporary files (so the secret is ignored by git before it is on disk), and
  /// removes temporary files a killed earlier write left (`.NAME.secrets.json.tmp-…`).
  public func save() throws(FileError) {
    guard let url else {
      throw FileError(path: "", message: "these secrets have no file to be saved to", reason: "no file")
    }
    try SecretsFile.ignoreInGit(url)
    SecretsFile.removeLeftovers(of: url)
    try AtomicFile.write(Array((JSONSerializer.pretty(.object(object)) + "\n").utf8), to: url, permissions: 0o600)
  }

  /// The `.gitignore` line that covers the temporary files of every secrets file's writes.
  static let temporaryPattern = ".*.secrets.json.tmp-*"

  /// Removes `.NAME.tmp-*` beside `file`: what a write killed before its rename leaves.
  static func removeLeftovers(of file: URL) {
    let folder = file.deletingLastPathComponent()
    let prefix = "." + file.lastPathComponent + ".tmp-"
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
    for name in names where name.hasPrefix(prefix) {
      unlink(folder.appendingPathComponent(name).path)
    }
  }

  /// Adds `NAME.secrets.json` and the temporary files' pattern to the `.gitignore` beside it
  /// unless lines already cover them.
  static func ignoreInGit(_ file: URL) throws(FileError) {
    let ignore = file.deletingLastPathComponent().appendingPathComponent(".gitignore")
    let name = file.lastPathComponent
    var text = ""
    var lines: [String] = []
    if FileManager.default.fileExists(atPath: ignore.path) {
      text = String(decoding: try FileAccess.read(ignore), as: UTF8.self)
      lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
    }
    var missing: [String] = []
    if !(lines.contains(name) || lines.contains("/" + name) || lines.contains("*.secrets.json")) {
      missing.append(name)
    }
    if !lines.contains(temporaryPattern) { missing.append(temporaryPattern) }
    if missing.isEmpty { return }
    if !text.isEmpty && !text.hasSuffix("\n") { text += "\n" }
    text += "# secrets of reqbench workspaces: never commit them\n" + missing.map { $0 + "\n" }.joined()
    try AtomicFile.write(Array(text.utf8), to: ignore)
  }
}
